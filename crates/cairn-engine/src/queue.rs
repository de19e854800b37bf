//! Bookkeeping reads and the durable capture queue: store counts, the reader's size, sessions, the
//! queue a daemon acknowledges captures into before processing them.

use cairn_core::now_ms;
use cairn_store::{QueueCounts, Store, StoreStatus};

use crate::Result;
use crate::open::Engine;

impl Engine {
    /// Store counts.
    pub fn store_status(&self) -> Result<StoreStatus> {
        Ok(self.side()?.status()?)
    }

    /// Number of chunks the reader sees.
    pub fn indexed_chunks(&self) -> Option<u64> {
        self.recaller().ok().map(|r| r.num_chunks())
    }

    /// Number of sessions with saved state.
    pub fn session_count(&self) -> usize {
        self.sessions().len()
    }

    /// Durable capture queue: adds a turn unless `(session_key, turn_id)` was queued before.
    /// Returns `true` when it was new.
    pub fn enqueue_capture(&self, session_key: &str, turn_id: &str, payload: &str) -> Result<bool> {
        Ok(self.side()?.enqueue_capture(session_key, turn_id, payload, now_ms())?)
    }

    /// Up to `limit` queued captures, oldest first.
    pub fn queued_captures(&self, limit: usize) -> Result<Vec<cairn_store::QueuedCapture>> {
        Ok(self.side()?.queued_captures(limit)?)
    }

    /// Marks a queued capture processed.
    pub fn finish_capture(&self, id: i64, outcome: &str) -> Result<()> {
        Ok(self.side()?.finish_capture(id, outcome)?)
    }

    /// Records a failed processing attempt (given up after `max_attempts`).
    pub fn fail_capture(&self, id: i64, error: &str, max_attempts: i64) -> Result<()> {
        Ok(self.side()?.fail_capture(id, error, max_attempts)?)
    }

    /// Capture queue counts.
    pub fn queue_counts(&self) -> Result<QueueCounts> {
        Ok(self.side()?.queue_counts()?)
    }

    /// Recorded turns (of one session, or all).
    pub fn turn_count(&self, session_key: Option<&str>) -> Result<u64> {
        Ok(self.side()?.turn_count(session_key)?)
    }
}
