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

impl Engine {
    /// Asks the first configured source of `kind` (`graphiti`, `lightrag`, `mem0`) `req` directly,
    /// after checking its health now: an error names the source and says why (none configured, private
    /// for this caller, down, not for this query, the call failed). For tools an agent calls on
    /// purpose; turns consult sources through their lanes.
    pub fn query_source(&self, kind: &str, req: &SourceRequest) -> Result<SourceAnswer, String> {
        let source = self.sources.iter().find(|s| s.status().kind == kind).ok_or_else(|| {
            format!("no {kind} source is configured (`[remote.<name>]` with `kind = \"{kind}\"`)")
        })?;
        let name = source.name().to_owned();
        if !req.scope.allows(source.audience()) {
            return Err(format!("source `{name}` is private and this caller sees shared memory only"));
        }
        if let Some(m) = &req.mode
            && !MODES.contains(&m.as_str())
        {
            return Err(format!("no mode `{m}` (expected one of {})", MODES.join(", ")));
        }
        let health = source.probe();
        if health.state != cairn_core::SourceState::Up {
            let why = health.reason.unwrap_or_else(|| "its health check failed".to_owned());
            return Err(format!("source `{name}` ({kind} at {}) is down: {why}", health.endpoint));
        }
        let keywords = cairn_recall::content_words(&req.query);
        let q = cairn_core::SourceQuery {
            text: &req.query,
            keywords: &keywords,
            scope: &req.scope,
            k: req.k.max(1),
            mode: req.mode.as_deref(),
        };
        match source.admit(&q) {
            cairn_core::Admission::Call => {}
            cairn_core::Admission::Skip(why) | cairn_core::Admission::Down(why) => {
                return Err(format!("source `{name}`: {why}"));
            }
        }
        let hits = source.recall(&q).map_err(|e| format!("source `{name}` failed: {e}"))?;
        let hits = hits.into_iter().filter(|h| req.scope.contains(&h.project, h.audience)).collect();
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
