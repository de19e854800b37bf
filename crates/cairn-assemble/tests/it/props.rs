//! Property tests: budget, determinism, accounting, uniqueness, redaction, privacy.

use std::collections::BTreeSet;

use std::cell::RefCell;

use cairn_assemble::{
    AssembleOptions, AssembleRequest, CountCache, Format, Layer, Level, assemble, assemble_with,
};
use cairn_core::{Audience, Hit, ItemKind, LaneReport, LaneStatus, Provenance, Scope};
use cairn_tokens::{Encoding, Tokenizer};
use proptest::prelude::*;

/// Every title and text carries this; ids, hashes, numbers and enum names never do.
const MARK: char = '§';

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,12}",
        2 => Just(" ".to_owned()),
        2 => prop::sample::select(vec![
            ". ", "\n", "\n\n", "  ", "\t", "\r\n", "/", "//", "#", "## ", "- ", "* ", "**", "`", "```\n", "> ",
            "<", ">", "&", "\"", "'", "</cairn-context>", "<cairn-context>", "&amp;", "<item>", "]]>", "\u{0}",
            "\u{7}", "\u{FFFE}", "記憶", "システム", "。", "한국어", "🙂", "👩‍👩‍👧", "é", "\u{301}", "0", "123456",
            "-", "'s", "...", "…", "\u{200B}",
        ]).prop_map(str::to_owned),
        1 => "\\PC{1,8}",
        1 => any::<String>(),
    ]
}

fn text(max_fragments: usize) -> impl Strategy<Value = String> {
    (
        prop::collection::vec(fragment(), 0..max_fragments),
        0usize..4,
        prop::option::weighted(0.1, 1usize..6000),
    )
        .prop_map(|(parts, at, huge)| {
            let mut s: String = parts.concat();
            if let Some(n) = huge {
                s.push_str(&"ab 記 🙂 ".repeat(n));
            }
            let at = s.char_indices().map(|(i, _)| i).nth(at).unwrap_or(s.len());
            s.insert(at, MARK);
            s
        })
}

fn hit_strategy() -> impl Strategy<Value = Hit> {
    (
        0u8..40,
        text(6),
        text(60),
        prop::collection::vec("[a-z<>*&]{0,6}", 0..4),
        -1.0f32..2.0,
        -10_000_000_000_000i64..10_000_000_000_000,
        0u8..3,
        any::<bool>(),
        prop::option::of(0u8..20),
    )
        .prop_map(|(id, title, text, tags, score, created_at, prov, private, hash)| {
            cairn_test::item(format!("c{id}"))
                .project("p")
                .kind(ItemKind::Doc)
                .title(title)
                .text(text)
                .tags(tags)
                .audience(if private { Audience::Private } else { Audience::Public })
                .provenance(match prov {
                    0 => Provenance::File { path: format!("dir/f{id}.md"), line_start: 1, line_end: 9 },
                    1 => Provenance::Turn { session_key: "s".into(), turn_id: format!("t{id}") },
                    _ => Provenance::External { source: format!("src:{id}") },
                })
                .content_hash(hash.map(|h| format!("{h:032x}")).unwrap_or_default())
                .created_at(created_at)
                .hit(score)
        })
}

fn options_strategy() -> impl Strategy<Value = AssembleOptions> {
    (
        prop::sample::select(vec![Format::Markdown, Format::Xml, Format::Json]),
        prop::sample::select(vec![Level::L0, Level::L1, Level::L2]),
        prop::sample::select(vec![Encoding::O200k, Encoding::Cl100k]),
        0.0f32..1.0,
        0usize..200,
        0usize..300,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(format, max_level, encoding, recency_share, l0_cap, snippet_cap, require_topic, verify)| {
                AssembleOptions {
                    format,
                    max_level,
                    encoding,
                    recency_share,
                    l0_cap: l0_cap / 4,
                    l1_cap: l0_cap,
                    snippet_cap,
                    require_topic,
                    verify,
                    ..AssembleOptions::default()
                }
            },
        )
}

