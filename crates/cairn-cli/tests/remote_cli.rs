//! Remote sources through the real binaries: `cairn serve` with a `[remote.<name>]` section, asked
//! over HTTP like any client (turns, `/v1/sources`, `/metrics`), against a fake Graphiti on
//! 127.0.0.1 that is up, slow, then stopped; `cairn sources status` and `cairn doctor` lines.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cairn_remote::testing;
use serde_json::{Value, json};

const MAIN: &str = "agent:main:main";
const GROUP: &str = "agent:main:telegram:group:42";
const PROMPT: &str = "Where does Alice work these days?";

fn config(env: &common::Env, endpoint: &str, extra: &str) {
    let text = format!(
        "[remote.graphiti]\nkind = \"graphiti\"\nendpoint = \"{endpoint}\"\ntimeout_ms = 400\nhealth_interval_ms = 200\n{extra}"
    );
    std::fs::write(env.tmp.path().join("cairn.toml"), text).unwrap();
}

fn cmd(env: &common::Env) -> std::process::Command {
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__PROVIDER", "none")
        .env("CAIRN_WATCH__SERVE", "false")
        .arg("--config")
        .arg(env.tmp.path().join("cairn.toml"));
    cmd
}

async fn turn(client: &reqwest::Client, url: &str, session: &str) -> (Value, Duration) {
    let t = Instant::now();
    let r = client
        .post(format!("{url}/v1/turn"))
        .json(&json!({"session_key": session, "prompt": PROMPT}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    (r.json().await.unwrap(), t.elapsed())
}

fn lane<'a>(turn: &'a Value, name: &str) -> &'a Value {
    turn["trace"]["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("{turn}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_a_graphiti_source_up_slow_and_down() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/garden.md", "# Garden\n\nThe tomatoes need water every morning.\n");
    let mut server = testing::graphiti(vec![testing::fact(
        "default",
        "f1",
        "WORKS_AT",
        "Alice works at Acme Corp these days",
        Some("2026-01-05T00:00:00Z"),
    )]);
    config(&env, &server.url(), "");
    let (code, _, err) = common::output(&cmd(&env).arg("harvest").output().unwrap());
    assert_eq!(code, 0, "{err}");
    let (child, url) = common::serve(cmd(&env));
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);

    // Up: the fact is in the owner's turn, with its provenance; never in a group chat's.
    let (up, _) = turn(&client, &url, MAIN).await;
    let block = up["prepend_context"].as_str().unwrap();
    assert!(block.contains("Alice works at Acme Corp") && block.contains("remote:graphiti:fact:f1"), "{up}");
    assert_eq!(lane(&up, "remote:graphiti")["status"], "ok");
    let (group, _) = turn(&client, &url, GROUP).await;
    assert!(!group["prepend_context"].as_str().unwrap().contains("Acme"), "{group}");
    assert_eq!(lane(&group, "remote:graphiti")["status"], "skipped");

    // The prober has seen it up.
    let sources: Value = client.get(format!("{url}/v1/sources")).send().await.unwrap().json().await.unwrap();
    let s = &sources["sources"][0];
    assert_eq!((s["name"].as_str(), s["kind"].as_str()), (Some("graphiti"), Some("graphiti")));
    assert_eq!(s["state"], "up", "{sources}");
    assert!(s["calls"].as_u64().unwrap() >= 1);

    // Slow: the turn answers at its deadline, the lane failed, the block as without the source.
    server.control.delay_ms.store(3_000, Ordering::Relaxed);
    let (slow, took) = turn(&client, &url, MAIN).await;
    assert!(took < Duration::from_millis(400 + 300), "{took:?}");
    assert_eq!(lane(&slow, "remote:graphiti")["status"], "failed");
    assert_eq!(lane(&slow, "remote:graphiti")["error"], "timeout 400 ms");
    let without = slow["prepend_context"].as_str().unwrap().to_owned();
    assert!(!without.contains("Acme"));

    // Down: after the prober's next check, a turn makes no call and costs no time. (The slow call is
    // first left to run out of its own time, so it is counted as a timeout, not as a dropped connection.)
    tokio::time::sleep(Duration::from_millis(600)).await;
    server.stop();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let sources: Value = client.get(format!("{url}/v1/sources")).send().await.unwrap().json().await.unwrap();
    assert_eq!(sources["sources"][0]["state"], "down", "{sources}");
    assert!(sources["sources"][0]["reason"].as_str().unwrap().starts_with("unreachable"), "{sources}");
    let (down, took) = turn(&client, &url, MAIN).await;
    assert!(took < Duration::from_millis(300), "{took:?}");
    let l = lane(&down, "remote:graphiti");
    assert_eq!(l["status"], "failed");
    assert!(l["error"].as_str().unwrap().starts_with("down: unreachable"), "{l}");
    assert_eq!(down["prepend_context"].as_str().unwrap(), without, "the block is the one without the source");

    // Metrics per source.
    let metrics = client.get(format!("{url}/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("cairn_remote_source_up{source=\"graphiti\",kind=\"graphiti\"} 0"), "{metrics}");
    assert!(
        metrics.contains("cairn_remote_source_timeouts_total{source=\"graphiti\",kind=\"graphiti\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("cairn_remote_source_latency_seconds_bucket{"), "{metrics}");
    assert!(
        metrics.contains("cairn_remote_source_skipped_total{source=\"graphiti\",kind=\"graphiti\"} 1"),
        "{metrics}"
    );
}

#[test]
fn sources_status_and_doctor_name_each_source() {
    let env = common::Env::new(&["memory"]);
    let mut server = testing::graphiti(vec![]);
    config(&env, &server.url(), "");
    let out = common::output(&cmd(&env).args(["sources", "status"]).output().unwrap());
    assert_eq!(out.0, 0, "{out:?}");
    assert!(out.1.starts_with("graphiti  up      graphiti"), "{}", out.1);
    let out = common::output(&cmd(&env).args(["sources", "status", "--json"]).output().unwrap());
    let v: Value = serde_json::from_str(&out.1).unwrap();
    assert_eq!(v[0]["state"], "up");
    let doctor = common::output(&cmd(&env).args(["doctor"]).output().unwrap());
    assert!(
        doctor
            .1
            .lines()
            .any(|l| l.starts_with("ok") && l.contains("remote:graphiti") && l.contains("healthy")),
        "{}",
        doctor.1
    );

    server.stop();
    let out = common::output(&cmd(&env).args(["sources", "status"]).output().unwrap());
    assert_eq!(out.0, 1, "a down source: exit 1");
    assert!(out.1.contains("down") && out.1.contains("unreachable"), "{}", out.1);
    let doctor = common::output(&cmd(&env).args(["doctor"]).output().unwrap());
    assert!(
        doctor
            .1
            .lines()
            .any(|l| l.starts_with("warn") && l.contains("remote:graphiti") && l.contains("down")),
        "{}",
        doctor.1
    );

    // A secret whose variable is not set: the source can never work, which the doctor fails.
    config(&env, &server.url(), "secret_env = \"CAIRN_TEST_NO_SUCH_SECRET\"\n");
    let doctor =
        common::output(&cmd(&env).env_remove("CAIRN_TEST_NO_SUCH_SECRET").args(["doctor"]).output().unwrap());
    assert!(
        doctor.1.lines().any(|l| l.starts_with("fail") && l.contains("CAIRN_TEST_NO_SUCH_SECRET")),
        "{}",
        doctor.1
    );
}

#[test]
fn a_bad_section_is_refused_with_its_name() {
    let env = common::Env::new(&["memory"]);
    config(&env, "127.0.0.1:8000", "");
    let out = common::output(&cmd(&env).args(["sources", "status"]).output().unwrap());
    assert_eq!(out.0, 1, "{out:?}");
    assert!(out.2.contains("[remote.graphiti]") && out.2.contains("http://"), "{}", out.2);
    let unknown = common::output(
        &cmd(&env).env("CAIRN_REMOTE__GRAPHITI__TIMEOUT", "5").args(["sources", "status"]).output().unwrap(),
    );
    assert_eq!(unknown.0, 2, "an unknown key is an error: {unknown:?}");
}

/// The remote tools of `cairn mcp`, driven by a real MCP client: listed only for the kinds configured,
/// answered from the service, and failing fast with the source's name when it is down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_ask_each_source_after_a_health_check() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

    let env = common::Env::new(&["memory"]);
    let graphiti = testing::graphiti(vec![
        testing::fact("default", "f1", "WORKS_AT", "Alice works at Acme Corp", Some("2026-01-05T00:00:00Z")),
        testing::fact("default", "f2", "MOVED_TO", "Alice moved to Berlin", Some("2025-06-01T00:00:00Z")),
    ]);
    let rag = testing::lightrag(json!({
        "entities": [{"entity_name": "Acme Corp", "entity_type": "ORGANIZATION", "description": "Builds boats"}],
        "relationships": [],
        "chunks": [{"content": "Acme Corp was founded in 1990.", "file_path": "/d/acme.md", "chunk_id": "c1"}],
    }));
    let mut mem = testing::mem0(vec![]);
    let text = format!(
        "[remote.graphiti]\nkind = \"graphiti\"\nendpoint = \"{}\"\n\n[remote.docs]\nkind = \"lightrag\"\nendpoint = \"{}\"\n\n[remote.memories]\nkind = \"mem0\"\nendpoint = \"{}\"\npartition = \"alice\"\n",
        graphiti.url(),
        rag.url(),
        mem.url()
    );
    let config = env.tmp.path().join("cairn.toml");
    std::fs::write(&config, text).unwrap();
    mem.stop();
    let data = env.data.clone();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(env!("CARGO_BIN_EXE_cairn")).configure(|cmd| {
            cmd.env_remove("CAIRN_CONFIG")
                .env("CAIRN_EMBED__PROVIDER", "none")
                .arg("--config")
                .arg(&config)
                .arg("--data-dir")
                .arg(&data)
                .arg("mcp");
        }))
        .unwrap();
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    for t in ["graphiti_search", "lightrag_query", "memory_service_query", "search"] {
        assert!(names.contains(&t.to_owned()), "{names:?}");
    }
    let call = |name: &'static str, args: Value| {
        let Value::Object(map) = args else { panic!() };
        client.call_tool(CallToolRequestParams::new(name).with_arguments(map))
    };
    let r = call(
        "graphiti_search",
        json!({"query": "where does Alice work?", "timeRange": {"start": "2026-01-01"}}),
    )
    .await
    .unwrap();
    let v = r.structured_content.clone().unwrap();
    assert_eq!(v["source"], "graphiti");
    assert_eq!(v["results"].as_array().unwrap().len(), 1, "the span keeps the 2026 fact only: {v}");
    assert_eq!(v["results"][0]["date"], "2026-01-05");
    let r =
        call("lightrag_query", json!({"query": "Acme Corp history", "includeSources": false})).await.unwrap();
    let v = r.structured_content.clone().unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 1, "entities only: {v}");
    let (_, _, body) = rag.control.requests().pop().unwrap();
    assert_eq!(body["mode"], "hybrid");
    assert_eq!(body["top_k"], 5);
    let r = call("memory_service_query", json!({"query": "tea or coffee?"})).await.unwrap();
    assert_eq!(r.is_error, Some(true));
    let msg: String = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    assert!(msg.contains("source `memories`") && msg.contains("is down"), "{msg}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_source_query_answers_a_tool_call_and_names_the_source_when_it_cannot() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/garden.md", "# Garden\n\nThe tomatoes need water every morning.\n");
    let mut server = testing::graphiti(vec![testing::fact(
        "default",
        "f1",
        "WORKS_AT",
        "Alice works at Acme Corp these days",
        Some("2026-01-05T00:00:00Z"),
    )]);
    config(&env, &server.url(), "");
    let (child, url) = common::serve(cmd(&env));
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let ask = |body: Value| {
        let client = client.clone();
        let url = url.clone();
        async move {
            let r = client.post(format!("{url}/v1/sources/query")).json(&body).send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };

    let (code, up) =
        ask(json!({"tool": "graphiti_search", "query": PROMPT, "limit": 5, "session_key": MAIN})).await;
    assert_eq!(code, 200, "{up}");
    assert_eq!(up["source"], "graphiti");
    assert_eq!(up["results"][0]["id"], "remote:graphiti:fact:f1", "{up}");
    assert_eq!(up["results"][0]["date"], "2026-01-05", "{up}");
    assert!(up["results"][0]["text"].as_str().unwrap().contains("Alice works at Acme Corp"));
    let (path, _, sent) = server.control.requests().last().cloned().unwrap();
    assert_eq!((path.as_str(), &sent["max_facts"]), ("/search", &json!(5)), "{sent}");

    // The time range keeps only facts valid within it.
    let (_, before) = ask(json!({"tool": "graphiti_search", "query": PROMPT, "session_key": MAIN,
        "timeRange": {"end": "2025-12-31"}}))
    .await;
    assert_eq!(before["results"], json!([]), "{before}");
    let (_, within) = ask(json!({"tool": "graphiti_search", "query": PROMPT, "session_key": MAIN,
        "timeRange": {"start": "2026-01-01", "end": "2026-01-05"}}))
    .await;
    assert_eq!(within["results"].as_array().unwrap().len(), 1, "{within}");

    // Refusals, each naming what is wrong.
    let (code, e) = ask(json!({"tool": "graphiti_search", "query": PROMPT, "session_key": GROUP})).await;
    assert_eq!((code, e["error"]["code"].as_str()), (403, Some("private_source")), "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("`graphiti`"), "{e}");
    let (code, e) = ask(json!({"tool": "lightrag_query", "query": PROMPT, "session_key": MAIN})).await;
    assert_eq!((code, e["error"]["code"].as_str()), (404, Some("no_source")), "{e}");
    let (code, e) = ask(json!({"tool": "graphiti_search", "query": " ", "session_key": MAIN})).await;
    assert_eq!(code, 400, "{e}");
    let (code, e) =
        ask(json!({"tool": "graphiti_search", "query": PROMPT, "session_key": MAIN, "limit": 51})).await;
    assert_eq!(code, 400, "{e}");
    let (code, e) = ask(json!({"tool": "graphiti_search", "query": PROMPT, "session_key": MAIN,
        "timeRange": {"start": "soon"}}))
    .await;
    assert!(code == 400 && e["error"]["message"].as_str().unwrap().contains("timeRange.start"), "{e}");
    let (code, e) = ask(json!({"tool": "no_such_tool", "query": PROMPT, "session_key": MAIN})).await;
    assert_eq!(code, 400, "{e}");

    // Down: a clear error naming the source, no hang.
    server.stop();
    let t = Instant::now();
    let (code, e) = ask(json!({"tool": "graphiti_search", "query": PROMPT, "session_key": MAIN})).await;
    assert_eq!((code, e["error"]["code"].as_str()), (503, Some("source_unavailable")), "{e}");
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(msg.contains("source `graphiti`") && msg.contains("is down"), "{msg}");
    assert!(t.elapsed() < Duration::from_millis(1_500), "{:?}", t.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_graphiti_over_its_mcp_server() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/garden.md", "# Garden\n\nThe tomatoes need water every morning.\n");
    let server = testing::graphiti_mcp(vec![testing::fact(
        "default",
        "f1",
        "WORKS_AT",
        "Alice works at Acme Corp these days",
        Some("2026-01-05T00:00:00Z"),
    )]);
    config(&env, &format!("{}/mcp/", server.url()), "api = \"mcp\"\n");
    let (code, out, err) = common::output(&cmd(&env).args(["sources", "status"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("graphiti") && out.contains("up"), "{out}");
    let (child, url) = common::serve(cmd(&env));
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let (up, _) = turn(&client, &url, MAIN).await;
    let block = up["prepend_context"].as_str().unwrap();
    assert!(block.contains("Alice works at Acme Corp") && block.contains("remote:graphiti:fact:f1"), "{up}");
    assert_eq!(lane(&up, "remote:graphiti")["status"], "ok");
    let r = client
        .post(format!("{url}/v1/sources/query"))
        .json(&json!({"tool": "graphiti_search", "query": PROMPT, "session_key": MAIN}))
        .send()
        .await
        .unwrap();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(answer["results"][0]["id"], "remote:graphiti:fact:f1", "{answer}");
}
