//! The local embedder on a tiny generated BERT: shapes, normalisation, batching, truncation,
//! pooling modes, and the errors a missing, truncated or mismatched model gives.

use std::path::{Path, PathBuf};

use cairn_embed::testing::TinyModel;
use cairn_embed::{EmbedKind, EmbedProvider, EmbedSettings, Embedder, Error, LocalEmbedder};
use proptest::prelude::*;

fn tiny(dir: &Path, m: &TinyModel) -> PathBuf {
    let d = dir.join("tiny");
    m.write(&d).unwrap();
    d
}

fn load(m: &TinyModel) -> (tempfile::TempDir, LocalEmbedder) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny(tmp.path(), m);
    let e = LocalEmbedder::load(&dir).unwrap();
    (tmp, e)
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

const TEXTS: &[&str] = &[
    "the cat sat on the mat",
    "why did the weather data reader fall over?",
    "grib parser crash",
    "a",
    "",
    "Rust vector search is it? 42!",
    "日本語 中文",
    "we ate pizza yesterday and today we run",
];

#[test]
fn vectors_have_the_model_dimension_and_unit_norm() {
    let (_t, e) = load(&TinyModel::default());
    assert_eq!(e.dim(), 32);
    let v = e.embed(TEXTS, EmbedKind::Document).unwrap();
    assert_eq!(v.len(), TEXTS.len());
    for (t, x) in TEXTS.iter().zip(&v) {
        assert_eq!(x.len(), 32, "{t:?}");
        assert!((norm(x) - 1.0).abs() < 1e-5, "{t:?} norm {}", norm(x));
        assert!(x.iter().all(|f| f.is_finite()));
    }
    // Different texts give different vectors.
    assert!(max_diff(&v[0], &v[1]) > 1e-3);
    assert!(e.embed(&[], EmbedKind::Query).unwrap().is_empty());
}

#[test]
fn unnormalised_model_keeps_its_norms() {
    let (_t, e) = load(&TinyModel { normalize: false, ..Default::default() });
    let v = e.embed(TEXTS, EmbedKind::Document).unwrap();
    assert!(
        v.iter().any(|x| (norm(x) - 1.0).abs() > 1e-2),
        "Normalize absent from modules.json, yet unit norms"
    );
}

#[test]
fn pooling_modes_follow_the_pooling_config() {
    let base = TinyModel { normalize: false, ..Default::default() };
    let (_a, mean) = load(&base);
    let (_b, cls) = load(&TinyModel { pooling: "cls", ..base.clone() });
    let (_c, max) = load(&TinyModel { pooling: "max", ..base.clone() });
    assert_eq!(mean.pooling_name(), "mean");
    assert_eq!(cls.pooling_name(), "cls");
    assert_eq!(max.pooling_name(), "max");
    let texts = ["the cat sat on the mat", "grib parser crash"];
    let vm = mean.embed(&texts, EmbedKind::Document).unwrap();
    let vc = cls.embed(&texts, EmbedKind::Document).unwrap();
    let vx = max.embed(&texts, EmbedKind::Document).unwrap();
    for ((m, c), x) in vm.iter().zip(&vc).zip(&vx) {
        // max pooling dominates mean pooling element-wise; cls is one of the token rows.
        assert!(x.iter().zip(m).all(|(x, m)| x >= &(m - 1e-5)));
        assert!(max_diff(x, m) > 1e-3);
        assert!(max_diff(c, m) > 1e-3);
        assert!(x.iter().zip(c).all(|(x, c)| x >= &(c - 1e-5)));
    }
}

