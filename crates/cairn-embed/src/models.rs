//! Installed models under `<data_dir>/models/`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{ModelSpec, WEIGHTS, require};

/// The model installed by default: all-MiniLM-L6-v2 (384 dimensions).
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";

/// One installed model, as `cairn models` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelInfo {
    /// Directory name under the models directory.
    pub name: String,
    /// Vector length (the model's hidden size after pooling).
    pub dim: usize,
    /// Bytes on disk (all files of the directory).
    pub size_bytes: u64,
    /// The model id the embedder reports (name + weights hash prefix).
    pub id: String,
    /// The model directory.
    pub path: PathBuf,
}

/// The user's models directory, shared by every data dir: `$XDG_DATA_HOME/cairn/models`, else
/// `~/.local/share/cairn/models` (the default data dir's own `models`), else `./models` without a home.
pub fn user_models_dir() -> PathBuf {
    let data_home =
        std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".local/share"))
        });
    match data_home {
        Some(d) => d.join("cairn").join("models"),
        None => PathBuf::from("models"),
    }
}

/// The directory of the model called `name` in the models directory `models`.
pub fn model_dir(models: &Path, name: &str) -> PathBuf {
    models.join(name)
}

/// The default model's directory in the models directory `models`: `<models>/all-minilm-l6-v2`.
pub fn default_model_dir(models: &Path) -> PathBuf {
    model_dir(models, DEFAULT_MODEL)
}

/// Models installed in the models directory `models`, sorted by name. Directories whose config files do
/// not read as a model (and staging directories of an install in progress) are left out.
pub fn installed_models(models: &Path) -> Vec<ModelInfo> {
    let Ok(entries) = std::fs::read_dir(models) else { return Vec::new() };
    let mut out: Vec<ModelInfo> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| inspect(&e.path()))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Describes the model in `dir` without loading its weights into a model (they are hashed for the id),
/// or `None` when it is not a model directory.
pub(crate) fn inspect(dir: &Path) -> Option<ModelInfo> {
    let spec = ModelSpec::read(dir).ok()?;
    let weights = require(dir, WEIGHTS).ok()?;
    let mut f = std::fs::File::open(weights).ok()?;
    let digest = crate::install::sha256_reader(&mut f).ok()?;
    Some(ModelInfo {
        name: dir_name(dir),
        dim: spec.bert.hidden_size,
        size_bytes: dir_size(dir),
        id: model_id(dir, &digest),
        path: dir.to_path_buf(),
    })
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "model".into())
}

/// `<dir name>@<first 8 hex digits of the weights' sha256>`.
pub(crate) fn model_id(dir: &Path, weights_sha256: &[u8]) -> String {
    format!("{}@{}", dir_name(dir), crate::install::hex(&weights_sha256[..4]))
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}
