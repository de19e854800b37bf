//! A second thread for the parts of one request that can run side by side (recall runs block-max WAND
//! over half the segments there, then reads hits ahead).
//!
//! A request is a few hundred microseconds of work, so the usual ways of splitting it
//! cost more than they save: spawning a thread takes 50–100 µs, and waking a parked pool thread on a
//! virtual machine's idle core 30–50 µs. A [`Helper`] owns one long-lived thread that, after each job,
//! keeps polling for the next one for [`Helper::LINGER`] (yielding the core between polls, so it takes
//! no time another thread wants) and only then parks. Back-to-back recalls hand work over in about a
//! microsecond; after a quiet spell the helper has to wake up, so callers hand over work that they can
//! take back (whoever starts it first runs it) and wait for the helper only briefly ([`wait_until`]).
//!
//! The helper is for latency when the process is otherwise idle: there is one per process
//! ([`Helper::shared`]), it takes one job at a time, and a caller that finds it busy does the work
//! itself. Work that may use it counts itself with [`running`]; [`alone`] tells whether anything else is
//! running, so that under load the other core serves another request instead. Jobs own what they touch
//! (`'static`), so no borrow crosses threads; a job that panics is reported to its caller as a lost
//! result, and the thread lives on.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Requests that may use the helper, running right now.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Counts one request as running until dropped (see [`alone`]).
#[derive(Debug)]
pub struct Running(());

/// Counts the calling request as running until the guard is dropped.
pub fn running() -> Running {
    RUNNING.fetch_add(1, Ordering::Relaxed);
    Running(())
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether the calling request (counted with [`running`]) is the only one running.
pub fn alone() -> bool {
    RUNNING.load(Ordering::Relaxed) <= 1
}

/// One helper thread, started on first use, stopped when the helper is dropped.
#[derive(Default)]
pub struct Helper {
    jobs: Mutex<Option<Sender<Job>>>,
    busy: Arc<AtomicBool>,
    taken: AtomicU64,
}

impl std::fmt::Debug for Helper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Helper").field("busy", &self.busy.load(Ordering::Relaxed)).finish()
    }
}

/// A job handed to the helper: [`Pending::wait`] gives its result.
#[derive(Debug)]
pub struct Pending<T> {
    result: Receiver<T>,
}

impl<T> Pending<T> {
    /// The job's result, or `None` when it panicked (the caller then does the work itself).
    pub fn wait(self) -> Option<T> {
        poll(&self.result, Helper::LINGER).or_else(|| self.result.recv().ok())
    }
}

/// Polls `rx` for up to `linger`, yielding between polls; `None` when nothing came (or never can).
fn poll<T>(rx: &Receiver<T>, linger: Duration) -> Option<T> {
    let started = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if started.elapsed() >= linger => return None,
            Err(TryRecvError::Empty) => {
                // A short busy wait, then let any other thread that wants this core have it.
                for _ in 0..32 {
                    std::hint::spin_loop();
                }
                std::thread::yield_now();
            }
        }
    }
}

/// Waits until `done()` holds, for at most `patience`: spinning, yielding the core now and then.
/// Whether it holds. A caller that gives up does the work itself: the helper thread may have lost its
/// core to another process, and waiting on it then costs more than the work.
pub fn wait_until(done: impl Fn() -> bool, patience: Duration) -> bool {
    let started = Instant::now();
    let mut spins = 0u32;
    while !done() {
        spins += 1;
        if spins.is_multiple_of(64) {
            if started.elapsed() >= patience {
                return false;
            }
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    true
}

impl Helper {
    /// How long the helper (and a caller waiting for it) polls before parking.
    pub const LINGER: Duration = Duration::from_millis(2);

    /// How long [`Helper::try_run`] waits for a busy helper before giving the job back.
    pub const PATIENCE: Duration = Duration::from_micros(20);

    /// The process's helper.
    pub fn shared() -> &'static Helper {
        static SHARED: OnceLock<Helper> = OnceLock::new();
        SHARED.get_or_init(Helper::default)
    }

    /// Runs `job` on the helper thread, or gives it back when the helper is busy or cannot start.
    pub fn try_run<T, F>(&self, job: F) -> Result<Pending<T>, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        // Busy with the tail of an earlier job of this same request (callers use the helper only
        // when nothing else runs): that ends within microseconds, so wait a little for it.
        let started = Instant::now();
        while self.busy.swap(true, Ordering::Acquire) {
            if started.elapsed() >= Self::PATIENCE {
                return Err(job);
            }
            std::hint::spin_loop();
        }
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        if jobs.is_none() {
            *jobs = self.spawn();
        }
        let Some(tx) = jobs.as_ref() else {
            self.busy.store(false, Ordering::Release);
            return Err(job);
        };
        let (done, result) = mpsc::channel();
        // The job travels inside an `Option` so that, should the thread be gone, it comes back.
        let slot = Arc::new(Mutex::new(Some(job)));
        let theirs = Arc::clone(&slot);
        let sent = tx.send(Box::new(move || {
            let job = theirs.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(job) = job {
                let _ = done.send(job());
            }
        }));
        if sent.is_err() {
            *jobs = None;
            self.busy.store(false, Ordering::Release);
            let job = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            return Err(job.expect("a job that was not sent is still in its slot"));
        }
        self.taken.fetch_add(1, Ordering::Relaxed);
        Ok(Pending { result })
    }

    /// Jobs this helper has taken so far.
    pub fn jobs(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }

    fn spawn(&self) -> Option<Sender<Job>> {
        let (tx, rx) = mpsc::channel::<Job>();
        let busy = Arc::clone(&self.busy);
        std::thread::Builder::new()
            .name("cairn-recall-helper".into())
            .spawn(move || {
                while let Some(job) = poll(&rx, Helper::LINGER).or_else(|| rx.recv().ok()) {
                    // A panicking job drops its result sender: the caller sees a lost result.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                    busy.store(false, Ordering::Release);
                }
            })
            .ok()?;
        Some(tx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_jobs_in_turn_and_refuses_while_busy() {
        let helper = Helper::default();
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let g = Arc::clone(&gate);
        let first = helper.try_run(move || {
            let _wait = g.lock().unwrap();
            7
        });
        let first = first.ok().expect("an idle helper takes the job");
        // Busy until the first job is done: the second comes back to the caller (after waiting
        // `PATIENCE` for it).
        let second = helper.try_run(|| 8);
        assert_eq!(second.err().map(|f| f()), Some(8));
        drop(held);
        assert_eq!(first.wait(), Some(7));
        // Free again once the job has run (the flag is cleared just after the result is sent).
        let third = loop {
            match helper.try_run(|| 9) {
                Ok(p) => break p,
                Err(_) => std::thread::yield_now(),
            }
        };
        assert_eq!(third.wait(), Some(9));
    }

    #[test]
    fn a_panicking_job_is_a_lost_result_and_the_helper_lives_on() {
        let helper = Helper::default();
        let p = helper.try_run(|| -> u32 { panic!("job failed") }).ok().expect("idle");
        assert_eq!(p.wait(), None);
        let again = loop {
            match helper.try_run(|| 3u32) {
                Ok(p) => break p,
                Err(_) => std::thread::yield_now(),
            }
        };
        assert_eq!(again.wait(), Some(3));
    }
}
