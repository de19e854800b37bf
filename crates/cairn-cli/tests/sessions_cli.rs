//! `cairn sessions` through the real binary: a daemon told of a sub-agent spawn, turns captured in both
//! sessions, then the listing shows the child under its parent with how it ended.

mod common;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

const PARENT: &str = "agent:main:main";
const CHILD: &str = "agent:main:subagent:c0ffee";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_lists_children_under_their_parents() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/boat.md", "# Boat\n\nThe sailing boat is moored at pier nine.\n");
    // Before any harvest: no store, said as `cairn status` says it, and none created.
    let (code, _, err) = env.run(&["sessions"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no store at"), "{err}");
    assert!(!env.data.join("cairn.sqlite").exists());
    env.ok(&["harvest"]);
    let out = env.ok(&["sessions"]);
    assert!(out.contains("no sessions yet"), "{out}");

    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__PROVIDER", "none");
    let (child, url) = common::serve(cmd);
    let daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let post = async |path: &str, body: Value| {
        let r = client.post(format!("{url}{path}")).json(&body).send().await.unwrap();
        (r.status().as_u16(), r.json::<Value>().await.unwrap())
    };
    let (s, v) =
        post("/v1/capture", json!({"session_key": PARENT, "user": "find the boat", "assistant": "on it"}))
            .await;
    assert_eq!(s, 202, "{v}");
    let body = json!({"parent_session_key": PARENT, "child_session_key": CHILD, "run_id": "run-7", "label": "boat search"});
    let (s, v) = post("/v1/subagents", body).await;
    assert_eq!(s, 201, "{v}");
    let (s, v) = post(
        "/v1/capture",
        json!({"session_key": CHILD, "user": "[Subagent Task] where is the boat?", "assistant": "pier nine"}),
    )
    .await;
    assert_eq!(s, 202, "{v}");
    let end = json!({"child_session_key": CHILD, "outcome": "error", "error": "tool failed"});
    let (s, v) = post("/v1/subagents/ended", end).await;
    assert_eq!((s, &v["known"]), (200, &json!(true)), "{v}");

    // Both captures are stored once the queue drains.
    let start = Instant::now();
    let sessions = loop {
        let v: Value = serde_json::from_str(&env.ok(&["sessions", "--json"])).unwrap();
        let turns: u64 = v.as_array().unwrap().iter().map(|s| s["turns"].as_u64().unwrap()).sum();
        if turns == 2 {
            break v;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "captures not stored: {v}");
        std::thread::sleep(Duration::from_millis(100));
    };
    drop(daemon);
    let list = sessions.as_array().unwrap();
    assert_eq!(list.len(), 2, "{sessions}");
    assert_eq!(list[0]["key"], PARENT);
    assert_eq!(list[0]["children"], json!([CHILD]));
    assert_eq!(list[1]["key"], CHILD);
    assert_eq!(list[1]["kind"], "subagent");
    assert_eq!(list[1]["parent"], PARENT);
    assert_eq!(list[1]["spawn"]["outcome"], "error");
    assert_eq!(list[1]["spawn"]["error"], "tool failed");
    assert_eq!(list[1]["spawn"]["task"], Value::Null, "no turn served: no task seen");

    let out = env.ok(&["sessions"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("SESSION"), "{out}");
    assert!(lines[1].starts_with(PARENT), "{out}");
    assert!(lines[2].starts_with(&format!("└ {CHILD}")), "{out}");
    assert!(lines[2].contains("boat search · run run-7 · ended: error · error: tool failed"), "{out}");
}
