//! The graph lane over a real harvested store and index: measured gain on a linked second hop, kill
//! switch equivalence, fail-open on a damaged graph table, cross-project and audience gating.

use std::path::Path;

use cairn_core::Scope;
use cairn_engine::{
    ContextRequest, GraphExpansion, GraphExpansionOptions, context, graph_context, open_graph, sync_index,
};
use cairn_graph::Graph;
use cairn_ingest::{HarvestRequest, HarvestSettings, NoProgress, harvest};
use cairn_recall::{RecallIndex, RecallSettings, Recaller};
use cairn_store::SqliteStore;

/// The query names the incident note; the fix lives only in the note it links to (in another project
/// for `beta`), and in a private note linked from a public one.
const FILES: &[(&str, &str)] = &[
    (
        "memory/alpha/incident.md",
        "---\ntitle: Kestrel outage incident\nproject: alpha\naudience: public\n---\n# Kestrel outage incident\n\nThe kestrel ingest outage on Tuesday stalled every queue.\nRoot cause and fix: see [the follow-up](followup.md).\n",
    ),
    (
        "memory/alpha/followup.md",
        "---\ntitle: Follow-up\nproject: alpha\naudience: public\n---\n# Follow-up\n\nRaise the prefetch window to 512 and pin librdkafka 2.3.\n",
    ),
    (
        "memory/alpha/heron.md",
        "---\ntitle: Heron migration\nproject: alpha\naudience: public\n---\n# Heron migration\n\nThe heron migration plan is written up in [[Storage notes]].\n",
    ),
    (
        "memory/beta/storage.md",
        "---\ntitle: Storage notes\nproject: beta\naudience: public\n---\n# Storage notes\n\nUse zstd level 3 for cold segments.\n",
    ),
    (
        "memory/alpha/osprey.md",
        "---\ntitle: Osprey budget\nproject: alpha\naudience: public\n---\n# Osprey budget\n\nThe osprey budget review details are in [the sheet](sheet.md).\n",
    ),
    (
        "memory/alpha/sheet.md",
        "---\ntitle: Sheet\nproject: alpha\naudience: private\n---\n# Sheet\n\nSalary band figures: 180k.\n",
    ),
];

struct Fixture {
    _dir: tempfile::TempDir,
    store_path: std::path::PathBuf,
    recaller: Recaller,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for (rel, text) in FILES {
        let p = ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    let store_path = dir.path().join("cairn.sqlite");
    let mut store = SqliteStore::open(&store_path).unwrap();
    let req = HarvestRequest { root: ws, paths: vec![], dry_run: false, force: false };
    harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress).unwrap();
    let index = RecallIndex::open_or_create(&dir.path().join("index")).unwrap();
    sync_index(&store, &index).unwrap();
    let recaller = Recaller::new(&index, RecallSettings::default()).unwrap();
    Fixture { _dir: dir, store_path, recaller }
}

/// No recency layer: in a six-note workspace it would hold every note.
fn req(q: &str, scope: Scope) -> ContextRequest {
    let mut r = ContextRequest::new(q, scope, 1200, 1_800_000_000_000);
    r.recent = 0;
    r
}

fn run(f: &Fixture, r: &ContextRequest, opts: &GraphExpansionOptions) -> cairn_assemble::Assembly {
    let mut store = SqliteStore::open(&f.store_path).unwrap();
    let graph = open_graph(&mut store).unwrap();
    let lane = GraphExpansion { graph: Ok((&graph, &store)), options: opts };
    graph_context(Ok(&f.recaller), Some(lane), r)
}

#[test]
fn graph_context_finds_the_linked_second_hop_that_plain_recall_misses() {
    let f = fixture();
    let r = req("what happened in the kestrel outage", Scope::owner(Some("alpha".into())));
    let plain = context(Ok(&f.recaller), &r);
    assert!(!plain.block.contains("prefetch window"), "plain recall already finds it: {}", plain.block);
    let with = run(&f, &r, &GraphExpansionOptions::default());
    assert!(with.block.contains("prefetch window"), "{}", with.block);
    let trace = with.receipt.graph.as_ref().expect("graph trace");
    let c = trace
        .candidates
        .iter()
        .find(|c| c.node == "item:memory-file:memory/alpha/followup.md")
        .expect("candidate in trace");
    assert_eq!(c.decision, "included");
    assert_eq!(c.path[0].kind, "links_to");
    assert_eq!(c.path[0].provenance, "memory/alpha/incident.md:9-9");
    assert!(c.path[0].reason.is_none(), "redacted receipts carry no edge reasons");
    assert!(with.receipt.lanes.iter().any(|l| l.name == "graph" && l.candidates >= 1));
    // Disabled lane: exactly the plain context.
    let off = graph_context(Ok(&f.recaller), None, &r);
    assert_eq!(off.to_json(), plain.to_json());
}

