//! Embedding throughput and single-query latency of a model directory on a JSONL corpus.
//!
//! ```text
//! cargo run --release -p cairn-embed --example throughput -- MODEL_DIR corpus.jsonl [BATCH,BATCH..] [queries.jsonl]
//! ```
//! (`cairn-bench embed` is the full benchmark; this is the quick loop for tuning.)

use std::time::Instant;

use cairn_embed::{EmbedKind, Embedder, LocalEmbedder};

fn field(path: &str, name: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("corpus readable")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("JSON line")[name]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let texts = field(&args[2], "text");
    let batches: Vec<usize> = args
        .get(3)
        .map_or("32".into(), Clone::clone)
        .split(',')
        .map(|b| b.parse().expect("batch size"))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let model = LocalEmbedder::load(dir)?;
    let tokens: usize = model.tokenize(&refs)?.iter().map(Vec::len).sum();
    model.embed(&refs[..128], EmbedKind::Document)?;
    for bs in batches {
        let m = LocalEmbedder::load(dir)?.with_batch_size(bs);
        let t = Instant::now();
        m.embed(&refs, EmbedKind::Document)?;
        let s = t.elapsed().as_secs_f64();
        println!(
            "batch {bs}: {} texts, {tokens} tokens in {s:.2} s: {:.1} texts/s, {:.0} tokens/s",
            refs.len(),
            refs.len() as f64 / s,
            tokens as f64 / s
        );
    }
    let qs = args.get(4).map_or_else(|| texts.clone(), |q| field(q, "question"));
    let mut lat: Vec<f64> = qs
        .iter()
        .take(210)
        .map(|q| {
            let t = Instant::now();
            model.embed(&[q], EmbedKind::Query).expect("embeds");
            t.elapsed().as_secs_f64() * 1000.0
        })
        .skip(10)
        .collect();
    lat.sort_by(f64::total_cmp);
    println!(
        "single query: p50 {:.2} ms, p99 {:.2} ms (n={})",
        lat[lat.len() / 2],
        lat[lat.len() * 99 / 100],
        lat.len()
    );
    Ok(())
}
