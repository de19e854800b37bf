//! `cairn doctor`: is each part of the engine healthy? One [`Check`] per part (store, index, model,
//! vectors, routing, sessions, permissions), each `ok`, `warn` or `fail` with a hint saying what to
//! run. Surfaces print them (the CLI) or could serve them (the daemon); the serve layer adds its own
//! checks (the daemon, the OpenClaw plugin) in the same shape.
//!
//! Checks look without touching: the store is read through a read-only connection (never created,
//! migrated or written), the index is opened but not synced (a sync would hide the lag it measures),
//! the engine's lazily opened parts stay closed. Only the model is loaded, to embed one string.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairn_embed::{EmbedKind, EmbedProvider, Embedder};
use cairn_recall::RecallIndex;
use cairn_route::{SessionType, Severity};
use cairn_store::{SCHEMA_VERSION, SqliteStore, Store};
use serde::Serialize;

use crate::open::Engine;

/// Whether the default relevance calibration was measured for the model `id` identifies: the
/// default model, installed (`all-minilm-l6-v2@1a2b3c4d`) or served under one of its usual names
/// (`http:all-minilm`, `http:sentence-transformers/all-MiniLM-L6-v2`), or all-mpnet-base-v2, whose
/// measured best calibration is the default one (BENCHMARKS.md, "A larger model").
fn calibrated_for(id: &str) -> bool {
    let name = id.strip_prefix("http:").unwrap_or(id);
    let name = name.split('@').next().unwrap_or(name).to_ascii_lowercase();
    let name = name.strip_prefix("sentence-transformers/").unwrap_or(&name);
    matches!(name, "all-minilm" | "all-minilm:latest" | "all-minilm:22m" | "all-minilm:l6-v2")
        || name == cairn_embed::DEFAULT_MODEL
        || name == "all-mpnet-base-v2"
}

/// How a check came out; ordered from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// Healthy (or deliberately off).
    Ok,
    /// Working, but something deserves a look (a lagging index, a daemon not running).
    Warn,
    /// Broken: Cairn cannot do this part of its job until the hint is followed.
    Fail,
}

impl CheckStatus {
    /// `ok`, `warn` or `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Ok => "ok",
            CheckStatus::Warn => "warn",
            CheckStatus::Fail => "fail",
        }
    }
}

/// One checked part: its name, how it came out, what was found and, unless it is ok, what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The part checked (`store`, `index`, `model`, ...).
    pub name: String,
    /// How it came out.
    pub status: CheckStatus,
    /// What was found.
    pub detail: String,
    /// What to do about it (a command to run, a setting to change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Check {
    /// A healthy part.
    pub fn ok(name: &str, detail: impl Into<String>) -> Check {
        Check { name: name.to_owned(), status: CheckStatus::Ok, detail: detail.into(), hint: None }
    }

    /// A part that works but deserves a look.
    pub fn warn(name: &str, detail: impl Into<String>, hint: impl Into<String>) -> Check {
        Check::with(name, CheckStatus::Warn, detail.into(), hint.into())
    }

    /// A broken part.
    pub fn fail(name: &str, detail: impl Into<String>, hint: impl Into<String>) -> Check {
        Check::with(name, CheckStatus::Fail, detail.into(), hint.into())
    }

    /// A part that could not be checked because another one failed (whose line has the hint).
    pub fn unchecked(name: &str, why: &str) -> Check {
        Check {
            name: name.to_owned(),
            status: CheckStatus::Warn,
            detail: format!("not checked: {why}"),
            hint: None,
        }
    }

    fn with(name: &str, status: CheckStatus, detail: String, hint: String) -> Check {
        let hint = Some(hint).filter(|h| !h.is_empty());
        Check { name: name.to_owned(), status, detail, hint }
    }
}

/// What the model check found, for the vectors check.
enum ModelState {
    /// No model is used (embedding off, or the vector lane off): nothing to embed.
    Off,
    /// The configured model is broken (its check failed).
    Broken,
    /// The model loaded and embedded a string.
    Loaded(Arc<dyn Embedder>),
}

/// At most this many unrecognised session keys are named in the sessions check.
const KEYS_SHOWN: usize = 5;

const NO_STORE: &str = "the store did not open";

