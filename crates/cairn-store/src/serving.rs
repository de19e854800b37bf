//! Serving state kept next to the data: per-session state (sticky pack, turn counter) and the durable
//! capture queue of `cairn serve`. Both survive a daemon restart.

use cairn_core::Millis;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::{Result, SqliteStore};

/// A capture waiting in (or done with) the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedCapture {
    /// Queue row id (processing order).
    pub id: i64,
    /// Host session key.
    pub session_key: String,
    /// Turn id (unique per session in the queue).
    pub turn_id: String,
    /// The turn as accepted, JSON.
    pub payload: String,
    /// Processing attempts so far.
    pub attempts: i64,
}

/// Queue rows per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct QueueCounts {
    /// Waiting to be processed.
    pub queued: u64,
    /// Processed (stored, duplicate or skipped).
    pub done: u64,
    /// Given up on after repeated errors.
    pub failed: u64,
}

impl SqliteStore {
    /// Make every commit of this connection wait for the disk (`synchronous = FULL`): a committed
    /// transaction then survives a power cut, not only a killed process.
    pub fn set_durable(&self, durable: bool) -> Result<()> {
        self.conn.pragma_update(None, "synchronous", if durable { "FULL" } else { "NORMAL" })?;
        Ok(())
    }

    /// Every saved session state, as `(session_key, state JSON)` (the shared store's, when one is
    /// attached).
    pub fn session_states(&self) -> Result<Vec<(String, String)>> {
        if let Some(shared) = &self.shared {
            return Ok(shared.session_states()?.0);
        }
        let mut stmt = self.conn.prepare_cached("SELECT session_key, state FROM session_state")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// One session's saved state JSON.
    pub fn session_state(&self, session_key: &str) -> Result<Option<String>> {
        if let Some(shared) = &self.shared {
            return shared.session_state(session_key);
        }
        Ok(self
            .conn
            .prepare_cached("SELECT state FROM session_state WHERE session_key = ?1")?
            .query_row([session_key], |r| r.get(0))
            .optional()?)
    }

    /// Save session states (`(session_key, state JSON)`) in one transaction (into the shared store,
    /// when one is attached).
    pub fn put_session_states(&mut self, states: &[(String, String)], at: Millis) -> Result<()> {
        if let Some(shared) = &mut self.shared {
            return shared.put_session_states(states, at);
        }
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO session_state (session_key, state, updated_at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (session_key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
            )?;
            for (key, state) in states {
                stmt.execute(params![key, state, at])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Queue a capture. Returns `false` when `(session_key, turn_id)` was queued before (a duplicate:
    /// nothing is written).
    pub fn enqueue_capture(
        &mut self,
        session_key: &str,
        turn_id: &str,
        payload: &str,
        at: Millis,
    ) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO capture_queue (session_key, turn_id, payload, enqueued_at) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![session_key, turn_id, payload, at])?;
        Ok(n == 1)
    }

    /// Up to `limit` queued captures, oldest first.
    pub fn queued_captures(&self, limit: usize) -> Result<Vec<QueuedCapture>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, session_key, turn_id, payload, attempts FROM capture_queue \
             WHERE status = 'queued' ORDER BY id LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit as i64], |r| {
            Ok(QueuedCapture {
                id: r.get(0)?,
                session_key: r.get(1)?,
                turn_id: r.get(2)?,
                payload: r.get(3)?,
                attempts: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Mark a queued capture processed (`done`) with what happened.
    pub fn finish_capture(&mut self, id: i64, outcome: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE capture_queue SET status = 'done', attempts = attempts + 1, outcome = ?2 WHERE id = ?1",
            )?
            .execute(params![id, outcome])?;
        Ok(())
    }

    /// Record a failed attempt; after `max_attempts` the capture is marked `failed` and left alone.
    pub fn fail_capture(&mut self, id: i64, error: &str, max_attempts: i64) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE capture_queue SET attempts = attempts + 1, outcome = ?2, \
                 status = CASE WHEN attempts + 1 >= ?3 THEN 'failed' ELSE status END WHERE id = ?1",
            )?
            .execute(params![id, error, max_attempts])?;
        Ok(())
    }

    /// Queue rows per status.
    pub fn queue_counts(&self) -> Result<QueueCounts> {
        let mut stmt =
            self.conn.prepare_cached("SELECT status, count(*) FROM capture_queue GROUP BY status")?;
        let mut counts = QueueCounts::default();
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (status, n) = row?;
            match status.as_str() {
                "queued" => counts.queued = n as u64,
                "done" => counts.done = n as u64,
                _ => counts.failed = n as u64,
            }
        }
        Ok(counts)
    }

    /// The key of every session with a recorded turn, sorted (what `cairn doctor` classifies).
    pub fn session_keys(&self) -> Result<Vec<String>> {
        if let Some(shared) = &self.shared {
            return shared.session_keys();
        }
        let mut stmt = self.conn.prepare_cached("SELECT key FROM sessions ORDER BY key")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Number of recorded turns of a session (captures that reached the store).
    pub fn turn_count(&self, session_key: Option<&str>) -> Result<u64> {
        if let Some(shared) = &self.shared {
            return shared.turn_count(session_key);
        }
        let n: i64 = match session_key {
            Some(k) => {
                self.conn.query_row("SELECT count(*) FROM turns WHERE session_key = ?1", [k], |r| r.get(0))?
            }
            None => self.conn.query_row("SELECT count(*) FROM turns", [], |r| r.get(0))?,
        };
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_dedupes_and_drains_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(&dir.path().join("c.sqlite")).unwrap();
        assert!(s.enqueue_capture("k", "t1", "{}", 1).unwrap());
        assert!(!s.enqueue_capture("k", "t1", "{\"x\":1}", 2).unwrap());
        assert!(s.enqueue_capture("k", "t2", "{}", 3).unwrap());
        let q = s.queued_captures(10).unwrap();
        assert_eq!(q.iter().map(|c| c.turn_id.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
        assert_eq!(q[0].payload, "{}");
        s.finish_capture(q[0].id, "stored").unwrap();
        s.fail_capture(q[1].id, "boom", 2).unwrap();
        assert_eq!(s.queue_counts().unwrap(), QueueCounts { queued: 1, done: 1, failed: 0 });
        s.fail_capture(q[1].id, "boom", 2).unwrap();
        assert_eq!(s.queue_counts().unwrap(), QueueCounts { queued: 0, done: 1, failed: 1 });
        // A processed turn id stays known: re-sending it is still a duplicate.
        assert!(!s.enqueue_capture("k", "t1", "{}", 4).unwrap());
    }

    #[test]
    fn session_state_round_trips_across_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        {
            let mut s = SqliteStore::open(&path).unwrap();
            s.put_session_states(&[("a".into(), "{\"turns\":1}".into())], 5).unwrap();
            s.put_session_states(&[("a".into(), "{\"turns\":2}".into())], 6).unwrap();
        }
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.session_state("a").unwrap().as_deref(), Some("{\"turns\":2}"));
        assert_eq!(s.session_states().unwrap().len(), 1);
        assert_eq!(s.session_state("b").unwrap(), None);
    }
}
