//! Per-session serving state: the sticky pack and a turn counter, held in memory (sharded, so turns of
//! different sessions never wait on each other) and written to the store in batches.
//!
//! On a shared store every host writes its sessions' states there, and pulls the states other hosts
//! wrote ([`SessionStates::merge`]) as it follows the store: a session served by two hosts keeps its
//! sticky pack on both. A state changed here and not saved yet wins over a pulled one; otherwise the
//! last saved state wins.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use cairn_route::{StickyEntry, StickyStore};
use serde::{Deserialize, Serialize};

/// The state of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEntry {
    /// The pack the last turn injected (for sticky follow-ups).
    #[serde(default)]
    pub sticky: Option<StickyEntry>,
    /// Turns served so far.
    #[serde(default)]
    pub turns: u64,
}

const SHARDS: usize = 32;

#[derive(Debug, Default)]
struct Shard {
    entries: HashMap<String, SessionEntry>,
    dirty: Vec<String>,
}

/// Every session's state, sharded by key.
#[derive(Debug)]
pub struct SessionStates {
    shards: Vec<Mutex<Shard>>,
    hasher: RandomState,
    /// The shared store's last session-state row number seen here.
    seen: AtomicU64,
    /// Held while states are saved or pulled, so a pull never lands between taking a state to save
    /// and saving it (it would bring back the older state).
    exchange: Mutex<()>,
}

impl Default for SessionStates {
    fn default() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            hasher: RandomState::new(),
            seen: AtomicU64::new(0),
            exchange: Mutex::new(()),
        }
    }
}

impl SessionStates {
    fn shard(&self, key: &str) -> std::sync::MutexGuard<'_, Shard> {
        let i = (self.hasher.hash_one(key) as usize) % SHARDS;
        self.shards[i].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads saved states (not marked dirty).
    pub fn load(&self, saved: impl IntoIterator<Item = (String, SessionEntry)>) {
        for (key, entry) in saved {
            self.shard(&key).entries.insert(key, entry);
        }
    }

    /// Merges states pulled from a shared store (`(key, JSON)` in write order, up to row number
    /// `upto`): each replaces the state held here unless that one changed since it was last saved.
    /// Unreadable JSON is skipped. Call it holding [`SessionStates::exchange`].
    pub fn merge(&self, pulled: Vec<(String, String)>, upto: u64) -> usize {
        let mut merged = 0;
        for (key, json) in pulled {
            let Ok(entry) = serde_json::from_str::<SessionEntry>(&json) else { continue };
            let mut shard = self.shard(&key);
            if !shard.dirty.contains(&key) {
                shard.entries.insert(key, entry);
                merged += 1;
            }
        }
        self.seen.fetch_max(upto, Ordering::AcqRel);
        merged
    }

    /// The last shared row number merged.
    pub fn seen(&self) -> u64 {
        self.seen.load(Ordering::Acquire)
    }

    /// The lock under which states are saved to, or pulled from, the store.
    pub fn exchange(&self) -> MutexGuard<'_, ()> {
        self.exchange.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of one session's state.
    pub fn get(&self, key: &str) -> SessionEntry {
        self.shard(key).entries.get(key).cloned().unwrap_or_default()
    }

    /// Runs `f` on a session's state under its shard lock and marks it dirty.
    pub fn update<R>(&self, key: &str, f: impl FnOnce(&mut SessionEntry) -> R) -> R {
        let mut shard = self.shard(key);
        let r = f(shard.entries.entry(key.to_owned()).or_default());
        shard.dirty.push(key.to_owned());
        r
    }

    /// Number of sessions known.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).entries.len()).sum()
    }

    /// Whether no session is known.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks states to be saved again (their save failed).
    pub fn mark_dirty(&self, keys: impl IntoIterator<Item = String>) {
        for key in keys {
            self.shard(&key).dirty.push(key);
        }
    }

    /// Takes the states changed since the last call, as `(key, JSON)`.
    pub fn take_dirty(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for shard in &self.shards {
            let mut shard = shard.lock().unwrap_or_else(|e| e.into_inner());
            let mut keys = std::mem::take(&mut shard.dirty);
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                if let Some(e) = shard.entries.get(&key) {
                    out.push((key, serde_json::to_string(e).expect("plain data serialises")));
                }
            }
        }
        out
    }
}

/// A one-session [`StickyStore`] over a [`SessionEntry`], for one router decision.
pub(crate) struct OneSession<'a> {
    pub key: &'a str,
    pub entry: &'a mut SessionEntry,
}

impl StickyStore for OneSession<'_> {
    fn get(&self, session_key: &str) -> cairn_route::Result<Option<StickyEntry>> {
        Ok(if session_key == self.key { self.entry.sticky.clone() } else { None })
    }

    fn put(&mut self, session_key: &str, entry: StickyEntry) -> cairn_route::Result<()> {
        if session_key == self.key {
            self.entry.sticky = Some(entry);
        }
        Ok(())
    }

    fn remove(&mut self, session_key: &str) -> cairn_route::Result<()> {
        if session_key == self.key {
            self.entry.sticky = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_is_taken_once_and_deduplicated() {
        let s = SessionStates::default();
        s.update("a", |e| e.turns += 1);
        s.update("a", |e| e.turns += 1);
        s.update("b", |e| e.turns += 1);
        let mut d = s.take_dirty();
        d.sort();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].0, "a");
        assert!(d[0].1.contains("\"turns\":2"));
        assert!(s.take_dirty().is_empty());
        assert_eq!(s.get("a").turns, 2);
        assert_eq!(s.get("zzz"), SessionEntry::default());
    }

    #[test]
    fn a_pulled_state_replaces_a_saved_one_but_not_an_unsaved_change() {
        let s = SessionStates::default();
        s.update("a", |e| e.turns = 1);
        s.update("b", |e| e.turns = 1);
        s.take_dirty();
        s.update("b", |e| e.turns = 2);
        let pulled = vec![
            ("a".to_owned(), r#"{"turns":7}"#.to_owned()),
            ("b".to_owned(), r#"{"turns":7}"#.to_owned()),
            ("c".to_owned(), "not json".to_owned()),
        ];
        assert_eq!(s.merge(pulled, 9), 1);
        assert_eq!((s.get("a").turns, s.get("b").turns, s.seen()), (7, 2, 9));
        assert!(s.get("c") == SessionEntry::default());
        // Row numbers only move forward.
        s.merge(vec![], 3);
        assert_eq!(s.seen(), 9);
    }
}
