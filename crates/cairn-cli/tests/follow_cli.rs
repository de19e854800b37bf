//! A running daemon follows the store whatever process writes it: a note edited, made private or
//! deleted and re-harvested by a separate `cairn harvest` reaches (or stops reaching) the daemon's
//! next request within a second.

mod common;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

const OWNER: &str = "agent:main:main";
const GROUP: &str = "agent:main:telegram:group:42";

async fn search(client: &reqwest::Client, url: &str, session_key: &str, query: &str) -> Vec<String> {
    let r = client
        .post(format!("{url}/v1/search"))
        .json(&json!({"query": query, "k": 5, "session_key": session_key}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let v: Value = r.json().await.unwrap();
    v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_owned()).collect()
}

/// Polls `search` until `want(hits)` holds; the time it took, or a panic after `limit`.
async fn within(
    limit: Duration,
    what: &str,
    mut probe: impl AsyncFnMut() -> Vec<String>,
    want: impl Fn(&[String]) -> bool,
) -> Duration {
    let start = Instant::now();
    loop {
        let hits = probe().await;
        if want(&hits) {
            return start.elapsed();
        }
        assert!(start.elapsed() < limit, "{what}: still {hits:?} after {limit:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_sees_edits_privacy_changes_and_deletions_made_by_another_process() {
    let env = common::Env::new(&["memory"]);
    let note = "memory/reef.md";
    env.write(
        note,
        "---\naudience: public\n---\n# Reef survey\n\nThe zebrafish count at the north reef was 41.\n",
    );
    // Two more notes, so that deleting one is not a mass deletion harvest refuses.
    env.write("memory/boat.md", "# Boat\n\nThe sailing boat is moored at pier nine.\n");
    env.write("memory/garden.md", "# Garden\n\nThe tomatoes need water every morning.\n");
    env.ok(&["harvest"]);
    let mut cmd = env.cmd();
    // The daemon's own watcher off: this is about writes by another process.
    cmd.env("CAIRN_EMBED__PROVIDER", "none").env("CAIRN_WATCH__SERVE", "false");
    let (child, url) = common::serve(cmd);
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let id = |hits: &[String]| hits.iter().any(|h| h.contains("reef"));
    assert!(id(&search(&client, &url, GROUP, "zebrafish count").await), "public note found at start");

    // An edit harvested by another process: the daemon finds the new words.
    env.write(
        note,
        "---\naudience: public\n---\n# Reef survey\n\nThe quokka count at the north reef was 12.\n",
    );
    env.ok(&["harvest"]);
    let took = within(
        Duration::from_secs(1),
        "edit",
        async || search(&client, &url, GROUP, "quokka count").await,
        |h| id(h),
    )
    .await;
    eprintln!("edit seen after {took:?}");

    // Made private: a group session stops seeing it, the owner still does.
    env.write(
        note,
        "---\naudience: private\n---\n# Reef survey\n\nThe quokka count at the north reef was 12.\n",
    );
    env.ok(&["harvest"]);
    within(
        Duration::from_secs(1),
        "made private",
        async || search(&client, &url, GROUP, "quokka count").await,
        |h| !id(h),
    )
    .await;
    assert!(id(&search(&client, &url, OWNER, "quokka count").await), "the owner still sees it");

    // Deleted: nobody sees it.
    std::fs::remove_file(env.ws.join(note)).unwrap();
    env.ok(&["harvest"]);
    within(
        Duration::from_secs(1),
        "deleted",
        async || search(&client, &url, OWNER, "quokka count").await,
        |h| !id(h),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_watches_the_workspace_itself() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/boat.md", "# Boat\n\nThe sailing boat is moored at pier nine.\n");
    // Not harvested: the daemon harvests the workspace once it listens.
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__PROVIDER", "none").env("CAIRN_WATCH__DEBOUNCE_MS", "100");
    let (child, url) = common::serve(cmd);
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    within(
        Duration::from_secs(10),
        "first harvest",
        async || search(&client, &url, OWNER, "sailing boat pier").await,
        |h| h.iter().any(|h| h.contains("boat")),
    )
    .await;

    // A save, and nothing else: the next request finds the new words within a second.
    env.write("memory/garden.md", "# Garden\n\nThe marigolds by the shed need water every morning.\n");
    let took = within(
        Duration::from_secs(1),
        "a save",
        async || search(&client, &url, OWNER, "marigolds shed").await,
        |h| h.iter().any(|h| h.contains("garden")),
    )
    .await;
    eprintln!("save seen after {took:?}");
}

#[test]
fn watch_serve_false_leaves_the_workspace_alone() {
    let env = common::Env::new(&["memory"]);
    env.write("memory/boat.md", "# Boat\n\nThe sailing boat is moored at pier nine.\n");
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__PROVIDER", "none").env("CAIRN_WATCH__SERVE", "false");
    let mut cmd2 = common::in_dirs(common::cairn(), &env.ws, &env.data);
    let (child, _url) = common::serve(cmd);
    let daemon = common::Daemon(child);
    std::thread::sleep(Duration::from_millis(800));
    drop(daemon);
    let out = cmd2.args(["status", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert!(v["items"].as_u64().unwrap_or(0) == 0, "nothing harvested: {v}");
}
