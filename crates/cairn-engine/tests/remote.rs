//! Remote sources as lanes of every turn, over real HTTP against fake Graphiti, LightRAG and mem0
//! servers on 127.0.0.1: parallel calls under one deadline, fail-open (the block is byte-identical to
//! the one without a failing source), scoring and the relevance floor, dedupe against local hits,
//! provenance, audience, and health (a down source costs no call).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cairn_core::{Audience, LaneStatus, Scope};
use cairn_engine::{Caller, ContextQuery, Engine, EngineConfig, TurnRequest, TurnResponse};
use cairn_remote::settings::{Kind, SourceConfig, SourceSettings};
use cairn_remote::testing::{self, FakeServer};
use cairn_store::{SqliteStore, Store, Write};
use serde_json::json;

const MAIN: &str = "agent:main:main";
const GROUP: &str = "agent:main:telegram:group:42";

/// A store with a few notes (one of them says what a Graphiti fact also says).
fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
    let notes = [
        (
            "fact:acme",
            "Acme contract",
            "The Acme contract renewal is due in March; Alice leads it.",
            Audience::Private,
        ),
        ("fact:boat", "Sailing", "Alice sails a small boat on the lake every Sunday.", Audience::Public),
        ("fact:tea", "Tea", "Bob keeps green tea in the office kitchen.", Audience::Public),
    ];
    let writes: Vec<Write> = notes
        .iter()
        .map(|(id, title, text, audience)| {
            let item = cairn_test::fact(id, title, text, *audience);
            let chunk = cairn_test::chunk_of(&item);
            Write::upsert(item, vec![chunk])
        })
        .collect();
    store.apply(&writes, "test").unwrap();
    dir
}

fn config(dir: &std::path::Path, sources: &[(&str, SourceSettings)]) -> EngineConfig {
    let mut cfg = EngineConfig::new(dir);
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    cfg.remote = sources.iter().map(|(name, s)| SourceConfig::resolve(name, s, |_| None)).collect();
    cfg
}

fn engine(dir: &std::path::Path, sources: &[(&str, SourceSettings)]) -> Engine {
    Engine::open(config(dir, sources)).unwrap()
}

fn graphiti_server() -> FakeServer {
    testing::graphiti(vec![
        testing::fact(
            "default",
            "f1",
            "WORKS_AT",
            "Alice works at Acme Corp as the contract lead",
            Some("2026-01-05T00:00:00Z"),
        ),
        // Says what the local note says: dropped as a repeat.
        testing::fact(
            "default",
            "f2",
            "DUE",
            "The Acme contract renewal is due in March; Alice leads it.",
            None,
        ),
        // About nothing the prompt asks: below the floor.
        testing::fact("default", "f3", "LIKES", "Bob likes green tea", None),
    ])
}

fn graphiti(server: &FakeServer) -> SourceSettings {
    SourceSettings::new(Kind::Graphiti, server.url())
}

fn turn(e: &Engine, session: &str, prompt: &str) -> TurnResponse {
    e.turn(&TurnRequest {
        session_key: session.into(),
        prompt: prompt.into(),
        now_ms: Some(1_800_000_000_000),
        ..Default::default()
    })
}

fn lane<'a>(r: &'a TurnResponse, name: &str) -> &'a cairn_core::LaneReport {
    r.trace
        .lanes
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no lane {name}: {:?}", r.trace.lanes))
}

const PROMPT: &str = "Where does Alice work, and who leads the Acme contract?";

