//! A sentence-transformers model run in-process on CPU.

use std::path::Path;

use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

use crate::bert::{Bert, normalize, pool};
use crate::config::{ModelSpec, Pooling, TOKENIZER, WEIGHTS, require};
use crate::{EmbedKind, Embedder, Error, Result};

/// Sequences per forward pass when the caller does not choose (measured on the LoCoMo turns; see
/// `docs/embeddings.md`).
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// A BERT-family sentence-transformers model loaded from a directory.
///
/// Texts are tokenized, sorted by length and run in batches of similar lengths (little padding);
/// the results come back in input order.
pub struct LocalEmbedder {
    id: String,
    spec: ModelSpec,
    tokenizer: Tokenizer,
    model: Bert,
    batch_size: usize,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("id", &self.id)
            .field("dir", &self.spec.dir)
            .finish_non_exhaustive()
    }
}

impl LocalEmbedder {
    /// Loads the model in `dir` (`config.json`, `tokenizer.json`, `model.safetensors`, and when present
    /// `modules.json`, the pooling config and `sentence_bert_config.json`).
    pub fn load(dir: &Path) -> Result<Self> {
        let spec = ModelSpec::read(dir)?;
        let tok_path = require(dir, TOKENIZER)?;
        let weights_path = require(dir, WEIGHTS)?;
        let tok_err = |reason: String| Error::Tokenizer { path: tok_path.clone(), reason };
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| tok_err(e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: spec.max_seq_length, ..Default::default() }))
            .map_err(|e| tok_err(e.to_string()))?;
        tokenizer.with_padding(None);
        let vocab = tokenizer.get_vocab_size(true);
        if vocab > spec.bert.vocab_size {
            return Err(Error::ConfigMismatch {
                dir: dir.to_path_buf(),
                reason: format!(
                    "tokenizer.json has {vocab} tokens but config.json vocab_size is {}",
                    spec.bert.vocab_size
                ),
            });
        }

        let bytes = std::fs::read(&weights_path)
            .map_err(|source| Error::Io { path: weights_path.clone(), source })?;
        let digest = Sha256::digest(&bytes);
        let tensors = candle_core::safetensors::load_buffer(&bytes, &candle_core::Device::Cpu)
            .map_err(|e| Error::CorruptWeights { path: weights_path.clone(), reason: e.to_string() })?;
        drop(bytes);
        let model = Bert::load(&tensors, &spec, &weights_path)?;
        drop(tensors);

        let id = crate::models::model_id(dir, &digest);
        Ok(LocalEmbedder { id, spec, tokenizer, model, batch_size: DEFAULT_BATCH_SIZE })
    }

    /// Sequences per forward pass (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Sequences per forward pass.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// Longest input in tokens (including `[CLS]`/`[SEP]`); longer texts are truncated.
    pub fn max_seq_length(&self) -> usize {
        self.spec.max_seq_length
    }

    /// The model directory.
    pub fn dir(&self) -> &Path {
        &self.spec.dir
    }

    /// Token ids of each text as the model sees them (special tokens added, truncated).
    pub fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        let enc = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), true)
            .map_err(|e| Error::Tokenizer { path: self.spec.dir.join(TOKENIZER), reason: e.to_string() })?;
        Ok(enc.into_iter().map(|e| e.get_ids().to_vec()).collect())
    }

    /// Embeds already tokenized sequences (see [`LocalEmbedder::tokenize`]).
    pub fn embed_ids(&self, seqs: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(seqs[i].len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); seqs.len()];
        let hidden = self.model.hidden();
        let mut ids = Vec::new();
        for chunk in order.chunks(self.batch_size) {
            let len = chunk.iter().map(|&i| seqs[i].len()).max().unwrap_or(0).max(1);
            let lens: Vec<usize> = chunk.iter().map(|&i| seqs[i].len().max(1)).collect();
            ids.clear();
            for &i in chunk {
                let s = &seqs[i];
                ids.extend_from_slice(s);
                ids.resize(ids.len() + len - s.len(), 0);
            }
            let states = self.model.forward(&ids, chunk.len(), len, &lens)?;
            let pooled = pool(&states, hidden, len, &lens, self.spec.pooling);
            for (&i, mut v) in chunk.iter().zip(pooled) {
                if self.spec.normalize {
                    normalize(&mut v);
                }
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The pooling mode from the model's config.
    #[doc(hidden)]
    pub fn pooling_name(&self) -> &'static str {
        match self.spec.pooling {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
            Pooling::Max => "max",
        }
    }
}

impl Embedder for LocalEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.model.hidden()
    }

    fn embed(&self, texts: &[&str], _kind: EmbedKind) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let seqs = self.tokenize(texts)?;
        self.embed_ids(&seqs)
    }
}
