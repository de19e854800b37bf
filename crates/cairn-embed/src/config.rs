//! The files of a sentence-transformers model directory and what Cairn reads from them.
//!
//! - `config.json`: the transformer (BERT family) shape;
//! - `modules.json`: the pipeline (Transformer → Pooling → optional Normalize);
//! - `1_Pooling/config.json` (or the path `modules.json` names): the pooling mode;
//! - `sentence_bert_config.json`: `max_seq_length`;
//! - `tokenizer.json`, `model.safetensors`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// The transformer's shape, from `config.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct BertConfig {
    #[serde(default)]
    pub(crate) model_type: Option<String>,
    #[serde(default)]
    pub(crate) architectures: Vec<String>,
    pub(crate) vocab_size: usize,
    pub(crate) hidden_size: usize,
    pub(crate) num_hidden_layers: usize,
    pub(crate) num_attention_heads: usize,
    pub(crate) intermediate_size: usize,
    #[serde(default = "default_act")]
    pub(crate) hidden_act: String,
    pub(crate) max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub(crate) type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub(crate) layer_norm_eps: f64,
    #[serde(default)]
    pub(crate) position_embedding_type: Option<String>,
    /// MPNet: the padding token, whose id + 1 is the first position ([`Family::Mpnet`]).
    #[serde(default)]
    pub(crate) pad_token_id: Option<usize>,
    /// MPNet: buckets of the relative position bias shared by every layer.
    #[serde(default)]
    pub(crate) relative_attention_num_buckets: Option<usize>,
}

/// The encoder's family: the BERT layout, or MPNet's (no token types, positions counted from the
/// padding id + 1, a relative position bias added to every layer's attention scores).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Bert,
    Mpnet,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}

/// How token vectors become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pooling {
    /// Average of the (unpadded) token vectors.
    Mean,
    /// The `[CLS]` token's vector.
    Cls,
    /// Element-wise maximum over the (unpadded) token vectors.
    Max,
}

#[derive(Debug, Deserialize)]
struct PoolingFile {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

#[derive(Debug, Deserialize)]
struct ModuleEntry {
    #[serde(default)]
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Debug, Deserialize)]
struct SbertFile {
    #[serde(default)]
    max_seq_length: Option<usize>,
}

/// Activation of the feed-forward layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Activation {
    /// Exact GELU (erf), as PyTorch's `gelu`.
    Gelu,
    /// GELU with the tanh approximation (`gelu_new`, `gelu_pytorch_tanh`).
    GeluTanh,
    /// ReLU.
    Relu,
}

/// Everything read from a model directory except the weights and the tokenizer.
#[derive(Debug, Clone)]
pub(crate) struct ModelSpec {
    pub(crate) dir: PathBuf,
    pub(crate) bert: BertConfig,
    pub(crate) family: Family,
    pub(crate) activation: Activation,
    pub(crate) pooling: Pooling,
    pub(crate) normalize: bool,
    pub(crate) max_seq_length: usize,
}

pub(crate) const CONFIG: &str = "config.json";
pub(crate) const TOKENIZER: &str = "tokenizer.json";
pub(crate) const WEIGHTS: &str = "model.safetensors";
pub(crate) const MODULES: &str = "modules.json";
pub(crate) const SBERT: &str = "sentence_bert_config.json";

/// `dir/name`, or [`Error::FileMissing`].
pub(crate) fn require(dir: &Path, name: &str) -> Result<PathBuf> {
    let p = dir.join(name);
    if p.is_file() { Ok(p) } else { Err(Error::FileMissing { path: p }) }
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?;
    serde_json::from_str(&text).map_err(|e| Error::BadConfig { path: path.into(), reason: e.to_string() })
}

impl ModelSpec {
    /// Reads and checks the config files of `dir`.
    pub(crate) fn read(dir: &Path) -> Result<ModelSpec> {
        if !dir.is_dir() {
            return Err(Error::ModelDirMissing { dir: dir.to_path_buf() });
        }
        let config_path = require(dir, CONFIG)?;
        let bert: BertConfig = read_json(&config_path)?;
        let mismatch = |reason: String| Error::ConfigMismatch { dir: dir.to_path_buf(), reason };
        let family = check_architecture(&bert).map_err(mismatch)?;
        if bert.hidden_size == 0
            || bert.num_attention_heads == 0
            || !bert.hidden_size.is_multiple_of(bert.num_attention_heads)
        {
            return Err(mismatch(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                bert.hidden_size, bert.num_attention_heads
            )));
        }
        if let Some(p) = bert.position_embedding_type.as_deref().filter(|p| *p != "absolute") {
            return Err(mismatch(format!(
                "position_embedding_type `{p}` is not supported (only `absolute`)"
            )));
        }
        let activation = match bert.hidden_act.as_str() {
            "gelu" => Activation::Gelu,
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Activation::GeluTanh,
            "relu" => Activation::Relu,
            other => return Err(mismatch(format!("hidden_act `{other}` is not supported"))),
        };

