//! The graph viewer through the real binaries: `cairn graph view --out` writes one file carrying what
//! `cairn graph export` writes for the same scope (and the diff `cairn graph diff --json` computes, and
//! the trace `cairn context --trace` wrote); `cairn serve` serves the page at `/viewer` without data or
//! token, while the API it calls keeps the token and scope rules and accepts the page's own origin only.

mod common;

use cairn_serve::viewer::{DIFF_ID, EXPORT_ID, OLD_ID, TRACE_ID, inlined_json};
use serde_json::Value;

const MAIN: &str = "agent:main:main";
const SECRET: &str = "Secret heron trip";

fn cmd(env: &common::Env) -> std::process::Command {
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__PROVIDER", "none").env("CAIRN_WATCH__SERVE", "false");
    cmd
}

fn ok(env: &common::Env, args: &[&str]) -> String {
    let (code, out, err) = common::output(&cmd(env).args(args).output().unwrap());
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn workspace() -> common::Env {
    let env = common::Env::new(&["memory"]);
    env.write(
        "memory/trip.md",
        format!(
            "---\ntitle: {SECRET}\ntags: [herons]\naudience: private\n---\nWe watch the herons at the estuary in May.\n"
        ),
    );
    env.write(
        "memory/herons.md",
        "---\ntitle: Heron facts\ntags: [herons]\naudience: public\n---\nGrey herons nest in colonies called heronries.\n",
    );
    ok(&env, &["harvest"]);
    env
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// The JSON inlined under `id` in the page at `path`.
fn inlined(path: &std::path::Path, id: &str) -> Option<Value> {
    let page = std::fs::read_to_string(path).unwrap();
    inlined_json(&page, id).map(json)
}

#[test]
fn the_file_carries_the_export_of_its_scope() {
    let env = workspace();
    let out = env.tmp.path().join("viewer.html");
    let out_s = out.to_str().unwrap();

    ok(&env, &["graph", "view", "--out", out_s]);
    let export = ok(&env, &["graph", "export"]);
    assert_eq!(inlined(&out, EXPORT_ID), Some(json(&export)), "the owner's export, inlined");
    assert!(export.contains(SECRET));
    assert_eq!(inlined(&out, DIFF_ID), None);
    assert_eq!(inlined(&out, TRACE_ID), None);

    ok(&env, &["graph", "view", "--out", out_s, "--public-only"]);
    let public = ok(&env, &["graph", "export", "--public-only"]);
    assert_eq!(inlined(&out, EXPORT_ID), Some(json(&public)));
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(!page.contains(SECRET) && page.contains("Heron facts"), "a public file holds no private node");

    ok(&env, &["graph", "view", "--out", out_s, "--project", "no-such-project"]);
    let none = ok(&env, &["graph", "export", "--project", "no-such-project"]);
    assert_eq!(inlined(&out, EXPORT_ID), Some(json(&none)));
    assert_eq!(json(&none)["nodes"], Value::Array(vec![]));
}

#[test]
fn the_file_carries_the_diff_and_the_trace() {
    let env = workspace();
    let old = env.tmp.path().join("old.json");
    std::fs::write(&old, ok(&env, &["graph", "export", "--public-only"])).unwrap();
    let new = env.tmp.path().join("new.json");
    std::fs::write(&new, ok(&env, &["graph", "export"])).unwrap();
    let trace = env.tmp.path().join("trace.json");
    ok(&env, &["context", "where do herons nest?", "--trace", trace.to_str().unwrap()]);
    let out = env.tmp.path().join("viewer.html");

    ok(
        &env,
        &[
            "graph",
            "view",
            "--out",
            out.to_str().unwrap(),
            "--diff",
            old.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
        ],
    );
    let cli_diff =
        json(&ok(&env, &["graph", "diff", old.to_str().unwrap(), new.to_str().unwrap(), "--json"]));
    assert_eq!(inlined(&out, DIFF_ID), Some(cli_diff.clone()));
    assert!(!cli_diff["added_nodes"].as_array().unwrap().is_empty(), "{cli_diff}");
    assert_eq!(inlined(&out, OLD_ID), Some(json(&std::fs::read_to_string(&old).unwrap())));
    assert_eq!(inlined(&out, TRACE_ID), Some(json(&std::fs::read_to_string(&trace).unwrap())));

    let bad = env.tmp.path().join("bad.json");
    std::fs::write(&bad, "{\"version\": 999}").unwrap();
    let (code, _, err) = common::output(
        &cmd(&env).args(["graph", "view", "--out"]).arg(&out).arg("--diff").arg(&bad).output().unwrap(),
    );
    assert_ne!(code, 0);
    assert!(err.contains("bad.json"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_serves_the_page_and_the_api_keeps_its_rules() {
    let env = workspace();
    let (child, url) = common::serve(cmd(&env));
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let anonymous = reqwest::Client::new();
    let client = common::client(&token);

    // The page: no token needed, no data in it.
    let r = anonymous.get(format!("{url}/viewer")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(r.headers()["content-security-policy"].to_str().unwrap().contains("connect-src 'self'"));
    let page = r.text().await.unwrap();
    assert!(page.contains("cytoscape") && page.contains("Cairn.GraphView"));
    assert!(!page.contains(SECRET) && !page.contains("Heron facts") && !page.contains(token.trim()));
    assert!(inlined_json(&page, EXPORT_ID).is_none());

    // What the page calls needs the token.
    let export = format!("{url}/v1/graph/export?session_key={MAIN}");
    let r = anonymous.get(&export).send().await.unwrap();
    assert_eq!(r.status(), 401);

    // The page's own origin (what a browser sends from it) passes; any other origin does not, another
    // port on loopback included.
    let own = url.trim_end_matches('/').to_owned();
    let port = own.rsplit(':').next().unwrap();
    let r = client.get(&export).header("origin", &own).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), ok(&env, &["graph", "export"]));
    let r = client
        .get(format!("http://localhost:{port}/v1/graph/export?session_key={MAIN}"))
        .header("origin", format!("http://localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the same daemon reached as localhost");
    let diff = serde_json::json!({"old": json(&ok(&env, &["graph", "export"])), "new": json(&ok(&env, &["graph", "export"]))});
    let r =
        client.post(format!("{url}/v1/graph/diff")).header("origin", &own).json(&diff).send().await.unwrap();
    assert_eq!(r.status(), 200, "a POST from the page");
    for foreign in ["http://evil.example", "http://127.0.0.1:1", &format!("https://127.0.0.1:{port}"), "null"]
    {
        for req in [
            client.get(&export).header("origin", foreign),
            client.post(format!("{url}/v1/graph/diff")).header("origin", foreign).json(&diff),
        ] {
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 403, "{foreign}");
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["error"]["code"], "forbidden_origin", "{foreign}: {v}");
        }
    }
    let r = client.get(format!("{url}/viewer")).header("host", "evil.example").send().await.unwrap();
    assert_eq!(r.status(), 403, "a rebound host name gets no page either");
}
