//! `cairn context`: recall then assembly under a token budget; `cairn reindex`; index plumbing shared by
//! the read and write commands.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_assemble::{Format, Level};
use cairn_core::Scope;
use cairn_engine::{ContextRequest, SyncReport};
use cairn_recall::{RecallIndex, Recaller};
use cairn_store::SqliteStore;
use cairn_tokens::Encoding;
use clap::Args;

use crate::commands::ingest::{now_ms, open_store};
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

pub(crate) fn index_dir(settings: &Settings) -> PathBuf {
    settings.data_dir.join("index")
}

/// Bring the index up to the store, rebuilding it when it is missing, damaged or from another store.
pub(crate) fn sync(settings: &Settings, store: &SqliteStore) -> anyhow::Result<SyncReport> {
    let dir = index_dir(settings);
    let index = match RecallIndex::open_or_create(&dir) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("warning: rebuilding the index `{}`: {e}", dir.display());
            RecallIndex::recreate(&dir)
                .with_context(|| format!("recreating the index `{}`", dir.display()))?
        }
    };
    match cairn_engine::sync_index(store, &index) {
        Ok(r) => Ok(r),
        Err(cairn_engine::Error::Index(e)) if e.kind() == cairn_recall::ErrorKind::Unavailable => {
            // Another process (a watcher, a daemon) holds the writer; it will catch up.
            eprintln!("warning: index is busy, left for its writer to sync: {e}");
            Ok(SyncReport::default())
        }
        Err(e) => Err(e).context("syncing the index with the store"),
    }
}

/// Open the index for reading, syncing it first if the store moved on (or rebuilding it when it is
/// missing or damaged).
pub(crate) fn open_synced_index(settings: &Settings) -> anyhow::Result<RecallIndex> {
    let store_path = settings.store_path();
    if !store_path.exists() {
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            store_path.display()
        );
    }
    let dir = index_dir(settings);
    let stale = match RecallIndex::open(&dir) {
        Ok(index) => {
            let store = SqliteStore::open_read_only(&store_path)?;
            use cairn_store::Store;
            index.synced_seq().ok().flatten() != Some(store.last_seq()?)
        }
        Err(_) => true,
    };
    if stale {
        let store = open_store(settings)?;
        sync(settings, &store)?;
    }
    RecallIndex::open(&dir).with_context(|| format!("opening the index `{}`", dir.display()))
}

/// Open the recall side for reading (see [`open_synced_index`]), with the vector lane when a model is
/// configured and installed.
pub(crate) fn open_recaller(settings: &Settings) -> anyhow::Result<Recaller> {
    open_recaller_with(settings, settings.recall.clone())
}

/// [`open_recaller`] with other recall settings.
pub(crate) fn open_recaller_with(
    settings: &Settings,
    recall: cairn_recall::RecallSettings,
) -> anyhow::Result<Recaller> {
    let index = open_synced_index(settings)?;
    let lane = vector_lane(settings);
    Ok(Recaller::new(&index, recall)?.with_vectors(lane))
}

/// The embedder and the vectors of the store, when a model is configured and usable. Without one
/// recall is lexical (the note is printed once); a failure to read vectors is a warning, never an error.
pub(crate) fn vector_lane(settings: &Settings) -> Option<cairn_recall::VectorLane> {
    if !settings.recall.lane_on(cairn_recall::lane::VECTOR) && settings.recall.semantic_fallback == 0 {
        return None;
    }
    let embedder = cairn_embed::open_or_warn_once(&settings.embed, &settings.data_dir)?;
    let store = match SqliteStore::open_read_only(&settings.store_path()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("warning: vector lane off: {e}");
            return None;
        }
    };
    match cairn_engine::load_vectors(&store, &*embedder, settings.vector.clone()) {
        Ok(index) => Some(cairn_recall::VectorLane { embedder, index }),
        Err(e) => {
            eprintln!("warning: vector lane off: {e}");
            None
        }
    }
}

/// Draws embedding progress on stderr.
struct EmbedBar(indicatif::ProgressBar);

