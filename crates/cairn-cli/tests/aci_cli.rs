//! Adaptive context injection through the real binary, on a copy of `examples/aci`: lessons gathered,
//! wisdom drafted against a fake OpenAI-compatible endpoint, the review gate (hash, checks, backup),
//! an atomic promotion that survives a crash, rollback (files byte-identical, bulk injection back), the
//! compact tools file, and the report.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Env;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/aci");
const TODAY: &str = "2026-11-24";
const TOPIC: &str = "agent:main:telegram:group:-1001:topic:14";

/// A model's answer that passes every check on the example workspace.
const GOOD_ANSWER: &str = "Here are the patterns:\n\
**Verify first.** Assumptions drift. [L1, L2, L3]\n\
**Small steps.** Change, then check. [L5, L10, L24]\n\
**Write it down.** Memory fades. [L9, L26, L40]\n\
**Bound waits.** Limits beat hangs. [L4, L13, L14, L15]\n\
**Read first.** Logs know. [L6, L11, L26]\n\
**Back up first.** Keep an undo. [L8, L21, L34]\n\
**Ask early.** Guessing costs. [L24, L25, L41]\n\
**Close loops.** Report done. [L27, L28, L12]\n\
**One truth.** One source. [L22, L23, L29]\n\
**Respect quiet.** Nights stay silent. [L17, L18, L39]\n\
**Say less.** Short lands. [L12, L33, L36]\n";

/// A copy of the example workspace (`ws`) and an empty data dir.
fn example() -> Env {
    let env = Env::new(&[]);
    cairn_test::copy_dir(Path::new(EXAMPLE), &env.ws);
    env
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The workspace's visible (not hidden) files, recursively, with their bytes.
fn snapshot(ws: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![ws.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path().strip_prefix(ws).unwrap().to_path_buf(), read(&e.path())));
            }
        }
    }
    out.sort();
    out
}

fn hash_of(check_stdout: &str) -> String {
    check_stdout.lines().find_map(|l| l.strip_prefix("hash: ")).expect("check prints the hash").to_owned()
}

#[derive(Clone)]
enum Mode {
    Answer(String),
    Slow(Duration),
    Status(u16),
}

