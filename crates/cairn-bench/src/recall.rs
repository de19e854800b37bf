//! `cairn-bench recall`: recall latency and quality on a generated OpenClaw-style workspace (the peers'
//! `gen_corpus.py`), indexed straight from its markdown (no store).
//!
//! ```text
//! python3 ../shared/bench/peers/gen_corpus.py --n 100000 --out /tmp/peer-corpus/n100k/workspace --seed 1
//! cargo run --release -p cairn-bench -- recall \
//!     --corpus /tmp/peer-corpus/n100k/workspace --queries /tmp/peer-corpus/n100k/queries.jsonl \
//!     --index /tmp/cairn-bench/n100k/index [--chunking section|file] [--reuse]
//! ```
//!
//! Builds the index (unless `--reuse` and it exists), then runs every query once untimed and once timed in
//! one warm process, for several lane/scope configurations (all lanes, lexical only, all lanes
//! public-only). Prints one JSON object in the peers' result shape (latencies in ms, quality as Hit@1,
//! Hit@10 and MRR@10 of the query's source file, index build time and size, peak RSS).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance, Scope, content_hash};
use cairn_recall::eval::parse_timestamp;
use cairn_recall::{LaneWeights, RecallIndex, RecallQuery, RecallSettings, Recaller};
use serde_json::{Value, json};

/// Options of the recall benchmark.
#[derive(Debug, clap::Args)]
pub(crate) struct RecallArgs {
    /// The generated workspace (markdown files, read recursively)
    #[arg(long)]
    corpus: PathBuf,
    /// Queries, one JSON object per line with `query` and `file` (the note it came from) fields
    #[arg(long, required_unless_present = "build_only")]
    queries: Option<PathBuf>,
    /// Index directory (recreated unless `--reuse` and it exists)
    #[arg(long)]
    index: PathBuf,
    /// One chunk per `## ` section, or one chunk per file
    #[arg(long, default_value = "section", value_parser = ["section", "file"])]
    chunking: String,
    /// Hits per query
    #[arg(long, default_value_t = 10)]
    k: usize,
    /// Reuse the index at `--index` when there is one
    #[arg(long)]
    reuse: bool,
    /// Build the index, print its figures and stop
    #[arg(long)]
    build_only: bool,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        entries.push(e?.path());
    }
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
    Ok(())
}

/// Item and heading-aware chunks (one per `## ` section, or one per file) of a generated markdown file.
fn load(root: &Path, path: &Path, by_section: bool, public: bool) -> anyhow::Result<(Item, Vec<Chunk>)> {
    let raw = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let rel = path.strip_prefix(root)?.to_string_lossy().replace('\\', "/");
    let (mut title, mut tags, mut date, mut project) = (String::new(), Vec::new(), 0, "default".to_owned());
    let mut body = raw.as_str();
    let mut body_line = 1u32;
    if let Some(rest) = raw.strip_prefix("---\n")
        && let Some((front, after)) = rest.split_once("\n---\n")
    {
        for line in front.lines() {
            let (k, v) = line.split_once(':').unwrap_or((line, ""));
            let v = v.trim();
            match k {
                "title" => title = v.trim_matches('"').to_owned(),
                "tags" => tags = v.trim_matches(['[', ']']).split(',').map(|t| t.trim().to_owned()).collect(),
                "date" => date = parse_timestamp(v).unwrap_or(0),
                "project" => project = v.to_owned(),
                _ => {}
            }
        }
        body_line = front.lines().count() as u32 + 3;
        body = after;
    }
    let id = format!("memory-file:{rel}");
    let item = Item {
        id: id.clone(),
        project,
        kind: ItemKind::File,
        title: title.clone(),
        text: body.to_owned(),
        tags,
        audience: if public { Audience::Public } else { Audience::Private },
        provenance: Provenance::File {
            path: rel.clone(),
            line_start: 1,
            line_end: raw.lines().count() as u32,
        },
        content_hash: content_hash(raw.as_bytes()),
        created_at: date,
        observed_at: date,
        metadata: Default::default(),
    };
    let mut sections: Vec<(String, String, u32, u32)> = Vec::new();
    let mut cur = (String::new(), String::new(), body_line, body_line);
    for (i, line) in body.lines().enumerate() {
        let n = body_line + i as u32;
        if by_section && let Some(h) = line.strip_prefix("## ") {
            if !cur.1.trim().is_empty() {
                sections.push(cur.clone());
            }
            cur = (format!("{title} > {h}"), String::new(), n, n);
            continue;
        }
        if line.starts_with("# ") {
            continue;
        }
        cur.1.push_str(line);
        cur.1.push('\n');
        cur.3 = n;
    }
    if !cur.1.trim().is_empty() {
        sections.push(cur);
    }
    let chunks = sections
        .into_iter()
        .enumerate()
        .map(|(i, (heading, text, a, b))| Chunk {
            id: Chunk::make_id(&id, i as u32),
            item_id: id.clone(),
            ordinal: i as u32,
            heading,
            content_hash: content_hash(text.as_bytes()),
            text,
            provenance: Provenance::File { path: rel.clone(), line_start: a, line_end: b },
        })
        .collect();
    Ok((item, chunks))
}

/// Rounded to `1 / scale` (e.g. `scale = 10.0`: one decimal).
fn round(x: f64, scale: f64) -> f64 {
    (x * scale).round() / scale
}

