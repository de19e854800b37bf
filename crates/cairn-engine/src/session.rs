//! Per-session serving state: the sticky pack and a turn counter, held in memory (sharded, so turns of
//! different sessions never wait on each other) and written to the store in batches.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

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
}

impl Default for SessionStates {
    fn default() -> Self {
        Self { shards: (0..SHARDS).map(|_| Mutex::default()).collect(), hasher: RandomState::new() }
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
}