#[test]
fn a_graphiti_fact_is_a_first_class_hit() {
    let dir = store();
    let server = graphiti_server();
    let e = engine(dir.path(), &[("graphiti", graphiti(&server))]);
    let r = turn(&e, MAIN, PROMPT);
    let block = &r.prepend_context;
    assert!(
        block.contains("Alice works at Acme Corp as the contract lead (valid since 2026-01-05)"),
        "{block}"
    );
    assert!(block.contains("*Source: remote:graphiti:fact:f1*"), "{block}");
    assert!(block.contains("### [2026-01-05] works at"), "valid_at dates the fact: {block}");
    // The repeat of the local note and the off-topic fact are not in the block.
    assert!(!block.contains("remote:graphiti:fact:f2"), "{block}");
    assert!(!block.contains("remote:graphiti:fact:f3"), "{block}");
    assert_eq!(block.matches("renewal is due in March").count(), 1, "{block}");
    let l = lane(&r, "remote:graphiti");
    assert_eq!((l.status, l.candidates), (LaneStatus::Ok, 3));
    // The receipt names the lane; the hit carries its coverage and lane.
    let receipt = r.trace.receipt.as_ref().unwrap();
    assert!(receipt.lanes.iter().any(|l| l.name == "remote:graphiti"));
    let hits = e.search(PROMPT, e.scope_for(Caller::Owner, None), 10);
    let h = hits.iter().find(|h| h.chunk_id == "remote:graphiti:fact:f1").unwrap();
    assert_eq!(h.why.lanes, ["remote:graphiti"]);
    assert!(h.parts["coverage"] >= 0.5);
}

/// Every way a source can fail leaves the turn answered in time, the lane failed with the reason,
/// and the block byte-identical to the one without the source.
#[test]
fn a_failing_source_leaves_the_block_as_without_it() {
    let dir = store();
    let plain = engine(dir.path(), &[]);
    let without = turn(&plain, MAIN, PROMPT).prepend_context;
    drop(plain);
    let mut server = graphiti_server();
    let mut s = graphiti(&server);
    s.timeout_ms = 300;
    s.down_after = 0;
    let e = engine(dir.path(), &[("graphiti", s.clone())]);
    let c = server.control.clone();
    let check = |e: &Engine, what: &str, error: &str| {
        let t = Instant::now();
        let r = turn(e, MAIN, PROMPT);
        let took = t.elapsed();
        assert!(took < Duration::from_millis(300 + 250), "{what}: the turn took {took:?}");
        assert_eq!(r.prepend_context, without, "{what}: the block differs");
        let l = lane(&r, "remote:graphiti");
        assert_eq!(l.status, LaneStatus::Failed, "{what}");
        assert!(l.error.as_deref().unwrap_or_default().starts_with(error), "{what}: {l:?}");
        assert!(!r.fallback, "{what}: a failed source is no fallback");
    };
    c.delay_ms.store(5_000, Ordering::Relaxed);
    check(&e, "slow", "timeout 300 ms");
    c.delay_ms.store(0, Ordering::Relaxed);
    c.fail_status.store(500, Ordering::Relaxed);
    check(&e, "500", "HTTP 500");
    c.fail_status.store(0, Ordering::Relaxed);
    c.malformed.store(true, Ordering::Relaxed);
    check(&e, "malformed JSON", "malformed answer");
    c.malformed.store(false, Ordering::Relaxed);
    c.require_key(Some("proxy"));
    check(&e, "auth rejected", "HTTP 401: credentials rejected");
    c.require_key(None);
    // The source works again: the fact is back.
    assert_ne!(turn(&e, MAIN, PROMPT).prepend_context, without);
    server.stop();
    check(&e, "down", "unreachable");
}

#[test]
fn sources_run_side_by_side_under_one_deadline() {
    let dir = store();
    let servers: Vec<FakeServer> = (0..3).map(|_| graphiti_server()).collect();
    for s in &servers {
        s.control.delay_ms.store(200, Ordering::Relaxed);
    }
    let sources: Vec<(String, SourceSettings)> =
        servers.iter().enumerate().map(|(i, s)| (format!("g{i}"), graphiti(s))).collect();
    let named: Vec<(&str, SourceSettings)> = sources.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
    let e = engine(dir.path(), &named);
    turn(&e, MAIN, PROMPT); // warm: index opened, connections made
    let t = Instant::now();
    let r = turn(&e, MAIN, PROMPT);
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(200), "{took:?}");
    assert!(took < Duration::from_millis(450), "three 200 ms sources in series would take 600 ms: {took:?}");
    for i in 0..3 {
        assert_eq!(lane(&r, &format!("remote:g{i}")).status, LaneStatus::Ok);
    }
    // The same fact from three sources is one entry.
    assert_eq!(r.prepend_context.matches("Alice works at Acme Corp").count(), 1);
}

