//! A source's health: up, down or not yet known, since when and why, and its call statistics
//! (calls, errors, timeouts, a latency histogram).
//!
//! Health checks (the daemon's prober, `cairn sources status`) move a source up or down. Calls move
//! it down too, after `down_after` failures in a row, so a service that answers its health route but
//! fails every search stops costing turns; only a passing health check brings it back. A down source
//! is not called at all: the request reports it failed at no cost.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use cairn_core::{Latencies, Millis, SourceState, SourceStatus, now_ms};

use crate::http::CallError;

/// Upper bounds of the latency buckets, in milliseconds.
const BOUNDS_MS: [f64; 12] = [1.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 800.0, 1000.0, 2500.0, 5000.0];

#[derive(Debug, Default)]
struct State {
    state: SourceState,
    since: Option<Millis>,
    reason: Option<String>,
    last_probe: Option<Millis>,
    failures_in_row: u32,
}

/// One source's health and statistics; shared by every request and the prober.
#[derive(Debug)]
pub(crate) struct Health {
    name: String,
    down_after: u32,
    state: Mutex<State>,
    calls: AtomicU64,
    errors: AtomicU64,
    timeouts: AtomicU64,
    skipped_down: AtomicU64,
    /// Per bucket (not cumulative), the last one above every bound.
    buckets: [AtomicU64; BOUNDS_MS.len() + 1],
    sum_us: AtomicU64,
}

impl Health {
    pub(crate) fn new(name: &str, down_after: u32) -> Health {
        Health {
            name: name.to_owned(),
            down_after,
            state: Mutex::new(State::default()),
            calls: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
            skipped_down: AtomicU64::new(0),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_us: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `Some(why)` when the source is down (and counts a request that made no call).
    pub(crate) fn down(&self) -> Option<String> {
        let s = self.lock();
        if s.state != SourceState::Down {
            return None;
        }
        self.skipped_down.fetch_add(1, Ordering::Relaxed);
        Some(match &s.reason {
            Some(r) => format!("down: {r}"),
            None => "down".to_owned(),
        })
    }

    /// Records a call that took `elapsed` and ended with `error` (none: it succeeded).
    pub(crate) fn record_call(&self, elapsed: Duration, error: Option<&CallError>) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let ms = elapsed.as_secs_f64() * 1000.0;
        let bucket = BOUNDS_MS.iter().position(|&b| ms <= b).unwrap_or(BOUNDS_MS.len());
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_us.fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
        let mut s = self.lock();
        match error {
            None => s.failures_in_row = 0,
            Some(e) => {
                self.errors.fetch_add(1, Ordering::Relaxed);
                if e.is_timeout() {
                    self.timeouts.fetch_add(1, Ordering::Relaxed);
                }
                s.failures_in_row = s.failures_in_row.saturating_add(1);
                if self.down_after > 0 && s.failures_in_row >= self.down_after && s.state != SourceState::Down
                {
                    let reason = format!("{} calls failed in a row, the last: {e}", s.failures_in_row);
                    tracing::warn!("remote source `{}` is down: {reason}", self.name);
                    s.state = SourceState::Down;
                    s.since = Some(now_ms());
                    s.reason = Some(reason);
                } else if s.state != SourceState::Down {
                    s.reason = Some(format!("last call failed: {e}"));
                }
            }
        }
    }

    /// Records a health check: `Ok` moves the source up, `Err(why)` down.
    pub(crate) fn probed(&self, result: Result<(), String>) {
        let now = now_ms();
        let mut s = self.lock();
        s.last_probe = Some(now);
        match result {
            Ok(()) => {
                if s.state != SourceState::Up {
                    if s.state == SourceState::Down {
                        tracing::info!("remote source `{}` is up again", self.name);
                    }
                    s.state = SourceState::Up;
                    s.since = Some(now);
                }
                s.reason = None;
                s.failures_in_row = 0;
            }
            Err(why) => {
                if s.state != SourceState::Down {
                    tracing::warn!("remote source `{}` is down: {why}", self.name);
                    s.state = SourceState::Down;
                    s.since = Some(now);
                }
                s.reason = Some(why);
            }
        }
    }

    /// Fills the state and statistics of `status`.
    pub(crate) fn fill(&self, status: &mut SourceStatus) {
        {
            let s = self.lock();
            status.state = s.state;
            status.since_ms = s.since;
            status.reason = s.reason.clone();
            status.last_probe_ms = s.last_probe;
        }
        status.calls = self.calls.load(Ordering::Relaxed);
        status.errors = self.errors.load(Ordering::Relaxed);
        status.timeouts = self.timeouts.load(Ordering::Relaxed);
        status.skipped_down = self.skipped_down.load(Ordering::Relaxed);
        let mut running = 0;
        let mut counts = Vec::with_capacity(self.buckets.len());
        for b in &self.buckets {
            running += b.load(Ordering::Relaxed);
            counts.push(running);
        }
        status.latency = Latencies {
            bounds_ms: BOUNDS_MS.to_vec(),
            counts,
            sum_ms: self.sum_us.load(Ordering::Relaxed) as f64 / 1000.0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(h: &Health) -> SourceStatus {
        let mut s = SourceStatus::default();
        h.fill(&mut s);
        s
    }

    #[test]
    fn probes_move_it_up_and_down() {
        let h = Health::new("g", 3);
        assert_eq!(status(&h).state, SourceState::Unknown);
        assert!(h.down().is_none());
        h.probed(Err("unreachable: connection refused".into()));
        let s = status(&h);
        assert_eq!(s.state, SourceState::Down);
        assert!(s.since_ms.is_some());
        assert_eq!(h.down().unwrap(), "down: unreachable: connection refused");
        assert_eq!(status(&h).skipped_down, 1);
        h.probed(Ok(()));
        assert_eq!(status(&h).state, SourceState::Up);
        assert!(h.down().is_none());
    }

    #[test]
    fn failing_calls_in_a_row_take_it_down() {
        let h = Health::new("g", 2);
        h.probed(Ok(()));
        h.record_call(Duration::from_millis(3), Some(&CallError::Timeout(800)));
        assert_eq!(status(&h).state, SourceState::Up);
        h.record_call(Duration::from_millis(3), None);
        h.record_call(Duration::from_millis(3), Some(&CallError::Timeout(800)));
        assert_eq!(status(&h).state, SourceState::Up);
        h.record_call(
            Duration::from_millis(900),
            Some(&CallError::Status { status: 500, detail: String::new() }),
        );
        let s = status(&h);
        assert_eq!(s.state, SourceState::Down);
        assert_eq!((s.calls, s.errors, s.timeouts), (4, 3, 2));
        assert_eq!(s.latency.counts.last(), Some(&4));
        // Three calls of 3 ms are at or below the 5 ms bound, the slow one is above 800.
        assert_eq!(s.latency.counts[1], 3);
        assert_eq!(s.latency.counts[8], 3);
        assert_eq!(s.latency.counts[9], 4);
    }

    #[test]
    fn down_after_zero_leaves_it_to_the_probes() {
        let h = Health::new("g", 0);
        for _ in 0..10 {
            h.record_call(Duration::from_millis(1), Some(&CallError::Timeout(5)));
        }
        assert_ne!(status(&h).state, SourceState::Down);
    }
}
