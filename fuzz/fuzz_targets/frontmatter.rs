//! Frontmatter as harvest reads it (`harvest/read.rs`): split with the limits checked before any YAML is
//! parsed, then the values a harvest uses (tags normalised, date parsed, audience parsed, body chunked).
//!
//! Checks: no panic; linear time; frontmatter over `max_tags` is never accepted; the body is a suffix of
//! the text and starts on a line of it; chunks only hold body text, under bounded heading paths.
#![no_main]

use cairn_ingest::chunk::{MAX_HEADING_TITLE_BYTES, chunk_markdown};
use cairn_ingest::frontmatter::{Limits, split};
use cairn_ingest::harvest::{HarvestSettings, parse_date};
use cairn_ingest::tags::normalize_all;
use libfuzzer_sys::fuzz_target;

cairn_fuzz::asan_defaults!();

fuzz_target!(|data: &[u8]| {
    // The first byte picks the limits: the defaults (most inputs), or small ones so the limit paths and
    // the inputs just under them are reached with short inputs.
    let (limits, data) = match data.split_first() {
        Some((&b, rest)) if b & 0x80 != 0 => (
            Limits {
                max_bytes: 64 + 64 * usize::from(b & 0x0f),
                max_tags: usize::from(b & 0x07),
                max_depth: usize::from((b >> 4) & 0x07),
            },
            rest,
        ),
        Some((_, rest)) => (HarvestSettings::default().frontmatter_limits(), rest),
        None => return,
    };
    let text = cairn_fuzz::text(data);
    let text = text.as_ref();
    let split = cairn_fuzz::linear("frontmatter::split", text.len(), || split(text, &limits));
    let Ok(split) = split else { return };
    assert!(text.ends_with(split.body), "the body is the end of the text");
    assert!(split.body_line >= 1 && split.body_line as usize <= text.lines().count() + 2);
    if let Some(fm) = &split.frontmatter {
        assert!(
            fm.tags.len() <= limits.max_tags,
            "{} tags accepted over the limit {}",
            fm.tags.len(),
            limits.max_tags
        );
        let tags = normalize_all(fm.tags.iter());
        assert!(tags.len() <= fm.tags.len());
        if let Some(date) = &fm.date {
            let _ = parse_date(date);
        }
        if let Some(a) = &fm.audience {
            let _ = a.parse::<cairn_core::Audience>();
        }
    }
    let chunks = cairn_fuzz::linear("chunk_markdown", split.body.len(), || {
        chunk_markdown(split.body, split.body_line, HarvestSettings::default().chunk_max_chars)
    });
    for c in &chunks {
        assert!(c.line_start <= c.line_end, "{c:?}");
        // Merging sections joins them with a blank line: at most one byte more per join.
        assert!(c.text.len() <= 2 * split.body.len(), "a chunk longer than its body");
        // Each section repeats its heading path: a bounded one (a huge title over many small sections
        // once cost quadratic memory).
        assert!(
            c.heading.len() <= 6 * (MAX_HEADING_TITLE_BYTES + 3),
            "a heading path of {} bytes",
            c.heading.len()
        );
    }
});