impl Engine {
    /// Checks every part of the engine, in order: store, index, model, vectors, routing, sessions,
    /// permissions, then each remote source (its health checked now). `private_files` are files besides the store that must be the owner's alone (the
    /// daemon's token); missing ones are skipped. Nothing is changed.
    pub fn doctor(&self, private_files: &[PathBuf]) -> Vec<Check> {
        let (store_check, store) = self.check_store();
        let (model_check, model) = self.check_model();
        let mut checks = vec![
            store_check,
            self.check_index(store.as_ref()),
            model_check,
            check_vectors(store.as_ref(), &model),
            self.check_routing(),
            self.check_sessions(store.as_ref()),
            self.check_permissions(private_files),
        ];
        checks.extend(self.check_sources());
        checks
    }

    /// Each remote source, its health checked now: up is ok; down is a warning (turns go on without
    /// it), unless it can never work as configured (a section that does not open, a secret whose
    /// variable is unset), which fails.
    fn check_sources(&self) -> Vec<Check> {
        const FIX: &str = "fix the `[remote.<name>]` section in cairn.toml (see docs/remote.md)";
        let mut out: Vec<Check> =
            self.source_problems.iter().map(|p| Check::fail("remote", p.clone(), FIX)).collect();
        for s in self.probe_sources() {
            let name = format!("{}{}", crate::remote::REMOTE_LANE, s.name);
            let at = format!(
                "{} at {} ({} audience, timeout {} ms)",
                s.kind, s.endpoint, s.audience, s.timeout_ms
            );
            let reason = s.reason.clone().unwrap_or_default();
            out.push(match s.state {
                cairn_core::SourceState::Up => Check::ok(&name, format!("{at}: healthy")),
                _ if reason.contains("secret is not set") => Check::fail(
                    &name,
                    format!("{at}: {reason}"),
                    "export the variable its `secret_env` names before starting cairn",
                ),
                _ => Check::warn(
                    &name,
                    format!("{at}: down: {reason}"),
                    "start the service, or fix its `endpoint` (turns go on without it meanwhile)",
                ),
            });
        }
        out
    }

    /// The store: there, readable, a schema this build reads, SQLite's integrity check passes. Returns
    /// the read-only connection for the checks that read it.
    fn check_store(&self) -> (Check, Option<SqliteStore>) {
        const NAME: &str = "store";
        let path = self.cfg.store_path();
        let shown = path.display();
        let rebuild = format!(
            "restore `{shown}` from a backup, or move it aside and run `cairn harvest` to rebuild it from the \
             memory files (captured turns are only in the store)"
        );
        if !path.exists() && self.cfg.store.url.is_some() {
            // A new host of a shared store: its file (this host's parts only) is made on first use.
            if let Err(e) = self.open_read_only() {
                let hint = "check `[store] url` (or CAIRN_STORE__URL) and that the PostgreSQL server is up";
                return (Check::fail(NAME, format!("shared store: {e}"), hint), None);
            }
        }
        if !path.exists() {
            let hint = "run `cairn harvest` to create it, or pass `--data-dir` (or set `data_dir`)";
            return (Check::fail(NAME, format!("no store at `{shown}`"), hint), None);
        }
        let version = match SqliteStore::schema_version_at(&path) {
            Ok(v) => v,
            Err(e) => return (Check::fail(NAME, format!("cannot open: {e}"), rebuild), None),
        };
        if version > SCHEMA_VERSION {
            let detail =
                format!("`{shown}`: schema v{version} is newer than this cairn reads (v{SCHEMA_VERSION})");
            return (Check::fail(NAME, detail, "upgrade cairn to the version that wrote it"), None);
        }
        if version < SCHEMA_VERSION {
            let detail = format!(
                "`{shown}`: schema v{version}, migrated to v{SCHEMA_VERSION} the next time a command opens it"
            );
            return (Check::warn(NAME, detail, "run `cairn status` to migrate it now"), None);
        }
        let store = match SqliteStore::open_read_only(&path) {
            Ok(s) => s,
            Err(e) => return (Check::fail(NAME, format!("cannot open: {e}"), rebuild), None),
        };
        if let Err(e) = store.integrity_check() {
            return (Check::fail(NAME, format!("`{shown}` is damaged: {e}"), rebuild), None);
        }
        // With a shared store, the counts (and every later check's reads) come from the server.
        let store = match self.attach_shared(store) {
            Ok(s) => s,
            Err(e) => {
                let hint = "check `[store] url` (or CAIRN_STORE__URL) and that the PostgreSQL server is up";
                return (Check::fail(NAME, format!("shared store: {e}"), hint), None);
            }
        };
        let shared = store
            .shared()
            .map(|s| {
                let version = s.schema_version().map_or_else(|_| "?".to_owned(), |v| v.to_string());
                format!(" + shared `{}` (schema v{version}, {})", s.label(), s.transport().as_str())
            })
            .unwrap_or_default();
        let in_clear = store.shared().is_some_and(|s| s.transport() == cairn_store::PgTransport::Plain);
        match store.status() {
            Ok(st) => {
                let detail = format!(
                    "`{shown}`{shared}: schema v{version}, integrity ok, {} ({}), {}",
                    count(st.items, "item"),
                    count(st.chunks, "chunk"),
                    count(st.sessions, "session")
                );
                if in_clear {
                    let hint = "the password and the memory cross the network in clear: add \
                                `sslmode=require` (and `sslrootcert=<the server's CA>`) to `[store] url`";
                    return (Check::warn(NAME, detail, hint), Some(store));
                }
                (Check::ok(NAME, detail), Some(store))
            }
            Err(e) => (Check::fail(NAME, format!("`{shown}` cannot be read: {e}"), rebuild), None),
        }
    }

