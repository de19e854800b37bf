//! `cairn export`, `cairn import` and `cairn store migrate` through the real binary: a store moved to
//! another data dir (or onto a shared PostgreSQL store, and back) exports the same bytes, and a bad
//! export is refused with its line.

mod common;

#[test]
fn export_import_export_through_the_binary() {
    let env = common::Env::new(&["memory"]);
    env.write(
        "memory/boat.md",
        "---\ntags: [sailing]\n---\n# Boat\n\nThe sailing boat is moored at pier nine.\n",
    );
    env.ok(&["harvest"]);
    let turn = r#"{"session_key":"agent:main:main","turn_id":"t1","user":"where is the boat?","assistant":"pier nine"}"#;
    let mut capture = env.cmd();
    capture.arg("capture").stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::null());
    let mut child = capture.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), turn.as_bytes()).unwrap();
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());

    let first = env.tmp.path().join("first.jsonl");
    env.ok(&["export", "--out", first.to_str().unwrap()]);
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&first).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "an export holds private memory: {mode:o}");
    }
    let other = env.tmp.path().join("other");
    let import = |file: &str| {
        common::output(
            &common::cairn()
                .args(["--data-dir", other.to_str().unwrap(), "import", file, "--json"])
                .output()
                .unwrap(),
        )
    };
    let (code, out, err) = import(first.to_str().unwrap());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["items"].as_u64(), v["turns"].as_u64(), v["unchanged"].as_u64()),
        (Some(1), Some(1), Some(0)),
        "{v}"
    );
    let second = common::output(
        &common::cairn().args(["--data-dir", other.to_str().unwrap(), "export"]).output().unwrap(),
    );
    assert_eq!(second.0, 0, "{}", second.2);
    assert_eq!(second.1.as_bytes(), std::fs::read(&first).unwrap(), "the moved store exports the same bytes");
    let (_, out, _) = import(first.to_str().unwrap());
    assert!(out.contains("\"unchanged\": 2"), "importing again changes nothing: {out}");
    // The moved store answers.
    let found = common::output(
        &common::cairn()
            .args(["--data-dir", other.to_str().unwrap(), "recall", "sailing boat pier", "--json"])
            .output()
            .unwrap(),
    );
    assert!(found.1.contains("memory-file:memory/boat.md"), "{}", found.1);

    let bad = env.tmp.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"header\",\"format\":\"cairn-export\",\"version\":1}\n{oops\n").unwrap();
    let (code, _, err) = import(bad.to_str().unwrap());
    assert_eq!(code, 2);
    assert!(err.contains("bad.jsonl:2: not an export record"), "{err}");
}

/// `cairn store migrate` onto a real PostgreSQL server and back to SQLite: each copy exports exactly
/// the original's bytes (the command checks it and prints the hash), answers queries, and a copy into a
/// store that is not empty is refused without writing.
#[test]
fn store_migrate_to_postgres_and_back() {
    let Some(server) = cairn_test::postgres::server("store_migrate_to_postgres_and_back") else {
        return;
    };
    let url = server.create_db();
    let env = common::Env::new(&["memory"]);
    env.write(
        "memory/boat.md",
        "---\ntags: [sailing]\n---\n# Boat\n\nThe sailing boat is moored at pier nine.\n",
    );
    env.write("memory/crew.md", "# Crew\n\nMira skippers the boat on Saturdays.\n");
    env.ok(&["harvest"]);
    env.ok(&["link", "memory/crew.md", "memory/boat.md", "--reason", "Mira sails it"]);
    let original = env.ok(&["export"]);

    let team = env.tmp.path().join("team");
    let migrate = |cmd: &mut std::process::Command, args: &[&str]| {
        common::output(&cmd.args(["store", "migrate"]).args(args).output().unwrap())
    };
    let (code, out, err) =
        migrate(&mut env.cmd(), &["--to", &url, "--into", team.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["copied"]["items"].as_u64(), v["copied"]["links"].as_u64(), v["bytes"].as_u64()),
        (Some(2), Some(1), Some(original.len() as u64)),
        "{v}"
    );
    assert_eq!(v["hash"].as_str().unwrap(), blake3::hash(original.as_bytes()).to_hex().as_str());
    let on_team = |args: &[&str]| {
        common::output(
            &common::cairn()
                .env("CAIRN_STORE__URL", &url)
                .arg("--data-dir")
                .arg(&team)
                .args(args)
                .output()
                .unwrap(),
        )
    };
    let (code, copied, err) = on_team(&["export"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(copied, original, "the shared store exports the original's bytes");
    let (_, found, _) = on_team(&["recall", "who skippers the boat", "--json"]);
    assert!(found.contains("memory-file:memory/crew.md"), "{found}");

    // Not into a store that holds something: nothing is written.
    let (code, _, err) =
        migrate(&mut env.cmd(), &["--to", &url, "--into", env.tmp.path().join("again").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the target store is not empty"), "{err}");
    assert_eq!(on_team(&["export"]).1, original);
    // Nor into its own data dir, nor anywhere that is not a store.
    let (code, _, err) = migrate(&mut env.cmd(), &["--to", "sqlite", "--into", env.data.to_str().unwrap()]);
    assert!(code != 0 && err.contains("own data dir"), "{err}");
    let (code, _, err) = migrate(&mut env.cmd(), &["--to", "mysql://db/x", "--into", "elsewhere"]);
    assert!(code != 0 && err.contains("give a PostgreSQL URL"), "{err}");

    // And back, from the shared store to a single-host file.
    let back = env.tmp.path().join("back");
    let (code, out, err) = on_team(&["store", "migrate", "--to", "sqlite", "--into", back.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("verified: both exports are"), "{out}");
    let back_export =
        common::output(&common::cairn().arg("--data-dir").arg(&back).arg("export").output().unwrap());
    assert_eq!(back_export.1, original, "back on SQLite, the same bytes again");
    assert_eq!(env.ok(&["export"]), original, "the original is unchanged");
}
