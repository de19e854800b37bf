//! Each client against a fake of its service over real HTTP on 127.0.0.1: what is sent, how the
//! answer maps to hits, and every way a call can fail.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cairn_core::{Admission, Audience, Scope, Source, SourceQuery, SourceState};
use cairn_remote::RemoteSource;
use cairn_remote::settings::{GraphitiApi, Kind, LightragMode, SourceConfig, SourceSettings};
use cairn_remote::testing::{self, FakeServer};
use serde_json::{Value, json};

fn open(name: &str, settings: &SourceSettings, secret: Option<&str>) -> RemoteSource {
    let secret = secret.map(str::to_owned);
    RemoteSource::open(&SourceConfig::resolve(name, settings, |_| secret.clone())).unwrap()
}

fn ask<'a>(text: &'a str, keywords: &'a [String], scope: &'a Scope) -> SourceQuery<'a> {
    SourceQuery { text, keywords, scope, k: 10, mode: None }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| (*s).to_owned()).collect()
}

fn graphiti_server() -> FakeServer {
    testing::graphiti(vec![
        testing::fact("work", "f1", "WORKS_AT", "Alice works at Acme", Some("2026-01-05T00:00:00Z")),
        testing::fact("home", "f2", "LIKES", "Alice likes sailing", None),
    ])
}

#[test]
fn graphiti_search_sends_the_group_and_maps_facts() {
    let server = graphiti_server();
    let s = SourceSettings::new(Kind::Graphiti, server.url());
    let source = open("graph", &s, None);
    let scope = Scope::owner(Some("work".into()));
    let q = ask("where does Alice work?", &[], &scope);
    assert_eq!(source.admit(&q), Admission::Call);
    let hits = source.recall(&q).unwrap();
    assert_eq!(hits.len(), 1, "only the project's group");
    let h = &hits[0];
    assert_eq!(h.chunk_id, "remote:graph:fact:f1");
    assert_eq!(h.text, "Alice works at Acme\n(valid since 2026-01-05)");
    assert_eq!(h.audience, Audience::Private);
    assert_eq!(h.project, "work");
    let (path, _, body) = server.control.requests().pop().unwrap();
    assert_eq!(path, "/search");
    assert_eq!(body, json!({"group_ids": ["work"], "query": "where does Alice work?", "max_facts": 10}));
    let status = source.status();
    assert_eq!((status.calls, status.errors), (1, 0));
}

#[test]
fn graphiti_health_is_its_healthcheck() {
    let mut server = graphiti_server();
    let s = SourceSettings::new(Kind::Graphiti, server.url());
    let source = open("graph", &s, None);
    assert_eq!(source.status().state, SourceState::Unknown);
    assert_eq!(source.probe().state, SourceState::Up);
    server.control.health_status.store(503, Ordering::Relaxed);
    let down = source.probe();
    assert_eq!(down.state, SourceState::Down);
    assert_eq!(down.reason.as_deref(), Some("HTTP 503"));
    // A down source is not called.
    let scope = Scope::owner(None);
    let before = server.control.searches.load(Ordering::Relaxed);
    assert!(matches!(source.admit(&ask("Alice", &[], &scope)), Admission::Down(_)));
    assert_eq!(server.control.searches.load(Ordering::Relaxed), before);
    server.control.health_status.store(0, Ordering::Relaxed);
    assert_eq!(source.probe().state, SourceState::Up);
    server.stop();
    let stopped = source.probe();
    assert_eq!(stopped.state, SourceState::Down);
    assert!(stopped.reason.unwrap().starts_with("unreachable"), "connection refused");
}

/// Every way a search can fail is an `Err` with a message that says which, within the time limit.
#[test]
fn graphiti_failures_are_named() {
    let server = graphiti_server();
    let mut s = SourceSettings::new(Kind::Graphiti, server.url());
    s.timeout_ms = 200;
    s.down_after = 0;
    let source = open("graph", &s, None);
    let scope = Scope::owner(None);
    let q = ask("Alice", &[], &scope);
    let c = &server.control;

    c.fail_status.store(500, Ordering::Relaxed);
    assert_eq!(source.recall(&q).unwrap_err(), "HTTP 500: Internal Server Error");
    c.fail_status.store(0, Ordering::Relaxed);

    c.malformed.store(true, Ordering::Relaxed);
    assert!(source.recall(&q).unwrap_err().starts_with("malformed answer: not JSON"));
    c.malformed.store(false, Ordering::Relaxed);

    c.delay_ms.store(2_000, Ordering::Relaxed);
    let t = Instant::now();
    assert_eq!(source.recall(&q).unwrap_err(), "timeout 200 ms");
    assert!(t.elapsed() < Duration::from_millis(600), "{:?}", t.elapsed());
    c.delay_ms.store(0, Ordering::Relaxed);

    c.require_key(Some("proxy-token"));
    assert_eq!(source.recall(&q).unwrap_err(), "HTTP 401: credentials rejected (Unauthorized)");
    let authed =
        open("graph", &SourceSettings { secret_env: Some("T".into()), ..s.clone() }, Some("proxy-token"));
    assert_eq!(authed.recall(&q).unwrap().len(), 2);

    let st = source.status();
    assert_eq!((st.calls, st.errors, st.timeouts), (4, 4, 1));
}

