//! Harvest safety through the real `cairn` binary: it never deletes what it could not see, refuses mass
//! deletions, reports every entry it skips and every frontmatter value it ignores, resolves path
//! arguments against the workspace and the current directory, and checks frontmatter limits before
//! parsing (so hostile frontmatter costs linear time). Unix only (permissions, FIFOs, symlinks, names
//! that are not UTF-8).
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// `nobody`: a user the kernel holds to file permissions (root reads a `chmod 000` folder anyway).
const NOBODY: u32 = 65534;

struct Env {
    tmp: tempfile::TempDir,
    ws: PathBuf,
    data: PathBuf,
    /// Run the binary as `nobody` through `setpriv` (from a copy `nobody` can execute).
    as_nobody: Option<PathBuf>,
}

impl Env {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        let data = tmp.path().join("data");
        std::fs::create_dir_all(ws.join("memory")).unwrap();
        Env { tmp, ws, data, as_nobody: None }
    }

    /// An env whose commands run as a user that file permissions apply to: the current user when it
    /// is not privileged, else `nobody` through `setpriv`. `None` (with the reason printed) when
    /// neither is possible.
    fn unprivileged() -> Option<Self> {
        let mut env = Env::new();
        if !privileged(env.tmp.path()) {
            return Some(env);
        }
        let setpriv_works = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !setpriv_works {
            eprintln!("running as root without a working `setpriv`: the permission assertions are skipped");
            return None;
        }
        // `nobody` must execute the binary (the target dir may sit under a private home) and own the
        // temporary directory (the store is created there).
        let bin = env.tmp.path().join("bin/cairn");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_cairn"), &bin).unwrap();
        for p in [env.tmp.path(), bin.parent().unwrap(), bin.as_path()] {
            std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        set_mode(env.tmp.path(), 0o755);
        if privileged_as_nobody(&env) {
            eprintln!("`nobody` still reads a chmod 000 folder: the permission assertions are skipped");
            return None;
        }
        env.as_nobody = Some(bin);
        Some(env)
    }

    fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn cmd(&self) -> Command {
        let mut c = match &self.as_nobody {
            Some(bin) => {
                let mut c = Command::new("setpriv");
                c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(bin);
                c
            }
            None => common::cairn(),
        };
        c.env("CAIRN_EMBED__PROVIDER", "none");
        common::in_dirs(c, &self.ws, &self.data)
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd().args(args).output().unwrap();
        common::output(&out)
    }

    fn harvest(&self, extra: &[&str]) -> (Value, String) {
        let mut args = vec!["harvest", "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = self.run(&args);
        assert_eq!(code, 0, "harvest {extra:?} failed: {err}");
        (serde_json::from_str(&out).unwrap_or_else(|e| panic!("bad JSON ({e}): {out}")), err)
    }

    fn item_ids(&self) -> Vec<String> {
        let ids = {
            let db = rusqlite::Connection::open(self.data.join("cairn.sqlite")).unwrap();
            let mut stmt = db.prepare("SELECT id FROM items ORDER BY id").unwrap();
            stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
        };
        self.give_back_store();
        ids
    }

    fn item_text(&self, id: &str) -> Option<String> {
        let text = {
            let db = rusqlite::Connection::open(self.data.join("cairn.sqlite")).unwrap();
            db.query_row("SELECT text FROM items WHERE id = ?1", [id], |r| r.get(0)).ok()
        };
        self.give_back_store();
        text
    }

    /// Files this (root) process created next to the store (`-wal`, `-shm`) go back to `nobody`.
    fn give_back_store(&self) {
        if self.as_nobody.is_some() {
            for e in std::fs::read_dir(&self.data).unwrap() {
                std::os::unix::fs::chown(e.unwrap().path(), Some(NOBODY), Some(NOBODY)).unwrap();
            }
        }
    }
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether this process reads a folder it made unreadable (root, or CAP_DAC_OVERRIDE).
fn privileged(scratch: &Path) -> bool {
    let probe = scratch.join("probe");
    std::fs::create_dir(&probe).unwrap();
    set_mode(&probe, 0o000);
    let readable = std::fs::read_dir(&probe).is_ok();
    set_mode(&probe, 0o755);
    std::fs::remove_dir(&probe).unwrap();
    readable
}

fn privileged_as_nobody(env: &Env) -> bool {
    let probe = env.tmp.path().join("probe");
    std::fs::create_dir(&probe).unwrap();
    set_mode(&probe, 0o000);
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "ls"])
        .arg(&probe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    set_mode(&probe, 0o755);
    std::fs::remove_dir(&probe).unwrap();
    out.success()
}

fn counts(r: &Value) -> [u64; 6] {
    ["new", "updated", "unchanged", "deleted", "failed", "kept"].map(|k| r[k].as_u64().unwrap_or(0))
}

fn entry<'a>(list: &'a Value, path: &str) -> &'a Value {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .find(|p| p["path"] == path)
        .unwrap_or_else(|| panic!("`{path}` not in {list:#}"))
}

