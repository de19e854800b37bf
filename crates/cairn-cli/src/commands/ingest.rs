//! Write-side commands: `init`, `harvest`, `capture`, `watch`, `status`.

use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use cairn_core::Audience;
use cairn_engine::{CaptureOutcome, Engine, FileAction, HarvestReport, HarvestRequest, TurnInput};

use clap::Args;

use crate::commands::context::Bar;
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
    /// Delete even when the run would remove more than `harvest.max_delete_share` of the stored files,
    /// or the workspace has no memory file at all
    #[arg(long)]
    pub allow_mass_delete: bool,
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
pub(crate) struct WatchArgs {
    /// One JSON object per line for the first harvest and each re-index
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
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

/// Run a harvest and everything that follows a write (index sync, embedding) through `engine`.
pub(crate) fn run_harvest(
    settings: &Settings,
    engine: &Engine,
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
    let started = Instant::now();
    let files = Stages {
        bar: Bar::new(show_progress, "{spinner} harvesting [{bar:30}] {pos}/{len} files ({rate})"),
        then: "{spinner} indexing the changed files…",
    };
    let chunks = AfterStage { before: &files.bar, bar: Bar::embedding(show_progress) };
    let outcome = engine.harvest(&req, &files, &chunks);
    files.bar.0.finish_and_clear();
    let mut report = outcome?.report;
    // "in N ms" covers the whole run: parsing, the index and the embedding that followed.
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// The harvest bar, which turns into a spinner for the stage after it (the index sync) instead of
/// leaving the screen blank; cleared when the harvest returns.
struct Stages {
    bar: Bar,
    then: &'static str,
}

/// A stage's bar that clears the one `before` it when it starts (one line on the terminal at a time).
struct AfterStage<'a> {
    before: &'a Bar,
    bar: Bar,
}

impl cairn_core::Progress for AfterStage<'_> {
    fn start(&self, total: u64) {
        self.before.0.finish_and_clear();
        self.bar.start(total);
    }
    fn inc(&self, n: u64) {
        self.bar.inc(n);
    }
    fn finish(&self) {
        self.bar.finish();
    }
}

