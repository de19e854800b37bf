//! Export and import of the store: a round trip gives identical bytes, a second import changes nothing,
//! what was imported is recallable, and bad input names its line.

use std::path::Path;

use cairn_engine::{Caller, ContextQuery, Engine, EngineConfig, LinkRequest, SubagentSpawn, TurnRequest};
use cairn_ingest::{HarvestRequest, NoProgress, TurnInput};

fn engine(data: &Path) -> Engine {
    let mut cfg = EngineConfig::new(data);
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    Engine::open(cfg).unwrap()
}

/// A store with every kind of record: harvested files (explicit and inferred tags, file states), a
/// note, captured turns, an explicit link, a session state and a sub-agent spawn.
fn full(dir: &Path) -> Engine {
    let ws = dir.join("ws");
    let files = [
        ("memory/heron.md", "---\ntags: [birds, lake]\n---\n# Heron\n\nThe heron nests by the north lake.\n"),
        ("memory/lake.md", "# Lake\n\nThe north lake freezes in January; see [heron](heron.md). birds\n"),
    ];
    for (rel, text) in files {
        std::fs::create_dir_all(ws.join(rel).parent().unwrap()).unwrap();
        std::fs::write(ws.join(rel), text).unwrap();
    }
    let e = engine(&dir.join("a"));
    e.harvest(
        &HarvestRequest { root: ws, paths: vec![], dry_run: false, force: false },
        &NoProgress,
        &NoProgress,
    )
    .unwrap();
    let note = cairn_engine::IngestNote { text: "The boat is at pier nine.".into(), ..Default::default() };
    e.ingest(&note).unwrap();
    for (i, (u, a)) in
        [("where is the heron?", "north lake"), ("and in winter?", "it leaves")].iter().enumerate()
    {
        let turn = TurnInput {
            session_key: "agent:main:main".into(),
            turn_id: Some(format!("t{i}")),
            user: Some((*u).into()),
            assistant: Some((*a).into()),
            timestamp: Some(serde_json::json!(1_700_000_000_000i64 + i as i64)),
            ..Default::default()
        };
        e.capture_batch(&[turn]).1.unwrap();
    }
    e.refresh_derived();
    e.link(&LinkRequest {
        from: "memory/heron.md".into(),
        to: "memory/lake.md".into(),
        kind: "lives_at".into(),
        reason: "the heron nests there".into(),
        weight: 0.9,
    })
    .unwrap();
    e.turn(&TurnRequest {
        session_key: "agent:main:main".into(),
        prompt: "heron".into(),
        turn_id: None,
        budget: None,
        project: None,
        now_ms: Some(1_800_000_000_000),
    });
    e.flush_sessions().unwrap();
    e.spawned(&SubagentSpawn {
        parent_session_key: "agent:main:main".into(),
        child_session_key: "agent:main:subagent:1".into(),
        run_id: Some("r1".into()),
        ..Default::default()
    })
    .unwrap();
    e
}

fn export(e: &Engine) -> Vec<u8> {
    let mut out = Vec::new();
    e.export_store(&mut out).unwrap();
    out
}

#[test]
fn a_round_trip_gives_identical_bytes_and_a_second_import_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = full(dir.path());
    let first = export(&a);
    let text = String::from_utf8(first.clone()).unwrap();
    for kind in ["header", "item", "turn", "link", "session_state", "subagent"] {
        assert!(text.contains(&format!("{{\"type\":\"{kind}\"")), "no {kind} record:\n{text}");
    }
    assert_eq!(text.lines().filter(|l| l.contains("\"type\":\"turn\"")).count(), 2);
    assert!(text.contains("\"file\":{\"path\":\"memory/heron.md\""), "file states travel");

    let b = engine(&dir.path().join("b"));
    // An empty data dir has no store yet: import creates it.
    let report = b.import_store(&mut first.as_slice(), "export.jsonl").unwrap();
    assert_eq!(
        (report.items, report.turns, report.links, report.session_states, report.subagents),
        (3, 2, 1, 1, 1)
    );
    assert_eq!(report.unchanged, 0);
    assert_eq!(export(&b), first, "export → import → export gives the same bytes");

    let again = b.import_store(&mut first.as_slice(), "export.jsonl").unwrap();
    assert_eq!(again.unchanged, 5, "every item and turn already there: {again:?}");
    assert_eq!(export(&b), first, "a second import changes nothing");

    // What was imported is recallable, the link is in the graph, the spawn and session state are back.
    let scope = b.scope_for(Caller::Owner, None);
    let block = b.context(&ContextQuery::new("where does the heron nest?", scope.clone())).block;
    assert!(block.contains("north lake"), "{block}");
    let graph = b.graph_export(&scope).unwrap();
    assert!(graph.edges.iter().any(|e| e.kind == "lives_at"), "the explicit link is in the graph");
    assert_eq!(b.subagent("agent:main:subagent:1").unwrap().parent, "agent:main:main");
    assert_eq!(b.session_state("agent:main:main"), a.session_state("agent:main:main"));
}

#[test]
fn bad_input_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = full(dir.path());
    let good = String::from_utf8(export(&a)).unwrap();
    let b = engine(&dir.path().join("b"));
    let err = |input: &str| b.import_store(&mut input.as_bytes(), "x.jsonl").unwrap_err().to_string();
    assert!(err("").contains("x.jsonl: empty"), "{}", err(""));
    assert!(err("{\"type\":\"item\"}\n").contains("x.jsonl:1: not an export record"));
    let no_header = good.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(err(&no_header).contains("x.jsonl:1: no `cairn-export` header first"), "{}", err(&no_header));
    let v2 = good.replacen("\"version\":1", "\"version\":2", 1);
    assert!(err(&v2).contains("version 2"), "{}", err(&v2));
    let mut broken: Vec<&str> = good.lines().collect();
    broken.insert(3, "{not json");
    assert!(err(&broken.join("\n")).contains("x.jsonl:4: not an export record"));
}
