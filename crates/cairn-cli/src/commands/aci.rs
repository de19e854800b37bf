//! `cairn tools-compact` (derive TOOLS_COMPACT.md from TOOLS.md as a draft), the one promotion path
//! both kinds of draft go through, and `cairn aci report`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use cairn_aci::atomic::CrashPoint;
use cairn_aci::draft::{self, Draft, Kind};
use cairn_aci::gate::{self, PromoteRequest};
use clap::{Args, Subcommand};

use super::workspace::now_ms;
use crate::settings::Settings;

/// Set to `1` by crash tests: the process aborts after writing the temporary file of a promotion,
/// before its rename.
pub(crate) const CRASH_ENV: &str = "CAIRN_TEST_CRASH_BEFORE_RENAME";

#[derive(Debug, Args)]
pub(crate) struct PromoteArgs {
    /// The reviewed draft
    pub draft: PathBuf,
    /// The content hash the reviewer approved (from `check`)
    #[arg(long, value_name = "HASH")]
    pub approve: String,
}

/// Promotes a draft through the gate: the approved hash, its checks, a fresh backup.
pub(crate) fn promote(args: PromoteArgs, kind: Kind, settings: &Settings) -> anyhow::Result<ExitCode> {
    let crash = if std::env::var_os(CRASH_ENV).is_some_and(|v| v == "1") {
        CrashPoint::BeforeRename
    } else {
        CrashPoint::Never
    };
    let draft = args.draft.canonicalize().unwrap_or(args.draft.clone());
    let p = gate::promote(PromoteRequest {
        workspace: &settings.workspace,
        data_dir: &settings.data_dir,
        settings: &settings.aci,
        draft: &draft,
        kind,
        approve: &args.approve,
        now_ms: now_ms(),
        crash,
    })?;
    outln!(
        "promoted {} draft {} into `{}` (previous content in backup {})",
        p.kind.as_str(),
        p.hash,
        p.target.display(),
        p.backup
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct ToolsCompactArgs {
    #[command(subcommand)]
    pub command: Option<ToolsCompactCommand>,
    /// Where to write the draft (default: `<data dir>/aci/drafts/tools-compact.md`)
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolsCompactCommand {
    /// Check a draft: token cap, no prose, every lookup value of TOOLS.md; prints its content hash
    Check {
        /// The draft
        file: PathBuf,
    },
    /// Write a reviewed draft to TOOLS_COMPACT.md (needs its hash and a fresh backup)
    Promote(PromoteArgs),
}

pub(crate) fn tools_compact(args: ToolsCompactArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(ToolsCompactCommand::Promote(p)) => return promote(p, Kind::ToolsCompact, settings),
        Some(ToolsCompactCommand::Check { file }) => {
            let d = Draft::read(&file)?;
            if d.kind != Kind::ToolsCompact {
                anyhow::bail!(
                    "`{}` is a {} draft; check it with `cairn wisdom check`",
                    file.display(),
                    d.kind.as_str()
                );
            }
            let r = gate::check_tools(&d, &settings.workspace, &settings.aci);
            let mut s = format!("{} tokens (at most {})\n", r.tokens, settings.aci.tools_max_tokens);
            if let Some((have, all)) = r.coverage {
                let _ = writeln!(s, "{have} of {all} lookup values of TOOLS.md");
            }
            for f in &r.failures {
                let _ = writeln!(s, "FAIL {f}");
            }
            let _ = writeln!(
                s,
                "check: {}\nhash: {}",
                if r.failures.is_empty() { "PASS" } else { "FAIL" },
                d.hash
            );
            outln!("{}", s.trim_end());
            return Ok(if r.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        None => {}
    }
    let source = settings.workspace.join("TOOLS.md");
    let text = std::fs::read_to_string(&source)
        .map_err(|e| anyhow::anyhow!("cannot read `{}`: {e}", source.display()))?;
    let c = cairn_aci::tools::compact(&text);
    let mut body = format!(
        "<!-- cairn draft: tools-compact. Derived from TOOLS.md; review it, then `cairn tools-compact promote` with its hash. -->\n{}",
        c.content
    );
    let mut report = format!("\n<!-- cairn: report\nkept {} lookup lines; dropped:\n", c.kept);
    for d in &c.dropped {
        let _ = writeln!(
            report,
            "{}: {} prose, {} code, {} explanations",
            d.section.replace("--", "- -"),
            d.prose,
            d.code,
            d.explanations
        );
    }
    report.push_str("-->\n");
    body.push_str(&report);
    let out =
        args.out.unwrap_or_else(|| settings.data_dir.join("aci").join("drafts").join("tools-compact.md"));
    cairn_aci::atomic::write(&out, body.as_bytes(), CrashPoint::Never)?;
    let out = out.canonicalize().unwrap_or(out);
    let hash = cairn_aci::short_hash(body.as_bytes());
    draft::enqueue(&settings.workspace.join(&settings.aci.queue_file), Kind::ToolsCompact, &out, &hash)?;
    let mut s = format!(
        "kept {} lookup lines, {} tokens (at most {})\n",
        c.kept, c.tokens, settings.aci.tools_max_tokens
    );
    for d in &c.dropped {
        let _ = writeln!(
            s,
            "  dropped from {}: {} prose, {} code, {} explanations",
            d.section, d.prose, d.code, d.explanations
        );
    }
    let _ = writeln!(
        s,
        "draft: {} (hash {hash}), listed in `{}` for review",
        out.display(),
        settings.aci.queue_file
    );
    outln!("{}", s.trim_end());
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Subcommand)]
pub(crate) enum AciCommand {
    /// Tokens per session type, tiered against bulk injection, and the acceptance criteria (PASS/FAIL)
    Report(ReportArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn aci(command: AciCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    let AciCommand::Report(args) = command;
    let sessions = super::route::sessions_config(settings)?;
    let r = cairn_aci::report::report(&settings.workspace, &settings.data_dir, &settings.aci, &sessions);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        let mut s = format!(
            "bootstrap: {}\nbulk injection: {} tokens ({})\n\n",
            if r.tiered { "tiered" } else { "bulk (tiered off)" },
            r.baseline_tokens,
            r.baseline
                .iter()
                .map(|f| match f.tokens {
                    Some(t) => format!("{} {t}", f.file),
                    None => format!("{} missing", f.file),
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(s, "{:<15} {:>7} {:>7} {:>6}  files", "session", "tokens", "bulk", "saved");
        for row in &r.sessions {
            let files: Vec<String> = row
                .files
                .iter()
                .map(|f| if f.tokens.is_some() { f.file.clone() } else { format!("{} (missing)", f.file) })
                .collect();
            let _ = writeln!(
                s,
                "{:<15} {:>7} {:>7} {:>5.0}%  {}",
                row.session_type.as_str(),
                row.tokens,
                row.baseline,
                row.reduction_pct,
                files.join(", ")
            );
        }
        let _ =
            writeln!(s, "\nMEMORY.md bulk-injected: {}\n", if r.memory_bulk_injected { "yes" } else { "no" });
        for c in &r.criteria {
            let _ = writeln!(s, "{} {}: {}", c.id, if c.pass { "PASS" } else { "FAIL" }, c.name);
            for d in &c.detail {
                let _ = writeln!(s, "    {d}");
            }
        }
        let _ = writeln!(s, "\n{}", if r.pass() { "all criteria pass" } else { "some criteria fail" });
        outln!("{}", s.trim_end());
    }
    Ok(if r.pass() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
