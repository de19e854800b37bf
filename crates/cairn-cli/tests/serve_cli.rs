//! `cairn mcp` driven by a real MCP client (rmcp's client over the child's stdio), and `cairn serve`
//! as a real process: SIGTERM drains the capture queue, and state survives a restart.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use cairn_core::Audience;
use cairn_store::{SqliteStore, Store, Write};
use common::ROUTE_DIR;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

fn seed(data: &Path) {
    let mut store = SqliteStore::open(&data.join("cairn.sqlite")).unwrap();
    let fact = |id: &str, text: &str, audience| cairn_test::fact(id, id, text, audience);
    let writes = vec![
        Write::upsert(
            fact("fact:boat", "The sailing boat Albatross is moored at pier nine.", Audience::Public),
            vec![],
        ),
        Write::upsert(
            fact("fact:pin", "The private vault pin of the albatross boat is 9131.", Audience::Private),
            vec![],
        ),
    ];
    store.apply(&writes, "test").unwrap();
}

fn text_of(r: &rmcp::model::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    name: &'static str,
    args: Value,
) -> rmcp::model::CallToolResult {
    let Value::Object(map) = args else { panic!("arguments must be an object") };
    client.call_tool(CallToolRequestParams::new(name).with_arguments(map)).await.unwrap()
}

/// `cairn mcp` in `dir` with extra arguments after `mcp`, driven by rmcp's client.
async fn mcp_client(dir: &Path, extra: &[&str]) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let bin = env!("CARGO_BIN_EXE_cairn");
    let data = dir.join("data");
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|cmd| {
        cmd.current_dir(dir)
            .env_remove("CAIRN_CONFIG")
            .env("CAIRN_EMBED__PROVIDER", "none")
            .arg("--data-dir")
            .arg(&data)
            .arg("--route-config")
            .arg(ROUTE_DIR)
            .arg("mcp")
            .args(&extra);
    }))
    .unwrap();
    ().serve(transport).await.unwrap()
}

fn ids(r: &rmcp::model::CallToolResult) -> Vec<String> {
    let v = r.structured_content.clone().unwrap_or_else(|| serde_json::from_str(&text_of(r)).unwrap());
    v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_client_lists_and_calls_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("data"));
    let client = mcp_client(dir.path(), &[]).await;

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["context", "forget", "get", "ingest", "intent", "search", "status"]);
    let tool = |n: &str| tools.iter().find(|t| t.name == n).unwrap().clone();
    let search = tool("search");
    assert!(search.input_schema.get("properties").and_then(|p| p.get("query")).is_some());
    let k = &search.input_schema["properties"]["k"];
    assert_eq!((k["minimum"].as_u64(), k["maximum"].as_u64()), (Some(1), Some(100)), "{k}");
    assert!(search.output_schema.is_some(), "search declares its output");
    let read_only = |n: &str| tool(n).annotations.and_then(|a| a.read_only_hint);
    let destructive = |n: &str| tool(n).annotations.and_then(|a| a.destructive_hint);
    for n in ["search", "get", "context", "intent", "status"] {
        assert_eq!(read_only(n), Some(true), "{n}");
    }
    assert_eq!((read_only("forget"), destructive("forget")), (Some(false), Some(true)));
    let info = client.peer_info().unwrap();
    let about = info.instructions.clone().unwrap_or_default();
    assert!(about.contains("the owner") && about.contains("2 items"), "{about}");

    // The owner by default (started by the user's own client): private memory included; a group
    // session's key narrows it to public memory.
    let r = call(&client, "search", json!({"query": "albatross pin"})).await;
    assert_ne!(r.is_error, Some(true));
    assert!(ids(&r).contains(&"fact:pin".to_owned()), "{r:?}");
    let r = call(
        &client,
        "search",
        json!({"query": "albatross boat", "session_key": "agent:main:telegram:group:42"}),
    )
    .await;
    assert_eq!(ids(&r), ["fact:boat"]);
    let r = call(&client, "search", json!({"query": "albatross", "k": 0})).await;
    assert_eq!(r.is_error, Some(true));

    // ingest, search finds it, get returns it whole, forget removes it, search no longer finds it.
    let r =
        call(&client, "ingest", json!({"text": "The harbour master is called Ingrid Quillfeather."})).await;
    let id = r.structured_content.clone().unwrap()["id"].as_str().unwrap().to_owned();
    let r = call(&client, "search", json!({"query": "who is the harbour master"})).await;
    assert!(ids(&r).contains(&id), "{}", text_of(&r));
    let r = call(&client, "get", json!({"id": id})).await;
    let item = r.structured_content.clone().unwrap();
    assert_eq!(item["text"], "The harbour master is called Ingrid Quillfeather.");
    assert_eq!(item["audience"], "private");
    let r = call(&client, "forget", json!({"ids": [id]})).await;
    assert_eq!(r.structured_content.clone().unwrap()["items"], json!([id]), "{r:?}");
    let r = call(&client, "search", json!({"query": "who is the harbour master"})).await;
    assert!(!ids(&r).contains(&id), "forgotten, still found: {}", text_of(&r));
    let r = call(&client, "get", json!({"id": id})).await;
    assert_eq!(r.is_error, Some(true));
    let r = call(&client, "forget", json!({})).await;
    assert_eq!(r.is_error, Some(true), "forgetting nothing named is an error");

    // context: the block, under the budget.
    let r = call(&client, "context", json!({"query": "where is the albatross moored", "budget": 300})).await;
    let block = text_of(&r);
    assert!(block.contains("<cairn-context") && block.contains("pier nine"), "{block}");
    let r = call(&client, "context", json!({"query": "albatross", "format": "json"})).await;
    let v: Value = serde_json::from_str(&text_of(&r)).unwrap();
    assert!(v["tokens"].as_u64().unwrap() <= 2000);

    // intent: a dry run.
    let r = call(&client, "intent", json!({"prompt": "book a table for dinner"})).await;
    let v: Value = serde_json::from_str(&text_of(&r)).unwrap();
    assert_eq!(v["intent"]["pack"], "dining_recs", "{v}");

    // status: whom it answers as, what memory holds.
    let r = call(&client, "status", json!({})).await;
    let st = r.structured_content.clone().unwrap();
    assert_eq!(st["items"], 2, "{st}");

    // Bad arguments are tool errors, not crashes.
    let r = client
        .call_tool(
            CallToolRequestParams::new("context")
                .with_arguments(json!({"query": "x", "format": "yaml"}).as_object().unwrap().clone()),
        )
        .await;
    assert!(r.is_err() || r.unwrap().is_error == Some(true));
    let r = call(&client, "ingest", json!({"text": "   "})).await;
    assert_eq!(r.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_narrowed_to_public_never_widens() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("data"));
    let client = mcp_client(dir.path(), &["--audience", "public"]).await;
    // Even naming the owner's session, a public server answers with public memory only.
    let r =
        call(&client, "search", json!({"query": "albatross pin", "session_key": "agent:main:main"})).await;
    assert!(!ids(&r).contains(&"fact:pin".to_owned()), "{}", text_of(&r));
    let r = call(&client, "get", json!({"id": "fact:pin"})).await;
    assert_eq!(r.is_error, Some(true), "a private item is not there for a public server");
    let r = call(&client, "get", json!({"id": "fact:boat"})).await;
    assert_ne!(r.is_error, Some(true));
    let r = call(&client, "forget", json!({"ids": ["fact:boat"]})).await;
    assert_eq!(r.is_error, Some(true), "only the owner forgets");
    let st = call(&client, "status", json!({})).await.structured_content.unwrap();
    assert!(st.get("items").is_none(), "no counts for a public server: {st}");
    client.cancel().await.unwrap();
}

