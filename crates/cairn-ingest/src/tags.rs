//! Tag normalisation and inference from the store's tag vocabulary.

use std::collections::BTreeSet;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

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

/// Finds vocabulary tags in text as whole words, in one pass.
///
/// A tag matches where it occurs with word boundaries on both sides (case-insensitive for ASCII); a
/// hyphenated tag such as `machine-learning` also matches `machine learning` or `machine_learning`.
/// Tags shorter than three characters are too noisy to infer and are left out.
#[derive(Debug, Clone)]
pub struct TagMatcher {
    tags: Vec<String>,
    // pattern index → tag index
    owner: Vec<usize>,
    ac: Option<AhoCorasick>,
}

impl TagMatcher {
    /// Build a matcher for `vocabulary`.
    pub fn new(vocabulary: &BTreeSet<String>) -> Self {
        let tags: Vec<String> = vocabulary.iter().filter(|t| t.chars().count() >= 3).cloned().collect();
        let mut patterns = Vec::new();
        let mut owner = Vec::new();
        for (i, t) in tags.iter().enumerate() {
            let mut forms = BTreeSet::from([t.clone()]);
            if t.contains(['-', '_']) {
                forms.insert(t.replace(['-', '_'], " "));
                forms.insert(t.replace('-', "_"));
                forms.insert(t.replace('_', "-"));
            }
            for f in forms {
                patterns.push(f);
                owner.push(i);
            }
        }
        let ac = (!patterns.is_empty()).then(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .kind(Some(AhoCorasickKind::DFA))
                .build(&patterns)
                .expect("tag patterns are plain strings")
        });
        Self { tags, owner, ac }
    }

    /// Tags of the vocabulary found in `text` (sorted, deduplicated).
    pub fn find(&self, text: &str) -> Vec<String> {
        let Some(ac) = &self.ac else { return Vec::new() };
        let bytes = text.as_bytes();
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80;
        let mut found = vec![false; self.tags.len()];
        for m in ac.find_overlapping_iter(text) {
            let before_ok = m.start() == 0 || !is_word(bytes[m.start() - 1]);
            let after_ok = m.end() == bytes.len() || !is_word(bytes[m.end()]);
            // A hyphen or underscore next to the match is a separator, not part of a word.
            let before_sep = m.start() > 0 && matches!(bytes[m.start() - 1], b'-' | b'_');
            let after_sep = m.end() < bytes.len() && matches!(bytes[m.end()], b'-' | b'_');
            if (before_ok || before_sep) && (after_ok || after_sep) {
                found[self.owner[m.pattern().as_usize()]] = true;
            }
        }
        self.tags.iter().zip(found).filter(|(_, f)| *f).map(|(t, _)| t.clone()).collect()
    }
}

/// Tags from `vocabulary` that occur as words in `text` (sorted). Builds a matcher each call; reuse a
/// [`TagMatcher`] for many texts.
pub fn infer(text: &str, vocabulary: &BTreeSet<String>) -> Vec<String> {
    TagMatcher::new(vocabulary).find(text)
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
        let vocab: BTreeSet<String> =
            ["trading", "machine-learning", "ops", "go", "rust"].map(String::from).into();
        let got = infer("Notes on Machine Learning for trading; ops-review later. Go! Trust me.", &vocab);
        assert_eq!(
            got,
            ["machine-learning", "ops", "trading"],
            "`go` is too short; `rust` is inside `Trust`"
        );
        assert!(infer("nothing here", &vocab).is_empty());
        assert_eq!(infer("TRADING", &vocab), ["trading"]);
        assert!(infer("tradings", &vocab).is_empty());
    }
}
