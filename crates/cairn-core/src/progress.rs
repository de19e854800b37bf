//! Progress callbacks of long-running stage work (harvest, embedding, index builds): the stages report,
//! the CLI draws, nothing in a library prints.

/// Progress of one long-running step. Every method has a default that does nothing.
pub trait Progress: Sync {
    /// `total` units of work are known (files, chunks).
    fn start(&self, _total: u64) {}
    /// `n` more units are done.
    fn inc(&self, _n: u64) {}
    /// Done (or stopped by a failure).
    fn finish(&self) {}
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}
