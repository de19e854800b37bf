//! The engine's remote sources as every surface sees them: their status (health, statistics), a
//! health check now, and what a prober needs to schedule checks. The sources themselves are opened
//! with the engine from `EngineConfig::remote` (no network until the first request or check).

use std::sync::Arc;
use std::time::Duration;

use cairn_core::{Source, SourceStatus};

use crate::open::Engine;

/// Opens the configured sources: the ones that could be opened, and why the others could not.
pub(crate) fn open_configured(configs: &[cairn_remote::SourceConfig]) -> (Vec<Arc<dyn Source>>, Vec<String>) {
    let (opened, problems) = cairn_remote::open_sources(configs);
    let sources = opened.into_iter().map(|s| Arc::new(s) as Arc<dyn Source>).collect();
    (sources, problems)
}

impl Engine {
    /// Every source's status as last seen, in configuration order (no network).
    pub fn sources_status(&self) -> Vec<SourceStatus> {
        self.sources.iter().map(|s| s.status()).collect()
    }

    /// Checks every source's health now, side by side (each within its time limit), and returns their
    /// statuses in configuration order.
    pub fn probe_sources(&self) -> Vec<SourceStatus> {
        std::thread::scope(|sc| {
            let running: Vec<_> = self.sources.iter().map(|s| sc.spawn(move || s.probe())).collect();
            running
                .into_iter()
                .zip(&self.sources)
                .map(|(t, s)| t.join().unwrap_or_else(|_| s.status()))
                .collect()
        })
    }

    /// Checks the health of the source named `name` now; `None` when there is no such source.
    pub fn probe_source(&self, name: &str) -> Option<SourceStatus> {
        self.sources.iter().find(|s| s.name() == name).map(|s| s.probe())
    }

    /// Each source's name and how often its health is checked, for a prober.
    pub fn source_schedule(&self) -> Vec<(String, Duration)> {
        self.sources
            .iter()
            .map(|s| (s.name().to_owned(), Duration::from_millis(s.status().health_interval_ms.max(100))))
            .collect()
    }

    /// Why configured sources could not be opened (a bad `[remote.<name>]` section).
    pub fn source_problems(&self) -> &[String] {
        &self.source_problems
    }
}

/// One explicit question to a remote source (an agent's tool call), not a turn's lane.
#[derive(Debug, Clone)]
pub struct SourceRequest {
    /// The question.
    pub query: String,
    /// Hits wanted at most (the source's `max_results` still caps them).
    pub k: usize,
    /// A retrieval mode, for a service that has them (LightRAG: `naive`, `local`, `global`, `hybrid`,
    /// `mix`).
    pub mode: Option<String>,
    /// Who is asking.
    pub scope: cairn_core::Scope,
    /// Only hits dated within this span (ms since the epoch, both ends inclusive, either open); an
    /// undated hit is left out when a span is given.
    pub within: Option<(Option<i64>, Option<i64>)>,
    /// Keep document chunks (LightRAG's sources) besides entities and relations.
    pub chunks: bool,
}

impl SourceRequest {
    /// `query` asked of a source for `scope`, `k` hits at most, every hit kept.
    pub fn new(query: impl Into<String>, k: usize, scope: cairn_core::Scope) -> SourceRequest {
        SourceRequest { query: query.into(), k, mode: None, scope, within: None, chunks: true }
    }

    /// Whether `hit` passes the request's filters (its span, chunks or not).
    fn keeps(&self, hit: &cairn_core::Hit) -> bool {
        let dated = |(start, end): (Option<i64>, Option<i64>)| {
            hit.created_at != cairn_core::UNDATED
                && start.is_none_or(|s| hit.created_at >= s)
                && end.is_none_or(|e| hit.created_at <= e)
        };
        self.within.is_none_or(dated) && (self.chunks || !hit.chunk_id.contains(":chunk:"))
    }
}