    /// The full-text index: there, readable, synced to the store's last log sequence.
    fn check_index(&self, store: Option<&SqliteStore>) -> Check {
        const NAME: &str = "index";
        const REINDEX: &str = "run `cairn reindex` (any read also catches up)";
        let dir = self.cfg.index_dir();
        let shown = dir.display();
        let Some(store) = store else { return Check::unchecked(NAME, NO_STORE) };
        if !dir.exists() {
            return Check::warn(
                NAME,
                format!("no index at `{shown}`: rebuilt from the store on the next read"),
                REINDEX,
            );
        }
        let synced = RecallIndex::open(&dir)
            .map_err(|e| e.to_string())
            .and_then(|i| i.synced_seq().map_err(|e| e.to_string()));
        let synced = match synced {
            Ok(s) => s,
            Err(e) => {
                return Check::warn(
                    NAME,
                    format!("`{shown}` is unusable ({e}): rebuilt on the next read"),
                    REINDEX,
                );
            }
        };
        let last = match store.last_seq() {
            Ok(l) => l,
            Err(e) => return Check::unchecked(NAME, &format!("the store's log cannot be read: {e}")),
        };
        match synced {
            Some(s) if s == last => Check::ok(NAME, format!("synced to the store (log seq {last})")),
            Some(s) if s < last => Check::warn(
                NAME,
                format!("{} behind the store (synced to log seq {s} of {last})", count(last - s, "write")),
                REINDEX,
            ),
            Some(s) => Check::warn(
                NAME,
                format!(
                    "ahead of the store (log seq {s} > {last}: built from another store?): rebuilt on the next read"
                ),
                REINDEX,
            ),
            None => {
                Check::warn(NAME, format!("`{shown}` was never synced: rebuilt on the next read"), REINDEX)
            }
        }
    }

