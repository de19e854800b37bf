//! Sources: services outside Cairn's store (a temporal knowledge graph, a document RAG server, a
//! memory service) that every turn and context request consults beside the recall lanes.
//!
//! The trait lives here, with the types it exchanges, so that the crates implementing it (the remote
//! clients) and the engine that runs it depend on this crate only, never on each other's internals.
//! Nothing here does IO: implementations do.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{Audience, Hit, Millis, Scope};

/// What a source is asked on one request.
#[derive(Debug, Clone, Copy)]
pub struct SourceQuery<'a> {
    /// The prompt, as recall uses it (already cut to the engine's prompt limit).
    pub text: &'a str,
    /// The prompt's content words (no stop words, no words that only frame a question), in order:
    /// what a service that takes keywords is given instead of asking its own model for them.
    pub keywords: &'a [String],
    /// Who is asking: the source maps its project to the service's own partition.
    pub scope: &'a Scope,
    /// Hits wanted at most.
    pub k: usize,
    /// A retrieval mode, for a service that has them (LightRAG's `mode`); `None`: the configured one.
    pub mode: Option<&'a str>,
}

/// A captured turn as write-through forwards it: its text as stored (injected blocks stripped).
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedTurn {
    /// The host's session key.
    pub session_key: String,
    /// The turn's project.
    pub project: String,
    /// The turn's audience.
    pub audience: Audience,
    /// The user's message.
    pub user: String,
    /// The assistant's reply.
    pub assistant: String,
    /// When the turn happened (ms since the epoch).
    pub at: Millis,
}

/// Whether a source is called for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Call it.
    Call,
    /// Not for this request (no partition for the project, a query the service refuses): no call,
    /// the lane is reported skipped with the reason.
    Skip(String),
    /// The source is down (its health check failed): no call, the lane is reported failed with the
    /// reason.
    Down(String),
}

/// A source's health as its prober last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceState {
    /// Not probed yet: calls are made.
    #[default]
    Unknown,
    /// The last health check passed.
    Up,
    /// The last health check failed, or calls kept failing: no calls until a check passes.
    Down,
}

impl SourceState {
    /// The lowercase name (`unknown`, `up`, `down`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceState::Unknown => "unknown",
            SourceState::Up => "up",
            SourceState::Down => "down",
        }
    }
}

/// Call latencies of one source, as cumulative histogram buckets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Latencies {
    /// Upper bounds of the buckets, in milliseconds (the last bucket, above them all, is implied).
    pub bounds_ms: Vec<f64>,
    /// Calls at or below each bound (cumulative), then the total as the last entry.
    pub counts: Vec<u64>,
    /// Sum of every call's latency, in milliseconds.
    pub sum_ms: f64,
}

/// A source as `cairn sources status`, `/v1/sources`, the metrics and `cairn doctor` show it. Never
/// holds a secret: the endpoint is shown without credentials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceStatus {
    /// The name it is configured under (its lane is `remote:<name>`).
    pub name: String,
    /// The kind of service (`graphiti`, `lightrag`, `mem0`).
    pub kind: String,
    /// Where it is reached.
    pub endpoint: String,
    /// Who may see what it returns.
    pub audience: Audience,
    /// Up, down or not probed yet.
    pub state: SourceState,
    /// Since when it is in that state (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_ms: Option<Millis>,
    /// Why it is down (or what the last failed call said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it was last probed (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_probe_ms: Option<Millis>,
    /// Its per-call deadline, in milliseconds.
    pub timeout_ms: u64,
    /// How often the daemon probes it, in milliseconds.
    pub health_interval_ms: u64,
    /// Calls made.
    pub calls: u64,
    /// Calls that failed (timeouts included).
    pub errors: u64,
    /// Calls that failed by running out of time.
    pub timeouts: u64,
    /// Requests that made no call because it was down.
    pub skipped_down: u64,
    /// Latency of the calls made.
    pub latency: Latencies,
}

/// A source of hits the engine consults beside its own lanes, under one deadline per request.
///
/// A source returns hits already scoped to the query (its project mapped to the service's partition,
/// its audience on every hit). The engine scores them on recall's scale, applies the relevance
/// floor, drops what local recall already has, and reports the source as lane `remote:<name>`. A
/// source that fails, or has not answered by its [`Source::timeout`], is reported failed and the
/// block is the one without it.
pub trait Source: Send + Sync {
    /// The configured name (`graphiti`): the lane is `remote:<name>`.
    fn name(&self) -> &str;
    /// Who may see what it returns: a private source is never called for a shared audience.
    fn audience(&self) -> Audience;
    /// How long a request waits for it.
    fn timeout(&self) -> Duration;
    /// Whether to call it for `q`; decided without the network.
    fn admit(&self, q: &SourceQuery<'_>) -> Admission;
    /// Up to `q.k` hits for `q`, best first, with score 0 (the engine scores them). An `Err` is a
    /// message without secrets.
    fn recall(&self, q: &SourceQuery<'_>) -> Result<Vec<Hit>, String>;
    /// Its health and call statistics.
    fn status(&self) -> SourceStatus;
    /// Checks its health now (a network call bounded by its timeout) and returns the new status.
    fn probe(&self) -> SourceStatus;
    /// Whether captured turns are forwarded to it.
    fn writes_through(&self) -> bool {
        false
    }
    /// Forwards one captured turn to the service (a network call, off the turn's path); an `Err` is
    /// retried by the caller.
    fn forward(&self, _turn: &CapturedTurn) -> Result<(), String> {
        Ok(())
    }
}
