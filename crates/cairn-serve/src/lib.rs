//! `cairn serve`: Cairn's HTTP daemon over the [`cairn_engine::Engine`], and `cairn mcp`, its MCP
//! server over stdio.
//!
//! - [`app`] builds the axum router (every endpoint of `docs/serve.md`, JSON errors, body limit,
//!   bearer token, metrics middleware); [`serve`] runs it on TCP or a Unix socket until a shutdown
//!   signal, then drains the capture queue and saves session state.
//! - Turns run on tokio's blocking pool under a per-request timeout; a turn that times out gets the
//!   fallback note (HTTP 200), never an error.
//! - Captures are written to a durable queue in the store (fsynced) before the 202 answer and
//!   processed by one background worker ([`worker`]) that captures them in batches and syncs the
//!   index, so the next turn can recall them.
#![warn(missing_docs)]

pub mod doctor;
pub mod error;
pub mod follow;
mod guard;
pub mod hit;
pub mod json;
pub mod mcp;
pub mod metrics;
pub mod remote_tool;
mod routes;
pub mod traces;
pub mod viewer;
pub mod worker;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_engine::Engine;
use serde::{Deserialize, Serialize};

pub use error::ApiError;
pub use routes::{ROUTES, app};

/// How soon the derive task goes on when a run left it behind the store.
const CATCH_UP: Duration = Duration::from_millis(20);

/// The least time between two derive runs woken by the store's notifications: a burst of commits (a
/// busy team, a harvest elsewhere) is caught up with once per this period, not once per commit.
const WAKE_GAP: Duration = Duration::from_millis(50);

/// The OpenAPI document served at `/v1/openapi.json` (checked in at `docs/openapi.json`).
pub const OPENAPI: &str = include_str!("../../../docs/openapi.json");

/// The daemon's settings (`[serve]` in `cairn.toml`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeSettings {
    /// TCP address to listen on.
    pub addr: SocketAddr,
    /// Listen on this Unix socket instead of TCP.
    pub unix: Option<PathBuf>,
    /// Bearer token clients must send (`Authorization: Bearer <token>`). `cairn serve` without one
    /// generates a token on first start and keeps it in `<data_dir>/serve.token` (mode 0600), where
    /// local clients (the OpenClaw plugin) read it; an empty token is refused.
    pub token: Option<String>,
    /// Web origins (`https://app.example`) whose browser requests are served; any other request that
    /// carries an `Origin` header is refused (403).
    pub allowed_origins: Vec<String>,
    /// Host names served besides loopback names and the listening address (403 otherwise: the
    /// DNS-rebinding defence).
    pub allowed_hosts: Vec<String>,
    /// Largest request body, in bytes (larger bodies get 413).
    pub max_body_bytes: usize,
    /// Time a turn may take before the fallback note is answered instead, in milliseconds.
    pub turn_timeout_ms: u64,
    /// Time any other request may take, in milliseconds.
    pub request_timeout_ms: u64,
    /// Captures processed per batch (one index sync per batch).
    pub capture_batch: usize,
    /// How often changed session state is written to the store, in milliseconds.
    pub flush_ms: u64,
    /// Only the first this many bytes of a prompt are used for recall and routing.
    pub max_prompt_bytes: usize,
    /// How often captured turns and ingested notes are embedded and the graph refreshed, in
    /// milliseconds (only when the store changed; full-text recall sees them at once).
    pub derive_ms: u64,
    /// With a shared store: also catch up as soon as the store announces a commit (`LISTEN/NOTIFY`,
    /// [`follow`]); `false` follows it by polling every `derive_ms` only.
    pub follow_notifications: bool,
    /// Turns kept per session for the turn inspector (`GET /v1/sessions/{key}/turns`): their
    /// classification, routing decision and trace, never the prompt or the block (0: none).
    pub turn_traces: usize,
    /// Also keep each traced turn's injected block (the memory text the model was shown) for the turn
    /// inspector. Off by default: the traces then hold no memory text at all.
    pub trace_blocks: bool,
}

