//! General prompts: what people ask an assistant about the world rather than about their own memory
//! (small talk, general knowledge, coding, writing, how-to). A raw cosine similarity says little on its
//! own: a question about the capital of a country and a paraphrased question about one's dentist both
//! reach about 0.35 against a person's notes with a small model. What tells them apart is where the
//! question sits *relative to* general questions: a question about the user's life comes closer to
//! their notes than to any general prompt; a general question comes closer to the general prompts.
//! The vector lane therefore reports a query's **affinity** to memory: the mean cosine of its
//! [`TOP`] nearest chunks in scope minus the mean cosine of its [`TOP`] nearest general prompts
//! ([`GeneralPrompts::similarity`]); the relevance floor reads it (see `floor.rs`).
//!
//! A general question about a subject the notes cover ("how does a heat pump work?" of someone who
//! bought one) is near the notes too. Its *form* tells it apart: the mean cosine of its [`TOP`]
//! nearest *memory questions* (questions people ask of their own notes, in general words: "who fixed
//! the boiler?", "what did we decide about the car?") minus that of its nearest general prompts;
//! `recall.calibration.form_weight` of it adds to the affinity.
//!
//! A prompt none of whose words memory uses is either a paraphrase or nonsense ("zzyzx qwertyuiop").
//! A small model reads a strange sequence of letters as near any note full of names from another
//! language, and far from every general prompt, so nonsense would seem to lead towards memory. Such
//! a prompt is also measured against made-up words and keyboard mashes (`nonsense.txt`): its nearest
//! [`TOP`] of those count as general prompts when they are nearer (see `floor.rs`).
//!
//! All three are fixed lists (`general_prompts.txt`, `memory_questions.txt`, `nonsense.txt`), embedded
//! once per model and kept in the data directory (`general-<model>.vectors`, written whole and renamed
//! into place), so a cold command reads 840 KB instead of embedding 560 prompts.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cairn_core::content_hash;
use cairn_embed::{EmbedKind, Embedder};

/// How many nearest neighbours (chunks, and general prompts) a similarity averages: one close chunk
/// can be an accident of wording; three close ones rarely are.
pub(crate) const TOP: usize = 3;

/// The list, one prompt per line; `#` starts a comment.
const LIST: &str = include_str!("general_prompts.txt");

/// Questions people ask of their own notes, in general words ("who fixed the boiler?", "what did we
/// decide about the car?"), one per line; `#` starts a comment.
const QUESTIONS: &str = include_str!("memory_questions.txt");

/// Made-up words, keyboard mashes and filler ("asdf", "what is a glorpnik?"), one per line; `#` starts
/// a comment.
const NONSENSE: &str = include_str!("nonsense.txt");

fn lines(text: &'static str) -> Vec<&'static str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// The general prompts.
pub(crate) fn prompts() -> Vec<&'static str> {
    lines(LIST)
}

/// The memory questions.
pub(crate) fn questions() -> Vec<&'static str> {
    lines(QUESTIONS)
}

/// The made-up prompts.
pub(crate) fn nonsense() -> Vec<&'static str> {
    lines(NONSENSE)
}

/// How near a query comes to the general prompts, to the memory questions and to nonsense.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nearness {
    /// Mean cosine similarity to its [`TOP`] nearest general prompts.
    pub general: f32,
    /// Mean cosine similarity to its [`TOP`] nearest memory questions.
    pub questions: f32,
    /// Mean cosine similarity to its [`TOP`] nearest made-up prompts.
    pub nonsense: f32,
}

/// The general prompts' vectors under one model, embedded on first use (and read from the cache
/// directory when it holds them).
#[derive(Debug, Default)]
pub struct GeneralPrompts {
    cache_dir: Option<PathBuf>,
    vectors: OnceLock<Result<Vec<Vec<f32>>, String>>,
}

impl GeneralPrompts {
    /// Prompts whose vectors are kept in `cache_dir` (`None`: embedded once per process).
    pub fn new(cache_dir: Option<PathBuf>) -> Self {
        GeneralPrompts { cache_dir, vectors: OnceLock::new() }
    }

    /// The mean cosine similarity of `query` to its [`TOP`] nearest general prompts, to its [`TOP`]
    /// nearest memory questions and to its [`TOP`] nearest made-up prompts.
    pub fn similarity(&self, embedder: &dyn Embedder, query: &[f32]) -> Result<Nearness, String> {
        let vectors = self.vectors(embedder)?;
        let (general, rest) = vectors.split_at(prompts().len().min(vectors.len()));
        let (questions, nonsense) = rest.split_at(questions().len().min(rest.len()));
        let near = |list: &[Vec<f32>]| top_mean(list.iter().map(|v| cosine(query, v)));
        Ok(Nearness { general: near(general), questions: near(questions), nonsense: near(nonsense) })
    }

