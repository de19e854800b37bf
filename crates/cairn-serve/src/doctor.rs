//! The serve layer's checks for `cairn doctor`, in the engine's [`Check`] shape: does a daemon answer
//! at the configured address, with this build's version and the data dir's token ([`daemon`]), and
//! will OpenClaw load the plugin with the hooks it needs ([`openclaw`])?
//!
//! The daemon is asked over HTTP (`GET /v1/status` with the token, `/v1/health` without one), with a
//! timeout under a second: a daemon that is not running is a warning (the plugin starts one in
//! OpenClaw's gateway), never a failure.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_engine::Check;
use serde_json::Value;

use crate::ServeSettings;

/// How long the doctor waits for a daemon's answer (connect, send and read together).
const TIMEOUT: Duration = Duration::from_millis(800);

/// The largest answer read from a daemon.
const MAX_ANSWER: u64 = 1 << 20;

/// The plugin's id in OpenClaw (`plugins/openclaw/openclaw.plugin.json`).
const PLUGIN_ID: &str = "cairn";

/// This build's version, which a daemon reports on `/v1/health` and `/v1/status`.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Whether a daemon answers at the address (or Unix socket) of `options`, with this build's version
/// and the token of `data_dir` (`serve.token` unless `options` sets one). Nothing is written.
pub fn daemon(options: &ServeSettings, data_dir: &Path) -> Check {
    const NAME: &str = "daemon";
    let token_file = crate::token_path(data_dir);
    let token = options.token.clone().or_else(|| {
        std::fs::read_to_string(&token_file).ok().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
    });
    let path = if token.is_some() { "/v1/status" } else { "/v1/health" };
    let (at, answer) = match &options.unix {
        Some(socket) => {
            (format!("unix socket `{}`", socket.display()), get_unix(socket, path, token.as_deref()))
        }
        None => {
            let addr = reachable(options.addr);
            (addr.to_string(), get_tcp(addr, path, token.as_deref()))
        }
    };
    let (status, body) = match answer {
        Ok(a) => a,
        Err(e) => {
            return Check::warn(
                NAME,
                format!("not running: nothing answers at {at} ({e})"),
                "start it with `cairn serve` (in OpenClaw's gateway the plugin starts it)",
            );
        }
    };
    let restart = "stop the running `cairn serve` and start it again with this data dir";
    if status == 401 {
        return Check::warn(
            NAME,
            format!(
                "a daemon at {at} refuses the token of `{}`: it serves another data dir or has another token",
                token_file.display()
            ),
            restart,
        );
    }
    let json: Option<Value> = serde_json::from_str(&body).ok();
    let version = json.as_ref().and_then(|v| v["version"].as_str()).map(str::to_owned);
    let Some(version) = version.filter(|_| status == 200) else {
        return Check::warn(
            NAME,
            format!("something that is not `cairn serve` answers at {at} (HTTP {status})"),
            "free the port, or set `serve.addr` to another one (and the plugin's `baseUrl` with it)",
        );
    };
    if version != VERSION {
        return Check::warn(
            NAME,
            format!("version {version} runs at {at}; this cairn is {VERSION}"),
            restart,
        );
    }
    if token.is_none() {
        return Check::warn(
            NAME,
            format!(
                "version {version} runs at {at}, but this data dir has no token (`{}`) to ask it more: it \
                 serves another data dir",
                token_file.display()
            ),
            restart,
        );
    }
    let problems: Vec<&str> = json
        .as_ref()
        .and_then(|v| v["problems"].as_array())
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !problems.is_empty() {
        return Check::warn(
            NAME,
            format!("version {version} runs at {at}, degraded: {}", problems.join("; ")),
            "fix what it names, then restart `cairn serve` (or send it SIGHUP for a routing config)",
        );
    }
    let uptime = json.as_ref().and_then(|v| v["uptime_secs"].as_u64()).unwrap_or(0);
    Check::ok(NAME, format!("version {version} runs at {at}, up {uptime} s"))
}

/// `GET path` from the daemon of `options` (TCP or Unix socket) with the token of `data_dir` (or the
/// configured one): the body of a 200 answer, or why there is none.
pub fn daemon_get(options: &ServeSettings, data_dir: &Path, path: &str) -> Result<String, String> {
    let token = options.token.clone().or_else(|| {
        std::fs::read_to_string(crate::token_path(data_dir))
            .ok()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
    });
    let (status, body) = match &options.unix {
        Some(socket) => get_unix(socket, path, token.as_deref())?,
        None => get_tcp(reachable(options.addr), path, token.as_deref())?,
    };
    match status {
        200 => Ok(body),
        401 => Err("HTTP 401: it refuses this data dir's token".to_owned()),
        other => Err(format!("HTTP {other}")),
    }
}