    /// The embedding model: the configured one loads and embeds one string (when the vector lane uses
    /// one at all).
    fn check_model(&self) -> (Check, ModelState) {
        const NAME: &str = "model";
        if !self.cfg.wants_vectors() {
            return (Check::ok(NAME, "not used: the vector lane is off (`recall.lanes`)"), ModelState::Off);
        }
        let opened = match &self.cfg.embedder {
            Some(e) => Ok(Some(e.clone())),
            None => cairn_embed::try_open(&self.cfg.embed, &self.cfg.data_dir),
        };
        let http = self.cfg.embed.provider == EmbedProvider::Http;
        let fix = if http {
            "check `embed.http` (base_url, model) and that the server answers"
        } else {
            "run `cairn models install` (or point `embed.model` at an installed model)"
        };
        let embedder = match opened {
            Ok(Some(e)) => e,
            Ok(None) => {
                return (
                    Check::ok(NAME, "embedding off (`embed.provider = \"none\"`): lexical recall only"),
                    ModelState::Off,
                );
            }
            Err(cairn_embed::Error::ModelDirMissing { dir }) => {
                let detail = format!("not installed: no model at `{}`", dir.display());
                return (Check::fail(NAME, detail, "run `cairn models install`"), ModelState::Broken);
            }
            Err(e) => {
                let hint = if http {
                    fix.to_owned()
                } else {
                    "reinstall it: `cairn models install --force`".to_owned()
                };
                return (Check::fail(NAME, format!("cannot load: {e}"), hint), ModelState::Broken);
            }
        };
        let id = embedder.model_id().to_owned();
        let dim = embedder.dim();
        match embedder.embed(&["cairn doctor"], EmbedKind::Query) {
            Ok(v) if v.len() == 1 && v[0].len() == dim => {
                let works = format!("`{id}` ({dim} dimensions) loads and embeds");
                let check = if calibrated_for(&id)
                    || self.cfg.recall.calibration != cairn_recall::Calibration::default()
                {
                    Check::ok(NAME, works)
                } else {
                    Check::warn(
                        NAME,
                        format!(
                            "{works}, but the relevance floor's calibration (`recall.calibration`) is the \
                             one measured for {}: with another model it may inject notes into off-topic \
                             turns or hold relevant ones back",
                            cairn_embed::DEFAULT_MODEL
                        ),
                        "measure the model on labelled questions (`cairn eval retrieval --workspace …`) and \
                         set `recall.calibration` (docs/recall.md, \"Another model\")",
                    )
                };
                (check, ModelState::Loaded(embedder))
            }
            Ok(v) => {
                let got = v.first().map_or(0, Vec::len);
                let detail = format!(
                    "`{id}` returned {} vectors of {got} dimensions for one text, not one of {dim}",
                    v.len()
                );
                (Check::fail(NAME, detail, fix), ModelState::Broken)
            }
            Err(e) => {
                (Check::fail(NAME, format!("`{id}` loads but cannot embed: {e}"), fix), ModelState::Broken)
            }
        }
    }

    /// The routing config: an audit with errors (`cairn rules audit` fails) fails; one that passes is
    /// ok, its warnings counted (the audit passes with them: a composition rule naming a disabled pack
    /// is allowed); none configured is fine (memory without packs).
    fn check_routing(&self) -> Check {
        const NAME: &str = "routing";
        let Some(dir) = &self.cfg.route_dir else {
            return Check::ok(NAME, "no routing config: memory without workflow packs");
        };
        let report = cairn_route::audit(dir);
        let errors: Vec<_> = report.findings.iter().filter(|f| f.severity == Severity::Error).collect();
        let warnings = report.findings.len() - errors.len();
        let audit = format!("`cairn --route-config {} rules audit`", dir.display());
        let counts = format!("{} rules, {} packs in `{}`", report.rules, report.packs, dir.display());
        if let Some(first) = errors.first() {
            let at = first.line.map_or_else(String::new, |l| format!(":{l}"));
            let detail = format!(
                "{counts}: {} error(s), first: {}{at}: {}",
                errors.len(),
                first.file.display(),
                first.message
            );
            Check::fail(NAME, detail, format!("run {audit} for every finding"))
        } else if warnings > 0 {
            Check::ok(
                NAME,
                format!("{counts}: audit passed, {} (listed by {audit})", count(warnings as u64, "warning")),
            )
        } else {
            Check::ok(NAME, format!("{counts}: audit passed"))
        }
    }

    /// The session keys of captured turns: every one in a format Cairn recognises. A key in none is
    /// classified by `unknown` in `sessions.yaml` (a shared audience by default), which may not be what
    /// the owner meant.
    fn check_sessions(&self, store: Option<&SqliteStore>) -> Check {
        const NAME: &str = "sessions";
        let Some(store) = store else { return Check::unchecked(NAME, NO_STORE) };
        let keys = match store.session_keys() {
            Ok(k) => k,
            Err(e) => return Check::unchecked(NAME, &format!("the sessions cannot be read: {e}")),
        };
        let mut unknown = Vec::new();
        let mut shared = true;
        for key in &keys {
            let info = self.classify(key);
            if info.session_type == SessionType::Fallback {
                shared = info.audience_shared;
                unknown.push(key.as_str());
            }
        }
        if keys.is_empty() {
            return Check::ok(NAME, "no captured sessions");
        }
        if unknown.is_empty() {
            return Check::ok(
                NAME,
                format!("{}, all in recognised formats", count(keys.len() as u64, "session key")),
            );
        }
        let mut named: Vec<String> = unknown.iter().take(KEYS_SHOWN).map(|k| format!("`{k}`")).collect();
        if unknown.len() > KEYS_SHOWN {
            named.push(format!("and {} more", unknown.len() - KEYS_SHOWN));
        }
        let (treated, hint) = if shared {
            (
                "treated as a shared audience (no private memory or packs)",
                "if these sessions are yours alone, set `unknown: owner` in sessions.yaml; if others read them, \
                 nothing to do",
            )
        } else {
            (
                "treated as the owner's (`unknown: owner` in sessions.yaml): they see private memory",
                "make sure nobody else reads these sessions, or remove `unknown: owner` from sessions.yaml",
            )
        };
        let detail = format!(
            "{} of {} session keys in no recognised format, {treated}: {}",
            unknown.len(),
            keys.len(),
            named.join(", ")
        );
        Check::warn(NAME, detail, hint)
    }

