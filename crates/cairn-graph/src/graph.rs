//! The in-memory graph: nodes, resolved edges and a CSR adjacency (both directions) for fast expansion.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use cairn_core::{Audience, Provenance};
use cairn_store::{GraphEdgeRow, GraphNodeRow, SqliteStore};
use serde::Serialize;

use crate::Result;
use crate::extract::{REF_PREFIX, ref_key};
use crate::model::{node, slug};

/// A node: a stored item or an entity (kind `file`, `turn`, ... or `tag`, `person`, ...). It has exactly
/// the fields of a stored node row, so it is the store's row type; in a [`Graph`] the rows of one id are
/// merged into one node, public when any public source names it.
pub type Node = GraphNodeRow;

/// A resolved edge between two nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edge {
    /// Source node index.
    pub src: u32,
    /// Destination node index.
    pub dst: u32,
    /// Edge type (shared between edges of a type).
    pub kind: Arc<str>,
    /// Weight in (0, 1].
    pub weight: f32,
    /// Why it exists.
    pub reason: Arc<str>,
    /// Where it was read.
    pub provenance: Arc<Provenance>,
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
    /// Per node: whether it is a project node (never expanded through; checked on every edge walked).
    project: Vec<bool>,
    /// Per node: its project, interned (compared on every edge walked).
    project_of: Vec<u32>,
    /// Project name → interned id.
    project_ids: HashMap<String, u32>,
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
    /// Load the graph from the store's graph tables, streaming the rows: JSON columns are parsed only
    /// for the node rows kept and once per distinct edge provenance, and edge types, reasons and
    /// provenances are shared between edges.
    ///
    /// Fails on a damaged row (a bad audience, provenance or weight): callers treat that as a failed
    /// graph lane.
    pub fn load(store: &SqliteStore) -> Result<Graph> {
        let mut b = Builder::default();
        store.for_each_graph_node(&mut |r| b.node(r.id, r.audience, r.item_id.is_some(), || r.parse()))?;
        b.index_refs();
        let mut bad: Option<cairn_store::Error> = None;
        store.for_each_graph_edge(&mut |e| {
            let prov = b.provs.intern_json(e.provenance).map_err(|err| cairn_store::Error::Corrupt {
                id: format!("graph_edges:{}->{}", e.src, e.dst),
                reason: format!("provenance: {err}"),
            });
            match prov {
                Ok(prov) => b.edge(e.owner, e.src, e.dst, e.kind, e.weight, e.reason, prov, e.audience),
                Err(err) => {
                    bad.get_or_insert(err);
                }
            }
            Ok(())
        })?;
        if let Some(e) = bad {
            return Err(e.into());
        }
        Ok(b.finish())
    }

    /// Build a graph from rows (duplicates merged: a node is public when any of its rows is).
    pub fn from_rows(node_rows: Vec<GraphNodeRow>, edge_rows: Vec<GraphEdgeRow>) -> Graph {
        let mut b = Builder::default();
        // Rows merge in the order given (the store streams them by owner, then id).
        for n in node_rows {
            let (audience, is_item, id) = (n.audience, n.item_id.is_some(), n.id.clone());
            b.node(&id, audience, is_item, move || Ok(n)).expect("rows given are parsed already");
        }
        b.index_refs();
        for e in edge_rows {
            let prov = b.provs.intern(&e.provenance);
            b.edge("", &e.src, &e.dst, &e.kind, e.weight, &e.reason, prov, e.audience);
        }
        b.finish()
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
        self.project = self.nodes.iter().map(|n| n.kind == node::PROJECT).collect();
        let mut ids: HashMap<String, u32> = HashMap::new();
        self.project_of = self
            .nodes
            .iter()
            .map(|n| match ids.get(&n.project) {
                Some(&i) => i,
                None => {
                    let i = ids.len() as u32;
                    ids.insert(n.project.clone(), i);
                    i
                }
            })
            .collect();
        self.project_ids = ids;
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

    /// Number of edges touching node `i` that `scope` may see (edge and other end both visible): the
    /// count a caller of that scope is shown, so a private neighbour never shows as a number.
    pub fn degree_in(&self, i: u32, scope: &cairn_core::Scope) -> usize {
        self.neighbours(i)
            .iter()
            .filter(|a| scope.allows(self.edge(a.edge).audience) && scope.allows(self.node(a.other).audience))
            .count()
    }

    pub(crate) fn project_of(&self, i: u32) -> u32 {
        self.project_of[i as usize]
    }

    pub(crate) fn project_id(&self, project: &str) -> Option<u32> {
        self.project_ids.get(project).copied()
    }

    pub(crate) fn is_project(&self, i: u32) -> bool {
        self.project[i as usize]
    }

    pub(crate) fn neighbours(&self, i: u32) -> &[Adj] {
        &self.adj[self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize]
    }
}

