//! `cairn-bench vector`: vector search latency (exact f32, exact int8, HNSW), HNSW recall@10 against
//! exact search, load time from the store, memory; and warm hybrid recall latency including the query
//! embedding on a store of the largest size.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance, Scope};
use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller, VectorLane};
use cairn_store::{NewVector, SqliteStore, Store, Write};
use cairn_vector::synthetic::{Rng, near_queries, topic_vectors};
use cairn_vector::{VectorIndex, VectorSettings};
use serde::Serialize;

use crate::percentile;

/// Options of the vector benchmark.
#[derive(Debug, Clone)]
pub(crate) struct VectorBench {
    pub sizes: Vec<usize>,
    pub dim: usize,
    pub queries: usize,
    pub model: Option<PathBuf>,
    pub data: PathBuf,
}

#[derive(Debug, Serialize)]
struct Latency {
    p50_ms: f64,
    p99_ms: f64,
}

#[derive(Debug, Serialize)]
struct SizeReport {
    n: usize,
    dim: usize,
    /// The kernels the CPU dispatch picked (`avx2+fma` or `portable`).
    simd: &'static str,
    exact_f32: Latency,
    exact_int8: Latency,
    exact_int8_recall10: f64,
    exact_public_only: Latency,
    hnsw: Latency,
    hnsw_recall10: f64,
    /// HNSW for a public-only caller (two thirds of the rows admitted), recall against exact public-only.
    hnsw_public_only: Latency,
    hnsw_public_only_recall10: f64,
    hnsw_build_s: f64,
    store_write_s: f64,
    load_s: f64,
    rows_mb: f64,
    rss_growth_hnsw_mb: f64,
}

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn time_queries(queries: &[Vec<f32>], mut f: impl FnMut(&[f32])) -> Latency {
    // One untimed pass warms caches.
    for q in queries.iter().take(5) {
        f(q);
    }
    let mut times: Vec<f64> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            f(q);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Latency { p50_ms: percentile(&times, 0.5), p99_ms: percentile(&times, 0.99) }
}

fn item_for(i: usize) -> (Item, Chunk) {
    let text = synthetic_text(i);
    let item = Item {
        id: format!("doc{i}"),
        project: format!("proj{}", i % 4),
        kind: ItemKind::Fact,
        title: format!("Note {i}"),
        text: text.clone(),
        tags: vec![],
        audience: if i.is_multiple_of(3) { Audience::Private } else { Audience::Public },
        provenance: Provenance::External { source: "bench".into() },
        content_hash: cairn_core::content_hash(text.as_bytes()),
        created_at: i as i64 * 1000,
        observed_at: 0,
        metadata: Default::default(),
    };
    let chunk = Chunk::whole(&item);
    (item, chunk)
}

const WORDS: &[&str] = &[
    "parser",
    "weather",
    "queue",
    "deploy",
    "cache",
    "sqlite",
    "index",
    "budget",
    "token",
    "router",
    "session",
    "memory",
    "crash",
    "latency",
    "vector",
    "release",
    "review",
    "schema",
    "migration",
    "alert",
    "grib",
    "forecast",
    "metrics",
    "backup",
    "retry",
    "timeout",
    "config",
    "plugin",
    "harvest",
    "recall",
];