struct Served {
    child: Child,
    url: String,
    /// The token the daemon generated into its data dir on first start.
    token: String,
}

impl Served {
    /// A client that sends the daemon's token, as a local host (the OpenClaw plugin) does.
    fn client(&self) -> reqwest::Client {
        common::client(&self.token)
    }
}

fn serve(dir: &Path) -> Served {
    serve_with(dir, &[])
}

fn serve_with(dir: &Path, env: &[(&str, &Path)]) -> Served {
    let mut cmd = common::cairn();
    cmd.current_dir(dir)
        .envs(env.iter().copied())
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--route-config")
        .arg(ROUTE_DIR);
    let (child, url) = common::serve(cmd);
    let token = std::fs::read_to_string(dir.join("data/serve.token")).expect("the daemon wrote its token");
    Served { child, url, token }
}

fn sigterm(mut s: Served) {
    let ok = Command::new("kill").args(["-TERM", &s.child.id().to_string()]).status().unwrap();
    assert!(ok.success());
    let status = s.child.wait().unwrap();
    assert!(status.success(), "daemon exited with {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_captures_and_state_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("data"));
    let d = serve(dir.path());
    let client = d.client();
    let r: Value = client
        .post(format!("{}/v1/turn", d.url))
        .json(&json!({"session_key": "agent:main:main", "prompt": "book a table for dinner on Friday"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["intent"]["pack"], "dining_recs");
    let n = 120;
    for i in 0..n {
        let r = client
            .post(format!("{}/v1/capture", d.url))
            .json(&json!({"session_key": "agent:main:main", "turn_id": format!("t{i}"), "user": format!("fact {i}"), "assistant": "noted"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 202);
    }
    sigterm(d);
    let store = SqliteStore::open(&dir.path().join("data/cairn.sqlite")).unwrap();
    assert_eq!(store.turn_count(Some("agent:main:main")).unwrap(), n);
    drop(store);

    let d = serve(dir.path());
    let r: Value = client
        .post(format!("{}/v1/turn", d.url))
        .json(&json!({"session_key": "agent:main:main", "prompt": "and for six people?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["intent"]["sticky"], true, "{r}");
    assert_eq!(r["trace"]["turn"], 2);
    sigterm(d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_daemon_with_a_model_embeds_captured_turns_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model");
    cairn_embed::testing::TinyModel::default().write(&model).unwrap();
    // No store yet: the daemon creates it and still starts the vector lane.
    let derive = dir.path().join("cairn.toml");
    std::fs::write(&derive, "[serve]\nderive_ms = 100\n").unwrap();
    let d = serve_with(dir.path(), &[("CAIRN_EMBED__MODEL", &model), ("CAIRN_CONFIG", &derive)]);
    let client = d.client();
    let vector_lane = |r: &Value| {
        r["trace"]["lanes"].as_array().unwrap().iter().find(|l| l["name"] == "vector").cloned().unwrap()
    };
    let turn = || async {
        client
            .post(format!("{}/v1/turn", d.url))
            .json(&json!({"session_key": "agent:main:main", "prompt": "what did the kestrel report say"}))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    let r = turn().await;
    assert_eq!(vector_lane(&r)["status"], "ok", "{r}");
    assert_eq!(vector_lane(&r)["candidates"], 0, "{r}");
    let r = client
        .post(format!("{}/v1/capture", d.url))
        .json(&json!({"session_key": "agent:main:main", "turn_id": "t1",
            "user": "the kestrel report says the ingest queue stalled", "assistant": "noted"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let mut found = Value::Null;
    for _ in 0..100 {
        let r = turn().await;
        if vector_lane(&r)["candidates"].as_u64().unwrap_or(0) >= 1 {
            found = r;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(!found.is_null(), "the captured turn never reached the vector lane");
    sigterm(d);
}

/// A daemon started without a token makes one (0600, in its data dir) and refuses requests without it;
/// a restart keeps the same token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_on_by_default() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("data"));
    let d = serve(dir.path());
    let file = dir.path().join("data/serve.token");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(d.token.len() >= 32, "{}", d.token);
    let anonymous = reqwest::Client::new();
    let r = anonymous.get(format!("{}/v1/status", d.url)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = anonymous.get(format!("{}/v1/health", d.url)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200, "health stays open");
    let r = d.client().get(format!("{}/v1/status", d.url)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let first = d.token.clone();
    sigterm(d);
    let again = serve(dir.path());
    assert_eq!(again.token, first, "the token survives a restart");
    sigterm(again);
}

/// `--exit-with-stdin`: a host that started the daemon with a pipe on its stdin takes it along when the
/// host dies, however (its end of the pipe closes): the daemon stops as on SIGTERM, queued captures kept.
/// Without the flag a closed stdin (a service manager's /dev/null) stops nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_started_with_exit_with_stdin_stops_when_its_stdin_closes() {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("data"));
    let start = |lifeline: bool| {
        let mut cmd = common::cairn();
        cmd.current_dir(dir.path()).arg("--data-dir").arg(dir.path().join("data")).stdin(Stdio::piped());
        let more: &[&str] = if lifeline { &["--exit-with-stdin"] } else { &[] };
        common::serve_with_args(cmd, more)
    };
    let token = || std::fs::read_to_string(dir.path().join("data/serve.token")).unwrap();

    let (mut child, url) = start(false);
    drop(child.stdin.take());
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(child.try_wait().unwrap().is_none(), "without the flag, a closed stdin stopped the daemon");
    let r = reqwest::get(format!("{url}/v1/health")).await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    sigterm(Served { child, url, token: token() });

    let (mut child, url) = start(true);
    let client = common::client(&token());
    let n = 40;
    for i in 0..n {
        let r = client
            .post(format!("{url}/v1/capture"))
            .json(&json!({"session_key": "agent:main:main", "turn_id": format!("s{i}"), "user": format!("fact {i}"), "assistant": "noted"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 202);
    }
    drop(child.stdin.take());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the daemon outlived its closed stdin");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(status.success(), "daemon exited with {status}");
    let store = SqliteStore::open(&dir.path().join("data/cairn.sqlite")).unwrap();
    assert_eq!(store.turn_count(Some("agent:main:main")).unwrap(), n, "queued captures were drained");
}

/// A line that is not JSON gets the JSON-RPC parse error, and the session goes on.
#[test]
fn mcp_answers_a_malformed_line_with_a_parse_error() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("data"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .current_dir(dir.path())
        .env_remove("CAIRN_CONFIG")
        .env("CAIRN_EMBED__PROVIDER", "none")
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "this is not json").unwrap();
    writeln!(stdin, "{init}").unwrap();
    stdin.flush().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["error"]["code"], -32700, "{first}");
    assert_eq!(first["id"], Value::Null);
    let second: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(second["id"], 1, "the session goes on: {second}");
    assert!(second["result"]["serverInfo"].is_object(), "{second}");
    drop(stdin);
    let _ = child.wait();
}
