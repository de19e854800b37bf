//! Splitting a prompt into words, numbers and punctuation, in one pass over its bytes.
//!
//! Words are runs of letters and digits that start with a letter; any non-ASCII character counts as a
//! letter, except the no-break space (U+00A0) and the General Punctuation block (U+2000–U+206F: thin
//! spaces, dashes, curly quotes), so "mid–March" and "Presidents’ Day" split as they would in ASCII.
//! Numbers are runs of digits, with an ordinal suffix ("12th") kept on the number; a number glued to
//! other letters ("3pm", "5k") is a word, so it never reads as a day. A possessive `'s`, `’s` or a
//! plural's trailing apostrophe stays on its word, flagged.

use crate::lexicon::{Lex, classify};

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Word(Lex),
    /// Digits: their value (saturating), how many there were, and whether an ordinal suffix followed.
    Num {
        value: u32,
        digits: u8,
        ordinal: bool,
    },
    /// One punctuation character; dashes read as `-`, curly apostrophes as `'`, others as themselves
    /// (non-ASCII ones as `0`).
    Punct(u8),
}

/// One token: what it is and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) kind: Kind,
    /// The word starts with an upper-case letter.
    pub(crate) capital: bool,
    /// The word carries a possessive apostrophe ("year's", "presidents'").
    pub(crate) possessive: bool,
}

/// What the character at a byte offset is, for splitting.
enum Class {
    Space(usize),
    Punct(u8, usize),
    Letter,
}

/// Classifies the (possibly multi-byte) character at `i`; for space and punctuation, also its length.
fn class(b: &[u8], i: usize) -> Class {
    let c = b[i];
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Letter
        } else if c.is_ascii_whitespace() {
            Class::Space(1)
        } else {
            Class::Punct(c, 1)
        };
    }
    if c == 0xC2 && b.get(i + 1) == Some(&0xA0) {
        return Class::Space(2);
    }
    if c == 0xE2 && matches!(b.get(i + 1), Some(0x80 | 0x81)) {
        let Some(&third) = b.get(i + 2) else { return Class::Letter };
        return match (b[i + 1], third) {
            (0x80, 0x80..=0x8F) | (0x80, 0xA8..=0xAF) | (0x81, 0x9F..=0xAF) => Class::Space(3),
            (0x80, 0x90..=0x95) => Class::Punct(b'-', 3),
            (0x80, 0x98..=0x9B) => Class::Punct(b'\'', 3),
            _ => Class::Punct(0, 3),
        };
    }
    Class::Letter
}

/// Whether the character at `i` continues a word.
fn is_letter(b: &[u8], i: usize) -> bool {
    i < b.len() && matches!(class(b, i), Class::Letter)
}

/// Splits `text` into tokens.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 5 + 4);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b' ' {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() {
            i = word(b, i, &mut out);
            continue;
        }
        match class(b, i) {
            Class::Space(len) => i += len,
            Class::Punct(p, len) => {
                out.push(Token {
                    start: i,
                    end: i + len,
                    kind: Kind::Punct(p),
                    capital: false,
                    possessive: false,
                });
                i += len;
            }
            Class::Letter if b[i].is_ascii_digit() => i = number(b, i, &mut out),
            Class::Letter => i = word(b, i, &mut out),
        }
    }
    out
}

/// Reads the number at `start`; returns where the next token starts.
fn number(b: &[u8], start: usize, out: &mut Vec<Token>) -> usize {
    let mut i = start;
    let mut value: u32 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        value = value.saturating_mul(10).saturating_add(u32::from(b[i] - b'0'));
        i += 1;
    }
    let digits = u8::try_from(i - start).unwrap_or(u8::MAX);
    let mut ordinal = false;
    if is_letter(b, i) {
        let suffix = b.get(i..i + 2).map(|s| [s[0].to_ascii_lowercase(), s[1].to_ascii_lowercase()]);
        let iso_time = matches!(b[i], b'T' | b't') && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if matches!(suffix, Some([b's', b't'] | [b'n', b'd'] | [b'r', b'd'] | [b't', b'h']))
            && !is_letter(b, i + 2)
        {
            ordinal = true;
            i += 2;
        } else if !iso_time {
            // Glued to letters ("3pm", "5k", "mp3x"): a word, never a number.
            return word(b, start, out);
        }
    }
    out.push(Token {
        start,
        end: i,
        kind: Kind::Num { value, digits, ordinal },
        capital: false,
        possessive: false,
    });
    i
}

/// Reads the word at `start` (and its possessive apostrophe); returns where the next token starts.
fn word(b: &[u8], start: usize, out: &mut Vec<Token>) -> usize {
    let mut i = start;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || (!b[i].is_ascii() && is_letter(b, i))) {
        i += 1;
    }
    let lex = classify(&b[start..i]);
    let mut end = i;
    let mut possessive = false;
    if i < b.len()
        && let Class::Punct(b'\'', len) = class(b, i)
    {
        let after = i + len;
        if matches!(b.get(after), Some(b's' | b'S')) && !is_letter(b, after + 1) {
            (end, possessive) = (after + 1, true);
        } else if matches!(b[i - 1], b's' | b'S') && !is_letter(b, after) {
            (end, possessive) = (after, true);
        }
    }
    let capital = b[start].is_ascii_uppercase();
    out.push(Token { start, end, kind: Kind::Word(lex), capital, possessive });
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::Unit;

    fn kinds(text: &str) -> Vec<Kind> {
        tokenize(text).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers_ordinals_and_glued_letters() {
        let k = kinds("12th 3pm 2026-03-12T10:00");
        assert_eq!(k[0], Kind::Num { value: 12, digits: 2, ordinal: true });
        assert_eq!(k[1], Kind::Word(Lex::Other));
        assert_eq!(k[2], Kind::Num { value: 2026, digits: 4, ordinal: false });
        assert_eq!(k[3], Kind::Punct(b'-'));
        assert_eq!(k[6], Kind::Num { value: 12, digits: 2, ordinal: false });
        assert_eq!(k[7], Kind::Word(Lex::Other));
    }

    #[test]
    fn possessives_and_unicode_punctuation() {
        let t = tokenize("New Year’s Day, presidents' day, mid–March\u{a0}café");
        assert_eq!(t[1].kind, Kind::Word(Lex::Unit { unit: Unit::Year, plural: false }));
        assert!(t[1].possessive);
        assert_eq!(&"New Year’s Day"[t[1].start..t[1].end], "Year’s");
        assert_eq!(t[4].kind, Kind::Word(Lex::Presidents));
        assert!(t[4].possessive);
        assert_eq!(t[7].kind, Kind::Word(Lex::Mid));
        assert_eq!(t[8].kind, Kind::Punct(b'-'));
        assert_eq!(t[9].kind, Kind::Word(Lex::Month { month: 3, full: true }));
        assert_eq!(t[10].kind, Kind::Word(Lex::Other));
    }

    #[test]
    fn every_token_is_on_char_boundaries() {
        let text = "é—x’y\u{2009}z 1\u{a0}2 \u{2060}ü";
        for t in tokenize(text) {
            assert!(text.get(t.start..t.end).is_some(), "{t:?}");
        }
    }
}
