//! CLI tests for `intent-test`, `rules audit`, `rules monitor`, `bootstrap`, `eval intents`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_test::copy_dir;

fn example_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/config").canonicalize().unwrap()
}

/// `cairn` isolated from the user's settings, in a temp working directory.
fn cairn(tmp: &Path, config: &Path) -> Command {
    let mut cmd = common::cairn();
    cmd.current_dir(tmp).env("HOME", tmp).env_remove("XDG_DATA_HOME").arg("--route-config").arg(config);
    cmd
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(cmd: &mut Command) -> Out {
    let (code, stdout, stderr) = common::output(&cmd.output().unwrap());
    Out { code, stdout, stderr }
}

#[test]
fn intent_test_human_output() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args([
        "intent-test",
        "I had dinner with the Series A founder",
        "--session-key",
        "agent:main:main",
    ]));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("decision: inject `deal_review` → pack `deal_brief` + `voice_formal` (scope private)"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("deal_review            2.00  [winner]  keywords: founder, series a"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("runner-up `dining` with 1"));
    assert!(
        o.stdout
            .contains("<pack-context intent=\"deal_review\" primary-pack=\"deal_brief\" scope=\"private\">")
    );
}

#[test]
fn intent_test_json_with_entities() {
    let tmp = tempfile::tempdir().unwrap();
    let ents = tmp.path().join("entities.json");
    std::fs::write(&ents, r#"[{"summary": "Trattoria Verde is a restaurant", "facts": []}]"#).unwrap();
    let o = run(cairn(tmp.path(), &example_config())
        .args(["intent-test", "I had dinner with the Series A founder", "--json", "--entities"])
        .arg(&ents));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["intent"], "dining");
    assert_eq!(v["outcome"]["kind"], "injected");
    let deal = v["scores"].as_array().unwrap().iter().find(|s| s["rule"] == "deal_review").unwrap();
    assert_eq!(deal["status"]["status"], "suppressed");
}

#[test]
fn intent_test_no_pack_in_group_and_bad_entities_file() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args([
        "intent-test",
        "book a table for dinner",
        "--session-key",
        "agent:main:telegram:group:-100",
    ]));
    assert_eq!(o.code, 0);
    assert!(
        o.stdout.starts_with("decision: no pack (`dining` is private and the audience is shared)"),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains("<pack-context"));
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args(["intent-test", "x", "--entities"]).arg(&bad));
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("bad.json"), "{}", o.stderr);
}

#[test]
fn intent_test_missing_config_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(cairn(tmp.path(), &tmp.path().join("nope")).args(["intent-test", "hello"]));
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cannot load the routing config"), "{}", o.stderr);
    // Said once, naming the directory: no "not found: not found".
    assert!(o.stderr.contains("does not exist"), "{}", o.stderr);
    assert_eq!(
        o.stderr.matches("not found").count() + o.stderr.matches("does not exist").count(),
        1,
        "{}",
        o.stderr
    );
}

#[test]
fn rules_audit_passes_on_the_example() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args(["rules", "audit"]));
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("audit passed: 5 rules, 10 packs, 0 error(s), 1 warning(s)"), "{}", o.stdout);
    assert!(o.stdout.contains("warning[composition]"));
}

#[test]
fn rules_audit_fails_on_overlap_and_bad_regex() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("cfg");
    copy_dir(&example_config(), &cfg);
    let rules = cfg.join("intent_rules.yaml");
    let text = std::fs::read_to_string(&rules).unwrap();
    let text = text
        .replace("      - jet lag\n", "      - jet lag\n      - tweet\n      - tweets\n      - thread\n      - hashtag\n      - hashtags\n      - retweet\n      - followers\n      - viral\n")
        .replace(r"'\bfood hall\b'", "'[unclosed'");
    std::fs::write(&rules, text).unwrap();
    let o = run(cairn(tmp.path(), &cfg).args(["rules", "audit"]));
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(o.stdout.contains("error[overlap]"), "{}", o.stdout);
    assert!(o.stdout.contains("`social_post` and `travel`"), "{}", o.stdout);
    assert!(
        o.stdout.contains("error[config]")
            && o.stdout.contains("rules[dining].entity_boosts[1].summary_pattern")
    );
    assert!(o.stdout.contains("audit failed"));
    let o = run(cairn(tmp.path(), &cfg).args(["rules", "audit", "--json"]));
    assert_eq!(o.code, 1);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["check"] == "overlap"));
}