#[test]
fn failing_calls_in_a_row_mark_a_source_down_until_a_probe_passes() {
    let server = graphiti_server();
    let mut s = SourceSettings::new(Kind::Graphiti, server.url());
    s.down_after = 2;
    let source = open("graph", &s, None);
    let scope = Scope::owner(None);
    let q = ask("Alice", &[], &scope);
    server.control.fail_status.store(500, Ordering::Relaxed);
    assert!(source.recall(&q).is_err());
    assert_eq!(source.admit(&q), Admission::Call);
    assert!(source.recall(&q).is_err());
    let Admission::Down(why) = source.admit(&q) else { panic!("down after two failures") };
    assert!(why.contains("2 calls failed in a row") && why.contains("HTTP 500"), "{why}");
    server.control.fail_status.store(0, Ordering::Relaxed);
    assert_eq!(source.probe().state, SourceState::Up);
    assert_eq!(source.admit(&q), Admission::Call);
}

#[test]
fn graphiti_over_mcp_calls_search_memory_facts_in_one_session() {
    let mut server = testing::graphiti_mcp(vec![
        testing::fact("work", "f1", "WORKS_AT", "Alice works at Acme", Some("2026-01-05T00:00:00Z")),
        testing::fact("home", "f2", "LIKES", "Alice likes sailing", None),
    ]);
    let mut s = SourceSettings::new(Kind::Graphiti, format!("{}/mcp/", server.url()));
    s.api = GraphitiApi::Mcp;
    s.write_through = true;
    let source = open("kg", &s, None);
    assert_eq!(source.probe().state, SourceState::Up);
    let scope = Scope::owner(Some("work".into()));
    let hits = source.recall(&ask("Where does Alice work?", &[], &scope)).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.chunk_id.as_str()).collect();
    assert_eq!(ids, ["remote:kg:fact:f1"], "only the project's group");
    assert_eq!(hits[0].title, "works at");
    assert_eq!(hits[0].text, "Alice works at Acme\n(valid since 2026-01-05)");
    let calls = server.control.requests();
    let (_, headers, call) = calls.iter().rev().find(|(p, _, _)| p == "/mcp tools/call").unwrap();
    assert_eq!(call["params"]["name"], "search_memory_facts");
    assert_eq!(
        call["params"]["arguments"],
        json!({"query": "Where does Alice work?", "group_ids": ["work"], "max_facts": 10})
    );
    assert!(headers.iter().any(|(h, v)| h == "mcp-session-id" && v.starts_with("session-")), "{headers:?}");
    // One session for the probe and every call after it.
    source.recall(&ask("Alice?", &[], &scope)).unwrap();
    assert_eq!(server.control.initializes.load(Ordering::Relaxed), 1);
    // The server forgot the session: a new one, once, and the call goes through.
    server.control.expire_sessions();
    assert_eq!(source.recall(&ask("Alice?", &[], &scope)).unwrap().len(), 1);
    assert_eq!(server.control.initializes.load(Ordering::Relaxed), 2);
    // Write-through is `add_memory`, one message episode per turn.
    let turn = cairn_core::CapturedTurn {
        session_key: "agent:main:main".into(),
        project: "work".into(),
        audience: Audience::Private,
        user: "Where does Alice work?".into(),
        assistant: "At Acme.".into(),
        at: 1_767_571_200_000,
    };
    source.forward(&turn).unwrap();
    let calls = server.control.requests();
    let (_, _, add) = calls.iter().rev().find(|(p, _, _)| p == "/mcp tools/call").unwrap();
    assert_eq!(add["params"]["name"], "add_memory");
    assert_eq!(
        add["params"]["arguments"]["episode_body"],
        "user: Where does Alice work?\nassistant: At Acme."
    );
    assert_eq!(add["params"]["arguments"]["group_id"], "work");
    assert_eq!(add["params"]["arguments"]["source"], "message");
    // Down: unreachable, named.
    server.stop();
    let status = source.probe();
    assert_eq!(status.state, SourceState::Down);
    assert!(status.reason.unwrap().starts_with("unreachable"));
    // `api = "mcp"` is Graphiti's alone.
    let mut m = SourceSettings::new(Kind::Mem0, "http://127.0.0.1:1");
    m.api = GraphitiApi::Mcp;
    assert!(RemoteSource::open(&SourceConfig::resolve("m", &m, |_| None)).is_err());
}

