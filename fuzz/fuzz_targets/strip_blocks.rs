//! Stripping injected context blocks (`<cairn-context>`, `<pack-context>`, other memory plugins' blocks)
//! from a captured turn (`cairn-ingest` `capture::strip_injected`) before it is stored.
//!
//! Checks: no panic; linear time; the output never grows, and stripping it again never grows it.
#![no_main]

use cairn_ingest::capture::{DEFAULT_STRIP_TAGS, strip_injected};
use libfuzzer_sys::fuzz_target;

cairn_fuzz::asan_defaults!();

fuzz_target!(|data: &[u8]| {
    // The first byte picks the tag list: the default one (7 inputs in 8) or the default plus a short tag
    // name taken from the input, so names that need escaping in the regex are tried too. Tag lists come
    // from `capture.strip_tags` in the owner's config: short names, never megabytes.
    let Some((&pick, rest)) = data.split_first() else { return };
    let mut tags: Vec<String> = DEFAULT_STRIP_TAGS.iter().map(|s| s.to_string()).collect();
    let mut rest = rest;
    if pick & 0xe0 == 0xe0 {
        let n = usize::from(pick & 0x1f).min(rest.len());
        let name = String::from_utf8_lossy(&rest[..n]).into_owned();
        rest = &rest[n..];
        if !name.trim().is_empty() {
            tags.push(name);
        }
    }
    let text = cairn_fuzz::text(rest);
    let text = text.as_ref();
    let out = cairn_fuzz::linear("strip_injected", text.len(), || strip_injected(text, &tags));
    assert!(out.len() <= text.len(), "stripping grew the text: {} → {} bytes", text.len(), out.len());
    let again = strip_injected(&out, &tags);
    assert!(again.len() <= out.len());
});