/// What a remote source answered to a [`SourceRequest`].
#[derive(Debug, Clone)]
pub struct SourceAnswer {
    /// The source asked (its configured name).
    pub source: String,
    /// Its hits in its own order, unscored (score 0), inside the caller's scope.
    pub hits: Vec<cairn_core::Hit>,
}

/// LightRAG's retrieval modes a request may name.
const MODES: [&str; 5] = ["naive", "local", "global", "hybrid", "mix"];

/// Most hits one [`SourceRequest`] may ask for.
pub const MAX_SOURCE_HITS: usize = 50;

/// Why a [`SourceRequest`] got no answer; each message names the source when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// The request itself is wrong (empty query, `k` out of range, an unknown mode).
    Invalid(String),
    /// No source of the kind is configured.
    NotConfigured(String),
    /// The source may not answer this caller (a private source, a shared audience).
    Forbidden(String),
    /// The source is down, not for this query, or its call failed.
    Unavailable(String),
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::Invalid(m)
            | SourceError::NotConfigured(m)
            | SourceError::Forbidden(m)
            | SourceError::Unavailable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SourceError {}

impl Engine {
    /// Asks the first configured source of `kind` (`graphiti`, `lightrag`, `mem0`) `req` directly,
    /// after checking its health now: an error names the source and says why (none configured, private
    /// for this caller, down, not for this query, the call failed). For tools an agent calls on
    /// purpose; turns consult sources through their lanes.
    pub fn query_source(&self, kind: &str, req: &SourceRequest) -> Result<SourceAnswer, SourceError> {
        if req.query.trim().is_empty() {
            return Err(SourceError::Invalid("`query` must not be empty".into()));
        }
        if !(1..=MAX_SOURCE_HITS).contains(&req.k) {
            return Err(SourceError::Invalid(format!(
                "the number of results must be within 1..={MAX_SOURCE_HITS}, got {}",
                req.k
            )));
        }
        if let Some(m) = &req.mode
            && !MODES.contains(&m.as_str())
        {
            return Err(SourceError::Invalid(format!(
                "no mode `{m}` (expected one of {})",
                MODES.join(", ")
            )));
        }
        let source = self.sources.iter().find(|s| s.status().kind == kind).ok_or_else(|| {
            SourceError::NotConfigured(format!(
                "no {kind} source is configured (`[remote.<name>]` with `kind = \"{kind}\"`)"
            ))
        })?;
        let name = source.name().to_owned();
        if !req.scope.allows(source.audience()) {
            return Err(SourceError::Forbidden(format!(
                "source `{name}` is private and this caller sees shared memory only"
            )));
        }
        let health = source.probe();
        if health.state != cairn_core::SourceState::Up {
            let why = health.reason.unwrap_or_else(|| "its health check failed".to_owned());
            return Err(SourceError::Unavailable(format!(
                "source `{name}` ({kind} at {}) is down: {why}",
                health.endpoint
            )));
        }
        let keywords = cairn_recall::content_words(&req.query);
        let q = cairn_core::SourceQuery {
            text: &req.query,
            keywords: &keywords,
            scope: &req.scope,
            k: req.k,
            mode: req.mode.as_deref(),
        };
        match source.admit(&q) {
            cairn_core::Admission::Call => {}
            cairn_core::Admission::Skip(why) | cairn_core::Admission::Down(why) => {
                return Err(SourceError::Unavailable(format!("source `{name}`: {why}")));
            }
        }
        let hits = source
            .recall(&q)
            .map_err(|e| SourceError::Unavailable(format!("source `{name}` failed: {e}")))?;
        let hits =
            hits.into_iter().filter(|h| req.scope.contains(&h.project, h.audience) && req.keeps(h)).collect();
        Ok(SourceAnswer { source: name, hits })
    }

    /// The kinds of the configured sources (`graphiti`, `lightrag`, `mem0`), each once.
    pub fn source_kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = self.sources.iter().map(|s| s.status().kind).collect();
        kinds.dedup();
        kinds.sort();
        kinds.dedup();
        kinds
    }
}
