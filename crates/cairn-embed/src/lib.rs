//! Embedders: text → L2-normalised vectors for semantic recall.
//!
//! Two implementations of [`Embedder`]:
//! - [`LocalEmbedder`]: a sentence-transformers model directory (BERT family) run in-process on CPU;
//! - [`HttpEmbedder`]: an OpenAI-compatible `POST /v1/embeddings` endpoint.
//!
//! [`open_configured`] turns [`EmbedSettings`] into an embedder, or `None` with a note when no model is
//! installed, so callers fall back to lexical recall.
#![warn(missing_docs)]

mod bert;
mod config;
mod error;
mod http;
pub mod install;
mod lines;
mod local;
mod models;
mod ops;
mod settings;
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod testing;

pub use error::{Error, Result};
pub use http::{HttpEmbedder, HttpEmbedderConfig};
pub use lines::{ChunkText, ChunkVectors, blend_lines, embed_chunks, embed_lines, line_offsets};
pub use local::{DEFAULT_BATCH_SIZE, LocalEmbedder};
pub use models::{DEFAULT_MODEL, ModelInfo, default_model_dir, installed_models, model_dir, user_models_dir};
pub use settings::{
    EmbedProvider, EmbedSettings, HttpSettings, NO_MODEL_NOTE, Opened, open_configured, try_open,
};

/// What a text is embedded as. Symmetric models (all-MiniLM-L6-v2) treat both the same; asymmetric
/// ones may prefix or route them differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EmbedKind {
    /// A search query (short, embedded at recall time).
    Query,
    /// A stored document or chunk (embedded at harvest).
    Document,
}

/// Turns texts into vectors.
pub trait Embedder: Send + Sync {
    /// Stable id of the model and its weights, e.g. `all-minilm-l6-v2@1a2b3c4d`; stored vectors are
    /// re-made when it changes.
    fn model_id(&self) -> &str;
    /// Length of every vector.
    fn dim(&self) -> usize;
    /// L2-normalised vectors (when the model's config says so), one per text, in the same order.
    fn embed(&self, texts: &[&str], kind: EmbedKind) -> Result<Vec<Vec<f32>>>;
}