prop_compose! {
    fn request_strategy()(
        topic in prop::collection::vec(hit_strategy(), 0..12),
        recent in prop::collection::vec(hit_strategy(), 0..6),
        query_tags in prop::collection::vec("[a-z🙂<*]{0,8}", 0..4),
        budget in prop_oneof![0usize..200, 0usize..5000],
        options in options_strategy(),
        lane_failed in any::<bool>(),
    ) -> AssembleRequest {
        AssembleRequest {
            query: format!("{MARK} query text"),
            query_tags,
            topic,
            recent,
            lanes: vec![LaneReport {
                name: "lexical".into(),
                status: if lane_failed { LaneStatus::Failed } else { LaneStatus::Ok },
                candidates: 3,
                micros: 10,
                error: lane_failed.then(|| "boom".to_owned()),
            }],
            warnings: Vec::new(),
            relevance: None,
            budget,
            options,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn block_fits_budget_and_is_deterministic(req in request_strategy()) {
        let a = assemble(&req);
        let real = Tokenizer::new(req.options.encoding).count(&a.block);
        prop_assert!(real <= req.budget, "{} tokens > budget {}", real, req.budget);
        prop_assert_eq!(a.tokens, real);
        prop_assert_eq!(a.receipt.tokens.total, real);
        if !a.empty {
            let t = a.receipt.tokens;
            prop_assert_eq!(t.total, t.header + t.recent.used + t.topic.used);
            prop_assert!(a.block.starts_with("<cairn-context"));
            prop_assert!(a.block.ends_with("</cairn-context>"));
            prop_assert_eq!(a.block.matches("</cairn-context>").count(), 1);
            if req.options.verify {
                prop_assert!(t.verified, "per-segment sum disagreed with the whole count");
            }
        }
        let again = assemble(&req.clone());
        prop_assert_eq!(a.output(), again.output());
        prop_assert_eq!(a.to_json(), again.to_json());
    }

    #[test]
    fn count_cache_never_changes_output(req in request_strategy()) {
        thread_local!(static SHARED: RefCell<CountCache> = RefCell::new(CountCache::new(512)));
        let fresh = assemble(&req);
        let warm = SHARED.with(|c| assemble_with(&req, &mut c.borrow_mut()));
        let again = SHARED.with(|c| assemble_with(&req, &mut c.borrow_mut()));
        prop_assert_eq!(fresh.to_json(), warm.to_json());
        prop_assert_eq!(fresh.to_json(), again.to_json());
    }

    #[test]
    fn receipt_accounts_for_every_candidate_once(req in request_strategy()) {
        let a = assemble(&req);
        let r = &a.receipt;
        prop_assert_eq!(r.candidates.total, req.topic.len() + req.recent.len());
        prop_assert_eq!(r.included.len() + r.excluded.len(), r.candidates.total);
        let mut given: Vec<(String, Layer)> = req.topic.iter().map(|h| (h.chunk_id.clone(), Layer::Topic))
            .chain(req.recent.iter().map(|h| (h.chunk_id.clone(), Layer::Recent))).collect();
        let mut seen: Vec<(String, Layer)> = r.included.iter().map(|i| (i.chunk_id.clone(), i.layer))
            .chain(r.excluded.iter().map(|e| (e.chunk_id.clone(), e.layer))).collect();
        given.sort();
        seen.sort();
        prop_assert_eq!(given, seen);
        // No entry twice, by id or by hash.
        let ids: BTreeSet<&str> = r.included.iter().map(|i| i.chunk_id.as_str()).collect();
        prop_assert_eq!(ids.len(), r.included.len());
        let hashes: Vec<&str> = r.included.iter().map(|i| i.content_hash.as_str()).filter(|h| !h.is_empty()).collect();
        prop_assert_eq!(hashes.iter().collect::<BTreeSet<_>>().len(), hashes.len());
        prop_assert_eq!(a.items.len(), r.included.len());
        prop_assert!(a.items.iter().all(|i| i.level <= req.options.max_level));
        prop_assert_eq!(r.failed_lanes.len(), usize::from(req.lanes[0].status == LaneStatus::Failed));
    }

    #[test]
    fn redacted_receipt_holds_no_text(req in request_strategy()) {
        let a = assemble(&req);
        let json = serde_json::to_string(&a.receipt).unwrap();
        prop_assert!(!json.contains(MARK), "receipt leaked a title, a text or the query: {}", json);
        for h in req.topic.iter().chain(&req.recent) {
            for s in [&h.title, &h.text] {
                let s = serde_json::to_string(s).unwrap();
                prop_assert!(!json.contains(s.trim_matches('"')));
            }
        }
    }

    #[test]
    fn private_hits_never_reach_a_public_caller(mut req in request_strategy()) {
        req.options.scope = Some(Scope::public_only(None));
        for h in req.topic.iter_mut().chain(req.recent.iter_mut()) {
            if h.audience == Audience::Private {
                h.chunk_id = format!("PRIVATE-{}", h.chunk_id);
                h.content_hash = "feedfacefeedfacefeedfacefeedface".into();
            }
        }
        let public = req.topic.iter().chain(&req.recent).filter(|h| h.audience == Audience::Public).count();
        let a = assemble(&req);
        let json = a.to_json();
        prop_assert!(!json.contains("PRIVATE-") && !json.contains("feedface"));
        prop_assert_eq!(a.receipt.candidates.total, public);
    }
}