#[test]
fn cross_project_links_are_followed_only_when_asked() {
    let f = fixture();
    let r = req("heron migration plan", Scope::owner(Some("alpha".into())));
    let mut opts = GraphExpansionOptions::default();
    let without = run(&f, &r, &opts);
    assert!(!without.block.contains("zstd"), "{}", without.block);
    assert!(without.receipt.graph.as_ref().unwrap().candidates.iter().all(|c| !c.node.contains("beta")));
    opts.expand.allow_cross_project = true;
    let with = run(&f, &r, &opts);
    assert!(with.block.contains("zstd"), "{}", with.block);
    let trace = with.receipt.graph.as_ref().unwrap();
    let c = trace.candidates.iter().find(|c| c.node.contains("memory/beta/storage.md")).unwrap();
    assert!(c.path.iter().any(|s| s.cross_project), "{c:?}");
}

#[test]
fn a_public_only_caller_never_gets_a_private_linked_note() {
    let f = fixture();
    let owner = run(
        &f,
        &req("osprey budget review", Scope::owner(Some("alpha".into()))),
        &GraphExpansionOptions::default(),
    );
    assert!(owner.block.contains("Salary band"), "{}", owner.block);
    let public = run(
        &f,
        &req("osprey budget review", Scope::public_only(Some("alpha".into()))),
        &GraphExpansionOptions::default(),
    );
    assert!(!public.block.contains("Salary band"));
    let json = public.to_json();
    assert!(!json.contains("item:memory-file:memory/alpha/sheet.md"), "the private node leaks: {json}");
    assert!(!json.contains("memory-file:memory/alpha/sheet.md#"), "the private chunk leaks: {json}");
}

fn corrupt(path: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute(sql, []).unwrap();
}

#[test]
fn a_damaged_graph_table_fails_open_with_the_baseline_block() {
    let f = fixture();
    let r = req("what happened in the kestrel outage", Scope::owner(Some("alpha".into())));
    let baseline = graph_context(Ok(&f.recaller), None, &r);
    // Build the graph, then damage a row.
    {
        let mut store = SqliteStore::open(&f.store_path).unwrap();
        open_graph(&mut store).unwrap();
    }
    corrupt(&f.store_path, "UPDATE graph_edges SET provenance = '{broken' WHERE kind = 'links_to'");
    let mut store = SqliteStore::open(&f.store_path).unwrap();
    let loaded = open_graph(&mut store);
    let err = loaded.as_ref().err().map(|e| e.to_string()).expect("the damaged row is reported");
    let lane = GraphExpansion { graph: Err(&err), options: &GraphExpansionOptions::default() };
    let out = graph_context(Ok(&f.recaller), Some(lane), &r);
    assert_eq!(out.block, baseline.block);
    assert_eq!(out.items, baseline.items);
    assert_eq!(out.receipt.failed_lanes, vec!["graph".to_owned()]);
    assert!(out.receipt.graph.is_none());
}

#[test]
fn an_unreadable_reached_item_fails_open_too() {
    let f = fixture();
    let r = req("what happened in the kestrel outage", Scope::owner(Some("alpha".into())));
    let baseline = graph_context(Ok(&f.recaller), None, &r);
    let mut store = SqliteStore::open(&f.store_path).unwrap();
    let graph: Graph = open_graph(&mut store).unwrap();
    drop(store);
    corrupt(
        &f.store_path,
        "UPDATE items SET tags = 'not json' WHERE id = 'memory-file:memory/alpha/followup.md'",
    );
    let store = SqliteStore::open(&f.store_path).unwrap();
    let lane = GraphExpansion { graph: Ok((&graph, &store)), options: &GraphExpansionOptions::default() };
    let out = graph_context(Ok(&f.recaller), Some(lane), &r);
    assert_eq!(out.block, baseline.block);
    assert_eq!(out.receipt.failed_lanes, vec!["graph".to_owned()]);
}

fn turn_engine(f: &Fixture, graph: Option<GraphExpansionOptions>) -> cairn_engine::Engine {
    let mut cfg = cairn_engine::EngineConfig::new(f.store_path.parent().unwrap());
    cfg.graph.use_in_turns = graph.is_some();
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    cfg.context.recent = Some(0);
    cairn_engine::Engine::open(cfg).unwrap()
}

fn turn_req(prompt: &str) -> cairn_engine::TurnRequest {
    cairn_engine::TurnRequest {
        session_key: "agent:main:main".into(),
        prompt: prompt.into(),
        turn_id: None,
        budget: Some(1200),
        project: Some("alpha".into()),
        now_ms: Some(1_800_000_000_000),
    }
}

