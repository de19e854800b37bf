//! Read-side commands: `recall`, `eval retrieval`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use cairn_core::Scope;
use cairn_recall::eval::{EvalOptions, evaluate, load_corpus, load_queries};
use cairn_recall::{LaneWeights, RecallQuery, RecallSettings, Recaller};
use clap::Args;
use serde::Serialize;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct RecallArgs {
    /// What to look for
    pub query: String,
    /// Only this project
    #[arg(long)]
    pub project: Option<String>,
    /// Number of hits
    #[arg(long, short = 'k', default_value_t = 10)]
    pub k: usize,
    /// Public items only (what a shared audience may see)
    #[arg(long)]
    pub public_only: bool,
    /// Also list this many most recent chunks in scope
    #[arg(long, default_value_t = 0)]
    pub recent: usize,
    /// Half-life of the recency boost, in days
    #[arg(long)]
    pub half_life_days: Option<f64>,
    /// Measure recency from this time (milliseconds since the epoch; default: now)
    #[arg(long)]
    pub now: Option<i64>,
    /// Lexical lane only (no tag or recency boosts)
    #[arg(long)]
    pub lexical_only: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EvalRetrievalArgs {
    /// JSONL corpus (one document per line)
    #[arg(long)]
    pub corpus: PathBuf,
    /// JSONL questions with evidence ids
    #[arg(long)]
    pub queries: PathBuf,
    /// Cut-offs, comma-separated
    #[arg(long, default_value = "1,5,10", value_delimiter = ',')]
    pub k: Vec<usize>,
    /// Use every lane (tags, recency) instead of lexical recall alone
    #[arg(long)]
    pub all_lanes: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Opens the index read-only, turning the errors a user can fix into hints.
#[derive(Serialize)]
struct RecallOutput<'a> {
    query: &'a str,
    scope: &'a Scope,
    #[serde(flatten)]
    result: &'a cairn_recall::RecallResult,
}

pub(crate) fn recall(args: RecallArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let index = crate::commands::context::open_synced_index(settings)?;
    let mut recall_settings = settings.recall.clone();
    if let Some(h) = args.half_life_days {
        anyhow::ensure!(h > 0.0, "`--half-life-days` must be positive");
        recall_settings.half_life_days = h;
    }
    if args.lexical_only {
        recall_settings.weights = LaneWeights::lexical_only();
    }
    let recaller = Recaller::new(&index, recall_settings).context("cannot read the recall index")?;
    let scope = if args.public_only { Scope::public_only(args.project) } else { Scope::owner(args.project) };
    let mut query = RecallQuery::new(args.query.clone(), scope, args.k, args.now.unwrap_or_else(now_millis));
    query.recent_k = args.recent;
    let result = recaller.recall(&query);

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let output = RecallOutput { query: &args.query, scope: &query.scope, result: &result };
        serde_json::to_writer_pretty(&mut out, &output)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !result.query_tags.is_empty() {
        writeln!(out, "query tags: {}", result.query_tags.join(", "))?;
    }
    if result.hits.is_empty() {
        writeln!(out, "no hits")?;
    }
    for (i, hit) in result.hits.iter().enumerate() {
        let parts: Vec<String> = hit.parts.iter().map(|(k, v)| format!("{k}={v:.2}")).collect();
        writeln!(out, "{:>2}. {:.3}  {}  [{}]", i + 1, hit.score, hit.title, hit.project)?;
        writeln!(out, "    {}  ({})", hit.provenance.display(), parts.join(" "))?;
        let mut why = Vec::new();
        if !hit.why.terms.is_empty() {
            why.push(format!("terms: {}", hit.why.terms.join(", ")));
        }
        if !hit.why.tags.is_empty() {
            why.push(format!("tags: {}", hit.why.tags.join(", ")));
        }
        if !why.is_empty() {
            writeln!(out, "    {}", why.join("; "))?;
        }
    }
    if !result.recent.is_empty() {
        writeln!(out, "\nrecent:")?;
        for hit in &result.recent {
            writeln!(out, "  - {}  {}", hit.title, hit.provenance.display())?;
        }
    }
    for lane in &result.lanes {
        if let Some(err) = &lane.error {
            eprintln!("warning: lane `{}` failed: {err}", lane.name);
        }
    }
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn eval_retrieval(args: EvalRetrievalArgs, _settings: &Settings) -> anyhow::Result<ExitCode> {
    let docs = load_corpus(&args.corpus)?;
    let queries = load_queries(&args.queries)?;
    anyhow::ensure!(!args.k.is_empty() && args.k.iter().all(|&k| k > 0), "`--k` needs positive cut-offs");
    let mut opts = EvalOptions::lexical(args.k.clone());
    if args.all_lanes {
        opts.settings = RecallSettings::default();
    }
    let report = evaluate(&docs, &queries, &opts)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.table())?;
        writeln!(
            out,
            "\n{} documents, {} questions; index {:.0} ms, recall p50 {:.0} µs",
            report.documents, report.questions, report.index_ms, report.query_p50_us
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
