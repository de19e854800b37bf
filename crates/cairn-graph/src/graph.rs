//! The in-memory graph: nodes, resolved edges and a CSR adjacency (both directions) for fast expansion.

use std::collections::{BTreeMap, HashMap};

use cairn_core::{Audience, Provenance};
use cairn_store::{GraphEdgeRow, GraphNodeRow, SqliteStore};
use serde::Serialize;

use crate::Result;
use crate::extract::{REF_PREFIX, ref_key};
use crate::model::{node, slug};

/// A node: a stored item or an entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// Stable id.
    pub id: String,
    /// Item kind (`file`, `turn`, ...) or entity kind (`tag`, `person`, ...).
    pub kind: String,
    /// Title.
    pub title: String,
    /// Project.
    pub project: String,
    /// Public when any public source names it.
    pub audience: Audience,
    /// The stored item, for item nodes.
    pub item_id: Option<String>,
    /// L0 one-line abstract.
    pub l0: String,
    /// Where it came from.
    pub provenance: Provenance,
    /// Tags.
    pub tags: Vec<String>,
}

impl Node {
    /// Whether this node is a stored item (not an entity).
    pub fn is_item(&self) -> bool {
        self.item_id.is_some()
    }
}

/// A resolved edge between two nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edge {
    /// Source node index.
    pub src: u32,
    /// Destination node index.
    pub dst: u32,
    /// Edge type.
    pub kind: String,
    /// Weight in (0, 1].
    pub weight: f32,
    /// Why it exists.
    pub reason: String,
    /// Where it was read.
    pub provenance: Provenance,
    /// Audience of its source.
    pub audience: Audience,
    /// Whether its ends are in different projects.
    pub cross_project: bool,
}

/// One adjacency entry: the node at the other end and the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Adj {
    pub(crate) other: u32,
    pub(crate) edge: u32,
}

/// The graph, loaded from the store's graph tables (see [`Graph::load`]).
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    index: HashMap<String, u32>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) adj: Vec<Adj>,
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `a/b/../c.md` → `a/c.md`; `./x` → `x`; a leading `/` means the workspace root.
fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

impl Graph {
    /// Load the graph from the store's graph tables.
    ///
    /// Fails on a damaged row (a bad audience, provenance or weight): callers treat that as a failed
    /// graph lane.
    pub fn load(store: &SqliteStore) -> Result<Graph> {
        let nodes = store.graph_nodes()?;
        let edges = store.graph_edges()?;
        Ok(Graph::from_rows(
            nodes.into_iter().map(|(_, n)| n).collect(),
            edges.into_iter().map(|(_, e)| e).collect(),
        ))
    }

