//! `cairn-bench`: Cairn's macro benchmarks. Every measurement runs in a fresh child process so peak
//! memory (VmHWM) is per run; results are medians over `--runs`.
//!
//! ```text
//! python3 ../shared/bench/peers/gen_corpus.py --n 10000 --out /tmp/corpus/n10k/workspace --seed 1
//! cargo run --release -p cairn-bench -- harvest --workspace /tmp/corpus/n10k/workspace --runs 5
//! cargo run --release -p cairn-bench -- vector --data /tmp/vbench --model ~/.local/share/cairn/models/all-minilm-l6-v2
//! cargo run --release -p cairn-bench -- recall --corpus /tmp/corpus/n10k/workspace \
//!     --queries /tmp/corpus/n10k/queries.jsonl --index /tmp/cairn-bench/n10k/index
//! cargo run --release -p cairn-bench -- remote --delay-ms 50 --timeout-ms 800
//! cargo build --release -p cairn-cli && cargo run --release -p cairn-bench -- shared
//! ```

mod load;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;

mod vector;
use cairn_ingest::{HarvestRequest, HarvestSettings, NoProgress};
use cairn_store::SqliteStore;
use clap::{Parser, Subcommand};

mod graph;
use serde::{Deserialize, Serialize};

mod embed;

mod recall;

mod remote;

mod shared;

