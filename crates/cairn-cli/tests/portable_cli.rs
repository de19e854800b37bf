//! `cairn export` and `cairn import` through the real binary: a store moved to another data dir exports
//! the same bytes, and a bad export is refused with its line.

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
