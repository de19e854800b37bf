//! Sub-agents over a real store and index: the child's task context, its audience never wider than
//! its parent's, turns linked back to the parent, fail-open when no spawn was recorded.

use std::path::Path;

use cairn_core::Audience;
use cairn_engine::{Caller, Engine, EngineConfig, SubagentEnded, SubagentSpawn, TurnRequest};
use cairn_ingest::{HarvestRequest, NoProgress, TurnInput};
use proptest::prelude::*;

const MAIN: &str = "agent:main:main";
const GROUP: &str = "agent:main:telegram:group:-1001";
const CHILD: &str = "agent:main:subagent:7f3a";
const NOW: i64 = 1_800_000_000_000;

const FILES: &[(&str, &str)] = &[
    (
        "memory/projects/kestrel.md",
        "---\ntitle: Kestrel ingest\naudience: public\n---\n# Kestrel ingest\n\nThe kestrel ingest pipeline reads \
         the partner feed every night; its retry budget is 7 attempts.\n",
    ),
    (
        "memory/people/vendor.md",
        "---\ntitle: Kestrel vendor contract\naudience: private\n---\n# Kestrel vendor contract\n\nThe kestrel \
         vendor contract renews in March at 41k; the negotiation notes say walk away above 45k.\n",
    ),
    ("memory/garden.md", "---\ntitle: Garden\n---\n# Garden\n\nTomatoes go in after the last frost.\n"),
];

fn workspace(dir: &Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    for (rel, text) in FILES {
        let p = ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    ws
}

fn engine(dir: &Path) -> Engine {
    let mut cfg = EngineConfig::new(dir.join("data"));
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    cfg.context.recent = Some(0);
    let engine = Engine::open(cfg).unwrap();
    let req = HarvestRequest { root: workspace(dir), paths: vec![], dry_run: false, force: false };
    engine.harvest(&req, &NoProgress, &NoProgress).unwrap();
    engine
}

fn capture(engine: &Engine, session: &str, id: &str, user: &str, assistant: &str) {
    let turn = TurnInput {
        session_key: session.into(),
        turn_id: Some(id.into()),
        user: Some(user.into()),
        assistant: Some(assistant.into()),
        timestamp: Some(serde_json::json!(NOW - 60_000)),
        ..Default::default()
    };
    let (outcomes, sync) = engine.capture_batch(&[turn]);
    assert!(matches!(outcomes[0], Ok(cairn_ingest::CaptureOutcome::Stored { .. })), "{outcomes:?}");
    sync.unwrap();
}

fn spawn(engine: &Engine, parent: &str, child: &str) {
    let req = SubagentSpawn {
        parent_session_key: parent.into(),
        child_session_key: child.into(),
        run_id: Some("run-1".into()),
        agent_id: Some("main".into()),
        label: Some("research".into()),
        mode: Some("run".into()),
    };
    let link = engine.spawned(&req).unwrap();
    assert_eq!(link.parent, parent);
}

fn turn(engine: &Engine, session: &str, prompt: &str, budget: usize) -> cairn_engine::TurnResponse {
    engine.turn(&TurnRequest {
        session_key: session.into(),
        prompt: prompt.into(),
        turn_id: None,
        budget: Some(budget),
        project: None,
        now_ms: Some(NOW),
    })
}

/// The `<cairn-task-context>` block of a prepended text.
fn task_block(prepend: &str) -> &str {
    let start = prepend.find("<cairn-task-context").unwrap_or(prepend.len());
    let end = prepend.find("</cairn-task-context>").map_or(start, |e| e + "</cairn-task-context>".len());
    &prepend[start..end]
}

#[test]
fn a_child_gets_its_task_context_from_the_parent_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    capture(
        &engine,
        MAIN,
        "t1",
        "Can you plan the kestrel retry change?",
        "Yes: raise the budget after the audit.",
    );
    spawn(&engine, MAIN, CHILD);

    let task = "[Subagent Task] What is the kestrel ingest retry budget?";
    let out = turn(&engine, CHILD, task, 1500);
    let block = task_block(&out.prepend_context);
    assert!(block.starts_with("<cairn-task-context parent=\"agent:main:main\">"), "{}", out.prepend_context);
    assert!(block.contains("Kestrel ingest"), "recall on the task: {block}");
    assert!(block.contains("kestrel retry change"), "the parent's last turn: {block}");
    assert!(out.prepend_context.starts_with("<cairn-task-context"), "the task block comes first");
    let t = out.trace.subagent.as_ref().expect("a sub-agent trace");
    assert_eq!(t.parent, MAIN);
    assert_eq!(t.run_id.as_deref(), Some("run-1"));
    assert!(!t.narrowed);
    assert_eq!(t.turns, 1);
    assert!(!t.hits.is_empty());
    assert!(t.tokens > 0 && t.tokens <= 800, "{t:?}");
    assert!(out.tokens <= 1500);

    // The first prompt is the task: a later, unrelated prompt still gets the task's memory.
    let later = turn(&engine, CHILD, "ok, write it up", 1500);
    assert!(task_block(&later.prepend_context).contains("Kestrel ingest"), "{}", later.prepend_context);
    let link = engine.subagent(CHILD).unwrap();
    assert_eq!(link.task.as_deref(), Some(task.trim_start_matches("[Subagent Task] ")));
}

