//! `graph.json`: a portable, byte-stable export, and the diff of two exports.

use std::collections::BTreeMap;

use cairn_core::{Provenance, Scope};
use serde::{Deserialize, Serialize};

use crate::graph::Graph;
use crate::{Error, Result};

/// The export format version.
pub const EXPORT_VERSION: u32 = 1;

/// A node in `graph.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportNode {
    /// Stable id.
    pub id: String,
    /// Node type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Title.
    pub title: String,
    /// Project.
    pub project: String,
    /// Audience.
    pub audience: String,
    /// L0 one-line abstract.
    pub l0_abstract: String,
    /// Where the L1 summary comes from: `cairn graph pack <id>` for items, `null` for entities.
    pub l1_summary_ref: Option<String>,
    /// Where the node came from.
    pub provenance: Provenance,
    /// Tags.
    pub tags: Vec<String>,
}

/// An edge in `graph.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportEdge {
    /// Source node id.
    pub src: String,
    /// Destination node id.
    pub dst: String,
    /// Edge type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Weight.
    pub weight: f32,
    /// Why it exists.
    pub reason: String,
    /// Where it was read.
    pub provenance: Provenance,
    /// Whether it crosses projects.
    pub cross_project: bool,
}

/// The whole export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Export {
    /// [`EXPORT_VERSION`].
    pub version: u32,
    /// Nodes by id.
    pub nodes: Vec<ExportNode>,
    /// Edges by (src, dst, type, provenance).
    pub edges: Vec<ExportEdge>,
}

impl Graph {
    /// The export of what `scope` may see (nodes of its project and audience; edges between them).
    /// Same graph, same bytes: nodes are sorted by id, edges by (src, dst, type, provenance).
    pub fn export(&self, scope: &Scope) -> Export {
        let keep: Vec<bool> = self.nodes.iter().map(|n| scope.contains(&n.project, n.audience)).collect();
        let nodes = self
            .nodes
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(n, _)| ExportNode {
                id: n.id.clone(),
                kind: n.kind.clone(),
                title: n.title.clone(),
                project: n.project.clone(),
                audience: n.audience.as_str().to_owned(),
                l0_abstract: n.l0.clone(),
                l1_summary_ref: n.is_item().then(|| format!("cairn graph pack {} --depth 0", n.id)),
                provenance: n.provenance.clone(),
                tags: n.tags.clone(),
            })
            .collect();
        let edges = self
            .edges
            .iter()
            .filter(|e| keep[e.src as usize] && keep[e.dst as usize] && scope.allows(e.audience))
            .map(|e| ExportEdge {
                src: self.node(e.src).id.clone(),
                dst: self.node(e.dst).id.clone(),
                kind: e.kind.to_string(),
                weight: e.weight,
                reason: e.reason.to_string(),
                provenance: (*e.provenance).clone(),
                cross_project: e.cross_project,
            })
            .collect();
        Export { version: EXPORT_VERSION, nodes, edges }
    }
}

impl Export {
    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain data");
        s.push('\n');
        s
    }

    /// Parse an export; `what` names the file in errors.
    pub fn parse(text: &str, what: &str) -> Result<Export> {
        let e: Export = serde_json::from_str(text).map_err(|e| {
            Error::BadInput(format!("`{what}` is not a graph export: {e} (line {})", e.line()))
        })?;
        if e.version != EXPORT_VERSION {
            return Err(Error::BadInput(format!(
                "`{what}` has export version {}, expected {EXPORT_VERSION}",
                e.version
            )));
        }
        Ok(e)
    }
}

/// A changed node or edge: its key and the fields that differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed {
    /// Node id, or `src -> dst [type] @provenance` for edges.
    pub key: String,
    /// Names of the fields that differ.
    pub fields: Vec<String>,
}

/// What changed from export `a` to export `b`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Diff {
    /// Nodes only in `b`.
    pub added_nodes: Vec<String>,
    /// Nodes only in `a`.
    pub removed_nodes: Vec<String>,
    /// Nodes in both that differ.
    pub changed_nodes: Vec<Changed>,
    /// Edges only in `b`.
    pub added_edges: Vec<String>,
    /// Edges only in `a`.
    pub removed_edges: Vec<String>,
    /// Edges in both that differ (weight, reason).
    pub changed_edges: Vec<Changed>,
}

impl Diff {
    /// Whether the exports are equivalent.
    pub fn is_empty(&self) -> bool {
        self.added_nodes.is_empty()
            && self.removed_nodes.is_empty()
            && self.changed_nodes.is_empty()
            && self.added_edges.is_empty()
            && self.removed_edges.is_empty()
            && self.changed_edges.is_empty()
    }
}

fn edge_key(e: &ExportEdge) -> String {
    format!("{} -> {} [{}] @{}", e.src, e.dst, e.kind, e.provenance.display())
}

fn node_fields(a: &ExportNode, b: &ExportNode) -> Vec<String> {
    let mut f = Vec::new();
    let va = serde_json::to_value(a).expect("plain data");
    let vb = serde_json::to_value(b).expect("plain data");
    if let (Some(ma), Some(mb)) = (va.as_object(), vb.as_object()) {
        for (k, v) in ma {
            if mb.get(k) != Some(v) {
                f.push(k.clone());
            }
        }
    }
    f
}

/// Compare two exports.
pub fn diff(a: &Export, b: &Export) -> Diff {
    let na: BTreeMap<&str, &ExportNode> = a.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let nb: BTreeMap<&str, &ExportNode> = b.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let ea: BTreeMap<String, &ExportEdge> = a.edges.iter().map(|e| (edge_key(e), e)).collect();
    let eb: BTreeMap<String, &ExportEdge> = b.edges.iter().map(|e| (edge_key(e), e)).collect();
    let mut d = Diff::default();
    for (id, n) in &na {
        match nb.get(id) {
            None => d.removed_nodes.push(id.to_string()),
            Some(m) => {
                let fields = node_fields(n, m);
                if !fields.is_empty() {
                    d.changed_nodes.push(Changed { key: id.to_string(), fields });
                }
            }
        }
    }
    d.added_nodes = nb.keys().filter(|k| !na.contains_key(*k)).map(|k| k.to_string()).collect();
    for (k, e) in &ea {
        match eb.get(k) {
            None => d.removed_edges.push(k.clone()),
            Some(f) => {
                let mut fields = Vec::new();
                if e.weight != f.weight {
                    fields.push("weight".to_owned());
                }
                if e.reason != f.reason {
                    fields.push("reason".to_owned());
                }
                if e.cross_project != f.cross_project {
                    fields.push("cross_project".to_owned());
                }
                if !fields.is_empty() {
                    d.changed_edges.push(Changed { key: k.clone(), fields });
                }
            }
        }
    }
    d.added_edges = eb.keys().filter(|k| !ea.contains_key(*k)).cloned().collect();
    d
}