/// The allocator `cairn` uses, so the warm figures are the daemon's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(name = "cairn-bench")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Two `cairn serve` daemons on one PostgreSQL store (started here, `cairn_test::postgres`):
    /// cross-host freshness with the store's notifications and by polling alone, and capture
    /// throughput from both daemons at once.
    Shared {
        /// Freshness samples per mode (one capture on A at a time, until B recalls it)
        #[arg(long, default_value_t = 200)]
        samples: usize,
        /// Captures per daemon in the throughput run
        #[arg(long, default_value_t = 1000)]
        captures: usize,
        /// Client tasks per daemon in the throughput run
        #[arg(long, default_value_t = 4)]
        clients: usize,
        /// The `cairn` binary (default: next to this one)
        #[arg(long)]
        cairn: Option<PathBuf>,
    },
    /// What remote sources cost a turn: three at a set delay (parallel), one down, one hanging,
    /// against fake Graphiti, LightRAG and mem0 servers on 127.0.0.1.
    Remote {
        /// Notes in the generated store
        #[arg(long, default_value_t = 5000)]
        notes: usize,
        /// Turns per scenario
        #[arg(long, default_value_t = 300)]
        turns: usize,
        /// Each fake service's delay before answering a search, in milliseconds
        #[arg(long, default_value_t = 50)]
        delay_ms: u64,
        /// Each source's deadline (`timeout_ms`)
        #[arg(long, default_value_t = 800)]
        timeout_ms: u64,
        /// Turns with the hanging source (each waits for the deadline)
        #[arg(long, default_value_t = 100)]
        hang_turns: usize,
    },
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
        /// Measure only the first N queries (default: all)
        #[arg(long)]
        limit: Option<usize>,
        /// Warm passes over the queries (p50 and p99 pool every pass; each pass's p50 is shown too)
        #[arg(long, default_value_t = 1)]
        passes: usize,
        /// A second data dir (same workspace) measured in the same run, taking turns query by query
        /// with `--data`: its figures, whether its blocks match, and the ratio of the p50s
        #[arg(long)]
        against: Option<PathBuf>,
        /// Measure `--data` against itself with recall on one thread (`parallel = false`), taking
        /// turns as with `--against`
        #[arg(long, conflicts_with = "against")]
        one_thread: bool,
        /// Recall of `--data` on one thread (`parallel = false`), e.g. for instruction counts
        #[arg(long)]
        serial: bool,
        /// Write every query's block (first pass, `--data`) to this file, one JSON string per line,
        /// to check that two builds give the same output
        #[arg(long)]
        blocks: Option<PathBuf>,
        /// Measure `--data` through the stage functions against the same store served by a one-shot
        /// `Engine` (`Engine::context`, what `cairn context` runs), taking turns as with `--against`
        #[arg(long, conflicts_with_all = ["against", "one_thread"])]
        engine: bool,
        /// With `--engine`: the data dir the engine serves (default: `--data`), such as a host of a
        /// shared store holding the same items
        #[arg(long, requires = "engine")]
        engine_data: Option<PathBuf>,
        /// With `--engine`: the engine's `[store] url` (a shared PostgreSQL store)
        #[arg(long, requires = "engine")]
        engine_store_url: Option<String>,
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
    /// Graph expansion latency on a generated graph (CSR versus a string-keyed map, same run).
    Graph {
        /// Item nodes (tags and projects come on top)
        #[arg(long, default_value_t = 80_000)]
        items: usize,
        /// Seeds per query
        #[arg(long, default_value_t = 20)]
        seeds: usize,
        /// Hops
        #[arg(long, default_value_t = 2)]
        depth: usize,
        /// Queries measured
        #[arg(long, default_value_t = 1000)]
        queries: usize,
    },
    /// Graph lane gain on a generated multi-hop workspace (second hop reachable only by a link).
    GraphMultihop {
        /// Data dir (workspace, store and index are written here; must be empty)
        #[arg(long)]
        data: PathBuf,
        /// Topics (questions)
        #[arg(long, default_value_t = 300)]
        topics: usize,
        /// Distractor notes
        #[arg(long, default_value_t = 3000)]
        distractors: usize,
        /// Token budget
        #[arg(long, default_value_t = 1000)]
        budget: usize,
    },
    /// Graph lane on LoCoMo turns (same_session and follows edges): evidence recall of the block.
    GraphLocomo {
        /// Directory with corpus.jsonl and queries.jsonl
        #[arg(long)]
        dir: PathBuf,
        /// Data dir for the store and index (reused across runs)
        #[arg(long)]
        data: PathBuf,
        /// Token budget
        #[arg(long, default_value_t = 1000)]
        budget: usize,
        /// Only the first N queries
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Load test of `cairn serve`: turns on N connections while captures stream in; checks afterwards
    /// that no capture was lost.
    Load {
        /// A running daemon (default: start `cairn serve` on `--data` and stop it afterwards)
        #[arg(long)]
        url: Option<String>,
        /// Data dir for the started daemon; harvested from `--workspace` when it holds no store
        #[arg(long)]
        data: Option<PathBuf>,
        /// Workspace to harvest into `--data` first
        #[arg(long)]
        workspace: Option<PathBuf>,
        /// Routing config for the started daemon
        #[arg(long)]
        route_config: Option<PathBuf>,
        /// Port for the started daemon
        #[arg(long, default_value_t = 7499)]
        port: u16,
        /// Queries, one JSON object per line with a `query` field
        #[arg(long)]
        queries: PathBuf,
        /// Concurrent keep-alive connections
        #[arg(long, default_value_t = 16)]
        connections: usize,
        /// Turns to send (measured)
        #[arg(long, default_value_t = 20000)]
        requests: usize,
        /// Turns sent first, not measured
        #[arg(long, default_value_t = 2000)]
        warmup: usize,
        /// Captures per second streamed during the measured run (0: none)
        #[arg(long, default_value_t = 50.0)]
        captures_per_s: f64,
        /// Distinct session keys
        #[arg(long, default_value_t = 200)]
        sessions: usize,
        /// Turn budget in tokens
        #[arg(long, default_value_t = 2000)]
        budget: usize,
        /// The `cairn` binary (default: next to this one)
        #[arg(long)]
        cairn: Option<PathBuf>,
    },
    /// Recall latency and Hit@1/Hit@10/MRR@10 on a generated workspace indexed straight from its
    /// markdown (all lanes, lexical only, public only), in the peers' result shape.
    Recall(recall::RecallArgs),
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
    let report = cairn_ingest::harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress)?;
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

/// The engine `context --engine` measures: its data dir and shared store.
struct Served {
    data: PathBuf,
    store_url: Option<String>,
}

