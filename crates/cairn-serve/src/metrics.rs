//! Prometheus metrics (OpenMetrics text at `/metrics`), with the `prometheus-client` crate: typed
//! metrics, no global registry, no unsafe.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

type Labels = Vec<(&'static str, String)>;

fn latency_histogram() -> Histogram {
    // 50 µs … ~1.6 s.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

/// Every metric the daemon exports.
pub struct Metrics {
    registry: Registry,
    /// Request latency per endpoint.
    pub latency: Family<Labels, Histogram, fn() -> Histogram>,
    /// Responses per endpoint and status code.
    pub requests: Family<Labels, Counter>,
    /// Turns served, by result (`ok`, `fallback`, `timeout`).
    pub turns: Family<Labels, Counter>,
    /// Recalls run, by result (`ok`, `failed`).
    pub recalls: Family<Labels, Counter>,
    /// Captures, by result (`accepted`, `duplicate`, `failed_run`, `stored`, `skipped`, `error`).
    pub captures: Family<Labels, Counter>,
    /// Pack injections per pack.
    pub pack_injections: Family<Labels, Counter>,
    /// Share of routed turns that injected each pack (set at scrape time).
    pack_rate: Family<Labels, Gauge<f64, AtomicU64>>,
    /// Captures waiting in the durable queue (set at scrape time).
    pub queue_depth: Gauge,
    routed: AtomicU64,
    per_pack: Mutex<HashMap<String, u64>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("cairn");
        let latency = Family::<Labels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        let requests = Family::<Labels, Counter>::default();
        let turns = Family::<Labels, Counter>::default();
        let recalls = Family::<Labels, Counter>::default();
        let captures = Family::<Labels, Counter>::default();
        let pack_injections = Family::<Labels, Counter>::default();
        let pack_rate = Family::<Labels, Gauge<f64, AtomicU64>>::default();
        let queue_depth = Gauge::default();
        registry.register("http_request_duration_seconds", "Request latency per endpoint", latency.clone());
        registry.register("http_requests", "Responses per endpoint and status", requests.clone());
        registry.register("turns", "Turns served, by result", turns.clone());
        registry.register("recalls", "Recalls run, by result", recalls.clone());
        registry.register("captures", "Captures, by result", captures.clone());
        registry.register("pack_injections", "Pack injections per pack", pack_injections.clone());
        registry.register(
            "pack_injection_ratio",
            "Share of routed turns that injected each pack",
            pack_rate.clone(),
        );
        registry.register(
            "capture_queue_depth",
            "Captures waiting in the durable queue",
            queue_depth.clone(),
        );
        Self {
            registry,
            latency,
            requests,
            turns,
            recalls,
            captures,
            pack_injections,
            pack_rate,
            queue_depth,
            routed: AtomicU64::new(0),
            per_pack: Mutex::new(HashMap::new()),
        }
    }
}

/// One label.
pub fn label(name: &'static str, value: impl Into<String>) -> Labels {
    vec![(name, value.into())]
}

/// The remote sources' metrics, read from the sources at each scrape: every surface's calls count
/// (turns, context requests, search), not only the daemon's.
struct SourceMetrics(Box<dyn Fn() -> Vec<cairn_engine::SourceStatus> + Send + Sync>);

impl std::fmt::Debug for SourceMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SourceMetrics")
    }
}

