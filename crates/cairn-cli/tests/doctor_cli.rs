//! `cairn doctor` through the real binary: a healthy store is all ok (the daemon not running is a
//! warning, exit code 0); then each checked part is damaged in turn and its line turns `warn` or
//! `fail` (a failure: exit code 1). And `cairn completions`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cairn_core::Audience;
use cairn_store::{SqliteStore, Store, Write};
use common::{Env, ROUTE_DIR};

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/workspace");
const PLUGIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../plugins/openclaw");

/// The example workspace harvested with a tiny model, and the settings every doctor run of it uses:
/// the example routing config, a daemon address nothing listens on, an OpenClaw config path in the
/// temp dir (absent unless a test writes it).
struct Doctor {
    env: Env,
    model: PathBuf,
    addr: String,
    route: PathBuf,
}

/// One run: exit code, each check's `(status, line)` by name, stdout.
struct Run {
    code: i32,
    checks: BTreeMap<String, (String, String)>,
    out: String,
}

impl Run {
    fn status(&self, name: &str) -> &str {
        &self.line_of(name).0
    }

    fn line(&self, name: &str) -> &str {
        &self.line_of(name).1
    }

    fn line_of(&self, name: &str) -> &(String, String) {
        self.checks.get(name).unwrap_or_else(|| panic!("no `{name}` line in:\n{}", self.out))
    }

    /// Every check is `ok` but those named, whose statuses are given.
    fn expect(&self, code: i32, not_ok: &[(&str, &str)]) {
        assert_eq!(self.code, code, "{}", self.out);
        for (name, (status, line)) in &self.checks {
            let want = not_ok.iter().find(|(n, _)| n == name).map_or("ok", |(_, s)| *s);
            assert_eq!(status, want, "{line}\n\n{}", self.out);
        }
    }
}

/// A relevance calibration set by hand (any value but the default's).
const CALIBRATED: (&str, &str) = ("CAIRN_RECALL__CALIBRATION__AFFINITY_ZERO", "-0.07");

fn free_addr() -> String {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string()
}

impl Doctor {
    fn new() -> Doctor {
        let env = Env::new(&[]);
        cairn_test::copy_dir(Path::new(WORKSPACE), &env.ws);
        let model = env.tmp.path().join("model");
        cairn_embed::testing::TinyModel::default().write(&model).unwrap();
        let doctor = Doctor { env, model, addr: free_addr(), route: ROUTE_DIR.into() };
        let (code, _, err) = common::output(&doctor.cmd().arg("harvest").output().unwrap());
        assert_eq!(code, 0, "{err}");
        doctor
    }

    fn data(&self) -> &Path {
        &self.env.data
    }

    fn openclaw_config(&self) -> PathBuf {
        self.env.tmp.path().join("openclaw.json")
    }

    /// `cairn` with this test's settings, isolated from the caller's OpenClaw.
    fn cmd(&self) -> Command {
        let mut cmd = self.env.cmd();
        cmd.arg("--route-config")
            .arg(&self.route)
            .env("CAIRN_EMBED__MODEL", &self.model)
            // The tiny model with a calibration of its owner's (the default one was measured for
            // all-minilm-l6-v2: `model` would warn, as `a_model_without_its_calibration_warns` shows).
            .env(CALIBRATED.0, CALIBRATED.1)
            .env("CAIRN_SERVE__ADDR", &self.addr)
            .env("OPENCLAW_CONFIG_PATH", self.openclaw_config())
            .env_remove("OPENCLAW_STATE_DIR")
            .env_remove("OPENCLAW_HOME")
            .env_remove("CAIRN_SERVE__TOKEN")
            .env_remove("CAIRN_SERVE__UNIX");
        cmd
    }

    /// A copy of the example routing config in the temp dir (to break or change).
    fn config_copy(&self) -> PathBuf {
        let dir = self.env.tmp.path().join("config");
        cairn_test::copy_dir(Path::new(ROUTE_DIR), &dir);
        dir
    }

    fn run(&self) -> Run {
        self.run_with(&[])
    }

    fn run_with(&self, env: &[(&str, &str)]) -> Run {
        let (code, out, err) =
            common::output(&self.cmd().envs(env.iter().copied()).arg("doctor").output().unwrap());
        assert!(code == 0 || code == 1, "exit code {code}: {err}");
        let mut checks = BTreeMap::new();
        for line in out.lines() {
            let mut words = line.split_whitespace();
            let (status, name) = (words.next().unwrap(), words.next().unwrap());
            assert!(["ok", "warn", "fail"].contains(&status), "{line}");
            checks.insert(name.to_owned(), (status.to_owned(), line.to_owned()));
        }
        Run { code, checks, out }
    }
}

