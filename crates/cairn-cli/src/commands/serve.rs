//! `cairn serve` (the HTTP daemon) and `cairn mcp` (the MCP server over stdio).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;
use cairn_engine::{Engine, EngineConfig};
use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on (default: `serve.addr`, 127.0.0.1:7411)
    #[arg(long)]
    pub addr: Option<SocketAddr>,
    /// Port on 127.0.0.1 (shorthand for `--addr 127.0.0.1:PORT`)
    #[arg(long, conflicts_with = "addr")]
    pub port: Option<u16>,
    /// Listen on a Unix socket instead of TCP
    #[arg(long)]
    pub unix: Option<PathBuf>,
    /// Bearer token clients must send (default: `serve.token`, CAIRN_SERVE__TOKEN, else the one generated
    /// into `<data_dir>/serve.token` on first start)
    #[arg(long)]
    pub token: Option<String>,
    /// Harvest the workspace, then re-index each save, inside the daemon (default: `watch.serve`, on
    /// when the workspace exists)
    #[arg(long, overrides_with = "no_watch")]
    pub watch: bool,
    /// Do not harvest or watch the workspace
    #[arg(long)]
    pub no_watch: bool,
    /// Stop (as on SIGTERM) when standard input closes: a host that starts the daemon with a pipe on its
    /// stdin takes it along however the host exits, even killed
    #[arg(long)]
    pub exit_with_stdin: bool,
}

/// A long-lived engine over the settings: everything opened now, what is degraded reported once.
fn open_engine(settings: &Settings) -> anyhow::Result<Arc<Engine>> {
    let cfg = EngineConfig::from(settings);
    if cfg.route_dir.is_none() {
        eprintln!(
            "warning: routing config `{}` not found: serving memory without packs",
            settings.route.config_dir.display()
        );
    }
    let engine = Engine::open(cfg)
        .with_context(|| format!("opening the store in `{}`", settings.data_dir.display()))?;
    for p in engine.problems() {
        eprintln!("warning: {p}");
    }
    Ok(Arc::new(engine))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .max_blocking_threads(cores * 4)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub(crate) fn serve(args: ServeArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut options = settings.serve.clone();
    if let Some(a) = args.addr {
        options.addr = a;
    }
    if let Some(p) = args.port {
        options.addr = SocketAddr::from(([127, 0, 0, 1], p));
    }
    if args.unix.is_some() {
        options.unix = args.unix;
    }
    if args.token.is_some() {
        options.token = args.token;
    }
    cairn_serve::check(&options)?;
    if options.token.is_none() {
        let token = cairn_serve::load_or_create_token(&settings.data_dir).with_context(|| {
            format!("writing the token `{}`", cairn_serve::token_path(&settings.data_dir).display())
        })?;
        options.token = Some(token);
    }
    let watch = match (args.watch, args.no_watch) {
        (_, true) => false,
        (true, _) if !settings.workspace.is_dir() => anyhow::bail!(
            "workspace `{}` does not exist: nothing to watch\n\nhint: pass `--workspace DIR`",
            settings.workspace.display()
        ),
        (true, _) => true,
        _ => settings.watch.serve && settings.workspace.is_dir(),
    };
    let engine = open_engine(settings)?;
    let rt = runtime()?;
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = rt.block_on(async {
        let daemon = cairn_serve::Daemon::new(engine.clone(), options);
        let mut watcher = None;
        let listening = |at: &str| {
            eprintln!("cairn serve: listening on {at}");
            // Once the daemon answers: the first harvest of a large workspace never delays it.
            if watch {
                let (settings, engine, stop) = (settings.clone(), engine.clone(), stop.clone());
                watcher = Some(std::thread::spawn(move || {
                    crate::commands::ingest::harvest_and_follow(&settings, &engine, &stop)
                }));
            }
        };
        let signal = cairn_serve::shutdown_signal();
        let lifeline = args.exit_with_stdin.then(cairn_serve::stdin_closed);
        let shutdown = async move {
            match lifeline {
                Some(closed) => tokio::select! {
                    () = signal => {},
                    () = closed => eprintln!("cairn serve: standard input closed: stopping"),
                },
                None => signal.await,
            }
        };
        daemon.run(shutdown, listening).await.map(|()| watcher)
    })?;
    stop.store(true, Ordering::Relaxed);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    eprintln!("cairn serve: stopped (queue drained, session state saved)");
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Answer as this host session (its key decides the audience) instead of the owner
    #[arg(long, conflicts_with = "audience")]
    pub session_key: Option<String>,
    /// `public`: answer with public memory only (default: the owner, private memory included)
    #[arg(long)]
    pub audience: Option<cairn_core::Audience>,
}

pub(crate) fn mcp(args: McpArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    use cairn_serve::mcp::Identity;
    let identity = match (args.session_key, args.audience) {
        (Some(k), _) if !k.trim().is_empty() => Identity::Session(k),
        (_, Some(cairn_core::Audience::Public)) => Identity::Public,
        _ => Identity::Owner,
    };
    let engine = open_engine(settings)?;
    let rt = runtime()?;
    rt.block_on(cairn_serve::mcp::serve_stdio(engine, identity))
        .map_err(|e| anyhow::anyhow!("MCP server: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