    /// Build a graph from rows (duplicates merged: a node is public when any of its rows is).
    pub fn from_rows(node_rows: Vec<GraphNodeRow>, edge_rows: Vec<GraphEdgeRow>) -> Graph {
        let mut merged: BTreeMap<String, Node> = BTreeMap::new();
        for n in node_rows {
            match merged.get_mut(&n.id) {
                Some(m) => {
                    if n.audience == Audience::Public {
                        m.audience = Audience::Public;
                    }
                    // An item's own row wins over rows naming it as an entity.
                    if m.item_id.is_none() && n.item_id.is_some() {
                        let audience = m.audience.min(n.audience);
                        *m = to_node(n);
                        m.audience = audience;
                    }
                }
                None => {
                    merged.insert(n.id.clone(), to_node(n));
                }
            }
        }
        // Resolution tables for `ref:` targets: item paths, and slugs of titles and file stems.
        let mut by_path: BTreeMap<String, String> = BTreeMap::new();
        let mut by_key: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for n in merged.values().filter(|n| n.is_item()) {
            if let Provenance::File { path, .. } = &n.provenance {
                by_path.insert(path.clone(), n.id.clone());
                by_key.entry(ref_key(path)).or_default().push((n.project.clone(), n.id.clone()));
            }
            by_key.entry(ref_key(&n.title)).or_default().push((n.project.clone(), n.id.clone()));
        }
        for v in by_key.values_mut() {
            v.sort();
            v.dedup();
        }
        let mut resolved: Vec<(String, String, GraphEdgeRow)> = Vec::with_capacity(edge_rows.len());
        let mut extra: BTreeMap<String, Node> = BTreeMap::new();
        for e in edge_rows {
            let Some(src) = merged.get(&e.src) else { continue };
            let dst = if let Some(target) = e.dst.strip_prefix(REF_PREFIX) {
                let src_path = match &src.provenance {
                    Provenance::File { path, .. } => path.as_str(),
                    _ => "",
                };
                let looks_like_path = target.contains('/') || target.ends_with(".md");
                let by_file = looks_like_path
                    .then(|| {
                        let rel = if target.starts_with('/') {
                            normalize(target)
                        } else {
                            normalize(&format!("{}/{target}", parent_dir(src_path)))
                        };
                        by_path.get(&rel).or_else(|| by_path.get(&normalize(target))).cloned()
                    })
                    .flatten();
                let by_name = || {
                    let cands = by_key.get(&ref_key(target))?;
                    cands.iter().find(|(p, _)| *p == src.project).or(cands.first()).map(|(_, id)| id.clone())
                };
                match by_file.or_else(by_name) {
                    Some(id) => id,
                    None => {
                        let id = format!("{}:{}/{}", node::LINKED_FILE, src.project, slug(target));
                        let n = extra.entry(id.clone()).or_insert_with(|| Node {
                            id: id.clone(),
                            kind: node::LINKED_FILE.into(),
                            title: target.to_owned(),
                            project: src.project.clone(),
                            audience: e.audience,
                            item_id: None,
                            l0: String::new(),
                            provenance: e.provenance.clone(),
                            tags: vec![],
                        });
                        if e.audience == Audience::Public {
                            n.audience = Audience::Public;
                        }
                        id
                    }
                }
            } else if merged.contains_key(&e.dst) {
                e.dst.clone()
            } else {
                continue; // a stale target (its item is gone): dropped until the next sync rewrites it
            };
            if dst == e.src {
                continue;
            }
            resolved.push((e.src.clone(), dst, e));
        }
        for (id, n) in extra {
            merged.entry(id).or_insert(n);
        }
        let nodes: Vec<Node> = merged.into_values().collect();
        let index: HashMap<String, u32> =
            nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as u32)).collect();
        let prov_key = |p: &Provenance| serde_json::to_string(p).unwrap_or_default();
        resolved
            .sort_by_cached_key(|(s, d, e)| (s.clone(), d.clone(), e.kind.clone(), prov_key(&e.provenance)));
        resolved.dedup_by(|a, b| {
            a.0 == b.0 && a.1 == b.1 && a.2.kind == b.2.kind && a.2.provenance == b.2.provenance
        });
        let edges: Vec<Edge> = resolved
            .into_iter()
            .map(|(s, d, e)| {
                let (src, dst) = (index[&s], index[&d]);
                Edge {
                    src,
                    dst,
                    cross_project: nodes[src as usize].project != nodes[dst as usize].project,
                    kind: e.kind,
                    weight: e.weight,
                    reason: e.reason,
                    provenance: e.provenance,
                    audience: e.audience,
                }
            })
            .collect();
        let mut g = Graph { nodes, edges, index, offsets: vec![], adj: vec![] };
        g.build_csr();
        g
    }

    fn build_csr(&mut self) {
        let n = self.nodes.len();
        let mut degree = vec![0u32; n + 1];
        for e in &self.edges {
            degree[e.src as usize] += 1;
            degree[e.dst as usize] += 1;
        }
        let mut offsets = vec![0u32; n + 1];
        for i in 0..n {
            offsets[i + 1] = offsets[i] + degree[i];
        }
        let mut fill = offsets.clone();
        let mut adj = vec![Adj { other: 0, edge: 0 }; offsets[n] as usize];
        for (i, e) in self.edges.iter().enumerate() {
            adj[fill[e.src as usize] as usize] = Adj { other: e.dst, edge: i as u32 };
            fill[e.src as usize] += 1;
            adj[fill[e.dst as usize] as usize] = Adj { other: e.src, edge: i as u32 };
            fill[e.dst as usize] += 1;
        }
        self.offsets = offsets;
        self.adj = adj;
    }

    /// Every node, sorted by id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Every edge, sorted by (src id, dst id, type, provenance).
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The index of a node id.
    pub fn find(&self, id: &str) -> Option<u32> {
        self.index.get(id).copied()
    }

    /// A node by index.
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    /// An edge by index.
    pub fn edge(&self, i: u32) -> &Edge {
        &self.edges[i as usize]
    }

    /// Number of edges touching node `i`.
    pub fn degree(&self, i: u32) -> usize {
        (self.offsets[i as usize + 1] - self.offsets[i as usize]) as usize
    }

    pub(crate) fn neighbours(&self, i: u32) -> &[Adj] {
        &self.adj[self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize]
    }
}

fn to_node(n: GraphNodeRow) -> Node {
    Node {
        id: n.id,
        kind: n.kind,
        title: n.title,
        project: n.project,
        audience: n.audience,
        item_id: n.item_id,
        l0: n.l0,
        provenance: n.provenance,
        tags: n.tags,
    }
}