/// Interned strings: each distinct value stored once and shared.
#[derive(Default)]
struct Interner {
    ids: HashMap<Arc<str>, u32>,
    values: Vec<Arc<str>>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let v: Arc<str> = Arc::from(s);
        let i = self.values.len() as u32;
        self.values.push(v.clone());
        self.ids.insert(v, i);
        i
    }
}

/// Provenances interned by their JSON text: parsed once per distinct value.
#[derive(Default)]
struct Provenances {
    text: Interner,
    parsed: Vec<Arc<Provenance>>,
}

impl Provenances {
    fn intern_json(&mut self, json: &str) -> std::result::Result<u32, serde_json::Error> {
        if let Some(&i) = self.text.ids.get(json) {
            return Ok(i);
        }
        let p: Provenance = serde_json::from_str(json)?;
        let i = self.text.intern(json);
        self.parsed.push(Arc::new(p));
        Ok(i)
    }

    fn intern(&mut self, p: &Provenance) -> u32 {
        let json = serde_json::to_string(p).unwrap_or_default();
        let i = self.text.intern(&json);
        if i as usize == self.parsed.len() {
            self.parsed.push(Arc::new(p.clone()));
        }
        i
    }
}

#[derive(Clone, Copy)]
enum End {
    Merged(u32),
    Extra(u32),
}

struct PendingEdge {
    src: u32,
    dst: End,
    kind: u32,
    reason: u32,
    prov: u32,
    owner: u32,
    weight: f32,
    audience: Audience,
}

/// Builds a [`Graph`] from streamed rows: node rows merged by id, `ref:` targets resolved, edges
/// deduplicated, then everything sorted by id for stable indices.
#[derive(Default)]
struct Builder {
    merged: Vec<Node>,
    by_id: HashMap<String, u32>,
    by_path: HashMap<String, u32>,
    by_key: HashMap<String, Vec<(String, String)>>,
    extras: Vec<Node>,
    extra_ids: HashMap<String, u32>,
    kinds: Interner,
    reasons: Interner,
    owners: Interner,
    provs: Provenances,
    edges: Vec<PendingEdge>,
}

impl Builder {
    /// Merges one node row: the first row of an id is kept (parsed by `parse`), a node is public when
    /// any of its rows is, and an item's own row wins over rows naming it as an entity.
    fn node(
        &mut self,
        id: &str,
        audience: Audience,
        is_item: bool,
        parse: impl FnOnce() -> cairn_store::Result<GraphNodeRow>,
    ) -> cairn_store::Result<()> {
        match self.by_id.get(id) {
            Some(&i) => {
                let m = &mut self.merged[i as usize];
                if audience == Audience::Public {
                    m.audience = Audience::Public;
                }
                if m.item_id.is_none() && is_item {
                    let keep = m.audience.min(audience);
                    *m = parse()?;
                    m.audience = keep;
                }
            }
            None => {
                let n = parse()?;
                self.by_id.insert(n.id.clone(), self.merged.len() as u32);
                self.merged.push(n);
            }
        }
        Ok(())
    }

    /// Resolution tables for `ref:` targets: item paths, and slugs of titles and file stems.
    fn index_refs(&mut self) {
        let mut by_key: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (i, n) in self.merged.iter().enumerate().filter(|(_, n)| n.is_item()) {
            if let Provenance::File { path, .. } = &n.provenance {
                // Several items at one path: the greatest id wins, whatever the row order.
                match self.by_path.get(path) {
                    Some(&j) if self.merged[j as usize].id >= n.id => {}
                    _ => {
                        self.by_path.insert(path.clone(), i as u32);
                    }
                }
                by_key.entry(ref_key(path)).or_default().push((n.project.clone(), n.id.clone()));
            }
            by_key.entry(ref_key(&n.title)).or_default().push((n.project.clone(), n.id.clone()));
        }
        for v in by_key.values_mut() {
            v.sort();
            v.dedup();
        }
        self.by_key = by_key.into_iter().collect();
    }

