//! `cairn boundary audit` through the real binary: `examples/` against the private overlay fixture,
//! a git repository with a leak of each kind, the output formats and the exit codes.
//!
//! Addresses, numbers and keys planted below are split by `~` (dropped before they are written), so
//! that this file is not itself a leak: the repository is audited with the same rules.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_test::copy_dir;

fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel).canonicalize().unwrap()
}

fn fixture(rel: &str) -> PathBuf {
    repo_path(&format!("tests/data/boundary/{rel}"))
}

/// `git` or `cairn` blind to a `GIT_DIR` the caller may have set (a hook, say).
fn without_git_env(mut cmd: Command) -> Command {
    for var in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"] {
        cmd.env_remove(var);
    }
    cmd
}

/// `cairn boundary audit ROOT ARGS...`: exit code, stdout, stderr.
fn audit(root: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = without_git_env(common::cairn());
    cmd.args(["boundary", "audit"]).arg(root).args(args);
    common::output(&cmd.output().unwrap())
}

/// The `--json` report's violations (or warnings) as `(path, line, rule)`.
fn findings(json: &str, key: &str) -> Vec<(String, Option<u64>, String)> {
    let report: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["line"].as_u64(),
                f["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn finding(path: &str, line: Option<u64>, rule: &str) -> (String, Option<u64>, String) {
    (path.to_owned(), line, rule.to_owned())
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text.replace('~', "")).unwrap();
}

fn append(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    let mut body = std::fs::read_to_string(&p).unwrap();
    body.push_str(text);
    std::fs::write(p, body).unwrap();
}

fn git(root: &Path, args: &[&str]) {
    let mut cmd = without_git_env(Command::new("git"));
    let out = cmd.arg("-C").arg(root).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn examples_args() -> Vec<String> {
    let p = |rel: &str| fixture(rel).to_string_lossy().into_owned();
    vec![
        "--allow".into(),
        p("examples-allow.yaml"),
        "--deny".into(),
        p("examples-deny.yaml"),
        "--private-dir".into(),
        p("overlay"),
        "--strict".into(),
    ]
}

#[test]
fn the_examples_pass_and_overlay_content_copied_into_them_is_found() {
    let args = examples_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = audit(&repo_path("examples"), &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 violations") && out.ends_with("; passed\n"), "{out}");
    // The example packs marked private are exempted by the fixture allowlist, and said so.
    assert!(out.contains("5 exempted by the allowlist (private-pack 5)"), "{out}");

    // A copy (not a git work tree: every file is walked) with the overlay's words planted.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("examples");
    copy_dir(&repo_path("examples"), &copy);
    let memory = "workspace/MEMORY.md";
    let lines = std::fs::read_to_string(copy.join(memory)).unwrap().lines().count() as u64;
    append(
        &copy,
        memory,
        "\n- Weigh each bird before the morning flight and log the weight to the gram.\n\
         - Ask the falconer_aide about the Creance  Line.\n\
         - Routed by the apiary_audit rule to hive_inspection.\n\
         - Owner 40411123 gets the mews booking.\n\
         - A lure and a thread are fine (too short, or not the overlay's).\n",
    );
    write(&copy, "config/packs/raptor_notes.pack.yaml", "name: raptor_notes\nscope: private\n");
    write(&copy, "private/notes.md", "kept out by the denylist\n");
    let mut json_args = args.clone();
    json_args.push("--json");
    let (code, out, err) = audit(&copy, &json_args);
    assert_eq!(code, 1, "{out}{err}");
    let l = |n: u64| Some(lines + n);
    assert_eq!(
        findings(&out, "violations"),
        [
            finding("private/notes.md", None, "denied"),
            finding(memory, l(2), "private-pack-text"),
            finding(memory, l(3), "private-keyword"),
            finding(memory, l(3), "private-profile"),
            finding(memory, l(4), "private-intent"),
            finding(memory, l(4), "private-pack-id"),
            finding(memory, l(5), "private-keyword"),
            finding(memory, l(5), "private-owner-id"),
        ]
    );
    // The planted pack is exempted like the example packs (same allowlist entry): six now.
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["exempted"].as_array().unwrap().len(), 6);
    assert_eq!(report["source"], "walk");
}

/// A repository with a leak of each kind: which files git tracks decides what is audited.
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        git(&root, &["init", "-q"]);
        write(
            &root,
            "boundary/allow.yaml",
            "schema_version: 1\nallow:\n  - README.md\n  - boundary/*.yaml\n  - docs/\n  - src/\n  - config/\n  - keys/\n",
        );
        write(&root, "boundary/deny.yaml", "schema_version: 1\ndeny:\n  - \"**/*.pem\"\n");
        write(&root, "README.md", "# Demo\n\nMail ada@example.com or call (919) 555-0142.\n");
        write(
            &root,
            "docs/guide.md",
            "# Guide\n\
             Routes to falconry.\n\
             Keywords such as varroa count.\n\
             The apiary_inspector profile.\n\
             The hive_inspection pack.\n\
             Owner 40411123.\n\
             Count mites on the sticky board after three days and note the count per hive.\n\
             Mail jane@~corp-mail.io.\n\
             Call (919) 867-~5309.\n",
        );
        write(&root, "config/raptor.pack.yaml", "name: raptor\nworkflow_id: raptor\nscope: private\n");
        write(
            &root,
            "src/settings.rs",
            "// settings\nconst KEY: &str = \"AK~IAQ3X7Z2L9M4N8P1R6\";\nconst PEM: &str = \"-----BEGIN ~RSA PRIVATE KEY-----\";\n",
        );
        write(&root, "keys/deploy.pem", "not a real key\n");
        write(&root, "notes.txt", "nothing private\n");
        copy_dir(&fixture("overlay"), &root.join("overlay"));
        git(&root, &["add", "."]);
        // Neither tracked nor audited.
        write(&root, "scratch.md", "falconry, jane@~corp-mail.io\n");
        Repo { _tmp: tmp, root }
    }

    fn audit(&self, extra: &[&str]) -> (i32, String, String) {
        let p = |rel: &str| self.root.join(rel).to_string_lossy().into_owned();
        let (allow, deny, overlay) = (p("boundary/allow.yaml"), p("boundary/deny.yaml"), p("overlay"));
        let mut args = vec!["--allow", &allow, "--deny", &deny, "--private-dir", &overlay];
        args.extend_from_slice(extra);
        audit(&self.root, &args)
    }
}

