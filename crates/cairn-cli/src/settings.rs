//! Layered settings: embedded defaults → `cairn.toml` → `CAIRN_*` env → flags, resolved once.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

/// Flags shared by every command.
#[derive(Debug, Clone, Args)]
pub(crate) struct GlobalArgs {
    /// Config file (default: `./cairn.toml` if present, else `$CAIRN_CONFIG`)
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
}

impl Default for WatchSettings {
    fn default() -> Self {
        Self { debounce_ms: 300 }
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
    pub harvest: cairn_ingest::HarvestOptions,
    /// Capturing turns.
    #[serde(default)]
    pub capture: cairn_ingest::CaptureOptions,
    /// Watch mode.
    #[serde(default)]
    pub watch: WatchSettings,
    /// Recall lanes and fusion.
    #[serde(default)]
    pub recall: cairn_recall::RecallSettings,
    /// Context assembly defaults.
    #[serde(default)]
    pub context: crate::commands::context::ContextSettings,
    /// Routing.
    pub route: RouteSettings,
    /// Embeddings (semantic recall).
    #[serde(default)]
    pub embed: cairn_embed::EmbedSettings,
    /// Vector index and embedding at ingest.
    #[serde(default)]
    pub vector: cairn_vector::VectorSettings,
}

impl Default for Settings {
    fn default() -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        let data_home =
            std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".local/share"));
        Settings {
            data_dir: data_home.join("cairn"),
            workspace: home.join(".openclaw/workspace"),
            harvest: cairn_ingest::HarvestOptions::default(),
            capture: cairn_ingest::CaptureOptions::default(),
            watch: WatchSettings::default(),
            recall: cairn_recall::RecallSettings::default(),
            context: crate::commands::context::ContextSettings::default(),
            route: RouteSettings { config_dir: PathBuf::from("config") },
            embed: cairn_embed::EmbedSettings::default(),
            vector: cairn_vector::VectorSettings::default(),
        }
    }
}

/// `CAIRN_*` variables that are not settings (flags' env fallbacks, script and test knobs).
const NOT_SETTINGS: &[&str] =
    &["config", "pypi_url", "demo_dir", "model_data_dir", "test_model_dir", "allow_no_model"];

impl Settings {
    /// The SQLite store file.
    pub(crate) fn store_path(&self) -> PathBuf {
        self.data_dir.join("cairn.sqlite")
    }

    pub(crate) fn resolve(args: &GlobalArgs) -> anyhow::Result<Settings> {
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        let config_path = args.config.clone().or_else(|| {
            let local = PathBuf::from("cairn.toml");
            local.exists().then_some(local)
        });
        let mut base: Option<PathBuf> = None;
        if let Some(path) = &config_path {
            if !path.exists() {
                anyhow::bail!("config file `{}` does not exist", path.display());
            }
            figment = figment.merge(Toml::file(path));
            base = path.parent().map(Path::to_path_buf);
        }
        figment = figment.merge(Env::prefixed("CAIRN_").split("__").ignore(NOT_SETTINGS));
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
        Ok(settings)
    }
}
