//! The link graph's own requests: the L0 index pack and L1/L2 context packs, `graph.json` export, sync,
//! and explicit links. Each reads the graph as the engine has it (synced to the store on first use)
//! and in the caller's scope.

use std::sync::Arc;

use cairn_core::{Audience, Provenance, Scope, now_ms};
use cairn_graph::{ContextPack, Export, Graph, GraphSyncReport, IndexPack, PackMode, PackOptions};
use cairn_store::{GraphEdgeRow, Store};

use crate::open::Engine;
use crate::{Error, Result};

/// An explicit link to add with [`Engine::link`].
#[derive(Debug, Clone)]
pub struct LinkRequest {
    /// From: a node id, an item id or a workspace path.
    pub from: String,
    /// To: a node id, an item id or a workspace path.
    pub to: String,
    /// Edge type, snake_case.
    pub kind: String,
    /// Why the two are related (required).
    pub reason: String,
    /// Weight in (0, 1].
    pub weight: f32,
}

/// What [`Engine::link`] added.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Linked {
    /// The source node id.
    pub src: String,
    /// The target node id.
    pub dst: String,
    /// Whether the two nodes are in different projects.
    pub cross_project: bool,
}

/// A node id from what a user typed: a node id, an item id, or a workspace path. Only nodes `scope` may
/// see resolve (`None`: every node), so an id the caller may not see stays exactly as typed and is
/// reported like any unknown id.
fn resolve(graph: &Graph, s: &str, scope: Option<&Scope>) -> String {
    let candidates =
        [s.to_owned(), format!("item:{s}"), format!("item:memory-file:{}", s.trim_start_matches("./"))];
    let visible =
        |c: &String| graph.find(c).is_some_and(|i| scope.is_none_or(|sc| sc.allows(graph.node(i).audience)));
    candidates.iter().find(|c| visible(c)).cloned().unwrap_or_else(|| s.to_owned())
}

impl Engine {
    fn loaded_graph(&self) -> Result<Arc<Graph>> {
        self.graph().map_err(|e| Error::Unavailable(format!("loading the graph: {e}")))
    }

    /// The L0 index pack for a query: recall's best items seed the graph; the pack lists them and
    /// their neighbourhood under `cap` tokens (default `graph.index_cap`).
    pub fn graph_index(
        &self,
        query: &str,
        scope: &Scope,
        k: usize,
        cap: Option<usize>,
        cross_project: bool,
    ) -> Result<IndexPack> {
        let graph = self.loaded_graph()?;
        let recaller = self.recaller().map_err(Error::Unavailable)?;
        let g = &self.cfg.graph;
        Ok(crate::graph_index(
            &recaller,
            &graph,
            query,
            scope,
            &g.expand(cross_project, None),
            k,
            cap.unwrap_or(g.index_cap),
            self.cfg.context.encoding,
            now_ms(),
        ))
    }

    /// The L1/L2 context pack for `ids` (node ids, item ids or workspace paths) and `depth` hops
    /// around them, under `budget` tokens (default `graph.pack_budget`).
    pub fn graph_pack(
        &self,
        ids: &[String],
        scope: &Scope,
        depth: usize,
        budget: Option<usize>,
        mode: PackMode,
        cross_project: bool,
    ) -> Result<ContextPack> {
        let graph = self.loaded_graph()?;
        let g = &self.cfg.graph;
        let ids: Vec<String> = ids.iter().map(|s| resolve(&graph, s, Some(scope))).collect();
        let opts = PackOptions {
            expand: g.expand(cross_project, Some(depth)),
            budget: budget.unwrap_or(g.pack_budget),
            mode,
            snippet_cap: g.snippet_cap,
            encoding: self.cfg.context.encoding,
        };
        let store = self.reader()?;
        let mut raw = |item: &str| store.get_item(item).ok().flatten().map(|i| i.text);
        Ok(graph.context_pack(&ids, scope, &opts, &mut raw)?)
    }

    /// The graph as `graph.json` sees it, in `scope`.
    pub fn graph_export(&self, scope: &Scope) -> Result<Export> {
        Ok(self.loaded_graph()?.export(scope))
    }

    /// Brings the graph tables up to the store (`rebuild`: from scratch).
    pub fn graph_sync(&self, rebuild: bool) -> Result<GraphSyncReport> {
        let mut writer = self.writer()?;
        let report = if rebuild {
            cairn_graph::rebuild_graph(&mut writer)?
        } else {
            cairn_graph::sync_graph(&mut writer)?
        };
        self.refresh_graph(&mut writer)?;
        Ok(report)
    }

    /// Adds an explicit typed link between two nodes. The edge is public only when both ends are.
    pub fn link(&self, req: &LinkRequest) -> Result<Linked> {
        if !cairn_graph::model::valid_edge_kind(&req.kind) {
            return Err(Error::BadInput(format!(
                "`--type {}` is not a snake_case edge type (like `inspired_by`)",
                req.kind
            )));
        }
        if req.reason.trim().is_empty() {
            return Err(Error::BadInput("`--reason` is empty: every edge carries a reason".into()));
        }
        if !(req.weight > 0.0 && req.weight <= 1.0) {
            return Err(Error::BadInput(format!("`--weight {}` is outside (0, 1]", req.weight)));
        }
        let graph = self.loaded_graph()?;
        let mut ends = Vec::new();
        for s in [&req.from, &req.to] {
            let id = resolve(&graph, s, None);
            let i = graph.find(&id).ok_or_else(|| {
                Error::BadInput(format!(
                    "unknown node `{s}`\n\nhint: use a node id from `cairn graph export`, an item id or a path"
                ))
            })?;
            ends.push(i);
        }
        let (a, b) = (graph.node(ends[0]), graph.node(ends[1]));
        if a.id == b.id {
            return Err(Error::BadInput(format!("a link needs two different nodes (both are `{}`)", a.id)));
        }
        let audience = if a.audience == Audience::Public && b.audience == Audience::Public {
            Audience::Public
        } else {
            Audience::Private
        };
        self.writer()?.graph_add_link(&GraphEdgeRow {
            src: a.id.clone(),
            dst: b.id.clone(),
            kind: req.kind.clone(),
            weight: req.weight,
            reason: req.reason.trim().to_owned(),
            provenance: Provenance::External { source: "cairn link".into() },
            audience,
        })?;
        Ok(Linked { src: a.id.clone(), dst: b.id.clone(), cross_project: a.project != b.project })
    }
}
