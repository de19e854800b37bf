//! The seed's correctness test matrix as example tests against `examples/config/`.

mod common;

use cairn_core::Audience;
use cairn_route::{Outcome, Result, SessionState, StickyEntry, StickyStore, TurnInput};
use common::*;

fn check_all(prompts: &[&str], intent: Option<&str>) {
    for p in prompts {
        expect(decide(p), p, intent);
    }
}

// ---- P1: no match → no pack (10+) ----

const NO_MATCH: &[&str] = &[
    "What's the weather like tomorrow?",
    "Remind me to call mom",
    "Summarise this PDF",
    "How do I fix a borrow checker error?",
    "Translate this sentence into French",
    "What time is it in Tokyo?",
    "Play some jazz",
    "Set a timer for ten minutes",
    "Explain quantum entanglement simply",
    "Who won the game last night?",
    "List my open pull requests",
    // Word boundaries: keywords inside longer words do not count.
    "The new dinnerware set arrived",
    "A documentary about flightless birds",
    "Sign the memorandum of understanding",
    "",
];

#[test]
fn p1_no_match_gives_no_pack() {
    assert!(NO_MATCH.len() >= 10);
    for p in NO_MATCH {
        let d = expect(decide(p), p, None);
        assert_eq!(d.outcome, Outcome::NoMatch, "{p}");
        assert!(d.scores.is_empty());
        assert!(d.trace.iter().any(|t| t.contains("P1")));
    }
}

// ---- single clear match → correct pack (15+ per intent) ----

const DINING: &[&str] = &[
    "Can you book a table for Friday?",
    "Find a restaurant near the office",
    "Where should we go for brunch on Sunday?",
    "Any good restaurants with vegetarian options downtown?",
    "I need a reservation for four at 8pm",
    "Is the tasting menu worth it there?",
    "Ask the sommelier about the wine list",
    "What cuisine does that bistro serve?",
    "Pick a place for lunch with the team",
    "Suggest a dessert spot after the movie",
    "Where to eat near the station tonight?",
    "Dinner plans for my parents' anniversary",
    "Cancel my restaurant reservation",
    "DINNER tomorrow? somewhere quiet",
    "Brunch spot with outdoor seating",
    "a lunch place that takes large groups",
];

const DEAL: &[&str] = &[
    "Review this term sheet for me",
    "What valuation did they raise at?",
    "Update the cap table after the conversion",
    "Start due diligence on the new company",
    "The founder sent a pitch deck",
    "Compare Series A terms with last year's",
    "Who is the lead investor in the seed round?",
    "Should we take our pro rata?",
    "Their burn rate looks high",
    "How much runway do they have left?",
    "Explain this liquidation preference clause",
    "Prep questions for the founders call",
    "Summarise the series b deck",
    "Is this valuation reasonable for a seed round?",
    "Check the cap table math",
    "Pitch deck feedback please",
];

const MEMO: &[&str] = &[
    "Draft the memo for Thursday",
    "Write an investment memo on the company",
    "Prepare the IC memo",
    "What's our thesis here?",
    "Add a risks and mitigants section",
    "Do the market sizing for this sector",
    "Fill in the competitive landscape",
    "Write the executive summary",
    "Send the memo outline to the team",
    "The investment committee meets Monday, prepare materials",
    "Tighten the memo's language",
    "Rework the thesis paragraph",
    "memo please",
    "Update the executive summary with new numbers",
    "Check the competitive landscape section for gaps",
    "Redo the market sizing bottom-up",
];

const SOCIAL: &[&str] = &[
    "Write a tweet about our launch",
    "Turn this into a thread",
    "Draft a social post for the release",
    "Which hashtags should I use?",
    "Should I retweet this?",
    "How do I grow my followers?",
    "Why is engagement down this week?",
    "Make this go viral",
    "Give me a better hook line",
    "Post on X about the conference",
    "Write a LinkedIn post about hiring",
    "Three tweets announcing the beta",
    "Add a hashtag to this",
    "Rewrite the thread opener",
    "Schedule the tweet for Monday",
    "Draft a   Social\n   Post for tomorrow",
];

