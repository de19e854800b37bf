//! `cairn-bench`: Cairn's macro benchmarks. Every measurement runs in a fresh child process so peak
//! memory (VmHWM) is per run; results are medians over `--runs`.
//!
//! ```text
//! python3 ../shared/bench/peers/gen_corpus.py --n 10000 --out /tmp/corpus/n10k/workspace --seed 1
//! cargo run --release -p cairn-bench -- harvest --workspace /tmp/corpus/n10k/workspace --runs 5
//! cargo run --release -p cairn-bench -- vector --data /tmp/vbench --model ~/.local/share/cairn/models/all-minilm-l6-v2
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;

mod vector;
use cairn_ingest::{HarvestOptions, HarvestRequest, NoProgress};
use cairn_store::SqliteStore;
use clap::{Parser, Subcommand};
use serde::{Deserialize, Serialize};

mod embed;

#[derive(Debug, Parser)]
#[command(name = "cairn-bench")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// First harvest and no-change re-harvest of a workspace, median over runs.
    Harvest {
        /// Workspace to harvest (e.g. from the peers' `gen_corpus.py`)
        #[arg(long)]
        workspace: PathBuf,
        /// Number of runs
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Recall + assembly latency: warm in this process and cold as fresh `cairn context` processes.
    Context {
        /// Workspace to harvest into the store (skipped when `--data` already holds a store)
        #[arg(long)]
        workspace: PathBuf,
        /// Queries, one JSON object per line with a `query` field (the peers' `queries.jsonl`)
        #[arg(long)]
        queries: PathBuf,
        /// Data dir to keep the store and index in (reused across runs)
        #[arg(long)]
        data: PathBuf,
        /// Token budget
        #[arg(long, default_value_t = 2000)]
        budget: usize,
        /// Number of cold processes
        #[arg(long, default_value_t = 50)]
        cold: usize,
        /// The `cairn` binary for cold runs (default: next to this one)
        #[arg(long)]
        cairn: Option<PathBuf>,
    },
    /// Vector search: exact (f32, int8) and HNSW latency, HNSW recall@10, load time, memory; warm hybrid
    /// recall with the query embedding when `--model` is given.
    Vector {
        /// Store sizes (vectors), comma-separated
        #[arg(long, default_value = "10000,100000", value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Vector dimension (384: all-MiniLM-L6-v2)
        #[arg(long, default_value_t = 384)]
        dim: usize,
        /// Queries per measurement
        #[arg(long, default_value_t = 200)]
        queries: usize,
        /// A sentence-transformers model directory for the warm hybrid measurement
        #[arg(long)]
        model: Option<PathBuf>,
        /// Scratch directory for the stores and indexes
        #[arg(long)]
        data: PathBuf,
    },
    /// Local embedding throughput and single-query latency on a JSONL corpus (`text` per line).
    Embed {
        /// Model directory (e.g. `<data_dir>/models/all-minilm-l6-v2`)
        #[arg(long)]
        model: PathBuf,
        /// JSONL corpus with a `text` field (e.g. LoCoMo's `corpus.jsonl`)
        #[arg(long)]
        corpus: PathBuf,
        /// JSONL questions (`question` field) for the single-query latency (default: corpus texts)
        #[arg(long)]
        queries: Option<PathBuf>,
        /// Batch sizes, comma-separated
        #[arg(long, default_value = "32", value_delimiter = ',')]
        batch: Vec<usize>,
        /// Full passes per batch size (median reported)
        #[arg(long, default_value_t = 2)]
        repeats: usize,
        /// Single-query embeddings to time
        #[arg(long, default_value_t = 200)]
        single: usize,
    },
    /// (internal) one harvest in this process, printing a JSON sample.
    #[command(hide = true)]
    HarvestOnce {
        #[arg(long)]
        workspace: PathBuf,
        #[arg(long)]
        data: PathBuf,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct Sample {
    files: usize,
    bytes: u64,
    /// The store part (crawl, parse, write).
    seconds: f64,
    /// Syncing the full-text index afterwards (what `cairn harvest` also does).
    index_seconds: f64,
    peak_rss_mb: f64,
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn harvest_once(workspace: &Path, data: &Path) -> anyhow::Result<Sample> {
    let start = Instant::now();
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    let req = HarvestRequest { root: workspace.to_owned(), ..Default::default() };
    let report = cairn_ingest::harvest(&mut store, &HarvestOptions::default(), &req, &NoProgress)?;
    let seconds = start.elapsed().as_secs_f64();
    anyhow::ensure!(report.failed == 0, "{} files failed: {:?}", report.failed, report.problems.first());
    let start = Instant::now();
    let index = cairn_recall::RecallIndex::open_or_create(&data.join("index"))?;
    cairn_engine::sync_index(&store, &index)?;
    let index_seconds = start.elapsed().as_secs_f64();
    let bytes = walk_bytes(workspace);
    Ok(Sample { files: report.scanned, bytes, seconds, index_seconds, peak_rss_mb: peak_rss_mb() })
}

fn walk_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                total += walk_bytes(&e.path());
            } else if t.is_file() {
                total += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    total
}

fn child(workspace: &Path, data: &Path) -> anyhow::Result<Sample> {
    let out = Command::new(std::env::current_exe()?)
        .args(["harvest-once", "--workspace"])
        .arg(workspace)
        .arg("--data")
        .arg(data)
        .output()?;
    anyhow::ensure!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).context("child output")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn load_queries(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let q = v.get("query").or_else(|| v.get("question")).and_then(|q| q.as_str());
        out.extend(q.map(str::to_owned));
    }
    Ok(out)
}

fn context_bench(
    workspace: &Path,
    queries: &Path,
    data: &Path,
    budget: usize,
    cold: usize,
    cairn: Option<PathBuf>,
) -> anyhow::Result<serde_json::Value> {
    use cairn_core::Scope;
    use cairn_engine::ContextRequest;
    use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller};
    use cairn_store::Store;

    let queries = load_queries(queries)?;
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    if store.last_seq()? == 0 {
        let req = HarvestRequest { root: workspace.to_owned(), ..Default::default() };
        let started = Instant::now();
        let r = cairn_ingest::harvest(&mut store, &HarvestOptions::default(), &req, &NoProgress)?;
        eprintln!("harvested {} files in {:.1} s", r.scanned, started.elapsed().as_secs_f64());
    }
    let index = RecallIndex::open_or_create(&data.join("index"))?;
    let started = Instant::now();
    let sync = cairn_engine::sync_index(&store, &index)?;
    eprintln!("index sync: {sync:?} in {:.1} s", started.elapsed().as_secs_f64());
    let items = store.status()?.items;
    drop(store);
    let recaller = Recaller::new(&index, RecallSettings::default())?;
    let now = 1_800_000_000_000;
    // Warm-up pass, then the measured pass.
    for q in queries.iter().take(50) {
        let _ = cairn_engine::context(
            Ok(&recaller),
            &ContextRequest::new(q.clone(), Scope::owner(None), budget, now),
        );
    }
    let (mut total, mut recall_only) = (Vec::new(), Vec::new());
    let mut tokens = Vec::new();
    for q in &queries {
        let t = Instant::now();
        let (k, recent) = cairn_engine::candidates_for(budget);
        let mut rq = RecallQuery::new(q.clone(), Scope::owner(None), k, now);
        rq.recent_k = recent;
        let _ = recaller.recall(&rq);
        recall_only.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let a = cairn_engine::context(
            Ok(&recaller),
            &ContextRequest::new(q.clone(), Scope::owner(None), budget, now),
        );
        total.push(t.elapsed().as_secs_f64() * 1e3);
        tokens.push(a.tokens as f64);
    }
    total.sort_by(f64::total_cmp);
    recall_only.sort_by(f64::total_cmp);
    let warm_rss = peak_rss_mb();

    let cairn = match cairn {
        Some(c) => c,
        None => std::env::current_exe()?.with_file_name("cairn"),
    };
    let mut cold_ms = Vec::new();
    for q in queries.iter().take(cold) {
        let t = Instant::now();
        let out = Command::new(&cairn)
            .arg("--data-dir")
            .arg(data)
            .args(["context", q, "--budget", &budget.to_string()])
            .output()
            .with_context(|| format!("running {}", cairn.display()))?;
        cold_ms.push(t.elapsed().as_secs_f64() * 1e3);
        anyhow::ensure!(
            out.status.success(),
            "cairn context failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    cold_ms.sort_by(f64::total_cmp);
    Ok(serde_json::json!({
        "bench": "context",
        "items": items,
        "chunks": recaller.num_chunks(),
        "queries": queries.len(),
        "budget": budget,
        "warm_context_ms": {"p50": percentile(&total, 0.5), "p99": percentile(&total, 0.99)},
        "warm_recall_only_ms": {"p50": percentile(&recall_only, 0.5), "p99": percentile(&recall_only, 0.99)},
        "mean_block_tokens": tokens.iter().sum::<f64>() / tokens.len().max(1) as f64,
        "warm_peak_rss_mb": warm_rss,
        "cold_process_ms": {"runs": cold_ms.len(), "p50": percentile(&cold_ms, 0.5), "p99": percentile(&cold_ms, 0.99)},
    }))
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::Vector { sizes, dim, queries, model, data } => {
            vector::run(&vector::VectorBench { sizes, dim, queries, model, data })?;
        }
        Cmd::Context { workspace, queries, data, budget, cold, cairn } => {
            let v = context_bench(&workspace, &queries, &data, budget, cold, cairn)?;
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        Cmd::Embed { model, corpus, queries, batch, repeats, single } => {
            let b = embed::EmbedBench {
                model: &model,
                corpus: &corpus,
                queries: queries.as_deref(),
                batches: &batch,
                repeats,
                single,
            };
            println!("{}", serde_json::to_string_pretty(&embed::run(&b)?)?);
        }
        Cmd::HarvestOnce { workspace, data } => {
            println!("{}", serde_json::to_string(&harvest_once(&workspace, &data)?)?);
        }
        Cmd::Harvest { workspace, runs } => {
            let (mut first, mut again, mut rss_first, mut rss_again) = (vec![], vec![], vec![], vec![]);
            let (mut first_total, mut again_total) = (vec![], vec![]);
            let mut files = 0;
            let mut bytes = 0;
            for run in 0..runs {
                let dir = tempfile::tempdir()?;
                let a = child(&workspace, dir.path())?;
                let b = child(&workspace, dir.path())?;
                eprintln!(
                    "run {run}: first {:.3} s + index {:.3} s ({:.0} MB peak), re-harvest {:.3} s + index {:.3} s ({:.0} MB peak)",
                    a.seconds, a.index_seconds, a.peak_rss_mb, b.seconds, b.index_seconds, b.peak_rss_mb
                );
                first_total.push(a.seconds + a.index_seconds);
                again_total.push(b.seconds + b.index_seconds);
                files = a.files;
                bytes = a.bytes;
                first.push(a.seconds);
                again.push(b.seconds);
                rss_first.push(a.peak_rss_mb);
                rss_again.push(b.peak_rss_mb);
            }
            let first_s = median(first);
            let result = serde_json::json!({
                "bench": "harvest",
                "files": files,
                "megabytes": bytes as f64 / 1e6,
                "runs": runs,
                "first_harvest_s_median": first_s,
                "first_harvest_files_per_s": files as f64 / first_s,
                "first_harvest_with_index_s_median": median(first_total.clone()),
                "first_harvest_with_index_files_per_s": files as f64 / median(first_total),
                "reharvest_s_median": median(again),
                "reharvest_with_index_s_median": median(again_total),
                "first_harvest_peak_rss_mb_median": median(rss_first),
                "reharvest_peak_rss_mb_median": median(rss_again),
            });
            println!("{}", serde_json::to_string_pretty(&result)?);
        }
    }
    Ok(())
}
