//! `cairn graph ...`, `cairn link` and `cairn context --use-graph` through the real binary.

mod common;

use std::path::Path;

use common::{Env, output};
use serde_json::Value;

const NOTES: &[(&str, &str)] = &[
    (
        "memory/projects/kestrel.md",
        "---\ntitle: Kestrel ingest\nproject: kestrel\ntags: [ingest]\npeople: [Lena Park]\n---\n# Kestrel ingest\n\nThe kestrel ingest outage stalled every queue.\nFix: see [the follow-up](../notes/followup.md).\n",
    ),
    (
        "memory/notes/followup.md",
        "---\ntitle: Follow-up\nproject: kestrel\n---\n# Follow-up\n\nRaise the prefetch window to 512.\n\nThe second paragraph holds raw detail: pin librdkafka 2.3.\n",
    ),
    (
        "memory/notes/osprey.md",
        "---\ntitle: Osprey notes\nproject: osprey\n---\n# Osprey notes\n\nOsprey reuses the kestrel retry policy.\n",
    ),
];

impl Env {
    /// A workspace of the notes `order` names (written in that order), harvested.
    fn with_notes(order: &[usize]) -> Self {
        let env = Env::new(&[]);
        for &i in order {
            let (rel, text) = NOTES[i];
            env.write(rel, text);
        }
        env.ok(&["harvest"]);
        env
    }

    /// `cairn args...` with `--config`.
    fn run_with(&self, args: &[&str], config: &Path) -> (i32, String, String) {
        output(&self.cmd().arg("--config").arg(config).args(args).output().unwrap())
    }
}

const Q: &str = "what stalled the kestrel ingest";

#[test]
fn export_is_byte_identical_for_the_same_workspace_and_diff_sees_links() {
    let a = Env::with_notes(&[0, 1, 2]);
    let b = Env::with_notes(&[2, 1, 0]);
    let ea = a.ok(&["graph", "export"]);
    assert_eq!(ea, b.ok(&["graph", "export"]));
    let v: Value = serde_json::from_str(&ea).unwrap();
    assert!(v["edges"].as_array().unwrap().iter().any(|e| e["type"] == "links_to"
        && e["src"] == "item:memory-file:memory/projects/kestrel.md"
        && e["dst"] == "item:memory-file:memory/notes/followup.md"));
    let before = a.tmp.path().join("before.json");
    a.ok(&["graph", "export", "--out", before.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&before).unwrap(), ea);
    assert_eq!(
        a.ok(&["graph", "diff", before.to_str().unwrap(), before.to_str().unwrap()]).trim(),
        "no differences"
    );

    let out = a.ok(&[
        "link",
        "memory/notes/osprey.md",
        "memory/projects/kestrel.md",
        "--type",
        "reuses",
        "--reason",
        "same retry policy",
    ]);
    assert!(out.contains("cross-project"), "{out}");
    let after = a.tmp.path().join("after.json");
    a.ok(&["graph", "export", "--out", after.to_str().unwrap()]);
    let d: Value = serde_json::from_str(&a.ok(&[
        "graph",
        "diff",
        before.to_str().unwrap(),
        after.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(d["added_edges"].as_array().unwrap().len(), 1, "{d}");
    assert!(d["added_edges"][0].as_str().unwrap().contains("[reuses]"));

    let (code, _, err) = a.run(&["link", "a.md", "b.md", "--type", "Bad-Type", "--reason", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("snake_case"), "{err}");
    let (code, _, err) = a.run(&["link", "memory/notes/osprey.md", "nope.md", "--reason", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown node `nope.md`"), "{err}");
}

#[test]
fn index_pack_respects_its_cap_and_pack_modes_differ_in_raw_text() {
    let env = Env::with_notes(&[0, 1, 2]);
    for cap in ["150", "1000"] {
        let v: Value = serde_json::from_str(&env.ok(&["graph", "index", Q, "--json", "--cap", cap])).unwrap();
        let used = v["budget"]["used"].as_u64().unwrap();
        assert!(used <= cap.parse().unwrap(), "{v}");
        let compact = serde_json::to_string(&v).unwrap();
        // cl100k is the default encoding.
        assert_eq!(cairn_tokens::Tokenizer::default().count(&compact) as u64, used);
    }
    let v: Value =
        serde_json::from_str(&env.ok(&["graph", "index", Q, "--json", "--project", "kestrel"])).unwrap();
    let ids: Vec<&str> =
        v["top_candidates"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"item:memory-file:memory/notes/followup.md"), "{ids:?}");

    let safe = env.ok(&["graph", "pack", "memory/projects/kestrel.md", "--depth", "1"]);
    assert!(!safe.contains("librdkafka") && !safe.contains("\"snippet\""), "{safe}");
    assert!(safe.contains("\"why_included\": \"1 hop(s)"), "{safe}");
    let raw = env.ok(&["graph", "pack", "memory/projects/kestrel.md", "--depth", "1", "--mode", "raw"]);
    assert!(raw.contains("librdkafka"), "{raw}");
}

#[test]
fn context_graph_switches_and_fail_open_on_a_damaged_graph_table() {
    let env = Env::with_notes(&[0, 1, 2]);
    let base = ["context", Q, "--now", "2026-03-20T00:00:00Z", "--format", "json"];
    let plain = env.ok(&base);
    let no_graph = env.ok(&[&base[..], &["--no-graph"]].concat());
    assert_eq!(plain, no_graph, "the lane is off by default");
    let with: Value = serde_json::from_str(&env.ok(&[&base[..], &["--use-graph"]].concat())).unwrap();
    assert!(with["receipt"]["graph"]["candidates"].as_array().is_some_and(|c| !c.is_empty()), "{with}");

    // The kill switch in the config wins over `--use-graph`.
    let cfg = env.tmp.path().join("cairn.toml");
    std::fs::write(&cfg, "[graph]\nenabled = false\n").unwrap();
    let (code, off, _) = env.run_with(&[&base[..], &["--use-graph"]].concat(), &cfg);
    assert_eq!(code, 0);
    assert_eq!(off, plain);
    std::fs::remove_file(&cfg).unwrap();

    // A damaged graph row: the lane fails, the block is the one without the lane.
    let conn = rusqlite::Connection::open(env.data.join("cairn.sqlite")).unwrap();
    conn.execute("UPDATE graph_nodes SET tags = 'oops' WHERE id LIKE 'item:%'", []).unwrap();
    drop(conn);
    let (code, out, err) = env.run(&[&base[..], &["--use-graph"]].concat());
    assert_eq!(code, 0, "{err}\n{out}");
    assert!(err.contains("graph lane failed"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(v["context_block"], p["context_block"]);
    assert_eq!(v["items"], p["items"]);
    assert_eq!(v["receipt"]["failed_lanes"], serde_json::json!(["graph"]));
}
