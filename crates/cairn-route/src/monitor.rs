//! Post-deploy monitor: per-pack injection rates over a window of recorded decisions.

use std::collections::BTreeMap;

use cairn_core::Millis;
use serde::{Deserialize, Serialize};

use crate::config::RouteConfig;
use crate::router::Decision;

/// One recorded turn (a daemon appends these, e.g. as JSON lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// When (ms since the epoch).
    pub at: Millis,
    /// The session key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    /// The injected intent, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// The injected primary pack, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_pack: Option<String>,
    /// Whether it was a sticky re-injection.
    #[serde(default)]
    pub sticky: bool,
}

impl DecisionRecord {
    /// The record of a decision.
    pub fn from_decision(decision: &Decision, session_key: Option<&str>, at: Millis) -> Self {
        let injected = decision.injected();
        DecisionRecord {
            at,
            session_key: session_key.map(str::to_owned),
            intent: decision.intent.clone().filter(|_| injected),
            primary_pack: decision.primary_pack.clone().filter(|_| injected),
            sticky: decision.sticky,
        }
    }
}

/// Flags packs injected on more than `max_rate` of the turns in the window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InjectionMonitor {
    /// Flag above this share of turns (default 0.30).
    pub max_rate: f64,
    /// Window length in ms, ending at `now`.
    pub window_ms: Millis,
    /// Do not flag anything with fewer turns than this in the window.
    pub min_turns: usize,
}

impl Default for InjectionMonitor {
    fn default() -> Self {
        InjectionMonitor { max_rate: 0.3, window_ms: 7 * 24 * 3600 * 1000, min_turns: 20 }
    }
}

/// One pack's rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackRate {
    /// Primary pack id.
    pub pack: String,
    /// Turns it was injected on.
    pub count: usize,
    /// `count / turns`.
    pub rate: f64,
    /// `rate > max_rate` (and enough turns).
    pub flagged: bool,
}

/// The monitor's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonitorReport {
    /// Turns in the window.
    pub turns: usize,
    /// Turns with a pack.
    pub injected: usize,
    /// Per pack, highest rate first (ties by pack id).
    pub packs: Vec<PackRate>,
}

impl MonitorReport {
    /// Packs over the limit.
    pub fn flagged(&self) -> impl Iterator<Item = &PackRate> {
        self.packs.iter().filter(|p| p.flagged)
    }
}

impl InjectionMonitor {
    /// The `monitor` section of `intent_rules.yaml`.
    pub fn from_config(config: &RouteConfig) -> Self {
        let m = &config.monitor;
        InjectionMonitor {
            max_rate: m.max_rate,
            window_ms: (m.window_secs.min((Millis::MAX / 1000) as u64) as Millis) * 1000,
            min_turns: m.min_turns,
        }
    }

    /// Rates over records with `now - window_ms <= at <= now`. Pure and order-independent.
    pub fn report(&self, records: &[DecisionRecord], now: Millis) -> MonitorReport {
        let start = now.saturating_sub(self.window_ms);
        let mut turns = 0;
        let mut injected = 0;
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for r in records.iter().filter(|r| r.at >= start && r.at <= now) {
            turns += 1;
            if let Some(p) = &r.primary_pack {
                injected += 1;
                *counts.entry(p).or_default() += 1;
            }
        }
        let mut packs: Vec<PackRate> = counts
            .into_iter()
            .map(|(pack, count)| {
                let rate = count as f64 / turns as f64;
                PackRate {
                    pack: pack.to_owned(),
                    count,
                    rate,
                    flagged: turns >= self.min_turns && rate > self.max_rate,
                }
            })
            .collect();
        packs.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.pack.cmp(&b.pack)));
        MonitorReport { turns, injected, packs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(at: Millis, pack: Option<&str>) -> DecisionRecord {
        DecisionRecord {
            at,
            session_key: None,
            intent: None,
            primary_pack: pack.map(str::to_owned),
            sticky: false,
        }
    }

    #[test]
    fn flags_broad_packs_only_with_enough_turns() {
        let m = InjectionMonitor { max_rate: 0.3, window_ms: 1000, min_turns: 10 };
        let mut records: Vec<DecisionRecord> = (0..10).map(|i| rec(i, None)).collect();
        records[0].primary_pack = Some("a".into());
        records[1].primary_pack = Some("b".into());
        records[2].primary_pack = Some("b".into());
        records[3].primary_pack = Some("b".into());
        records[4].primary_pack = Some("b".into());
        let r = m.report(&records, 100);
        assert_eq!(r.turns, 10);
        assert_eq!(r.injected, 5);
        assert_eq!(r.flagged().map(|p| p.pack.as_str()).collect::<Vec<_>>(), ["b"]);
        // Exactly 30 % is not flagged.
        records[4].primary_pack = None;
        assert_eq!(m.report(&records, 100).flagged().count(), 0);
        // Too few turns: nothing flagged.
        assert_eq!(m.report(&records[..5], 100).flagged().count(), 0);
        // Outside the window: ignored.
        assert_eq!(m.report(&records, 5000).turns, 0);
    }
}
