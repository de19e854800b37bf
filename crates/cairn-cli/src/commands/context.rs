//! `cairn context`: the engine's context block for a query; `cairn reindex`; the progress bars the
//! write commands draw.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_core::Scope;
use cairn_engine::{ContextQuery, Format, GraphChoice, Level};
use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct ContextArgs {
    /// The query (usually the user's prompt)
    pub query: String,
    /// Token budget of the block (default: `context.budget`)
    #[arg(long)]
    pub budget: Option<usize>,
    /// Output format: markdown, xml or json (default: `context.format`)
    #[arg(long)]
    pub format: Option<Format>,
    /// Richest level shown: L0 abstracts, L1 summaries, L2 raw snippets (default: `context.max_level`)
    #[arg(long)]
    pub level: Option<Level>,
    /// Only this project
    #[arg(long)]
    pub project: Option<String>,
    /// Public items only (what a shared audience may see)
    #[arg(long)]
    pub public_only: bool,
    /// Print only the statistics and the receipt, not the block
    #[arg(long)]
    pub stats_only: bool,
    /// Write the trace receipt (JSON) to this file
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Keep lane timings in the receipt (output is then no longer byte-identical across runs)
    #[arg(long)]
    pub timings: bool,
    /// Include titles in the receipt (receipts hold no text by default)
    #[arg(long)]
    pub no_redact: bool,
    /// Fixed "now" for recency, as RFC 3339 or milliseconds (default: the clock)
    #[arg(long)]
    pub now: Option<String>,
    #[command(flatten)]
    pub graph: crate::commands::graph::ContextGraphArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ReindexArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

/// Draws progress of a long step on stderr (a terminal only).
pub(crate) struct Bar(pub(crate) indicatif::ProgressBar);

impl cairn_core::Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
        // Drawn from its stage's start on; the spinner turns while a slow batch is under way.
        if !self.0.is_hidden() {
            self.0.enable_steady_tick(std::time::Duration::from_millis(120));
        }
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Bar {
    /// A bar drawn with `template` when `enabled` and stderr is a terminal; hidden otherwise.
    pub(crate) fn new(enabled: bool, template: &'static str) -> Bar {
        use std::io::IsTerminal;
        if !enabled || !std::io::stderr().is_terminal() {
            return Bar(indicatif::ProgressBar::hidden());
        }
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .expect("static template")
                // Whole units per second (`14,883/s`), not indicatif's four decimals.
                .with_key("rate", |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}/s", thousands(s.per_sec().round() as u64));
                })
                .progress_chars("=> "),
        );
        Bar(bar)
    }

    /// The embedding bar.
    pub(crate) fn embedding(enabled: bool) -> Bar {
        Bar::new(enabled, "{spinner} embedding [{bar:30}] {pos}/{len} chunks ({rate}, {eta} left)")
    }
}

/// `n` with a comma between thousands: `14883` → `14,883`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn parse_now(s: &str) -> anyhow::Result<i64> {
    if let Ok(ms) = s.parse::<i64>() {
        return Ok(ms);
    }
    cairn_engine::parse_date(s).ok_or_else(|| anyhow::anyhow!("`--now {s}` is not RFC 3339 or milliseconds"))
}

pub(crate) fn context(args: ContextArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = settings.engine();
    let scope = Scope { project: args.project.clone(), allow_private: !args.public_only };
    let mut q = ContextQuery::new(args.query, scope);
    q.budget = args.budget;
    q.format = args.format;
    q.max_level = args.level;
    q.redact = !args.no_redact;
    q.now = args.now.as_deref().map(parse_now).transpose()?;
    q.timings = args.timings;
    q.graph = match (args.graph.use_graph, args.graph.no_graph) {
        (_, true) => GraphChoice::Off,
        (true, _) => GraphChoice::On,
        _ => GraphChoice::Configured,
    };
    q.cross_project = args.graph.cross_project;
    // Fail-open: a part that failed is in the receipt; the block is built from the rest.
    let assembly = engine.context(&q);
    for lane in &assembly.receipt.lanes {
        if let Some(err) = &lane.error {
            eprintln!("warning: {} lane failed: {err}", lane.name);
        }
    }
    if let Some(path) = &args.trace {
        std::fs::write(path, serde_json::to_string_pretty(&assembly.receipt)?)
            .with_context(|| format!("writing the trace `{}`", path.display()))?;
    }
    if args.stats_only {
        let stats = serde_json::json!({
            "tokens": assembly.tokens,
            "budget": assembly.receipt.tokens.budget,
            "items": assembly.items,
            "tags": assembly.tags,
            "empty": assembly.empty,
            "receipt": assembly.receipt,
        });
        outln!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        outln!("{}", assembly.output());
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn reindex(args: ReindexArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    if !settings.has_store() {
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            settings.store_path().display()
        );
    }
    let engine = settings.engine();
    let (report, _) = engine.reindex(&Bar::embedding(!args.json))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "reindexed {} items into `{}` (store seq {})",
            report.upserted,
            engine.config().index_dir().display(),
            report.seq
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod rate_tests {
    #[test]
    fn thousands_are_separated_by_commas() {
        for (n, s) in [(0, "0"), (999, "999"), (1_000, "1,000"), (14_883, "14,883"), (1_234_567, "1,234,567")]
        {
            assert_eq!(super::thousands(n), s);
        }
    }
}