fn five_notes(env: &Env) {
    for i in 0..3 {
        env.write(&format!("memory/note-{i}.md"), format!("# Note {i}\n\nabout apollo {i}\n"));
    }
    for i in 0..2 {
        env.write(&format!("memory/sub/deep-{i}.md"), format!("# Deep {i}\n\nabout hermes {i}\n"));
    }
}

#[test]
fn unreadable_folders_keep_their_notes() {
    let Some(env) = Env::unprivileged() else { return };
    five_notes(&env);
    let (r, _) = env.harvest(&[]);
    assert_eq!(counts(&r), [5, 0, 0, 0, 0, 0]);

    // The whole memory folder unreadable: reported with path and reason, nothing deleted.
    set_mode(&env.ws.join("memory"), 0o000);
    let (r, err) = env.harvest(&[]);
    set_mode(&env.ws.join("memory"), 0o755);
    assert_eq!(counts(&r), [0, 0, 0, 0, 0, 5], "{r:#}");
    let p = entry(&r["problems"], "memory");
    assert!(p["reason"].as_str().unwrap().contains("ermission denied"), "{p}");
    assert!(err.contains("warning: memory: cannot read"), "{err}");
    assert_eq!(env.item_ids().len(), 5);

    // An unreadable subfolder keeps its two notes; the others are looked at as usual.
    set_mode(&env.ws.join("memory/sub"), 0o000);
    let (r, err) = env.harvest(&["--verbose"]);
    set_mode(&env.ws.join("memory/sub"), 0o755);
    assert_eq!(counts(&r), [0, 0, 3, 0, 0, 2], "{r:#}");
    entry(&r["problems"], "memory/sub");
    assert_eq!(entry(&r["files"], "memory/sub/deep-0.md")["action"], "kept");
    assert!(err.contains("warning: memory/sub: cannot read"), "{err}");
    assert_eq!(env.item_ids().len(), 5);

    // Readable again: nothing to do.
    let (r, _) = env.harvest(&[]);
    assert_eq!(counts(&r), [0, 0, 5, 0, 0, 0]);
}