impl Default for ServeSettings {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 7411)),
            unix: None,
            token: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            turn_timeout_ms: 2_000,
            request_timeout_ms: 10_000,
            capture_batch: 256,
            flush_ms: 200,
            max_prompt_bytes: cairn_engine::DEFAULT_MAX_PROMPT_BYTES,
            derive_ms: 250,
            follow_notifications: true,
            turn_traces: 20,
            trace_blocks: false,
        }
    }
}

/// What the handlers share.
#[derive(Debug)]
pub struct AppState {
    /// The engine.
    pub engine: Arc<Engine>,
    /// Settings.
    pub options: ServeSettings,
    /// Metrics.
    pub metrics: metrics::Metrics,
    /// Wakes the capture worker.
    pub worker: worker::WorkerHandle,
    /// When the daemon started.
    pub started: Instant,
    /// The last turns of each session, for the turn inspector.
    pub turns: traces::TurnLog,
    /// The listening connection to a shared store (all zero without one).
    pub follow: Arc<follow::FollowStats>,
}

impl AppState {
    fn turn_timeout(&self) -> Duration {
        Duration::from_millis(self.options.turn_timeout_ms.max(1))
    }

    fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.options.request_timeout_ms.max(1))
    }
}

/// Why the daemon could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Binding a non-loopback address without a token.
    #[error(
        "refusing to listen on {0} without a token: set `serve.token` (or CAIRN_SERVE__TOKEN) when binding a non-loopback address"
    )]
    TokenRequired(SocketAddr),
    /// The configured token is empty.
    #[error("the token is empty: set a non-empty `serve.token`, or none to use the generated one")]
    EmptyToken,
    /// Another daemon serves this data directory.
    #[error("another `cairn serve` already serves `{0}` (it holds `serve.lock`)")]
    AlreadyRunning(PathBuf),
    /// The Unix socket path holds something that is not a socket.
    #[error("refusing to replace `{0}`: it exists and is not a socket")]
    NotASocket(PathBuf),
    /// The listener could not be opened.
    #[error("cannot listen on {what}: {source}")]
    Bind {
        /// Address or socket path.
        what: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// The server failed.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

/// Checks the options before binding.
pub fn check(options: &ServeSettings) -> Result<(), Error> {
    if options.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(Error::EmptyToken);
    }
    if options.unix.is_none() && !options.addr.ip().is_loopback() && options.token.is_none() {
        return Err(Error::TokenRequired(options.addr));
    }
    Ok(())
}

/// A running daemon's parts, for [`serve`] and tests.
#[derive(Debug)]
pub struct Daemon {
    state: Arc<AppState>,
    worker: worker::Worker,
}

impl Daemon {
    /// Starts the capture worker over `engine`.
    pub fn new(engine: Arc<Engine>, options: ServeSettings) -> Daemon {
        let worker = worker::Worker::start(engine.clone(), options.capture_batch);
        let mut metrics = metrics::Metrics::default();
        let watched = engine.clone();
        metrics.watch_sources(move || watched.sources_status());
        let follow = Arc::<follow::FollowStats>::default();
        if engine.config().store.url.is_some() && options.follow_notifications {
            metrics.watch_follow(follow.clone());
        }
        let state = Arc::new(AppState {
            engine,
            metrics,
            worker: worker.handle(),
            turns: traces::TurnLog::new(options.turn_traces, options.trace_blocks),
            options,
            started: Instant::now(),
            follow,
        });
        Daemon { state, worker }
    }

    /// The shared state.
    pub fn state(&self) -> &Arc<AppState> {
        &self.state
    }