#[test]
fn a_private_source_never_reaches_a_shared_audience() {
    let dir = store();
    let server = graphiti_server();
    let e = engine(dir.path(), &[("graphiti", graphiti(&server))]);
    let r = turn(&e, GROUP, PROMPT);
    assert!(!r.prepend_context.contains("Alice works at Acme Corp"), "{}", r.prepend_context);
    let l = lane(&r, "remote:graphiti");
    assert_eq!(l.status, LaneStatus::Skipped);
    assert!(server.control.requests().is_empty(), "not even called");
    // The same for every surface that takes a scope.
    let public = Scope::public_only(None);
    assert!(e.search(PROMPT, public.clone(), 10).iter().all(|h| !h.chunk_id.starts_with("remote:")));
    let a = e.context(&ContextQuery::new(PROMPT, public));
    assert!(!a.block.contains("Acme Corp"));
    drop(e);

    let mut open = graphiti(&server);
    open.audience = Audience::Public;
    let e = engine(dir.path(), &[("graphiti", open)]);
    let r = turn(&e, GROUP, PROMPT);
    assert!(r.prepend_context.contains("Alice works at Acme Corp"), "{}", r.prepend_context);
}

#[test]
fn a_down_source_costs_no_call() {
    let dir = store();
    let mut server = graphiti_server();
    let mut s = graphiti(&server);
    s.timeout_ms = 400;
    let e = engine(dir.path(), &[("graphiti", s)]);
    turn(&e, MAIN, PROMPT); // warm: the tokenizer's tables, the index reader
    let statuses = e.probe_sources();
    assert_eq!(statuses[0].state, cairn_core::SourceState::Up);
    server.control.health_status.store(503, Ordering::Relaxed);
    server.control.delay_ms.store(5_000, Ordering::Relaxed);
    assert_eq!(e.probe_source("graphiti").unwrap().state, cairn_core::SourceState::Down);
    let before = server.control.searches.load(Ordering::Relaxed);
    let t = Instant::now();
    let r = turn(&e, MAIN, PROMPT);
    assert!(t.elapsed() < Duration::from_millis(200), "{:?}", t.elapsed());
    assert_eq!(server.control.searches.load(Ordering::Relaxed), before);
    let l = lane(&r, "remote:graphiti");
    assert_eq!(l.status, LaneStatus::Failed);
    assert_eq!(l.error.as_deref(), Some("down: HTTP 503"));
    let st = &e.sources_status()[0];
    assert_eq!(st.skipped_down, 1);
    server.stop();
}

#[test]
fn lightrag_and_mem0_hits_join_the_block() {
    let dir = store();
    let rag = testing::lightrag(json!({
        "entities": [{"entity_name": "Acme Corp", "entity_type": "ORGANIZATION",
            "description": "Acme Corp is where Alice works; it builds boats.", "source_id": "c1", "file_path": "/d/acme.md"}],
        "relationships": [], "chunks": [],
    }));
    let mem = testing::mem0(vec![testing::memory(
        "alice",
        "m1",
        "Alice wants the Acme contract lead role to stay hers",
        "2026-02-01T00:00:00Z",
    )]);
    let mut m = SourceSettings::new(Kind::Mem0, mem.url());
    m.partition = Some("alice".into());
    let e = engine(dir.path(), &[("docs", SourceSettings::new(Kind::Lightrag, rag.url())), ("memories", m)]);
    let r = turn(&e, MAIN, PROMPT);
    let block = &r.prepend_context;
    assert!(block.contains("*Source: remote:docs:entity:Acme Corp*"), "{block}");
    assert!(block.contains("*Source: remote:memories:memory:m1*"), "{block}");
    assert_eq!(lane(&r, "remote:docs").status, LaneStatus::Ok);
    assert_eq!(lane(&r, "remote:memories").status, LaneStatus::Ok);
    let (_, _, body) = rag.control.requests().pop().unwrap();
    assert_eq!(body["ll_keywords"], json!(["alice", "work", "leads", "acme", "contract"]));
}