/// Harvests `workspace` into `data`'s store when it is empty, syncs `data`'s index, and returns it
/// with the store's item count.
fn open_synced(workspace: &Path, data: &Path) -> anyhow::Result<(cairn_recall::RecallIndex, u64)> {
    use cairn_store::Store;
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    if store.last_seq()? == 0 {
        let req = HarvestRequest { root: workspace.to_owned(), ..Default::default() };
        let started = Instant::now();
        let r = cairn_ingest::harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress)?;
        eprintln!("harvested {} files in {:.1} s", r.scanned, started.elapsed().as_secs_f64());
    }
    let index = cairn_recall::RecallIndex::open_or_create(&data.join("index"))?;
    let started = Instant::now();
    let sync = cairn_engine::sync_index(&store, &index)?;
    eprintln!("index sync of {}: {sync:?} in {:.1} s", data.display(), started.elapsed().as_secs_f64());
    Ok((index, store.status()?.items))
}

/// Latencies of one configuration, in ms, and its blocks.
#[derive(Default)]
struct Timed {
    total: Vec<f64>,
    recall: Vec<f64>,
    assembly: Vec<f64>,
    pass_p50: Vec<f64>,
    tokens: Vec<f64>,
    blocks: Vec<(usize, String)>,
}

impl Timed {
    fn report(&mut self) -> serde_json::Value {
        for v in [&mut self.total, &mut self.recall, &mut self.assembly] {
            v.sort_by(f64::total_cmp);
        }
        let ms = |v: &[f64]| serde_json::json!({"p50": percentile(v, 0.5), "p99": percentile(v, 0.99)});
        serde_json::json!({
            "warm_context_ms": ms(&self.total),
            "warm_recall_ms": ms(&self.recall),
            "warm_assembly_ms": ms(&self.assembly),
            "warm_context_p50_per_pass_ms": self.pass_p50,
            "mean_block_tokens": self.tokens.iter().sum::<f64>() / self.tokens.len().max(1) as f64,
        })
    }
}