impl Collector for SourceMetrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let statuses = (self.0)();
        if statuses.is_empty() {
            return Ok(());
        }
        let labels = |s: &cairn_engine::SourceStatus| [("source", s.name.clone()), ("kind", s.kind.clone())];
        {
            let mut m = encoder.encode_descriptor(
                "remote_source_up",
                "Each remote source's health: 1 up, 0 down, -1 not checked yet",
                None,
                MetricType::Gauge,
            )?;
            for s in &statuses {
                let v: i64 = match s.state {
                    cairn_engine::SourceState::Up => 1,
                    cairn_engine::SourceState::Down => 0,
                    cairn_engine::SourceState::Unknown => -1,
                };
                ConstGauge::new(v).encode(m.encode_family(&labels(s))?)?;
            }
        }
        type Count = fn(&cairn_engine::SourceStatus) -> u64;
        let counters: [(&str, &str, Count); 4] = [
            ("remote_source_calls", "Calls made to each remote source", |s| s.calls),
            ("remote_source_errors", "Calls to each remote source that failed (timeouts included)", |s| {
                s.errors
            }),
            ("remote_source_timeouts", "Calls to each remote source that ran out of time", |s| s.timeouts),
            ("remote_source_skipped", "Requests that made no call because the source was down", |s| {
                s.skipped_down
            }),
        ];
        for (name, help, value) in counters {
            let mut m = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            for s in &statuses {
                ConstCounter::new(value(s)).encode(m.encode_family(&labels(s))?)?;
            }
        }
        let mut m = encoder.encode_descriptor(
            "remote_source_latency_seconds",
            "Latency of the calls made to each remote source",
            None,
            MetricType::Histogram,
        )?;
        for s in &statuses {
            let l = &s.latency;
            let mut buckets: Vec<(f64, u64)> = Vec::with_capacity(l.counts.len());
            let mut below = 0;
            for (i, &cumulative) in l.counts.iter().enumerate() {
                let bound = l.bounds_ms.get(i).map_or(f64::INFINITY, |ms| ms / 1000.0);
                buckets.push((bound, cumulative - below));
                below = cumulative;
            }
            let count = l.counts.last().copied().unwrap_or(0);
            m.encode_family(&labels(s))?.encode_histogram::<NoLabelSet>(
                l.sum_ms / 1000.0,
                count,
                &buckets,
                None,
            )?;
        }
        Ok(())
    }
}

/// How the daemon follows a shared store, read from the follower's counters at each scrape.
#[derive(Debug)]
struct FollowMetrics(std::sync::Arc<crate::follow::FollowStats>);

impl Collector for FollowMetrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let stats = &self.0;
        let listening = i64::from(stats.listening.load(Ordering::Relaxed));
        let m = encoder.encode_descriptor(
            "store_listening",
            "Whether the listening connection to the shared store is up (1) or not (0)",
            None,
            MetricType::Gauge,
        )?;
        ConstGauge::new(listening).encode(m)?;
        let counters = [
            (
                "store_wakes",
                "Commit notifications from the shared store that woke the derive task",
                &stats.wakes,
            ),
            (
                "store_listen_reconnects",
                "Listening connections to the shared store lost or refused",
                &stats.reconnects,
            ),
        ];
        for (name, help, value) in counters {
            let m = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            ConstCounter::new(value.load(Ordering::Relaxed)).encode(m)?;
        }
        Ok(())
    }
}

impl Metrics {
    /// Exports how the daemon follows a shared store (`stats` of its [`crate::follow::Follower`]).
    pub fn watch_follow(&mut self, stats: std::sync::Arc<crate::follow::FollowStats>) {
        self.registry.register_collector(Box::new(FollowMetrics(stats)));
    }

    /// Exports the remote sources' state and statistics as `statuses` reports them at each scrape.
    pub fn watch_sources(
        &mut self,
        statuses: impl Fn() -> Vec<cairn_engine::SourceStatus> + Send + Sync + 'static,
    ) {
        self.registry.register_collector(Box::new(SourceMetrics(Box::new(statuses))));
    }

    /// Counts one routed turn and the packs it injected.
    pub fn routed(&self, packs: &[String]) {
        self.routed.fetch_add(1, Ordering::Relaxed);
        if packs.is_empty() {
            return;
        }
        let mut per = self.per_pack.lock().unwrap_or_else(|e| e.into_inner());
        for p in packs {
            self.pack_injections.get_or_create(&label("pack", p.clone())).inc();
            *per.entry(p.clone()).or_default() += 1;
        }
    }

    /// The OpenMetrics text.
    pub fn render(&self, queue_depth: i64) -> String {
        self.queue_depth.set(queue_depth);
        let routed = self.routed.load(Ordering::Relaxed).max(1) as f64;
        for (pack, n) in self.per_pack.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            self.pack_rate.get_or_create(&label("pack", pack.clone())).set(*n as f64 / routed);
        }
        let mut out = String::new();
        encode(&mut out, &self.registry).expect("writing to a String cannot fail");
        out
    }
}
