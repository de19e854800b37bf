use cairn_core::{LaneReport, Relevance};
use cairn_tokens::Encoding;
use serde::{Deserialize, Serialize};

use crate::{Format, Layer, Level};

/// The version of the receipt schema; bumped on any incompatible change.
pub const RECEIPT_VERSION: u32 = 1;

/// Why a candidate was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExcludeReason {
    /// Not even its poorest level fitted in the remaining budget.
    Budget,
    /// Same chunk id, content hash or normalised text as an entry considered before it.
    Duplicate,
    /// Its score was below `min_score`.
    Score,
    /// Outside the request's project scope.
    Scope,
    /// A recency entry dropped because no topic entry made it in (`require_topic`).
    NoTopic,
}

impl ExcludeReason {
    /// The snake_case name used in receipts.
    pub fn as_str(self) -> &'static str {
        match self {
            ExcludeReason::Budget => "budget",
            ExcludeReason::Duplicate => "duplicate",
            ExcludeReason::Score => "score",
            ExcludeReason::Scope => "scope",
            ExcludeReason::NoTopic => "no_topic",
        }
    }
}

/// A trace receipt: what the assembler was given, what it kept, what it dropped and why.
///
/// Redaction-safe: ids, hashes, scores and counts only. Never the query text (only its hash), never
/// item text; titles only when the request set `redact: false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    /// [`RECEIPT_VERSION`].
    pub version: u32,
    /// `content_hash` of the query text.
    pub query_hash: String,
    /// Whether titles were withheld.
    pub redacted: bool,
    /// Output format.
    pub format: Format,
    /// The richest level that was allowed.
    pub max_level: Level,
    /// The tokenizer that counted the budget.
    pub encoding: Encoding,
    /// What each recall lane did (copied from the request).
    pub lanes: Vec<LaneReport>,
    /// Names of lanes that failed: the block was assembled from what the others found.
    pub failed_lanes: Vec<String>,
    /// Candidates considered, per layer.
    pub candidates: Candidates,
    /// Entries in the block, in block order.
    pub included: Vec<Included>,
    /// Candidates left out, in candidate order (topic by rank, then recent by recency).
    pub excluded: Vec<Excluded>,
    /// Where the tokens went.
    pub tokens: TokenAccounting,
    /// What the graph step proposed and what became of it (absent when the step did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<crate::GraphTrace>,
    /// Problems that did not stop the request (a hit recall could not read, ...), copied from the
    /// request. No item text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What recall's relevance floor decided: the best candidate's relevance, its parts by lane and
    /// the floor (when nothing reached it, the block is empty and this says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<Relevance>,
}

/// Candidate counts. Hits withheld for audience are not counted anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Candidates {
    /// Topic-layer candidates.
    pub topic: usize,
    /// Recency-layer candidates.
    pub recent: usize,
    /// Both.
    pub total: usize,
}

/// One entry in the block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Included {
    /// Chunk id.
    pub chunk_id: String,
    /// Item id.
    pub item_id: String,
    /// The chunk's content hash.
    pub content_hash: String,
    /// Layer it was placed in.
    pub layer: Layer,
    /// Level it was rendered at.
    pub level: Level,
    /// Tokens the entry costs in the block.
    pub tokens: usize,
    /// Fused recall score.
    pub score: f32,
    /// Its score parts by lane, before weighting (as [`cairn_core::Hit::parts`]): numbers only, so
    /// they are kept in redacted receipts too.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub parts: std::collections::BTreeMap<String, f32>,
    /// Title, only when the request was not redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// One candidate left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    /// Chunk id.
    pub chunk_id: String,
    /// The chunk's content hash.
    pub content_hash: String,
    /// Layer it was a candidate for.
    pub layer: Layer,
    /// Why.
    pub reason: ExcludeReason,
    /// For duplicates: the chunk id of the candidate it duplicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// Fused recall score.
    pub score: f32,
    /// Its score parts by lane, before weighting (as [`cairn_core::Hit::parts`]): numbers only, so
    /// they are kept in redacted receipts too.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub parts: std::collections::BTreeMap<String, f32>,
    /// Title, only when the request was not redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Token accounting for one layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LayerTokens {
    /// Its share of the entry budget before any flow-over.
    pub allotted: usize,
    /// Tokens its entries cost.
    pub used: usize,
}

/// Where the tokens went. `total = header + recent.used + topic.used` and `total <= budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenAccounting {
    /// The hard cap.
    pub budget: usize,
    /// Tokens of the fixed parts: wrapper tags, heading, counts and query tags.
    pub header: usize,
    /// The recency layer.
    pub recent: LayerTokens,
    /// The topic layer.
    pub topic: LayerTokens,
    /// Tokens of the whole block as counted by the tokenizer (0 when empty).
    pub total: usize,
    /// Whether the final block was counted once more as a whole and agreed.
    pub verified: bool,
}
