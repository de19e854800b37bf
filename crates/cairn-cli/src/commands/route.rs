//! Routing commands: `intent-test`, `rules audit`, `rules monitor`, `bootstrap`, `eval intents`.
//!
//! Exit codes: 0 when the check passes, 1 when it fails (audit errors, accuracy below the
//! threshold, a pack over the injection-rate limit, bootstrap files over the token target or
//! missing), 2 on errors (handled in `main`).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use cairn_route::{
    CandidateStatus, Decision, DecisionRecord, EntitySummary, InjectionMonitor, Router, SessionState,
    SessionsConfig, Severity, TurnInput, classify_session,
};
use clap::{Args, Subcommand};

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct IntentTestArgs {
    /// The prompt to classify
    pub prompt: String,
    /// Session key the prompt arrives on (default: none, i.e. the owner)
    #[arg(long)]
    pub session_key: Option<String>,
    /// JSON file with recall results for entity boosts: `[{"summary": ..., "facts": [...]}]`
    #[arg(long)]
    pub entities: Option<PathBuf>,
    /// Intent (rule id) the previous turn injected, to try sticky follow-ups
    #[arg(long)]
    pub previous_intent: Option<String>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RulesCommand {
    /// Fail on overlapping keywords, bad regexes, missing profiles/packs/paths
    Audit(AuditArgs),
    /// Per-pack injection rates over recorded decisions; fail when a pack is injected too often
    Monitor(MonitorArgs),
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct MonitorArgs {
    /// JSON-lines file of decision records (`{"at": ms, "primary_pack": ..., ...}` per line)
    pub log: PathBuf,
    /// Flag a pack injected on more than this share of turns (default: config `monitor.max_rate`)
    #[arg(long)]
    pub max_rate: Option<f64>,
    /// Window length in seconds, ending at `--now` (default: config `monitor.window_secs`)
    #[arg(long)]
    pub window_secs: Option<u64>,
    /// Minimum turns in the window before anything is flagged (default: config `monitor.min_turns`)
    #[arg(long)]
    pub min_turns: Option<usize>,
    /// End of the window, ms since the epoch (default: now)
    #[arg(long)]
    pub now: Option<i64>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct BootstrapArgs {
    /// Session key to classify
    #[arg(long)]
    pub session_key: String,
    /// Workspace whose bootstrap files are counted (default: settings)
    #[arg(long = "in-workspace")]
    pub workspace: Option<PathBuf>,
    /// Token target for the whole set (default: `token_target` in sessions.yaml, else 500)
    #[arg(long)]
    pub max_tokens: Option<usize>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EvalIntentsArgs {
    /// JSON file of cases
    pub cases: PathBuf,
    /// Minimum accuracy (0..1) for exit code 0
    #[arg(long, default_value_t = 0.9)]
    pub threshold: f64,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

/// The seed's per-session bootstrap target.
const DEFAULT_TOKEN_TARGET: usize = 500;

fn load_router(settings: &Settings) -> anyhow::Result<Router> {
    let dir = &settings.route.config_dir;
    Router::load(dir).with_context(|| format!("cannot load the routing config from `{}`", dir.display()))
}

fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn emit_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    emit(&(serde_json::to_string_pretty(value)? + "\n"))
}

fn read_entities(path: &Path) -> anyhow::Result<Vec<EntitySummary>> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum File {
        List(Vec<EntitySummary>),
        Wrapped { entities: Vec<EntitySummary> },
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let file: File = serde_json::from_str(&text).with_context(|| {
        format!(
            "`{}` is not a JSON list of `{{\"summary\": ..., \"facts\": [...]}}` entities",
            path.display()
        )
    })?;
    Ok(match file {
        File::List(l) | File::Wrapped { entities: l } => l,
    })
}

pub(crate) fn intent_test(args: IntentTestArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let router = load_router(settings)?;
    let entities = match &args.entities {
        Some(p) => read_entities(p)?,
        None => Vec::new(),
    };
    let input = TurnInput {
        prompt: &args.prompt,
        session_key: args.session_key.as_deref(),
        entities: &entities,
        previous_intent: args.previous_intent.as_deref(),
        now: cairn_core::now_ms(),
        shared: false,
    };
    let decision = router.decide(&input, &mut SessionState::default());
    if args.json {
        emit_json(&decision)?;
    } else {
        emit(&render_decision(&decision))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn render_decision(d: &Decision) -> String {
    let mut s = String::new();
    match (&d.intent, &d.primary_pack) {
        (Some(intent), Some(pack)) if d.injected() => {
            let _ = write!(s, "decision: inject `{intent}` → pack `{pack}`");
            if !d.composed.is_empty() {
                let _ = write!(
                    s,
                    " + {}",
                    d.composed.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                );
            }
            let _ = writeln!(
                s,
                " (scope {}{})",
                d.scope.map_or("?", |a| a.as_str()),
                if d.sticky { ", sticky follow-up" } else { "" }
            );
        }
        _ => {
            let _ = writeln!(s, "decision: no pack ({})", outcome_label(d));
        }
    }
    if let Some(t) = d.session_type {
        let _ = writeln!(s, "session: {t}{}", if d.audience_shared { " (shared audience)" } else { "" });
    }
    if !d.scores.is_empty() {
        s.push_str("scores:\n");
        for r in &d.scores {
            let status = match &r.status {
                CandidateStatus::Winner => "winner".to_owned(),
                CandidateStatus::Lost => "lost".to_owned(),
                CandidateStatus::Tied => "tied".to_owned(),
                CandidateStatus::BelowThreshold => format!("below min_confidence {}", r.min_confidence),
                CandidateStatus::Suppressed { by } => format!("suppressed by {}", by.join(", ")),
            };
            let _ = writeln!(
                s,
                "  {:<20} {:>6.2}  [{status}]  keywords: {}{}",
                r.rule,
                r.score,
                r.keywords.join(", "),
                if r.boosts.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; boosts: {}",
                        r.boosts
                            .iter()
                            .map(|b| format!("+{} /{}/", b.weight, b.pattern))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            );
        }
    }
    s.push_str("trace:\n");
    for t in &d.trace {
        let _ = writeln!(s, "  - {t}");
    }
    for k in &d.skipped {
        let _ = writeln!(
            s,
            "skipped: `{}`{}: {}",
            k.pack_type,
            k.mode.as_deref().map(|m| format!(" ({m})")).unwrap_or_default(),
            k.reason
        );
    }
    if let Some(block) = &d.pack_block {
        s.push('\n');
        s.push_str(block);
        s.push('\n');
    }
    s
}

fn outcome_label(d: &Decision) -> String {
    use cairn_route::Outcome::*;
    match &d.outcome {
        Injected => "injected".into(),
        Sticky => "sticky".into(),
        NoMatch => "no keyword matched".into(),
        BelowThreshold => "below min_confidence".into(),
        Suppressed => "suppressed by an entity boost".into(),
        Tie { intents } => format!("tie between {}", intents.join(", ")),
        ScopeBlocked { intent } => format!("`{intent}` is private and the audience is shared"),
        PrimaryUnavailable { intent, pack } => format!("`{intent}`: primary pack `{pack}` is disabled"),
        RequiredUnavailable { intent, pack_type, reason } => {
            format!("`{intent}`: required pack type `{pack_type}` unavailable ({reason})")
        }
        Error { message } => format!("error: {message}"),
    }
}

pub(crate) fn rules(cmd: RulesCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    match cmd {
        RulesCommand::Audit(args) => audit(args, settings),
        RulesCommand::Monitor(args) => monitor(args, settings),
    }
}

fn audit(args: AuditArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let report = cairn_route::audit(&settings.route.config_dir);
    if args.json {
        emit_json(&report)?;
    } else {
        let mut s = String::new();
        for f in &report.findings {
            let sev = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let _ = write!(s, "{sev}[{}]: {}", f.check, f.file.display());
            if let Some(l) = f.line {
                let _ = write!(s, ":{l}");
            }
            if !f.field.is_empty() {
                let _ = write!(s, ": `{}`", f.field);
            }
            let _ = writeln!(s, ": {}", f.message);
        }
        let errors = report.findings.iter().filter(|f| f.severity == Severity::Error).count();
        let warnings = report.findings.len() - errors;
        let _ = writeln!(
            s,
            "audit {}: {} rules, {} packs, {errors} error(s), {warnings} warning(s) in `{}`",
            if report.passed() { "passed" } else { "failed" },
            report.rules,
            report.packs,
            report.dir.display()
        );
        emit(&s)?;
    }
    Ok(if report.passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn monitor(args: MonitorArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut m = match cairn_route::RouteConfig::load(&settings.route.config_dir) {
        Ok(cfg) => InjectionMonitor::from_config(&cfg),
        Err(_) => InjectionMonitor::default(),
    };
    if let Some(r) = args.max_rate {
        anyhow::ensure!((0.0..=1.0).contains(&r), "`--max-rate` must be between 0 and 1");
        m.max_rate = r;
    }
    if let Some(w) = args.window_secs {
        m.window_ms = i64::try_from(w).unwrap_or(i64::MAX / 1000).saturating_mul(1000);
    }
    if let Some(t) = args.min_turns {
        m.min_turns = t;
    }
    let text = std::fs::read_to_string(&args.log)
        .with_context(|| format!("cannot read `{}`", args.log.display()))?;
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let r: DecisionRecord = serde_json::from_str(line)
            .with_context(|| format!("`{}` line {}: not a decision record", args.log.display(), i + 1))?;
        records.push(r);
    }
    let report = m.report(&records, args.now.unwrap_or_else(cairn_core::now_ms));
    let flagged = report.flagged().count();
    if args.json {
        emit_json(&serde_json::json!({ "monitor": m, "report": report }))?;
    } else {
        let mut s = format!("turns in window: {} ({} with a pack)\n", report.turns, report.injected);
        for p in &report.packs {
            let _ = writeln!(
                s,
                "  {:<24} {:>5} turns  {:>5.1} %{}",
                p.pack,
                p.count,
                p.rate * 100.0,
                if p.flagged { "  FLAGGED: keywords likely too broad" } else { "" }
            );
        }
        let _ =
            writeln!(s, "{flagged} pack(s) over {:.0} % (minimum {} turns)", m.max_rate * 100.0, m.min_turns);
        emit(&s)?;
    }
    Ok(if flagged == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

#[derive(serde::Serialize)]
struct BootstrapFile {
    file: String,
    tokens: Option<usize>,
}

/// The session file sets: the routing config's, else the defaults (with a warning).
pub(crate) fn sessions_config(settings: &Settings) -> anyhow::Result<SessionsConfig> {
    let dir = &settings.route.config_dir;
    Ok(if dir.exists() {
        SessionsConfig::load(dir)
            .with_context(|| format!("cannot load `sessions` from `{}`", dir.display()))?
    } else {
        eprintln!("warning: routing config `{}` not found; using the default file sets", dir.display());
        SessionsConfig::default()
    })
}

pub(crate) fn bootstrap(args: BootstrapArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let sessions = sessions_config(settings)?;
    let mut info = classify_session(&args.session_key, &sessions);
    // The tiered bootstrap switched off: every bootstrap file, as the host injects them in bulk.
    if cairn_aci::backup::is_bulk(&settings.data_dir) {
        info.files = settings.aci.bulk_files.clone();
        info.reason = format!("{}; the tiered bootstrap is off (bulk injection)", info.reason);
    }
    let workspace = args.workspace.clone().unwrap_or_else(|| settings.workspace.clone());
    let tokenizer = cairn_tokens::Tokenizer::default();
    let mut files = Vec::new();
    for f in &info.files {
        let path = workspace.join(f);
        let tokens = match std::fs::read_to_string(&path) {
            Ok(text) => Some(tokenizer.count(&text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
        };
        files.push(BootstrapFile { file: f.clone(), tokens });
    }
    let total: usize = files.iter().filter_map(|f| f.tokens).sum();
    let target = args.max_tokens.or(sessions.token_target()).unwrap_or(DEFAULT_TOKEN_TARGET);
    let missing: Vec<&str> = files.iter().filter(|f| f.tokens.is_none()).map(|f| f.file.as_str()).collect();
    let ok = total <= target && missing.is_empty();
    for w in &info.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        emit_json(&serde_json::json!({
            "session_key": args.session_key,
            "session": info,
            "workspace": workspace,
            "tokenizer": tokenizer.encoding().to_string(),
            "files": files,
            "total_tokens": total,
            "target": target,
            "missing": missing,
            "ok": ok,
        }))?;
    } else {
        let mut s = format!("session: {} ({})", info.session_type, info.reason);
        if info.audience_shared {
            s.push_str(", shared audience");
        }
        if let Some(t) = &info.topic_id {
            let _ = write!(s, ", topic {t}");
        }
        let _ = writeln!(s, "\nworkspace: {}", workspace.display());
        let width = files.iter().map(|f| f.file.len()).max().unwrap_or(0);
        for f in &files {
            match f.tokens {
                Some(t) => {
                    let _ = writeln!(s, "  {:<width$}  {t:>6} tokens", f.file);
                }
                None => {
                    let _ = writeln!(s, "  {:<width$}  missing", f.file);
                }
            }
        }
        let _ = writeln!(
            s,
            "total: {total} tokens ({}), target {target}: {}",
            tokenizer.encoding(),
            if total <= target { "ok" } else { "OVER TARGET" }
        );
        if !missing.is_empty() {
            let _ = writeln!(s, "missing: {}", missing.join(", "));
        }
        emit(&s)?;
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub(crate) fn eval_intents(args: EvalIntentsArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::ensure!((0.0..=1.0).contains(&args.threshold), "`--threshold` must be between 0 and 1");
    let router = load_router(settings)?;
    let cases = cairn_route::load_eval_cases(&args.cases)?;
    let report = cairn_route::evaluate(&router, &cases, cairn_core::now_ms());
    let pass = report.accuracy >= args.threshold;
    if args.json {
        emit_json(&serde_json::json!({ "threshold": args.threshold, "passed": pass, "report": report }))?;
    } else {
        let mut s = format!(
            "accuracy: {:.1} % ({}/{}), threshold {:.1} %: {}\n",
            report.accuracy * 100.0,
            report.correct,
            report.total,
            args.threshold * 100.0,
            if pass { "pass" } else { "FAIL" }
        );
        s.push_str("confusion (expected → actual: count):\n");
        for (expected, row) in &report.confusion {
            let cells: Vec<String> = row.iter().map(|(a, n)| format!("{a}: {n}")).collect();
            let _ = writeln!(s, "  {expected:<20} → {}", cells.join(", "));
        }
        if !report.misses.is_empty() {
            let _ = writeln!(s, "misses ({}):", report.misses.len());
            for m in &report.misses {
                let _ = writeln!(
                    s,
                    "  #{}{}: expected {}, got {}: {:?}",
                    m.index,
                    m.id.as_deref().map(|i| format!(" ({i})")).unwrap_or_default(),
                    m.expected,
                    m.actual,
                    m.prompt
                );
                if let Some(last) = m.trace.last() {
                    let _ = writeln!(s, "      {last}");
                }
            }
        }
        emit(&s)?;
    }
    Ok(if pass { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
