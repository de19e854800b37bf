//! The graph lane's part of a trace receipt.

use serde::{Deserialize, Serialize};

/// What the graph lane did for one assembly: its seeds, every node it proposed with the path that
/// justified it, and what became of each. Ids, edge types, provenance and scores only; edge reasons
/// (which may name people or titles) only when the receipt is not redacted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphTrace {
    /// Node ids expansion started from (the best recall hits).
    pub seeds: Vec<String>,
    /// Hops expanded.
    pub depth: usize,
    /// Whether cross-project edges could be followed.
    pub cross_project: bool,
    /// Every node the expansion proposed, best first.
    pub candidates: Vec<GraphCandidate>,
    /// Nodes reached but not expanded further (hubs: big tags, projects).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hubs: Vec<String>,
    /// Reached items after the lane's cap was full: counted, not listed (a busy neighbourhood can
    /// reach thousands; listing them would make every receipt that long).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub over_cap: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One node proposed by the graph lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphCandidate {
    /// Node id.
    pub node: String,
    /// Chunk id it was offered to the assembler as (empty when it was not offered).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub chunk_id: String,
    /// Hops from its seed.
    pub depth: u32,
    /// Propagated score.
    pub score: f32,
    /// `included`, `excluded:<reason>` (assembler's reason), `already_recalled`, `missing`.
    pub decision: String,
    /// The path from the seed.
    pub path: Vec<GraphStep>,
}

/// One edge of a justification path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphStep {
    /// From node id.
    pub from: String,
    /// To node id.
    pub to: String,
    /// Edge type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where the edge was read.
    pub provenance: String,
    /// Whether the edge crosses projects.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cross_project: bool,
    /// Why the edge exists (left out of redacted receipts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
