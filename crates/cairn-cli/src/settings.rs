//! Layered settings: embedded defaults → `cairn.toml` → `CAIRN_*` env → flags, resolved once.

use std::path::{Path, PathBuf};

use anyhow::Context;
use cairn_core::Audience;
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

/// Harvest settings (`[harvest]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct HarvestSettings {
    /// Globs of memory files, relative to the workspace.
    pub include: Vec<String>,
    /// Globs to leave out.
    pub exclude: Vec<String>,
    /// Globs of files that are public unless their frontmatter says otherwise.
    pub public: Vec<String>,
    /// Project for files whose frontmatter names none.
    pub default_project: String,
    /// `private` or `public`.
    pub default_audience: Audience,
    /// Larger files are reported and skipped.
    pub max_file_bytes: u64,
    /// Target chunk size in characters.
    pub chunk_max_chars: usize,
}

impl Default for HarvestSettings {
    fn default() -> Self {
        let o = cairn_ingest::HarvestOptions::default();
        Self {
            include: o.include,
            exclude: o.exclude,
            public: o.public,
            default_project: o.default_project,
            default_audience: o.default_audience,
            max_file_bytes: o.max_file_bytes,
            chunk_max_chars: o.chunk_max_chars,
        }
    }
}

impl HarvestSettings {
    pub(crate) fn options(&self) -> cairn_ingest::HarvestOptions {
        cairn_ingest::HarvestOptions {
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            public: self.public.clone(),
            default_project: self.default_project.clone(),
            default_audience: self.default_audience,
            max_file_bytes: self.max_file_bytes,
            chunk_max_chars: self.chunk_max_chars,
            ..Default::default()
        }
    }
}

/// Capture settings (`[capture]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct CaptureSettings {
    /// Injected-block tag names stripped from captured turns.
    pub strip_tags: Vec<String>,
    /// Project for turns that name none.
    pub default_project: String,
    /// Audience for turns whose session does not decide it.
    pub default_audience: Audience,
}

impl Default for CaptureSettings {
    fn default() -> Self {
        let o = cairn_ingest::CaptureOptions::default();
        Self {
            strip_tags: o.strip_tags,
            default_project: o.default_project,
            default_audience: o.default_audience,
        }
    }
}

impl CaptureSettings {
    pub(crate) fn options(&self) -> cairn_ingest::CaptureOptions {
        cairn_ingest::CaptureOptions {
            strip_tags: self.strip_tags.clone(),
            default_project: self.default_project.clone(),
            default_audience: self.default_audience,
            ..Default::default()
        }
    }
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
    pub harvest: HarvestSettings,
    /// Capturing turns.
    #[serde(default)]
    pub capture: CaptureSettings,
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
}

impl Default for Settings {
    fn default() -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        let data_home =
            std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".local/share"));
        Settings {
            data_dir: data_home.join("cairn"),
            workspace: home.join(".openclaw/workspace"),
            harvest: HarvestSettings::default(),
            capture: CaptureSettings::default(),
            watch: WatchSettings::default(),
            recall: cairn_recall::RecallSettings::default(),
            context: crate::commands::context::ContextSettings::default(),
            route: RouteSettings { config_dir: PathBuf::from("config") },
        }
    }
}

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
        figment = figment.merge(Env::prefixed("CAIRN_").split("__").ignore(&["config"]));
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