#[test]
fn a_text_alone_equals_the_same_text_in_a_batch() {
    let (_t, e) = load(&TinyModel::default());
    let batch = e.embed(TEXTS, EmbedKind::Document).unwrap();
    for (i, t) in TEXTS.iter().enumerate() {
        let alone = e.embed(&[t], EmbedKind::Query).unwrap();
        assert!(max_diff(&alone[0], &batch[i]) < 1e-5, "{t:?}: {}", max_diff(&alone[0], &batch[i]));
    }
    // Small batches (several forward passes) give the same as one pass.
    let small = LocalEmbedder::load(e.dir()).unwrap().with_batch_size(3);
    let again = small.embed(TEXTS, EmbedKind::Document).unwrap();
    for (a, b) in again.iter().zip(&batch) {
        assert!(max_diff(a, b) < 1e-5);
    }
}

#[test]
fn long_texts_are_truncated_at_max_seq_length() {
    let m = TinyModel::default();
    let (_t, e) = load(&m);
    assert_eq!(e.max_seq_length(), 24);
    let words: Vec<&str> = ["cat", "dog", "mat", "note"].iter().cycle().take(60).copied().collect();
    let long = words.join(" ");
    let prefix = words[..22].join(" ");
    let ids = e.tokenize(&[&long, &prefix]).unwrap();
    assert_eq!(ids[0].len(), 24, "[CLS] + 22 words + [SEP]");
    assert_eq!(ids[0], ids[1]);
    let v = e.embed(&[&long, &prefix], EmbedKind::Document).unwrap();
    assert!(max_diff(&v[0], &v[1]) < 1e-6);
    let shorter = words[..21].join(" ");
    let w = e.embed(&[&shorter], EmbedKind::Document).unwrap();
    assert!(max_diff(&v[0], &w[0]) > 1e-4, "one word fewer must change the vector");
}

#[test]
fn model_id_names_the_directory_and_the_weights() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tiny(tmp.path(), &TinyModel::default());
    let b = tmp.path().join("other");
    TinyModel { seed: 8, ..Default::default() }.write(&b).unwrap();
    let ea = LocalEmbedder::load(&a).unwrap();
    let ea2 = LocalEmbedder::load(&a).unwrap();
    let eb = LocalEmbedder::load(&b).unwrap();
    assert_eq!(ea.model_id(), ea2.model_id());
    assert!(
        ea.model_id().starts_with("tiny@") && ea.model_id().len() == "tiny@".len() + 8,
        "{}",
        ea.model_id()
    );
    assert!(eb.model_id().starts_with("other@"));
    assert_ne!(ea.model_id()[5..], eb.model_id()[6..], "different weights, different hash");
    // Same seed, same vectors.
    let t = ["the cat sat"];
    assert_eq!(ea.embed(&t, EmbedKind::Query).unwrap(), ea2.embed(&t, EmbedKind::Query).unwrap());
}

fn load_err(dir: &Path) -> Error {
    LocalEmbedder::load(dir).expect_err("the model must not load")
}

#[test]
fn missing_directory_and_files_name_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("nope");
    let e = load_err(&gone);
    assert!(matches!(&e, Error::ModelDirMissing { dir } if dir == &gone), "{e:?}");
    assert!(e.to_string().contains("cairn models install"), "{e}");
    for file in ["config.json", "tokenizer.json", "model.safetensors", "1_Pooling/config.json"] {
        let dir = tiny(tmp.path(), &TinyModel::default());
        std::fs::remove_file(dir.join(file)).unwrap();
        let e = load_err(&dir);
        assert!(matches!(&e, Error::FileMissing { path } if path.ends_with(file)), "{file}: {e:?}");
        assert!(e.to_string().contains(file), "{e}");
    }
}

#[test]
fn truncated_or_garbage_weights_are_reported_as_corrupt() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny(tmp.path(), &TinyModel::default());
    let w = dir.join("model.safetensors");
    let bytes = std::fs::read(&w).unwrap();
    for cut in [bytes.len() / 2, 20, 3, 0] {
        std::fs::write(&w, &bytes[..cut]).unwrap();
        let e = load_err(&dir);
        assert!(matches!(&e, Error::CorruptWeights { path, .. } if path == &w), "cut {cut}: {e:?}");
        assert!(e.to_string().contains("truncated or corrupt"), "{e}");
    }
    std::fs::write(&w, b"this is not a safetensors file at all, just text").unwrap();
    assert!(matches!(load_err(&dir), Error::CorruptWeights { .. }));
}

