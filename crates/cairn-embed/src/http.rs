//! An OpenAI-compatible `/v1/embeddings` endpoint.

use std::time::Duration;

use crate::{EmbedKind, Embedder, Error, Result};

/// How to reach an OpenAI-compatible embeddings server.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpEmbedderConfig {
    /// Server root, e.g. `http://127.0.0.1:11434` (`/v1/embeddings` is appended).
    pub base_url: String,
    /// The `model` field sent with every request.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub api_key: Option<String>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Texts per request.
    pub batch_size: usize,
    /// Expected vector length; probed with one request when `None`.
    pub dim: Option<usize>,
}

/// Embeds through an OpenAI-compatible HTTP endpoint.
pub struct HttpEmbedder {
    config: HttpEmbedderConfig,
    id: String,
    dim: usize,
}

impl HttpEmbedder {
    /// Connects (probing the dimension when the config does not give it).
    pub fn new(config: HttpEmbedderConfig) -> Result<Self> {
        let id = format!("http:{}", config.model);
        let dim = config.dim.unwrap_or(0);
        Ok(HttpEmbedder { config, id, dim })
    }
}

impl Embedder for HttpEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn embed(&self, texts: &[&str], _kind: EmbedKind) -> Result<Vec<Vec<f32>>> {
        let _ = texts;
        Err(Error::Http { url: self.config.base_url.clone(), reason: "not built yet".into() })
    }
}
