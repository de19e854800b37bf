//! Layered settings: embedded defaults → `cairn.toml` → `CAIRN_*` env → flags, resolved once.

use std::path::{Path, PathBuf};

use anyhow::Context;
use cairn_engine::{Engine, EngineConfig, settings};
use clap::Args;
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

/// Flags shared by every command.
#[derive(Debug, Clone, Args)]
pub(crate) struct GlobalArgs {
    /// Config file (default: `$CAIRN_CONFIG`, else `./cairn.toml`, else `$XDG_CONFIG_HOME/cairn/cairn.toml`
    /// (`~/.config/cairn/cairn.toml`), the first that exists)
    #[arg(long, global = true, env = "CAIRN_CONFIG")]
    pub config: Option<PathBuf>,
    /// Where Cairn keeps its store and indexes
    #[arg(long, global = true)]
    pub data_dir: Option<PathBuf>,
    /// The agent workspace holding `MEMORY.md` and `memory/`
    #[arg(long, global = true)]
    pub workspace: Option<PathBuf>,
    /// Routing config directory (intent rules, packs, sessions)
    #[arg(long, global = true)]
    pub route_config: Option<PathBuf>,
}

/// Routing settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RouteSettings {
    /// Directory with `intent_rules.yaml`, `pack_registry.yaml`, ... (relative paths are relative to the config file)
    pub config_dir: PathBuf,
}

/// Watch settings (`[watch]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct WatchSettings {
    /// Quiet time after the last event before re-indexing, in milliseconds.
    pub debounce_ms: u64,
    /// Whether `cairn serve` harvests and watches the workspace itself, when the workspace exists
    /// (`--watch` / `--no-watch` override it): one process for an OpenClaw user.
    pub serve: bool,
}

impl Default for WatchSettings {
    fn default() -> Self {
        Self { debounce_ms: 300, serve: true }
    }
}

/// The one resolved settings value passed down to every command.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Settings {
    /// Store and index directory.
    pub data_dir: PathBuf,
    /// Agent workspace root.
    pub workspace: PathBuf,
    /// Harvesting memory files.
    #[serde(default)]
    pub harvest: settings::HarvestSettings,
    /// Capturing turns.
    #[serde(default)]
    pub capture: settings::CaptureSettings,
    /// Watch mode.
    #[serde(default)]
    pub watch: WatchSettings,
    /// Recall lanes and fusion.
    #[serde(default)]
    pub recall: settings::RecallSettings,
    /// Context assembly defaults.
    #[serde(default)]
    pub context: settings::ContextSettings,
    /// The link graph and its lane.
    #[serde(default)]
    pub graph: settings::GraphSettings,
    /// A shared store on PostgreSQL (`[store] url`).
    #[serde(default)]
    pub store: settings::StoreSettings,
    /// Routing.
    pub route: RouteSettings,
    /// Embeddings (semantic recall).
    #[serde(default)]
    pub embed: settings::EmbedSettings,
    /// Vector index and embedding at ingest.
    #[serde(default)]
    pub vector: settings::VectorSettings,
    /// The daemon.
    #[serde(default)]
    pub serve: cairn_serve::ServeSettings,
    /// Remote sources (`[remote.<name>]`): memory services consulted on every turn.
    #[serde(default)]
    pub remote: settings::RemoteSettings,
    /// Adaptive context injection: wisdom compression, the compact tools file, backups.
    #[serde(default)]
    pub aci: cairn_aci::AciSettings,
    /// The config file these settings were read from (none: defaults and environment only).
    #[serde(skip)]
    pub config_file: Option<PathBuf>,
}

/// The user's config file: `$XDG_CONFIG_HOME/cairn/cairn.toml`, else `~/.config/cairn/cairn.toml`.
pub(crate) fn user_config_file() -> Option<PathBuf> {
    let config_home =
        std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(config_home.join("cairn").join("cairn.toml"))
}

impl Default for Settings {
    fn default() -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        let data_home =
            std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".local/share"));
        Settings {
            data_dir: data_home.join("cairn"),
            workspace: home.join(".openclaw/workspace"),
            harvest: settings::HarvestSettings::default(),
            capture: settings::CaptureSettings::default(),
            watch: WatchSettings::default(),
            recall: settings::RecallSettings::default(),
            context: settings::ContextSettings::default(),
            graph: settings::GraphSettings::default(),
            store: settings::StoreSettings::default(),
            route: RouteSettings { config_dir: PathBuf::from("config") },
            embed: settings::EmbedSettings::default(),
            vector: settings::VectorSettings::default(),
            serve: cairn_serve::ServeSettings::default(),
            remote: settings::RemoteSettings::default(),
            aci: cairn_aci::AciSettings::default(),
            config_file: None,
        }
    }
}

/// The top-level keys of [`Settings`]: a `CAIRN_*` variable is a setting only when it names one of these
/// (`CAIRN_HARVEST__DEFAULT_PROJECT`). Any other `CAIRN_*` variable (flags' env fallbacks, scripts' and
/// tests' knobs, a typo) is left alone, with a warning when it looks like a nested setting.
const SECTIONS: &[&str] = &[
    "data_dir",
    "workspace",
    "harvest",
    "capture",
    "watch",
    "recall",
    "context",
    "graph",
    "store",
    "route",
    "embed",
    "vector",
    "serve",
    "remote",
    "aci",
];

