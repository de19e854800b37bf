//! Text normalisation shared by keywords and prompts: Unicode case folding and whitespace collapsing.

/// Folds case and collapses every run of whitespace to one ASCII space (leading and trailing
/// whitespace dropped), so that a multi-word keyword matches across any whitespace.
///
/// Folding is `char::to_lowercase` plus the full-folding cases that lowercasing misses
/// (`ß`/`ẞ` → `ss`, final sigma `ς` → `σ`, long s `ſ` → `s`).
pub(crate) fn fold(text: &str) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut pending_space = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            i += 1;
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
                pending_space = !out.is_empty();
                continue;
            }
            if pending_space {
                out.push(b' ');
                pending_space = false;
            }
            out.push(b.to_ascii_lowercase());
            continue;
        }
        let c = text[i..].chars().next().unwrap_or_default();
        i += c.len_utf8();
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(b' ');
            pending_space = false;
        }
        let mut buf = [0u8; 4];
        match c {
            'ß' | 'ẞ' => out.extend_from_slice(b"ss"),
            'ς' => out.extend_from_slice('σ'.encode_utf8(&mut buf).as_bytes()),
            'ſ' => out.push(b's'),
            _ => {
                for l in c.to_lowercase() {
                    out.extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
    // Only whole UTF-8 sequences were pushed.
    String::from_utf8(out).unwrap_or_default()
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
        check_fold("a\u{a0}\u{2003}b\u{0b}c", "a b c");
        check_fold("İstanbul", "i\u{307}stanbul");
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