const TRAVEL: &[&str] = &[
    "Find me a flight to Lisbon",
    "Book a hotel near the venue",
    "Plan an itinerary for three days in Rome",
    "What's the best way to get to the airport?",
    "Is a two hour layover enough?",
    "When does my passport expire?",
    "Do I need a visa for Japan?",
    "Where is my boarding pass?",
    "When does online check-in open?",
    "Buy a train ticket to the coast",
    "Make a packing list for the ski weekend",
    "Tips for jet lag",
    "Compare flights for next weekend",
    "Plan the trip around the wedding",
    "Hotel options close to the beach",
    "Change my flight to the morning",
];

#[test]
fn single_clear_match_per_intent() {
    for (prompts, intent) in [
        (DINING, "dining"),
        (DEAL, "deal_review"),
        (MEMO, "investment_memo"),
        (SOCIAL, "social_post"),
        (TRAVEL, "travel"),
    ] {
        assert!(prompts.len() >= 15, "{intent}");
        check_all(prompts, Some(intent));
        for p in prompts {
            let d = decide(p);
            assert_eq!(d.outcome, Outcome::Injected);
            assert_eq!(d.scores.len(), 1, "{p}: exactly one rule has hits");
        }
    }
}

// ---- P3: overlap → highest scorer wins (10+) ----

const OVERLAP: &[(&str, &str)] = &[
    ("I had dinner with the Series A founder", "deal_review"),
    ("Book a table and a hotel for the trip", "travel"),
    ("Draft the memo on the term sheet, valuation and cap table", "deal_review"),
    (
        "Write the investment memo with the executive summary and thesis; mention the valuation",
        "investment_memo",
    ),
    ("Tweet a thread about our dinner", "social_post"),
    ("Lunch at the airport before the flight, then check-in", "travel"),
    ("Restaurant picks near the hotel for dinner and brunch", "dining"),
    ("Post on X about the founder's pitch deck and the term sheet", "deal_review"),
    ("Hashtags for a viral thread about our trip", "social_post"),
    ("Market sizing and competitive landscape for the seed round memo", "investment_memo"),
    ("The founders want a dinner reservation at a bistro with a tasting menu", "dining"),
];

#[test]
fn p3_overlap_highest_scorer_wins() {
    assert!(OVERLAP.len() >= 10);
    for (p, intent) in OVERLAP {
        let d = expect(decide(p), p, Some(intent));
        assert!(d.scores.len() >= 2, "{p}: several rules must match");
        assert!(d.scores[0].score > d.scores[1].score);
        assert!(d.trace.iter().any(|t| t.contains("runner-up")));
    }
}

// ---- P3: exact tie → no pack (5+) ----

const TIES: &[&str] = &[
    "Dinner with a founder",
    "Tweet about my flight",
    "Memo about the valuation",
    "Lunch before the layover",
    "A thread about the thesis",
    "Brunch and a hotel, or hashtags",
];

#[test]
fn p3_exact_tie_gives_no_pack() {
    assert!(TIES.len() >= 5);
    for p in TIES {
        let d = expect(decide(p), p, None);
        let Outcome::Tie { intents } = &d.outcome else { panic!("{p}: {:?}", d.outcome) };
        assert!(intents.len() >= 2);
        assert!(d.trace.iter().any(|t| t.contains("P3")));
    }
}

// ---- P4: entity boost changes the winner (5+) ----

