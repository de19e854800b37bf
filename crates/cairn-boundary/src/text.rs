//! Small text helpers shared by the content rules: folding, word edges, line numbers, excerpts.

/// Lowercases and collapses every run of whitespace to one space (leading and trailing whitespace
/// dropped), so that a term matches whatever its case and however it is wrapped within a line.
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// A character that continues a word or an identifier.
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `hay[start..end]` stands on its own: the characters around it do not continue a word
/// (checked only where the match itself begins or ends with a word character).
pub(crate) fn stands_alone(hay: &str, start: usize, end: usize) -> bool {
    let inner = &hay[start..end];
    let first = inner.chars().next().is_some_and(is_word_char);
    let last = inner.chars().next_back().is_some_and(is_word_char);
    let before = hay[..start].chars().next_back();
    let after = hay[end..].chars().next();
    let glued_before = first && before.is_some_and(is_word_char);
    let glued_after = last && after.is_some_and(is_word_char);
    !glued_before && !glued_after
}

/// 1-based line numbers for byte offsets of one text.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        LineIndex { starts }
    }

    /// The line holding byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

/// At most `max` characters of `text`, with `…` when cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_ignores_case_and_wrapping() {
        assert_eq!(fold("  Book\tA\n TABLE "), "book a table");
        assert_eq!(fold("Straße"), "straße");
        assert_eq!(fold(""), "");
    }

    #[test]
    fn a_match_stands_alone_only_between_non_word_characters() {
        let check = |hay: &str, term: &str, expect: bool| {
            let start = hay.find(term).unwrap();
            assert_eq!(stands_alone(hay, start, start + term.len()), expect, "{term:?} in {hay:?}");
        };
        check("a falconry tip", "falconry", true);
        check("falconry", "falconry", true);
        check("(falconry)", "falconry", true);
        check("falconry_kit", "falconry", false);
        check("superfalconry", "falconry", false);
        check("falconry2", "falconry", false);
        check("héfalconry", "falconry", false);
        check("c++ rocks", "c++", true);
        check("check-in desk", "check-in", true);
    }

    #[test]
    fn line_numbers_count_from_one() {
        let text = "a\nbb\n\nccc";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_of(0), 1);
        assert_eq!(idx.line_of(1), 1);
        assert_eq!(idx.line_of(2), 2);
        assert_eq!(idx.line_of(5), 3);
        assert_eq!(idx.line_of(6), 4);
        assert_eq!(idx.line_of(8), 4);
    }

    #[test]
    fn excerpts_cut_at_a_character() {
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("ééé", 2), "éé…");
    }
}
