//! Sticky follow-up state: per session key, the pack the last turn injected.

use std::collections::BTreeMap;

use cairn_core::Millis;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// What the last turn of a session injected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StickyEntry {
    /// The intent (rule id) whose pack was injected.
    pub intent: String,
    /// The primary pack id.
    pub primary_pack: String,
    /// When that turn happened (ms since the epoch); entries older than `sticky.ttl_secs` are ignored.
    pub at: Millis,
    /// How many sticky re-injections in a row led here (0 for a fresh keyword match).
    pub consecutive: u32,
}

/// Where the router keeps sticky state. [`SessionState`] is the in-memory implementation;
/// a daemon can implement this over its own persistence. Errors degrade to "not sticky"
/// (reads) or a trace warning (writes); they never fail a turn.
pub trait StickyStore {
    /// The entry of a session, if any (expired entries may be returned; the router checks `at`).
    fn get(&self, session_key: &str) -> Result<Option<StickyEntry>>;
    /// Stores the entry of a session.
    fn put(&mut self, session_key: &str, entry: StickyEntry) -> Result<()>;
    /// Forgets a session.
    fn remove(&mut self, session_key: &str) -> Result<()>;
}

/// In-memory sticky state; serialisable so that a daemon can save it across restarts.
///
/// ```
/// use cairn_route::{SessionState, StickyEntry, StickyStore};
/// let mut state = SessionState::default();
/// state.put("agent:main:main", StickyEntry { intent: "dining".into(), primary_pack: "p".into(), at: 0, consecutive: 0 })?;
/// let json = serde_json::to_string(&state).unwrap();
/// let back: SessionState = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, state);
/// # Ok::<(), cairn_route::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// Session key → entry.
    pub sessions: BTreeMap<String, StickyEntry>,
}

impl SessionState {
    /// Drops entries last touched before `cutoff` (ms since the epoch); returns how many.
    pub fn prune(&mut self, cutoff: Millis) -> usize {
        let before = self.sessions.len();
        self.sessions.retain(|_, e| e.at >= cutoff);
        before - self.sessions.len()
    }
}

impl StickyStore for SessionState {
    fn get(&self, session_key: &str) -> Result<Option<StickyEntry>> {
        Ok(self.sessions.get(session_key).cloned())
    }

    fn put(&mut self, session_key: &str, entry: StickyEntry) -> Result<()> {
        self.sessions.insert(session_key.to_owned(), entry);
        Ok(())
    }

    fn remove(&mut self, session_key: &str) -> Result<()> {
        self.sessions.remove(session_key);
        Ok(())
    }
}
