//! A sentence-transformers model run in-process on CPU.

use std::path::Path;

use crate::{EmbedKind, Embedder, Error, Result};

/// A BERT-family sentence-transformers model loaded from a directory.
pub struct LocalEmbedder {
    id: String,
    dim: usize,
}

impl LocalEmbedder {
    /// Loads the model in `dir` (`config.json`, `tokenizer.json`, `model.safetensors`, `modules.json`,
    /// pooling config).
    pub fn load(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(Error::ModelDirMissing { dir: dir.to_path_buf() });
        }
        Err(Error::Inference("local embedder not built yet".into()))
    }
}

impl Embedder for LocalEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn embed(&self, texts: &[&str], _kind: EmbedKind) -> Result<Vec<Vec<f32>>> {
        let _ = texts;
        Err(Error::Inference("local embedder not built yet".into()))
    }
}
