//! What the daemon shows of memory and of the turns it served (the viewer's API), against the CLI
//! through the real binaries: `GET /v1/graph/export` is the bytes of `cairn graph export` for the same
//! scope, `POST /v1/graph/diff` the JSON of `cairn graph diff --json`, `GET /v1/sessions` the listing of
//! `cairn sessions --json`; `GET /v1/sessions/{key}/turns` keeps each session's last turns with their
//! receipts, never the prompt or the injected text, and not for a shared caller asking of a private
//! session.

mod common;

use std::time::Duration;

use serde_json::{Value, json};

const MAIN: &str = "agent:main:main";
const GROUP: &str = "agent:main:telegram:group:42";

fn cmd(env: &common::Env) -> std::process::Command {
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__PROVIDER", "none")
        .env("CAIRN_WATCH__SERVE", "false")
        .env("CAIRN_SERVE__TURN_TRACES", "2");
    cmd
}

fn ok(env: &common::Env, args: &[&str]) -> String {
    let (code, out, err) = common::output(&cmd(env).args(args).output().unwrap());
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_api_answers_what_the_cli_does_in_the_callers_scope() {
    let env = common::Env::new(&["memory"]);
    env.write(
        "memory/trip.md",
        "---\ntitle: Secret heron trip\ntags: [herons]\naudience: private\n---\nWe watch the herons at the estuary in May.\n",
    );
    env.write(
        "memory/herons.md",
        "---\ntitle: Heron facts\ntags: [herons]\naudience: public\n---\nGrey herons nest in colonies called heronries.\n",
    );
    ok(&env, &["harvest"]);
    let owner_export = ok(&env, &["graph", "export"]);
    let public_export = ok(&env, &["graph", "export", "--public-only"]);
    assert!(owner_export.contains("Secret heron trip") && !public_export.contains("Secret heron trip"));

    let (child, url) = common::serve(cmd(&env));
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let get = |path: String| {
        let client = client.clone();
        let url = url.clone();
        async move {
            let r = client.get(format!("{url}{path}")).send().await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };

    // The export: the CLI's bytes, in the caller's scope.
    let (code, body) = get(format!("/v1/graph/export?session_key={MAIN}")).await;
    assert_eq!((code, body.as_str()), (200, owner_export.as_str()));
    let (code, body) = get(format!("/v1/graph/export?session_key={GROUP}")).await;
    assert_eq!(
        (code, body.as_str()),
        (200, public_export.as_str()),
        "a shared session gets the public export"
    );
    let (code, _) = get("/v1/graph/export".to_owned()).await;
    assert_eq!(code, 400, "the caller's session is required");

    // The diff: the CLI's JSON.
    let (a, b) = (env.tmp.path().join("a.json"), env.tmp.path().join("b.json"));
    std::fs::write(&a, &public_export).unwrap();
    std::fs::write(&b, &owner_export).unwrap();
    let cli_diff: Value = serde_json::from_str(&ok(
        &env,
        &["graph", "diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json"],
    ))
    .unwrap();
    let old: Value = serde_json::from_str(&public_export).unwrap();
    let new: Value = serde_json::from_str(&owner_export).unwrap();
    let r = client
        .post(format!("{url}/v1/graph/diff"))
        .json(&json!({"old": old, "new": new}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let http_diff: Value = r.json().await.unwrap();
    assert_eq!(http_diff, cli_diff);
    assert!(!http_diff["added_nodes"].as_array().unwrap().is_empty(), "{http_diff}");
    let r = client
        .post(format!("{url}/v1/graph/diff"))
        .json(&json!({"old": {"version": 999}, "new": new}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("`old`"));

    // Turns: the last two of each session, receipts without the prompt or the block's text.
    for prompt in ["where do the herons nest?", "when is the heron trip?", "which estuary for the herons?"] {
        let r = client
            .post(format!("{url}/v1/turn"))
            .json(&json!({"session_key": MAIN, "prompt": prompt}))
            .send()
            .await
            .unwrap();
        let turn: Value = r.json().await.unwrap();
        assert!(turn["prepend_context"].as_str().unwrap().contains("herons"), "{turn}");
    }
    client
        .post(format!("{url}/v1/turn"))
        .json(&json!({"session_key": GROUP, "prompt": "where do the herons nest?"}))
        .send()
        .await
        .unwrap();
    let (code, body) = get(format!("/v1/sessions/{MAIN}/turns?session_key={MAIN}")).await;
    assert_eq!(code, 200, "{body}");
    let turns: Value = serde_json::from_str(&body).unwrap();
    let list = turns["turns"].as_array().unwrap();
    assert_eq!(list.len(), 2, "two kept: {body}");
    assert_eq!(list[1]["trace"]["turn"], 3, "the newest last");
    assert_eq!(list[1]["session"]["audience"], "private");
    assert!(list[1]["trace"]["receipt"]["included"].as_array().is_some_and(|i| !i.is_empty()), "{body}");
    assert!(
        !body.contains("which estuary") && !body.contains("heronries"),
        "no prompt, no block text: {body}"
    );
    assert!(list[1].get("block").is_none(), "{body}");
    let (code, body) = get(format!("/v1/sessions/{MAIN}/turns?session_key={GROUP}")).await;
    assert_eq!(code, 403, "{body}");
    let (code, body) = get(format!("/v1/sessions/{GROUP}/turns?session_key={GROUP}")).await;
    assert_eq!(code, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["turns"].as_array().unwrap().len(), 1);

    // Sessions: the CLI's listing, once a captured turn is stored.
    let r = client
        .post(format!("{url}/v1/capture"))
        .json(&json!({"session_key": MAIN, "turn_id": "t1", "messages": [
            {"role": "user", "content": "where do the herons nest?"},
            {"role": "assistant", "content": "In heronries."}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let mut listed = Value::Null;
    for _ in 0..50 {
        let (_, body) = get("/v1/sessions".to_owned()).await;
        listed = serde_json::from_str::<Value>(&body).unwrap()["sessions"].clone();
        if listed.as_array().is_some_and(|s| !s.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let cli: Value = serde_json::from_str(&ok(&env, &["sessions", "--json"])).unwrap();
    assert_eq!(listed, cli);
    assert_eq!(listed[0]["key"], MAIN, "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_made_by_another_process_reaches_the_running_daemon() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/osprey.md", "# Osprey\n\nOspreys dive feet first for fish.\n");
    env.write("memory/heron.md", "# Heron\n\nHerons stalk fish in the shallows.\n");
    ok(&env, &["harvest"]);
    let (child, url) = common::serve(cmd(&env));
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let export = || {
        let client = client.clone();
        let url = url.clone();
        async move {
            let r = client.get(format!("{url}/v1/graph/export?session_key={MAIN}")).send().await.unwrap();
            r.text().await.unwrap()
        }
    };
    // The daemon has its graph loaded.
    assert!(!export().await.contains("inspired_by"));
    // A link from the CLI adds graph rows, not a new ingest sequence.
    ok(
        &env,
        &["link", "memory/osprey.md", "memory/heron.md", "--type", "inspired_by", "--reason", "both fish"],
    );
    let mut served = String::new();
    for _ in 0..40 {
        served = export().await;
        if served.contains("inspired_by") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        served.contains("inspired_by") && served.contains("both fish"),
        "the daemon still serves the old graph"
    );
    assert_eq!(served, ok(&env, &["graph", "export"]));
}

/// With `serve.trace_blocks`, each traced turn keeps the block it injected (and still not the prompt).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traced_turns_keep_their_blocks_when_asked() {
    let env = common::Env::new(&["memory"]);
    env.write(
        "memory/herons.md",
        "---\ntitle: Heron facts\ntags: [herons]\n---\nGrey herons nest in heronries.\n",
    );
    ok(&env, &["harvest"]);
    let mut serve = cmd(&env);
    serve.env("CAIRN_SERVE__TRACE_BLOCKS", "true");
    let (child, url) = common::serve(serve);
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let turn: Value = client
        .post(format!("{url}/v1/turn"))
        .json(&json!({"session_key": MAIN, "prompt": "where do the herons nest?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let injected = turn["prepend_context"].as_str().unwrap();
    assert!(injected.contains("heronries"), "{turn}");
    let body: Value = client
        .get(format!("{url}/v1/sessions/{MAIN}/turns?session_key={MAIN}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["turns"][0]["block"], injected, "{body}");
    assert!(!body.to_string().contains("where do the herons nest"), "no prompt: {body}");
}
