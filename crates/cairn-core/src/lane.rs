use serde::{Deserialize, Serialize};

/// How a retrieval lane fared on one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneStatus {
    /// The lane ran and contributed candidates (possibly none).
    Ok,
    /// The lane failed; the rest of the pipeline went on without it.
    Failed,
    /// The lane was disabled or not applicable.
    Skipped,
}

/// What one retrieval lane did for one query: part of every trace receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneReport {
    /// Lane name: `lexical`, `tags`, `recency`, `vector`, `graph`, `remote:<source>`.
    pub name: String,
    /// Outcome.
    pub status: LaneStatus,
    /// Candidates it returned (inside the caller's scope only).
    pub candidates: usize,
    /// Wall time in microseconds; 0 (and left out of JSON) unless timings were asked for, so that
    /// the same store and query give byte-identical output.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub micros: u64,
    /// The failure, when `status` is `failed`, or why the lane did not run, when `skipped` and a
    /// reason is known (an error message, never item text or a secret).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// What the relevance floor decided for one recall.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Relevance {
    /// The floor in use (0: off).
    pub floor: f32,
    /// The best candidate's relevance (0 without candidates).
    pub best: f32,
    /// That candidate's parts by lane (`lexical` calibrated, `vector` the cosine similarity, `date`
    /// the date fit, ...).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub parts: std::collections::BTreeMap<String, f32>,
    /// Candidates left out because no candidate reached the floor.
    pub below: usize,
    /// The share of the query's idf weight carried by words that occur nowhere in the caller's
    /// scope (0 when the lexical lane did not run).
    #[serde(default)]
    pub unknown: f32,
    /// With a model: the mean cosine similarity of the query to its nearest chunks in scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<f32>,
    /// With a model: the mean cosine similarity of the query to its nearest general prompts (small
    /// talk, general knowledge; for a query most of whose words memory lacks, or to its nearest
    /// made-up prompts when they are nearer); memory's lead over it is the query's affinity to memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general: Option<f32>,
    /// With a model: the similarity of the query to its nearest line of memory in scope (a chunk of
    /// several lines counts its nearest line); its lead over `general`, less
    /// `recall.calibration.line_lead_margin`, can make the query relevant on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<f32>,
    /// With a model: the mean cosine similarity of the query to its nearest memory questions
    /// (questions people ask of their own notes); its lead over `general`, weighed by
    /// `recall.calibration.form_weight`, adds to the query's affinity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<f32>,
    /// The query asks about the asker ("what does my sister do?"), so `floor` is the personal floor.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub personal: bool,
    /// The query asks how the world is, in a general form ("how does a heat pump work?"), so only
    /// its words, not its meaning, can make a candidate relevant (`recall.world_needs_words`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub world: bool,
    /// The query names a date, but most of its other words are nowhere in memory ("who did
    /// Manchester United sign this summer?"), so the date alone makes no candidate relevant.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undated: bool,
}

impl Relevance {
    /// Whether the floor left every candidate out.
    pub fn nothing_relevant(&self) -> bool {
        self.below > 0 && self.best < self.floor
    }
}
