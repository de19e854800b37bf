use std::fmt;
use std::str::FromStr;

use cairn_core::{Hit, LaneReport, Relevance, Scope};
use cairn_tokens::Encoding;
use serde::{Deserialize, Serialize};

/// How the assembled context is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A markdown block in the seed's shape, wrapped in `<cairn-context>` tags.
    #[default]
    Markdown,
    /// A `<cairn-context>` element with one `<item>` child per entry.
    Xml,
    /// A JSON object whose `context_block` is the markdown block.
    Json,
}

impl Format {
    /// The lowercase name used on the command line and in receipts.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Xml => "xml",
            Format::Json => "json",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" => Ok(Format::Markdown),
            "xml" => Ok(Format::Xml),
            "json" => Ok(Format::Json),
            other => Err(format!("unknown format `{other}` (expected `markdown`, `xml` or `json`)")),
        }
    }
}

/// How much of an entry is shown: progressive disclosure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum Level {
    /// A one-line abstract: the title and the first sentence, short cap.
    L0,
    /// An extractive summary: the first sentences, markdown noise tidied, medium cap.
    #[default]
    L1,
    /// The raw chunk text up to the per-snippet cap; only when asked for.
    L2,
}

impl Level {
    /// `L0`, `L1` or `L2`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::L0 => "L0",
            Level::L1 => "L1",
            Level::L2 => "L2",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_uppercase().as_str() {
            "L0" | "0" => Ok(Level::L0),
            "L1" | "1" => Ok(Level::L1),
            "L2" | "2" => Ok(Level::L2),
            other => Err(format!("unknown level `{other}` (expected `L0`, `L1` or `L2`)")),
        }
    }
}

/// Which layer of the block an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// Ranked hits relevant to the query.
    Topic,
    /// The most recent items in scope.
    Recent,
}

/// Knobs for one assembly. `Default` gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AssembleOptions {
    /// Share of the entry budget allotted to the recency layer, `0.0..=1.0` (default `0.25`).
    /// Whatever one layer leaves unused flows to the other.
    pub recency_share: f32,
    /// Output format (default markdown).
    pub format: Format,
    /// The richest level allowed (default `L1`; `L2` only when asked).
    pub max_level: Level,
    /// Token cap of an L0 entry's text (default 40).
    pub l0_cap: usize,
    /// Token cap of an L1 entry's text (default 120).
    pub l1_cap: usize,
    /// Token cap of an L2 snippet (default 400).
    pub snippet_cap: usize,
    /// The BPE that counts the budget (default cl100k, see `cairn_tokens::Encoding`).
    pub encoding: Encoding,
    /// Keep titles out of the receipt (default `true`). Text and the query are never in it.
    pub redact: bool,
    /// Topic hits scoring below this are excluded with reason `score` (default none).
    pub min_score: Option<f32>,
    /// Defence in depth: hits outside this scope are dropped even if recall let them through.
    /// Out-of-project hits are excluded with reason `scope`; hits whose audience the scope does not
    /// allow are withheld entirely (no id, hash or count anywhere in the output). Default none.
    pub scope: Option<Scope>,
    /// An empty block unless at least one topic entry is included (default `true`): recency alone is
    /// not relevance, and an empty block lets the caller fall back.
    pub require_topic: bool,
    /// Count the final block once more with the real tokenizer and trim if it disagrees (default
    /// `true`). The per-segment sums are exact by construction; this is the belt to those braces and
    /// costs one full tokenisation of the block.
    pub verify: bool,
}

impl Default for AssembleOptions {
    fn default() -> Self {
        Self {
            recency_share: 0.25,
            format: Format::Markdown,
            max_level: Level::L1,
            l0_cap: 40,
            l1_cap: 120,
            snippet_cap: 400,
            encoding: Encoding::default(),
            redact: true,
            min_score: None,
            scope: None,
            require_topic: true,
            verify: true,
        }
    }
}

/// Everything one assembly needs: the query, the candidates from recall and the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssembleRequest {
    /// The query text (only its hash reaches the receipt).
    pub query: String,
    /// Tags inferred from the query, shown in the header.
    pub query_tags: Vec<String>,
    /// Ranked relevant hits (the topic layer's candidates).
    pub topic: Vec<Hit>,
    /// The most recent items in scope (the recency layer's candidates).
    pub recent: Vec<Hit>,
    /// What each recall lane did, copied into the receipt.
    pub lanes: Vec<LaneReport>,
    /// Problems that did not stop recall, copied into the receipt.
    pub warnings: Vec<String>,
    /// What recall's relevance floor decided, copied into the receipt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<Relevance>,
    /// Hard cap on the block's tokens, counted with `options.encoding`.
    pub budget: usize,
    /// Everything else.
    pub options: AssembleOptions,
}

impl AssembleRequest {
    /// A request with no candidates yet and default options.
    pub fn new(query: impl Into<String>, budget: usize) -> Self {
        Self {
            query: query.into(),
            query_tags: Vec::new(),
            topic: Vec::new(),
            recent: Vec::new(),
            lanes: Vec::new(),
            warnings: Vec::new(),
            relevance: None,
            budget,
            options: AssembleOptions::default(),
        }
    }
}