    /// Serves until `shutdown` resolves, then stops accepting, drains the capture queue and saves
    /// session state. `ready` is called with the bound address once listening.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
        ready: impl FnOnce(&str),
    ) -> Result<(), Error> {
        check(&self.state.options)?;
        let _lock = lock_data_dir(&self.state.engine.config().data_dir)?;
        let router = app(self.state.clone());
        let flusher = {
            let engine = self.state.engine.clone();
            let every = Duration::from_millis(self.state.options.flush_ms.max(10));
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                loop {
                    tick.tick().await;
                    let e = engine.clone();
                    if let Ok(Err(err)) = tokio::task::spawn_blocking(move || e.flush_sessions()).await {
                        tracing::warn!("saving session state failed: {err}");
                    }
                }
            })
        };
        // Woken by commits to a shared store (`follow`); polling every `derive_ms` is the fallback.
        let woken = Arc::new(tokio::sync::Notify::new());
        let store_url = self.state.engine.config().store.url.clone();
        let _follower = store_url
            .filter(|_| self.state.options.follow_notifications)
            .map(|url| follow::Follower::start(url, woken.clone(), self.state.follow.clone()));
        let deriver = {
            let engine = self.state.engine.clone();
            let follow = self.state.follow.clone();
            let every = Duration::from_millis(self.state.options.derive_ms.max(10));
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                let mut last_errors: Vec<String> = Vec::new();
                let mut last_run = Instant::now();
                loop {
                    tokio::select! {
                        _ = tick.tick() => {}
                        () = woken.notified() => {
                            // The commits that arrive meanwhile are taken by this run or the next.
                            tokio::time::sleep(WAKE_GAP.saturating_sub(last_run.elapsed())).await;
                            tick.reset();
                        }
                    }
                    last_run = Instant::now();
                    let e = engine.clone();
                    let Ok(report) = tokio::task::spawn_blocking(move || e.refresh_derived()).await else {
                        continue;
                    };
                    follow.set_unreachable(report.unreachable, cairn_core::now_ms().max(0) as u64);
                    // Still behind without a failure (the capture worker held the index, a backlog to
                    // embed): go on soon rather than at the next poll or commit.
                    if report.behind && report.errors.is_empty() {
                        tick.reset_after(every.min(CATCH_UP));
                    }
                    if report.errors != last_errors {
                        for err in &report.errors {
                            tracing::warn!("refreshing vectors and graph: {err} (retried)");
                        }
                        last_errors = report.errors;
                    }
                }
            })
        };
        // Captured turns past `capture.retention_days`: forgotten at start, then every hour.
        let pruner = {
            let engine = self.state.engine.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(3600));
                loop {
                    tick.tick().await;
                    let e = engine.clone();
                    match tokio::task::spawn_blocking(move || e.prune_expired()).await {
                        Ok(Ok(f)) if !f.items.is_empty() => {
                            tracing::info!("retention: forgot {} captured turns", f.items.len())
                        }
                        Ok(Err(err)) => tracing::warn!("retention: {err} (retried in an hour)"),
                        _ => {}
                    }
                }
            })
        };
        let reloader = {
            let engine = self.state.engine.clone();
            // Installed before the daemon says it listens, like the shutdown handlers.
            let hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
            tokio::spawn(async move {
                let Some(mut hangup) = hangup else { return };
                while hangup.recv().await.is_some() {
                    let e = engine.clone();
                    match tokio::task::spawn_blocking(move || e.reload_routing()).await {
                        Ok(Ok(())) => tracing::info!("SIGHUP: routing config reloaded"),
                        Ok(Err(err)) => tracing::error!("SIGHUP: {err}"),
                        Err(err) => tracing::error!("SIGHUP: reload failed: {err}"),
                    }
                }
            })
        };
        // Each remote source's health, checked at start and then every `health_interval_ms`.
        let probers: Vec<_> = self
            .state
            .engine
            .source_schedule()
            .into_iter()
            .map(|(name, every)| {
                let engine = self.state.engine.clone();
                tokio::spawn(async move {
                    let mut tick = tokio::time::interval(every);
                    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    loop {
                        tick.tick().await;
                        let (e, n) = (engine.clone(), name.clone());
                        let _ = tokio::task::spawn_blocking(move || e.probe_source(&n)).await;
                    }
                })
            })
            .collect();
        let served = match &self.state.options.unix {
            Some(path) => {
                remove_stale_socket(path)?;
                let listener = tokio::net::UnixListener::bind(path)
                    .map_err(|source| Error::Bind { what: path.display().to_string(), source })?;
                ready(&format!("unix:{}", path.display()));
                axum::serve(listener, router.into_make_service()).with_graceful_shutdown(shutdown).await
            }
            None => {
                let addr = self.state.options.addr;
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|source| Error::Bind { what: addr.to_string(), source })?;
                let local = listener.local_addr()?;
                ready(&format!("http://{local}"));
                axum::serve(listener, router.into_make_service()).with_graceful_shutdown(shutdown).await
            }
        };
        flusher.abort();
        deriver.abort();
        for p in &probers {
            p.abort();
        }
        pruner.abort();
        reloader.abort();
        // Finish every queued capture, then save session state.
        let worker = self.worker;
        let engine = self.state.engine.clone();
        let drained = tokio::task::spawn_blocking(move || {
            let n = worker.shutdown();
            (n, engine.flush_sessions())
        })
        .await;
        match drained {
            Ok((_, Err(e))) => tracing::warn!("saving session state failed: {e}"),
            Err(e) => tracing::error!("shutdown failed: {e}"),
            Ok(_) => {}
        }
        if let Some(path) = &self.state.options.unix {
            let _ = std::fs::remove_file(path);
        }
        served.map_err(Error::Io)
    }
}

