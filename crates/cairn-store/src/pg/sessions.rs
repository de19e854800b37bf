//! The session and turn reads that host-local parts need beyond the [`Store`](crate::Store) trait (the
//! graph's session rows, sub-agents' parent turns, `cairn sessions`, the capture counters), answered
//! from the shared tables: a host-local store with a shared store attached asks these here.

use cairn_core::Millis;

use super::PgStore;
use crate::Result;

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
}