/// Every kind of leak the fixture repo plants, in report order.
fn planted() -> Vec<(String, Option<u64>, String)> {
    let mut expected = vec![
        finding("config/raptor.pack.yaml", Some(3), "private-pack"),
        finding("docs/guide.md", Some(2), "private-intent"),
        finding("docs/guide.md", Some(3), "private-keyword"),
        finding("docs/guide.md", Some(4), "private-profile"),
        finding("docs/guide.md", Some(5), "private-pack-id"),
        finding("docs/guide.md", Some(6), "private-owner-id"),
        finding("docs/guide.md", Some(7), "private-pack-text"),
        finding("docs/guide.md", Some(8), "email"),
        finding("docs/guide.md", Some(9), "phone"),
        finding("keys/deploy.pem", None, "denied"),
        finding("src/settings.rs", Some(2), "secret"),
        finding("src/settings.rs", Some(3), "secret"),
    ];
    for f in ["consumer_profiles.yaml", "intent_rules.yaml", "pack_registry.yaml"] {
        expected.push(finding(&format!("overlay/{f}"), None, "private-file"));
    }
    for f in ["hive_inspection.pack.yaml", "raptor_care.pack.yaml"] {
        expected.push(finding(&format!("overlay/packs/{f}"), None, "private-file"));
    }
    expected.push(finding("overlay/sessions.yaml", None, "private-file"));
    expected.sort();
    expected
}

