//! The local embedder with the real all-MiniLM-L6-v2 against embeddings computed by
//! sentence-transformers (`scripts/embed-reference.py`): cosine ≥ 0.999 on every sentence, the same
//! token counts, and batching that does not change a vector.
//!
//! The model directory comes from `CAIRN_TEST_MODEL_DIR` (`.ci/run` sets it after
//! `scripts/fetch-model.sh`), else from the default data dir that `scripts/demo.sh` installs into.
//! Without a model these tests fail, unless `CAIRN_ALLOW_NO_MODEL=1` (then they print a notice).

use cairn_embed::{EmbedKind, Embedder, LocalEmbedder};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    max_seq_length: usize,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    tokens: usize,
    embedding: Vec<f32>,
}

fn real_model() -> Option<LocalEmbedder> {
    let d = cairn_embed::testing::real_model_dir()?;
    Some(LocalEmbedder::load(&d).unwrap_or_else(|e| panic!("loading the test model: {e}")))
}

fn reference() -> Reference {
    let text = include_str!("data/reference-all-minilm-l6-v2.json");
    serde_json::from_str(text).expect("reference JSON parses")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn matches_sentence_transformers_on_the_reference_sentences() {
    let Some(model) = real_model() else { return };
    let r = reference();
    assert_eq!(model.dim(), 384);
    assert_eq!(model.max_seq_length(), r.max_seq_length);
    let (_, hash) = model.model_id().rsplit_once('@').expect("id is name@hash");
    assert!(hash.len() == 8 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{}", model.model_id());
    let texts: Vec<&str> = r.cases.iter().map(|c| c.text.as_str()).collect();
    let ids = model.tokenize(&texts).unwrap();
    let got = model.embed(&texts, EmbedKind::Document).unwrap();
    let mut worst = 1.0f32;
    for ((c, v), ids) in r.cases.iter().zip(&got).zip(&ids) {
        assert_eq!(ids.len(), c.tokens, "token count of {:?}", c.text);
        let cos = cosine(v, &c.embedding);
        worst = worst.min(cos);
        assert!(cos >= 0.999, "cosine {cos} for {:?}", c.text);
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((n - 1.0).abs() < 1e-4, "normalised");
    }
    assert!(r.cases.iter().any(|c| c.tokens == r.max_seq_length), "a case longer than max_seq_length");
    eprintln!("worst cosine against sentence-transformers: {worst:.6}");
}

#[test]
fn queries_embedded_alone_match_the_batch() {
    let Some(model) = real_model() else { return };
    let r = reference();
    let texts: Vec<&str> = r.cases.iter().map(|c| c.text.as_str()).collect();
    let batch = model.embed(&texts, EmbedKind::Document).unwrap();
    for (t, b) in texts.iter().zip(&batch) {
        let alone = model.embed(&[t], EmbedKind::Query).unwrap();
        assert!(cosine(&alone[0], b) > 0.99999, "{t:?}");
    }
    // Paraphrases are closer than unrelated text: the point of semantic recall.
    let v = model
        .embed(
            &[
                "why did the weather data reader fall over?",
                "the GRIB parser crashed on a malformed forecast file",
                "my sister adopted a puppy last week",
            ],
            EmbedKind::Query,
        )
        .unwrap();
    assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]) + 0.1);
}
