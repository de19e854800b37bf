//! The capture worker: one thread that takes queued captures in batches, captures them through the
//! engine (injected blocks stripped, duplicates recognised) and syncs the index once per batch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use cairn_engine::Engine;
use cairn_ingest::CaptureOutcome;

/// Attempts before a capture that keeps failing is marked `failed`.
pub const MAX_ATTEMPTS: i64 = 5;

/// How long the worker sleeps when nothing woke it (it also polls, so a lost wake-up only delays).
const POLL: Duration = Duration::from_millis(250);
/// The first pause after a batch that failed as a whole (the store unreachable), and the longest.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MOST: Duration = Duration::from_secs(5);

/// Counters of what the worker did.
#[derive(Debug, Default)]
pub struct WorkerStats {
    /// Captures stored as new turns.
    pub stored: AtomicU64,
    /// Captures that were already stored.
    pub duplicate: AtomicU64,
    /// Captures skipped (nothing left after stripping, failed run, malformed).
    pub skipped: AtomicU64,
    /// Processing errors (retried).
    pub errors: AtomicU64,
}

/// Wakes the worker; cheap to clone.
#[derive(Debug, Clone)]
pub struct WorkerHandle {
    tx: Sender<()>,
    /// What the worker did so far.
    pub stats: Arc<WorkerStats>,
}

impl WorkerHandle {
    /// Tells the worker there is work.
    pub fn wake(&self) {
        let _ = self.tx.send(());
    }
}

/// The running worker thread.
#[derive(Debug)]
pub struct Worker {
    handle: WorkerHandle,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the worker over `engine`, processing up to `batch` captures per index sync.
    pub fn start(engine: Arc<Engine>, batch: usize) -> Worker {
        let (tx, rx) = channel();
        let stats = Arc::new(WorkerStats::default());
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stats, stop) = (stats.clone(), stop.clone());
            std::thread::Builder::new()
                .name("cairn-capture".into())
                .spawn(move || run(&engine, &rx, &stats, &stop, batch.max(1)))
                .expect("spawning the capture worker")
        };
        Worker { handle: WorkerHandle { tx, stats }, stop, thread: Some(thread) }
    }

    /// A handle to wake it.
    pub fn handle(&self) -> WorkerHandle {
        self.handle.clone()
    }

    /// Processes everything still queued, then stops. Returns the captures stored in all.
    pub fn shutdown(mut self) -> u64 {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.handle.stats.stored.load(Ordering::Relaxed)
    }
}

fn run(engine: &Engine, rx: &Receiver<()>, stats: &WorkerStats, stop: &AtomicBool, batch: usize) {
    // The pause after a failed batch: doubles while the store stays unreachable, so a server that is
    // down is asked about once every few seconds, not in a tight loop.
    let mut pause = RETRY_FIRST;
    loop {
        let worked = match process_batch(engine, stats, batch) {
            Ok(n) => {
                pause = RETRY_FIRST;
                n > 0
            }
            Err(e) => {
                if pause == RETRY_FIRST {
                    tracing::warn!("capture queue: {e}; the captures stay queued and are retried");
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(RETRY_MOST);
                false
            }
        };
        if worked {
            continue;
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        match rx.recv_timeout(POLL) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                if stop.load(Ordering::SeqCst) {
                    continue;
                }
                std::thread::sleep(POLL);
            }
        }
        // Coalesce the wake-ups that arrived meanwhile.
        while rx.try_recv().is_ok() {}
    }
}

/// Processes one batch; returns how many queue rows it handled.
pub fn process_batch(engine: &Engine, stats: &WorkerStats, batch: usize) -> cairn_engine::Result<usize> {
    let queued = engine.queued_captures(batch)?;
    if queued.is_empty() {
        return Ok(0);
    }
    let mut inputs = Vec::with_capacity(queued.len());
    let mut rows = Vec::with_capacity(queued.len());
    for q in &queued {
        match serde_json::from_str::<cairn_ingest::TurnInput>(&q.payload) {
            Ok(t) => {
                inputs.push(t);
                rows.push(q);
            }
            Err(e) => {
                stats.skipped.fetch_add(1, Ordering::Relaxed);
                engine.finish_capture(q.id, &format!("skipped: unreadable payload: {e}"))?;
            }
        }
    }
    let (outcomes, sync) = engine.capture_batch(&inputs);
    let mut unreachable: Option<cairn_engine::Error> = None;
    if let Err(e) = sync {
        tracing::warn!("index sync after captures failed (the next sync retries): {e}");
    }
    for (q, outcome) in rows.into_iter().zip(outcomes) {
        match outcome {
            Ok(CaptureOutcome::Stored { item_id, .. }) => {
                stats.stored.fetch_add(1, Ordering::Relaxed);
                engine.finish_capture(q.id, &format!("stored {item_id}"))?;
            }
            Ok(CaptureOutcome::Duplicate { item_id, .. }) => {
                stats.duplicate.fetch_add(1, Ordering::Relaxed);
                engine.finish_capture(q.id, &format!("duplicate of {item_id}"))?;
            }
            Ok(CaptureOutcome::Skipped { reason }) => {
                stats.skipped.fetch_add(1, Ordering::Relaxed);
                engine.finish_capture(q.id, &format!("skipped: {reason}"))?;
            }
            Err(e) if e.is_bad_input() => {
                stats.skipped.fetch_add(1, Ordering::Relaxed);
                engine.finish_capture(q.id, &format!("skipped: {e}"))?;
            }
            // The store cannot be reached (a shared server down): the capture is not at fault, so it
            // stays queued, no attempt counted, until the store is back; nothing acknowledged is lost
            // however long that takes.
            Err(e) if e.is_unavailable() => {
                unreachable.get_or_insert(e);
            }
            Err(e) => {
                stats.errors.fetch_add(1, Ordering::Relaxed);
                engine.fail_capture(q.id, &e.to_string(), MAX_ATTEMPTS)?;
            }
        }
    }
    match unreachable {
        Some(e) => Err(e),
        None => Ok(queued.len()),
    }
}