#[test]
fn a_healthy_store_is_all_ok_but_the_daemon_and_json_says_the_same() {
    let d = Doctor::new();
    let run = d.run();
    let names: Vec<&str> = run.out.lines().map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    assert_eq!(
        names,
        ["store", "index", "model", "vectors", "routing", "sessions", "permissions", "daemon", "openclaw"]
    );
    run.expect(0, &[("daemon", "warn")]);
    assert!(
        run.line("store")
            .contains(&format!("schema v{}, integrity ok, 10 items", cairn_store::SCHEMA_VERSION)),
        "{}",
        run.out
    );
    assert!(run.line("vectors").contains("10 chunks embedded"), "{}", run.out);
    assert!(
        run.line("daemon").contains(&format!("not running: nothing answers at {}", d.addr)),
        "{}",
        run.out
    );
    assert!(run.line("daemon").contains("hint: start it with `cairn serve`"), "{}", run.out);

    let (code, out, err) = common::output(&d.cmd().args(["doctor", "--json"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(json["status"], "warn");
    let checks = json["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 9);
    for c in checks {
        let want = if c["name"] == "daemon" { "warn" } else { "ok" };
        assert_eq!(c["status"], want, "{c}");
        assert!(c["detail"].as_str().is_some_and(|d| !d.is_empty()), "{c}");
        assert_eq!(c["hint"].is_string(), want != "ok", "{c}");
    }
}

#[test]
fn a_model_without_its_calibration_warns() {
    let d = Doctor::new();
    // The default calibration, measured for another model than this tiny one.
    let run = d.run_with(&[(CALIBRATED.0, "-0.08")]);
    run.expect(0, &[("model", "warn"), ("daemon", "warn")]);
    let line = run.line("model");
    assert!(line.contains("loads and embeds, but the relevance floor's calibration"), "{}", run.out);
    assert!(line.contains("measured for all-minilm-l6-v2"), "{}", run.out);
    assert!(line.contains("hint: measure the model on labelled questions"), "{}", run.out);
}

#[test]
fn a_damaged_store_fails() {
    let d = Doctor::new();
    let path = d.data().join("cairn.sqlite");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n / 4..3 * n / 4].fill(0xA5);
    std::fs::write(&path, bytes).unwrap();
    let run = d.run();
    run.expect(
        1,
        &[
            ("store", "fail"),
            ("index", "warn"),
            ("vectors", "warn"),
            ("sessions", "warn"),
            ("daemon", "warn"),
        ],
    );
    assert!(run.line("store").contains("is damaged"), "{}", run.out);
    assert!(run.line("store").contains("hint: restore"), "{}", run.out);
    assert!(run.line("index").contains("not checked"), "{}", run.out);

    std::fs::remove_file(&path).unwrap();
    let run = d.run();
    assert_eq!(run.status("store"), "fail");
    assert!(run.line("store").contains("no store at"), "{}", run.out);
    assert!(!path.exists(), "the doctor creates no store");
}

#[test]
fn a_lagging_or_missing_index_warns() {
    let d = Doctor::new();
    // A write the index has not seen (as when a harvest is killed between the store and the index).
    let mut store = SqliteStore::open(&d.data().join("cairn.sqlite")).unwrap();
    let item = cairn_test::fact("fact:late", "Late", "written behind the index's back", Audience::Public);
    store.apply(&[Write::upsert(item, vec![])], "test").unwrap();
    let seq = store.last_seq().unwrap();
    drop(store);
    let run = d.run();
    run.expect(0, &[("index", "warn"), ("vectors", "warn"), ("daemon", "warn")]);
    assert!(
        run.line("index")
            .contains(&format!("1 write behind the store (synced to log seq {} of {seq})", seq - 1))
    );
    assert!(run.line("index").contains("hint: run `cairn reindex`"), "{}", run.out);
    assert!(run.line("vectors").contains("1 of 11 chunks have no vector"), "{}", run.out);
    // The doctor only looks: the lag is still there.
    assert_eq!(d.run().status("index"), "warn");

    std::fs::remove_dir_all(d.data().join("index")).unwrap();
    let run = d.run();
    assert_eq!(run.status("index"), "warn", "{}", run.out);
    assert!(run.line("index").contains("no index at"), "{}", run.out);

    // `cairn reindex` follows the hint: both are ok again.
    let (code, _, err) = common::output(&d.cmd().arg("reindex").output().unwrap());
    assert_eq!(code, 0, "{err}");
    d.run().expect(0, &[("daemon", "warn")]);
}

#[test]
fn a_broken_or_missing_model_fails() {
    let d = Doctor::new();
    let empty = d.env.tmp.path().join("empty-model");
    std::fs::create_dir(&empty).unwrap();
    let run = d.run_with(&[("CAIRN_EMBED__MODEL", empty.to_str().unwrap())]);
    run.expect(1, &[("model", "fail"), ("vectors", "warn"), ("daemon", "warn")]);
    assert!(run.line("model").contains("cannot load"), "{}", run.out);
    assert!(run.line("model").contains("hint: reinstall it: `cairn models install --force`"), "{}", run.out);

    let gone = d.env.tmp.path().join("no-model");
    let run = d.run_with(&[("CAIRN_EMBED__MODEL", gone.to_str().unwrap())]);
    assert_eq!(run.status("model"), "fail", "{}", run.out);
    assert!(run.line("model").contains("not installed"), "{}", run.out);
    assert!(run.line("model").contains("hint: run `cairn models install`"), "{}", run.out);

    // Embedding off is a choice, not a failure.
    let run = d.run_with(&[("CAIRN_EMBED__PROVIDER", "none")]);
    run.expect(0, &[("daemon", "warn")]);
    assert!(run.line("model").contains("embedding off"), "{}", run.out);
}

#[test]
fn a_broken_routing_config_fails() {
    let mut d = Doctor::new();
    d.route = d.config_copy();
    let rules = d.route.join("intent_rules.yaml");
    std::fs::write(&rules, std::fs::read_to_string(&rules).unwrap() + "\nnot_a_key: 1\n").unwrap();
    let run = d.run();
    run.expect(1, &[("routing", "fail"), ("daemon", "warn")]);
    assert!(run.line("routing").contains("1 error"), "{}", run.out);
    assert!(run.line("routing").contains("not_a_key"), "{}", run.out);
    assert!(run.line("routing").contains("rules audit` for every finding"), "{}", run.out);
}

#[test]
fn session_keys_in_no_known_format_warn() {
    let d = Doctor::new();
    for key in ["agent:main:main", "telegram:-100123456"] {
        let turn = format!(r#"{{"session_key":"{key}","user":"hello","assistant":"hi"}}"#);
        let mut child = d.cmd().arg("capture").stdin(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(turn.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    }
    // The captured turns' vectors (a one-shot capture may leave them to a daemon or the next run).
    let (code, _, err) = common::output(&d.cmd().arg("reindex").output().unwrap());
    assert_eq!(code, 0, "{err}");
    let run = d.run();
    run.expect(0, &[("sessions", "warn"), ("daemon", "warn")]);
    let line = run.line("sessions");
    assert!(line.contains("1 of 2 session keys in no recognised format"), "{line}");
    assert!(line.contains("treated as a shared audience"), "{line}");
    assert!(line.contains("`telegram:-100123456`") && !line.contains("agent:main:main"), "{line}");
    assert!(
        line.contains("hint: if these sessions are yours alone, set `unknown: owner` in sessions.yaml"),
        "{line}"
    );

    // Mapped to the owner, the key still warns: it now sees private memory.
    let mut d = d;
    d.route = d.config_copy();
    let sessions = d.route.join("sessions.yaml");
    std::fs::write(&sessions, std::fs::read_to_string(&sessions).unwrap() + "unknown: owner\n").unwrap();
    let run = d.run();
    assert_eq!(run.status("sessions"), "warn", "{}", run.out);
    assert!(run.line("sessions").contains("treated as the owner's"), "{}", run.out);
}

#[test]
fn files_other_users_can_read_warn() {
    use std::os::unix::fs::PermissionsExt;
    let d = Doctor::new();
    let store = d.data().join("cairn.sqlite");
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = d.run();
    run.expect(0, &[("permissions", "warn"), ("daemon", "warn")]);
    let line = run.line("permissions");
    assert!(line.contains("cairn.sqlite` is 0644"), "{line}");
    assert!(line.contains(&format!("hint: `chmod 600 {}`", store.display())), "{line}");

    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(d.data(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = d.run();
    assert_eq!(run.status("permissions"), "warn", "{}", run.out);
    assert!(run.line("permissions").contains(&format!("chmod 700 {}", d.data().display())), "{}", run.out);
}

#[test]
fn an_openclaw_config_without_conversation_access_fails() {
    let d = Doctor::new();
    let write = |hooks: &str| {
        let config = format!(
            "// OpenClaw's config is JSON5\n{{ plugins: {{ load: {{ paths: ['{PLUGIN}'] }},\n  entries: {{ cairn: {{ \
             enabled: true, hooks: {{ {hooks} }}, config: {{ baseUrl: 'http://{}' }}, }} }} }} }}\n",
            d.addr
        );
        std::fs::write(d.openclaw_config(), config).unwrap();
    };
    write("allowPromptInjection: true");
    let run = d.run();
    run.expect(1, &[("openclaw", "fail"), ("daemon", "warn")]);
    assert!(
        run.line("openclaw").contains("`plugins.entries.cairn.hooks.allowConversationAccess` is not `true`")
    );
    assert!(
        run.line("openclaw")
            .contains("hint: set `plugins.entries.cairn.hooks.allowConversationAccess: true`")
    );

    write("allowConversationAccess: true");
    let run = d.run();
    run.expect(0, &[("daemon", "warn")]);
    assert!(run.line("openclaw").contains("plugin at"), "{}", run.out);
    assert!(run.line("openclaw").contains("memory slot `memory-core` (default)"), "{}", run.out);
}

#[test]
fn a_running_daemon_is_ok_and_one_of_another_data_dir_warns() {
    let d = Doctor::new();
    let mut cmd = common::cairn();
    cmd.arg("--data-dir")
        .arg(d.data())
        .arg("--route-config")
        .arg(ROUTE_DIR)
        .env("CAIRN_EMBED__PROVIDER", "none");
    let (mut child, url) = common::serve(cmd);
    let addr = url.strip_prefix("http://").unwrap();
    let run = d.run_with(&[("CAIRN_SERVE__ADDR", addr)]);
    let line = run.line("daemon").to_owned();
    let other = Doctor::new().run_with(&[("CAIRN_SERVE__ADDR", addr)]);
    child.kill().unwrap();
    child.wait().unwrap();
    run.expect(0, &[]);
    assert!(line.contains(&format!("version {} runs at {addr}", env!("CARGO_PKG_VERSION"))), "{line}");
    // The token of `serve.token` must be 0600 too: the daemon wrote it so.
    assert!(run.line("permissions").contains("serve.token 0600"), "{}", run.out);
    assert_eq!(other.status("daemon"), "warn", "{}", other.out);
    assert!(other.line("daemon").contains("serves another data dir"), "{}", other.out);
}

#[test]
fn a_daemon_on_a_unix_socket_is_reached() {
    let d = Doctor::new();
    let socket = d.env.tmp.path().join("cairn.sock");
    let mut cmd = common::cairn();
    cmd.arg("--data-dir")
        .arg(d.data())
        .env("CAIRN_EMBED__PROVIDER", "none")
        .env("CAIRN_SERVE__UNIX", &socket);
    let (mut child, _) = common::serve(cmd);
    let run = d.run_with(&[("CAIRN_SERVE__UNIX", socket.to_str().unwrap())]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(run.status("daemon"), "ok", "{}", run.out);
    assert!(
        run.line("daemon").contains(&format!("runs at unix socket `{}`", socket.display())),
        "{}",
        run.out
    );
}

#[test]
fn completions_name_the_subcommands() {
    let (code, out, err) = common::output(&common::cairn().args(["completions", "bash"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    for sub in ["harvest", "doctor", "completions", "recall", "serve"] {
        assert!(out.contains(sub), "no `{sub}` in the bash script");
    }
    assert!(out.contains("complete -F _cairn"), "not a bash completion script");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) =
            common::output(&common::cairn().args(["completions", shell]).output().unwrap());
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains("doctor"), "{shell}");
    }
    // A broken config does not stop them.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cairn.toml"), "not toml [").unwrap();
    let (code, _, err) = common::output(
        &common::cairn().current_dir(dir.path()).args(["completions", "fish"]).output().unwrap(),
    );
    assert_eq!(code, 0, "{err}");
}