fn edit_config(dir: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let p = dir.join("config.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(&p, v.to_string()).unwrap();
}

#[test]
fn config_that_does_not_match_the_weights_is_a_mismatch() {
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "hidden",
            Box::new(|v| v["hidden_size"] = 64.into()),
            "has shape [135, 32], config.json implies [135, 64]",
        ),
        ("layers", Box::new(|v| v["num_hidden_layers"] = 3.into()), "encoder.layer.2"),
        ("ffn", Box::new(|v| v["intermediate_size"] = 48.into()), "intermediate"),
        ("vocab", Box::new(|v| v["vocab_size"] = 10.into()), "vocab_size"),
        ("arch", Box::new(|v| v["model_type"] = "gpt2".into()), "unsupported architecture"),
        ("arch2", Box::new(|v| v["architectures"] = serde_json::json!(["LlamaForCausalLM"])), "unsupported"),
        ("heads", Box::new(|v| v["num_attention_heads"] = 5.into()), "num_attention_heads"),
        ("act", Box::new(|v| v["hidden_act"] = "swish".into()), "hidden_act"),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, f, needle) in cases {
        let dir = tmp.path().join(name);
        TinyModel::default().write(&dir).unwrap();
        edit_config(&dir, f);
        let e = load_err(&dir);
        let msg = e.to_string();
        match name {
            // A missing layer tensor: the weights lack what the config promises.
            "layers" => assert!(matches!(e, Error::CorruptWeights { .. }), "{name}: {e:?}"),
            _ => assert!(matches!(e, Error::ConfigMismatch { .. }), "{name}: {e:?}"),
        }
        assert!(msg.contains(needle), "{name}: {msg}");
    }
}

#[test]
fn bad_json_and_bad_tokenizer_name_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny(tmp.path(), &TinyModel::default());
    std::fs::write(dir.join("config.json"), "{ not json").unwrap();
    let e = load_err(&dir);
    assert!(matches!(&e, Error::BadConfig { path, .. } if path.ends_with("config.json")), "{e:?}");

    let dir = tmp.path().join("t2");
    TinyModel::default().write(&dir).unwrap();
    std::fs::write(dir.join("tokenizer.json"), r#"{"model": {"type": "Nope"}}"#).unwrap();
    let e = load_err(&dir);
    assert!(matches!(&e, Error::Tokenizer { path, .. } if path.ends_with("tokenizer.json")), "{e:?}");

    let dir = tmp.path().join("t3");
    TinyModel::default().write(&dir).unwrap();
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        r#"{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": true}"#,
    )
    .unwrap();
    let e = load_err(&dir);
    assert!(e.to_string().contains("several pooling modes"), "{e}");
}

