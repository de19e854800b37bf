//! `cairn recall` and `cairn eval retrieval` end to end, on a store and a corpus made here.

mod common;

use std::path::Path;

use cairn_core::{Audience, ItemKind};
use cairn_store::{SqliteStore, Store, Write};
use common::cairn_in;
use serde_json::Value;

const NOW: i64 = 1_700_000_000_000;

fn add(w: &mut Vec<Write>, id: &str, project: &str, audience: Audience, text: &str, tags: &[&str]) {
    let (item, chunks) = cairn_test::item(id)
        .project(project)
        .kind(ItemKind::File)
        .title(format!("Note {id}"))
        .text(text)
        .tags(tags)
        .audience(audience)
        .file(format!("memory/{id}.md"), 1, 3)
        .created_at(NOW - 86_400_000)
        .observed_at(NOW)
        .with_chunk();
    w.push(Write::upsert(item, chunks));
}

fn index_fixture(dir: &Path) {
    // The store is the source of truth; the CLI builds the index from it on first use.
    let mut store = SqliteStore::open(&dir.join("data/cairn.sqlite")).unwrap();
    let mut w = Vec::new();
    add(
        &mut w,
        "grib",
        "weather",
        Audience::Public,
        "The GRIB parser crashed on a truncated file.",
        &["weather"],
    );
    add(
        &mut w,
        "secret",
        "weather",
        Audience::Private,
        "Private: the GRIB parser password is hunter2.",
        &["weather"],
    );
    add(&mut w, "tokyo", "travel", Audience::Public, "東京でラーメンを食べました。", &[]);
    store.apply(&w, "test").unwrap();
}