        // modules.json names the pooling folder and whether a Normalize module follows. A bare
        // transformer directory (no modules.json) gets sentence-transformers' own default: mean pooling.
        let (pooling_dir, normalize) = match dir.join(MODULES) {
            p if p.is_file() => {
                let modules: Vec<ModuleEntry> = read_json(&p)?;
                let pooling = modules.iter().find(|m| m.kind.ends_with("Pooling")).map(|m| m.path.clone());
                let normalize = modules.iter().any(|m| m.kind.ends_with("Normalize"));
                if let Some(m) = modules.iter().find(|m| {
                    !(m.kind.ends_with("Transformer")
                        || m.kind.ends_with("Pooling")
                        || m.kind.ends_with("Normalize"))
                }) {
                    return Err(mismatch(format!("module `{}` in modules.json is not supported", m.kind)));
                }
                (pooling, normalize)
            }
            _ => (None, false),
        };
        let pooling = match pooling_dir {
            Some(sub) => {
                let p = require(dir, &format!("{sub}/config.json"))?;
                parse_pooling(&read_json(&p)?).map_err(|reason| Error::BadConfig { path: p, reason })?
            }
            None => Pooling::Mean,
        };

        let max_seq_length = match dir.join(SBERT) {
            p if p.is_file() => read_json::<SbertFile>(&p)?.max_seq_length,
            _ => None,
        }
        .unwrap_or(bert.max_position_embeddings)
        .min(bert.max_position_embeddings);
        if max_seq_length < 2 {
            return Err(mismatch(format!("max_seq_length {max_seq_length} leaves no room for text")));
        }
        // MPNet counts positions from the padding id + 1: the longest input must still have one.
        let max_seq_length = match family {
            Family::Mpnet => {
                max_seq_length.min(bert.max_position_embeddings.saturating_sub(mpnet_offset(&bert)))
            }
            Family::Bert => max_seq_length,
        };
        if max_seq_length < 2 {
            return Err(mismatch(format!("max_seq_length {max_seq_length} leaves no room for text")));
        }
        Ok(ModelSpec { dir: dir.to_path_buf(), bert, family, activation, pooling, normalize, max_seq_length })
    }
}

/// The first position of an MPNet model: its padding id + 1 (2 for the usual padding id 1).
pub(crate) fn mpnet_offset(c: &BertConfig) -> usize {
    c.pad_token_id.unwrap_or(1) + 1
}

fn check_architecture(c: &BertConfig) -> Result<Family, String> {
    let arch =
        |prefix: &str| c.architectures.is_empty() || c.architectures.iter().any(|a| a.starts_with(prefix));
    match c.model_type.as_deref() {
        None | Some("bert") if arch("Bert") => Ok(Family::Bert),
        Some("mpnet") if arch("MPNet") => Ok(Family::Mpnet),
        _ => Err(format!(
            "unsupported architecture (model_type {:?}, architectures {:?}); only BERT-family and MPNet models are supported",
            c.model_type.as_deref().unwrap_or("-"),
            c.architectures
        )),
    }
}

fn parse_pooling(f: &PoolingFile) -> Result<Pooling, String> {
    if f.pooling_mode_mean_sqrt_len_tokens || f.pooling_mode_weightedmean_tokens || f.pooling_mode_lasttoken {
        return Err("only the mean, cls and max pooling modes are supported".into());
    }
    match (f.pooling_mode_mean_tokens, f.pooling_mode_cls_token, f.pooling_mode_max_tokens) {
        (true, false, false) => Ok(Pooling::Mean),
        (false, true, false) => Ok(Pooling::Cls),
        (false, false, true) => Ok(Pooling::Max),
        (false, false, false) => Err("no pooling mode is enabled".into()),
        _ => Err("several pooling modes at once (concatenated) are not supported".into()),
    }
}