impl cairn_engine::EmbedProgress for EmbedBar {
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

/// Embeds the chunks lacking a vector under the configured model (after a harvest, capture or
/// reindex). No model: skipped (the note is printed once). An embedder failure is a warning: the items
/// are stored and their vectors stay pending for the next run.
pub(crate) fn embed_pending(
    settings: &Settings,
    store: &mut SqliteStore,
    show_progress: bool,
) -> anyhow::Result<Option<cairn_engine::EmbedReport>> {
    let Some(embedder) = cairn_embed::open_or_warn_once(&settings.embed, &settings.data_dir) else {
        return Ok(None);
    };
    use std::io::IsTerminal;
    let bar = if show_progress && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} embedding [{bar:30}] {pos}/{len} chunks ({per_sec})",
            )
            .expect("static template")
            .progress_chars("=> "),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let report = cairn_engine::embed_pending(store, &*embedder, settings.vector.embed_batch, &EmbedBar(bar))
        .context("storing vectors")?;
    if let Some(e) = &report.error {
        eprintln!(
            "warning: embedding stopped: {e}; {} chunks stay without vectors and are retried next run",
            report.pending
        );
    }
    Ok(Some(report))
}

fn parse_now(s: &str) -> anyhow::Result<i64> {
    if let Ok(ms) = s.parse::<i64>() {
        return Ok(ms);
    }
    cairn_ingest::harvest::parse_date(s)
        .ok_or_else(|| anyhow::anyhow!("`--now {s}` is not RFC 3339 or milliseconds"))
}

pub(crate) fn context(args: ContextArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let c = &settings.context;
    let scope = Scope { project: args.project.clone(), allow_private: !args.public_only };
    let now = args.now.as_deref().map(parse_now).transpose()?.unwrap_or_else(now_ms);
    let mut req = ContextRequest::new(args.query, scope, args.budget.unwrap_or(c.budget), now);
    if let Some(n) = c.candidates {
        req.candidates = n;
    }
    if let Some(n) = c.recent {
        req.recent = n;
    }
    req.timings = args.timings;
    req.options.format = args.format.unwrap_or(c.format);
    req.options.max_level = args.level.unwrap_or(c.max_level);
    req.options.recency_share = c.recency_share;
    req.options.snippet_cap = c.snippet_cap;
    req.options.encoding = c.encoding;
    req.options.redact = !args.no_redact;
    // Fail-open: when the index cannot be opened the block is empty and the receipt says why.
    let recaller = open_recaller(settings);
    let err_msg = recaller.as_ref().err().map(|e| format!("{e:#}"));
    let assembly = match &recaller {
        Ok(r) => crate::commands::graph::context_assembly(&args.graph, settings, Ok(r), &req),
        Err(_) => crate::commands::graph::context_assembly(
            &args.graph,
            settings,
            Err(&err_msg.as_deref().unwrap_or_default()),
            &req,
        ),
    };
    if let Some(msg) = &err_msg {
        eprintln!("warning: recall failed, context is empty: {msg}");
    }
    if let Some(path) = &args.trace {
        std::fs::write(path, serde_json::to_string_pretty(&assembly.receipt)?)
            .with_context(|| format!("writing the trace `{}`", path.display()))?;
    }
    if args.stats_only {
        let stats = serde_json::json!({
            "tokens": assembly.tokens,
            "budget": req.budget,
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
    let store = open_store(settings)?;
    let dir = index_dir(settings);
    let index =
        RecallIndex::recreate(&dir).with_context(|| format!("recreating the index `{}`", dir.display()))?;
    let report = cairn_engine::rebuild_index(&store, &index)?;
    let mut store = store;
    embed_pending(settings, &mut store, !args.json)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!("reindexed {} items into `{}` (store seq {})", report.upserted, dir.display(), report.seq);
    }
    Ok(ExitCode::SUCCESS)
}

/// The `[context]` defaults of `cairn context` and the turn pipeline.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct ContextSettings {
    /// Token budget of the block.
    pub budget: usize,
    /// Topic candidates recalled before assembly (default: sized from the budget).
    pub candidates: Option<usize>,
    /// Recent items recalled for the recency layer (default: sized from the budget).
    pub recent: Option<usize>,
    /// Share of the budget for the recency layer (the rest is the topic layer).
    pub recency_share: f32,
    /// Richest level shown.
    pub max_level: Level,
    /// Token cap of one L2 snippet.
    pub snippet_cap: usize,
    /// Tokenizer that counts the budget.
    pub encoding: Encoding,
    /// Default output format.
    pub format: Format,
}

impl Default for ContextSettings {
    fn default() -> Self {
        let o = cairn_assemble::AssembleOptions::default();
        Self {
            budget: 2000,
            candidates: None,
            recent: None,
            recency_share: o.recency_share,
            max_level: o.max_level,
            snippet_cap: o.snippet_cap,
            encoding: o.encoding,
            format: o.format,
        }
    }
}
