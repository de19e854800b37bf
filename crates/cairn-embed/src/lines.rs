//! A chunk's lines, embedded beside its whole text. A memory note is mostly a list of facts (a
//! contact's address, a daily note's five events); embedded whole, each fact is diluted by the others,
//! and a question about one of them ("which vet looks after the dog?") comes only modestly near the
//! note that answers it. So a chunk of two lines or more is embedded whole and line by line. Its
//! vector, the one searched, is the sum of its whole-text vector and the mean of its line vectors,
//! normalised ([`blend_lines`]): the note keeps its overall meaning and each fact counts on its own
//! too. The line vectors are kept beside it ([`ChunkVectors`]) for recall to re-score what it found
//! by the nearest line. What grows is the embedding work at ingest (about twice the tokens for a note
//! of short lines) and the stored row.

use crate::{EmbedKind, Embedder, Error, Result};

/// Lines shorter than this (in characters, after their list marker or heading marks) carry no fact
/// of their own ("# 2026-02-04", "- ok").
const MIN_LINE_CHARS: usize = 12;

/// Most lines embedded for one chunk: a long chunk's first lines (a chunk is at most a few thousand
/// characters, so this bounds the cost of a pathological one made of very short lines).
const MAX_LINES: usize = 48;

/// The texts a chunk's lines are embedded as, each `title: line` (the title gives a line its
/// subject: "Dr. Priya Raman: Open Monday to Friday"), list markers and heading marks removed; empty
/// when the chunk has fewer than two such lines (its whole text says it all).
pub fn embed_lines(title: &str, text: &str) -> Vec<String> {
    let title = title.trim();
    kept_lines(text)
        .into_iter()
        .map(|(_, l)| if title.is_empty() { l.to_owned() } else { format!("{title}: {l}") })
        .collect()
}

/// Where each of `text`'s [`embed_lines`] starts in it (bytes), in the same order: line `i`'s vector
/// is the one made from the line at offset `i` (empty when the chunk has fewer than two such lines).
pub fn line_offsets(text: &str) -> Vec<usize> {
    kept_lines(text).into_iter().map(|(at, _)| at).collect()
}

/// The lines of `text` that carry a fact, each with where its raw line starts (bytes) and without
/// its list marker or heading marks; none when fewer than two do.
fn kept_lines(text: &str) -> Vec<(usize, &str)> {
    let mut at = 0usize;
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .map(|raw| {
            let start = at;
            at += raw.len();
            (start, raw.trim().trim_start_matches(['-', '*', '+', '#', '>']).trim())
        })
        .filter(|(_, l)| l.chars().count() >= MIN_LINE_CHARS)
        .take(MAX_LINES)
        .collect();
    if lines.len() < 2 { Vec::new() } else { lines }
}

/// The vector of a chunk whose whole text embeds as `whole` and whose [`embed_lines`] embed as
/// `lines`: `whole` plus the unit mean of `lines`, normalised (`whole` itself when there are no lines
/// or they cancel out). Vectors of another length than `whole` are ignored.
pub fn blend_lines(whole: &[f32], lines: &[Vec<f32>]) -> Vec<f32> {
    let lines: Vec<&Vec<f32>> = lines.iter().filter(|l| l.len() == whole.len()).collect();
    if lines.is_empty() {
        return whole.to_vec();
    }
    let mut mean = vec![0.0f32; whole.len()];
    for l in &lines {
        for (m, x) in mean.iter_mut().zip(l.iter()) {
            *m += x;
        }
    }
    let n = norm(&mean);
    if n <= f32::EPSILON {
        return whole.to_vec();
    }
    let mut out: Vec<f32> = whole.iter().zip(&mean).map(|(w, m)| w + m / n).collect();
    let n = norm(&out);
    if n <= f32::EPSILON {
        return whole.to_vec();
    }
    for x in &mut out {
        *x /= n;
    }
    out
}

/// What a chunk is embedded from: its whole text as [`cairn_core`]'s `embed_text` makes it (context,
/// title, text), and its title and text, whose lines [`embed_lines`] takes.
#[derive(Debug, Clone, Copy)]
pub struct ChunkText<'a> {
    /// The whole text to embed.
    pub whole: &'a str,
    /// The item's title.
    pub title: &'a str,
    /// The chunk's text.
    pub text: &'a str,
}