#[test]
fn the_child_of_a_group_session_never_sees_private_memory() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    // The same child key, unlinked, is the owner's (a sub-agent key alone says nothing of its parent).
    assert!(engine.scope_for(Caller::Session(CHILD), None).allow_private);
    capture(&engine, GROUP, "g1", "what does the kestrel vendor cost?", "I can't share that here.");
    spawn(&engine, GROUP, CHILD);

    let task = "[Subagent Task] What is the kestrel ingest retry budget?";
    // The owner's view of that task holds the private contract: the test can tell a leak.
    let owner = turn(&engine, "agent:main:subagent:other", task, 1500);
    assert!(owner.prepend_context.contains("41k"), "{}", owner.prepend_context);
    let out = turn(&engine, CHILD, task, 1500);
    assert_eq!(out.session.audience, Audience::Public, "served as its parent's audience");
    assert!(out.prepend_context.contains("Kestrel ingest"), "public memory still reaches it");
    for secret in ["41k", "45k", "vendor contract renews"] {
        assert!(!out.prepend_context.contains(secret), "private memory leaked: {}", out.prepend_context);
    }
    assert!(out.trace.subagent.as_ref().unwrap().narrowed);
    // Every surface asking with the child's key gets the parent's view.
    assert!(!engine.scope_for(Caller::Session(CHILD), None).allow_private);
    assert_eq!(engine.audience_for(Caller::Session(CHILD)), Some(Audience::Public));
    // A grandchild of the group session too.
    spawn(&engine, CHILD, "agent:main:subagent:7f3a:subagent:01");
    assert!(!engine.scope_for(Caller::Session("agent:main:subagent:7f3a:subagent:01"), None).allow_private);
}

#[test]
fn an_unlinked_child_is_served_as_before_with_an_unknown_parent() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    let prompt = "what is the kestrel retry budget?";
    let out = turn(&engine, CHILD, prompt, 1500);
    assert!(!out.prepend_context.contains("<cairn-task-context"));
    assert!(out.prepend_context.contains("Kestrel ingest"));
    assert_eq!(out.trace.subagent.as_ref().unwrap().parent, "unknown");
    // A session that is not a sub-agent has no sub-agent trace at all.
    assert!(turn(&engine, MAIN, prompt, 1500).trace.subagent.is_none());
}

#[test]
fn a_broken_spawn_record_store_never_fails_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    spawn(&engine, MAIN, CHILD);
    let conn = rusqlite::Connection::open(dir.path().join("data").join("cairn.sqlite")).unwrap();
    conn.execute_batch("DROP TABLE subagents").unwrap();
    drop(conn);
    let out = turn(&engine, CHILD, "what is the kestrel retry budget?", 1500);
    assert!(out.prepend_context.contains("Kestrel ingest"), "{}", out.prepend_context);
    assert!(!out.fallback);
    assert_eq!(out.trace.subagent.as_ref().unwrap().parent, "unknown");
    assert!(
        engine
            .spawned(&SubagentSpawn {
                parent_session_key: MAIN.into(),
                child_session_key: CHILD.into(),
                ..Default::default()
            })
            .is_err()
    );
}

#[test]
fn spawns_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    let bad = |parent: &str, child: &str| {
        engine
            .spawned(&SubagentSpawn {
                parent_session_key: parent.into(),
                child_session_key: child.into(),
                ..Default::default()
            })
            .unwrap_err()
            .to_string()
    };
    assert!(bad(MAIN, GROUP).contains("not a sub-agent session key"));
    assert!(bad(CHILD, CHILD).contains("cannot spawn itself"));
    assert!(bad("", CHILD).contains("required"));
    assert!(
        !engine
            .subagent_ended(&SubagentEnded { child_session_key: CHILD.into(), ..Default::default() })
            .unwrap()
    );
}

