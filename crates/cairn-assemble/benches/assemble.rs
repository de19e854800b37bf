//! Assembly micro-benchmark: 50 candidate hits (40 topic, 10 recent) into a 2,000-token budget.
//!
//! `cargo bench -p cairn-assemble --bench assemble`

use cairn_assemble::{AssembleRequest, CountCache, Format, Level, assemble, assemble_with};
use cairn_core::{Audience, Hit, ItemKind};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

const WORDS: &[&str] = &[
    "the",
    "ladder",
    "spread",
    "memory",
    "project",
    "review",
    "budget",
    "token",
    "status",
    "agent",
    "context",
    "session",
    "decision",
    "we",
    "should",
    "because",
    "after",
    "Friday",
    "risk",
    "equity",
    "notes",
    "rotation",
    "signal",
    "store",
    "index",
    "query",
    "latency",
    "benchmark",
    "turn",
    "Caroline",
    "Melanie",
    "painting",
    "adoption",
    "support",
    "group",
    "summer",
    "camping",
    "2023",
    "42",
    "is",
    "was",
    "and",
    "of",
    "to",
    "in",
];

/// A deterministic pseudo-random sentence stream (xorshift), so runs compare.
fn prose(seed: u64, words: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    for i in 0..words {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i > 0 {
            out.push(if i.is_multiple_of(13) { '\n' } else { ' ' });
        }
        out.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
        if i % 11 == 10 {
            out.push('.');
        }
    }
    out
}

fn hit(i: u64, words: usize) -> Hit {
    cairn_test::item(format!("memory-file:memory/daily/{i:03}.md"))
        .kind(if i.is_multiple_of(2) { ItemKind::Turn } else { ItemKind::Section })
        .title(format!("Note {i}: {}", prose(i + 1000, 5)))
        .text(prose(i, words))
        .tags(["memory".to_owned(), format!("t{}", i % 7)])
        .audience(Audience::Private)
        .file(format!("memory/daily/{i:03}.md"), 1, 40)
        .created_at(1_773_792_000_000 - i as i64 * 3_600_000)
        .hit(1.0 / (1.0 + i as f32))
}

/// 40 topic hits (turn-sized and section-sized, alternating) and 10 recent ones.
fn request(format: Format, max_level: Level, verify: bool) -> AssembleRequest {
    let mut req = AssembleRequest::new("what did we decide about the ladder?", 2000);
    req.query_tags = vec!["memory".into(), "ladder".into()];
    req.topic = (0..40).map(|i| hit(i, if i.is_multiple_of(2) { 40 } else { 250 })).collect();
    req.recent = (100..110).map(|i| hit(i, 60)).collect();
    req.options.format = format;
    req.options.max_level = max_level;
    req.options.verify = verify;
    req
}

#[divan::bench(args = [true, false])]
fn markdown_l1(bencher: Bencher, verify: bool) {
    let req = request(Format::Markdown, Level::L1, verify);
    assert!(assemble(&req).tokens <= 2000);
    bencher.bench(|| assemble(black_box(&req)));
}

#[divan::bench(args = [true, false])]
fn xml_l1(bencher: Bencher, verify: bool) {
    let req = request(Format::Xml, Level::L1, verify);
    bencher.bench(|| assemble(black_box(&req)));
}

#[divan::bench(args = [true, false])]
fn markdown_l2(bencher: Bencher, verify: bool) {
    let req = request(Format::Markdown, Level::L2, verify);
    bencher.bench(|| assemble(black_box(&req)));
}

/// The same, with token counts memoised across calls (warm: every piece seen before).
#[divan::bench(args = [true, false])]
fn markdown_l1_warm_cache(bencher: Bencher, verify: bool) {
    let req = request(Format::Markdown, Level::L1, verify);
    let mut cache = CountCache::default();
    assemble_with(&req, &mut cache);
    bencher.bench_local(|| assemble_with(black_box(&req), &mut cache));
}

/// For scale: one o200k count of a finished ~2,000-token block.
#[divan::bench]
fn count_final_block(bencher: Bencher) {
    let block = assemble(&request(Format::Markdown, Level::L1, false)).block;
    let tok = cairn_tokens::Tokenizer::new(cairn_tokens::Encoding::O200k);
    bencher.bench(|| tok.count(black_box(&block)));
}