/// A chunk's vectors: the one it is searched by ([`blend_lines`] of its whole text and its lines)
/// and its lines' own, one after another (empty when the chunk has fewer than two lines), which
/// recall uses to re-score the chunks it found: a question about one fact of a note meets the line
/// that states it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkVectors {
    /// The blended vector.
    pub vector: Vec<f32>,
    /// The lines' vectors, each as long as `vector`.
    pub lines: Vec<f32>,
}

/// Each chunk's vectors: its whole text and its lines embedded in one call to `embedder`, blended
/// ([`blend_lines`]), and the lines kept.
pub fn embed_chunks(embedder: &dyn Embedder, chunks: &[ChunkText<'_>]) -> Result<Vec<ChunkVectors>> {
    let mut texts: Vec<String> = Vec::with_capacity(chunks.len() * 4);
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(chunks.len());
    for c in chunks {
        let start = texts.len();
        texts.push(c.whole.to_owned());
        texts.extend(embed_lines(c.title, c.text));
        spans.push((start, texts.len()));
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs, EmbedKind::Document)?;
    if vectors.len() != texts.len() {
        return Err(Error::Inference(format!(
            "the embedder returned {} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    Ok(spans
        .iter()
        .map(|&(a, b)| {
            let whole = &vectors[a];
            let lines = &vectors[a + 1..b];
            ChunkVectors {
                vector: blend_lines(whole, lines),
                lines: lines.iter().filter(|l| l.len() == whole.len()).flatten().copied().collect(),
            }
        })
        .collect())
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_offsets_follow_the_lines_embedded() {
        let text = "# Health\n\n- Allergic to penicillin.\n- ok\n- Flu jab done, 7 October 2024.\n";
        let offsets = line_offsets(text);
        let lines = embed_lines("", text);
        assert_eq!(offsets.len(), lines.len());
        for (o, l) in offsets.iter().zip(&lines) {
            let raw = text[*o..].lines().next().unwrap();
            assert!(raw.ends_with(l.as_str()), "{raw:?} / {l:?}");
        }
        assert!(line_offsets("one line only, long enough").is_empty());
    }

    #[test]
    fn lines_of_a_list_note_carry_its_title_and_short_lines_are_left_out() {
        let text =
            "# Dr. Priya Raman\n\n- Eno River Animal Hospital, Durham.\n- ok\n* Moss's regular since 2022.\n";
        assert_eq!(
            embed_lines("Dr. Priya Raman", text),
            vec![
                "Dr. Priya Raman: Dr. Priya Raman",
                "Dr. Priya Raman: Eno River Animal Hospital, Durham.",
                "Dr. Priya Raman: Moss's regular since 2022.",
            ]
        );
        // One line of substance: the whole text says it all.
        assert!(embed_lines("t", "# 2026-02-04\n\n- Vet: x-rays of the left stifle.\n").is_empty());
        assert!(embed_lines("t", "").is_empty());
        let many = "- a line long enough to count\n".repeat(500);
        assert_eq!(embed_lines("", &many).len(), MAX_LINES);
        assert_eq!(embed_lines("", &many)[0], "a line long enough to count");
    }

    #[test]
    fn a_blend_is_unit_length_and_leans_toward_its_lines() {
        let whole = vec![1.0, 0.0, 0.0];
        let lines = vec![vec![0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0]];
        let b = blend_lines(&whole, &lines);
        assert!((norm(&b) - 1.0).abs() < 1e-6);
        let s = std::f32::consts::FRAC_1_SQRT_2;
        assert!((b[0] - s).abs() < 1e-6 && (b[1] - s).abs() < 1e-6 && b[2] == 0.0, "{b:?}");
        // No lines, lines that cancel out, or lines of another length: the whole vector.
        assert_eq!(blend_lines(&whole, &[]), whole);
        assert_eq!(blend_lines(&whole, &[vec![0.0, 1.0, 0.0], vec![0.0, -1.0, 0.0]]), whole);
        assert_eq!(blend_lines(&whole, &[vec![1.0, 0.0]]), whole);
    }
}
