//! SIGHUP reloads the routing config of a running daemon; a config that does not load is reported and
//! the last good one keeps serving.

mod common;

use std::path::Path;
use std::process::Command;

use cairn_test::copy_dir;
use serde_json::{Value, json};

async fn intent(client: &reqwest::Client, url: &str, prompt: &str) -> Value {
    let r = client
        .post(format!("{url}/v1/intent"))
        .json(&json!({"session_key": "agent:main:main", "prompt": prompt}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    r.json().await.unwrap()
}

fn hangup(pid: u32) {
    assert!(Command::new("kill").args(["-HUP", &pid.to_string()]).status().unwrap().success());
    std::thread::sleep(std::time::Duration::from_millis(500));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reloads_routing_and_keeps_the_last_good_config() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config");
    copy_dir(Path::new(common::ROUTE_DIR), &cfg);
    let mut cmd = common::cairn_in(dir.path());
    cmd.env("CAIRN_EMBED__PROVIDER", "none").arg("--route-config").arg(&cfg);
    let (mut child, url) = common::serve(cmd);
    let token = std::fs::read_to_string(dir.path().join("data/serve.token")).unwrap();
    let client = common::client(&token);
    let prompt = "where should we go for a zanzibarian feast tonight";
    let before = intent(&client, &url, prompt).await;
    assert_eq!(before["intent"]["pack"], Value::Null, "{before}");

    // A new keyword for the dining rule, then SIGHUP: the running daemon routes with it.
    let rules = cfg.join("intent_rules.yaml");
    let text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(
        &rules,
        text.replacen("      - restaurant\n", "      - restaurant\n      - zanzibarian\n", 1),
    )
    .unwrap();
    hangup(child.id());
    let after = intent(&client, &url, prompt).await;
    assert_eq!(after["intent"]["pack"], "dining_recs", "{after}");

    // A broken config: reported, and the last good one keeps serving.
    std::fs::write(&rules, "rules: [unclosed\n").unwrap();
    hangup(child.id());
    let still = intent(&client, &url, prompt).await;
    assert_eq!(still["intent"]["pack"], "dining_recs", "{still}");
    assert!(child.try_wait().unwrap().is_none(), "the daemon is still running");
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let _ = child.wait();
}
