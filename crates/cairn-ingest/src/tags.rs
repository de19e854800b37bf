//! Tag normalisation and inference from the store's tag vocabulary.

use std::collections::{BTreeSet, HashSet};

/// Normalise a tag: trimmed, lowercase, `#` prefix dropped, inner whitespace as `-`.
pub fn normalize(tag: &str) -> Option<String> {
    let t = tag.trim().trim_start_matches('#').trim();
    if t.is_empty() {
        return None;
    }
    Some(t.split_whitespace().collect::<Vec<_>>().join("-").to_lowercase())
}

/// Normalise, dedupe and sort a list of tags.
pub fn normalize_all<'a>(tags: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    tags.into_iter().filter_map(|t| normalize(t)).collect::<BTreeSet<_>>().into_iter().collect()
}

/// Words of `text` as tag candidates: lowercase runs of letters, digits, `-` and `_`, plus the parts of
/// hyphenated words and adjacent-word pairs joined by `-` (so `machine learning` matches `machine-learning`).
fn candidates(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .map(|w| w.trim_matches(['-', '_']).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    for w in &words {
        if w.contains(['-', '_']) {
            out.extend(w.split(['-', '_']).filter(|p| !p.is_empty()).map(str::to_owned));
        }
    }
    for pair in words.windows(2) {
        out.insert(format!("{}-{}", pair[0], pair[1]));
    }
    out.extend(words);
    out
}

/// Tags from `vocabulary` that occur as words in `text` (sorted).
pub fn infer(text: &str, vocabulary: &BTreeSet<String>) -> Vec<String> {
    if vocabulary.is_empty() {
        return Vec::new();
    }
    let words = candidates(text);
    vocabulary.iter().filter(|t| t.chars().count() >= 3 && words.contains(*t)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises() {
        assert_eq!(normalize(" #Machine Learning "), Some("machine-learning".into()));
        assert_eq!(normalize("  "), None);
        let v = vec!["B".to_string(), "a".into(), "b".into()];
        assert_eq!(normalize_all(&v), ["a", "b"]);
    }

    #[test]
    fn infers_from_vocabulary_only() {
        let vocab: BTreeSet<String> = ["trading", "machine-learning", "ops", "go"].map(String::from).into();
        let got = infer("Notes on Machine Learning for trading; ops-review later. Go!", &vocab);
        assert_eq!(got, ["machine-learning", "ops", "trading"], "two-letter tags are too noisy to infer");
        assert!(infer("nothing here", &vocab).is_empty());
    }
}
