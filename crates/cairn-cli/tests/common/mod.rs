//! The `cairn` binary run by the CLI tests: a temp workspace and data dir, the command isolated from
//! the caller's `CAIRN_CONFIG`, and a `cairn serve` started on an ephemeral port.
#![allow(dead_code, unreachable_pub, clippy::new_without_default)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The example routing config.
pub const ROUTE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/config");

/// The `cairn` binary, without the caller's `CAIRN_CONFIG` or user config file, and blind to the user's
/// installed models
/// (`embed.models_dir` pointed at a folder that does not exist): a test that wants a model names it
/// (`CAIRN_EMBED__MODEL=<dir>`), so no test depends on what the machine has installed.
pub fn cairn() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cairn"));
    cmd.env_remove("CAIRN_CONFIG")
        .env("CAIRN_EMBED__MODELS_DIR", "/nonexistent/cairn-test-models")
        .env("XDG_CONFIG_HOME", "/nonexistent/cairn-test-config");
    cmd
}

/// `cairn` run in `dir`, with `dir/data` as its data dir (no workspace given).
pub fn cairn_in(dir: &Path) -> Command {
    let mut cmd = cairn();
    cmd.current_dir(dir).arg("--data-dir").arg(dir.join("data"));
    cmd
}

/// `cmd` (the binary, or a wrapper that runs it) run from the parent of `ws`, without the caller's
/// `CAIRN_CONFIG`, with `--data-dir data --workspace ws`.
pub fn in_dirs(mut cmd: Command, ws: &Path, data: &Path) -> Command {
    cmd.current_dir(ws.parent().unwrap())
        .env_remove("CAIRN_CONFIG")
        .arg("--data-dir")
        .arg(data)
        .arg("--workspace")
        .arg(ws);
    cmd
}

/// Exit code (-1 when killed by a signal), stdout and stderr.
pub fn output(out: &Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts `cmd serve --port 0`; returns the daemon and the URL it listens on. Its stderr keeps being
/// drained, so it never blocks on a full pipe.
pub fn serve(cmd: Command) -> (Child, String) {
    serve_with_args(cmd, &[])
}

/// [`serve`] with more `serve` arguments after `--port 0`.
pub fn serve_with_args(mut cmd: Command, more: &[&str]) -> (Child, String) {
    let mut child = cmd.args(["serve", "--port", "0"]).args(more).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("daemon exited before listening").unwrap();
        if let Some(at) = line.strip_prefix("cairn serve: listening on ") {
            break at.to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

/// A daemon started by [`serve`], killed when dropped (also when a test panics, so that it never
/// outlives the test holding its output pipes).
pub struct Daemon(pub Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An HTTP client that sends `token` (the daemon's `serve.token`) on every request.
pub fn client(token: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
    reqwest::Client::builder().default_headers(headers).build().unwrap()
}

/// A temp dir holding a workspace (`ws`) and a data dir (`data`).
pub struct Env {
    pub tmp: tempfile::TempDir,
    pub ws: PathBuf,
    pub data: PathBuf,
}

impl Env {
    /// A fresh temp dir; `ws/<dir>` is created for each of `dirs` (nothing else is).
    pub fn new(dirs: &[&str]) -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let (ws, data) = (tmp.path().join("ws"), tmp.path().join("data"));
        for d in dirs {
            std::fs::create_dir_all(ws.join(d)).unwrap();
        }
        Env { tmp, ws, data }
    }

    /// `cairn` on this workspace and data dir ([`in_dirs`]).
    pub fn cmd(&self) -> Command {
        in_dirs(cairn(), &self.ws, &self.data)
    }

    /// Runs `cairn args...`: exit code, stdout, stderr.
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        output(&self.cmd().args(args).output().unwrap())
    }

    /// Runs `cairn args...`, which must succeed; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    }

    /// Writes `content` to `rel` in the workspace (folders created).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
}