    /// The data dir is the owner's alone (0700), and so are the store and `private_files` (0600).
    fn check_permissions(&self, private_files: &[PathBuf]) -> Check {
        const NAME: &str = "permissions";
        let dir = &self.cfg.data_dir;
        let mut found = Vec::new();
        let mut problems = Vec::new();
        let mut fixes = Vec::new();
        let mut look = |path: &Path, dir: bool| {
            let Some(mode) = mode_of(path) else { return };
            let want = if dir { 0o700 } else { 0o600 };
            let name = match path.file_name() {
                _ if dir => "data dir".to_owned(),
                Some(n) => n.to_string_lossy().into_owned(),
                None => path.display().to_string(),
            };
            found.push(format!("{name} {mode:04o}"));
            if mode & 0o077 != 0 {
                problems.push(format!("`{}` is {mode:04o} (other users can reach it)", path.display()));
                fixes.push(format!("chmod {want:o} {}", path.display()));
            }
        };
        look(dir, true);
        look(&self.cfg.store_path(), false);
        for f in private_files {
            look(f, false);
        }
        if found.is_empty() {
            return Check::ok(NAME, format!("no data dir at `{}` yet", dir.display()));
        }
        if problems.is_empty() {
            Check::ok(NAME, found.join(", "))
        } else {
            Check::warn(NAME, problems.join("; "), format!("`{}`", fixes.join(" && ")))
        }
    }
}

/// The vectors: every chunk has a current vector under the model.
fn check_vectors(store: Option<&SqliteStore>, model: &ModelState) -> Check {
    const NAME: &str = "vectors";
    let embedder = match model {
        ModelState::Off => return Check::ok(NAME, "not used: embedding off"),
        ModelState::Broken => return Check::unchecked(NAME, "the model did not load"),
        ModelState::Loaded(e) => e,
    };
    let Some(store) = store else { return Check::unchecked(NAME, NO_STORE) };
    let key = crate::vectors::vector_key(embedder.as_ref());
    let id = key.as_str();
    match store.vector_status(id, embedder.dim()) {
        Ok(st) if st.pending == 0 => Check::ok(NAME, format!("{} chunks embedded with `{id}`", st.current)),
        Ok(st) => Check::warn(
            NAME,
            format!("{} of {} chunks have no vector for `{id}`", st.pending, st.pending + st.current),
            "run `cairn reindex` (or the next `cairn harvest`) to embed them; a running `cairn serve` embeds captured \
             turns within seconds",
        ),
        Err(e) => Check::unchecked(NAME, &format!("the vectors cannot be read: {e}")),
    }
}

/// `1 write`, `3 writes`.
fn count(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The permission bits of `path`, `None` when it does not exist.
fn mode_of(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).ok().map(|m| m.permissions().mode() & 0o777)
}

#[cfg(test)]
mod tests {
    use super::*;

    use cairn_core::Audience;
    use cairn_store::Write;

    use crate::EngineConfig;

    fn engine(dir: &Path) -> Engine {
        let mut cfg = EngineConfig::new(dir);
        cfg.embed.provider = EmbedProvider::None;
        Engine::open_lazy(cfg)
    }