#[test]
fn the_childs_turns_link_back_and_the_parent_recalls_them() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    // One child turn captured before the spawn was recorded (an event that arrived late).
    capture(&engine, CHILD, "c0", "start", "Looking into the ingest now.");
    spawn(&engine, MAIN, CHILD);
    // The host's preamble and trailer around the task are not stored.
    let prompt = "[Subagent Context] You are running as a subagent (depth 1/5). Complete the current [Subagent \
                  Task].\n\n[Subagent Task]\n\nfind the kestrel cutover window\n\nBegin. Execute the assigned task \
                  to completion.";
    capture(&engine, CHILD, "c1", prompt, "The cutover window is Sunday 02:00 to 04:00 UTC.");
    let (item, _) =
        engine.get(&format!("turn:{CHILD}:c1"), &engine.scope_for(Caller::Owner, None)).unwrap().unwrap();
    assert_eq!(
        item.text,
        "User: find the kestrel cutover window\n\nAssistant: The cutover window is Sunday 02:00 to 04:00 UTC."
    );
    let ended = SubagentEnded {
        child_session_key: CHILD.into(),
        run_id: Some("run-1".into()),
        outcome: Some("ok".into()),
        reason: Some("complete".into()),
        ..Default::default()
    };
    assert!(engine.subagent_ended(&ended).unwrap());
    let link = engine.subagent(CHILD).unwrap();
    assert_eq!(link.outcome.as_deref(), Some("ok"));
    assert!(link.ended_at.is_some());

    engine.refresh_derived();
    let export = engine.graph_export(&engine.scope_for(Caller::Owner, None)).unwrap();
    let spawned: Vec<_> = export.edges.iter().filter(|e| e.kind == "spawned_by").collect();
    assert_eq!(spawned.len(), 2, "both child turns link to the parent: {spawned:?}");
    assert!(spawned.iter().all(|e| e.dst == format!("session:{MAIN}")), "{spawned:?}");

    let out = turn(&engine, MAIN, "when is the kestrel cutover window?", 1500);
    assert!(out.prepend_context.contains("Sunday 02:00"), "{}", out.prepend_context);

    let sessions = engine.sessions_overview().unwrap();
    let keys: Vec<&str> = sessions.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, [MAIN, CHILD], "the parent, then its child");
    assert_eq!(sessions[0].children, [CHILD]);
    assert_eq!(sessions[1].parent.as_deref(), Some(MAIN));
    assert_eq!(sessions[1].turns, 2);
}

#[test]
fn forgetting_the_child_session_drops_its_task() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    spawn(&engine, MAIN, CHILD);
    turn(&engine, CHILD, "[Subagent Task] what is the kestrel vendor contract?", 1500);
    assert!(engine.subagent(CHILD).unwrap().task.is_some());
    let req = cairn_engine::Forget { session: Some(CHILD.into()), ..Default::default() };
    engine.forget(&req, &engine.scope_for(Caller::Owner, None)).unwrap();
    assert!(engine.subagent(CHILD).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Whatever the budgets, a child's prepended text stays within the turn's budget and its task
    /// block within `context.task_budget`.
    #[test]
    fn a_childs_turn_keeps_every_budget(budget in 0usize..2500, task_budget in 0usize..1200) {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = EngineConfig::new(dir.path().join("data"));
        cfg.embed.provider = cairn_embed::EmbedProvider::None;
        cfg.context.task_budget = task_budget;
        let engine = Engine::open(cfg).unwrap();
        let req = HarvestRequest { root: workspace(dir.path()), paths: vec![], dry_run: false, force: false };
        engine.harvest(&req, &NoProgress, &NoProgress).unwrap();
        capture(&engine, MAIN, "t1", "plan the kestrel retry change", "raise the budget");
        spawn(&engine, MAIN, CHILD);
        let out = turn(&engine, CHILD, "[Subagent Task] kestrel ingest retry budget and vendor", budget);
        prop_assert!(out.tokens <= budget, "{} > {budget}", out.tokens);
        let t = out.trace.subagent.unwrap();
        prop_assert!(t.tokens <= task_budget.min(budget / 2), "{} tokens, task budget {task_budget}", t.tokens);
    }
}