/// A fake OpenAI-compatible chat server on 127.0.0.1; records every request (head and body).
struct FakeLlm {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

fn fake_llm(mode: Mode) -> FakeLlm {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let recorded = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (mode, recorded) = (mode.clone(), recorded.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut len = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                recorded.lock().unwrap().push(format!("{head}\n{}", String::from_utf8_lossy(&body)));
                let (status, body) = match mode {
                    Mode::Answer(a) => (
                        200,
                        serde_json::json!({"choices": [{"message": {"role": "assistant", "content": a}}]})
                            .to_string(),
                    ),
                    Mode::Slow(d) => {
                        std::thread::sleep(d);
                        (200, "{}".to_owned())
                    }
                    Mode::Status(s) => (s, r#"{"error":"boom"}"#.to_owned()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    FakeLlm { url, requests }
}

/// `cairn` on `env` with the chat endpoint at `llm`.
fn with_llm(env: &Env, llm: &FakeLlm, args: &[&str], extra: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = env.cmd();
    cmd.env("CAIRN_ACI__LLM__ENDPOINT", &llm.url)
        .env("CAIRN_ACI__LLM__MODEL", "fake-model")
        .env("CAIRN_ACI__LLM__TIMEOUT_MS", "400")
        .env("CAIRN_ACI__LLM__RETRIES", "1")
        .envs(extra.iter().copied())
        .args(args);
    common::output(&cmd.output().unwrap())
}

/// Drafts wisdom against a fake endpoint answering `answer`; the draft's path.
fn draft(env: &Env, answer: &str) -> PathBuf {
    let llm = fake_llm(Mode::Answer(answer.to_owned()));
    let out = env.tmp.path().join("wisdom-draft.md");
    let (code, _, err) =
        with_llm(env, &llm, &["wisdom", "draft", "--today", TODAY, "--out", out.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn collect_counts_lessons_warns_per_missing_source_and_says_when_a_run_is_due() {
    let env = example();
    let (code, out, err) = env.run(&["wisdom", "collect", "--json", "--today", TODAY]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lessons = v["lessons"].as_array().unwrap();
    let texts: Vec<&str> = lessons.iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(lessons.len(), 42, "{texts:#?}");
    assert!(texts.iter().any(|t| t.starts_with("Verify the port of a service")), "AGENTS.md's section");
    assert!(texts.iter().any(|t| t.starts_with("Timeouts beat hangs")), "LESSONS_LEARNED.md");
    assert!(texts.iter().any(|t| t.starts_with("2026-10-20: every change")), "MEMORY.md's decisions");
    assert!(texts.iter().any(|t| t.starts_with("The retry limit held")), "a recent daily note");
    assert!(!texts.iter().any(|t| t.contains("outside the last 30 days")), "an old daily note is left out");
    assert!(
        !texts.iter().any(|t| t.contains("runs a small design studio")),
        "MEMORY.md's people are not lessons"
    );
    assert_eq!((v["last_source_lessons"].as_u64(), v["new_lessons"].as_u64()), (Some(18), Some(24)));
    assert_eq!(v["due"], true, "{}", v["due_reason"]);

    // A missing source is a warning, not a failure.
    std::fs::remove_file(env.ws.join("LESSONS_LEARNED.md")).unwrap();
    let (code, out, err) = env.run(&["wisdom", "collect", "--today", TODAY]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: `LESSONS_LEARNED.md`: missing"), "{err}");
    assert!(out.contains("26 lessons"), "{out}");
    // Compressed recently with few new lessons: not due.
    let soul = std::fs::read_to_string(env.ws.join("SOUL.md")).unwrap();
    std::fs::write(
        env.ws.join("SOUL.md"),
        soul.replace(
            "_Last compressed: 2026-09-30 | Source lessons: 18_",
            "_Last compressed: 2026-11-20 | Source lessons: 20_",
        ),
    )
    .unwrap();
    let out = env.ok(&["wisdom", "collect", "--today", TODAY]);
    assert!(out.contains("compression not due"), "{out}");
}

#[test]
fn draft_sends_the_grouped_lessons_and_writes_a_checked_section_with_its_coverage() {
    let env = example();
    let llm = fake_llm(Mode::Answer(GOOD_ANSWER.to_owned()));
    let out = env.tmp.path().join("d.md");
    let (code, stdout, err) = with_llm(
        &env,
        &llm,
        &["wisdom", "draft", "--today", TODAY, "--out", out.to_str().unwrap()],
        &[("CAIRN_ACI__LLM__API_KEY_ENV", "FAKE_LLM_KEY"), ("FAKE_LLM_KEY", "sk-test-123")],
    );
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("d.md"), "{stdout}");
    assert!(stdout.contains("check: PASS\nhash: "), "{stdout}");
    let requests = llm.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert!(req.starts_with("POST /v1/chat/completions"), "{req}");
    assert!(req.to_ascii_lowercase().contains("authorization: bearer sk-test-123"), "{req}");
    let body: serde_json::Value = serde_json::from_str(req.split_once("\n\n").unwrap().1.trim()).unwrap();
    assert_eq!(body["model"], "fake-model");
    let prompt = body["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("Group these lessons by theme"), "{prompt}");
    assert!(prompt.contains("maximum 15 words"), "{prompt}");
    assert!(prompt.contains("L13 Timeouts beat hangs"), "{prompt}");
    assert!(prompt.contains("## AGENTS.md: Operational Lessons"), "grouped by source: {prompt}");

    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("_Last compressed: 2026-11-24 | Source lessons: 42_"), "{text}");
    assert!(text.contains("**Verify first.** Assumptions drift. <!-- covers: L1, L2, L3 -->"), "{text}");
    assert!(
        text.contains("**When context feels incomplete, check your memory.**"),
        "the required entry is added: {text}"
    );
    assert!(
        text.contains("L13 (LESSONS_LEARNED.md:5) Timeouts beat hangs"),
        "the lessons are listed: {text}"
    );
    let (code, check, err) = env.run(&["wisdom", "check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{check}{err}");
    assert!(check.contains("check: PASS"), "{check}");
    let hash = hash_of(&check);
    // Listed for review in the queue and in `cairn status`.
    let queue = std::fs::read_to_string(env.ws.join("DAILY_EXECUTION_QUEUE.md")).unwrap();
    assert!(queue.contains("REVIEW NEEDED: wisdom draft") && queue.contains(&hash), "{queue}");
    // Before any harvest, `cairn status` has no store to show, but still the review.
    let (code, status, err) = env.run(&["status"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        status.contains("review:    REVIEW NEEDED: wisdom draft") && err.contains("no store"),
        "{status}{err}"
    );
    env.ok(&["harvest"]);
    let status = env.ok(&["status"]);
    assert!(status.contains("review:    REVIEW NEEDED: wisdom draft"), "{status}");
}

#[test]
fn without_an_endpoint_draft_writes_a_worksheet_that_fails_its_check() {
    let env = example();
    let out = env.tmp.path().join("sheet.md");
    let (code, _, err) = env.run(&["wisdom", "draft", "--today", TODAY, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("worksheet"), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let ids = text
        .lines()
        .filter(|l| l.starts_with('L') && l[1..].starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert_eq!(ids, 42, "every lesson, by id: {text}");
    assert!(text.contains("\nMEMORY.md: Decisions\n"), "grouped by source: {text}");
    let (code, check, _) = env.run(&["wisdom", "check", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{check}");
    assert!(check.contains("FAIL 0 entries"), "{check}");
    assert!(check.contains("FAIL the required entry is missing"), "{check}");
    // A person fills it in: it passes, with the hash the check prints.
    let text = std::fs::read_to_string(&out).unwrap();
    let entries: String = GOOD_ANSWER
        .lines()
        .skip(1)
        .map(|l| {
            let (entry, ids) = l.rsplit_once(" [").unwrap();
            format!("{entry} <!-- covers: {} -->\n", ids.trim_end_matches(']'))
        })
        .collect();
    let required = "**When context feels incomplete, check your memory.** Read `memory/YYYY-MM-DD.md` and `MEMORY.md` when historical knowledge is needed.\n";
    let filled =
        text.replacen("Source lessons: 42_\n\n", &format!("Source lessons: 42_\n\n{entries}{required}"), 1);
    std::fs::write(&out, filled).unwrap();
    let (code, check, _) = env.run(&["wisdom", "check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{check}");
}

#[test]
fn a_slow_or_failing_endpoint_is_named_and_nothing_is_written() {
    let env = example();
    let before = snapshot(&env.ws);
    let out = env.tmp.path().join("never.md");
    let slow = fake_llm(Mode::Slow(Duration::from_secs(5)));
    let (code, _, err) =
        with_llm(&env, &slow, &["wisdom", "draft", "--today", TODAY, "--out", out.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&slow.url) && err.contains("did not answer within 400 ms"), "{err}");
    assert_eq!(slow.requests.lock().unwrap().len(), 2, "one retry");

    let failing = fake_llm(Mode::Status(500));
    let (code, _, err) =
        with_llm(&env, &failing, &["wisdom", "draft", "--today", TODAY, "--out", out.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&failing.url) && err.contains("answered HTTP 500"), "{err}");

    let useless = fake_llm(Mode::Answer("I cannot help with that.".into()));
    let (code, _, err) =
        with_llm(&env, &useless, &["wisdom", "draft", "--today", TODAY, "--out", out.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&useless.url), "{err}");

    assert!(!out.exists(), "no draft written");
    assert_eq!(snapshot(&env.ws), before, "the workspace (queue included) is unchanged");
}

#[test]
fn the_gate_refuses_without_a_backup_with_a_changed_draft_or_a_failing_check() {
    let env = example();
    let soul = read(&env.ws.join("SOUL.md"));
    let d = draft(&env, GOOD_ANSWER);
    let hash = hash_of(&env.ok(&["wisdom", "check", d.to_str().unwrap()]));
    let promote = |d: &Path, h: &str| env.run(&["wisdom", "promote", d.to_str().unwrap(), "--approve", h]);

    let (code, _, err) = promote(&d, &hash);
    assert_ne!(code, 0);
    assert!(err.contains("no fresh backup of `SOUL.md`"), "{err}");
    assert_eq!(read(&env.ws.join("SOUL.md")), soul);

    env.ok(&["workspace", "backup"]);
    // The draft changed after review.
    let mut changed = read(&d);
    changed.extend_from_slice(b"\n");
    std::fs::write(&d, &changed).unwrap();
    let (code, _, err) = promote(&d, &hash);
    assert_ne!(code, 0);
    assert!(err.contains("not the approved"), "{err}");
    assert_eq!(read(&env.ws.join("SOUL.md")), soul);

    // A draft that fails its checks (a port number, an entry covering too few lessons).
    let bad =
        draft(&env, &GOOD_ANSWER.replace("Assumptions drift. [L1, L2, L3]", "Check port 3100 first. [L1]"));
    let (code, check, _) = env.run(&["wisdom", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{check}");
    assert!(check.contains("a port number"), "{check}");
    assert!(check.contains("covers 1 source lesson(s); at least 3"), "{check}");
    let (code, _, err) = promote(&bad, &hash_of(&check));
    assert_ne!(code, 0);
    assert!(err.contains("fails its checks") && err.contains("a port number"), "{err}");
    assert_eq!(read(&env.ws.join("SOUL.md")), soul);

    // A WISDOM.md anywhere fails the check too.
    let good = draft(&env, GOOD_ANSWER);
    env.write("notes/WISDOM.md", "no");
    let (code, check, _) = env.run(&["wisdom", "check", good.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(check.contains("WISDOM.md` exists"), "{check}");
}

#[test]
fn promote_replaces_only_the_wisdom_section_and_rollback_restores_every_byte() {
    let env = example();
    let soul = std::fs::read_to_string(env.ws.join("SOUL.md")).unwrap();
    env.ok(&["workspace", "backup"]);
    let backed_up = snapshot(&env.ws);
    let d = draft(&env, GOOD_ANSWER);
    let hash = hash_of(&env.ok(&["wisdom", "check", d.to_str().unwrap()]));
    env.ok(&["wisdom", "promote", d.to_str().unwrap(), "--approve", &hash]);
    let after = std::fs::read_to_string(env.ws.join("SOUL.md")).unwrap();
    let head = &soul[..soul.find("## Wisdom").unwrap()];
    assert!(after.starts_with(head), "identity and authority kept byte for byte:\n{after}");
    assert!(after.contains("**Say less.** Short lands.\n"), "{after}");
    assert!(!after.contains("covers:"), "no coverage comments in SOUL.md: {after}");
    assert!(!after.contains("Check the board before assuming"), "the old section is gone");
    let queue = std::fs::read_to_string(env.ws.join("DAILY_EXECUTION_QUEUE.md")).unwrap();
    assert!(!queue.contains("REVIEW NEEDED"), "promoted drafts leave the queue: {queue}");

    let out = env.ok(&["workspace", "rollback"]);
    assert!(out.contains("SOUL.md"), "{out}");
    assert_eq!(snapshot(&env.ws), backed_up, "every file as it was when backed up");
    assert_eq!(read(&env.ws.join("SOUL.md")), soul.as_bytes());
    // The rollback itself was backed up first: rolling back to that undoes it.
    let list = env.ok(&["workspace", "backups", "--json"]);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
}

#[test]
fn a_crash_between_the_temporary_file_and_the_rename_leaves_soul_untouched() {
    let env = example();
    env.ok(&["workspace", "backup"]);
    let d = draft(&env, GOOD_ANSWER);
    let hash = hash_of(&env.ok(&["wisdom", "check", d.to_str().unwrap()]));
    let before = snapshot(&env.ws);
    let out = env
        .cmd()
        .env("CAIRN_TEST_CRASH_BEFORE_RENAME", "1")
        .args(["wisdom", "promote", d.to_str().unwrap(), "--approve", &hash])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the process was aborted");
    assert_eq!(snapshot(&env.ws), before, "SOUL.md byte-identical, no partial file visible");
    // The next promotion works and clears what the crash left behind.
    env.ok(&["wisdom", "promote", d.to_str().unwrap(), "--approve", &hash]);
    let leftovers: Vec<String> = std::fs::read_dir(&env.ws)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".cairn-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(std::fs::read_to_string(env.ws.join("SOUL.md")).unwrap().contains("**Verify first.**"));
}

#[test]
fn tools_compact_is_drafted_checked_and_promoted_through_the_same_gate() {
    let env = example();
    let out = env.tmp.path().join("tc.md");
    let report = env.ok(&["tools-compact", "--out", out.to_str().unwrap()]);
    assert!(report.contains("dropped from Browser:"), "{report}");
    let text = std::fs::read_to_string(&out).unwrap();
    for value in [
        "`wren-web`",
        "9222",
        "| Board port | 3100 |",
        "| Ops | 15 |",
        "`--max-minutes 30`",
        "`table-cam`",
        "`alder`",
    ] {
        assert!(text.contains(value), "{value} kept: {text}");
    }
    for prose in ["loopback", "six hours", "Before this file existed", "code-helper --print"] {
        assert!(!text.contains(prose), "{prose} dropped: {text}");
    }
    let check = env.ok(&["tools-compact", "check", out.to_str().unwrap()]);
    assert!(check.contains("20 of 20 lookup values"), "{check}");
    let hash = hash_of(&check);
    // A wisdom draft is not promoted by the tools command, nor the other way round.
    let (code, _, err) = env.run(&["wisdom", "promote", out.to_str().unwrap(), "--approve", &hash]);
    assert_ne!(code, 0);
    assert!(err.contains("is a tools-compact draft"), "{err}");
    let (code, _, err) = env.run(&["tools-compact", "promote", out.to_str().unwrap(), "--approve", &hash]);
    assert_ne!(code, 0);
    assert!(err.contains("no fresh backup of `TOOLS_COMPACT.md`"), "{err}");
    assert!(!env.ws.join("TOOLS_COMPACT.md").exists());
    env.ok(&["workspace", "backup"]);
    env.ok(&["tools-compact", "promote", out.to_str().unwrap(), "--approve", &hash]);
    let compact = std::fs::read_to_string(env.ws.join("TOOLS_COMPACT.md")).unwrap();
    assert!(compact.starts_with("# Tools (compact)"), "no draft marker: {compact}");
    assert!(!compact.contains("cairn: report"), "no report: {compact}");
    // Changing the compact file again needs a backup of its new content.
    let (code, _, err) = env.run(&["tools-compact", "promote", out.to_str().unwrap(), "--approve", &hash]);
    assert_ne!(code, 0, "{err}");
    // Rollback removes what did not exist when the backup was taken.
    env.ok(&["workspace", "rollback"]);
    assert!(!env.ws.join("TOOLS_COMPACT.md").exists());
}

#[test]
fn the_report_fails_on_the_bulky_workspace_and_passes_on_the_tiered_one() {
    let env = example();
    let report = |env: &Env| {
        let (code, out, err) = env.run(&["aci", "report", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
        let verdicts: Vec<(String, bool)> = v["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["id"].as_str().unwrap().to_owned(), c["pass"].as_bool().unwrap()))
            .collect();
        (code, v, verdicts)
    };
    let (code, v, verdicts) = report(&env);
    assert_eq!(code, 1);
    let failing: Vec<&str> = verdicts.iter().filter(|(_, p)| !p).map(|(id, _)| id.as_str()).collect();
    assert_eq!(failing, ["AC-1", "AC-2", "AC-5", "AC-6", "AC-7", "AC-8"], "{v}");
    assert_eq!(v["memory_bulk_injected"], false);
    let baseline = v["baseline_tokens"].as_u64().unwrap();
    assert!(baseline > 1500, "TOOLS.md alone is over a thousand: {baseline}");

    env.ok(&["workspace", "backup"]);
    let tc = env.tmp.path().join("tc.md");
    env.ok(&["tools-compact", "--out", tc.to_str().unwrap()]);
    let h = hash_of(&env.ok(&["tools-compact", "check", tc.to_str().unwrap()]));
    env.ok(&["tools-compact", "promote", tc.to_str().unwrap(), "--approve", &h]);
    let d = draft(&env, GOOD_ANSWER);
    let h = hash_of(&env.ok(&["wisdom", "check", d.to_str().unwrap()]));
    env.ok(&["wisdom", "promote", d.to_str().unwrap(), "--approve", &h]);
    let (code, v, verdicts) = report(&env);
    assert_eq!(code, 0, "{v:#}");
    assert!(verdicts.iter().all(|(_, p)| *p), "{verdicts:?}");
    assert_eq!(verdicts.len(), 7, "{verdicts:?}");
    let topic =
        v["sessions"].as_array().unwrap().iter().find(|s| s["session_type"] == "FORUM_TOPIC").unwrap();
    assert!(topic["tokens"].as_u64().unwrap() <= 500, "{topic}");
    assert!(topic["reduction_pct"].as_f64().unwrap() > 70.0, "{topic}");

    // Bulk again: the sets are the full list, and the criteria fail.
    env.ok(&["workspace", "tiered", "off"]);
    let (code, v, verdicts) = report(&env);
    assert_eq!(code, 1);
    assert_eq!(v["memory_bulk_injected"], true, "{v}");
    assert!(verdicts.contains(&("AC-4".to_owned(), false)), "a sub-agent gets every file: {verdicts:?}");
}

#[test]
fn bulk_rollback_hands_the_host_its_full_list_again() {
    let env = example();
    let files = |env: &Env| {
        // (Exit code 1: the set is over its target or incomplete; the list is what matters here.)
        let (_, out, _) = env.run(&["bootstrap", "--session-key", TOPIC, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(files(&env), ["SOUL.md", "TOOLS_COMPACT.md"]);
    env.ok(&["workspace", "backup"]);
    let out = env.ok(&["workspace", "rollback", "--bulk"]);
    assert!(out.contains("tiered bootstrap off"), "{out}");
    assert_eq!(
        files(&env),
        ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"]
    );

    // The engine's bootstrap (what the plugin calls) returns the host's list unchanged.
    let mut serve = common::cairn();
    serve.current_dir(env.tmp.path()).env("CAIRN_WATCH__SERVE", "false").args([
        "--data-dir",
        env.data.to_str().unwrap(),
        "--workspace",
        env.ws.to_str().unwrap(),
    ]);
    let (child, url) = common::serve(serve);
    let _daemon = common::Daemon(child);
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let host: Vec<serde_json::Value> = ["AGENTS.md", "SOUL.md", "TOOLS.md", "MEMORY.md"]
        .iter()
        .map(|n| serde_json::json!({"name": n, "path": env.ws.join(n), "content": "x", "missing": false}))
        .collect();
    let body = serde_json::json!({"session_key": TOPIC, "files": host, "workspace_dir": env.ws});
    let post = |body: serde_json::Value| {
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let r = common::client(token.trim())
                .post(format!("{url}/v1/bootstrap"))
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            r.json::<serde_json::Value>().await.unwrap()
        })
    };
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap().to_owned()).collect()
    };
    let v = post(body.clone());
    assert_eq!(names(&v), ["AGENTS.md", "SOUL.md", "TOOLS.md", "MEMORY.md"], "{v}");
    assert!(v["removed"].as_array().unwrap().is_empty(), "{v}");

    // Tiered on again: the topic's set.
    env.ok(&["workspace", "tiered", "on"]);
    let v = post(body);
    assert_eq!(names(&v), ["SOUL.md", "CAIRN_CONTEXT.md"], "{v}");
}