#[test]
fn rules_monitor_flags_broad_packs() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("decisions.jsonl");
    let mut lines = String::new();
    for i in 0..40 {
        let pack = match i % 4 {
            0 | 1 => r#","primary_pack":"dining_recs""#,
            2 => r#","primary_pack":"travel_itinerary""#,
            _ => "",
        };
        lines.push_str(&format!("{{\"at\":{}{pack}}}\n", 1_000 + i));
    }
    std::fs::write(&log, lines).unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args(["rules", "monitor", "--now", "2000"]).arg(&log));
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("turns in window: 40 (30 with a pack)"), "{}", o.stdout);
    assert!(o.stdout.contains("dining_recs") && o.stdout.contains("50.0 %  FLAGGED"), "{}", o.stdout);
    assert!(o.stdout.contains("1 pack(s) over 30 %"));
    let o = run(cairn(tmp.path(), &example_config())
        .args(["rules", "monitor", "--now", "2000", "--max-rate", "0.6"])
        .arg(&log));
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert!(!o.stdout.contains("FLAGGED"));
}

#[test]
fn bootstrap_counts_tokens_per_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("SOUL.md"), "# Soul\nCalm, precise, helpful. Verify before acting.\n").unwrap();
    std::fs::write(ws.join("TOOLS_COMPACT.md"), "| tool | port |\n|---|---|\n| browser | 9222 |\n").unwrap();
    std::fs::write(ws.join("PROJECTS.md"), "- project one\n- project two\n").unwrap();
    let o = run(cairn(tmp.path(), &example_config())
        .args(["bootstrap", "--session-key", "agent:main:telegram:group:-100:topic:77", "--in-workspace"])
        .arg(&ws));
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("session: FORUM_TOPIC"), "{}", o.stdout);
    assert!(o.stdout.contains("shared audience, topic 77"));
    for f in ["SOUL.md", "TOOLS_COMPACT.md", "PROJECTS.md"] {
        assert!(o.stdout.contains(f), "{f}");
    }
    assert!(!o.stdout.contains("USER.md"));
    assert!(o.stdout.contains("target 500: ok"), "{}", o.stdout);
    // JSON: per-file counts add up to the total, counted with a real BPE.
    let o = run(cairn(tmp.path(), &example_config())
        .args(["bootstrap", "--json", "--session-key", "agent:main:subagent:abc", "--in-workspace"])
        .arg(&ws));
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["session"]["session_type"], "SUBAGENT");
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    let soul = files[0]["tokens"].as_u64().unwrap();
    assert!(soul > 5 && soul < 30, "{soul}");
    assert_eq!(v["total_tokens"].as_u64().unwrap(), soul);
    // Over the target, or a missing file: exit 1.
    let o = run(cairn(tmp.path(), &example_config())
        .args(["bootstrap", "--session-key", "agent:main:main", "--max-tokens", "5", "--in-workspace"])
        .arg(&ws));
    assert_eq!(o.code, 1);
    assert!(o.stdout.contains("USER.md") && o.stdout.contains("missing"), "{}", o.stdout);
    assert!(o.stdout.contains("OVER TARGET"));
    // An unrecognised key: FALLBACK with a warning on stderr.
    let o = run(cairn(tmp.path(), &example_config())
        .args(["bootstrap", "--session-key", "weird-key", "--in-workspace"])
        .arg(&ws));
    assert!(o.stdout.contains("session: FALLBACK"));
    assert!(o.stderr.contains("no recognised format"), "{}", o.stderr);
}

#[test]
fn eval_intents_on_the_example_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = example_config().join("eval/intent_cases.json");
    let o = run(cairn(tmp.path(), &example_config()).args(["eval", "intents"]).arg(&cases));
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.starts_with("accuracy: 100.0 % (29/29), threshold 90.0 %: pass"), "{}", o.stdout);
    assert!(o.stdout.contains("none                 → none: 6"), "{}", o.stdout);
}

#[test]
fn eval_intents_fails_below_threshold_and_lists_misses() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases.json");
    std::fs::write(
        &cases,
        r#"{"schema_version": 1, "cases": [
            {"id": "ok", "prompt": "book a table for dinner", "expected": "dining_recs"},
            {"id": "wrong", "prompt": "Dinner with a founder", "expected": "dining_recs"},
            {"prompt": "hello there", "expected": null}
        ]}"#,
    )
    .unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args(["eval", "intents"]).arg(&cases));
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(o.stdout.contains("accuracy: 66.7 % (2/3)"), "{}", o.stdout);
    assert!(o.stdout.contains("dining_recs          → dining_recs: 1, none: 1"), "{}", o.stdout);
    assert!(o.stdout.contains("#1 (wrong): expected dining_recs, got none"), "{}", o.stdout);
    assert!(o.stdout.contains("P3"), "the miss shows the last trace line: {}", o.stdout);
    let o = run(cairn(tmp.path(), &example_config())
        .args(["eval", "intents", "--threshold", "0.6", "--json"])
        .arg(&cases));
    assert_eq!(o.code, 0);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["report"]["correct"], 2);
    // A malformed cases file is an error (exit 2) naming the file and line.
    std::fs::write(&cases, "{\"schema_version\": 1, \"cases\": [{\"prompt\": \"x\", \"expect\": null}]}")
        .unwrap();
    let o = run(cairn(tmp.path(), &example_config()).args(["eval", "intents"]).arg(&cases));
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cases.json") && o.stderr.contains("expect"), "{}", o.stderr);
}
