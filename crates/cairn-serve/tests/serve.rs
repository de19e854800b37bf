//! The daemon over real HTTP on 127.0.0.1 and a real SQLite store: the turn pipeline, captures,
//! bootstrap, scope, and bad input.

mod common;

use std::sync::Arc;
use std::time::Duration;

use cairn_core::{Admission, Hit, SourceQuery, SourceStatus};
use cairn_engine::{Engine, Source};
use cairn_serve::ServeSettings;
use common::{TestDaemon, engine_config, options, seed};
use serde_json::{Value, json};

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path());
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_injects_memory_and_pack_for_the_owner() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let v = d.turn("agent:main:main", "Book a table for dinner at Lucia's favourite restaurant").await;
    let text = v["prepend_context"].as_str().unwrap();
    assert!(text.contains("<cairn-context"), "{text}");
    assert!(text.contains("Trattoria Zanzibar"), "private memory reaches the owner: {text}");
    assert!(text.contains("<pack-context intent=\"dining\""), "{text}");
    assert_eq!(v["fallback"], false);
    assert_eq!(v["session"]["kind"], "main_session");
    assert_eq!(v["session"]["audience"], "private");
    assert_eq!(v["intent"]["pack"], "dining_recs");
    assert!(v["tokens"].as_u64().unwrap() <= 2000);
    assert_eq!(v["trace"]["turn"], 1);
    // The trace is redaction-safe: no prompt or item text.
    let trace = v["trace"].to_string();
    assert!(!trace.contains("Zanzibar") && !trace.contains("Lucia"), "{trace}");

    // Nothing relevant, no keyword (in a fresh session: no sticky pack): empty prepend text.
    let v = d.turn("agent:main:telegram:direct:1001", "qwxz vbnm").await;
    assert_eq!(v["prepend_context"], "");
    assert_eq!(v["intent"]["pack"], Value::Null);
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_sessions_get_no_private_pack_or_memory() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let v = d
        .turn(
            "agent:main:telegram:group:-100123",
            "Book a table for dinner at the restaurant bistro. Where does the ops team's alert queue live?",
        )
        .await;
    let text = v["prepend_context"].as_str().unwrap();
    assert_eq!(v["session"]["kind"], "group_chat");
    assert_eq!(v["session"]["audience"], "public");
    assert!(!text.contains("Zanzibar"), "private memory leaked into a group: {text}");
    assert!(!text.contains("<pack-context"), "private pack leaked into a group: {text}");
    assert!(text.contains("Alert queue"), "public memory is still there: {text}");
    // Search with the group's key is public-only too; without a key it is a 400 that says so.
    let (s, v) = d.post("/v1/search", &json!({"query": "restaurant alerts channel"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("session_key"), "{v}");
    let (s, v) = d
        .post(
            "/v1/search",
            &json!({"query": "restaurant alerts channel", "session_key": "agent:main:telegram:group:-100123"}),
        )
        .await;
    assert_eq!(s, 200);
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["id"] != "fact:trattoria"), "{v}");
    let (_, v) =
        d.post("/v1/search", &json!({"query": "restaurant dinner", "session_key": "agent:main:main"})).await;
    assert!(v["hits"].as_array().unwrap().iter().any(|h| h["id"] == "fact:trattoria"), "{v}");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budgets_are_never_exceeded() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    for budget in [1, 5, 20, 60, 150, 400, 2000] {
        let (s, v) = d
            .post(
                "/v1/turn",
                &json!({"session_key": "agent:main:main", "prompt": "dinner at the restaurant, alert queue", "budget": budget}),
            )
            .await;
        assert_eq!(s, 200);
        let tokens = v["tokens"].as_u64().unwrap();
        assert!(tokens <= budget, "budget {budget}: {tokens} tokens");
        let counted = cairn_tokens::Tokenizer::default().count(v["prepend_context"].as_str().unwrap());
        assert!(counted as u64 <= budget, "budget {budget}: {counted} counted");
    }
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn captured_turns_are_recallable_without_injected_blocks() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let (s, v) = d
        .post(
            "/v1/capture",
            &json!({
                "session_key": "agent:main:main",
                "run_id": "run-1",
                "messages": [
                    {"role": "user", "content": "<cairn-context>INJECTEDSECRET old memory</cairn-context>\n\nWhere did we park the Quokkamobile?"},
                    {"role": "assistant", "content": [{"type": "text", "text": "The Quokkamobile is parked in garage seven."}]}
                ]
            }),
        )
        .await;
    assert_eq!(s, 202, "{v}");
    assert_eq!(v["accepted"], true);
    assert_eq!(v["turn_id"], "run-1");
    assert_eq!(v["duplicate"], false);
    d.drained().await;
    let v = d.turn("agent:main:main", "where is the Quokkamobile parked?").await;
    let text = v["prepend_context"].as_str().unwrap();
    assert!(text.contains("garage seven"), "{text}");
    assert!(!text.contains("INJECTEDSECRET"), "injected block was re-ingested: {text}");

    // A failed run is not captured.
    let (s, v) = d.post("/v1/capture", &json!({"session_key": "agent:main:main", "success": false})).await;
    assert_eq!((s, v), (200, json!({"accepted": false, "reason": "failed_run"})));
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_captures_of_one_turn_store_it_once() {
    let dir = setup();
    let d = Arc::new(TestDaemon::start(dir.path(), options()).await);
    let body = json!({
        "session_key": "agent:main:telegram:direct:1001",
        "messages": [{"role": "user", "content": "Remember the pelican code 4471"}, {"role": "assistant", "content": "Noted."}]
    });
    let tasks: Vec<_> = (0..24)
        .map(|_| {
            let (d, body) = (d.clone(), body.clone());
            tokio::spawn(async move { d.post("/v1/capture", &body).await })
        })
        .collect();
    let mut fresh = 0;
    let mut ids = std::collections::BTreeSet::new();
    for t in tasks {
        let (s, v) = t.await.unwrap();
        assert_eq!(s, 202, "{v}");
        ids.insert(v["turn_id"].as_str().unwrap().to_owned());
        if v["duplicate"] == false {
            fresh += 1;
        }
    }
    assert_eq!(fresh, 1, "exactly one capture is new");
    assert_eq!(ids.len(), 1, "every copy got the same derived turn id");
    d.drained().await;
    assert_eq!(d.engine.turn_count(Some("agent:main:telegram:direct:1001")).unwrap(), 1);
    Arc::try_unwrap(d).ok().unwrap().stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), ServeSettings { max_body_bytes: 64 * 1024, ..options() }).await;
    // Oversized body.
    let big = json!({"session_key": "k", "prompt": "x".repeat(100 * 1024)});
    let (s, v) = d.post("/v1/turn", &big).await;
    assert_eq!(s, 413, "{v}");
    assert_eq!(v["error"]["code"], "body_too_large");
    // Invalid JSON: 400 with the position.
    let (s, v) = d.post_raw("/v1/turn", b"{\"session_key\": \"k\", \"prompt\": ".to_vec()).await;
    assert_eq!(s, 400);
    assert_eq!(v["error"]["code"], "invalid_json");
    assert!(v["error"]["message"].as_str().unwrap().contains("line 1"), "{v}");
    // Missing and mistyped fields are named.
    let (s, v) = d.post("/v1/turn", &json!({"prompt": "hi"})).await;
    assert_eq!(s, 400);
    assert!(v["error"]["message"].as_str().unwrap().contains("session_key"), "{v}");
    let (s, v) = d.post("/v1/turn", &json!({"session_key": "k", "prompt": "hi", "budget": "many"})).await;
    assert_eq!(s, 400);
    assert!(v["error"]["message"].as_str().unwrap().contains("budget"), "{v}");
    let (s, v) = d.post("/v1/capture", &json!({"session_key": " ", "user": "x"})).await;
    assert_eq!(s, 400);
    assert!(v["error"]["message"].as_str().unwrap().contains("session_key"), "{v}");
    let (s, v) = d
        .post("/v1/capture", &json!({"session_key": "k", "messages": [{"role": "user", "content": 5}]}))
        .await;
    assert_eq!(s, 400);
    assert!(v["error"]["message"].as_str().unwrap().contains("messages[0].content"), "{v}");
    // Unknown endpoint.
    let (s, _) = d.get("/v2/nothing").await;
    assert_eq!(s, 404);
    // The daemon keeps serving.
    let (s, body) = d.get("/v1/health").await;
    assert_eq!(s, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["status"], "ok");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_session_keys_get_the_fallback_kind() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    // F10: unknown formats fail closed: a shared audience, never the owner's private memory.
    for key in [
        "weird/key",
        "x",
        "slack|C1|thread",
        "agent",
        "agent:main:whatsapp:120363@g.us",
        "telegram:-100123456",
    ] {
        let v = d.turn(key, "dinner at the restaurant").await;
        assert_eq!(v["session"]["kind"], "fallback", "{key}");
        assert_eq!(v["session"]["audience"], "public", "{key}");
        assert!(!v["trace"]["warnings"].as_array().unwrap().is_empty());
        let text = v["prepend_context"].as_str().unwrap();
        assert!(!text.contains("Trattoria Zanzibar"), "{key}: private memory reached an unknown key: {text}");
    }
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_megabyte_prompt_is_served_within_budget() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let prompt = "dinner restaurant alert queue ".repeat(1024 * 1024 / 30 + 1);
    assert!(prompt.len() >= 1024 * 1024);
    let (s, v) =
        d.post("/v1/turn", &json!({"session_key": "agent:main:main", "prompt": prompt, "budget": 500})).await;
    assert_eq!(s, 200, "{v}");
    assert!(v["tokens"].as_u64().unwrap() <= 500);
    assert_eq!(v["trace"]["prompt_truncated"], true);
    assert!(v["prepend_context"].as_str().unwrap().contains("<cairn-context"), "{v}");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sticky_state_survives_a_restart() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let v = d.turn("agent:main:main", "Can you book a table for dinner on Friday?").await;
    assert_eq!(v["intent"]["pack"], "dining_recs");
    d.stop().await;

    let d = TestDaemon::start(dir.path(), options()).await;
    let v = d.turn("agent:main:main", "and for six people?").await;
    assert_eq!(v["intent"]["sticky"], true, "{}", v["intent"]);
    assert_eq!(v["intent"]["pack"], "dining_recs");
    assert_eq!(v["trace"]["turn"], 2, "the turn counter survived");
    // Another session has no sticky pack.
    let v = d.turn("agent:main:telegram:direct:1001", "and for six people?").await;
    assert_eq!(v["intent"]["sticky"], false);
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_drains_the_capture_queue() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let n = 150;
    for i in 0..n {
        let (s, _) = d
            .post(
                "/v1/capture",
                &json!({"session_key": "agent:main:main", "turn_id": format!("t{i}"), "user": format!("note number {i}"), "assistant": "ok"}),
            )
            .await;
        assert_eq!(s, 202);
    }
    d.stop().await;
    let store = cairn_store::SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
    assert_eq!(store.turn_count(Some("agent:main:main")).unwrap(), n);
    assert_eq!(store.queue_counts().unwrap().queued, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_index_gives_the_fallback_note_with_200() {
    let dir = setup();
    // The index path is a file: the index can be neither opened nor rebuilt.
    std::fs::write(dir.path().join("index"), "not an index").unwrap();
    let d = TestDaemon::start(dir.path(), options()).await;
    let v = d.turn("agent:main:main", "book a table for dinner").await;
    assert_eq!(v["fallback"], true);
    let text = v["prepend_context"].as_str().unwrap();
    assert!(text.starts_with("<cairn-fallback>"), "{text}");
    // Routing still works: the pack is there next to the note.
    assert!(text.contains("<pack-context"), "{text}");
    let (_, status) = d.get("/v1/status").await;
    assert!(status.contains("recall unavailable"), "{status}");
    d.stop().await;
}

/// A source that takes far longer than the turn timeout.
struct SlowSource;

impl Source for SlowSource {
    fn name(&self) -> &str {
        "slow"
    }
    fn audience(&self) -> cairn_core::Audience {
        cairn_core::Audience::Private
    }
    fn timeout(&self) -> Duration {
        Duration::from_secs(5)
    }
    fn admit(&self, _: &SourceQuery<'_>) -> Admission {
        Admission::Call
    }
    fn recall(&self, _: &SourceQuery<'_>) -> Result<Vec<Hit>, String> {
        std::thread::sleep(Duration::from_millis(800));
        Ok(vec![])
    }
    fn status(&self) -> SourceStatus {
        SourceStatus { name: "slow".into(), ..SourceStatus::default() }
    }
    fn probe(&self) -> SourceStatus {
        self.status()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_turn_times_out_into_the_fallback_note() {
    let dir = setup();
    let engine = Engine::open(engine_config(dir.path())).unwrap().with_source(Arc::new(SlowSource));
    let d = TestDaemon::start_with(engine, ServeSettings { turn_timeout_ms: 100, ..options() }).await;
    let started = std::time::Instant::now();
    let v = d.turn("agent:main:main", "dinner").await;
    assert!(started.elapsed() < Duration::from_millis(700));
    assert_eq!(v["fallback"], true);
    assert!(v["prepend_context"].as_str().unwrap().contains("timed out"));
    let (_, m) = d.get("/metrics").await;
    assert!(m.contains("cairn_turns_total{result=\"timeout\"} 1"), "{m}");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_token_is_enforced() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), ServeSettings { token: Some("s3cret".into()), ..options() }).await;
    let (s, v) = d.post("/v1/turn", &json!({"session_key": "k", "prompt": "x"})).await;
    assert_eq!(s, 401);
    assert_eq!(v["error"]["code"], "unauthorized");
    let (s, _) = d.get("/v1/health").await;
    assert_eq!(s, 200);
    let r = d
        .client
        .post(format!("{}/v1/turn", d.url))
        .bearer_auth("s3cret")
        .json(&json!({"session_key": "k", "prompt": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = d.client.get(format!("{}/v1/status", d.url)).bearer_auth("wrong").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    d.stop().await;
    // A non-loopback address needs a token.
    let open = ServeSettings { addr: "0.0.0.0:0".parse().unwrap(), ..ServeSettings::default() };
    assert!(cairn_serve::check(&open).unwrap_err().to_string().contains("token"));
    assert!(cairn_serve::check(&ServeSettings { token: Some("t".into()), ..open }).is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_is_served_checked_in_and_complete() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let (s, served) = d.get("/v1/openapi.json").await;
    assert_eq!(s, 200);
    let file =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json")).unwrap();
    assert_eq!(served, file, "served and checked-in documents differ");
    let doc: Value = serde_json::from_str(&file).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for (method, path) in cairn_serve::ROUTES {
        assert!(doc["paths"][path][method].is_object(), "{method} {path} missing from the OpenAPI document");
    }
    assert_eq!(doc["paths"].as_object().unwrap().len(), cairn_serve::ROUTES.len(), "extra paths documented");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_turns_captures_and_packs() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    d.turn("agent:main:main", "book a table for dinner").await;
    d.turn("agent:main:telegram:direct:1001", "qwxz").await;
    d.post("/v1/capture", &json!({"session_key": "agent:main:main", "user": "hello", "assistant": "hi"}))
        .await;
    let (s, m) = d.get("/metrics").await;
    assert_eq!(s, 200);
    assert!(
        m.lines().any(|l| l.starts_with("cairn_http_request_duration_seconds_bucket{")
            && l.contains("endpoint=\"/v1/turn\"")),
        "{m}"
    );
    assert!(m.contains("cairn_turns_total{result=\"ok\"} 2"), "{m}");
    assert!(m.contains("cairn_pack_injections_total{pack=\"dining_recs\"} 1"), "{m}");
    assert!(m.contains("cairn_pack_injection_ratio{pack=\"dining_recs\"} 0.5"), "{m}");
    assert!(m.contains("cairn_captures_total{result=\"accepted\"} 1"), "{m}");
    assert!(m.contains("cairn_recalls_total{result=\"ok\"} 2"), "{m}");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bootstrap_filters_by_session_kind_and_adds_the_context_file() {
    let dir = setup();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("TOOLS_COMPACT.md"), "# Tools\nshort list").unwrap();
    let d = TestDaemon::start(dir.path(), options()).await;
    let file =
        |n: &str| json!({"name": n, "path": ws.join(n).to_string_lossy(), "content": "x", "missing": false});
    let files = json!([file("AGENTS.md"), file("SOUL.md"), file("USER.md"), file("MEMORY.md")]);
    let (s, v) = d
        .post(
            "/v1/bootstrap",
            &json!({"session_key": "agent:main:subagent:0b7e", "files": files, "workspace_dir": ws.to_string_lossy()}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let names: Vec<&str> =
        v["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["SOUL.md", "CAIRN_CONTEXT.md"]);
    assert_eq!(v["removed"].as_array().unwrap().len(), 3);
    assert_eq!(v["session"]["kind"], "subagent");

    // The owner's main session: TOOLS_COMPACT.md is added from the workspace; the context file holds
    // private memory; a group's holds none.
    let (_, v) = d
        .post(
            "/v1/bootstrap",
            &json!({"session_key": "agent:main:main", "files": files, "workspace_dir": ws.to_string_lossy()}),
        )
        .await;
    let names: Vec<&str> =
        v["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["SOUL.md", "USER.md", "TOOLS_COMPACT.md", "CAIRN_CONTEXT.md"]);
    let ctx = v["files"][3]["content"].as_str().unwrap();
    assert!(ctx.contains("Zanzibar"), "{ctx}");
    let (_, v) =
        d.post("/v1/bootstrap", &json!({"session_key": "agent:main:discord:group:g1", "files": files})).await;
    let ctx = v["files"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap();
    assert!(!ctx.contains("Zanzibar"), "{ctx}");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingest_intent_and_context_endpoints() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let (s, v) = d
        .post(
            "/v1/ingest",
            &json!({"text": "The staging cluster password rotates every Tuesday.", "tags": ["ops"], "session_key": "agent:main:main"}),
        )
        .await;
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let (_, v) = d
        .post(
            "/v1/search",
            &json!({"query": "when does the staging password rotate", "session_key": "agent:main:main"}),
        )
        .await;
    assert_eq!(v["hits"][0]["id"], id, "{v}");
    // Ingested notes are private by default: not visible to a group.
    let group = "agent:main:telegram:group:-100123";
    let (_, v) =
        d.post("/v1/search", &json!({"query": "staging password rotate", "session_key": group})).await;
    assert!(v["hits"].as_array().unwrap().iter().all(|h| h["id"] != id.as_str()));

    // Intent dry run: no sticky update.
    let (s, v) = d
        .post("/v1/intent", &json!({"session_key": "agent:main:main", "prompt": "book a table for dinner"}))
        .await;
    assert_eq!(s, 200);
    assert_eq!(v["intent"]["pack"], "dining_recs");
    let v2 = d.turn("agent:main:main", "and for six people?").await;
    assert_eq!(v2["intent"]["sticky"], false, "a dry run must not make the next turn sticky");

    let (s, v) = d
        .post(
            "/v1/context",
            &json!({"query": "staging password", "format": "xml", "session_key": "agent:main:main"}),
        )
        .await;
    assert_eq!(s, 200);
    assert!(v["context_block"].as_str().unwrap().contains("staging"), "{v}");
    assert_eq!(v["format"], "xml");
    assert!(v["receipt"].is_object());

    // Forget: a group may not; the owner may, and then nothing recalls it.
    let (s, v) = d.post("/v1/forget", &json!({"ids": [id], "session_key": group})).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = d.post("/v1/forget", &json!({"ids": [id], "session_key": "agent:main:main"})).await;
    assert_eq!((s, &v["items"]), (200, &json!([id])), "{v}");
    let (_, v) = d
        .post("/v1/search", &json!({"query": "staging password rotate", "session_key": "agent:main:main"}))
        .await;
    assert!(v["hits"].as_array().unwrap().iter().all(|h| h["id"] != id.as_str()), "{v}");
    let (s, v) = d.post("/v1/forget", &json!({"session_key": "agent:main:main"})).await;
    assert_eq!(s, 400, "naming nothing is an error: {v}");
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_on_a_unix_socket() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = setup();
    let sock = dir.path().join("cairn.sock");
    let d = TestDaemon::start(dir.path(), ServeSettings { unix: Some(sock.clone()), ..options() }).await;
    assert!(d.url.starts_with("unix:"));
    let mut s = tokio::net::UnixStream::connect(&sock).await.unwrap();
    s.write_all(b"GET /v1/health HTTP/1.1\r\nHost: cairn\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains("\"status\":\"ok\""), "{out}");
    d.stop().await;
    assert!(!sock.exists(), "the socket file is removed at shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_of_a_group_gets_its_task_context_in_the_groups_view() {
    let dir = setup();
    let d = TestDaemon::start(dir.path(), options()).await;
    let group = "agent:main:telegram:group:-100123";
    let child = "agent:main:subagent:5b1e";
    let task = "[Subagent Task] Book a table for dinner at the restaurant bistro, and where does the alert queue live?";

    // Bad spawns are refused with what is wrong.
    let (s, v) = d
        .post("/v1/subagents", &json!({"parent_session_key": group, "child_session_key": "agent:main:main"}))
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("not a sub-agent session key"), "{v}");
    let (s, v) = d.post("/v1/subagents", &json!({"child_session_key": child})).await;
    assert_eq!(s, 400, "{v}");

    let (s, v) = d
        .post(
            "/v1/subagents",
            &json!({"parent_session_key": group, "child_session_key": child, "run_id": "r-9", "label": "booking"}),
        )
        .await;
    assert_eq!(s, 201, "{v}");
    assert_eq!((v["parent"].as_str(), v["run_id"].as_str()), (Some(group), Some("r-9")));

    // The owner's view of the same task (an unlinked sub-agent) holds the private note and pack.
    let v = d.turn("agent:main:subagent:unlinked", task).await;
    let text = v["prepend_context"].as_str().unwrap();
    assert!(text.contains("Zanzibar") && text.contains("<pack-context"), "{text}");
    assert_eq!(v["trace"]["subagent"]["parent"], "unknown");

    let v = d.turn(child, task).await;
    let text = v["prepend_context"].as_str().unwrap();
    assert!(text.starts_with("<cairn-task-context parent=\""), "{text}");
    assert!(text.contains("Alert queue"), "public memory reaches the child: {text}");
    assert!(!text.contains("Zanzibar"), "private memory leaked to a group's sub-agent: {text}");
    assert!(!text.contains("<pack-context"), "private pack leaked to a group's sub-agent: {text}");
    assert_eq!(v["session"]["audience"], "public");
    assert_eq!(v["trace"]["subagent"]["parent"], group);
    assert_eq!(v["trace"]["subagent"]["narrowed"], true);
    // Its search is the group's view too.
    let (_, v) = d.post("/v1/search", &json!({"query": "restaurant dinner", "session_key": child})).await;
    assert!(v["hits"].as_array().unwrap().iter().all(|h| h["id"] != "fact:trattoria"), "{v}");

    let (s, v) = d.post("/v1/subagents/ended", &json!({"child_session_key": child, "outcome": "ok"})).await;
    assert_eq!((s, &v["known"]), (200, &json!(true)), "{v}");
    let (s, v) =
        d.post("/v1/subagents/ended", &json!({"child_session_key": "agent:main:subagent:none"})).await;
    assert_eq!((s, &v["known"]), (200, &json!(false)), "{v}");
    d.stop().await;
}
