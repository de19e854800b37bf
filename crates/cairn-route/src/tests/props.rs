//! P1–P6 and the composition properties over generated configs.

use cairn_core::Audience;
use proptest::prelude::*;

use super::{ENTITIES, FILLER, KEYWORDS, Model, model};
use crate::{
    CandidateStatus, Decision, EntitySummary, Outcome, RouteConfig, Router, SessionState, TurnInput,
};

const SHARED_KEYS: [&str; 4] = [
    "agent:main:telegram:group:-1",
    "agent:main:telegram:group:-1:topic:7",
    "agent:main:telegram:direct:999",
    "agent:main:slack:channel:C1",
];

fn load(m: &Model) -> (tempfile::TempDir, Router) {
    let tmp = tempfile::tempdir().unwrap();
    m.write(tmp.path());
    let r = Router::load(tmp.path()).unwrap_or_else(|e| panic!("generated config must load: {e}"));
    (tmp, r)
}

fn prompt() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            2 => (0..KEYWORDS.len()).prop_map(|k| KEYWORDS[k].to_uppercase()),
            3 => (0..FILLER.len()).prop_map(|f| FILLER[f].to_owned()),
        ],
        0..12,
    )
    .prop_map(|w| w.join(" "))
}

fn entities() -> impl Strategy<Value = Vec<EntitySummary>> {
    prop::collection::vec(
        (0..ENTITIES.len() + 1).prop_map(|e| EntitySummary {
            summary: ENTITIES.get(e).map_or("nothing relevant".to_owned(), |s| format!("a {s} thing")),
            facts: vec![],
        }),
        0..3,
    )
}

fn decide(r: &Router, prompt: &str, key: Option<&str>, ents: &[EntitySummary]) -> Decision {
    let mut input = TurnInput::new(prompt).entities(ents);
    input.session_key = key;
    r.decide(&input, &mut SessionState::default())
}

