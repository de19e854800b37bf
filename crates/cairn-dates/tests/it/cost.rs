//! The cost per prompt, printed (run with `--nocapture`); the bound is loose enough for debug builds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use cairn_dates::{Locale, resolve};

use crate::REF;

fn per_call(prompt: &str) -> Duration {
    let runs = 2000;
    let started = Instant::now();
    for _ in 0..runs {
        black_box(resolve(black_box(prompt), REF, &Locale::ALL));
    }
    started.elapsed() / runs
}

#[test]
fn cost_per_prompt() {
    let plain = "Can you summarise how the retrieval pipeline ranks candidates, and which of the \
                 embedding settings we changed affect recall on the evaluation set? Keep it short.";
    let dated = "What did we decide about the launch in mid-March, and did anything change since \
                 last Tuesday or over Thanksgiving weekend?";
    let (p, d) = (per_call(plain), per_call(dated));
    println!(
        "cairn-dates: {} bytes without a date: {p:?}/prompt; {} bytes with three: {d:?}/prompt",
        plain.len(),
        dated.len()
    );
    let big = dated.repeat(64 * 1024 / dated.len());
    let started = Instant::now();
    let found = resolve(&big, REF, &Locale::ALL).len();
    let b = started.elapsed();
    println!("cairn-dates: {} bytes, {found} ranges: {b:?}", big.len());
    assert!(p < Duration::from_millis(1), "{p:?}");
    assert!(d < Duration::from_millis(1), "{d:?}");
}
