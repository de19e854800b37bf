//! The session and turn reads that host-local parts need beyond the [`Store`](crate::Store) trait (the
//! graph's session rows, sub-agents' parent turns, `cairn sessions`, the capture counters), answered
//! from the shared tables: a host-local store with a shared store attached asks these here.
//!
//! Session state (sticky pack, turn counter) is shared too, so a session's follow-up turn keeps its
//! pack on whichever host serves it. Each write numbers its rows from the `session` counter, gap-safe
//! like the ingest log ([`super::seq`]), and wakes the listening hosts; a host pulls the rows numbered
//! after the last one it saw ([`PgStore::session_states_since`]).

use cairn_core::Millis;

use super::PgStore;
use super::listen::notify_text;
use super::seq::{self, Log};
use crate::Result;

/// The payload of the notification sent when session state changes (not a log number: a host woken
/// by it finds no new log entry, only rows to pull).
pub(super) const SESSION_NOTICE: &str = "session";

impl PgStore {
    /// The recorded turns of a session as `(turn id, item id, ts)`, in (ts, turn id) order.
    pub fn session_turns(&self, session_key: &str) -> Result<Vec<(String, String, i64)>> {
        let rows = self.client()?.query(
            "SELECT turn_id, item_id, ts FROM turns WHERE session_key = $1 ORDER BY ts, turn_id COLLATE \"C\"",
            &[&session_key],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
    }

    /// The key of every session with a recorded turn, sorted.
    pub fn session_keys(&self) -> Result<Vec<String>> {
        let rows = self.client()?.query("SELECT key FROM sessions ORDER BY key COLLATE \"C\"", &[])?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Number of recorded turns of a session, or of all sessions.
    pub fn turn_count(&self, session_key: Option<&str>) -> Result<u64> {
        let n: i64 = self
            .client()?
            .query_one(
                "SELECT count(*) FROM turns WHERE $1::text IS NULL OR session_key = $1",
                &[&session_key],
            )?
            .get(0);
        Ok(n as u64)
    }

    /// The ids of the last `k` turns captured in `session_key` (`(turn id, item id)`), oldest first.
    pub fn last_turns(&self, session_key: &str, k: usize) -> Result<Vec<(String, String)>> {
        let rows = self.client()?.query(
            "SELECT turn_id, item_id FROM turns WHERE session_key = $1 \
             ORDER BY ts DESC, turn_id COLLATE \"C\" DESC LIMIT $2",
            &[&session_key, &(k.min(i64::MAX as usize) as i64)],
        )?;
        let mut out: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        out.reverse();
        Ok(out)
    }

    /// Every session with captured turns: `(key, turns, last seen)`, by last seen then key.
    pub fn session_summaries(&self) -> Result<Vec<(String, u64, Millis)>> {
        let rows = self
            .client()?
            .query("SELECT key, turns, last_seen FROM sessions ORDER BY last_seen, key COLLATE \"C\"", &[])?;
        Ok(rows.iter().map(|r| (r.get(0), r.get::<_, i64>(1) as u64, r.get(2))).collect())
    }

    /// Every saved session state, as `(session_key, state JSON)`, and the highest row number among
    /// them (0 for none).
    pub fn session_states(&self) -> Result<(Vec<(String, String)>, u64)> {
        self.session_states_since(0)
    }

    /// The session states written after row number `after`, as `(session_key, state JSON)` in write
    /// order, and the highest row number seen (`after` when none).
    pub fn session_states_since(&self, after: u64) -> Result<(Vec<(String, String)>, u64)> {
        let rows = self.client()?.query(
            "SELECT session_key, state, sseq FROM session_state WHERE sseq > $1 ORDER BY sseq",
            &[&(after.min(i64::MAX as u64) as i64)],
        )?;
        let last = rows.last().map_or(after, |r| r.get::<_, i64>(2) as u64);
        Ok((rows.iter().map(|r| (r.get(0), r.get(1))).collect(), last))
    }

    /// One session's saved state JSON.
    pub fn session_state(&self, session_key: &str) -> Result<Option<String>> {
        let row = self
            .client()?
            .query_opt("SELECT state FROM session_state WHERE session_key = $1", &[&session_key])?;
        Ok(row.map(|r| r.get(0)))
    }

    /// Saves session states (`(session_key, state JSON)`) in one transaction, each under a new row
    /// number, and wakes the listening hosts when it commits.
    pub fn put_session_states(&mut self, states: &[(String, String)], at: Millis) -> Result<()> {
        for (key, state) in states {
            super::check_text(key, "the session key", key)?;
            super::check_text(key, "the session state", state)?;
        }
        let mut client = self.client()?;
        let mut tx = client.transaction()?;
        seq::claim(&mut tx, &[Log::Session])?;
        for (key, state) in states {
            let n = seq::next(&mut tx, Log::Session)? as i64;
            tx.execute(
                "INSERT INTO session_state (session_key, state, updated_at, sseq) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (session_key) DO UPDATE \
                 SET state = excluded.state, updated_at = excluded.updated_at, sseq = excluded.sseq",
                &[key, state, &at, &n],
            )?;
        }
        if !states.is_empty() {
            notify_text(&mut tx, SESSION_NOTICE)?;
        }
        tx.commit()?;
        Ok(())
    }
}