/// The address to reach a daemon listening on `addr` at: a wildcard address is reached through
/// loopback.
fn reachable(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), addr.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(Ipv6Addr::LOCALHOST.into(), addr.port()),
        _ => addr,
    }
}

/// `GET path` on `addr`: the status code and the body, or why there is no answer.
fn get_tcp(addr: SocketAddr, path: &str, token: Option<&str>) -> Result<(u16, String), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        // A loopback daemon is never reached through a proxy from the environment.
        .proxy(None)
        .build()
        .into();
    let mut req = agent.get(format!("http://{addr}{path}"));
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    let mut resp = req.call().map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let body = resp
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(|e| e.to_string())?;
    Ok((status, body))
}

/// `GET path` over a Unix socket (which `ureq` does not speak): one HTTP/1.0 request, the answer read
/// to its end.
fn get_unix(socket: &Path, path: &str, token: Option<&str>) -> Result<(u16, String), String> {
    let io = |e: std::io::Error| e.to_string();
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(io)?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n{auth}\r\n").map_err(io)?;
    let mut raw = Vec::new();
    stream.take(MAX_ANSWER).read_to_end(&mut raw).map_err(io)?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("the answer is not HTTP")?;
    let status =
        head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or("the answer is not HTTP")?;
    Ok((status, body.to_owned()))
}

