//! Read-side commands: `recall`, `eval retrieval`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use cairn_core::Scope;
use cairn_engine::{Engine, EngineConfig};
use cairn_recall::eval::{EvalOptions, EvalRun, evaluate_runs, load_corpus, load_queries};
use cairn_recall::{ALL_LANES, Fusion, RecallQuery, RecallSettings, lane};
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
    /// Lexical lane only (no vector, tag or recency lanes)
    #[arg(long, conflicts_with = "lanes")]
    pub lexical_only: bool,
    /// Only these lanes, comma-separated: lexical, vector, tags, recency (default: `recall.lanes`)
    #[arg(long, value_delimiter = ',')]
    pub lanes: Vec<String>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EvalRetrievalArgs {
    /// JSONL corpus (one document per line)
    #[arg(long, required_unless_present = "workspace", conflicts_with = "workspace")]
    pub corpus: Option<PathBuf>,
    /// A workspace of memory files to evaluate on instead of a corpus (harvested into a temporary
    /// data directory); `--queries` then holds labelled questions with target files
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// JSONL questions: with `--corpus`, questions with evidence ids; with `--workspace`, one
    /// `{"id","kind","question","targets":[paths]}` per line (kind `offtopic`: no targets, must get an
    /// empty block)
    #[arg(long)]
    pub queries: PathBuf,
    /// With `--workspace`: the reference day dates in questions are resolved against (YYYY-MM-DD;
    /// default: the day of the workspace's latest dated note)
    #[arg(long, requires = "workspace")]
    pub now: Option<String>,
    /// With `--workspace`: one line per question (relevance, rank of the first target, block or
    /// empty, top file)
    #[arg(long, requires = "workspace")]
    pub details: bool,
    /// With `--workspace`: only one half of the questions (1: the 1st, 3rd, 5th... of each kind; 2: the
    /// others), to choose settings on one half and report on the other
    #[arg(long, requires = "workspace", value_parser = clap::value_parser!(u8).range(1..=2))]
    pub half: Option<u8>,
    /// Cut-offs, comma-separated
    #[arg(long, default_value = "1,5,10", value_delimiter = ',')]
    pub k: Vec<usize>,
    /// Runs to report, comma-separated or repeated, each a row set: `lexical`, `vector`, `hybrid`
    /// (lexical + vector), `all` (every lane of `recall.lanes`), or lanes joined by `+`
    /// (`lexical+vector+tags`). Default: `lexical,vector,hybrid` with a model, `lexical` without
    #[arg(long, value_delimiter = ',')]
    pub lanes: Vec<String>,
    /// Use every lane (tags, recency) instead of lexical recall alone (same as `--lanes all`)
    #[arg(long, conflicts_with = "lanes")]
    pub all_lanes: bool,
    /// Fusion: `rrf` or `weighted` (default: `recall.fusion`)
    #[arg(long)]
    pub fusion: Option<String>,
    /// RRF constant k (with `--fusion rrf`)
    #[arg(long, default_value_t = 60.0)]
    pub rrf_k: f32,
    /// Weight of the vector lane relative to lexical (default: `recall.weights.vector`)
    #[arg(long)]
    pub vector_weight: Option<f32>,
    /// MMR λ (1: off; default `recall.mmr_lambda`)
    #[arg(long)]
    pub mmr: Option<f32>,
    /// Documents stand alone: no turn is indexed or embedded with the turn before it
    #[arg(long)]
    pub no_turn_context: bool,
    /// Only questions of these conversations (comma-separated ids), e.g. to tune on one half and test
    /// on the other
    #[arg(long, value_delimiter = ',')]
    pub conversations: Vec<String>,
    /// Lexical only even when a model is installed
    #[arg(long)]
    pub no_model: bool,
    /// Keep embeddings of documents and questions in this directory and reuse them across runs
    /// (default: `eval-cache` in the data directory)
    #[arg(long, conflicts_with = "no_embed_cache")]
    pub embed_cache: Option<PathBuf>,
    /// Embed everything afresh, keeping nothing
    #[arg(long)]
    pub no_embed_cache: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
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
    if !settings.has_store() {
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            settings.store_path().display()
        );
    }
    anyhow::ensure!(args.k >= 1, "`-k` must be at least 1");
    let mut recall_settings = settings.recall.clone();
    if let Some(h) = args.half_life_days {
        anyhow::ensure!(h > 0.0, "`--half-life-days` must be positive");
        recall_settings.half_life_days = h;
    }
    if args.lexical_only {
        recall_settings = recall_settings.only_lanes(&[lane::LEXICAL]);
    }
    if !args.lanes.is_empty() {
        let lanes = parse_lanes(&args.lanes.join("+"))?;
        recall_settings = recall_settings.only_lanes(&lanes);
    }
    let mut cfg = EngineConfig::from(settings);
    cfg.recall = recall_settings;
    let engine = Engine::open_lazy(cfg);
    let scope = if args.public_only { Scope::public_only(args.project) } else { Scope::owner(args.project) };
    let mut query =
        RecallQuery::new(args.query.clone(), scope, args.k, args.now.unwrap_or_else(cairn_core::now_ms));
    query.recent_k = args.recent;
    let result = engine.recall(&query).context("cannot read the recall index")?;

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
    for d in &result.query_dates {
        writeln!(out, "query date: {d}")?;
    }
    for p in &result.query_people {
        writeln!(out, "query person: {p}")?;
    }
    if result.hits.is_empty() {
        let r = &result.relevance;
        if r.below > 0 {
            writeln!(out, "no hits: nothing relevant enough (best {:.2} < floor {:.2})", r.best, r.floor)?;
        } else {
            writeln!(out, "no hits")?;
        }
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
        if let Some(date) = &hit.why.date {
            why.push(format!("date: {date}"));
        }
        if !hit.why.ranks.is_empty() {
            let ranks: Vec<String> = hit.why.ranks.iter().map(|(l, r)| format!("{l} #{r}")).collect();
            why.push(format!("lanes: {}", ranks.join(", ")));
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

/// The configured embedder for an evaluation (a warning when it cannot be opened: the runs go on
/// without the vector lane).
pub(crate) fn configured_embedder(settings: &Settings) -> Option<std::sync::Arc<dyn cairn_embed::Embedder>> {
    let opened = cairn_embed::open_configured(&settings.embed, &settings.data_dir);
    if let Some(note) = &opened.note {
        eprintln!("warning: {note}");
    }
    opened.embedder
}

/// Lane names from a `+`-joined list, checked.
pub(crate) fn parse_lanes(spec: &str) -> anyhow::Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for part in spec.split('+').map(str::trim).filter(|p| !p.is_empty()) {
        let name = ALL_LANES
            .iter()
            .find(|l| **l == part)
            .ok_or_else(|| anyhow::anyhow!("unknown lane `{part}` (lanes: {})", ALL_LANES.join(", ")))?;
        if !out.contains(name) {
            out.push(*name);
        }
    }
    anyhow::ensure!(!out.is_empty(), "no lane given");
    Ok(out)
}

pub(crate) fn eval_retrieval(args: EvalRetrievalArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let corpus = match (&args.workspace, &args.corpus) {
        (Some(ws), _) => return super::eval::eval_workspace(&args, ws, settings),
        (None, Some(c)) => c,
        (None, None) => anyhow::bail!("`--corpus` or `--workspace` is needed"),
    };
    let docs = load_corpus(corpus)?;
    let mut queries = load_queries(&args.queries)?;
    if !args.conversations.is_empty() {
        queries.retain(|q| args.conversations.contains(&q.conversation));
    }
    anyhow::ensure!(!args.k.is_empty() && args.k.iter().all(|&k| k > 0), "`--k` needs positive cut-offs");
    let embedder = if args.no_model { None } else { configured_embedder(settings) };
    let mut base = settings.recall.clone();
    match args.fusion.as_deref() {
        None => {}
        Some("rrf") => base.fusion = Fusion::Rrf { k: args.rrf_k },
        Some("weighted") => base.fusion = Fusion::Weighted,
        Some(other) => anyhow::bail!("`--fusion {other}`: expected `rrf` or `weighted`"),
    }
    if let Some(w) = args.vector_weight {
        base.weights.vector = w;
    }
    if let Some(m) = args.mmr {
        anyhow::ensure!((0.0..=1.0).contains(&m), "`--mmr` must be within 0..=1");
        base.mmr_lambda = m;
    }
    let specs: Vec<String> = if args.all_lanes {
        vec!["all".into()]
    } else if !args.lanes.is_empty() {
        args.lanes.clone()
    } else if embedder.is_some() {
        vec!["lexical".into(), "vector".into(), "hybrid".into()]
    } else {
        vec!["lexical".into()]
    };
    let mut runs = Vec::new();
    for spec in &specs {
        // `lanes@modifier@...`: rrf<k>, weighted, mmr<λ>, w<vector weight>, pool<n>, ctx<context boost>.
        let mut pieces = spec.split('@');
        let lanes_part = pieces.next().unwrap_or_default();
        let mut base = base.clone();
        for m in pieces {
            let num = |prefix: &str| -> anyhow::Result<f32> {
                m[prefix.len()..].parse().map_err(|_| anyhow::anyhow!("`{spec}`: bad modifier `{m}`"))
            };
            if m == "weighted" {
                base.fusion = Fusion::Weighted;
            } else if m.starts_with("rrf") {
                base.fusion = Fusion::Rrf { k: num("rrf")? };
            } else if m.starts_with("mmr") {
                base.mmr_lambda = num("mmr")?;
            } else if m.starts_with("ctx") {
                base.context_boost = num("ctx")?;
            } else if m.starts_with("pool") {
                base.vector_pool = num("pool")? as usize;
            } else if m.starts_with('w') {
                base.weights.vector = num("w")?;
            } else {
                anyhow::bail!(
                    "`{spec}`: unknown modifier `{m}` (rrf<k>, weighted, mmr<λ>, w<weight>, pool<n>, ctx<boost>)"
                );
            }
        }
        let settings = match lanes_part {
            "all" => {
                let lanes: Vec<&str> =
                    ALL_LANES.iter().copied().filter(|l| base.lanes.iter().any(|x| x == l)).collect();
                base.clone().only_lanes(&lanes)
            }
            "hybrid" => base.clone().only_lanes(&[lane::LEXICAL, lane::VECTOR]),
            other => base.clone().only_lanes(&parse_lanes(other)?),
        };
        // Rows measure the lanes as asked: no fallback lane sneaks in.
        let settings = RecallSettings { semantic_fallback: 0, ..settings };
        if settings.lane_on(lane::VECTOR) && embedder.is_none() {
            anyhow::bail!(
                "`--lanes {spec}` needs an embedding model\n\nhint: run `cairn models install`, or configure `[embed]`"
            );
        }
        runs.push(EvalRun { name: spec.clone(), settings });
    }
    let opts = EvalOptions {
        ks: args.k.clone(),
        settings: base.clone(),
        embedder,
        turn_context: !args.no_turn_context,
        vector: settings.vector.clone(),
        embed_cache: if args.no_embed_cache {
            None
        } else {
            Some(args.embed_cache.clone().unwrap_or_else(|| settings.data_dir.join("eval-cache")))
        },
    };
    let reports = evaluate_runs(&docs, &queries, &opts, &runs)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &reports)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for report in &reports {
        writeln!(out, "== {} ==", report.name)?;
        write!(out, "{}", report.table())?;
        writeln!(out)?;
    }
    if let Some(r) = reports.first() {
        let model = r.model_id.as_deref().unwrap_or("none");
        writeln!(
            out,
            "{} documents, {} questions; model {model}; index {:.0} ms, embed {:.0} ms",
            r.documents, r.questions, r.index_ms, r.embed_ms
        )?;
        for r in &reports {
            writeln!(out, "  {}: recall p50 {:.0} µs", r.name, r.query_p50_us)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
