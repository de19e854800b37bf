//! Write-side commands: `init`, `harvest`, `capture`, `watch`, `status`.

use std::io::{IsTerminal, Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use cairn_core::Audience;
use cairn_ingest::{CaptureOutcome, FileAction, HarvestReport, HarvestRequest, TurnInput};
use cairn_store::{SqliteStore, Store};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::settings::Settings;

/// The commented config `cairn init` writes.
pub(crate) const CONFIG_TEMPLATE: &str = include_str!("../../assets/cairn.toml");

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Where to write the config
    #[arg(default_value = "cairn.toml")]
    pub path: PathBuf,
    /// Overwrite an existing file
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HarvestArgs {
    /// Only these files or folders (default: every configured memory folder)
    pub paths: Vec<PathBuf>,
    /// Show what would change; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// List every file and what happened to it
    #[arg(long, short)]
    pub verbose: bool,
    /// Re-index every file, changed or not
    #[arg(long)]
    pub force: bool,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CaptureArgs {
    /// Audience of the turn (until the session decides it)
    #[arg(long)]
    pub audience: Option<Audience>,
    /// Project of the turn
    #[arg(long)]
    pub project: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn open_store(settings: &Settings) -> anyhow::Result<SqliteStore> {
    let path = settings.store_path();
    SqliteStore::open(&path).with_context(|| format!("opening the store `{}`", path.display()))
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

pub(crate) fn init(args: InitArgs) -> anyhow::Result<ExitCode> {
    if args.path.exists() && !args.force {
        anyhow::bail!("`{}` already exists\n\nhint: pass `--force` to overwrite it", args.path.display());
    }
    std::fs::write(&args.path, CONFIG_TEMPLATE)
        .with_context(|| format!("writing `{}`", args.path.display()))?;
    eprintln!("wrote `{}`", args.path.display());
    Ok(ExitCode::SUCCESS)
}

struct Bar(ProgressBar);

impl cairn_ingest::Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

fn progress_bar(enabled: bool) -> ProgressBar {
    if !enabled || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{spinner} harvesting [{bar:30}] {pos}/{len} files ({per_sec})")
            .expect("static template")
            .progress_chars("=> "),
    );
    bar
}

/// Run a harvest and everything that follows a write (index sync).
pub(crate) fn run_harvest(
    settings: &Settings,
    store: &mut SqliteStore,
    paths: Vec<PathBuf>,
    dry_run: bool,
    force: bool,
    show_progress: bool,
) -> anyhow::Result<HarvestReport> {
    let root = &settings.workspace;
    if !root.is_dir() {
        anyhow::bail!(
            "workspace `{}` does not exist\n\nhint: pass `--workspace DIR` or set `workspace` in cairn.toml",
            root.display()
        );
    }
    let req = HarvestRequest { root: root.clone(), paths, dry_run, force };
    let bar = Bar(progress_bar(show_progress));
    let run = if dry_run { None } else { Some(store.begin_harvest(&root.display().to_string(), now_ms())?) };
    let report = cairn_ingest::harvest(store, &settings.harvest, &req, &bar)?;
    if let Some(run) = run {
        let mut summary = serde_json::to_value(&report)?;
        if let Some(o) = summary.as_object_mut() {
            o.remove("files");
            o.remove("problems");
        }
        store.finish_harvest(run, now_ms(), &summary)?;
        crate::commands::context::sync(settings, store)?;
    }
    Ok(report)
}

fn print_report(report: &HarvestReport, verbose: bool, root: &Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if verbose {
        for f in &report.files {
            let path = &f.path;
            let a = match f.action {
                FileAction::New => "new",
                FileAction::Updated => "updated",
                FileAction::Unchanged => "unchanged",
                FileAction::Deleted => "deleted",
                FileAction::Failed => "failed",
            };
            writeln!(out, "{a:>9}  {path}")?;
        }
    }
    writeln!(
        out,
        "{}harvested `{}`: {} new, {} updated, {} unchanged, {} deleted, {} failed ({} chunks) in {} ms",
        if report.dry_run { "(dry run) " } else { "" },
        root.display(),
        report.new,
        report.updated,
        report.unchanged,
        report.deleted,
        report.failed,
        report.chunks,
        report.elapsed_ms
    )?;
    Ok(())
}

pub(crate) fn harvest(args: HarvestArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut store = open_store(settings)?;
    let report = run_harvest(settings, &mut store, args.paths, args.dry_run, args.force, !args.json)?;
    for p in &report.problems {
        eprintln!("warning: {p}");
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report, args.verbose, &settings.workspace)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn capture(args: CaptureArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut raw = String::new();
    std::io::stdin().read_to_string(&mut raw).context("reading the turn from stdin")?;
    let mut input: TurnInput = serde_json::from_str(&raw).context("parsing the turn JSON on stdin")?;
    if args.audience.is_some() {
        input.audience = args.audience;
    }
    if args.project.is_some() {
        input.project = args.project;
    }
    let mut store = open_store(settings)?;
    let outcome = cairn_ingest::capture(&mut store, &settings.capture, &input, now_ms())?;
    if matches!(outcome, CaptureOutcome::Stored { .. }) {
        crate::commands::context::sync(settings, &store)?;
    }
    outln!("{}", serde_json::to_string(&outcome)?);
    if let CaptureOutcome::Skipped { reason } = &outcome {
        eprintln!("skipped: {reason}");
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn watch(settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut store = open_store(settings)?;
    let report = run_harvest(settings, &mut store, vec![], false, false, true)?;
    print_report(&report, false, &settings.workspace)?;
    let root = settings.workspace.canonicalize()?;
    eprintln!("watching `{}` (Ctrl-C to stop)", root.display());
    let stop = AtomicBool::new(false);
    cairn_ingest::watch::watch(
        &root,
        Duration::from_millis(settings.watch.debounce_ms),
        &stop,
        |paths| {
            let started = Instant::now();
            let rel: Vec<PathBuf> = paths
                .iter()
                .filter_map(|p| cairn_ingest::harvest::relative(&root, p))
                .filter(|r| !r.is_empty())
                .map(PathBuf::from)
                .collect();
            if rel.is_empty() {
                return;
            }
            match run_harvest(settings, &mut store, rel, false, false, false) {
                Ok(r) => {
                    for p in &r.problems {
                        eprintln!("warning: {p}");
                    }
                    if r.new + r.updated + r.deleted + r.failed > 0 {
                        let _ = writeln!(
                            std::io::stdout().lock(),
                            "re-indexed: {} new, {} updated, {} deleted, {} failed in {} ms",
                            r.new,
                            r.updated,
                            r.deleted,
                            r.failed,
                            started.elapsed().as_millis()
                        );
                    }
                }
                Err(e) => eprintln!("error: {e:#}"),
            }
        },
        |err| eprintln!("warning: watcher: {err}"),
    )?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn status(args: StatusArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let path = settings.store_path();
    if !path.exists() {
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            path.display()
        );
    }
    let store = open_store(settings)?;
    let st = store.status()?;
    if args.json {
        let mut v = serde_json::to_value(&st)?;
        v["store_path"] = serde_json::Value::String(path.display().to_string());
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "store:     {} (schema v{})", path.display(), st.schema_version)?;
    writeln!(out, "items:     {} ({} chunks), log seq {}", st.items, st.chunks, st.last_seq)?;
    let fmt = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    writeln!(out, "kinds:     {}", fmt(&st.per_kind))?;
    writeln!(out, "projects:  {}", fmt(&st.per_project))?;
    writeln!(out, "audience:  {}", fmt(&st.per_audience))?;
    writeln!(out, "sessions:  {} ({} turns)", st.sessions, st.turns)?;
    match &st.last_harvest {
        Some(h) => {
            let when = h
                .finished_at
                .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
                .map_or_else(|| "?".to_owned(), |t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string());
            writeln!(out, "harvested: {when} from `{}`", h.root)?;
        }
        None => writeln!(out, "harvested: never")?,
    }
    Ok(ExitCode::SUCCESS)
}
