//! Per-audience everything: what a public-only caller sees carries no trace of a private note — no tag
//! it gave a public note, no count that includes it, no error that tells it exists.

use std::path::Path;
use std::process::Command;

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("ws/memory");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(
        mem.join("secret.md"),
        "---\ntitle: Secret trip\ntags: [zanzibar]\naudience: private\n---\nWe fly to zanzibar in May.\n",
    )
    .unwrap();
    std::fs::write(
        mem.join("public.md"),
        "---\ntitle: Public beach list\naudience: public\n---\nBeaches worth a visit, zanzibar among them.\n",
    )
    .unwrap();
    let out = cairn(dir.path()).arg("harvest").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir
}

fn cairn(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cairn"));
    c.current_dir(dir)
        .env_remove("CAIRN_CONFIG")
        .env("CAIRN_EMBED__PROVIDER", "none")
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--workspace")
        .arg(dir.join("ws"));
    c
}

fn run(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = cairn(dir).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// F8: a private note's tag is never inferred on a public note, nor shown as a query tag to a public
/// caller.
#[test]
fn a_private_tag_never_reaches_public_output() {
    let dir = setup();
    let (ok, out, err) = run(dir.path(), &["context", "zanzibar", "--public-only"]);
    assert!(ok, "{err}");
    assert!(out.contains("Public beach list"), "{out}");
    assert!(!out.contains("Query tags: [zanzibar]") && !out.contains("Tags: zanzibar"), "{out}");
    // The owner still has the tag (from the private note itself).
    let (_, out, _) = run(dir.path(), &["context", "zanzibar"]);
    assert!(out.contains("Secret trip") && out.contains("zanzibar"), "{out}");
}

/// F7: graph counts and errors are computed in the caller's scope.
#[test]
fn graph_counts_and_errors_do_not_reveal_private_notes() {
    let dir = setup();
    let (ok, out, err) = run(dir.path(), &["graph", "index", "zanzibar", "--public-only", "--json"]);
    assert!(ok, "{err}");
    assert!(!out.contains("links 2 nodes"), "{out}");
    let (ok_private, _, err_private) =
        run(dir.path(), &["graph", "pack", "memory/secret.md", "--public-only"]);
    let (ok_missing, _, err_missing) =
        run(dir.path(), &["graph", "pack", "memory/nothing.md", "--public-only"]);
    assert!(!ok_private && !ok_missing);
    assert_eq!(
        err_private.replace("secret", "X"),
        err_missing.replace("nothing", "X"),
        "a private note errs exactly like a missing one"
    );
}