fn lightrag_server() -> FakeServer {
    testing::lightrag(json!({
        "entities": [
            {"entity_name": "Acme", "entity_type": "ORGANIZATION", "description": "Acme builds sailing boats",
             "source_id": "chunk-1", "file_path": "/docs/acme.md", "reference_id": "1"},
        ],
        "relationships": [
            {"src_id": "Alice", "tgt_id": "Acme", "description": "Alice leads the Acme contract renewal",
             "keywords": "contract, renewal", "weight": 1.0, "source_id": "chunk-1", "file_path": "/docs/acme.md",
             "reference_id": "1"},
        ],
        "chunks": [
            {"content": "The Acme contract renewal is due in March.", "file_path": "/docs/acme.md",
             "chunk_id": "chunk-1", "reference_id": "1"},
        ],
        "references": [{"reference_id": "1", "file_path": "/docs/acme.md"}],
    }))
}

#[test]
fn lightrag_gets_keywords_mode_and_workspace() {
    let server = lightrag_server();
    server.control.require_key(Some("rag-key"));
    let mut s = SourceSettings::new(Kind::Lightrag, server.url());
    s.secret_env = Some("RAG_KEY".into());
    s.projects.insert("work".into(), "acme_docs".into());
    s.modes.insert("work".into(), LightragMode::Hybrid);
    let source = open("docs", &s, Some("rag-key"));
    let scope = Scope::owner(Some("work".into()));
    let kw = words(&["acme", "contract", "renewal"]);
    let hits = source.recall(&ask("When is the Acme contract renewal?", &kw, &scope)).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.chunk_id.as_str()).collect();
    assert_eq!(
        ids,
        ["remote:docs:entity:Acme", "remote:docs:relation:Alice→Acme", "remote:docs:chunk:chunk-1"]
    );
    assert_eq!(hits[0].title, "Acme (organization)");
    assert_eq!(hits[2].title, "acme.md");
    let (_, headers, body) = server.control.requests().pop().unwrap();
    assert!(headers.contains(&("lightrag-workspace".into(), "acme_docs".into())));
    assert!(headers.contains(&("x-api-key".into(), "rag-key".into())));
    assert_eq!(body["mode"], "hybrid");
    assert_eq!(body["ll_keywords"], json!(["acme", "contract", "renewal"]));
    assert_eq!(body["hl_keywords"], json!(["acme contract renewal"]));
    assert_eq!(body["top_k"], 10);

    // A wrong key is LightRAG's 403.
    let wrong = open("docs", &s, Some("nope"));
    assert_eq!(
        wrong.recall(&ask("Acme contract", &kw, &scope)).unwrap_err(),
        "HTTP 403: credentials rejected (Invalid API Key)"
    );
}

#[test]
fn lightrag_logs_in_keeps_its_token_and_logs_in_again_when_refused() {
    let server = lightrag_server();
    server.control.require_login(Some(("cairn", "pa ss&word")));
    let mut s = SourceSettings::new(Kind::Lightrag, server.url());
    s.secret_env = Some("RAG_PASSWORD".into());
    s.login_user = Some("cairn".into());
    let source = open("docs", &s, Some("pa ss&word"));
    let scope = Scope::owner(None);
    let kw = words(&["acme", "contract", "renewal"]);
    let q = ask("When is the Acme contract renewal?", &kw, &scope);

    assert_eq!(source.recall(&q).unwrap().len(), 3);
    let (_, headers, _) = server.control.requests().pop().unwrap();
    let bearer = headers.iter().find(|(h, _)| h == "authorization").map(|(_, v)| v.clone()).unwrap();
    assert!(bearer.starts_with("Bearer ey"), "{bearer}");
    assert!(!headers.iter().any(|(h, _)| h == "x-api-key"));
    // The token is kept: no second login.
    source.recall(&q).unwrap();
    assert_eq!(server.control.logins.load(Ordering::Relaxed), 1);
    // Refused (expired on the server's side): one new login, and the call goes through.
    server.control.expire_tokens();
    assert_eq!(source.recall(&q).unwrap().len(), 3);
    assert_eq!(server.control.logins.load(Ordering::Relaxed), 2);

    // A wrong password is named as such, without the password.
    let wrong = open("docs", &s, Some("guess"));
    let e = wrong.recall(&q).unwrap_err();
    assert_eq!(e, "HTTP 401: credentials rejected (`/login` as `cairn`: Incorrect credentials)");
    assert_eq!(server.control.logins.load(Ordering::Relaxed), 2);

    // `login_user` is LightRAG's, and needs the password's variable.
    let mut g = SourceSettings::new(Kind::Graphiti, server.url());
    g.login_user = Some("cairn".into());
    assert!(RemoteSource::open(&SourceConfig::resolve("g", &g, |_| None)).is_err());
    let mut l = SourceSettings::new(Kind::Lightrag, server.url());
    l.login_user = Some("cairn".into());
    assert!(RemoteSource::open(&SourceConfig::resolve("l", &l, |_| None)).is_err());
}

