//! USER.md, what the user says about themselves, over a real store and index: harvested by default, so
//! a question about it is answered where no host bootstraps it (the CLI, MCP, `/v1/context`), but not
//! repeated in the turn of a session whose host injects the file whole (the owner's main session).

use std::path::Path;

use cairn_engine::{Caller, ContextQuery, Engine, EngineConfig, TurnRequest};
use cairn_ingest::{HarvestRequest, NoProgress};

const MAIN: &str = "agent:main:main";
const NOW: i64 = 1_800_000_000_000;
const PROMPT: &str = "Is my name Tam or Tamsin?";

fn engine(dir: &Path) -> (Engine, std::path::PathBuf) {
    let ws = dir.join("ws");
    for (rel, text) in [
        // Dated, so it would be among the recent memory of the session's generated context file.
        (
            "USER.md",
            "---\ndate: 2026-11-20\ntags: [garden]\n---\n# How I like answers\n\n- Call me Tam, never Tamsin.\n- British spelling please.\n",
        ),
        // Shares a tag with USER.md: the link graph's expansion of a turn would reach it.
        ("memory/garden.md", "---\ntags: [garden]\n---\n# Garden\n\nTomatoes go in after the last frost.\n"),
        // Shares a word with a question below, and answers nothing of it.
        ("memory/bins.md", "# Bins\n\nWe use the green bin for garden waste.\n"),
    ] {
        let p = ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    let mut cfg = EngineConfig::new(dir.join("data"));
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    let engine = Engine::open(cfg).unwrap();
    let req = HarvestRequest { root: ws.clone(), paths: vec![], dry_run: false, force: false };
    let report = engine.harvest(&req, &NoProgress, &NoProgress).unwrap().report;
    assert_eq!(report.scanned, 3, "USER.md and two notes: {report:?}");
    // The link graph as a daemon keeps it.
    engine.graph_sync(false).unwrap();
    (engine, ws)
}

#[test]
fn the_user_file_is_harvested_and_answers_where_no_host_bootstraps_it() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = engine(dir.path());
    let block = engine.context(&ContextQuery::new(PROMPT, engine.scope_for(Caller::Owner, None)));
    assert!(!block.empty, "{}", block.block);
    assert!(block.block.contains("Call me Tam"), "{}", block.block);
    assert!(block.items.iter().any(|i| i.source.starts_with("USER.md")), "{:?}", block.items);
}

#[test]
fn a_turn_whose_host_bootstraps_the_user_file_does_not_repeat_it() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, ws) = engine(dir.path());
    // The owner's main session bootstraps USER.md whole.
    let boot = engine.bootstrap(MAIN, Vec::new(), Some(&ws));
    assert!(boot.files.iter().any(|f| f.name == "USER.md"), "{:?}", boot.files);
    let generated = boot.files.iter().find(|f| f.name == cairn_engine::CONTEXT_FILE).unwrap();
    let generated = generated.content.as_deref().unwrap_or_default();
    assert!(!generated.contains("Call me Tam"), "{generated}");
    let turn = engine.turn(&TurnRequest {
        session_key: MAIN.into(),
        prompt: PROMPT.into(),
        turn_id: None,
        budget: Some(2000),
        project: None,
        now_ms: Some(NOW),
    });
    assert!(!turn.prepend_context.contains("Call me Tam"), "{}", turn.prepend_context);
    // Asked how to treat the asker, the file is what answers; in the session that has it whole, what
    // is relevant is judged without it (not carried over the floor by it).
    let nickname = "What nickname should you use for me?";
    let owner = engine.context(&ContextQuery::new(nickname, engine.scope_for(Caller::Owner, None)));
    assert!(owner.block.contains("Call me Tam"), "{}", owner.block);
    let turn = engine.turn(&TurnRequest {
        session_key: MAIN.into(),
        prompt: nickname.into(),
        turn_id: None,
        budget: Some(2000),
        project: None,
        now_ms: Some(NOW),
    });
    assert!(!turn.prepend_context.contains("Call me Tam"), "{}", turn.prepend_context);
    let receipt = turn.trace.receipt.expect("a receipt");
    let relevance = receipt.relevance.expect("the floor's account");
    assert!(!relevance.parts.contains_key(cairn_recall::PROFILE_PART), "{relevance:?}");
    // Other notes still come: only the bootstrapped file is left out.
    let turn = engine.turn(&TurnRequest {
        session_key: MAIN.into(),
        prompt: "When do the tomatoes go in?".into(),
        turn_id: None,
        budget: Some(2000),
        project: None,
        now_ms: Some(NOW),
    });
    assert!(turn.prepend_context.contains("last frost"), "{}", turn.prepend_context);
    assert!(
        !turn.prepend_context.contains("Call me Tam"),
        "not through the graph either: {}",
        turn.prepend_context
    );
}

/// On the third labelled workspace, whose USER.md carries tags (so the link graph reaches it from
/// any note sharing one), a modestly relevant turn of the main session.
#[test]
fn a_modest_turn_gets_neither_the_user_file_nor_graph_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/relevance-3/workspace");
    let mut cfg = EngineConfig::new(dir.path().join("data"));
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    let engine = Engine::open(cfg).unwrap();
    let req = HarvestRequest { root: ws, paths: vec![], dry_run: false, force: false };
    engine.harvest(&req, &NoProgress, &NoProgress).unwrap();
    // The link graph as a daemon keeps it.
    engine.graph_sync(false).unwrap();
    let turn = engine.turn(&TurnRequest {
        session_key: MAIN.into(),
        prompt: "What name do I prefer you to use for me?".into(),
        turn_id: None,
        budget: Some(2000),
        project: None,
        now_ms: Some(NOW),
    });
    let receipt = turn.trace.receipt.expect("a receipt");
    let items: Vec<&str> = receipt.included.iter().map(|i| i.item_id.as_str()).collect();
    assert!(!items.contains(&"memory-file:USER.md"), "{items:?}");
    let modest = cairn_engine::EngineConfig::new(dir.path()).context.modest_items;
    assert!(items.len() <= modest, "a modest block stays modest: {items:?}");
}
