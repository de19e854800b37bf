//! Models live in the user's models folder, shared by every data dir: a new `--data-dir` finds the model
//! already installed, and `cairn models install` puts it there.

mod common;

use serde_json::Value;

#[test]
fn a_new_data_dir_uses_the_users_installed_model() {
    let Some(model) = cairn_embed::testing::real_model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let xdg = tmp.path().join("xdg");
    let models = xdg.join("cairn/models");
    std::fs::create_dir_all(&models).unwrap();
    std::os::unix::fs::symlink(&model, models.join("all-minilm-l6-v2")).unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    std::fs::write(
        ws.join("memory/vet.md"),
        "# Animal clinic\n\nThe dog sees Dr. Okafor at the Riverside animal clinic.\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let mut cmd = common::cairn();
        cmd.env_remove("CAIRN_EMBED__MODELS_DIR")
            .env("XDG_DATA_HOME", &xdg)
            .current_dir(tmp.path())
            .arg("--data-dir")
            .arg(tmp.path().join("somewhere-else"))
            .arg("--workspace")
            .arg(&ws)
            .args(args);
        let out = cmd.output().unwrap();
        let (code, stdout, stderr) = common::output(&out);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        (stdout, stderr)
    };
    let (listed, _) = run(&["models", "--json"]);
    let v: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(v[0]["name"], "all-minilm-l6-v2", "{v}");
    let (_, err) = run(&["harvest"]);
    assert!(!err.contains("no embedding model"), "{err}");
    let (out, err) = run(&["recall", "which vet looks after the dog?", "--json"]);
    assert!(!err.contains("no embedding model"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let vector =
        v["lanes"].as_array().unwrap().iter().find(|l| l["name"] == "vector").cloned().unwrap_or_default();
    assert_eq!(vector["status"], "ok", "the vector lane ran: {v}");
}