    fn resolve_ref(&mut self, src: u32, target: &str, audience: Audience, prov: u32) -> End {
        let s = &self.merged[src as usize];
        let src_path = match &s.provenance {
            Provenance::File { path, .. } => path.as_str(),
            _ => "",
        };
        let looks_like_path = target.contains('/') || target.ends_with(".md");
        if looks_like_path {
            let rel = if target.starts_with('/') {
                normalize(target)
            } else {
                normalize(&format!("{}/{target}", parent_dir(src_path)))
            };
            if let Some(&i) = self.by_path.get(&rel).or_else(|| self.by_path.get(&normalize(target))) {
                return End::Merged(i);
            }
        }
        if let Some(cands) = self.by_key.get(&ref_key(target)) {
            let hit = cands.iter().find(|(p, _)| *p == s.project).or(cands.first());
            if let Some((_, id)) = hit {
                return End::Merged(self.by_id[id]);
            }
        }
        let project = s.project.clone();
        let id = format!("{}:{}/{}", node::LINKED_FILE, project, slug(target));
        if let Some(&i) = self.by_id.get(&id) {
            return End::Merged(i);
        }
        match self.extra_ids.get(&id) {
            Some(&i) => {
                if audience == Audience::Public {
                    self.extras[i as usize].audience = Audience::Public;
                }
                End::Extra(i)
            }
            None => {
                let i = self.extras.len() as u32;
                self.extras.push(Node {
                    id: id.clone(),
                    kind: node::LINKED_FILE.into(),
                    title: target.to_owned(),
                    project,
                    audience,
                    item_id: None,
                    l0: String::new(),
                    provenance: (*self.provs.parsed[prov as usize]).clone(),
                    tags: vec![],
                });
                self.extra_ids.insert(id, i);
                End::Extra(i)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        owner: &str,
        src: &str,
        dst: &str,
        kind: &str,
        weight: f32,
        reason: &str,
        prov: u32,
        audience: Audience,
    ) {
        let Some(&s) = self.by_id.get(src) else { return };
        let d = match dst.strip_prefix(REF_PREFIX) {
            Some(target) => self.resolve_ref(s, target, audience, prov),
            None => match self.by_id.get(dst) {
                Some(&d) => End::Merged(d),
                None => return, // a stale target (its item is gone): dropped until the next sync
            },
        };
        if let End::Merged(d) = d
            && d == s
        {
            return;
        }
        let edge = PendingEdge {
            src: s,
            dst: d,
            kind: self.kinds.intern(kind),
            reason: self.reasons.intern(reason),
            prov,
            owner: self.owners.intern(owner),
            weight,
            audience,
        };
        self.edges.push(edge);
    }

    fn finish(self) -> Graph {
        let Builder { merged, extras, kinds, reasons, owners, provs, mut edges, .. } = self;
        let n_merged = merged.len();
        let mut all: Vec<(Node, usize)> = merged.into_iter().enumerate().map(|(i, n)| (n, i)).collect();
        all.extend(extras.into_iter().enumerate().map(|(i, n)| (n, n_merged + i)));
        all.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        let mut remap = vec![0u32; all.len()];
        for (new, (_, old)) in all.iter().enumerate() {
            remap[*old] = new as u32;
        }
        let nodes: Vec<Node> = all.into_iter().map(|(n, _)| n).collect();
        let index: HashMap<String, u32> =
            nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as u32)).collect();
        let at = |e: End| match e {
            End::Merged(i) => remap[i as usize],
            End::Extra(i) => remap[n_merged + i as usize],
        };
        for e in &mut edges {
            e.src = remap[e.src as usize];
            e.dst = End::Merged(at(e.dst));
        }
        let dst = |e: &PendingEdge| match e.dst {
            End::Merged(i) | End::Extra(i) => i,
        };
        let text = |t: &Interner, i: u32| t.values[i as usize].clone();
        edges.retain(|e| e.src != dst(e));
        edges.sort_by(|a, b| {
            (a.src, dst(a))
                .cmp(&(b.src, dst(b)))
                .then_with(|| kinds.values[a.kind as usize].cmp(&kinds.values[b.kind as usize]))
                .then_with(|| provs.text.values[a.prov as usize].cmp(&provs.text.values[b.prov as usize]))
                .then_with(|| owners.values[a.owner as usize].cmp(&owners.values[b.owner as usize]))
        });
        edges.dedup_by(|a, b| a.src == b.src && dst(a) == dst(b) && a.kind == b.kind && a.prov == b.prov);
        let edges: Vec<Edge> = edges
            .into_iter()
            .map(|e| {
                let d = dst(&e);
                Edge {
                    src: e.src,
                    dst: d,
                    cross_project: nodes[e.src as usize].project != nodes[d as usize].project,
                    kind: text(&kinds, e.kind),
                    weight: e.weight,
                    reason: text(&reasons, e.reason),
                    provenance: provs.parsed[e.prov as usize].clone(),
                    audience: e.audience,
                }
            })
            .collect();
        let mut g = Graph {
            nodes,
            edges,
            index,
            offsets: vec![],
            adj: vec![],
            project: vec![],
            project_of: vec![],
            project_ids: HashMap::new(),
        };
        g.build_csr();
        g
    }
}