fn pack_scope(cfg: &RouteConfig, id: &str) -> Audience {
    cfg.pack(id).unwrap().scope
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// P1: no keyword → no pack; any injected (non-sticky) winner has ≥ 1 keyword hit.
    #[test]
    fn p1_safe_default(m in model(), fillers in prop::collection::vec(0..FILLER.len(), 0..10), p in prompt(), e in entities()) {
        let (_tmp, r) = load(&m);
        let text: Vec<&str> = fillers.iter().map(|&f| FILLER[f]).collect();
        let d = decide(&r, &text.join(" "), Some("agent:main:main"), &e);
        prop_assert!(d.pack_block.is_none());
        prop_assert_eq!(d.outcome, Outcome::NoMatch);
        let d = decide(&r, &p, None, &e);
        if d.injected() {
            let w = d.scores.iter().find(|s| s.status == CandidateStatus::Winner).unwrap();
            prop_assert!(!w.keywords.is_empty());
        }
    }

    /// P2: same input and config → same decision, also across a reload of the same files.
    #[test]
    fn p2_deterministic(m in model(), p in prompt(), e in entities(), k in 0..5usize) {
        let (tmp, r) = load(&m);
        let key = SHARED_KEYS.get(k).copied().unwrap_or("agent:main:main");
        let a = decide(&r, &p, Some(key), &e);
        let b = decide(&r, &p, Some(key), &e);
        prop_assert_eq!(&a, &b);
        let r2 = Router::load(tmp.path()).unwrap();
        prop_assert_eq!(&a, &decide(&r2, &p, Some(key), &e));
    }

    /// P3: a pack only for a unique top score; a tie at the top injects nothing.
    #[test]
    fn p3_bounded_ambiguity(m in model(), p in prompt(), e in entities()) {
        let (_tmp, r) = load(&m);
        let d = decide(&r, &p, None, &e);
        let eligible: Vec<_> = d.scores.iter()
            .filter(|s| matches!(s.status, CandidateStatus::Winner | CandidateStatus::Lost | CandidateStatus::Tied))
            .collect();
        if let Some(top) = eligible.iter().map(|s| s.score).reduce(f64::max) {
            let at_top = eligible.iter().filter(|s| s.score == top).count();
            if at_top > 1 {
                prop_assert!(d.pack_block.is_none());
                let tie = matches!(d.outcome, Outcome::Tie { .. });
                prop_assert!(tie);
            } else {
                let w = eligible.iter().find(|s| s.score == top).unwrap();
                prop_assert_eq!(&w.status, &CandidateStatus::Winner);
                if d.injected() {
                    prop_assert_eq!(d.intent.as_deref(), Some(w.rule.as_str()));
                }
            }
        } else {
            prop_assert!(d.pack_block.is_none());
        }
    }

    /// P4: adding entities never lowers any rule's score; an entity that only boosts the
    /// winner (without suppressing) keeps it the winner.
    #[test]
    fn p4_monotonic_boost(m in model(), p in prompt(), e in entities(), extra in entities()) {
        let (_tmp, r) = load(&m);
        let base = decide(&r, &p, None, &e);
        let mut more = e.clone();
        more.extend(extra.iter().cloned());
        let boosted = decide(&r, &p, None, &more);
        for s in &base.scores {
            let t = boosted.scores.iter().find(|t| t.rule == s.rule).unwrap();
            prop_assert!(t.score >= s.score, "{} went from {} to {}", s.rule, s.score, t.score);
        }
        if let Some(w) = base.scores.iter().find(|s| s.status == CandidateStatus::Winner) {
            let wi: usize = w.rule[1..].parse().unwrap();
            // Entities whose boosts belong only to the winner and suppress nothing.
            let friendly: Vec<EntitySummary> = (0..ENTITIES.len())
                .filter(|&x| m.rules.iter().enumerate().all(|(ri, rule)| {
                    rule.boosts.iter().all(|(be, _, sup)| *be != x || (ri == wi && sup.is_empty()))
                }))
                .map(|x| EntitySummary { summary: ENTITIES[x].to_owned(), facts: vec![] })
                .collect();
            let mut with_friendly = e.clone();
            with_friendly.extend(friendly);
            let d = decide(&r, &p, None, &with_friendly);
            let w2 = d.scores.iter().find(|s| s.status == CandidateStatus::Winner).map(|s| s.rule.clone());
            prop_assert_eq!(w2.as_deref(), Some(w.rule.as_str()));
        }
    }

    /// P5 and composition scope: a shared audience never gets a private pack, primary or composed.
    #[test]
    fn p5_scope_isolation(m in model(), p in prompt(), e in entities(), k in 0..SHARED_KEYS.len(), prev in 0..6usize) {
        let (_tmp, r) = load(&m);
        let cfg = r.config();
        let mut input = TurnInput::new(&p).session_key(SHARED_KEYS[k]).entities(&e);
        let prev_id = format!("r{prev}");
        if prev < m.rules.len() { input = input.previous_intent(&prev_id); }
        let d = r.decide(&input, &mut SessionState::default());
        prop_assert!(d.audience_shared);
        if d.injected() {
            prop_assert_eq!(d.scope, Some(Audience::Public));
            let rule: usize = d.intent.as_ref().unwrap()[1..].parse().unwrap();
            prop_assert_eq!(m.rules[rule].scope, Audience::Public);
            prop_assert_eq!(pack_scope(&cfg, d.primary_pack.as_ref().unwrap()), Audience::Public);
            for c in &d.composed {
                prop_assert_eq!(pack_scope(&cfg, c), Audience::Public);
            }
            prop_assert!(d.pack_block.as_ref().unwrap().contains("scope=\"public\""));
        }
    }

    /// Composition: one level deep (exactly the winner's own rule, matching a reference model),
    /// deduplicated, idempotent.
    #[test]
    fn composition_one_level_idempotent(m in model(), p in prompt(), shared in any::<bool>()) {
        let (_tmp, r) = load(&m);
        let key = if shared { SHARED_KEYS[0] } else { "agent:main:main" };
        let d = decide(&r, &p, Some(key), &[]);
        let w = d.scores.iter().find(|s| s.status == CandidateStatus::Winner);
        if let Some(w) = w {
            let wi: usize = w.rule[1..].parse().unwrap();
            let private = m.rules[wi].scope == Audience::Private || m.rules[wi].pack_scope == Audience::Private;
            if !(private && shared) {
                match m.expected_composition(wi, shared) {
                    None => {
                        let required_missing = matches!(d.outcome, Outcome::RequiredUnavailable { .. });
                        prop_assert!(required_missing);
                    }
                    Some(expected) => prop_assert_eq!(&d.composed, &expected),
                }
            }
        }
        let mut dedup = d.composed.clone();
        dedup.sort();
        dedup.dedup();
        prop_assert_eq!(dedup.len(), d.composed.len());
        let again = decide(&r, &p, Some(key), &[]);
        prop_assert_eq!(&d.pack_block, &again.pack_block);
        if let Some(block) = &d.pack_block {
            for c in &d.composed {
                let needle = format!("context of {c}\n");
                prop_assert_eq!(block.matches(&needle).count(), 1);
            }
        }
    }

    /// P6: any fault in detection, composition or rendering → no pack, the error in the trace.
    #[test]
    fn p6_fallback_safety(m in model(), p in prompt(), stage in 0..3usize, panic in any::<bool>()) {
        let (_tmp, mut r) = load(&m);
        let stage = ["detection", "composition", "render"][stage];
        r.fault = Some(if panic { crate::router::Fault::PanicIn(stage) } else { crate::router::Fault::ErrorIn(stage) });
        let mut state = SessionState::default();
        let d = r.decide(&TurnInput::new(&p).session_key("agent:main:main"), &mut state);
        prop_assert!(d.pack_block.is_none());
        // Detection always runs, so a detection fault always surfaces; later stages only when reached.
        if stage == "detection" {
            let is_error = matches!(d.outcome, Outcome::Error { .. });
            prop_assert!(is_error);
            prop_assert!(d.trace.iter().any(|t| t.contains("P6") && t.contains("injected fault")));
        }
        prop_assert!(state.sessions.is_empty());
    }
}