#[test]
fn a_repository_with_a_leak_of_each_kind_fails_on_every_one() {
    let repo = Repo::new();
    let (code, out, err) = repo.audit(&["--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(findings(&out, "violations"), planted());
    // Not strict: the unlisted file is a warning; the untracked one is not looked at.
    assert_eq!(findings(&out, "warnings"), [finding("notes.txt", None, "unlisted")]);
    assert!(!out.contains("scratch.md"), "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((report["source"].as_str(), report["passed"].as_bool()), (Some("git"), Some(false)));

    // Strict: the unlisted file is a violation too.
    let (code, out, _) = repo.audit(&["--json", "--strict"]);
    assert_eq!(code, 1);
    let mut expected = planted();
    expected.push(finding("notes.txt", None, "unlisted"));
    expected.sort();
    assert_eq!(findings(&out, "violations"), expected);
    assert_eq!(findings(&out, "warnings"), []);

    // Once committed to git's index, the scratch file is audited as well.
    git(&repo.root, &["add", "scratch.md"]);
    let (_, out, _) = repo.audit(&["--json"]);
    let scratch: Vec<String> =
        findings(&out, "violations").into_iter().filter(|f| f.0 == "scratch.md").map(|f| f.2).collect();
    assert_eq!(scratch, ["private-intent", "email"]);
}

#[test]
fn the_text_report_names_file_line_and_rule() {
    let repo = Repo::new();
    let (code, out, err) = repo.audit(&[]);
    assert_eq!(code, 1, "{err}");
    for line in [
        "docs/guide.md:2: private-intent: intent `falconry` of the private overlay\n",
        "docs/guide.md:7: private-pack-text: a line of pack `hive_inspection` of the private overlay: \"Count mites",
        "keys/deploy.pem: denied: matches the denylist pattern `**/*.pem`\n",
        "src/settings.rs:2: secret: AWS access key id: `AKIAQ3…`\n",
        "warning: notes.txt: unlisted: not on the allowlist (a violation under `--strict`)\n",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    assert!(out.ends_with("; failed\n"), "{out}");
    assert!(out.contains("(git ls-files): 14 files"), "{out}");
}

#[test]
fn exit_codes_say_clean_violations_or_error() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("tree");
    write(&root, "README.md", "hello\n");
    write(&root, "notes.txt", "hello\n");
    write(tmp.path(), "allow.yaml", "schema_version: 1\nallow: [README.md]\n");
    write(tmp.path(), "deny.yaml", "schema_version: 1\ndeny: []\n");
    let p = |rel: &str| tmp.path().join(rel).to_string_lossy().into_owned();
    let (allow, deny) = (p("allow.yaml"), p("deny.yaml"));
    let lists = ["--allow", allow.as_str(), "--deny", deny.as_str()];

    // 0: only a warning; 1: the same file under --strict.
    let (code, out, _) = audit(&root, &lists);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning: notes.txt: unlisted"), "{out}");
    let (code, out, _) = audit(&root, &[&lists[..], &["--strict"]].concat());
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("notes.txt: unlisted: not on the allowlist\n"), "{out}");

    // 2: a list file that does not parse names the file and the line.
    write(tmp.path(), "bad.yaml", "schema_version: 1\nallow:\n  - README.md\nextra: true\n");
    let bad = p("bad.yaml");
    let (code, out, err) = audit(&root, &["--allow", &bad, "--deny", &deny]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.starts_with("error: cannot load the allowlist: "), "{err}");
    assert!(err.contains("bad.yaml` (line 4): unknown field `extra`"), "{err}");

    // 2: a missing denylist.
    let (code, _, err) = audit(&root, &["--allow", &allow, "--deny", &p("missing.yaml")]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot load the denylist") && err.contains("missing.yaml"), "{err}");

    // 2: an overlay that does not load names its file and line.
    let overlay = tmp.path().join("overlay");
    copy_dir(&fixture("overlay"), &overlay);
    write(
        &overlay,
        "consumer_profiles.yaml",
        "schema_version: 1\nprofiles:\n  - id: x\n    primry_pack: y\n",
    );
    let (code, _, err) = audit(&root, &[&lists[..], &["--private-dir", &p("overlay")]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("cannot load the private overlay"), "{err}");
    assert!(err.contains("consumer_profiles.yaml` (line 4)") && err.contains("primry_pack"), "{err}");

    // 2: a root that is not a directory.
    let (code, _, err) = audit(&root.join("README.md"), &lists);
    assert_eq!(code, 2);
    assert!(err.contains("is not a directory"), "{err}");
}
