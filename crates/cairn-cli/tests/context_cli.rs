//! `cairn context` and `cairn reindex` through the real binary, on the shipped demo workspace.

mod common;

use std::path::Path;

use cairn_test::copy_dir;
use common::Env;
use serde_json::Value;

impl Env {
    /// The shipped demo workspace, harvested.
    fn demo() -> Self {
        let env = Env::new(&[]);
        copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace"), &env.ws);
        env.ok(&["harvest"]);
        env
    }

    fn context(&self, args: &[&str]) -> String {
        let mut all = vec!["context", "--now", "2026-03-20T00:00:00Z"];
        all.extend_from_slice(args);
        self.ok(&all)
    }
}

const Q: &str = "what is the status of apollo, and should storm alerts bypass quiet hours?";

#[test]
fn markdown_block_has_the_seed_shape_and_respects_the_budget() {
    let env = Env::demo();
    let out = env.context(&[Q, "--budget", "400"]);
    assert!(out.starts_with("<cairn-context>\n## Retrieved Context\n\n*Assembled by Cairn — "), "{out}");
    assert!(out.contains("*Query tags: [apollo"), "{out}");
    assert!(out.contains("### [2026-03-18] 2026-03-18"), "the daily note about quiet hours: {out}");
    assert!(out.contains("*Source: memory/daily/2026-03-18.md:"), "{out}");
    assert!(out.trim_end().ends_with("</cairn-context>"));
    let tokens = cairn_tokens::Tokenizer::default().count(out.trim_end_matches('\n'));
    assert!(tokens <= 400, "{tokens} tokens");
    // XML names every item with its source.
    let xml = env.context(&[Q, "--budget", "400", "--format", "xml"]);
    assert!(xml.contains("<item ") && xml.contains("source=\"memory/daily/2026-03-18.md:"), "{xml}");
}

#[test]
fn json_output_fields_and_public_only_scope() {
    let env = Env::demo();
    let v: Value = serde_json::from_str(&env.context(&[Q, "--budget", "600", "--format", "json"])).unwrap();
    for key in ["context_block", "tokens", "items", "tags", "source", "empty", "receipt"] {
        assert!(v.get(key).is_some(), "missing `{key}` in {v}");
    }
    assert_eq!(v["source"], "cairn");
    assert_eq!(v["empty"], false);
    assert!(v["tokens"].as_u64().unwrap() <= 600);
    let ids: Vec<&str> =
        v["items"].as_array().unwrap().iter().map(|i| i["item_id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"memory-file:memory/daily/2026-03-18.md"), "{ids:?}");

    // A shared audience sees only public items (here: the Apollo project note and the Friday decision).
    let v: Value =
        serde_json::from_str(&env.context(&[Q, "--budget", "600", "--format", "json", "--public-only"]))
            .unwrap();
    let ids: Vec<&str> =
        v["items"].as_array().unwrap().iter().map(|i| i["item_id"].as_str().unwrap()).collect();
    assert!(!ids.is_empty());
    for id in &ids {
        assert!(
            [
                "memory-file:memory/projects/apollo.md",
                "memory-file:memory/decisions/2026-02-10-no-friday-deploys.md"
            ]
            .contains(id),
            "private item {id} shown to a public-only caller"
        );
    }
    let receipt = v["receipt"].to_string();
    assert!(!receipt.contains("2026-03-18.md"), "private ids stay out of the receipt: {receipt}");
}

#[test]
fn nothing_relevant_is_an_empty_block_that_says_so() {
    let env = Env::demo();
    let v: Value =
        serde_json::from_str(&env.context(&["zyxxqv plorf", "--format", "json", "--budget", "500"])).unwrap();
    assert_eq!(v["empty"], true);
    assert_eq!(v["context_block"], "");
    assert_eq!(v["tokens"], 0);
}

#[test]
fn trace_receipt_is_redaction_safe_and_stats_only_has_no_block() {
    let env = Env::demo();
    let trace = env.ws.parent().unwrap().join("trace.json");
    let stats = env.context(&[Q, "--budget", "300", "--stats-only", "--trace", trace.to_str().unwrap()]);
    let stats: Value = serde_json::from_str(&stats).unwrap();
    assert!(stats.get("context_block").is_none());
    assert!(stats["tokens"].as_u64().unwrap() <= 300);
    let receipt: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let lanes: Vec<&str> =
        receipt["lanes"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(lanes, ["lexical", "vector", "tags", "recency", "date"]);
    assert!(!receipt["included"].as_array().unwrap().is_empty());
    let text = receipt.to_string();
    for raw in ["quiet hours", "severe", "Lena", "status of apollo"] {
        assert!(!text.contains(raw), "raw text `{raw}` in the receipt");
    }
    // Every candidate is accounted for: included + excluded = considered.
    let n = receipt["included"].as_array().unwrap().len() + receipt["excluded"].as_array().unwrap().len();
    assert_eq!(n as u64, receipt["candidates"]["total"].as_u64().unwrap());
}

#[test]
fn output_is_byte_identical_and_survives_a_rebuilt_or_damaged_index() {
    let env = Env::demo();
    let args = [Q, "--budget", "500", "--format", "json"];
    let first = env.context(&args);
    assert_eq!(env.context(&args), first);
    let (code, out, _) = env.run(&["reindex", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["upserted"], 10);
    assert_eq!(env.context(&args), first, "a rebuilt index gives the same block");
    // Damage the index: the next read rebuilds it from the store and answers the same.
    let index = env.data.join("index");
    for e in std::fs::read_dir(&index).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") || p.file_name().is_some_and(|n| n == "meta.json") {
            std::fs::write(&p, b"{ not json").unwrap();
        }
    }
    assert_eq!(env.context(&args), first);
    // A missing index is rebuilt too.
    std::fs::remove_dir_all(&index).unwrap();
    assert_eq!(env.context(&args), first);
}

#[test]
fn captured_turns_are_recallable_at_once() {
    use std::io::Write;
    let env = Env::demo();
    let mut child = env
        .cmd()
        .args(["capture", "--audience", "private"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let turn = serde_json::json!({
        "session_key": "agent:main:main", "turn_id": "1",
        "user": "<cairn-context>old block about zebra crossings</cairn-context>\nWhich kayak did we pick?",
        "assistant": "The blue sea kayak with the rudder.",
        "timestamp": "2026-03-19T12:00:00Z"
    });
    child.stdin.take().unwrap().write_all(turn.to_string().as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    let v: Value =
        serde_json::from_str(&env.context(&["which kayak?", "--format", "json", "--budget", "300"])).unwrap();
    assert!(v["context_block"].as_str().unwrap().contains("blue sea kayak"), "{v}");
    // The stripped injected block was never stored, so it cannot come back.
    let v: Value = serde_json::from_str(&env.context(&["zebra crossings", "--format", "json"])).unwrap();
    assert_eq!(v["empty"], true, "{v}");
}