#[test]
fn an_empty_or_missing_workspace_deletes_nothing() {
    let env = Env::new();
    five_notes(&env);
    env.write("MEMORY.md", "# Memory\n\nowner facts\n");
    env.harvest(&[]);
    assert_eq!(env.item_ids().len(), 6);

    // An empty workspace (an unmounted folder, a wrong path) refuses, names the counts, deletes nothing.
    let moved = env.tmp.path().join("moved");
    std::fs::rename(&env.ws, &moved).unwrap();
    std::fs::create_dir(&env.ws).unwrap();
    let (code, _, err) = env.run(&["harvest"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("refusing to delete 6 of the 6 files"), "{err}");
    assert!(err.contains("no memory file") && err.contains("--allow-mass-delete"), "{err}");
    assert_eq!(env.item_ids().len(), 6);

    // A workspace whose memory folder is gone but which still has other files: the same.
    std::fs::write(env.ws.join("README.txt"), "not a memory file").unwrap();
    let (code, _, err) = env.run(&["harvest", "--dry-run"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("refusing to delete 6 of the 6 files"), "{err}");

    // A missing workspace is an error too.
    std::fs::remove_dir_all(&env.ws).unwrap();
    let (code, _, err) = env.run(&["harvest"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert_eq!(env.item_ids().len(), 6);

    // Asked for explicitly, the deletion happens.
    std::fs::create_dir(&env.ws).unwrap();
    let (r, _) = env.harvest(&["--allow-mass-delete"]);
    assert_eq!(counts(&r), [0, 0, 0, 6, 0, 0]);
    assert!(env.item_ids().is_empty());
}

#[test]
fn deleting_more_than_the_configured_share_refuses() {
    let env = Env::new();
    for i in 0..10 {
        env.write(&format!("memory/n{i}.md"), format!("# N{i}\n\ntext {i}\n"));
    }
    env.harvest(&[]);
    for i in 0..6 {
        std::fs::remove_file(env.ws.join(format!("memory/n{i}.md"))).unwrap();
    }
    let (code, _, err) = env.run(&["harvest"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("refusing to delete 6 of the 10 files") && err.contains("60%"), "{err}");
    assert!(err.contains("harvest.max_delete_share"), "{err}");
    assert_eq!(env.item_ids().len(), 10);

    // A dry run with the override lists what would go, and writes nothing.
    let (code, out, err) = env.run(&["harvest", "--dry-run", "--allow-mass-delete", "--verbose"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("  deleted  memory/n").count(), 6, "{out}");
    assert_eq!(env.item_ids().len(), 10);

    // A higher configured share allows it.
    let out = env.cmd().env("CAIRN_HARVEST__MAX_DELETE_SHARE", "0.7").args(["harvest", "--json"]).output();
    let (code, out, err) = common::output(&out.unwrap());
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(counts(&r), [0, 0, 4, 6, 0, 0]);
    assert_eq!(env.item_ids().len(), 4);
}

#[test]
fn skipped_entries_are_reported_and_never_merged() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    env.write("memory/good.md", "# Good\n\nfine\n");
    let secret = env.tmp.path().join("secret.md");
    std::fs::write(&secret, "# Secret\n\nthe vault pin is 9131\n").unwrap();
    std::fs::create_dir(env.tmp.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(&secret, env.ws.join("memory/outside.md")).unwrap();
    std::os::unix::fs::symlink(env.tmp.path().join("elsewhere"), env.ws.join("memory/ext")).unwrap();
    std::os::unix::fs::symlink("loop.md", env.ws.join("memory/loop.md")).unwrap();
    let fifo = env.ws.join("memory/pipe.md");
    let have_fifo = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if !have_fifo {
        eprintln!("no `mkfifo`: the FIFO assertion is skipped");
    }
    // Two names that are not UTF-8 and would both read `caf\u{FFFD}.md` if converted lossily.
    for b in [0xe9u8, 0xe8] {
        let name = std::ffi::OsStr::from_bytes(&[b"caf".as_slice(), &[b], b".md"].concat()).to_owned();
        std::fs::write(env.ws.join("memory").join(name), format!("# Cafe {b}\n\nlatin-1 name\n")).unwrap();
    }

    let (r, err) = env.harvest(&[]);
    assert_eq!(counts(&r), [1, 0, 0, 0, 0, 0], "{r:#}");
    let skipped = &r["skipped_entries"];
    let reason = |path: &str| entry(skipped, path)["reason"].as_str().unwrap().to_owned();
    assert!(reason("memory/outside.md").contains("outside the workspace"), "{skipped:#}");
    assert!(reason("memory/ext").contains("outside the workspace"), "{skipped:#}");
    assert!(reason("memory/loop.md").contains("symlink loop"), "{skipped:#}");
    assert!(reason("memory/caf\\xE9.md").contains("not valid UTF-8"), "{skipped:#}");
    assert!(reason("memory/caf\\xE8.md").contains("not valid UTF-8"), "{skipped:#}");
    if have_fifo {
        assert!(reason("memory/pipe.md").contains("FIFO"), "{skipped:#}");
        assert!(err.contains("skipped: memory/pipe.md: not a regular file (a FIFO)"), "{err}");
    }
    assert_eq!(r["skipped"], skipped.as_array().unwrap().len());
    assert!(err.contains("skipped: memory/outside.md: symlink to"), "{err}");
    assert_eq!(env.item_ids(), ["memory-file:memory/good.md"]);

    // The text summary says so too.
    let (code, out, _) = env.run(&["harvest"]);
    assert_eq!(code, 0);
    assert!(out.contains(&format!("{} skipped", skipped.as_array().unwrap().len())), "{out}");
}

#[test]
fn unusable_frontmatter_values_are_warnings_and_the_file_is_indexed() {
    let env = Env::new();
    env.write(
        "memory/x.md",
        "---\ndate: someday soon\ntags: [alpha, [beta, gamma]]\ntitle: X\n---\n# X\n\nbody text\n",
    );
    let (r, err) = env.harvest(&[]);
    assert_eq!(counts(&r), [1, 0, 0, 0, 0, 0], "{r:#}");
    let warnings = r["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert_eq!((warnings[0]["path"].as_str(), warnings[0]["line"].as_u64()), (Some("memory/x.md"), Some(2)));
    assert!(warnings[0]["reason"].as_str().unwrap().contains("`someday soon` is not a date"));
    assert_eq!(warnings[1]["line"], 3);
    assert!(warnings[1]["reason"].as_str().unwrap().contains("entry 2 is a list"));
    assert!(err.contains("warning: memory/x.md:2: frontmatter `date`"), "{err}");
    assert!(err.contains("warning: memory/x.md:3: frontmatter `tags`"), "{err}");
    assert!(env.item_text("memory-file:memory/x.md").unwrap().contains("body text"));
}

#[test]
fn path_arguments_resolve_inside_the_workspace_or_fail() {
    let env = Env::new();
    env.write("memory/a.md", "# A\n\nfirst\n");
    env.write("memory/b.md", "# B\n\nsecond\n");
    // The command runs in the workspace's parent: `ws/memory/a.md` is relative to the current dir.
    let (r, _) = env.harvest(&["ws/memory/a.md"]);
    assert_eq!(counts(&r), [1, 0, 0, 0, 0, 0], "{r:#}");
    assert_eq!(r["files"][0]["path"], "memory/a.md");
    // Relative to the workspace, and absolute.
    let (r, _) = env.harvest(&["memory/b.md"]);
    assert_eq!(counts(&r), [1, 0, 0, 0, 0, 0], "{r:#}");
    let abs = env.ws.join("memory/a.md");
    let (r, _) = env.harvest(&[abs.to_str().unwrap()]);
    assert_eq!(counts(&r), [0, 0, 1, 0, 0, 0], "{r:#}");
    // A deleted file is still a valid argument: its stored item goes.
    std::fs::remove_file(env.ws.join("memory/b.md")).unwrap();
    let (r, _) = env.harvest(&["ws/memory/b.md"]);
    assert_eq!(counts(&r), [0, 0, 0, 1, 0, 0], "{r:#}");

    let ws = env.ws.canonicalize().unwrap();
    // Outside the workspace: exit 2, naming the workspace.
    let outside = env.tmp.path().join("outside.md");
    std::fs::write(&outside, "# Out\n").unwrap();
    let (code, _, err) = env.run(&["harvest", outside.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the workspace") && err.contains(&ws.display().to_string()), "{err}");
    let (code, _, err) = env.run(&["harvest", "../outside.md"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&ws.display().to_string()), "{err}");
    // Nothing by that name anywhere: exit 2, naming the workspace.
    let (code, _, err) = env.run(&["harvest", "memory/typo.md"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not in the workspace") && err.contains(&ws.display().to_string()), "{err}");
    assert_eq!(env.item_ids(), ["memory-file:memory/a.md"]);
}

/// Run `cmd` for at most `limit`; the elapsed time, or `None` if it had to be killed.
fn timed(mut cmd: Command, limit: Duration) -> (Option<Duration>, Output) {
    let started = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut took = None;
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            took = Some(started.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if took.is_none() {
        let _ = child.kill();
    }
    (took, child.wait_with_output().unwrap())
}

#[test]
fn hostile_frontmatter_is_rejected_before_parsing() {
    let env = Env::new();
    let tags: Vec<String> = (0..150_000).map(|i| format!("t{i}")).collect();
    env.write("memory/tags.md", format!("---\ntags: [{}]\n---\n# Tags\n\nbody of tags\n", tags.join(", ")));
    let nested =
        format!("---\na: {}{}\n---\n# Nested\n\nbody of nested\n", "[".repeat(100_000), "]".repeat(100_000));
    env.write("memory/nested.md", nested);
    env.write("memory/many.md", format!("---\ntags: [{}]\n---\nbody of many\n", tags[..300].join(", ")));
    env.write("memory/deep.md", format!("---\na: {}{}\n---\nbody of deep\n", "[".repeat(40), "]".repeat(40)));

    // Each file on its own, then all four: a debug binary gets 5 s (it starts, opens a store, harvests),
    // a release one 2 s; the parser alone took tens of seconds on the first two.
    let limit = if cfg!(debug_assertions) { Duration::from_secs(5) } else { Duration::from_secs(2) };
    let mut r = Value::Null;
    let mut err = String::new();
    for args in [&["memory/tags.md"][..], &["memory/nested.md"], &["--force"]] {
        let mut cmd = env.cmd();
        cmd.args(["harvest", "--json"]).args(args);
        let (took, out) = timed(cmd, limit);
        let (code, out, stderr) = common::output(&out);
        let took = took.unwrap_or_else(|| panic!("harvest {args:?} took longer than {limit:?}"));
        eprintln!("harvest {args:?}: {took:?}");
        assert_eq!(code, 0, "{stderr}");
        (r, err) = (serde_json::from_str(&out).unwrap(), stderr);
    }
    assert_eq!(counts(&r), [2, 2, 0, 0, 0, 0], "{r:#}");
    let warning = |path: &str| {
        let w = entry(&r["warnings"], path);
        (w["line"].as_u64().unwrap(), w["reason"].as_str().unwrap().to_owned())
    };
    let (line, reason) = warning("memory/tags.md");
    assert!(
        line == 1 && reason.contains("over the limit of 65536") && reason.contains("body is indexed"),
        "{reason}"
    );
    let (line, reason) = warning("memory/nested.md");
    assert!(line == 1 && reason.contains("max_frontmatter_bytes"), "{reason}");
    let (line, reason) = warning("memory/many.md");
    assert!(line == 2 && reason.contains("300 tags, over the limit of 256"), "{reason}");
    let (line, reason) = warning("memory/deep.md");
    assert!(line == 2 && reason.contains("deeper than 32 levels"), "{reason}");
    assert!(err.contains("warning: memory/tags.md:1: frontmatter is"), "{err}");
    for (id, body) in [("tags", "body of tags"), ("nested", "body of nested"), ("many", "body of many")] {
        let text = env.item_text(&format!("memory-file:memory/{id}.md")).unwrap();
        assert!(text.contains(body), "{id}: {text}");
    }

    // The limits are settings.
    let out = env
        .cmd()
        .env("CAIRN_HARVEST__MAX_TAGS", "1000")
        .args(["harvest", "--json", "--force", "memory/many.md"])
        .output()
        .unwrap();
    let (code, out, err) = common::output(&out);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert!(r.get("warnings").is_none(), "{r:#}");
    let db = rusqlite::Connection::open(env.data.join("cairn.sqlite")).unwrap();
    let tags: String = db
        .query_row("SELECT tags FROM items WHERE id = 'memory-file:memory/many.md'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(serde_json::from_str::<Vec<String>>(&tags).unwrap().len(), 300);
}

#[test]
fn init_writes_the_new_settings() {
    let env = Env::new();
    let (code, _, err) = env.run(&["init"]);
    assert_eq!(code, 0, "{err}");
    let cfg = std::fs::read_to_string(env.ws.parent().unwrap().join("cairn.toml")).unwrap();
    for key in [
        "max_delete_share = 0.5",
        "max_frontmatter_bytes = 65536",
        "max_tags = 256",
        "max_frontmatter_depth = 32",
    ] {
        assert!(cfg.contains(key), "`{key}` missing from\n{cfg}");
    }
    let (code, _, err) = env.run(&["harvest"]);
    assert_eq!(code, 0, "the written config parses: {err}");
}