#[test]
fn lightrag_is_not_sent_what_it_would_refuse_or_answer_with_a_model_call() {
    let server = lightrag_server();
    let source = open("docs", &SourceSettings::new(Kind::Lightrag, server.url()), None);
    let scope = Scope::owner(None);
    assert!(matches!(source.admit(&ask("hi", &words(&["hi"]), &scope)), Admission::Skip(_)));
    assert!(matches!(source.admit(&ask("what's new today?", &[], &scope)), Admission::Skip(_)));
    // The fake refuses a short query as LightRAG does; the client would never send one.
    let e = source.recall(&ask("ab", &words(&["ab"]), &scope)).unwrap_err();
    assert_eq!(e, "HTTP 422: Value error, RAG query is too short.");
    assert_eq!(server.control.searches.load(Ordering::Relaxed), 0);
    assert_eq!(source.probe().state, SourceState::Up);
}

#[test]
fn mem0_filters_by_the_entity_and_checks_its_key() {
    let server = testing::mem0(vec![
        testing::memory("alice", "m1", "Alice prefers tea over coffee", "2026-02-01T10:00:00Z"),
        testing::memory("bob", "m2", "Bob prefers coffee", "2026-02-02T10:00:00Z"),
    ]);
    server.control.require_key(Some("mem-key"));
    let mut s = SourceSettings::new(Kind::Mem0, server.url());
    s.secret_env = Some("MEM0_KEY".into());
    s.partition = Some("alice".into());
    let source = open("memories", &s, Some("mem-key"));
    let scope = Scope::owner(None);
    let hits = source.recall(&ask("tea or coffee?", &[], &scope)).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].chunk_id, "remote:memories:memory:m1");
    assert_eq!(hits[0].text, "Alice prefers tea over coffee");
    let (_, _, body) = server.control.requests().pop().unwrap();
    assert_eq!(body, json!({"query": "tea or coffee?", "filters": {"user_id": "alice"}, "top_k": 10}));
    // Readiness needs the key.
    assert_eq!(source.probe().state, SourceState::Up);
    let wrong = open("memories", &s, Some("wrong"));
    let st = wrong.probe();
    assert_eq!(st.state, SourceState::Down);
    assert_eq!(st.reason.as_deref(), Some("HTTP 401: credentials rejected (Invalid API key.)"));
    assert!(!format!("{st:?}").contains("wrong"), "the secret never shows");
}

#[test]
fn mem0_without_an_entity_id_is_not_called() {
    let server = testing::mem0(vec![]);
    let source = open("memories", &SourceSettings::new(Kind::Mem0, server.url()), None);
    let scope = Scope::owner(Some("work".into()));
    assert_eq!(
        source.admit(&ask("tea?", &[], &scope)),
        Admission::Skip("no user_id for project `work`".into())
    );
    // Sent anyway, the fake answers as mem0 does.
    let e = source.recall(&ask("tea?", &[], &scope)).unwrap_err();
    assert!(e.starts_with("HTTP 400: filters must contain"), "{e}");
}

#[test]
fn a_missing_secret_makes_the_source_down_without_a_call() {
    let server = testing::mem0(vec![]);
    let mut s = SourceSettings::new(Kind::Mem0, server.url());
    s.secret_env = Some("CAIRN_TEST_UNSET_SECRET".into());
    s.partition = Some("alice".into());
    let source = open("memories", &s, None);
    let scope = Scope::owner(None);
    let Admission::Down(why) = source.admit(&ask("tea?", &[], &scope)) else { panic!() };
    assert!(why.contains("CAIRN_TEST_UNSET_SECRET"), "{why}");
    assert_eq!(source.probe().state, SourceState::Down);
    assert_eq!(server.control.health_checks.load(Ordering::Relaxed), 0);
    assert!(server.control.requests().is_empty());
}

#[test]
fn status_never_holds_the_secret() {
    let server = testing::mem0(vec![]);
    let mut s = SourceSettings::new(Kind::Mem0, server.url());
    s.secret_env = Some("K".into());
    let source = open("memories", &s, Some("very-secret-value"));
    let json: Value = serde_json::to_value(source.probe()).unwrap();
    assert!(!json.to_string().contains("very-secret-value"));
    assert_eq!(json["kind"], "mem0");
    assert_eq!(json["audience"], "private");
}