/// Removes a socket left by an earlier daemon at `path`; anything else there is an error (never
/// deleted).
fn remove_stale_socket(path: &std::path::Path) -> Result<(), Error> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => std::fs::remove_file(path)
            .map_err(|source| Error::Bind { what: path.display().to_string(), source }),
        Ok(_) => Err(Error::NotASocket(path.to_owned())),
        Err(_) => Ok(()),
    }
}

/// Takes `<data_dir>/serve.lock` for as long as the returned file lives: one daemon per data dir.
fn lock_data_dir(data_dir: &std::path::Path) -> Result<std::fs::File, Error> {
    let path = data_dir.join("serve.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| Error::Bind { what: path.display().to_string(), source })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::AlreadyRunning(data_dir.to_owned())),
        Err(std::fs::TryLockError::Error(source)) => {
            Err(Error::Bind { what: path.display().to_string(), source })
        }
    }
}

/// The token file of a data dir.
pub fn token_path(data_dir: &std::path::Path) -> PathBuf {
    data_dir.join("serve.token")
}

/// The daemon's token: the one in `<data_dir>/serve.token`, or a new random one written there first
/// (mode 0600, created exclusively so two starts never write two tokens).
pub fn load_or_create_token(data_dir: &std::path::Path) -> std::io::Result<String> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let path = token_path(data_dir);
    if let Ok(t) = std::fs::read_to_string(&path)
        && !t.trim().is_empty()
    {
        return Ok(t.trim().to_owned());
    }
    std::fs::create_dir_all(data_dir)?;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let _ = std::fs::remove_file(&path);
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path)?;
    f.write_all(token.as_bytes())?;
    f.sync_all()?;
    Ok(token)
}

/// Resolves when standard input reaches its end (or fails): a starter that holds the write end of a pipe
/// to the daemon's stdin takes the daemon with it however the starter exits, even killed outright.
/// The read runs on its own thread (stdin cannot be read without blocking), which the process's exit ends.
pub fn stdin_closed() -> impl std::future::Future<Output = ()> + Send + 'static {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = tx.send(());
    });
    async move {
        let _ = rx.await;
    }
}

/// Resolves on SIGINT or SIGTERM. The handlers are installed when this is called (within the runtime),
/// not when the future is first polled: a signal that arrives between start-up and serving is not lost.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).ok();
    let mut term = signal(SignalKind::terminate()).ok();
    async move {
        let wait = |s: Option<tokio::signal::unix::Signal>| async move {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = wait(int.take()) => {},
            () = wait(term.take()) => {},
        }
    }
}
