//! Text normalisation shared by keywords and prompts: Unicode case folding and whitespace collapsing.

/// Folds case and collapses every run of whitespace to one ASCII space (leading and trailing
/// whitespace dropped), so that a multi-word keyword matches across any whitespace.
///
/// Folding is `char::to_lowercase` plus the full-folding cases that lowercasing misses
/// (`ß`/`ẞ` → `ss`, final sigma `ς` → `σ`, long s `ſ` → `s`).
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            'ſ' => out.push('s'),
            _ => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// A "word" character for boundary checks: Unicode alphanumeric or `_`.
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether the folded text `[start, end)` sits on word boundaries, checking only the ends
/// where the keyword itself begins or ends with a word character.
pub(crate) fn on_word_boundaries(
    text: &str,
    start: usize,
    end: usize,
    check_left: bool,
    check_right: bool,
) -> bool {
    if check_left && text[..start].chars().next_back().is_some_and(is_word_char) {
        return false;
    }
    if check_right && text[end..].chars().next().is_some_and(is_word_char) {
        return false;
    }
    true
}

/// Number of whitespace-separated words.
pub(crate) fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Whether folded `text` starts with folded `phrase` followed by a non-word character or the end.
pub(crate) fn starts_with_phrase(text: &str, phrase: &str) -> bool {
    if phrase.is_empty() || !text.starts_with(phrase) {
        return false;
    }
    let last_is_word = phrase.chars().next_back().is_some_and(is_word_char);
    !last_is_word || !text[phrase.len()..].chars().next().is_some_and(is_word_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_fold(input: &str, expect: &str) {
        assert_eq!(fold(input), expect, "fold({input:?})");
    }

    #[test]
    fn folding() {
        check_fold("  Tasting\n\t MENU ", "tasting menu");
        check_fold("STRASSE Straße", "strasse strasse");
        check_fold("ΣΟΦΟΣ σοφος", "σοφοσ σοφοσ");
        check_fold("ÉCOLE", "école");
        check_fold("", "");
    }

    #[test]
    fn boundaries() {
        let t = "the deal memo, dealer";
        assert!(on_word_boundaries(t, 4, 8, true, true));
        assert!(!on_word_boundaries(t, 15, 19, true, true));
        assert!(on_word_boundaries(t, 15, 19, true, false));
        assert!(starts_with_phrase("also, what", "also"));
        assert!(!starts_with_phrase("alsoing", "also"));
        assert!(starts_with_phrase("and what about it", "and what about"));
    }
}
