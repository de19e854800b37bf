//! Exact-search latency at one size, without the store or an HNSW build: the f32 scan, the int8 scan +
//! f32 re-scoring (dispatched kernels), and the same int8 scan on the portable kernel (what baseline
//! x86-64 builds ran before the run-time dispatch), interleaved in one process.
//!
//! ```text
//! cargo run --release -p cairn-vector --example scan -- [N] [QUERIES]
//! ```

use std::time::Instant;

use cairn_core::{Audience, Scope};
use cairn_vector::kernel::{dot_i8_portable, quantize_into, simd_level};
use cairn_vector::synthetic::{near_queries, topic_vectors};
use cairn_vector::{VectorIndex, VectorSettings};

fn pct(times: &mut [f64], p: f64) -> f64 {
    times.sort_by(f64::total_cmp);
    times[((times.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(100_000, |a| a.parse().expect("N"));
    let nq: usize = args.get(2).map_or(200, |a| a.parse().expect("QUERIES"));
    let dim = 384;
    let data = topic_vectors(n, dim, 42 + n as u64);
    let queries = near_queries(&data, nq, 7);
    let settings = |quantize| VectorSettings { ann_threshold: usize::MAX, quantize, ..Default::default() };
    let mut f32_index = VectorIndex::new("m", dim, settings(false));
    let mut int8_index = VectorIndex::new("m", dim, settings(true));
    let mut codes = Vec::with_capacity(n * dim);
    for (i, v) in data.iter().enumerate() {
        let audience = if i % 3 == 0 { Audience::Private } else { Audience::Public };
        let (id, item, project) = (format!("c{i}"), format!("i{i}"), format!("p{}", i % 4));
        f32_index.upsert(&id, &item, &project, audience, v).expect("upsert");
        int8_index.upsert(&id, &item, &project, audience, v).expect("upsert");
        quantize_into(v, &mut codes);
    }
    let all = Scope::owner(None);
    let public = Scope::public_only(None);
    let mut t: [Vec<f64>; 4] = Default::default();
    let mut same = 0;
    for q in &queries {
        let s = Instant::now();
        let a = f32_index.search_exact(q, &all, 10);
        t[0].push(s.elapsed().as_secs_f64() * 1e3);
        let s = Instant::now();
        let b = int8_index.search_exact(q, &all, 10);
        t[1].push(s.elapsed().as_secs_f64() * 1e3);
        let s = Instant::now();
        std::hint::black_box(int8_index.search_exact(q, &public, 10));
        t[2].push(s.elapsed().as_secs_f64() * 1e3);
        // The portable int8 scan alone (no top-k, no re-scoring): a lower bound of the old int8 path.
        let mut qc = Vec::with_capacity(dim);
        quantize_into(q, &mut qc);
        let s = Instant::now();
        let mut best = i32::MIN;
        for row in codes.chunks_exact(dim) {
            best = best.max(dot_i8_portable(&qc, row));
        }
        std::hint::black_box(best);
        t[3].push(s.elapsed().as_secs_f64() * 1e3);
        same += usize::from(a == b);
    }
    println!("n {n}, {nq} queries, kernels: {}", simd_level());
    let names = [
        "exact f32 scan",
        "exact int8 scan + f32 re-scoring (default)",
        "same, public-only caller",
        "portable int8 scan alone (pre-dispatch kernel)",
    ];
    for (name, times) in names.iter().zip(t.iter_mut()) {
        println!("{name:48} p50 {:6.2} ms  p99 {:6.2} ms", pct(times, 0.5), pct(times, 0.99));
    }
    println!("int8 top 10 identical to f32 top 10: {same} of {nq} queries");
}
