//! Gap-safe sequence numbers for the ingest log, the vector log, session state and explicit links.
//!
//! A reader catches up with "everything after N". With a `SEQUENCE`, writer A could take 7, writer B
//! take 8 and commit first: a reader then sees 8, moves on from 8, and never sees 7 once A commits.
//! Here each log has one row in `seq_counters`; a writing transaction locks the rows it needs first
//! ([`claim`]), in one fixed order, and takes numbers with `cairn_next_seq` (an `UPDATE … RETURNING`
//! of that row). The lock lasts until the transaction ends, so the next writer gets its first number
//! only after the previous one has committed (or rolled back, returning its numbers unused): numbers
//! become visible in the order they were given out, without gaps, and a reader that saw N has seen
//! every number below it. Writers of one log are serialised; that is the price, a few milliseconds per
//! batch.
//!
//! Taking the counters before touching any row also orders every writer's locks the same way, so two
//! writers never wait on each other in a cycle.

use postgres::Transaction;

use crate::Result;

/// A log whose sequence a transaction writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Log {
    /// The ingest log (`ingest_log.seq`, `items.seq`).
    Ingest,
    /// The vector log (`vectors.vseq`).
    Vector,
    /// Session state (`session_state.sseq`).
    Session,
    /// Explicit links (`links.lseq`).
    Link,
}

impl Log {
    fn counter(self) -> &'static str {
        match self {
            Log::Ingest => "ingest",
            Log::Vector => "vector",
            Log::Session => "session",
            Log::Link => "link",
        }
    }
}

/// Locks the counters of `logs` for the rest of `tx`, in the order of [`Log`].
pub(crate) fn claim(tx: &mut Transaction<'_>, logs: &[Log]) -> Result<()> {
    let mut logs = logs.to_vec();
    logs.sort();
    logs.dedup();
    for log in logs {
        tx.execute("SELECT value FROM seq_counters WHERE name = $1 FOR UPDATE", &[&log.counter()])?;
    }
    Ok(())
}

/// The next number of `log` (its counter must have been claimed by `tx`).
pub(crate) fn next(tx: &mut Transaction<'_>, log: Log) -> Result<u64> {
    let seq: i64 = tx.query_one("SELECT cairn_next_seq($1)", &[&log.counter()])?.get(0);
    Ok(seq as u64)
}
