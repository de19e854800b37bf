//! Neighbourhood expansion: breadth-first from seeds, inside the caller's scope, best score per node.

use std::collections::HashMap;

use cairn_core::Scope;
use serde::{Deserialize, Serialize};

use crate::graph::Graph;

/// How far and where expansion may go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExpandOptions {
    /// Hops from the seeds.
    pub depth: usize,
    /// Follow cross-project edges (only of `cross_project_edge_types`).
    pub allow_cross_project: bool,
    /// Edge types that may cross projects.
    pub cross_project_edge_types: Vec<String>,
    /// Nodes with more edges than this are reached but not expanded (hubs: big tags, projects).
    pub max_fanout: usize,
    /// Score multiplier per hop, on top of the edge weight.
    pub decay: f32,
}

impl Default for ExpandOptions {
    fn default() -> Self {
        Self {
            depth: 2,
            allow_cross_project: false,
            cross_project_edge_types: vec!["links_to".into(), "related".into(), "mentions".into()],
            max_fanout: 64,
            decay: 0.85,
        }
    }
}

/// A node reached by expansion, with the path that justifies it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reached {
    /// Node index.
    pub node: u32,
    /// Hops from its seed.
    pub depth: u32,
    /// Seed score × edge weights × decay per hop.
    pub score: f32,
    /// Edge indices from the seed to the node.
    pub path: Vec<u32>,
    /// The seed it was reached from.
    pub seed: u32,
    /// Whether the path crosses a project boundary.
    pub crossed: bool,
}

/// What an expansion found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansion {
    /// Reached nodes (seeds excluded), best score first, ties by node id.
    pub reached: Vec<Reached>,
    /// Nodes reached but not expanded because they are hubs.
    pub hubs: Vec<u32>,
}

impl Graph {
    /// Whether node `i` may be shown to `scope` at all (audience; project checked by expansion).
    pub fn visible(&self, i: u32, scope: &Scope) -> bool {
        scope.allows(self.node(i).audience)
    }

    /// Expand from `seeds` (node index, score) up to `opts.depth` hops.
    ///
    /// Only nodes and edges `scope` may see are used; a node outside `scope.project` is entered only by
    /// an allowed cross-project edge when `opts.allow_cross_project` is set; cross-project edges of
    /// other types are never followed.
    pub fn expand(&self, seeds: &[(u32, f32)], scope: &Scope, opts: &ExpandOptions) -> Expansion {
        // The scope's project as an interned id (`u32::MAX`: no node is in it).
        let scope_project = scope.project.as_deref().map(|p| self.project_id(p).unwrap_or(u32::MAX));
        let mut best: HashMap<u32, Reached> = HashMap::new();
        let mut frontier: Vec<Reached> = Vec::new();
        for &(s, score) in seeds {
            if !self.visible(s, scope) {
                continue;
            }
            let r = Reached { node: s, depth: 0, score, path: vec![], seed: s, crossed: false };
            match best.get(&s) {
                Some(b) if b.score >= score => {}
                _ => {
                    best.insert(s, r.clone());
                }
            }
        }
        frontier.extend(best.values().cloned());
        frontier.sort_by_key(|r| r.node);
        let mut hubs = Vec::new();
        for depth in 1..=opts.depth as u32 {
            let mut next: HashMap<u32, Reached> = HashMap::new();
            for cur in &frontier {
                if cur.depth > 0 && (self.is_project(cur.node) || self.degree(cur.node) > opts.max_fanout) {
                    hubs.push(cur.node);
                    continue;
                }
                for adj in self.neighbours(cur.node) {
                    let e = self.edge(adj.edge);
                    if !scope.allows(e.audience) || !self.visible(adj.other, scope) {
                        continue;
                    }
                    if self.is_project(adj.other) {
                        continue;
                    }
                    if e.cross_project
                        && !(opts.allow_cross_project
                            && opts.cross_project_edge_types.iter().any(|t| **t == *e.kind))
                    {
                        continue;
                    }
                    let crossed = cur.crossed || e.cross_project;
                    if let Some(p) = scope_project
                        && self.project_of(adj.other) != p
                        && !(opts.allow_cross_project && crossed)
                    {
                        continue;
                    }
                    let score = cur.score * e.weight * opts.decay;
                    if best.get(&adj.other).is_some_and(|b| b.depth < depth) {
                        continue;
                    }
                    if next.get(&adj.other).is_some_and(|b| b.score >= score) {
                        continue;
                    }
                    let mut path = cur.path.clone();
                    path.push(adj.edge);
                    next.insert(
                        adj.other,
                        Reached { node: adj.other, depth, score, path, seed: cur.seed, crossed },
                    );
                }
            }
            let mut layer: Vec<Reached> = next.into_values().collect();
            layer.sort_by_key(|r| r.node);
            for r in &layer {
                best.insert(r.node, r.clone());
            }
            frontier = layer;
        }
        let mut reached: Vec<Reached> = best.into_values().filter(|r| r.depth > 0).collect();
        // Nodes are sorted by id, so index order is id order.
        reached.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.node.cmp(&b.node)));
        hubs.sort_unstable();
        hubs.dedup();
        Expansion { reached, hubs }
    }
}
