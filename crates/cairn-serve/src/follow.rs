//! Following a shared store at once: one thread keeps a listening connection to the PostgreSQL store
//! ([`cairn_store::PgListener`]) and wakes the daemon's derive task whenever another host (or this
//! one, or a one-shot command) commits to the log, so the new entries are indexed and served right
//! away instead of at the next poll (`serve.derive_ms`), which stays as the fallback.
//!
//! A lost or refused listening connection never stops the daemon: it is reported once, the daemon
//! keeps polling, and the connection is opened again after a growing pause (0.1 s doubling to
//! [`MAX_BACKOFF`]); once it is back the derive task is woken once, for whatever was committed
//! meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cairn_store::{Heard, PgListener};
use tokio::sync::Notify;

/// The first pause before connecting again.
const MIN_BACKOFF: Duration = Duration::from_millis(100);
/// The longest pause before connecting again.
const MAX_BACKOFF: Duration = Duration::from_secs(10);
/// How long one wait lasts (the stop flag is checked between waits).
const SLICE: Duration = Duration::from_millis(500);
/// After this long without a notification, the server is asked whether the connection still works
/// (a network cut leaves a socket that just stays silent).
const IDLE_CHECK: Duration = Duration::from_secs(30);
/// How long that check may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// What the follower did (for `GET /v1/status` and `/metrics`).
#[derive(Debug, Default)]
pub struct FollowStats {
    /// Whether the listening connection is up.
    pub listening: AtomicBool,
    /// Notifications that woke the derive task.
    pub wakes: AtomicU64,
    /// Listening connections lost or refused.
    pub reconnects: AtomicU64,
    /// Since when (ms since the epoch) the store could not be reached by the daemon's refresh; 0
    /// while it can. Turns served meanwhile are marked stale.
    pub unreachable_since: AtomicU64,
}

impl FollowStats {
    /// Records whether the last refresh reached the store.
    pub fn set_unreachable(&self, unreachable: bool, now_ms: u64) {
        if unreachable {
            let _ = self.unreachable_since.compare_exchange(
                0,
                now_ms.max(1),
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        } else {
            self.unreachable_since.store(0, Ordering::Release);
        }
    }

    /// Since when the store has been unreachable, if it is.
    pub fn unreachable_since(&self) -> Option<u64> {
        Some(self.unreachable_since.load(Ordering::Acquire)).filter(|&ms| ms > 0)
    }
}

/// The listening thread; told to stop when dropped (it ends at its next wait, within half a second,
/// without holding up the daemon's shutdown).
#[derive(Debug)]
pub struct Follower {
    stop: Arc<AtomicBool>,
    _thread: JoinHandle<()>,
}

impl Follower {
    /// Starts listening to the store at `url`; `wake` is notified on every commit announced, and
    /// `stats` counts what happens.
    pub fn start(url: String, wake: Arc<Notify>, stats: Arc<FollowStats>) -> Follower {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("cairn-follow".into())
                .spawn(move || run(&url, &wake, &stop, &stats))
                .expect("spawning the store follower")
        };
        Follower { stop, _thread: thread }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn run(url: &str, wake: &Notify, stop: &AtomicBool, stats: &FollowStats) {
    let mut backoff = MIN_BACKOFF;
    // Whether the last attempt failed (a failure is reported once, not at every retry).
    let mut failing = false;
    while !stop.load(Ordering::SeqCst) {
        match PgListener::connect(url) {
            Ok(mut listener) => {
                if failing {
                    tracing::info!("listening to the store at `{}` again", listener.label());
                }
                stats.listening.store(true, Ordering::Relaxed);
                backoff = MIN_BACKOFF;
                // Whatever was committed while nobody listened.
                wake.notify_one();
                let lost = listen(&mut listener, wake, stop, stats);
                stats.listening.store(false, Ordering::Relaxed);
                match lost {
                    None => return,
                    Some(e) => {
                        stats.reconnects.fetch_add(1, Ordering::Relaxed);
                        failing = true;
                        tracing::warn!(
                            "lost the listening connection to the store ({e}); following by polling \
                             until it is back"
                        );
                    }
                }
            }
            Err(e) => {
                if !failing {
                    stats.reconnects.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(
                        "cannot listen to the store ({e}); following by polling, retrying in the background"
                    );
                }
                failing = true;
            }
        }
        pause(backoff, stop);
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// Wakes the derive task on every commit until the connection fails (its error) or `stop` is set
/// (`None`).
fn listen(
    listener: &mut PgListener,
    wake: &Notify,
    stop: &AtomicBool,
    stats: &FollowStats,
) -> Option<cairn_store::Error> {
    let mut heard_at = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        match listener.wait(SLICE) {
            Ok(Heard::Commit(_)) => {
                stats.wakes.fetch_add(1, Ordering::Relaxed);
                wake.notify_one();
                heard_at = Instant::now();
            }
            Ok(Heard::Nothing) if heard_at.elapsed() >= IDLE_CHECK => {
                if let Err(e) = listener.check(CHECK_TIMEOUT) {
                    return Some(e);
                }
                heard_at = Instant::now();
            }
            Ok(Heard::Nothing) => {}
            Err(e) => return Some(e),
        }
    }
    None
}

/// Sleeps `d`, in short steps so that a stop is not held up.
fn pause(d: Duration, stop: &AtomicBool) {
    let until = Instant::now() + d;
    while !stop.load(Ordering::SeqCst) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}