/// Where OpenClaw reads its config, resolved as OpenClaw does from its environment (`var` reads a
/// variable): `$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`, else
/// `<home>/.openclaw/openclaw.json` with `$OPENCLAW_HOME`, else `$HOME`, as home. `None` without any.
pub fn openclaw_config_path(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| var(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let home = set("OPENCLAW_HOME").or_else(|| set("HOME")).map(PathBuf::from);
    let expand = |v: String| match (v.strip_prefix("~/"), &home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(v),
    };
    if let Some(p) = set("OPENCLAW_CONFIG_PATH") {
        return Some(expand(p));
    }
    if let Some(d) = set("OPENCLAW_STATE_DIR") {
        return Some(expand(d).join("openclaw.json"));
    }
    Some(home?.join(".openclaw").join("openclaw.json"))
}

/// Whether OpenClaw, reading `config` (JSON5), loads the Cairn plugin with the hooks it needs: plugins
/// on and Cairn allowed, the plugin folder found (`plugins.load.paths`, or OpenClaw's `extensions`
/// folder beside the config), `hooks.allowConversationAccess: true` and prompt injection not refused,
/// the memory slot not given to Cairn (a hooks plugin, not a memory plugin), and the plugin's
/// `baseUrl` on the daemon's port. No config, or one that does not mention Cairn: not used, ok.
/// `home` expands `~/` in load paths.
pub fn openclaw(config: &Path, home: Option<&Path>, options: &ServeSettings) -> Check {
    const NAME: &str = "openclaw";
    let shown = config.display();
    let text = match std::fs::read_to_string(config) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Check::ok(NAME, format!("not configured (no `{shown}`): skipped"));
        }
        Err(e) => return Check::fail(NAME, format!("cannot read `{shown}`: {e}"), "make it readable"),
    };
    let root: Value = match json5::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return Check::fail(
                NAME,
                format!("`{shown}` is not valid JSON5: {e}"),
                "fix it, then check it with `openclaw config validate`",
            );
        }
    };
    let plugins = &root["plugins"];
    let entry = &plugins["entries"][PLUGIN_ID];
    let base = config.parent().unwrap_or(Path::new("."));
    let (folder, missing) = plugin_folder(plugins, base, home);
    if entry.is_null() && folder.is_none() {
        return Check::ok(NAME, format!("the Cairn plugin is not set up in `{shown}`: skipped"));
    }

    let mut fails: Vec<String> = Vec::new();
    let mut warns: Vec<String> = Vec::new();
    let mut hints: Vec<String> = Vec::new();
    let listed = |key: &str| plugins[key].as_array().map(|a| a.iter().any(|v| v.as_str() == Some(PLUGIN_ID)));
    if plugins["enabled"] == Value::Bool(false) {
        fails.push("`plugins.enabled` is false: OpenClaw loads no plugin".into());
        hints.push("remove `plugins.enabled: false`".into());
    }
    if listed("deny") == Some(true) {
        fails.push("`plugins.deny` lists `cairn`".into());
        hints.push("take `cairn` out of `plugins.deny`".into());
    }
    if listed("allow") == Some(false) && plugins["allow"].as_array().is_some_and(|a| !a.is_empty()) {
        fails.push("`plugins.allow` does not list `cairn` (only listed plugins load)".into());
        hints.push("add `cairn` to `plugins.allow`".into());
    }
    for m in &missing {
        warns.push(format!("`plugins.load.paths` entry `{m}` does not exist"));
    }
    if folder.is_none() {
        fails.push(
            "no folder in `plugins.load.paths` (nor OpenClaw's `extensions`) holds the plugin \
             (`openclaw.plugin.json` with id `cairn`)"
                .into(),
        );
        hints.push("add the path of Cairn's `plugins/openclaw` to `plugins.load.paths`".into());
    }
    if entry["enabled"] == Value::Bool(false) {
        warns.push("the plugin is disabled (`plugins.entries.cairn.enabled: false`)".into());
        hints.push("set `plugins.entries.cairn.enabled: true`".into());
    }
    let hooks = &entry["hooks"];
    if hooks["allowConversationAccess"] != Value::Bool(true) {
        fails.push(
            "`plugins.entries.cairn.hooks.allowConversationAccess` is not `true`: OpenClaw drops the plugin's \
             turn hooks (no context injected, no turn captured)"
                .into(),
        );
        hints.push("set `plugins.entries.cairn.hooks.allowConversationAccess: true`".into());
    }
    if hooks["allowPromptInjection"] == Value::Bool(false) {
        fails.push(
            "`plugins.entries.cairn.hooks.allowPromptInjection` is false: OpenClaw drops the hook that \
             injects context"
                .into(),
        );
        hints.push("remove `allowPromptInjection: false`".into());
    }
    let slot = plugins["slots"]["memory"].as_str();
    if slot == Some(PLUGIN_ID) {
        fails.push(
            "`plugins.slots.memory` is `cairn`, but Cairn is no memory-slot plugin: it works through hooks \
             beside the memory plugin"
                .into(),
        );
        hints.push("set `plugins.slots.memory` back to `memory-core` (or `none`)".into());
    }
    if options.unix.is_none() {
        let url = entry["config"]["baseUrl"].as_str().unwrap_or("http://127.0.0.1:7411");
        if let Some(port) = loopback_port(url)
            && reachable(options.addr).ip().is_loopback()
            && port != options.addr.port()
        {
            warns.push(format!("the plugin calls `{url}`, but `cairn serve` listens on {}", options.addr));
            hints.push(format!(
                "set `plugins.entries.cairn.config.baseUrl` to `http://{}` (or `serve.addr` to match)",
                reachable(options.addr)
            ));
        }
    }

    let problems: Vec<String> = fails.iter().chain(&warns).cloned().collect();
    if problems.is_empty() {
        let folder = folder.map(|f| f.display().to_string()).unwrap_or_default();
        let slot = slot.map_or_else(|| "`memory-core` (default)".to_owned(), |s| format!("`{s}`"));
        return Check::ok(
            NAME,
            format!("`{shown}`: plugin at `{folder}`, conversation access granted, memory slot {slot}"),
        );
    }
    let detail = format!("`{shown}`: {}", problems.join("; "));
    let hint = format!("{} (see docs/openclaw.md)", hints.join("; "));
    if fails.is_empty() { Check::warn(NAME, detail, hint) } else { Check::fail(NAME, detail, hint) }
}

/// The folder holding the Cairn plugin: a `plugins.load.paths` entry (a folder, or a file in one) or a
/// folder of `<config dir>/extensions`, whose `openclaw.plugin.json` has id `cairn`. Also the load
/// paths that do not exist.
fn plugin_folder(plugins: &Value, base: &Path, home: Option<&Path>) -> (Option<PathBuf>, Vec<String>) {
    let mut missing = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    for raw in plugins["load"]["paths"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        let p = match (raw.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ => base.join(raw),
        };
        if !p.exists() {
            missing.push(raw.to_owned());
        } else if p.is_file() {
            candidates.extend(p.parent().map(Path::to_path_buf));
        } else {
            candidates.push(p);
        }
    }
    if let Ok(entries) = std::fs::read_dir(base.join("extensions")) {
        let mut found: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        found.sort();
        candidates.extend(found);
    }
    let is_cairn = |dir: &Path| {
        let Ok(text) = std::fs::read_to_string(dir.join("openclaw.plugin.json")) else { return false };
        json5::from_str::<Value>(&text).is_ok_and(|m| m["id"].as_str() == Some(PLUGIN_ID))
    };
    (candidates.into_iter().find(|d| is_cairn(d)), missing)
}