/// Seed 000's example: "dinner with the founder" ties the dining and deal intents (no pack); a
/// Graphiti fact about a portfolio company boosts the deal intent and suppresses dining.
#[test]
fn graphiti_facts_feed_the_entity_boosts() {
    let dir = store();
    let route = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/config");
    let prompt = "Should I book dinner with the founder of Kestrel?";
    let mut plain_cfg = config(dir.path(), &[]);
    plain_cfg.route_dir = Some(route.clone());
    let plain = Engine::open(plain_cfg).unwrap();
    let without = turn(&plain, MAIN, prompt);
    drop(plain);
    let server = testing::graphiti(vec![testing::fact(
        "default",
        "k1",
        "PORTFOLIO_COMPANY_OF",
        "The founder of Kestrel invited us to dinner; Northwind invested in Kestrel",
        None,
    )]);
    let mut cfg = config(dir.path(), &[("graphiti", graphiti(&server))]);
    cfg.route_dir = Some(route);
    let e = Engine::open(cfg).unwrap();
    let with = turn(&e, MAIN, prompt);
    assert_eq!(without.intent.pack, None, "a tie: {:?}", without.intent);
    assert!(
        with.prepend_context.contains("remote:graphiti:fact:k1"),
        "{:?} {}",
        with.trace.lanes,
        with.prepend_context
    );
    assert_eq!(with.intent.pack.as_deref(), Some("deal_brief"), "{:?}", with.intent);
}

fn captured(session: &str, user: &str, assistant: &str) -> cairn_engine::TurnInput {
    // What a host's capture says of a group chat's turn: public (the daemon sets it from the key).
    let audience = if session == GROUP { "public" } else { "private" };
    serde_json::from_value(
        json!({"session_key": session, "turn_id": "t1", "user": user, "assistant": assistant,
        "timestamp": "2026-03-01T10:00:00Z", "audience": audience}),
    )
    .unwrap()
}

/// Waits until `server` has received at least `n` requests to `path` (at most 5 s).
fn received(server: &FakeServer, path: &str, n: usize) -> Vec<serde_json::Value> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let got: Vec<serde_json::Value> =
            server.control.requests().into_iter().filter(|(p, _, _)| p == path).map(|(_, _, b)| b).collect();
        if got.len() >= n || Instant::now() > until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn captured_turns_are_written_through_in_the_background_with_retries() {
    let dir = store();
    let graph = testing::graphiti(vec![]);
    let mem = testing::mem0(vec![]);
    let mut g = graphiti(&graph);
    g.write_through = true;
    let mut m = SourceSettings::new(Kind::Mem0, mem.url());
    m.write_through = true;
    m.partition = Some("alice".into());
    let e = engine(dir.path(), &[("graphiti", g), ("memories", m)]);
    // The first write to Graphiti fails: it is retried.
    graph.control.fail_status.store(500, Ordering::Relaxed);
    let t = Instant::now();
    let out = e
        .capture(&captured(
            MAIN,
            "<cairn-context>injected memory</cairn-context>\nWhere does Alice work?",
            "At Acme Corp.",
        ))
        .unwrap();
    assert!(matches!(out, cairn_engine::CaptureOutcome::Stored { .. }));
    assert!(t.elapsed() < Duration::from_millis(400), "the capture does not wait: {:?}", t.elapsed());
    let mems = received(&mem, "/memories", 1);
    assert_eq!(mems.len(), 1);
    assert_eq!(mems[0]["user_id"], "alice");
    assert_eq!(
        mems[0]["messages"],
        json!([{"role": "user", "content": "Where does Alice work?"}, {"role": "assistant", "content": "At Acme Corp."}])
    );
    std::thread::sleep(Duration::from_millis(100));
    graph.control.fail_status.store(0, Ordering::Relaxed);
    let msgs = received(&graph, "/messages", 2);
    assert_eq!(msgs.len(), 2, "one failed attempt, one retry");
    assert_eq!(msgs[1]["group_id"], "default");
    assert_eq!(msgs[1]["messages"][0]["content"], "Where does Alice work?");
    assert_eq!(msgs[1]["messages"][0]["role_type"], "user");
    assert_eq!(msgs[1]["messages"][1]["role_type"], "assistant");
}

