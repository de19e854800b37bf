//! Hits to assemble.

use cairn_assemble::{AssembleRequest, Assembly, assemble};
use cairn_core::{Audience, Hit, ItemKind, LaneReport, LaneStatus, Provenance};
use cairn_tokens::Tokenizer;

/// 2026-03-18T00:00:00Z.
pub(crate) const MAR_18: i64 = 1_773_792_000_000;
pub(crate) const DAY: i64 = 86_400_000;

pub(crate) fn hit(id: &str, title: &str, text: &str) -> Hit {
    cairn_test::item(id)
        .kind(ItemKind::File)
        .title(title)
        .text(text)
        .audience(Audience::Private)
        .file(format!("memory/{id}.md"), 1, 10)
        .created_at(MAR_18)
        .hit(1.0)
}

pub(crate) fn with(mut h: Hit, f: impl FnOnce(&mut Hit)) -> Hit {
    f(&mut h);
    h
}

pub(crate) const MAXRISK: &str = "# MaxRisk Project Status\n\nCurrent equity: $3,884.55. Focus on 30-45 DTE debit spreads \
with defined risk. The rotation model flags energy and utilities this week.\n\n## Next steps\n\n- Review the \
spread ladder on Friday\n- **Cut** losers at 50% of max loss\n- Log every fill in the journal\n\nLonger notes \
follow here about volatility regimes, skew, and why the ladder was widened after the March drawdown. ";

/// A fixed, varied set of topic and recent hits.
pub(crate) fn request(budget: usize) -> AssembleRequest {
    let topic = vec![
        with(hit("projects/maxrisk", "MaxRisk Project Status", MAXRISK), |h| {
            h.tags = vec!["maxrisk".into(), "trading".into(), "options".into()];
            h.score = 0.92;
        }),
        with(
            hit(
                "daily/2026-03-17",
                "Trading Research Notes",
                "Volume rotation strategy analysis. Sector ETFs with rising relative volume tend to \
                 lead for two to three weeks; the signal is weak in low-liquidity names.",
            ),
            |h| {
                h.tags = vec!["maxrisk".into(), "research".into()];
                h.created_at = MAR_18 - DAY;
                h.score = 0.71;
            },
        ),
        with(
            hit(
                "notes/cjk",
                "記憶システム <設計> & \"メモ\"",
                "記憶システムの設計について話しましょう。次に、検索の速度を測ります。🙂 絵文字も大丈夫。",
            ),
            |h| {
                h.tags = vec!["memory".into()];
                h.created_at = MAR_18 - 3 * DAY;
                h.score = 0.55;
                h.provenance = Provenance::External { source: "locomo:conv-26".into() };
            },
        ),
        // Same text as the research note, another id: a near-duplicate.
        with(
            hit(
                "daily/2026-03-17-copy",
                "Trading Research Notes (copy)",
                "volume rotation strategy analysis! Sector ETFs with rising relative volume tend to \
                 lead for two to three weeks; the signal is weak in low-liquidity names",
            ),
            |h| h.score = 0.40,
        ),
    ];
    let recent = vec![
        with(
            hit(
                "turns/s1-t9",
                "Session s1, turn 9",
                "User: can you check the ladder?\nAssistant: The ladder is intact; two legs expire Friday.",
            ),
            |h| {
                h.kind = ItemKind::Turn;
                h.provenance = Provenance::Turn { session_key: "s1".into(), turn_id: "t9".into() };
                h.created_at = MAR_18 + DAY;
                h.score = 0.0;
            },
        ),
        // The MaxRisk file is also recent: shown once, in the topic layer.
        with(hit("projects/maxrisk", "MaxRisk Project Status", MAXRISK), |h| {
            h.tags = vec!["maxrisk".into(), "trading".into(), "options".into()];
            h.score = 0.0;
        }),
    ];
    let mut req = AssembleRequest::new("what's the maxrisk project status?", budget);
    req.query_tags = vec!["maxrisk".into(), "trading".into()];
    req.topic = topic;
    req.recent = recent;
    req.lanes = vec![
        LaneReport {
            name: "lexical".into(),
            status: LaneStatus::Ok,
            candidates: 4,
            micros: 120,
            error: None,
        },
        LaneReport { name: "tags".into(), status: LaneStatus::Ok, candidates: 2, micros: 15, error: None },
        LaneReport {
            name: "vector".into(),
            status: LaneStatus::Failed,
            candidates: 0,
            micros: 3,
            error: Some("index missing".into()),
        },
    ];
    req
}

/// Assemble and check the invariants every assembly must hold.
pub(crate) fn run(req: &AssembleRequest) -> Assembly {
    let a = assemble(req);
    let real = Tokenizer::new(req.options.encoding).count(&a.block);
    assert!(real <= req.budget, "block has {real} tokens, budget {}", req.budget);
    assert_eq!(a.tokens, real, "reported tokens must be the real count");
    assert_eq!(a.empty, a.block.is_empty());
    assert_eq!(a.empty, a.items.is_empty());
    a
}
