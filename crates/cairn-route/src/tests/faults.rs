//! Fault injection at each stage against the example config (P6).

use crate::router::Fault;
use crate::{Outcome, Router, SessionState, StickyEntry, TurnInput};

fn router_with(fault: Fault) -> Router {
    let mut r = Router::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/config")).unwrap();
    r.fault = Some(fault);
    r
}

fn check(fault: Fault, prompt: &str) {
    let r = router_with(fault);
    let mut state = SessionState::default();
    state.sessions.insert(
        "agent:main:main".into(),
        StickyEntry { intent: "dining".into(), primary_pack: "dining_recs".into(), at: 0, consecutive: 0 },
    );
    let d = r.decide(&TurnInput::new(prompt).session_key("agent:main:main"), &mut state);
    assert!(d.pack_block.is_none(), "{fault:?}");
    let Outcome::Error { message } = &d.outcome else { panic!("{fault:?}: {:?}", d.outcome) };
    assert!(message.contains("injected fault"), "{message}");
    assert!(d.trace.iter().any(|t| t.contains("P6")));
    // The failed turn clears the sticky state, so the next turn cannot re-inject on stale data.
    assert!(state.sessions.is_empty());
}

#[test]
fn panic_in_detection() {
    check(Fault::PanicIn("detection"), "book a table for dinner");
}

#[test]
fn error_in_detection() {
    check(Fault::ErrorIn("detection"), "book a table for dinner");
}

#[test]
fn panic_in_composition() {
    check(Fault::PanicIn("composition"), "draft the memo");
}

#[test]
fn error_in_composition_on_sticky_path() {
    check(Fault::ErrorIn("composition"), "ok");
}

#[test]
fn panic_in_render() {
    check(Fault::PanicIn("render"), "write a tweet about the launch");
}

#[test]
fn router_is_send_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Router>();
    assert_send_sync::<crate::RouteConfig>();
}