/// `CAIRN_*` variables that are not settings and are expected (flags' env fallbacks, script knobs).
const KNOWN_OTHERS: &[&str] = &[
    "config",
    "pypi_url",
    "demo_dir",
    "model_data_dir",
    "test_model_dir",
    "test_pg",
    "allow_no_model",
    "e2e_cache",
    "test_crash_before_rename",
];

/// Whether the `CAIRN_`-stripped variable name `key` is a setting
/// (figment may already have turned `__` into `.`), in any case.
fn is_setting(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let section = key.split("__").next().unwrap_or_default().split('.').next().unwrap_or_default();
    SECTIONS.contains(&section)
}

impl Settings {
    /// The SQLite store file.
    pub(crate) fn store_path(&self) -> PathBuf {
        self.data_dir.join("cairn.sqlite")
    }

    /// Whether there is a store to read: this host's file, or a shared store (whose host file is made on
    /// first use).
    pub(crate) fn has_store(&self) -> bool {
        self.store.url.is_some() || self.store_path().exists()
    }

    /// A one-shot engine over these settings: each part opens on first use.
    pub(crate) fn engine(&self) -> Engine {
        Engine::open_lazy(EngineConfig::from(self))
    }

    pub(crate) fn resolve(args: &GlobalArgs) -> anyhow::Result<Settings> {
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        let config_path = args.config.clone().or_else(|| {
            let local = PathBuf::from("cairn.toml");
            if local.exists() {
                return Some(local);
            }
            user_config_file().filter(|p| p.exists())
        });
        let mut base: Option<PathBuf> = None;
        if let Some(path) = &config_path {
            if !path.exists() {
                anyhow::bail!("config file `{}` does not exist", path.display());
            }
            figment = figment.merge(Toml::file(path));
            base = path.parent().map(Path::to_path_buf);
        }
        for (name, _) in std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v))) {
            let Some(key) = name.strip_prefix("CAIRN_").map(str::to_ascii_lowercase) else { continue };
            if !is_setting(&key) && !KNOWN_OTHERS.contains(&key.as_str()) {
                eprintln!("warning: ignoring `{name}`: not a setting (settings are CAIRN_<SECTION>__<KEY>)");
            }
        }
        figment = figment.merge(Env::prefixed("CAIRN_").split("__").filter(|k| is_setting(k.as_str())));
        let mut settings: Settings = figment.extract().with_context(|| match &config_path {
            Some(p) => format!("invalid settings (from `{}` or CAIRN_* env)", p.display()),
            None => "invalid settings (from CAIRN_* env)".to_owned(),
        })?;
        if let Some(base) = base.filter(|b| !b.as_os_str().is_empty()) {
            for p in [&mut settings.data_dir, &mut settings.workspace, &mut settings.route.config_dir] {
                if p.is_relative() {
                    *p = base.join(&*p);
                }
            }
            if let Some(p) = settings.serve.unix.as_mut().filter(|p| p.is_relative()) {
                *p = base.join(&*p);
            }
        }
        if let Some(d) = &args.data_dir {
            settings.data_dir = d.clone();
        }
        if let Some(w) = &args.workspace {
            settings.workspace = w.clone();
        }
        if let Some(r) = &args.route_config {
            settings.route.config_dir = r.clone();
        }
        settings.config_file = config_path;
        Ok(settings)
    }
}

/// The one mapping of resolved settings into the engine's configuration.
impl From<&Settings> for EngineConfig {
    fn from(s: &Settings) -> EngineConfig {
        let mut cfg = EngineConfig::new(s.data_dir.clone());
        cfg.workspace = Some(s.workspace.clone());
        cfg.route_dir = s.route.config_dir.exists().then(|| s.route.config_dir.clone());
        cfg.recall = s.recall.clone();
        cfg.context = s.context.clone();
        cfg.harvest = s.harvest.clone();
        cfg.capture = s.capture.clone();
        cfg.max_prompt_bytes = s.serve.max_prompt_bytes;
        cfg.embed = s.embed.clone();
        cfg.vector = s.vector.clone();
        cfg.graph = s.graph.clone();
        cfg.store = s.store.clone();
        // Each source's secret is read here, from the variable its section names: the engine and the
        // clients never read the environment.
        cfg.remote = s
            .remote
            .iter()
            .map(|(name, source)| {
                settings::SourceConfig::resolve(name, source, |var| std::env::var(var).ok())
            })
            .collect();
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_sections_are_settings() {
        for key in ["harvest__default_project", "serve__token", "data_dir", "embed__provider"] {
            assert!(is_setting(key), "{key}");
        }
        for key in ["serve_token", "e2e_cache", "config", "harvests__x", "foo"] {
            assert!(!is_setting(key), "{key}");
        }
    }

    /// The commented `cairn.toml` of `cairn init` shows every default; it must show the ones the code
    /// has (defaults are written once, in the code, and this keeps the template honest).
    #[test]
    fn the_commented_config_shows_the_defaults() {
        let template = crate::commands::ingest::CONFIG_TEMPLATE;
        let read: Settings = Figment::from(Serialized::defaults(Settings::default()))
            .merge(Toml::string(template))
            .extract()
            .expect("the template parses");
        assert_eq!(serde_json::to_value(&read).unwrap(), serde_json::to_value(Settings::default()).unwrap());
    }
}