#[test]
fn p4_entity_boost_changes_winner() {
    let restaurant = entity("Trattoria Verde is a small restaurant in the old town");
    let startup = entity("Acme Robotics is a startup building warehouse robots");
    let airline = entity("Skyway is a regional airline");
    let committee = entity("The investment committee meets on the first Monday");
    let chef_fact = cairn_route::EntitySummary {
        summary: "Sam Rivera".into(),
        facts: vec!["Sam Rivera is the head chef at Harbour".into()],
    };
    let investor_fact = cairn_route::EntitySummary {
        summary: "Jordan Lee".into(),
        facts: vec!["Jordan Lee led the round in Acme".into()],
    };
    let cases: &[(&str, &[cairn_route::EntitySummary], Option<&str>, &str)] = &[
        // (prompt, entities, winner without entities, winner with entities)
        ("Dinner with a founder", std::slice::from_ref(&restaurant), None, "dining"),
        ("Dinner with a founder", std::slice::from_ref(&startup), None, "deal_review"),
        (
            "I had dinner with the Series A founder",
            std::slice::from_ref(&restaurant),
            Some("deal_review"),
            "dining",
        ),
        ("Tweet about my flight", std::slice::from_ref(&airline), None, "travel"),
        ("Memo about the valuation", std::slice::from_ref(&committee), None, "investment_memo"),
        ("Lunch before the layover", std::slice::from_ref(&chef_fact), None, "dining"),
        ("Dinner with a founder", std::slice::from_ref(&investor_fact), None, "deal_review"),
    ];
    for (p, entities, before, after) in cases {
        expect(decide(p), p, *before);
        let d = expect(decide_in(router(), p, OWNER, entities), p, Some(after));
        let winner = d.scores.iter().find(|s| s.rule == *after).unwrap();
        assert!(!winner.boosts.is_empty(), "{p}: the boost is in the trace");
        assert!(d.trace.iter().any(|t| t.contains("boost #")));
    }
}

#[test]
fn boost_suppresses_the_other_rule() {
    let d = decide_in(
        router(),
        "I had dinner with the Series A founder",
        OWNER,
        &[entity("Trattoria Verde is a restaurant")],
    );
    let deal = d.scores.iter().find(|s| s.rule == "deal_review").unwrap();
    assert_eq!(deal.status, cairn_route::CandidateStatus::Suppressed { by: vec!["dining".into()] });
    // A boost alone never creates a candidate (P1).
    expect(decide_in(router(), "What's new?", OWNER, &[entity("a restaurant")]), "boost only", None);
}

// ---- P5: shared audience → no private packs (5+) ----

#[test]
fn p5_shared_audience_never_gets_private_packs() {
    let blocked: &[(&str, &str)] = &[
        ("book a table for dinner", GROUP),
        ("review the term sheet", TOPIC),
        ("draft the memo", EXTERNAL_DM),
        ("Where to eat tonight?", "agent:main:discord:channel:general"),
        // The winner (deal_review, private) is blocked; the runner-up (social_post) is not promoted.
        ("Tweet a thread about the founder's term sheet and valuation", GROUP),
    ];
    for (p, key) in blocked {
        let d = expect(decide_in(router(), p, key, &[]), p, None);
        assert!(matches!(d.outcome, Outcome::ScopeBlocked { .. }), "{p}: {:?}", d.outcome);
        assert!(d.audience_shared);
        assert!(d.trace.iter().any(|t| t.contains("P5")));
    }
    // Public packs still go in; private composed packs are skipped even when required.
    let d =
        expect(decide_in(router(), "plan the itinerary for the trip", GROUP, &[]), "travel", Some("travel"));
    assert_eq!(d.scope, Some(Audience::Public));
    let d = expect(
        decide_in(router(), "write a tweet about the launch", GROUP, &[]),
        "tweet",
        Some("social_post"),
    );
    assert_eq!(d.composed, ["content_strategy"]);
    assert_eq!(d.scope, Some(Audience::Public));
    assert!(
        d.skipped.iter().any(|s| s.pack_type == "voice_style" && s.required && s.reason.contains("private"))
    );
    let block = d.pack_block.unwrap();
    assert!(block.contains("scope=\"public\""));
    assert!(!block.contains("Voice Profile"));
    // The same prompt from the owner gets everything.
    let d = decide_in(router(), "write a tweet about the launch", OWNER_DM, &[]);
    assert_eq!(d.composed, ["voice_casual", "content_strategy", "writing_samples_casual"]);
    assert_eq!(d.scope, Some(Audience::Private));
}