#[test]
fn a_private_turn_is_never_written_to_a_public_source() {
    let dir = store();
    let graph = testing::graphiti(vec![]);
    let mut g = graphiti(&graph);
    g.write_through = true;
    g.audience = Audience::Public;
    let e = engine(dir.path(), &[("graphiti", g)]);
    e.capture(&captured(MAIN, "my bank pin is 1234", "Noted.")).unwrap();
    e.capture(&captured(GROUP, "the picnic is on Sunday", "Great.")).unwrap();
    let msgs = received(&graph, "/messages", 1);
    std::thread::sleep(Duration::from_millis(200));
    let msgs = if msgs.len() == 1 { received(&graph, "/messages", 1) } else { msgs };
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert_eq!(msgs[0]["messages"][0]["content"], "the picnic is on Sunday");
}

fn rag_file(r: &cairn_engine::BootstrapResult) -> Option<String> {
    r.files.iter().find(|f| f.name == cairn_engine::RAG_CONTEXT_FILE).and_then(|f| f.content.clone())
}

#[test]
fn rag_context_md_at_session_start() {
    let dir = store();
    // Facts about what recent memory mentions (its titles: "Acme contract", "Sailing", "Tea").
    let mut server = testing::graphiti(vec![
        testing::fact(
            "default",
            "f1",
            "LEADS",
            "Alice leads the Acme contract renewal",
            Some("2026-01-05T00:00:00Z"),
        ),
        testing::fact("default", "f2", "SAILS", "Alice sails on Sundays", None),
    ]);
    let rag = testing::lightrag(json!({
        "entities": [{"entity_name": "Acme", "entity_type": "ORGANIZATION", "description": "A boat builder"}],
        "relationships": [], "chunks": [{"content": "raw chunk", "chunk_id": "c1", "file_path": "/x.md"}],
    }));
    let e = engine(
        dir.path(),
        &[("graphiti", graphiti(&server)), ("docs", SourceSettings::new(Kind::Lightrag, rag.url()))],
    );
    let r = e.bootstrap(MAIN, vec![], None);
    let file = rag_file(&r).expect("RAG_CONTEXT.md");
    assert!(file.starts_with("# Remote context\n"), "{file}");
    assert!(
        file.contains("## Entities\n\n- **Acme (organization)**: A boat builder *(remote:docs:entity:Acme)*"),
        "{file}"
    );
    assert!(file.contains("- [2026-01-05] Alice leads the Acme contract renewal (valid since 2026-01-05) *(remote:graphiti:fact:f1)*"), "{file}");
    assert!(!file.contains("raw chunk"), "document chunks are left out: {file}");
    let receipt = r.rag_context.as_ref().unwrap();
    assert!(receipt.written);
    assert_eq!(receipt.entities, ["remote:docs:entity:Acme"]);
    assert_eq!(receipt.relations, ["remote:graphiti:fact:f1", "remote:graphiti:fact:f2"]);
    assert_eq!(receipt.left_out, 1);
    let json = serde_json::to_string(receipt).unwrap();
    assert!(!json.contains("Alice"), "the receipt holds no text: {json}");
    // What the sources were asked: recent memory's titles.
    let (_, _, body) = server.control.requests().pop().unwrap();
    assert!(body["query"].as_str().unwrap().contains("Acme contract"), "{body}");

    // Not for a sub-agent; nothing when the sources are down.
    let sub = e.bootstrap("agent:main:subagent:abc", vec![], None);
    assert!(rag_file(&sub).is_none());
    assert!(sub.rag_context.unwrap().reason.unwrap().contains("sub-agent"));
    let group = e.bootstrap(GROUP, vec![], None);
    assert!(
        rag_file(&group).unwrap_or_default().find("remote:graphiti").is_none(),
        "private sources stay out"
    );
    server.stop();
    drop(rag);
    let down = e.bootstrap(MAIN, vec![], None);
    assert!(rag_file(&down).is_none());
    let receipt = down.rag_context.unwrap();
    assert!(receipt.lanes.iter().all(|l| l.status == LaneStatus::Failed), "{:?}", receipt.lanes);

    // Without sources: no file, no receipt.
    let plain = engine(dir.path(), &[]);
    let r = plain.bootstrap(MAIN, vec![], None);
    assert!(rag_file(&r).is_none() && r.rag_context.is_none());
}