#[allow(clippy::too_many_arguments)]
fn context_bench(
    workspace: &Path,
    queries: Vec<String>,
    data: &Path,
    against: Option<&Path>,
    one_thread: bool,
    serial: bool,
    budget: usize,
    cold: usize,
    cairn: Option<PathBuf>,
    passes: usize,
    blocks: Option<&Path>,
    engine: Option<Served>,
) -> anyhow::Result<serde_json::Value> {
    use cairn_core::Scope;
    use cairn_engine::{ContextQuery, ContextRequest, Engine, EngineConfig};
    use cairn_recall::{RecallSettings, Recaller};

    let (index, items) = open_synced(workspace, data)?;
    let mut recallers =
        vec![Recaller::new(&index, RecallSettings { parallel: !serial, ..RecallSettings::default() })?];
    if let Some(dir) = against {
        let (other, _) = open_synced(workspace, dir)?;
        recallers.push(Recaller::new(&other, RecallSettings::default())?);
    } else if one_thread {
        recallers
            .push(Recaller::new(&index, RecallSettings { parallel: false, ..RecallSettings::default() })?);
    } else if engine.is_some() {
        // A placeholder for the engine's turn: the loop below serves it through `Engine::context`.
        recallers.push(Recaller::new(&index, RecallSettings::default())?);
    }
    let served = engine.as_ref().map(|served| {
        let mut cfg = EngineConfig::new(&served.data);
        cfg.store.url = served.store_url.clone();
        cfg.embed.provider = cairn_engine::settings::EmbedProvider::None;
        cfg.context.budget = budget;
        Engine::open_lazy(cfg)
    });
    let engine_query = |q: &str| {
        let mut cq = ContextQuery::new(q, Scope::owner(None));
        cq.now = Some(1_800_000_000_000);
        cq
    };
    if let Some(e) = &served {
        for q in queries.iter().take(50) {
            let _ = e.context(&engine_query(q));
        }
    }
    let recaller = &recallers[0];
    let now = 1_800_000_000_000;
    // Warm-up, then the measured passes.
    for r in &recallers {
        for q in queries.iter().take(50) {
            let _ = cairn_engine::context(
                Ok(r),
                &ContextRequest::new(q.clone(), Scope::owner(None), budget, now),
            );
        }
    }
    // One context call per query and pass, timed as a whole and by its two halves (recall, then
    // assembly). Each query meets its postings for the first time in a pass (the other queries run
    // in between), as a live turn would. With `--against`, the two stores take turns query by query
    // (the next pass swaps them), so both meet the same machine and, over two passes, the same queries.
    let mut timed: Vec<Timed> = recallers.iter().map(|_| Timed::default()).collect();
    let mut lane_us: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let runs = if recallers.len() > 1 { 2 * passes.max(1) } else { passes.max(1) };
    for pass in 0..runs {
        let mut pass_ms: Vec<Vec<f64>> = recallers.iter().map(|_| Vec::new()).collect();
        for (i, q) in queries.iter().enumerate() {
            let which = (i + pass) % recallers.len();
            if let (1, Some(e)) = (which, &served) {
                let cq = engine_query(q);
                let t = Instant::now();
                let a = e.context(&cq);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                let m = &mut timed[1];
                m.total.push(ms);
                m.tokens.push(a.tokens as f64);
                if pass < recallers.len() {
                    m.blocks.push((i, a.block));
                }
                pass_ms[1].push(ms);
                continue;
            }
            let mut req = ContextRequest::new(q.clone(), Scope::owner(None), budget, now);
            req.timings = true;
            let t = Instant::now();
            let recalled = cairn_engine::recall_for(Ok(&recallers[which]), &req);
            let recalled_at = t.elapsed();
            if which == 0 {
                for lane in &recalled.lanes {
                    lane_us.entry(lane.name.clone()).or_default().push(lane.micros as f64);
                }
            }
            let t = Instant::now();
            let a = cairn_engine::assemble_for(&req, recalled);
            let assembled = t.elapsed();
            let ms = (recalled_at + assembled).as_secs_f64() * 1e3;
            let m = &mut timed[which];
            m.total.push(ms);
            m.recall.push(recalled_at.as_secs_f64() * 1e3);
            m.assembly.push(assembled.as_secs_f64() * 1e3);
            m.tokens.push(a.tokens as f64);
            if pass < recallers.len() {
                m.blocks.push((i, a.block));
            }
            pass_ms[which].push(ms);
        }
        for (m, mut v) in timed.iter_mut().zip(pass_ms) {
            if !v.is_empty() {
                v.sort_by(f64::total_cmp);
                m.pass_p50.push(percentile(&v, 0.5));
            }
        }
    }
    if let Some(path) = blocks {
        let mut first = timed[0].blocks.clone();
        first.sort();
        let mut out = String::new();
        for (_, block) in first {
            out.push_str(&serde_json::to_string(&block)?);
            out.push('\n');
        }
        std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
    }
    let compared = (timed.len() > 1).then(|| {
        let (mut a, mut b) = (timed[0].blocks.clone(), timed[1].blocks.clone());
        a.sort();
        b.sort();
        let same = a == b;
        let ratio = median(timed[0].total.clone()) / median(timed[1].total.clone());
        (same, ratio)
    });
    let reports: Vec<serde_json::Value> = timed.iter_mut().map(Timed::report).collect();
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
    let mut out = serde_json::json!({
        "bench": "context",
        "items": items,
        "chunks": recaller.num_chunks(),
        "queries": queries.len(),
        "budget": budget,
        "warm_lane_us_p50": lane_us.into_iter().map(|(k, v)| (k, median(v))).collect::<std::collections::BTreeMap<_, _>>(),
        "warm_peak_rss_mb": warm_rss,
        "cold_process_ms": {"runs": cold_ms.len(), "p50": percentile(&cold_ms, 0.5), "p99": percentile(&cold_ms, 0.99)},
    });
    let obj = out.as_object_mut().expect("an object");
    if let serde_json::Value::Object(first) = &reports[0] {
        obj.extend(first.clone());
    }
    if let Some((same, ratio)) = compared {
        let what = match (against, &engine) {
            (Some(dir), _) => serde_json::json!(dir),
            (None, Some(Served { data: d, store_url: None })) if d == data => {
                serde_json::json!("the same data, served by Engine::context")
            }
            (None, Some(Served { data: d, store_url })) => serde_json::json!(format!(
                "`{}`{}, served by Engine::context",
                d.display(),
                store_url.as_ref().map_or(String::new(), |_| " on the shared store".to_owned())
            )),
            (None, None) => serde_json::json!("the same data, recall on one thread"),
        };
        obj.insert(
            "against".into(),
            serde_json::json!({"data": what, "report": reports[1], "same_blocks": same}),
        );
        obj.insert("warm_context_p50_vs_against".into(), ratio.into());
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn load_bench(
    url: Option<String>,
    data: Option<PathBuf>,
    workspace: Option<PathBuf>,
    route_config: Option<PathBuf>,
    port: u16,
    cairn: Option<PathBuf>,
    args: load::LoadArgs,
) -> anyhow::Result<serde_json::Value> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let daemon = match url {
        Some(_) => None,
        None => {
            let data = data.context("pass `--url` of a running daemon or `--data` to start one")?;
            if !data.join("cairn.sqlite").exists() {
                let ws = workspace.context("`--data` holds no store: pass `--workspace` to harvest")?;
                std::fs::create_dir_all(&data)?;
                let s = harvest_once(&ws, &data)?;
                eprintln!(
                    "harvested {} files in {:.1} s (+{:.1} s index)",
                    s.files, s.seconds, s.index_seconds
                );
            }
            let cairn = match cairn {
                Some(c) => c,
                None => load::cairn_next_to_me()?,
            };
            Some(load::Daemon::spawn(&cairn, &data, route_config.as_deref(), port)?)
        }
    };
    let args = load::LoadArgs { url: daemon.as_ref().map_or(args.url.clone(), |d| d.url.clone()), ..args };
    let report = rt.block_on(load::run(args))?;
    if let Some(d) = daemon {
        d.stop()?;
    }
    Ok(report)
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::Shared { samples, captures, clients, cairn } => {
            let cairn = match cairn {
                Some(c) => c,
                None => load::cairn_next_to_me()?,
            };
            let b = shared::SharedBench { cairn, samples, captures, clients };
            println!("{}", serde_json::to_string_pretty(&shared::run(&b)?)?);
        }
        Cmd::Remote { notes, turns, delay_ms, timeout_ms, hang_turns } => {
            let b = remote::RemoteBench { notes, turns, delay_ms, timeout_ms, hang_turns };
            println!("{}", serde_json::to_string_pretty(&remote::run(&b)?)?);
        }
        Cmd::Vector { sizes, dim, queries, model, data } => {
            vector::run(&vector::VectorBench { sizes, dim, queries, model, data })?;
        }
        Cmd::Graph { items, seeds, depth, queries } => {
            println!("{}", serde_json::to_string_pretty(&graph::expansion(items, seeds, queries, depth)?)?);
        }
        Cmd::GraphMultihop { data, topics, distractors, budget } => {
            println!(
                "{}",
                serde_json::to_string_pretty(&graph::multihop(&data, topics, distractors, budget)?)?
            );
        }
        Cmd::GraphLocomo { dir, data, budget, limit } => {
            println!("{}", serde_json::to_string_pretty(&graph::locomo(&dir, &data, budget, limit)?)?);
        }
        Cmd::Load {
            url,
            data,
            workspace,
            route_config,
            port,
            queries,
            connections,
            requests,
            warmup,
            captures_per_s,
            sessions,
            budget,
            cairn,
        } => {
            let args = load::LoadArgs {
                url: url.clone().unwrap_or_default(),
                queries: load_queries(&queries)?,
                connections,
                requests,
                warmup,
                captures_per_s,
                sessions,
                budget,
            };
            let v = load_bench(url, data, workspace, route_config, port, cairn, args)?;
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        Cmd::Context {
            workspace,
            queries,
            data,
            budget,
            cold,
            cairn,
            limit,
            passes,
            against,
            one_thread,
            serial,
            blocks,
            engine,
            engine_data,
            engine_store_url,
        } => {
            let mut queries = load_queries(&queries)?;
            queries.truncate(limit.unwrap_or(usize::MAX));
            let v = context_bench(
                &workspace,
                queries,
                &data,
                against.as_deref(),
                one_thread,
                serial,
                budget,
                cold,
                cairn,
                passes,
                blocks.as_deref(),
                engine.then(|| Served {
                    data: engine_data.unwrap_or_else(|| data.clone()),
                    store_url: engine_store_url,
                }),
            )?;
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
        Cmd::Recall(args) => {
            println!("{}", serde_json::to_string_pretty(&recall::run(&args)?)?);
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