    /// Embeds the prompts (or reads them) once.
    fn vectors(&self, embedder: &dyn Embedder) -> Result<&[Vec<f32>], String> {
        self.vectors
            .get_or_init(|| {
                let file = self.cache_dir.as_deref().map(|d| cache_file(d, embedder.model_id()));
                let list: Vec<&str> = prompts().into_iter().chain(questions()).chain(nonsense()).collect();
                let stamp = stamp(&list, embedder.dim());
                if let Some(v) = file.as_deref().and_then(|f| read(f, &stamp, embedder.dim(), list.len())) {
                    return Ok(v);
                }
                let vectors = embedder
                    .embed(&list, EmbedKind::Query)
                    .map_err(|e| format!("embedding the general prompts failed: {e}"))?;
                if vectors.len() != list.len() || vectors.iter().any(|v| v.len() != embedder.dim()) {
                    return Err("the embedder returned the general prompts' vectors malformed".to_owned());
                }
                if let Some(f) = &file {
                    // A cache that cannot be written (a read-only data directory) costs the next process
                    // the embedding, nothing else.
                    let _ = write(f, &stamp, &vectors);
                }
                Ok(vectors)
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }
}

/// The mean of the [`TOP`] largest of `scores` (0 for none; the mean of what there is when fewer).
pub(crate) fn top_mean(scores: impl IntoIterator<Item = f32>) -> f32 {
    let mut top = [f32::NEG_INFINITY; TOP];
    for s in scores {
        if s > top[TOP - 1] {
            top[TOP - 1] = s;
            top.sort_by(|a, b| b.total_cmp(a));
        }
    }
    let kept: Vec<f32> = top.into_iter().filter(|s| s.is_finite()).collect();
    if kept.is_empty() { 0.0 } else { kept.iter().sum::<f32>() / kept.len() as f32 }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na.sqrt() * nb.sqrt()) }
}

fn cache_file(dir: &Path, model_id: &str) -> PathBuf {
    let name: String = model_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
        .collect();
    dir.join(format!("general-{name}.vectors"))
}

/// The cache file's first line: the list's hash and the dimension, so an edited list or another
/// model's vectors are never read.
fn stamp(list: &[&str], dim: usize) -> String {
    format!("cairn general prompts {} {dim} {}\n", content_hash(list.join("\n").as_bytes()), list.len())
}

fn read(path: &Path, stamp: &str, dim: usize, n: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    let body = bytes.strip_prefix(stamp.as_bytes())?;
    if body.len() != n * dim * 4 {
        return None;
    }
    Some(
        body.chunks_exact(dim * 4)
            .map(|v| v.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
            .collect(),
    )
}

/// Writes the whole file beside its place, then renames it there: a reader sees the old file or the
/// new one, never half of one.
fn write(path: &Path, stamp: &str, vectors: &[Vec<f32>]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = stamp.as_bytes().to_vec();
    for v in vectors {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, &out)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Embeds a text as its length and its count of the letter `a`, counting the texts it embeds.
    struct Counting(std::sync::atomic::AtomicUsize);

    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            "m/1"
        }
        fn dim(&self) -> usize {
            2
        }
        fn embed(&self, texts: &[&str], _: EmbedKind) -> cairn_embed::Result<Vec<Vec<f32>>> {
            self.0.fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32, t.matches('a').count() as f32]).collect())
        }
    }

    #[test]
    fn top_mean_averages_the_best_three() {
        assert_eq!(top_mean([0.1, 0.9, 0.5, 0.7, 0.2]), (0.9 + 0.7 + 0.5) / 3.0);
        assert_eq!(top_mean([0.4, 0.2]), 0.3);
        assert_eq!(top_mean([]), 0.0);
    }

    #[test]
    fn the_lists_are_sizeable_and_distinct() {
        let (general, questions, nonsense) = (prompts(), questions(), nonsense());
        assert!(general.len() >= 200, "{}", general.len());
        assert!(questions.len() >= 250, "{}", questions.len());
        assert!(nonsense.len() >= 30, "{}", nonsense.len());
        assert!(general.iter().chain(&questions).chain(&nonsense).all(|p| !p.starts_with('#')));
        assert!(!general.iter().any(|p| questions.contains(p) || nonsense.contains(p)));
        assert!(!questions.iter().any(|p| nonsense.contains(p)));
    }

    #[test]
    fn a_query_is_measured_against_each_list_apart() {
        // Each list's own nearest three, not the nearest three of both.
        let e = Counting(Default::default());
        let bank = GeneralPrompts::new(None);
        let near = bank.similarity(&e, &[1.0, 0.0]).unwrap();
        let by_hand = |list: Vec<&str>| {
            top_mean(
                list.iter().map(|t| cosine(&[1.0, 0.0], &[t.len() as f32, t.matches('a').count() as f32])),
            )
        };
        assert_eq!(near.general, by_hand(prompts()));
        assert_eq!(near.questions, by_hand(questions()));
        assert_eq!(near.nonsense, by_hand(nonsense()));
    }

    #[test]
    fn vectors_are_embedded_once_and_kept_for_the_next_process() {
        let dir = tempfile::tempdir().unwrap();
        let e = Counting(Default::default());
        let n = prompts().len() + questions().len() + nonsense().len();
        let first = GeneralPrompts::new(Some(dir.path().to_owned()));
        let s = first.similarity(&e, &[1.0, 0.0]).unwrap();
        first.similarity(&e, &[0.0, 1.0]).unwrap();
        assert_eq!(e.0.load(std::sync::atomic::Ordering::SeqCst), n);
        let file = dir.path().join("general-m_1.vectors");
        assert!(file.exists());
        // The next process reads them.
        let again = GeneralPrompts::new(Some(dir.path().to_owned()));
        assert_eq!(again.similarity(&e, &[1.0, 0.0]).unwrap(), s);
        assert_eq!(e.0.load(std::sync::atomic::Ordering::SeqCst), n);
        // A damaged file is embedded again, not misread.
        std::fs::write(&file, b"cairn general prompts x").unwrap();
        let damaged = GeneralPrompts::new(Some(dir.path().to_owned()));
        assert_eq!(damaged.similarity(&e, &[1.0, 0.0]).unwrap(), s);
        assert_eq!(e.0.load(std::sync::atomic::Ordering::SeqCst), 2 * n);
    }
}
