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
