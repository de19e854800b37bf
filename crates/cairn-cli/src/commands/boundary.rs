//! `cairn boundary audit`: may this tree be published? A diagnostic over a repository: no store, no
//! settings, so it reaches `cairn-boundary` directly (see `docs/ARCHITECTURE.md`, "One wiring").
//!
//! Exit codes: 0 when the audit passes (warnings allowed), 1 on violations, 2 on errors (a list file
//! or the overlay that does not load, a root that is not a directory; handled in `main`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_boundary::{AllowList, Audit, DenyList, Overlay, Report};
use clap::{Args, Subcommand};

/// `cairn boundary ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum BoundaryCommand {
    /// Check that every file of a tree is allowlisted, none is denylisted, and none holds private
    /// overlay terms, secrets or contact details; exit 1 on a violation
    Audit(AuditArgs),
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// The tree to audit: the files git tracks there, or every file if it is not a git work tree
    #[arg(default_value = ".")]
    pub root: PathBuf,
    /// YAML allowlist: `allow` globs, `exempt` entries, allowed `terms` (docs/boundary.md)
    #[arg(long, value_name = "FILE")]
    pub allow: PathBuf,
    /// YAML denylist: `deny` globs, checked before the allowlist
    #[arg(long, value_name = "FILE")]
    pub deny: PathBuf,
    /// Private routing config whose intents, keywords, profiles, packs and pack text must not appear
    #[arg(long, value_name = "DIR")]
    pub private_dir: Option<PathBuf>,
    /// Files on neither list are violations, not warnings
    #[arg(long)]
    pub strict: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn boundary(command: BoundaryCommand) -> anyhow::Result<ExitCode> {
    match command {
        BoundaryCommand::Audit(args) => audit(args),
    }
}

fn audit(args: AuditArgs) -> anyhow::Result<ExitCode> {
    let allow = AllowList::load(&args.allow).context("cannot load the allowlist")?;
    let deny = DenyList::load(&args.deny).context("cannot load the denylist")?;
    let mut audit = Audit::new(allow, deny).strict(args.strict);
    if let Some(dir) = &args.private_dir {
        let overlay = Overlay::load(dir)
            .with_context(|| format!("cannot load the private overlay `{}`", dir.display()))?;
        audit = audit.overlay(&overlay);
    }
    let report = audit.run(&args.root).with_context(|| format!("cannot audit `{}`", args.root.display()))?;
    let text = if args.json { serde_json::to_string_pretty(&report)? + "\n" } else { render(&report) };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(if report.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn render(report: &Report) -> String {
    let mut s = String::new();
    for v in &report.violations {
        let _ = writeln!(s, "{v}");
    }
    for w in &report.warnings {
        let _ = writeln!(s, "warning: {w} (a violation under `--strict`)");
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let _ = write!(
        s,
        "boundary audit of `{}` ({}): {}, {} content-checked; {}, {}",
        report.root.display(),
        report.source.as_str(),
        plural(report.files, "file"),
        report.content_checked,
        plural(report.violations.len(), "violation"),
        plural(report.warnings.len(), "warning"),
    );
    let by = |items: &mut dyn Iterator<Item = String>| {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for item in items {
            *counts.entry(item).or_default() += 1;
        }
        counts.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")
    };
    if !report.exempted.is_empty() {
        let rules = by(&mut report.exempted.iter().map(|e| e.finding.rule.to_string()));
        let _ = write!(s, "; {} exempted by the allowlist ({rules})", report.exempted.len());
    }
    if !report.skipped.is_empty() {
        let reasons = by(&mut report.skipped.iter().map(|k| k.reason.clone()));
        let _ = write!(s, "; {} not content-checked ({reasons})", report.skipped.len());
    }
    let _ = writeln!(s, "{}", if report.passed { "; passed" } else { "; failed" });
    s
}
