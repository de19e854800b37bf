//! End-to-end tests of the write path through the real `cairn` binary and real SQLite files.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::Env;
use serde_json::Value;

/// The folders every test workspace starts with.
const MEMORY_DIRS: &[&str] = &["memory/daily", "memory/projects"];

impl Env {
    fn harvest(&self, extra: &[&str]) -> Value {
        let mut args = vec!["harvest", "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = self.run(&args);
        assert_eq!(code, 0, "harvest failed: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("bad JSON ({e}): {out}"))
    }

    fn status(&self) -> Value {
        let (code, out, err) = self.run(&["status", "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    }

    fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.data.join("cairn.sqlite")).unwrap()
    }

    fn item_text(&self, id: &str) -> Option<String> {
        self.db().query_row("SELECT text FROM items WHERE id = ?1", [id], |r| r.get(0)).ok()
    }
}

fn counts(r: &Value) -> [u64; 5] {
    ["new", "updated", "unchanged", "deleted", "failed"].map(|k| r[k].as_u64().unwrap())
}

#[test]
fn incremental_harvest_touch_delete_rename() {
    let env = Env::new(MEMORY_DIRS);
    for i in 0..5 {
        env.write(
            &format!("memory/daily/2026-01-0{}.md", i + 1),
            format!("---\ntags: [daily, t{i}]\n---\n# Day {i}\n\nNotes number {i} about apollo.\n"),
        );
    }
    env.write("MEMORY.md", "# Memory\n\nowner facts\n");
    let r = env.harvest(&[]);
    assert_eq!(counts(&r), [6, 0, 0, 0, 0]);

    // Nothing changed: everything skipped.
    assert_eq!(counts(&env.harvest(&[])), [0, 0, 6, 0, 0]);

    // Edit one file: exactly that one is re-indexed.
    env.write("memory/daily/2026-01-03.md", "---\ntags: [daily]\n---\n# Day 2\n\nrewritten\n");
    let r = env.harvest(&[]);
    assert_eq!(counts(&r), [0, 1, 5, 0, 0]);
    assert_eq!(r["files"][0]["path"], "memory/daily/2026-01-03.md");
    assert!(env.item_text("memory-file:memory/daily/2026-01-03.md").unwrap().contains("rewritten"));

    // A pure mtime change with identical bytes is re-hashed and still skipped.
    let f = std::fs::File::options().write(true).open(env.ws.join("MEMORY.md")).unwrap();
    f.set_modified(std::time::SystemTime::now() + Duration::from_secs(5)).unwrap();
    drop(f);
    assert_eq!(counts(&env.harvest(&[])), [0, 0, 6, 0, 0]);

    // Delete one.
    std::fs::remove_file(env.ws.join("memory/daily/2026-01-01.md")).unwrap();
    assert_eq!(counts(&env.harvest(&[])), [0, 0, 5, 1, 0]);
    assert!(env.item_text("memory-file:memory/daily/2026-01-01.md").is_none());

    // Rename one: old id gone, new id present.
    std::fs::rename(env.ws.join("memory/daily/2026-01-02.md"), env.ws.join("memory/projects/renamed.md"))
        .unwrap();
    assert_eq!(counts(&env.harvest(&[])), [1, 0, 4, 1, 0]);
    assert!(env.item_text("memory-file:memory/daily/2026-01-02.md").is_none());
    assert!(env.item_text("memory-file:memory/projects/renamed.md").unwrap().contains("Notes number 1"));

    // --force re-indexes everything; --dry-run writes nothing.
    assert_eq!(counts(&env.harvest(&["--force"])), [0, 5, 0, 0, 0]);
    env.write("memory/new.md", "# New\n\nfresh\n");
    let seq = env.status()["last_seq"].as_u64().unwrap();
    let r = env.harvest(&["--dry-run"]);
    assert_eq!(counts(&r), [1, 0, 5, 0, 0]);
    assert_eq!(env.status()["last_seq"].as_u64().unwrap(), seq, "dry run wrote nothing");
    assert!(env.item_text("memory-file:memory/new.md").is_none());

    // A harvest restricted to one path neither touches nor deletes anything else.
    std::fs::remove_file(env.ws.join("memory/daily/2026-01-04.md")).unwrap();
    let r = env.harvest(&["memory/new.md"]);
    assert_eq!(counts(&r), [1, 0, 0, 0, 0]);
    assert!(env.item_text("memory-file:memory/daily/2026-01-04.md").is_some());
}

#[test]
fn frontmatter_fields_chunks_and_inferred_tags() {
    let env = Env::new(MEMORY_DIRS);
    env.write(
        "memory/projects/apollo.md",
        "---\ntitle: Apollo\nproject: apollo\ntags: [Weather, mobile]\ndate: 2026-03-18\naudience: public\nowner: sam\n---\n# Heading\n\nbody\n",
    );
    let long: String =
        (0..40).map(|i| format!("## Part {i}\n\n{}\n\n", "weather word ".repeat(30))).collect();
    env.write("memory/daily/2026-03-19.md", format!("# Long day\n\n{long}"));
    env.harvest(&[]);
    let db = env.db();
    let row: (String, String, String, String, i64, String) = db
        .query_row(
            "SELECT title, project, tags, audience, created_at, metadata FROM items \
             WHERE id = 'memory-file:memory/projects/apollo.md'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    let (title, project, tags, audience, created, meta) = row;
    assert_eq!((title.as_str(), project.as_str(), audience.as_str()), ("Apollo", "apollo", "public"));
    assert_eq!(tags, r#"["mobile","weather"]"#);
    assert_eq!(created, 1_773_792_000_000, "2026-03-18 UTC");
    assert_eq!(meta, r#"{"owner":"sam"}"#);
    // The long file: several chunks with ordered line ranges, and the vocabulary tag `weather` inferred.
    let (n, tags): (i64, String) = db
        .query_row(
            "SELECT (SELECT count(*) FROM chunks WHERE item_id = i.id), tags FROM items i \
             WHERE id = 'memory-file:memory/daily/2026-03-19.md'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(n >= 5, "{n} chunks");
    assert_eq!(tags, r#"["weather"]"#);
    let prov: String = db
        .query_row(
            "SELECT provenance FROM chunks WHERE item_id = 'memory-file:memory/daily/2026-03-19.md' AND ordinal = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let prov: Value = serde_json::from_str(&prov).unwrap();
    assert!(prov["line_start"].as_u64().unwrap() > 3, "{prov}");
    // Private by default.
    let private: i64 =
        db.query_row("SELECT count(*) FROM items WHERE audience = 'private'", [], |r| r.get(0)).unwrap();
    assert_eq!(private, 1);
}

#[test]
fn bad_files_are_reported_and_never_abort() {
    let env = Env::new(MEMORY_DIRS);
    env.write("memory/good.md", "# Good\n\nfine\n");
    env.write("memory/latin1.md", b"# Caf\xe9\n\nbad bytes\n".as_slice());
    env.write("memory/malformed.md", "---\ntitle: ok\ntags: [a, b\nmore: x\n---\nbody\n");
    env.write("memory/unterminated.md", "---\ntitle: never closed\n\nbody\n");
    env.write("memory/empty.md", "");
    env.write("memory/blank.md", "  \n\n");
    env.write("memory/binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00".as_slice());
    env.write("memory/huge.md", "x".repeat(5 * 1024 * 1024));
    env.write("memory/scalar-frontmatter.md", "---\n- a\n---\nbody\n");
    let (code, out, err) = env.run(&["harvest", "--json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["new"], 3, "good, latin1 and unterminated are indexed");
    assert_eq!(r["failed"], 6);
    let problems = r["problems"].as_array().unwrap();
    let reason = |f: &str| {
        problems.iter().find(|p| p["path"].as_str().unwrap().ends_with(f)).unwrap()["reason"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(reason("malformed.md").contains("malformed frontmatter"));
    assert!(reason("/empty.md").contains("empty"));
    assert!(reason("blank.md").contains("empty"));
    assert!(reason("binary.md").contains("binary"));
    assert!(reason("huge.md").contains("too large"));
    assert!(reason("scalar-frontmatter.md").contains("mapping"));
    // Lines are reported for frontmatter problems, and stderr names path and line.
    let malformed = problems.iter().find(|p| p["path"] == "memory/malformed.md").unwrap();
    assert!(malformed["line"].as_u64().unwrap() >= 3);
    assert!(err.contains("warning: memory/malformed.md:"), "{err}");
    // A legacy encoding is decoded, frontmatter never closed is read as text: each with a warning.
    let warnings = r["warnings"].as_array().unwrap();
    let warning = |f: &str| {
        let w = warnings.iter().find(|w| w["path"] == format!("memory/{f}")).unwrap();
        (w["line"].as_u64(), w["reason"].as_str().unwrap().to_owned())
    };
    assert_eq!(warning("latin1.md"), (Some(1), "not UTF-8: decoded as windows-1252".into()));
    assert_eq!(
        warning("unterminated.md"),
        (Some(1), "frontmatter opened at line 1 is never closed; indexed as text".into())
    );
    assert!(err.contains("warning: memory/latin1.md:1: not UTF-8: decoded as windows-1252"), "{err}");
    assert_eq!(env.item_text("memory-file:memory/latin1.md").unwrap(), "# Café\n\nbad bytes");

    // A good file that turns bad keeps its last good version.
    env.write("memory/good.md", "---\ntitle: [unclosed\n---\nnew body\n");
    let r = env.harvest(&[]);
    assert_eq!(r["failed"], 7);
    assert_eq!(env.item_text("memory-file:memory/good.md").unwrap(), "# Good\n\nfine");
}

fn capture(env: &Env, turn: Value, extra: &[&str]) -> Value {
    use std::io::Write;
    let mut cmd = env.cmd();
    cmd.arg("capture").args(extra).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(turn.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn capture_strips_injected_blocks_and_is_idempotent() {
    let env = Env::new(MEMORY_DIRS);
    let turn = serde_json::json!({
        "session_key": "agent:main:telegram:direct:42",
        "turn_id": "t1",
        "user": "<cairn-context>\n## Retrieved Context\nold memory\n</cairn-context>\n\n<pack-context intent=\"ops\"><graphiti-context>nested</graphiti-context>steps</pack-context>\nHow do I unlock the backup repo?",
        "assistant": "Run `restic unlock`.<relevant-memories>leak",
        "timestamp": "2026-03-18T10:00:00Z"
    });
    let r = capture(&env, turn.clone(), &["--audience", "private"]);
    assert_eq!(r["status"], "stored");
    let item = "turn:agent:main:telegram:direct:42:t1";
    let text = env.item_text(item).unwrap();
    assert_eq!(text, "User: How do I unlock the backup repo?\n\nAssistant: Run `restic unlock`.");
    for leaked in ["old memory", "nested", "steps", "leak", "Retrieved Context"] {
        assert!(!text.contains(leaked), "{leaked} leaked into {text}");
    }
    // The same turn again: a duplicate, nothing written.
    let seq = env.status()["last_seq"].as_u64().unwrap();
    assert_eq!(capture(&env, turn, &[])["status"], "duplicate");
    assert_eq!(env.status()["last_seq"].as_u64().unwrap(), seq);
    // A failed run is skipped; a turn that is only injected context is skipped.
    let failed = serde_json::json!({"session_key": "s", "user": "hi", "assistant": "x", "success": false});
    assert_eq!(capture(&env, failed, &[])["status"], "skipped");
    let only = serde_json::json!({"session_key": "s", "user": "<cairn-context>x</cairn-context>"});
    assert_eq!(capture(&env, only, &[])["status"], "skipped");
    // Without a turn id the id derives from the content: a replay is still a duplicate.
    let anon = serde_json::json!({"session_key": "s", "user": "q", "assistant": "a", "timestamp": 1000});
    assert_eq!(capture(&env, anon.clone(), &["--audience", "public"])["status"], "stored");
    assert_eq!(capture(&env, anon, &[])["status"], "duplicate");
    let st = env.status();
    assert_eq!(st["turns"], 2);
    assert_eq!(st["per_audience"]["public"], 1);
    // Malformed input is a clear error.
    let out = env.cmd().arg("capture").stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("parsing the turn JSON"));
}

/// `cairn capture` stores the turn and makes it searchable, and leaves embedding to whoever follows
/// the store (the daemon, the next harvest): it never waits for a backlog of chunks without vectors.
#[test]
fn capture_does_not_wait_for_the_embedding_backlog() {
    let Some(model) = cairn_embed::testing::real_model_dir() else { return };
    let env = Env::new(MEMORY_DIRS);
    for i in 0..300 {
        env.write(
            &format!("memory/note-{i}.md"),
            format!("# Note {i}\n\nThe heron count on day {i} was {}.\n", i * 7),
        );
    }
    // Harvested without a model: 300 notes without vectors, a backlog.
    let out = env.cmd().env("CAIRN_EMBED__PROVIDER", "none").arg("harvest").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let vectors = || {
        let db = rusqlite::Connection::open(env.data.join("cairn.sqlite")).unwrap();
        db.query_row("SELECT count(*) FROM vectors", [], |r| r.get::<_, i64>(0)).unwrap()
    };
    assert_eq!(vectors(), 0);

    use std::io::Write;
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__MODEL", &model)
        .arg("capture")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let turn = serde_json::json!({"session_key": "agent:main:main", "user": "hi, what about the kestrel?", "assistant": "hello"});
    child.stdin.take().unwrap().write_all(turn.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    eprintln!("capture took {took:?}");
    assert_eq!(vectors(), 0, "capture embedded the backlog");
    // Searchable at once by its words.
    let hits = env.ok(&["recall", "kestrel", "--json", "--lanes", "lexical"]);
    assert!(hits.contains("turn:agent:main:main"), "{hits}");
}

#[test]
fn killed_mid_harvest_leaves_a_consistent_store() {
    let env = Env::new(MEMORY_DIRS);
    let body = "Lorem ipsum dolor sit amet, apollo harbor weather. ".repeat(40);
    for i in 0..6000 {
        env.write(
            &format!("memory/bulk/{:02}/note-{i}.md", i % 50),
            format!("---\ntags: [bulk]\n---\n# Note {i}\n\n{body}\n"),
        );
    }
    // Start a harvest and kill it as soon as its first batches are committed, so the kill lands mid-write.
    let item_count = || -> Option<i64> {
        let db = rusqlite::Connection::open_with_flags(
            env.data.join("cairn.sqlite"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .ok()?;
        db.query_row("SELECT count(*) FROM items", [], |r| r.get(0)).ok()
    };
    let mut partial_seen = false;
    for _attempt in 0..3 {
        let mut child = env
            .cmd()
            .args(["harvest", "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if item_count().unwrap_or(0) > 0 || child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
        let db = env.db();
        let ok: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(ok, "ok");
        let n: i64 = db.query_row("SELECT count(*) FROM items", [], |r| r.get(0)).unwrap();
        partial_seen |= n > 0 && n < 6000;
        // Every item has its chunks and file state: batches are atomic.
        let orphans: i64 = db
            .query_row(
                "SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.item_id = i.id) \
                 OR NOT EXISTS (SELECT 1 FROM files f WHERE f.item_id = i.id)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphans, 0);
        let logged: i64 =
            db.query_row("SELECT count(DISTINCT item_id) FROM ingest_log", [], |r| r.get(0)).unwrap();
        assert_eq!(logged, n, "the ingest log matches the items");
    }
    assert!(partial_seen, "no kill landed mid-harvest");
    let r = env.harvest(&[]);
    let st = env.status();
    assert_eq!(st["items"], 6000, "{r}");
    assert_eq!(r["failed"], 0);
    assert_eq!(counts(&env.harvest(&[])), [0, 0, 6000, 0, 0]);
}

#[test]
fn a_first_version_store_is_migrated() {
    let env = Env::new(MEMORY_DIRS);
    std::fs::create_dir_all(&env.data).unwrap();
    {
        let v1 = cairn_store::SqliteStore::open_at_version(&env.data.join("cairn.sqlite"), 1).unwrap();
        assert_eq!(v1.schema_version().unwrap(), 1);
    }
    env.write("memory/a.md", "# A\n\ntext\n");
    env.harvest(&[]);
    let st = env.status();
    assert_eq!(st["schema_version"], cairn_store::SCHEMA_VERSION);
    assert_eq!(st["items"], 1);
    assert!(st["last_harvest"]["finished_at"].as_i64().is_some());
}

fn wait_for(mut cond: impl FnMut() -> bool, what: &str) -> Duration {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if cond() {
            return start.elapsed();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

struct Kill(std::process::Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn watch_reindexes_saves_renames_and_deleted_folders() {
    let env = Env::new(MEMORY_DIRS);
    env.write("memory/projects/a.md", "# A\n\nfirst\n");
    env.write("memory/old/x.md", "# X\n\nin a folder\n");
    let child = env.cmd().arg("watch").stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let _guard = Kill(child);
    wait_for(
        || env.data.join("cairn.sqlite").exists() && env.item_text("memory-file:memory/old/x.md").is_some(),
        "initial harvest",
    );
    std::thread::sleep(Duration::from_millis(300));

    // A plain save.
    env.write("memory/projects/a.md", "# A\n\nsecond\n");
    let took = wait_for(
        || env.item_text("memory-file:memory/projects/a.md").is_some_and(|t| t.contains("second")),
        "save",
    );
    assert!(took < Duration::from_secs(3), "took {took:?}");

    // An editor's rename-and-replace save.
    let tmp = env.ws.join("memory/projects/.a.md.swp");
    std::fs::write(&tmp, "# A\n\nthird\n").unwrap();
    std::fs::rename(&tmp, env.ws.join("memory/projects/a.md")).unwrap();
    wait_for(
        || env.item_text("memory-file:memory/projects/a.md").is_some_and(|t| t.contains("third")),
        "rename save",
    );

    // A new file and a deleted folder.
    env.write("memory/daily/2026-05-01.md", "# May\n\nnew day\n");
    wait_for(|| env.item_text("memory-file:memory/daily/2026-05-01.md").is_some(), "new file");
    std::fs::remove_dir_all(env.ws.join("memory/old")).unwrap();
    wait_for(|| env.item_text("memory-file:memory/old/x.md").is_none(), "deleted folder");
    assert!(env.item_text("memory-file:memory/projects/a.md").is_some(), "others untouched");
}

#[test]
fn watch_json_prints_one_event_per_line() {
    use std::io::BufRead;
    let env = Env::new(MEMORY_DIRS);
    env.write("memory/a.md", "# A\n\nfirst\n");
    let mut child =
        env.cmd().args(["watch", "--json"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let _guard = Kill(child);
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(
        (first["event"].as_str(), first["report"]["new"].as_u64()),
        (Some("harvested"), Some(1)),
        "{first}"
    );
    std::thread::sleep(Duration::from_millis(300));
    env.write("memory/b.md", "# B\n\nsecond\n");
    let next: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(
        (next["event"].as_str(), next["report"]["new"].as_u64()),
        (Some("reindexed"), Some(1)),
        "{next}"
    );
}

#[test]
fn init_writes_a_config_that_parses() {
    let env = Env::new(MEMORY_DIRS);
    let dir = env.ws.parent().unwrap();
    let (code, _, err) = env.run(&["init"]);
    assert_eq!(code, 0, "{err}");
    let cfg = dir.join("cairn.toml");
    assert!(std::fs::read_to_string(&cfg).unwrap().contains("[harvest]"));
    let (code, _, err) = env.run(&["init"]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists"));
    // The written file is picked up from the current directory and is valid.
    let (code, out, err) = env.run(&["harvest", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"scanned\""));
    // A bad value names the file and the problem.
    std::fs::write(&cfg, "[harvest]\ndefault_audience = \"everyone\"\n").unwrap();
    let (code, _, err) = env.run(&["status"]);
    assert_eq!(code, 2);
    assert!(err.contains("cairn.toml") && err.contains("everyone"), "{err}");
}

#[test]
fn forget_removes_turns_from_every_surface_and_refuses_memory_files() {
    let env = Env::new(MEMORY_DIRS);
    env.write("memory/boat.md", "# Boat\n\nThe sailing boat is moored at pier nine.\n");
    env.ok(&["harvest"]);
    let turn = serde_json::json!({"session_key": "agent:main:main", "user": "the kestrel nests on the tower", "assistant": "noted"});
    assert_eq!(capture(&env, turn, &[])["status"], "stored");
    assert!(env.ok(&["recall", "kestrel", "--json"]).contains("kestrel"));
    // A dry run removes nothing.
    let dry = env.ok(&["forget", "--session", "agent:main:main", "--dry-run", "--json"]);
    let v: Value = serde_json::from_str(&dry).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), 1, "{v}");
    assert!(env.ok(&["recall", "kestrel", "--json"]).contains("kestrel"));
    env.ok(&["forget", "--session", "agent:main:main"]);
    let after: Value = serde_json::from_str(&env.ok(&["recall", "kestrel", "--json"])).unwrap();
    assert!(after["hits"].as_array().unwrap().is_empty(), "{after}");
    assert_eq!(env.status()["turns"], 0);
    // A memory file is refused with a hint, exit 1; naming nothing is an error, exit 2.
    let (code, _, err) = env.run(&["forget", "memory-file:memory/boat.md"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("edit `memory/boat.md`"), "{err}");
    assert!(env.ok(&["recall", "sailing boat", "--json"]).contains("boat"));
    let (code, _, err) = env.run(&["forget"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn retention_forgets_old_turns_and_keeps_notes_and_new_turns() {
    let env = Env::new(MEMORY_DIRS);
    let old = serde_json::json!({"session_key": "agent:main:main", "turn_id": "old", "user": "the heron left in spring",
        "assistant": "noted", "timestamp": "2020-01-01T00:00:00Z"});
    let new = serde_json::json!({"session_key": "agent:main:main", "turn_id": "new", "user": "the heron came back",
        "assistant": "noted"});
    assert_eq!(capture(&env, old, &[])["status"], "stored");
    assert_eq!(capture(&env, new, &[])["status"], "stored");
    // Off by default: nothing expires.
    let (code, _, err) = env.run(&["forget", "--expired"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("retention_days"), "{err}");
    let out = env
        .cmd()
        .env("CAIRN_CAPTURE__RETENTION_DAYS", "30")
        .args(["forget", "--expired", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["items"], serde_json::json!(["turn:agent:main:main:old"]), "{v}");
    let hits = env.ok(&["recall", "heron", "--json"]);
    assert!(hits.contains("came back") && !hits.contains("left in spring"), "{hits}");
}
