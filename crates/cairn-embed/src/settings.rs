//! `[embed]` settings and opening the configured embedder.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{DEFAULT_MODEL, Embedder, Error, HttpEmbedder, HttpEmbedderConfig, LocalEmbedder, Result};

/// Which embedder to use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedProvider {
    /// An installed sentence-transformers model run in-process.
    #[default]
    Local,
    /// An OpenAI-compatible `/v1/embeddings` endpoint.
    Http,
    /// No embeddings: lexical recall only.
    None,
}

/// The `[embed].http` fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpSettings {
    /// Server root (`/v1/embeddings` is appended).
    pub base_url: String,
    /// Model name sent to the server.
    pub model: String,
    /// Bearer token, if the server needs one.
    pub api_key: Option<String>,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: u64,
    /// Texts per request.
    pub batch_size: usize,
    /// Vector length, if known (otherwise probed).
    pub dim: Option<usize>,
    /// Put before every query, for models that want one (`"query: "` for E5).
    pub query_prefix: String,
    /// Put before every stored text, for models that want one (`"passage: "` for E5).
    pub document_prefix: String,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            base_url: "http://127.0.0.1:11434".into(),
            model: "all-minilm".into(),
            api_key: None,
            timeout_ms: 30_000,
            batch_size: 64,
            dim: None,
            query_prefix: String::new(),
            document_prefix: String::new(),
        }
    }
}

/// The `[embed]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmbedSettings {
    /// `local`, `http` or `none`.
    pub provider: EmbedProvider,
    /// Local model: a name in the models directory, or a path to a model directory.
    pub model: String,
    /// Where `cairn models install` puts models and bare model names are found (default: the data
    /// dir's own `models` folder when it has one, else the user's, `$XDG_DATA_HOME/cairn/models`,
    /// shared by every data dir).
    pub models_dir: Option<PathBuf>,
    /// HTTP endpoint settings (used when `provider = "http"`).
    pub http: HttpSettings,
}

impl Default for EmbedSettings {
    fn default() -> Self {
        EmbedSettings {
            provider: EmbedProvider::Local,
            model: DEFAULT_MODEL.into(),
            models_dir: None,
            http: HttpSettings::default(),
        }
    }
}

impl EmbedSettings {
    /// The models directory for the data dir `data_dir`: `models_dir` when set, else the data dir's
    /// own `models` folder when it exists (a store that brought its models), else the user's
    /// ([`crate::user_models_dir`]), so a new `--data-dir` finds the models already installed.
    pub fn models_root(&self, data_dir: &Path) -> PathBuf {
        if let Some(d) = &self.models_dir {
            return d.clone();
        }
        let own = data_dir.join("models");
        if own.is_dir() { own } else { crate::user_models_dir() }
    }

    /// The local model directory these settings point at: `model` as a path when it contains a path
    /// separator or is absolute, else `<models>/<model>` in [`EmbedSettings::models_root`].
    pub fn local_model_dir(&self, data_dir: &Path) -> PathBuf {
        let p = Path::new(&self.model);
        if p.is_absolute() || self.model.contains('/') || self.model.contains('\\') {
            p.to_path_buf()
        } else {
            crate::model_dir(&self.models_root(data_dir), &self.model)
        }
    }
}

/// The outcome of [`open_configured`].
pub struct Opened {
    /// The embedder, or `None` for lexical-only.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Why there is no embedder (or a degraded one), to tell the user once.
    pub note: Option<String>,
}

/// The note given when no model is installed.
pub const NO_MODEL_NOTE: &str =
    "no embedding model installed; running lexical-only (run `cairn models install`)";

/// Opens the configured embedder. Never fails: a missing model or a broken one gives `None` plus a
/// note, so recall keeps working lexically. Use [`try_open`] to get the error itself.
pub fn open_configured(settings: &EmbedSettings, data_dir: &Path) -> Opened {
    match try_open(settings, data_dir) {
        Ok(Some(e)) => Opened { embedder: Some(e), note: None },
        Ok(None) => Opened { embedder: None, note: None },
        Err(Error::ModelDirMissing { .. }) => Opened { embedder: None, note: Some(NO_MODEL_NOTE.into()) },
        Err(e) => Opened {
            embedder: None,
            note: Some(format!("embedding model unusable; running lexical-only: {e}")),
        },
    }
}

/// Opens the configured embedder; `Ok(None)` when the provider is `none`.
pub fn try_open(settings: &EmbedSettings, data_dir: &Path) -> Result<Option<Arc<dyn Embedder>>> {
    match settings.provider {
        EmbedProvider::None => Ok(None),
        EmbedProvider::Local => {
            let dir = settings.local_model_dir(data_dir);
            Ok(Some(Arc::new(LocalEmbedder::load(&dir)?)))
        }
        EmbedProvider::Http => {
            let h = &settings.http;
            let cfg = HttpEmbedderConfig {
                base_url: h.base_url.clone(),
                model: h.model.clone(),
                api_key: h.api_key.clone(),
                timeout: Duration::from_millis(h.timeout_ms),
                batch_size: h.batch_size.max(1),
                dim: h.dim,
                query_prefix: h.query_prefix.clone(),
                document_prefix: h.document_prefix.clone(),
            };
            Ok(Some(Arc::new(HttpEmbedder::new(cfg)?)))
        }
    }
}
