//! `cairn context` and the daemon's `/v1/context` are one path: for the same store, query, scope and
//! time they give byte-identical blocks and identical receipts, in every format, with and without the
//! graph step. Run over the example workspace and a generated one.

mod common;

use std::path::Path;
use std::process::{Child, Command};

use cairn_test::copy_dir;
use common::{Env, ROUTE_DIR};
use serde_json::{Value, json};

const NOW: &str = "2026-03-20T00:00:00Z";
const NOW_MS: i64 = 1_773_964_800_000;

/// A workspace of `n` notes over a small vocabulary, with tags, links and dated dailies (fixed seed).
fn generate(ws: &Path, n: usize) {
    const WORDS: &[&str] = &[
        "kestrel", "harbour", "ledger", "invoice", "tide", "lantern", "orchard", "quarry", "beacon",
        "cipher", "meadow", "relay", "summit", "tunnel", "vessel", "willow", "copper", "drift", "ember",
        "falcon",
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    std::fs::create_dir_all(ws.join("memory/daily")).unwrap();
    std::fs::create_dir_all(ws.join("memory/projects")).unwrap();
    for i in 0..n {
        let words: Vec<&str> = (0..40).map(|_| WORDS[next(WORDS.len())]).collect();
        let tags = format!("[{}, {}]", WORDS[next(WORDS.len())], WORDS[next(WORDS.len())]);
        let link = format!("[[note-{}]]", next(n));
        let audience = if i % 4 == 0 { "public" } else { "private" };
        let (path, date) = if i % 3 == 0 {
            (
                format!("memory/daily/2026-02-{:02}.md", 1 + i % 28),
                format!("date: 2026-02-{:02}\n", 1 + i % 28),
            )
        } else {
            (format!("memory/projects/note-{i}.md"), String::new())
        };
        let text = format!(
            "---\ntitle: Note {i} {}\ntags: {tags}\naudience: {audience}\n{date}---\n# Note {i}\n\n{} {link}\n",
            words[0],
            words.join(" ")
        );
        std::fs::write(ws.join(path), text).unwrap();
    }
}

impl Env {
    /// A workspace `fill` writes, harvested.
    fn filled(fill: impl FnOnce(&Path)) -> Env {
        let env = Env::new(&[]);
        fill(&env.ws);
        let out = env.no_model().arg("harvest").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        env
    }

    /// `cairn` on this workspace without an embedding model, with the example routing config.
    fn no_model(&self) -> Command {
        let mut c = self.cmd();
        c.env("CAIRN_EMBED__PROVIDER", "none").arg("--route-config").arg(ROUTE_DIR);
        c
    }

    fn serve(&self) -> (Child, String) {
        common::serve(self.no_model())
    }

    /// `cairn context` on the command line: stdout and the trace receipt.
    fn cli(&self, query: &str, format: &str, extra: &[&str]) -> (String, Value) {
        let trace = self.data.join("trace.json");
        let out = self
            .no_model()
            .args(["context", query, "--format", format, "--now", NOW, "--trace"])
            .arg(&trace)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let receipt = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
        (String::from_utf8(out.stdout).unwrap(), receipt)
    }
}

async fn http(client: &reqwest::Client, url: &str, body: Value) -> Value {
    let r = client.post(format!("{url}/v1/context")).json(&body).send().await.unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    r.json().await.unwrap()
}

async fn compare(env: &Env, queries: &[&str]) {
    let (mut child, url) = env.serve();
    let client = common::client(&std::fs::read_to_string(env.data.join("serve.token")).unwrap());
    let mut checked = 0;
    for query in queries {
        for format in ["markdown", "xml", "json"] {
            for (graph, flag) in [(None, None), (Some(true), Some("--use-graph"))] {
                for (session, public) in [("agent:main:main", false), ("agent:main:telegram:group:42", true)]
                {
                    let mut extra = Vec::new();
                    extra.extend(flag);
                    if public {
                        extra.push("--public-only");
                    }
                    let (stdout, receipt) = env.cli(query, format, &extra);
                    let mut body =
                        json!({"query": query, "format": format, "now_ms": NOW_MS, "session_key": session});
                    if let Some(g) = graph {
                        body["use_graph"] = json!(g);
                    }
                    let served = http(&client, &url, body).await;
                    let what = format!("{query:?} as {format}, graph {graph:?}, {session}");
                    assert_eq!(receipt, served["receipt"], "receipts differ for {what}");
                    let block = served["context_block"].as_str().unwrap();
                    if format == "json" {
                        let printed: Value = serde_json::from_str(&stdout).unwrap();
                        assert_eq!(printed, served, "JSON differs for {what}");
                        assert_eq!(printed["context_block"].as_str().unwrap(), block);
                    } else {
                        assert_eq!(stdout, format!("{block}\n"), "blocks differ for {what}");
                    }
                    checked += 1;
                }
            }
        }
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let _ = child.wait();
    assert_eq!(checked, queries.len() * 12);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_and_daemon_give_the_same_context_on_the_example_workspace() {
    let env = Env::filled(|ws| {
        copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace"), ws)
    });
    let queries = [
        "why did the weather reader crash?",
        "what's the apollo status?",
        "who is Lena Park",
        "draft a tweet thread about the launch",
        "zzyzx qwertyuiop",
    ];
    compare(&env, &queries).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_and_daemon_give_the_same_context_on_a_generated_workspace() {
    let env = Env::filled(|ws| generate(ws, 70));
    let queries =
        ["kestrel harbour ledger", "copper drift", "what happened with the beacon relay?", "note 12"];
    compare(&env, &queries).await;
}
