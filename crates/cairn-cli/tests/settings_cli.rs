//! Settings fail only for what is wrong: a `CAIRN_*` variable that is not a setting (a script's knob, a
//! misspelt name) is ignored with a warning instead of breaking every command.

mod common;

use common::cairn_in;

#[test]
fn unrelated_cairn_variables_are_ignored_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    for var in ["CAIRN_SERVE_TOKEN", "CAIRN_E2E_CACHE", "CAIRN_SOMETHING_ELSE"] {
        let out = cairn_in(dir.path()).env(var, "x").args(["init", "c.toml", "--force"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{var}: {err}");
        if var != "CAIRN_E2E_CACHE" {
            assert!(err.contains(&format!("ignoring `{var}`")), "{var}: {err}");
        }
    }
}

#[test]
fn nested_settings_from_the_environment_still_apply() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        cairn_in(dir.path()).env("CAIRN_CONTEXT__BUDGET", "oops").args(["init", "c.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a bad value of a real setting is still an error");
    assert!(String::from_utf8_lossy(&out.stderr).to_lowercase().contains("context.budget"));
}

/// Without `--config` or `./cairn.toml`, the user's config file (`$XDG_CONFIG_HOME/cairn/cairn.toml`)
/// is used, its relative paths taken from its own folder, and `cairn status` says which it used.
#[test]
fn the_users_config_file_is_found_and_named_by_status() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg_dir = tmp.path().join("xdg/cairn");
    std::fs::create_dir_all(&cfg_dir).unwrap();
    std::fs::write(cfg_dir.join("cairn.toml"), "data_dir = \"store\"\n[embed]\nprovider = \"none\"\n")
        .unwrap();
    let mut seed = common::cairn();
    seed.env("XDG_CONFIG_HOME", tmp.path().join("xdg")).current_dir(tmp.path());
    let ws = tmp.path().join("ws/memory");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("a.md"), "# A\n\nalpha\n").unwrap();
    let out = seed.arg("--workspace").arg(tmp.path().join("ws")).arg("harvest").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(cfg_dir.join("store/cairn.sqlite").exists(), "the data dir is relative to the config file");
    let mut status = common::cairn();
    status.env("XDG_CONFIG_HOME", tmp.path().join("xdg")).current_dir(tmp.path()).args(["status", "--json"]);
    let out = status.output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["config_file"], cfg_dir.join("cairn.toml").display().to_string(), "{v}");
    assert_eq!(v["model"], "none (lexical recall only)", "{v}");
}
