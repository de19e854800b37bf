//! `cairn-bench embed`: local embedding throughput (texts/s, tokens/s at each batch size) on a JSONL
//! corpus, single-query latency, and peak memory. The same texts and token definition as the
//! sentence-transformers peer (`st_embed_peer.py`): word pieces including `[CLS]`/`[SEP]`, truncated at
//! `max_seq_length`, no padding.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use cairn_embed::{EmbedKind, Embedder, LocalEmbedder};

/// What the `embed` subcommand was asked.
pub(crate) struct EmbedBench<'a> {
    pub(crate) model: &'a Path,
    pub(crate) corpus: &'a Path,
    pub(crate) queries: Option<&'a Path>,
    pub(crate) batches: &'a [usize],
    pub(crate) repeats: usize,
    pub(crate) single: usize,
}

fn read_field(path: &Path, field: &str) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading `{}`", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).with_context(|| format!("`{}` line {}", path.display(), i + 1))?;
        let s = v.get(field).and_then(|s| s.as_str());
        out.push(s.with_context(|| format!("`{}` line {}: no `{field}`", path.display(), i + 1))?.to_owned());
    }
    Ok(out)
}

pub(crate) fn run(b: &EmbedBench<'_>) -> anyhow::Result<serde_json::Value> {
    let started = Instant::now();
    let model = LocalEmbedder::load(b.model)?;
    let load_s = started.elapsed().as_secs_f64();
    let texts = read_field(b.corpus, "text")?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let started = Instant::now();
    let tokens: usize = model.tokenize(&refs)?.iter().map(Vec::len).sum();
    let tokenize_s = started.elapsed().as_secs_f64();
    model.embed(&refs[..refs.len().min(128)], EmbedKind::Document)?; // warm-up

    let mut batches = serde_json::Map::new();
    for &bs in b.batches {
        let m = LocalEmbedder::load(b.model)?.with_batch_size(bs);
        let mut runs = Vec::new();
        for _ in 0..b.repeats.max(1) {
            let t = Instant::now();
            let v = m.embed(&refs, EmbedKind::Document)?;
            runs.push(t.elapsed().as_secs_f64());
            anyhow::ensure!(v.len() == refs.len() && v[0].len() == m.dim());
        }
        let s = crate::median(runs.clone());
        eprintln!(
            "batch {bs}: {:.2} s median of {:?} -> {:.1} texts/s, {:.0} tokens/s",
            s,
            runs,
            refs.len() as f64 / s,
            tokens as f64 / s
        );
        batches.insert(
            bs.to_string(),
            serde_json::json!({"seconds": s, "runs_s": runs, "texts_per_s": refs.len() as f64 / s,
                               "tokens_per_s": tokens as f64 / s}),
        );
    }

    let questions = match b.queries {
        Some(q) => read_field(q, "question")?,
        None => texts.clone(),
    };
    let questions: Vec<&str> = questions.iter().map(String::as_str).take(b.single + 10).collect();
    for q in questions.iter().take(10) {
        model.embed(&[q], EmbedKind::Query)?;
    }
    let mut lat: Vec<f64> = Vec::new();
    for q in questions.iter().skip(10) {
        let t = Instant::now();
        model.embed(&[q], EmbedKind::Query)?;
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    lat.sort_by(f64::total_cmp);
    let threads = std::env::var("RAYON_NUM_THREADS").ok();
    Ok(serde_json::json!({
        "bench": "embed",
        "engine": {"model_id": model.model_id(), "dim": model.dim(), "max_seq_length": model.max_seq_length(),
                   "threads": threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).to_string())},
        "corpus": {"path": b.corpus, "n_texts": refs.len(), "tokens": tokens,
                   "tokens_per_text": tokens as f64 / refs.len().max(1) as f64},
        "load_s": load_s,
        "tokenize_s": tokenize_s,
        "batch": batches,
        "single_query": {"n": lat.len(), "p50_ms": crate::median(lat.clone()), "p90_ms": crate::percentile(&lat, 0.9),
                         "p99_ms": crate::percentile(&lat, 0.99), "max_ms": lat.last().copied().unwrap_or(f64::NAN)},
        "peak_rss_mb": crate::peak_rss_mb(),
    }))
}