/// The port of an `http://` URL on a loopback host, `None` for any other URL.
fn loopback_port(url: &str) -> Option<u16> {
    let rest = url.strip_prefix("http://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (h, p.parse().ok()?),
        _ => (authority, 80),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback =
        host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    loopback.then_some(port)
}

#[cfg(test)]
mod tests {
    use super::*;

    use cairn_engine::CheckStatus;

    fn resolve(vars: &[(&str, &str)]) -> Option<PathBuf> {
        openclaw_config_path(|k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned()))
    }

    #[test]
    fn the_config_is_found_where_openclaw_looks() {
        assert_eq!(resolve(&[("HOME", "/h")]), Some("/h/.openclaw/openclaw.json".into()));
        assert_eq!(
            resolve(&[("HOME", "/h"), ("OPENCLAW_HOME", "/o")]),
            Some("/o/.openclaw/openclaw.json".into())
        );
        assert_eq!(resolve(&[("HOME", "/h"), ("OPENCLAW_STATE_DIR", "/s")]), Some("/s/openclaw.json".into()));
        assert_eq!(
            resolve(&[("HOME", "/h"), ("OPENCLAW_STATE_DIR", "/s"), ("OPENCLAW_CONFIG_PATH", "~/c.json")]),
            Some("/h/c.json".into())
        );
        assert_eq!(resolve(&[("HOME", " ")]), None);
    }

    #[test]
    fn loopback_ports() {
        assert_eq!(loopback_port("http://127.0.0.1:7411"), Some(7411));
        assert_eq!(loopback_port("http://localhost:9000/"), Some(9000));
        assert_eq!(loopback_port("http://[::1]:81/x"), Some(81));
        assert_eq!(loopback_port("http://localhost"), Some(80));
        assert_eq!(loopback_port("http://example.com:7411"), None);
        assert_eq!(loopback_port("https://127.0.0.1:7411"), None);
    }

    /// An OpenClaw config beside a plugin folder; the check's status and detail.
    fn checked(config: &str) -> Check {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("plugin");
        std::fs::create_dir(&plugin).unwrap();
        std::fs::write(plugin.join("openclaw.plugin.json"), "{ id: 'cairn', // JSON5\n configSchema: {} }")
            .unwrap();
        let path = dir.path().join("openclaw.json");
        std::fs::write(&path, config.replace("PLUGIN", &plugin.display().to_string())).unwrap();
        openclaw(&path, None, &ServeSettings::default())
    }

    #[test]
    fn openclaw_configs() {
        let good = "{ plugins: { load: { paths: ['PLUGIN'] }, // the folder\n \
                    entries: { cairn: { enabled: true, hooks: { allowConversationAccess: true } } } } }";
        let c = checked(good);
        assert_eq!(c.status, CheckStatus::Ok, "{c:?}");
        assert!(c.detail.contains("memory slot `memory-core` (default)"), "{c:?}");

        let c = checked(&good.replace("allowConversationAccess: true", "allowPromptInjection: true"));
        assert_eq!(c.status, CheckStatus::Fail, "{c:?}");
        assert!(c.detail.contains("allowConversationAccess"), "{c:?}");

        let c = checked(&good.replace("'PLUGIN'", "'PLUGIN/nowhere'"));
        assert_eq!(c.status, CheckStatus::Fail, "{c:?}");
        assert!(c.detail.contains("does not exist"), "{c:?}");

        let c = checked(&good.replace("plugins: {", "plugins: { slots: { memory: 'cairn' },"));
        assert_eq!(c.status, CheckStatus::Fail, "{c:?}");

        let c = checked(
            &good.replace("enabled: true,", "enabled: true, config: { baseUrl: 'http://127.0.0.1:9' },"),
        );
        assert_eq!(c.status, CheckStatus::Warn, "{c:?}");
        assert!(c.detail.contains("listens on 127.0.0.1:7411"), "{c:?}");

        assert_eq!(checked("{ agents: {} }").status, CheckStatus::Ok, "Cairn not set up: skipped");
        assert_eq!(checked("{ plugins: ").status, CheckStatus::Fail, "not JSON5");
    }

    #[test]
    fn no_daemon_is_a_warning() {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let options = ServeSettings { addr: free, ..ServeSettings::default() };
        let dir = tempfile::tempdir().unwrap();
        let c = daemon(&options, dir.path());
        assert_eq!(c.status, CheckStatus::Warn, "{c:?}");
        assert!(c.detail.starts_with("not running"), "{c:?}");
    }
}