// ---- P6: engine failure → graceful fallback (3+) ----

struct PanickingStore {
    on_get: bool,
}

impl StickyStore for PanickingStore {
    fn get(&self, _: &str) -> Result<Option<StickyEntry>> {
        if self.on_get { panic!("store exploded on get") } else { Ok(None) }
    }
    fn put(&mut self, _: &str, _: StickyEntry) -> Result<()> {
        panic!("store exploded on put")
    }
    fn remove(&mut self, _: &str) -> Result<()> {
        Ok(())
    }
}

struct FailingStore;

impl StickyStore for FailingStore {
    fn get(&self, _: &str) -> Result<Option<StickyEntry>> {
        Err(cairn_route::Error::State { message: "disk on fire".into() })
    }
    fn put(&mut self, _: &str, _: StickyEntry) -> Result<()> {
        Err(cairn_route::Error::State { message: "disk on fire".into() })
    }
    fn remove(&mut self, _: &str) -> Result<()> {
        Err(cairn_route::Error::State { message: "disk on fire".into() })
    }
}

#[test]
fn p6_faults_give_no_pack_and_the_error_in_the_trace() {
    // A panic while reading sticky state (no keyword hit → sticky lookup).
    let d = router()
        .decide(&TurnInput::new("ok thanks").session_key(OWNER), &mut PanickingStore { on_get: true });
    assert!(d.pack_block.is_none());
    let Outcome::Error { message } = &d.outcome else { panic!("{:?}", d.outcome) };
    assert!(message.contains("store exploded on get"));
    assert!(d.trace.iter().any(|t| t.contains("P6")));
    // A panic after a pack was chosen still gives no pack.
    let d = router().decide(
        &TurnInput::new("book a table for dinner").session_key(OWNER),
        &mut PanickingStore { on_get: false },
    );
    assert!(d.pack_block.is_none() && d.intent.is_none());
    assert!(matches!(d.outcome, Outcome::Error { .. }));
    // A failing (not panicking) store degrades: the pack still goes in, the warning is traced.
    let d = router().decide(&TurnInput::new("book a table for dinner").session_key(OWNER), &mut FailingStore);
    assert_eq!(d.intent.as_deref(), Some("dining"));
    assert!(d.trace.iter().any(|t| t.contains("sticky state not saved")));
    let d = router().decide(&TurnInput::new("and for six?").session_key(OWNER), &mut FailingStore);
    assert!(d.pack_block.is_none());
    assert!(d.trace.iter().any(|t| t.contains("sticky state unreadable")));
}

// ---- sticky follow-ups (5+ pairs) ----

#[test]
fn sticky_follow_ups_keep_the_pack() {
    let pairs: &[(&str, &str, &str)] = &[
        ("book a table for dinner on Friday", "for six people at 8?", "dining"),
        ("review the term sheet", "also check the conversion terms they proposed", "deal_review"),
        ("plan an itinerary for Rome", "what about the second day?", "travel"),
        ("draft the memo", "make it shorter", "investment_memo"),
        ("write a tweet about the launch", "continue", "social_post"),
        ("find a restaurant near the office", "somewhere cheaper?", "dining"),
    ];
    for (i, (first, follow, intent)) in pairs.iter().enumerate() {
        let key = format!("agent:main:telegram:direct:1001:thread:{i}");
        let mut state = SessionState::default();
        let d1 = router().decide(&TurnInput::new(first).session_key(&key).at(1_000), &mut state);
        assert_eq!(d1.intent.as_deref(), Some(*intent));
        assert!(!d1.sticky);
        let d2 = router().decide(&TurnInput::new(follow).session_key(&key).at(60_000), &mut state);
        assert_eq!(d2.intent.as_deref(), Some(*intent), "{follow}: {:#?}", d2.trace);
        assert!(d2.sticky && d2.outcome == Outcome::Sticky);
        assert_eq!(d2.pack_block, d1.pack_block, "a sticky turn re-injects the same block");
    }
}

