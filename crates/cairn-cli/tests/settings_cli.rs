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
