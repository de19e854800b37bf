#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cairn_route::{Decision, EntitySummary, Router, SessionState, TurnInput};
use cairn_test::copy_dir;

pub fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/config")
}

pub fn router() -> &'static Router {
    static R: OnceLock<Router> = OnceLock::new();
    R.get_or_init(|| Router::load(example_dir()).expect("example config loads"))
}

/// A copy of the example config in a temp dir, for mutation.
pub fn copy_example() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&example_dir(), tmp.path());
    tmp
}

pub fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} does not contain {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

pub const OWNER: &str = "agent:main:main";
pub const GROUP: &str = "agent:main:telegram:group:-100555";
pub const TOPIC: &str = "agent:main:telegram:group:-100555:topic:14";
pub const EXTERNAL_DM: &str = "agent:main:telegram:direct:2002";
pub const OWNER_DM: &str = "agent:main:telegram:direct:1001";

pub fn decide_in(router: &Router, prompt: &str, key: &str, entities: &[EntitySummary]) -> Decision {
    router.decide(&TurnInput::new(prompt).session_key(key).entities(entities), &mut SessionState::default())
}

pub fn decide(prompt: &str) -> Decision {
    decide_in(router(), prompt, OWNER, &[])
}

pub fn entity(summary: &str) -> EntitySummary {
    EntitySummary { summary: summary.to_owned(), facts: Vec::new() }
}

/// Asserts the injected intent (None = no pack) and returns the decision.
pub fn expect(d: Decision, prompt: &str, intent: Option<&str>) -> Decision {
    assert_eq!(d.intent.as_deref(), intent, "prompt {prompt:?}\ntrace:\n{}", d.trace.join("\n"));
    assert_eq!(d.pack_block.is_some(), intent.is_some(), "prompt {prompt:?}");
    d
}