/// Latency figures of one run, in ms.
fn latency(mut xs: Vec<f64>) -> Value {
    xs.sort_by(f64::total_cmp);
    let pct = |p: f64| xs[((p / 100.0 * xs.len() as f64) as usize).min(xs.len() - 1)];
    let r = |x: f64| round(x, 1000.0);
    json!({
        "n": xs.len(),
        "p50_ms": r(pct(50.0)), "p90_ms": r(pct(90.0)), "p99_ms": r(pct(99.0)),
        "mean_ms": r(xs.iter().sum::<f64>() / xs.len() as f64), "max_ms": r(xs[xs.len() - 1]),
    })
}

/// Bytes of the files directly in `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |rd| rd.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum())
}

/// Indexes every markdown file of `corpus` (every fourth item public); returns the build figures.
fn build(corpus: &Path, files: &[PathBuf], index_dir: &Path, by_section: bool) -> anyhow::Result<Value> {
    let t = Instant::now();
    let index = RecallIndex::recreate(index_dir)?;
    let mut writer = index.writer_with(2, 512 << 20)?;
    let mut chunks_n = 0;
    for (i, f) in files.iter().enumerate() {
        // Every fourth item is public, so the public-only run searches a quarter of the store.
        let (item, chunks) = load(corpus, f, by_section, i % 4 == 0)?;
        chunks_n += chunks.len();
        writer.upsert(&item, &chunks)?;
    }
    writer.commit(files.len() as u64)?;
    writer.finish()?;
    Ok(json!({
        "reused": false, "items": files.len(), "chunks": chunks_n,
        "index_s": round(t.elapsed().as_secs_f64(), 100.0),
    }))
}

/// Runs the benchmark and returns its report (the index figures alone with `--build-only`).
pub(crate) fn run(args: &RecallArgs) -> anyhow::Result<Value> {
    let mut files = Vec::new();
    walk(&args.corpus, &mut files)?;
    let mut index_info = json!({"reused": true});
    let exists = RecallIndex::open(&args.index).is_ok();
    if !(args.reuse && exists) {
        index_info = build(&args.corpus, &files, &args.index, args.chunking == "section")?;
    }
    index_info["index_mb"] = json!(round(dir_bytes(&args.index) as f64 / 1048576.0, 10.0));
    let Some(queries_path) = args.queries.as_deref().filter(|_| !args.build_only) else {
        return Ok(index_info);
    };

    let queries: Vec<Value> = std::fs::read_to_string(queries_path)
        .with_context(|| format!("reading {}", queries_path.display()))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .context("a query line")?;
    let index = RecallIndex::open(&args.index)?;
    let now = parse_timestamp("2026-01-04").context("the fixed `now`")?;
    let mut runs = serde_json::Map::new();
    let configs: Vec<(&str, LaneWeights, bool)> = vec![
        ("all_lanes", LaneWeights::default(), false),
        ("lexical_only", LaneWeights::lexical_only(), false),
        ("all_lanes_public_only", LaneWeights::default(), true),
    ];
    let mut quality = Value::Null;
    for (name, weights, public_only) in configs {
        let settings = RecallSettings { weights, ..Default::default() };
        let recaller = Recaller::new(&index, settings)?;
        let scope = if public_only { Scope::public_only(None) } else { Scope::owner(None) };
        let ask = |text: &str| {
            let q = RecallQuery::new(text, scope.clone(), args.k, now);
            recaller.recall(&q)
        };
        for q in &queries {
            ask(q["query"].as_str().unwrap_or_default());
        }
        let mut samples = Vec::with_capacity(queries.len());
        let (mut hit1, mut hit10, mut mrr) = (0usize, 0usize, 0.0f64);
        for q in &queries {
            let t = Instant::now();
            let res = ask(q["query"].as_str().unwrap_or_default());
            samples.push(t.elapsed().as_secs_f64() * 1000.0);
            let want = format!("memory-file:{}", q["file"].as_str().unwrap_or_default());
            let mut ranked: Vec<&str> = Vec::new();
            for h in &res.hits {
                if !ranked.contains(&h.item_id.as_str()) {
                    ranked.push(&h.item_id);
                }
            }
            if let Some(p) = ranked.iter().position(|i| *i == want) {
                hit1 += usize::from(p == 0);
                hit10 += usize::from(p < 10);
                mrr += 1.0 / (p as f64 + 1.0);
            }
        }
        let n = queries.len().max(1) as f64;
        if name == "all_lanes" {
            quality = json!({"all": {"n": queries.len(), "hit@1": hit1 as f64 / n, "hit@10": hit10 as f64 / n, "mrr@10": mrr / n}});
        }
        runs.insert(name.to_owned(), latency(samples));
    }
    let peak = crate::peak_rss_mb();
    Ok(json!({
        "peer": "cairn",
        "engine": {"tantivy": "0.27", "ranking": "BM25 k1=1.2 b=0.75, title x2, OR of analysed terms, block-max WAND",
                   "chunking": args.chunking, "k": args.k},
        "corpus": {"dir": args.corpus, "n_files": files.len()},
        "index": index_info,
        "query": runs["all_lanes"].clone(),
        "runs": runs,
        "quality": quality,
        "peak_rss_mb": if peak.is_nan() { 0.0 } else { round(peak, 10.0) },
    }))
}