#[test]
fn the_turn_pipeline_expands_the_graph_and_traces_it() {
    let f = fixture();
    let prompt = "what happened in the kestrel outage";
    let plain = turn_engine(&f, None).turn(&turn_req(prompt));
    assert!(!plain.prepend_context.contains("prefetch window"), "{}", plain.prepend_context);
    assert!(plain.trace.lanes.iter().all(|l| l.name != "graph"));

    let engine = turn_engine(&f, Some(GraphExpansionOptions::default()));
    assert!(engine.lanes().contains(&"graph".to_owned()));
    let with = engine.turn(&turn_req(prompt));
    assert!(with.prepend_context.contains("prefetch window"), "{}", with.prepend_context);
    assert!(with.tokens <= 1200);
    let lane = with.trace.lanes.iter().find(|l| l.name == "graph").expect("graph lane in the trace");
    assert_eq!(lane.status, cairn_core::LaneStatus::Ok);
    let receipt = with.trace.receipt.as_ref().unwrap();
    let c = receipt
        .graph
        .as_ref()
        .expect("graph decisions in the receipt")
        .candidates
        .iter()
        .find(|c| c.node == "item:memory-file:memory/alpha/followup.md")
        .expect("the linked note is a candidate");
    assert_eq!(c.decision, "included");
    assert_eq!(c.path[0].kind, "links_to");
}

#[test]
fn the_turn_graph_fails_open_and_recovers_after_a_refresh() {
    let f = fixture();
    let prompt = "what happened in the kestrel outage";
    let plain = turn_engine(&f, None).turn(&turn_req(prompt));
    {
        let mut store = SqliteStore::open(&f.store_path).unwrap();
        open_graph(&mut store).unwrap();
    }
    corrupt(&f.store_path, "UPDATE graph_edges SET provenance = '{broken' WHERE kind = 'links_to'");
    let engine = turn_engine(&f, Some(GraphExpansionOptions::default()));
    assert!(engine.problems().iter().any(|p| p.contains("graph")), "{:?}", engine.problems());
    let out = engine.turn(&turn_req(prompt));
    assert_eq!(out.prepend_context, plain.prepend_context, "the block is the one without the lane");
    assert!(!out.fallback);
    let receipt = out.trace.receipt.as_ref().unwrap();
    assert_eq!(receipt.failed_lanes, vec!["graph".to_owned()]);

    // The damaged rows are rewritten by a rebuild; the next refresh loads the graph again.
    {
        let mut store = SqliteStore::open(&f.store_path).unwrap();
        cairn_graph::rebuild_graph(&mut store).unwrap();
    }
    let report = engine.refresh_derived();
    assert!(report.graph_reloaded && report.errors.is_empty(), "{report:?}");
    assert!(engine.problems().is_empty(), "{:?}", engine.problems());
    let healed = engine.turn(&turn_req(prompt));
    assert!(healed.prepend_context.contains("prefetch window"), "{}", healed.prepend_context);
}

#[test]
fn a_captured_turn_joins_the_graph_at_the_next_refresh() {
    let f = fixture();
    let engine = turn_engine(&f, Some(GraphExpansionOptions::default()));
    assert!(!engine.refresh_derived().graph_reloaded, "the graph loaded at open is current");
    let turn = cairn_ingest::TurnInput {
        session_key: "agent:main:main".into(),
        turn_id: Some("t1".into()),
        user: Some("any news on the kestrel outage?".into()),
        assistant: Some("the follow-up note has the fix".into()),
        project: Some("alpha".into()),
        ..Default::default()
    };
    let (outcomes, sync) = engine.capture_batch(&[turn]);
    sync.unwrap();
    assert!(matches!(outcomes[0], Ok(cairn_ingest::CaptureOutcome::Stored { .. })), "{outcomes:?}");
    let report = engine.refresh_derived();
    assert!(report.changed && report.graph_reloaded, "{report:?}");
    let mut store = SqliteStore::open(&f.store_path).unwrap();
    let graph = open_graph(&mut store).unwrap();
    assert!(graph.nodes().iter().any(|n| n.kind == "turn"), "the captured turn is a graph node");
}

#[test]
fn items_reached_past_the_cap_are_counted_not_listed() {
    let f = fixture();
    let r = req("what happened in the kestrel outage", Scope::owner(Some("alpha".into())));
    let full = run(&f, &r, &GraphExpansionOptions::default());
    let listed = full.receipt.graph.as_ref().unwrap();
    let offered = listed.candidates.iter().filter(|c| !c.chunk_id.is_empty()).count();
    assert!(offered >= 1 && listed.over_cap == 0, "{listed:?}");

    let capped = run(&f, &r, &GraphExpansionOptions { max_added: 0, ..GraphExpansionOptions::default() });
    let trace = capped.receipt.graph.as_ref().unwrap();
    assert!(trace.candidates.iter().all(|c| c.decision == "already_recalled"), "{trace:?}");
    assert_eq!(trace.over_cap, offered, "every item the full run offered is counted");
    assert!(!capped.block.contains("prefetch window"));
    assert!(capped.to_json().contains("\"over_cap\""));
}