fn synthetic_text(i: usize) -> String {
    let mut rng = Rng((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..24).map(|_| WORDS[(rng.next_u64() % WORDS.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
}

/// Writes `vectors` as items + vectors into a fresh store; returns the seconds spent.
fn write_store(path: &Path, vectors: &[Vec<f32>]) -> anyhow::Result<f64> {
    let started = Instant::now();
    let mut store = SqliteStore::open(path)?;
    for (batch_no, batch) in vectors.chunks(5000).enumerate() {
        let base = batch_no * 5000;
        let writes: Vec<Write> = (0..batch.len())
            .map(|j| {
                let (item, chunk) = item_for(base + j);
                Write::upsert(item, vec![chunk])
            })
            .collect();
        store.apply(&writes, "bench")?;
        let new: Vec<NewVector> = batch
            .iter()
            .enumerate()
            .map(|(j, v)| {
                let (item, chunk) = item_for(base + j);
                NewVector {
                    chunk_id: chunk.id,
                    item_id: item.id,
                    content_hash: chunk.content_hash,
                    vector: v.clone(),
                    lines: Vec::new(),
                }
            })
            .collect();
        store.put_vectors("bench-model", &new)?;
    }
    Ok(started.elapsed().as_secs_f64())
}

fn recall10(got: &[cairn_vector::VectorHit], want: &[cairn_vector::VectorHit]) -> f64 {
    let want: Vec<&str> = want.iter().take(10).map(|h| &*h.chunk_id).collect();
    got.iter().take(10).filter(|h| want.contains(&&*h.chunk_id)).count() as f64 / want.len().max(1) as f64
}

fn bench_size(n: usize, opts: &VectorBench) -> anyhow::Result<SizeReport> {
    let dim = opts.dim;
    eprintln!("vector: {n} × {dim}: generating");
    let vectors = topic_vectors(n, dim, 42 + n as u64);
    // Queries: perturbed stored vectors (a query lands near some topic, like a real one).
    let queries = near_queries(&vectors, opts.queries, 7);
    let dir = opts.data.join(format!("vector-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let store_path = dir.join("cairn.sqlite");
    eprintln!("vector: {n}: writing the store");
    let store_write_s = write_store(&store_path, &vectors)?;
    let store = SqliteStore::open(&store_path)?;

    eprintln!("vector: {n}: loading");
    let exact_settings = VectorSettings { ann_threshold: usize::MAX, quantize: false, ..Default::default() };
    let t = Instant::now();
    let exact = VectorIndex::load(&store, "bench-model", dim, exact_settings)?;
    let load_s = t.elapsed().as_secs_f64();
    anyhow::ensure!(exact.len() == n, "loaded {} of {n} vectors", exact.len());
    let rows_mb = exact.memory_bytes() as f64 / 1e6;
    let all = Scope::owner(None);
    let public = Scope::public_only(None);
    let k = 10;
    let exact_f32 = time_queries(&queries, |q| {
        std::hint::black_box(exact.search_exact(q, &all, k));
    });
    let truth: Vec<_> = queries.iter().map(|q| exact.search_exact(q, &all, k)).collect();

    let int8 = VectorIndex::load(
        &store,
        "bench-model",
        dim,
        VectorSettings { ann_threshold: usize::MAX, quantize: true, ..Default::default() },
    )?;
    let exact_int8 = time_queries(&queries, |q| {
        std::hint::black_box(int8.search_exact(q, &all, k));
    });
    let exact_public_only = time_queries(&queries, |q| {
        std::hint::black_box(exact.search_exact(q, &public, k));
    });
    let exact_int8_recall10 =
        queries.iter().zip(&truth).map(|(q, t)| recall10(&int8.search_exact(q, &all, k), t)).sum::<f64>()
            / queries.len() as f64;
    drop(int8);

    eprintln!("vector: {n}: building HNSW");
    let rss_before = rss_mb();
    let mut ann = VectorIndex::load(
        &store,
        "bench-model",
        dim,
        VectorSettings { ann_threshold: usize::MAX, ..Default::default() },
    )?;
    let t = Instant::now();
    ann.build_ann();
    let hnsw_build_s = t.elapsed().as_secs_f64();
    let rss_growth_hnsw_mb = rss_mb() - rss_before;
    let hnsw = time_queries(&queries, |q| {
        std::hint::black_box(ann.search_hnsw(q, &all, k));
    });
    let hnsw_recall10 =
        queries.iter().zip(&truth).map(|(q, t)| recall10(&ann.search_hnsw(q, &all, k), t)).sum::<f64>()
            / queries.len() as f64;
    let hnsw_public_only = time_queries(&queries, |q| {
        std::hint::black_box(ann.search_hnsw(q, &public, k));
    });
    let hnsw_public_only_recall10 = queries
        .iter()
        .map(|q| recall10(&ann.search_hnsw(q, &public, k), &exact.search_exact(q, &public, k)))
        .sum::<f64>()
        / queries.len() as f64;
    Ok(SizeReport {
        n,
        dim,
        simd: cairn_vector::kernel::simd_level(),
        exact_f32,
        exact_int8,
        exact_int8_recall10,
        exact_public_only,
        hnsw,
        hnsw_recall10,
        hnsw_public_only,
        hnsw_public_only_recall10,
        hnsw_build_s,
        store_write_s,
        load_s,
        rows_mb,
        rss_growth_hnsw_mb,
    })
}

#[derive(Debug, Serialize)]
struct WarmReport {
    n: usize,
    model_id: String,
    /// Query embedding alone.
    embed: Latency,
    /// Hybrid recall (query embedding + vector search + lexical + tags + recency + fusion), k = 10.
    hybrid_recall: Latency,
    /// Lexical-only recall on the same index, same queries (the baseline).
    lexical_recall: Latency,
}

const QUERY_TEXTS: &[&str] = &[
    "why did the weather data reader fall over?",
    "how do we retry a failed deploy",
    "where does the alert queue live",
    "what is the token budget for context",
    "sqlite migration for the schema",
    "latency of the router on cold start",
    "backup schedule and retention",
    "the grib parser crash on truncated files",
    "which plugin handles harvest",
    "metrics for recall quality",
];

fn warm(n: usize, model: &Path, opts: &VectorBench) -> anyhow::Result<WarmReport> {
    let embedder: Arc<dyn cairn_embed::Embedder> = Arc::new(cairn_embed::LocalEmbedder::load(model)?);
    let dim = embedder.dim();
    eprintln!("warm: {n} docs: building the full-text index");
    let dir = opts.data.join(format!("warm-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    let index = RecallIndex::open_or_create(&dir.join("index"))?;
    let mut writer = index.writer_with(2, 256 << 20)?;
    for i in 0..n {
        let (item, chunk) = item_for(i);
        writer.upsert(&item, &[chunk])?;
    }
    writer.commit(n as u64)?;
    writer.finish()?;
    let vectors = topic_vectors(n, dim, 99);
    let mut vindex = VectorIndex::new(embedder.model_id(), dim, VectorSettings::default());
    for (i, v) in vectors.iter().enumerate() {
        let (item, chunk) = item_for(i);
        vindex.upsert(&chunk.id, &item.id, &item.project, item.audience, v)?;
    }
    vindex.maintain();
    let lane = VectorLane::new(embedder.clone(), Arc::new(RwLock::new(vindex)));
    let hybrid = Recaller::new(&index, RecallSettings::default())?.with_vectors(Some(lane));
    let lexical =
        Recaller::new(&index, RecallSettings::default().only_lanes(&[cairn_recall::lane::LEXICAL]))?;
    let texts: Vec<String> =
        (0..opts.queries).map(|i| QUERY_TEXTS[i % QUERY_TEXTS.len()].to_owned()).collect();
    let now = n as i64 * 1000;
    let time_texts = |f: &dyn Fn(&str)| -> Latency {
        for t in texts.iter().take(5) {
            f(t);
        }
        let mut times: Vec<f64> = texts
            .iter()
            .map(|t| {
                let s = Instant::now();
                f(t);
                s.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        Latency { p50_ms: percentile(&times, 0.5), p99_ms: percentile(&times, 0.99) }
    };
    let embed = time_texts(&|t| {
        std::hint::black_box(embedder.embed(&[t], cairn_embed::EmbedKind::Query).ok());
    });
    let hybrid_recall = time_texts(&|t| {
        let r = hybrid.recall(&RecallQuery::new(t, Scope::owner(None), 10, now));
        assert!(r.lanes.iter().any(|l| l.name == "vector" && l.status == cairn_core::LaneStatus::Ok));
        std::hint::black_box(r);
    });
    let lexical_recall = time_texts(&|t| {
        std::hint::black_box(lexical.recall(&RecallQuery::new(t, Scope::owner(None), 10, now)));
    });
    Ok(WarmReport { n, model_id: embedder.model_id().to_owned(), embed, hybrid_recall, lexical_recall })
}

/// Runs every size, then the warm hybrid measurement at the largest size when a model is given.
pub(crate) fn run(opts: &VectorBench) -> anyhow::Result<()> {
    std::fs::create_dir_all(&opts.data)?;
    let mut sizes = Vec::new();
    for &n in &opts.sizes {
        let r = bench_size(n, opts)?;
        println!("{}", serde_json::to_string(&r)?);
        sizes.push(r);
    }
    if let (Some(model), Some(&n)) = (&opts.model, opts.sizes.iter().max()) {
        let r = warm(n, model, opts)?;
        println!("{}", serde_json::to_string(&r)?);
    }
    Ok(())
}