    fn check<'a>(checks: &'a [Check], name: &str) -> &'a Check {
        checks.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no `{name}` check in {checks:?}"))
    }

    #[test]
    fn no_store_fails_and_the_parts_that_read_it_are_not_checked() {
        let dir = tempfile::tempdir().unwrap();
        let checks = engine(&dir.path().join("data")).doctor(&[]);
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["store", "index", "model", "vectors", "routing", "sessions", "permissions"]);
        let store = check(&checks, "store");
        assert_eq!(store.status, CheckStatus::Fail);
        assert!(store.hint.as_deref().unwrap().contains("cairn harvest"), "{store:?}");
        assert!(check(&checks, "index").detail.starts_with("not checked"));
        assert_eq!(check(&checks, "model").status, CheckStatus::Ok, "embedding is off");
        assert!(!dir.path().join("data").exists(), "the doctor created nothing");
    }

    #[test]
    fn a_model_the_calibration_was_not_measured_for_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("tiny-model");
        cairn_embed::testing::TinyModel::default().write(&model).unwrap();
        let mut cfg = EngineConfig::new(dir.path().join("data"));
        cfg.embed.provider = EmbedProvider::Local;
        cfg.embed.model = model.display().to_string();
        let model_check =
            |cfg: &EngineConfig| check(&Engine::open_lazy(cfg.clone()).doctor(&[]), "model").clone();
        let c = model_check(&cfg);
        assert_eq!(c.status, CheckStatus::Warn, "{c:?}");
        assert!(c.detail.contains("tiny-model@") && c.detail.contains("all-minilm-l6-v2"), "{c:?}");
        assert!(c.hint.as_deref().unwrap().contains("recall.calibration"), "{c:?}");
        // Calibrated by hand: the owner measured it.
        cfg.recall.calibration.affinity_zero = -0.05;
        assert_eq!(model_check(&cfg).status, CheckStatus::Ok);
    }

    #[test]
    fn the_default_model_under_its_usual_names_is_calibrated() {
        for id in [
            "all-minilm-l6-v2@53aa5117",
            "http:all-minilm",
            "http:all-minilm:22m",
            "http:sentence-transformers/all-MiniLM-L6-v2",
            "http:all-MiniLM-L6-v2",
            "all-mpnet-base-v2@78c0197b",
            "http:sentence-transformers/all-mpnet-base-v2",
        ] {
            assert!(calibrated_for(id), "{id}");
        }
        for id in
            ["tiny-model@0badf00d", "http:nomic-embed-text", "http:all-minilm:33m", "http:all-mpnet-base-v1"]
        {
            assert!(!calibrated_for(id), "{id}");
        }
    }

    #[test]
    fn a_healthy_store_then_writes_the_index_has_not_seen() {
        let dir = tempfile::tempdir().unwrap();
        // The store creates its data dir (0700): a temp dir itself is 0755.
        let engine = engine(&dir.path().join("data"));
        engine
            .ingest(&crate::IngestNote {
                text: "The alert queue lives in SQLite.".into(),
                ..Default::default()
            })
            .unwrap();
        let checks = engine.doctor(&[]);
        for c in &checks {
            assert_eq!(c.status, CheckStatus::Ok, "{c:?}");
        }
        // A write behind the index's back: the index lags by one entry.
        let mut store = SqliteStore::open(&engine.config().store_path()).unwrap();
        store
            .apply(
                &[Write::upsert(cairn_test::fact("fact:late", "Late", "late", Audience::Public), vec![])],
                "test",
            )
            .unwrap();
        let index = check(&engine.doctor(&[]), "index").clone();
        assert_eq!(index.status, CheckStatus::Warn, "{index:?}");
        assert!(index.detail.starts_with("1 write behind"), "{index:?}");
        assert!(index.hint.unwrap().contains("cairn reindex"));
    }

    #[test]
    fn an_older_schema_warns_and_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        drop(SqliteStore::open_at_version(&data.join("cairn.sqlite"), 2).unwrap());
        let checks = engine(&data).doctor(&[]);
        let store = check(&checks, "store");
        assert_eq!(store.status, CheckStatus::Warn, "{store:?}");
        assert!(store.detail.contains(&format!("schema v2, migrated to v{SCHEMA_VERSION}")), "{store:?}");
        assert_eq!(SqliteStore::schema_version_at(&data.join("cairn.sqlite")).unwrap(), 2, "not migrated");
    }

    #[test]
    fn statuses_order_from_best_to_worst() {
        assert!(CheckStatus::Ok < CheckStatus::Warn && CheckStatus::Warn < CheckStatus::Fail);
        let json = serde_json::to_value(Check::warn("x", "d", "")).unwrap();
        assert_eq!(json, serde_json::json!({"name": "x", "status": "warn", "detail": "d"}));
    }
}