#[test]
fn sticky_limits() {
    let mut state = SessionState::default();
    let first = TurnInput::new("book a table for dinner").session_key(OWNER).at(0);
    router().decide(&first, &mut state);
    // A long prompt with no continuation phrase is not a follow-up.
    let long = "I was thinking about the general situation with the neighbours and whether we should talk to them about \
                the noise at some point next week";
    let d = router().decide(&TurnInput::new(long).session_key(OWNER).at(1), &mut state);
    assert!(d.pack_block.is_none());
    // The miss cleared the state: a short prompt now gets nothing.
    let d = router().decide(&TurnInput::new("ok").session_key(OWNER).at(2), &mut state);
    assert!(d.pack_block.is_none());
    // Expiry (ttl 1800 s).
    router().decide(&first, &mut state);
    let d = router().decide(&TurnInput::new("and for six?").session_key(OWNER).at(1_800_001), &mut state);
    assert!(d.pack_block.is_none() && d.trace.iter().any(|t| t.contains("expired")));
    // Another session does not inherit it.
    router().decide(&first, &mut state);
    let d = router().decide(&TurnInput::new("and for six?").session_key(OWNER_DM).at(10), &mut state);
    assert!(d.pack_block.is_none());
    // A keyword of another rule wins over stickiness.
    let d = router().decide(&TurnInput::new("and a hotel?").session_key(OWNER).at(20), &mut state);
    assert_eq!(d.intent.as_deref(), Some("travel"));
    assert!(!d.sticky);
    // At most 5 re-injections in a row.
    let mut state = SessionState::default();
    router().decide(&first, &mut state);
    let stickies = (1..=7)
        .map(|i| router().decide(&TurnInput::new("ok").session_key(OWNER).at(i), &mut state).sticky)
        .collect::<Vec<_>>();
    assert_eq!(stickies, [true, true, true, true, true, false, false]);
    // An explicit previous intent overrides the state; scope still applies.
    let d = router().decide(
        &TurnInput::new("and then?").session_key(GROUP).previous_intent("dining"),
        &mut SessionState::default(),
    );
    assert!(matches!(d.outcome, Outcome::ScopeBlocked { .. }));
}

// ---- composition and rendering ----

#[test]
fn composition_optional_disabled_pack_is_skipped() {
    let d = expect(decide("Draft the memo for Thursday"), "memo", Some("investment_memo"));
    assert_eq!(d.primary_pack.as_deref(), Some("memo_drafting"));
    assert_eq!(d.composed, ["voice_formal"]);
    assert_eq!(d.skipped.len(), 1);
    assert!(d.skipped[0].reason.contains("disabled"));
    let block = d.pack_block.unwrap();
    assert!(block.starts_with(
        "<pack-context intent=\"investment_memo\" primary-pack=\"memo_drafting\" scope=\"private\">\n\
         ## Active Workflow: Investment Memo Drafting\n\nDrafting an investment memo"
    ));
    assert!(block.contains("### Compliance Rules\nDraft only."));
    assert!(block.contains("### Steps\n1. `outline`\n2. `draft`\n3. `review`"));
    assert!(block.contains("### Composition: Voice Profile (formal)\n\nThe owner's formal writing voice."));
    assert!(block.ends_with("\n</pack-context>"));
}

#[test]
fn composition_required_unavailable_skips_everything() {
    let tmp = copy_example();
    edit(
        &tmp.path().join("pack_registry.yaml"),
        "path: packs/content_strategy.pack.yaml\n    scope: public",
        "path: packs/content_strategy.pack.yaml\n    scope: public\n    enabled: false",
    );
    let r = cairn_route::Router::load(tmp.path()).unwrap();
    let d = decide_in(&r, "write a tweet about the launch", OWNER, &[]);
    assert!(d.pack_block.is_none());
    let Outcome::RequiredUnavailable { intent, pack_type, .. } = &d.outcome else {
        panic!("{:?}", d.outcome)
    };
    assert_eq!((intent.as_str(), pack_type.as_str()), ("social_post", "content_strategy"));
}