fn recall_json(dir: &Path, args: &[&str]) -> Value {
    let out =
        cairn_in(dir).arg("recall").args(args).args(["--json", "--now", &NOW.to_string()]).output().unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn hit_ids(v: &Value) -> Vec<String> {
    v["hits"].as_array().unwrap().iter().map(|h| h["item_id"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn recall_json_has_hits_parts_reasons_and_lanes() {
    let dir = tempfile::tempdir().unwrap();
    index_fixture(dir.path());
    let v = recall_json(dir.path(), &["why did the GRIB parser crash?"]);
    assert_eq!(hit_ids(&v), ["grib", "secret"]);
    let top = &v["hits"][0];
    assert_eq!(top["provenance"]["path"], "memory/grib.md");
    assert!(top["parts"]["lexical"].as_f64().unwrap() > 0.5, "{top}");
    assert!(top["why"]["terms"].as_array().unwrap().iter().any(|t| t == "grib"));
    let lanes: Vec<&str> =
        v["lanes"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(lanes, ["lexical", "vector", "tags", "recency", "date"]);
    assert_eq!(v["query"], "why did the GRIB parser crash?");

    // Public-only callers never see the private item, not even in counts.
    let v = recall_json(dir.path(), &["GRIB parser weather", "--public-only"]);
    assert_eq!(hit_ids(&v), ["grib"]);
    assert!(v["lanes"].as_array().unwrap().iter().all(|l| l["candidates"].as_u64().unwrap() <= 1));
    assert!(!serde_json::to_string(&v).unwrap().contains("hunter2"));

    // Project scope and CJK.
    let v = recall_json(dir.path(), &["ラーメン", "--project", "travel"]);
    assert_eq!(hit_ids(&v), ["tokyo"]);
    let v = recall_json(dir.path(), &["ラーメン", "--project", "weather"]);
    assert!(hit_ids(&v).is_empty());
}

#[test]
fn recall_text_output_and_missing_store_hint() {
    let dir = tempfile::tempdir().unwrap();
    let out = cairn_in(dir.path()).args(["recall", "anything"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no store") && err.contains("hint: run `cairn harvest`"), "{err}");

    index_fixture(dir.path());
    let out = cairn_in(dir.path()).args(["recall", "GRIB crash", "-k", "1"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Note grib") && text.contains("memory/grib.md:1-3"), "{text}");
    assert!(!text.contains("Note secret"), "{text}");
    // Nothing relevant: the floor says so, with the best relevance it saw.
    let out = cairn_in(dir.path()).args(["recall", "parser mongolia ulaanbaatar steppe"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no hits: nothing relevant enough (best 0."), "{text}");
}

#[test]
fn a_mismatched_index_is_rebuilt_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    index_fixture(dir.path());
    let out = cairn_in(dir.path()).args(["recall", "GRIB", "--json"]).output().unwrap();
    assert!(out.status.success());
    std::fs::write(
        dir.path().join("data/index/cairn-recall.json"),
        r#"{"format":"cairn-recall","schema_version":999}"#,
    )
    .unwrap();
    let out = cairn_in(dir.path()).args(["recall", "GRIB", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rebuilding the index"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hits"][0]["item_id"], "grib");
}

fn write_eval_corpus(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let topics = [
        ("sailing", "We went sailing on the lake and the wind was strong"),
        ("pottery", "My pottery class made a blue vase with a handle"),
        ("violin", "I practise the violin every evening before dinner"),
        ("garden", "The tomatoes in the garden finally turned red"),
        ("marathon", "I finished the marathon in four hours and twelve minutes"),
    ];
    let mut corpus = String::new();
    let mut queries = String::new();
    for conv in ["c1", "c2"] {
        for (i, (_, text)) in topics.iter().enumerate() {
            let who = if conv == "c1" { "Ana" } else { "Ben" };
            corpus.push_str(&format!(
                "{{\"id\":\"{conv}:D1:{i}\",\"text\":\"{who}: {text}.\",\"conversation\":\"{conv}\",\"timestamp\":\"2023-05-0{}T10:00:00\",\"speaker\":\"{who}\"}}\n",
                i + 1
            ));
        }
        for (i, (topic, _)) in topics.iter().enumerate() {
            queries.push_str(&format!(
                "{{\"id\":\"{conv}:q{i}\",\"conversation\":\"{conv}\",\"question\":\"What about the {topic}?\",\"evidence\":[\"{conv}:D1:{i}\"],\"category\":{}}}\n",
                1 + i % 2
            ));
        }
    }
    // A question whose evidence is absent from the top k: recall must not be perfect.
    queries.push_str(
        "{\"id\":\"c1:qx\",\"conversation\":\"c1\",\"question\":\"Who won the chess game?\",\"evidence\":[\"c1:D1:0\"],\"category\":2}\n",
    );
    let c = dir.join("corpus.jsonl");
    let q = dir.join("queries.jsonl");
    std::fs::write(&c, corpus).unwrap();
    std::fs::write(&q, queries).unwrap();
    (c, q)
}

#[test]
fn eval_retrieval_reports_per_category_and_overall() {
    let dir = tempfile::tempdir().unwrap();
    let (c, q) = write_eval_corpus(dir.path());
    let out = cairn_in(dir.path())
        .args(["eval", "retrieval", "--corpus"])
        .arg(&c)
        .arg("--queries")
        .arg(&q)
        .args(["--k", "1,3", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let runs: Value = serde_json::from_slice(&out.stdout).unwrap();
    // No model in this data dir: one lexical run.
    assert_eq!(runs.as_array().unwrap().len(), 1);
    let v = &runs[0];
    assert_eq!(v["name"], "lexical");
    assert_eq!(v["documents"], 10);
    assert_eq!(v["questions"], 11);
    let overall = &v["overall"];
    // Ten questions name their topic (found at rank 1); the chess question finds nothing.
    assert!((overall["recall"]["1"].as_f64().unwrap() - 10.0 / 11.0).abs() < 1e-9, "{overall}");
    assert!((overall["hit"]["3"].as_f64().unwrap() - 10.0 / 11.0).abs() < 1e-9);
    assert_eq!(v["by_category"]["1"]["n"], 6);
    assert_eq!(v["by_category"]["2"]["n"], 5);
    assert_eq!(v["by_category"]["1"]["recall"]["1"], 1.0);

    let out = cairn_in(dir.path())
        .args(["eval", "retrieval", "--corpus"])
        .arg(&c)
        .arg("--queries")
        .arg(&q)
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("Recall@10") && table.contains("NDCG@10") && table.contains("overall"), "{table}");

    // The vector lane without a model is refused with a hint, not silently measured as lexical.
    let out = cairn_in(dir.path())
        .args(["eval", "retrieval", "--lanes", "vector", "--corpus"])
        .arg(&c)
        .arg("--queries")
        .arg(&q)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs an embedding model"));

    // A malformed line is reported with its position.
    std::fs::write(&q, "{not json}\n").unwrap();
    let out = cairn_in(dir.path())
        .args(["eval", "retrieval", "--corpus"])
        .arg(&c)
        .arg("--queries")
        .arg(&q)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("queries.jsonl:1"));
}

#[test]
fn zero_hits_asked_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    index_fixture(dir.path());
    let out = cairn_in(dir.path()).args(["recall", "GRIB", "-k", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "`-k 0` used to print `no hits` and exit 0");
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 1"));
}