impl cairn_core::Progress for Stages {
    fn start(&self, total: u64) {
        self.bar.start(total);
    }
    fn inc(&self, n: u64) {
        self.bar.inc(n);
    }
    fn finish(&self) {
        if let Ok(style) = indicatif::ProgressStyle::with_template(self.then)
            && !self.bar.0.is_finished()
        {
            self.bar.0.set_style(style);
        }
    }
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
                FileAction::Skipped => "skipped",
                FileAction::Kept => "kept",
            };
            writeln!(out, "{a:>9}  {path}")?;
        }
    }
    let mut extra = String::new();
    if report.skipped > 0 {
        extra.push_str(&format!(", {} skipped", report.skipped));
    }
    if report.kept > 0 {
        extra.push_str(&format!(", {} kept (not seen, not deleted)", report.kept));
    }
    if !report.warnings.is_empty() {
        extra.push_str(&format!(", {} warnings", report.warnings.len()));
    }
    writeln!(
        out,
        "{}harvested `{}`: {} new, {} updated, {} unchanged, {} deleted, {} failed{extra} ({} chunks) in {} ms",
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

/// Problems, skipped entries and warnings on stderr, each with its path (and line).
fn print_problems(report: &HarvestReport) {
    for p in report.problems.iter().chain(&report.warnings) {
        eprintln!("warning: {p}");
    }
    for p in &report.skipped_entries {
        eprintln!("skipped: {p}");
    }
}

pub(crate) fn harvest(args: HarvestArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut settings = settings.clone();
    settings.harvest.allow_mass_delete |= args.allow_mass_delete;
    // Paths are tried relative to the workspace, then to the current directory; one that names
    // nothing in the workspace is an error, not a run that does nothing.
    settings.harvest.cwd = Some(std::env::current_dir().context("reading the current directory")?);
    let settings = &settings;
    let engine = settings.engine();
    let restricted = !args.paths.is_empty();
    let report = run_harvest(settings, &engine, args.paths.clone(), args.dry_run, args.force, !args.json)?;
    print_problems(&report);
    if restricted
        && report.scanned + report.deleted + report.kept + report.skipped + report.problems.len() == 0
    {
        eprintln!(
            "warning: no memory file under {}: `harvest.include` ({}) matches nothing there",
            args.paths.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(", "),
            settings.harvest.include.join(", ")
        );
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
    let outcome = settings.engine().capture(&input)?;
    outln!("{}", serde_json::to_string(&outcome)?);
    if let CaptureOutcome::Skipped { reason } = &outcome {
        eprintln!("skipped: {reason}");
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn watch(args: WatchArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = settings.engine();
    let report = run_harvest(settings, &engine, vec![], false, false, !args.json)?;
    print_problems(&report);
    if args.json {
        let mut v = serde_json::to_value(&report)?;
        if let Some(o) = v.as_object_mut() {
            o.remove("files");
        }
        outln!("{}", serde_json::to_string(&serde_json::json!({"event": "harvested", "report": v}))?);
    } else {
        print_report(&report, false, &settings.workspace)?;
    }
    let root = settings.workspace.canonicalize()?;
    eprintln!("watching `{}` (Ctrl-C to stop)", root.display());
    let stop = AtomicBool::new(false);
    let json = args.json;
    follow_workspace(settings, &engine, &root, &stop, &|r, line| {
        let mut out = std::io::stdout().lock();
        let _ = if json {
            let mut v = serde_json::to_value(r).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.remove("files");
            }
            writeln!(out, "{}", serde_json::json!({"event": "reindexed", "report": v}))
        } else {
            writeln!(out, "{line}")
        };
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Re-harvests the files of `root` (the canonical workspace) that change, within about a second of
/// each save, until `stop` is set: `cairn watch` and `cairn serve --watch`. Each run that changed
/// something is told to `say`, with its report and a line (`re-indexed: 1 new, …`, the elapsed time
/// in the report's `elapsed_ms`); problems go to stderr.
pub(crate) fn follow_workspace(
    settings: &Settings,
    engine: &Engine,
    root: &Path,
    stop: &AtomicBool,
    say: &dyn Fn(&HarvestReport, String),
) -> anyhow::Result<()> {
    cairn_engine::watch::watch(
        root,
        Duration::from_millis(settings.watch.debounce_ms),
        stop,
        |paths| {
            let started = Instant::now();
            let rel: Vec<PathBuf> = paths
                .iter()
                .filter_map(|p| cairn_engine::relative_path(root, p))
                .filter(|r| !r.is_empty())
                .map(PathBuf::from)
                .collect();
            if rel.is_empty() {
                return;
            }
            match run_harvest(settings, engine, rel, false, false, false) {
                Ok(r) => {
                    print_problems(&r);
                    if r.new + r.updated + r.deleted + r.failed > 0 {
                        let line = format!(
                            "re-indexed: {} new, {} updated, {} deleted, {} failed in {} ms",
                            r.new,
                            r.updated,
                            r.deleted,
                            r.failed,
                            started.elapsed().as_millis()
                        );
                        say(&r, line);
                    }
                }
                Err(e) => eprintln!("error: {e:#}"),
            }
        },
        |err| eprintln!("warning: watcher: {err}"),
    )?;
    Ok(())
}

/// Harvests the workspace once, then follows it ([`follow_workspace`]) until `stop` is set: the
/// daemon's own watcher (`cairn serve --watch`). Never fails the daemon: problems go to stderr.
pub(crate) fn harvest_and_follow(settings: &Settings, engine: &Engine, stop: &AtomicBool) {
    let say = |line: String| eprintln!("cairn serve: {line}");
    let said = |_: &HarvestReport, line: String| say(line);
    match run_harvest(settings, engine, vec![], false, false, false) {
        Ok(r) => {
            print_problems(&r);
            say(format!(
                "harvested `{}`: {} new, {} updated, {} deleted, {} unchanged",
                settings.workspace.display(),
                r.new,
                r.updated,
                r.deleted,
                r.unchanged
            ));
        }
        Err(e) => eprintln!("cairn serve: harvesting `{}`: {e:#}", settings.workspace.display()),
    }
    let root = match settings.workspace.canonicalize() {
        Ok(r) => r,
        Err(e) => return eprintln!("cairn serve: not watching `{}`: {e}", settings.workspace.display()),
    };
    say(format!("watching `{}`", root.display()));
    if let Err(e) = follow_workspace(settings, engine, &root, stop, &said) {
        eprintln!("cairn serve: watching `{}` stopped: {e:#}", root.display());
    }
}

pub(crate) fn status(args: StatusArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let path = settings.store_path();
    let reviews = cairn_aci::draft::pending(&settings.workspace.join(&settings.aci.queue_file));
    if !settings.has_store() {
        // Drafts can await review before anything was harvested.
        for r in &reviews {
            outln!("review:    {}", r.trim_start_matches("- [ ] "));
        }
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            path.display()
        );
    }
    let st = settings.engine().store_status()?;
    let config = settings
        .config_file
        .as_ref()
        .map_or_else(|| "none (defaults)".to_owned(), |p| p.display().to_string());
    let route = &settings.route.config_dir;
    let route = if route.is_dir() {
        route.display().to_string()
    } else {
        format!("none (`{}` missing)", route.display())
    };
    let model = match settings.embed.provider {
        cairn_engine::settings::EmbedProvider::None => "none (lexical recall only)".to_owned(),
        cairn_engine::settings::EmbedProvider::Http => format!("http: {}", settings.embed.http.base_url),
        cairn_engine::settings::EmbedProvider::Local => {
            let dir = settings.embed.local_model_dir(&settings.data_dir);
            if dir.is_dir() {
                dir.display().to_string()
            } else {
                format!("none (`{}` missing)", dir.display())
            }
        }
    };
    if args.json {
        let mut v = serde_json::to_value(&st)?;
        v["reviews"] = serde_json::json!(reviews);
        v["store_path"] = serde_json::Value::String(path.display().to_string());
        v["config_file"] = serde_json::json!(settings.config_file);
        v["route_config"] = serde_json::Value::String(route);
        v["model"] = serde_json::Value::String(model);
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "config:    {config}")?;
    writeln!(out, "routing:   {route}")?;
    writeln!(out, "model:     {model}")?;
    writeln!(out, "store:     {} (schema v{})", path.display(), st.schema_version)?;
    writeln!(out, "items:     {} ({} chunks), log seq {}", st.items, st.chunks, st.last_seq)?;
    let fmt = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    writeln!(out, "kinds:     {}", fmt(&st.per_kind))?;
    writeln!(out, "projects:  {}", fmt(&st.per_project))?;
    writeln!(out, "audience:  {}", fmt(&st.per_audience))?;
    writeln!(out, "sessions:  {} ({} turns)", st.sessions, st.turns)?;
    for r in &reviews {
        writeln!(out, "review:    {}", r.trim_start_matches("- [ ] "))?;
    }
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
