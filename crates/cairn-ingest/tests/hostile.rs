//! Hostile input to the parsers that read what others write: frontmatter, injected-block stripping and
//! captured turns. Generated inputs (proptest, a fixed number of cases: a bounded fuzz run on stable
//! Rust) must never panic, and the worst shapes must cost linear time.

use std::time::{Duration, Instant};

use cairn_ingest::capture::{DEFAULT_STRIP_TAGS, strip_injected};
use cairn_ingest::frontmatter::{Limits, split};
use cairn_ingest::{TurnInput, validate_turn};
use proptest::prelude::*;

/// Text drawn mostly from the characters YAML, markdown and tags are made of.
fn structured(max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_owned()),
        Just("tags: ".to_owned()),
        Just("title: ".to_owned()),
        Just("date: ".to_owned()),
        Just("audience: ".to_owned()),
        Just("<cairn-context>".to_owned()),
        Just("</cairn-context>".to_owned()),
        Just("<pack-context".to_owned()),
        Just("</pack-context>".to_owned()),
        Just("<cairn-fallback>".to_owned()),
        "[\\[\\]{}:,\\-#'\"|>&*!%@ \n\t]{1,4}",
        "[a-zé漢]{1,6}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..max).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn frontmatter_never_panics(body in structured(200)) {
        let text = format!("---\n{body}");
        let _ = split(&text, &Limits::default());
        let _ = split(&body, &Limits::default());
    }

    #[test]
    fn stripping_never_panics_or_grows(text in structured(200)) {
        let tags: Vec<String> = DEFAULT_STRIP_TAGS.iter().map(|s| s.to_string()).collect();
        let out = strip_injected(&text, &tags);
        prop_assert!(out.len() <= text.len());
        // Stripping what is left changes nothing more: one pass removes every complete block.
        let again = strip_injected(&out, &tags);
        prop_assert!(again.len() <= out.len());
    }

    #[test]
    fn captures_never_panic(json in structured(120), ts in any::<Option<i64>>(), role in "[a-z]{0,10}") {
        let _ = serde_json::from_str::<TurnInput>(&json).map(|t| validate_turn(&t));
        let turn = TurnInput {
            session_key: "agent:main:main".into(),
            messages: serde_json::from_value(serde_json::json!([{"role": role, "content": json}])).unwrap(),
            timestamp: ts.map(serde_json::Value::from),
            ..Default::default()
        };
        let _ = validate_turn(&turn);
    }
}

/// Time of `f` on its input, the best of three.
fn best_of_three(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Shapes that cost quadratic time in naive parsers: a 4× larger input may cost at most about 4× (8×
/// allowed for noise), never 16×; and the 1 MB shapes of the review finish well under a second.
#[test]
fn worst_shapes_cost_linear_time() {
    let tags: Vec<String> = DEFAULT_STRIP_TAGS.iter().map(|s| s.to_string()).collect();
    // With the default limits, which are checked before any YAML is parsed (the parser itself is
    // super-linear on deep flow nesting).
    let limits = Limits::default();
    type Shape = (&'static str, fn(usize) -> String);
    let shapes: [Shape; 4] = [
        ("open tags", |n| "<cairn-context>".repeat(n)),
        ("unclosed nesting", |n| format!("{}x", "<cairn-context><pack-context>".repeat(n))),
        ("flow nesting", |n| format!("---\ntags: {}\n---\nbody", "[".repeat(n))),
        ("many tags", |n| format!("---\ntags: [{}]\n---\nbody", vec!["t"; n].join(", "))),
    ];
    for (name, make) in shapes {
        let (small, large) = (make(5_000), make(20_000));
        let time = |s: &str| {
            best_of_three(|| {
                let _ = split(s, &limits);
                let _ = strip_injected(s, &tags);
            })
        };
        let (a, b) = (time(&small), time(&large));
        let ratio = b.as_secs_f64() / a.as_secs_f64().max(1e-6);
        let huge = make(1_000_000 / make(1).len());
        let t = time(&huge);
        assert!(t < Duration::from_secs(2), "{name}: {} bytes took {t:?}", huge.len());
        assert!(
            ratio < 8.0 || b < Duration::from_millis(20),
            "{name}: 4× the input took {ratio:.1}× the time ({a:?} → {b:?})"
        );
    }
}