#[test]
fn open_configured_falls_back_to_lexical_with_one_clear_note() {
    let tmp = tempfile::tempdir().unwrap();
    // The models folder named, so that the user's installed models play no part.
    let models = tmp.path().join("models");
    let settings = EmbedSettings { models_dir: Some(models.clone()), ..Default::default() };
    let opened = cairn_embed::open_configured(&settings, tmp.path());
    assert!(opened.embedder.is_none());
    assert_eq!(opened.note.as_deref(), Some(cairn_embed::NO_MODEL_NOTE));

    let none = EmbedSettings { provider: EmbedProvider::None, ..Default::default() };
    let opened = cairn_embed::open_configured(&none, tmp.path());
    assert!(opened.embedder.is_none() && opened.note.is_none());

    // Installed under the default name: opened.
    let dir = cairn_embed::default_model_dir(&models);
    TinyModel::default().write(&dir).unwrap();
    let opened = cairn_embed::open_configured(&settings, tmp.path());
    let e = opened.embedder.expect("installed model opens");
    assert_eq!(e.dim(), 32);
    assert!(opened.note.is_none());
    // Without `models_dir`, the data dir's own `models` folder is used when it has one.
    let own = EmbedSettings::default();
    assert_eq!(own.local_model_dir(tmp.path()), dir);
    let listed = cairn_embed::installed_models(&models);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "all-minilm-l6-v2");
    assert_eq!(listed[0].id, e.model_id());
    assert_eq!(listed[0].dim, 32);
    assert!(listed[0].size_bytes > 1000);

    // A path as `model`.
    let by_path = EmbedSettings { model: dir.display().to_string(), ..Default::default() };
    assert!(cairn_embed::open_configured(&by_path, Path::new("/nonexistent")).embedder.is_some());

    // Truncated weights: no embedder, a note naming the problem.
    let w = dir.join("model.safetensors");
    let bytes = std::fs::read(&w).unwrap();
    std::fs::write(&w, &bytes[..bytes.len() / 3]).unwrap();
    let opened = cairn_embed::open_configured(&settings, tmp.path());
    assert!(opened.embedder.is_none());
    let note = opened.note.unwrap();
    assert!(note.contains("lexical-only") && note.contains("truncated or corrupt"), "{note}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any batch of any texts: each vector equals the text embedded alone, whatever the order.
    #[test]
    fn batching_never_changes_a_vector(
        texts in prop::collection::vec("[a-z ]{0,40}|[a-zA-Z0-9 .,!?日本]{0,60}", 1..10),
        rot in 0usize..10,
    ) {
        let (_t, e) = load(&TinyModel::default());
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let batch = e.embed(&refs, EmbedKind::Document).unwrap();
        let mut rotated = refs.clone();
        let r = rot % rotated.len();
        rotated.rotate_left(r);
        let rb = e.embed(&rotated, EmbedKind::Document).unwrap();
        for (i, t) in refs.iter().enumerate() {
            let alone = e.embed(&[t], EmbedKind::Document).unwrap();
            prop_assert!(max_diff(&alone[0], &batch[i]) < 1e-5);
            let j = (i + refs.len() - r) % refs.len();
            prop_assert!(max_diff(&rb[j], &batch[i]) < 1e-5);
        }
    }
}

/// An MPNet model gives the vectors Hugging Face `transformers` gives (`MPNetModel` on the same
/// tiny weights, mean-pooled and normalised; its first 8 dimensions): token types absent, positions
/// counted from 2, and the relative position bias, whose buckets turn logarithmic at 8 tokens apart
/// (the third sequence holds 22).
#[test]
fn mpnet_matches_the_reference_implementation() {
    let (_t, e) = load(&TinyModel { mpnet: true, ..Default::default() });
    let long: Vec<u32> = std::iter::once(2).chain((0..20).map(|i| 5 + (i * 7) % 40)).chain([3]).collect();
    let got = e.embed_ids(&[vec![2, 5, 7, 8, 9, 3], vec![2, 10, 11, 3], long]).unwrap();
    let want: [[f32; 8]; 3] = [
        [-0.26007, -0.175121, 0.070292, 0.107414, 0.330815, 0.032094, -0.103671, 0.106642],
        [-0.150622, 0.07486, -0.119889, 0.167387, 0.226494, 0.346182, -0.088124, 0.156196],
        [-0.061552, -0.048756, 0.113377, -0.001801, 0.273574, 0.196356, -0.002805, 0.331537],
    ];
    for (g, w) in got.iter().zip(&want) {
        assert!(max_diff(&g[..8], w) < 1e-5, "{:?} != {w:?}", &g[..8]);
        assert!((norm(g) - 1.0).abs() < 1e-5);
    }
    // Text goes through the same path.
    assert_eq!(e.embed(TEXTS, EmbedKind::Query).unwrap().len(), TEXTS.len());
}
