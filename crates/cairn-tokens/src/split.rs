//! A fast path for the cl100k pre-tokenizer: ASCII pieces are cut by hand, anything else by the regex.
//!
//! cl100k splits text with the regex (alternatives tried in order, leftmost first)
//!
//! ```text
//! (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n]*
//!   | \s*[\r\n]+ | \s+$ | \s+(?!\S) | \s+
//! ```
//!
//! anchored at the end of the previous piece, so each piece depends only on the text from its start on.
//! [`next_piece`] decides a piece by hand when every byte the decision looks at is ASCII (where `\p{L}`
//! is `[A-Za-z]`, `\p{N}` is `[0-9]` and `\s` is `[\t\n\x0B\x0C\r ]`), and otherwise hands that one piece
//! to the encoding's own regex; either way the pieces are the regex's pieces (checked by a property
//! test against [`bpe_openai::Tokenizer::split`]). Running the regex engine once per piece was most of
//! the cost of counting.

/// ASCII letter (`\p{L}` restricted to ASCII).
#[inline]
fn letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

/// ASCII digit (`\p{N}` restricted to ASCII).
#[inline]
fn digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// ASCII whitespace as the regex's `\s` sees it (Unicode `White_Space` restricted to ASCII).
#[inline]
fn space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// ASCII `[^\s\p{L}\p{N}]`.
#[inline]
fn punct(b: u8) -> bool {
    b.is_ascii() && !space(b) && !letter(b) && !digit(b)
}

/// Marker for "this decision needs a byte outside ASCII": the regex decides instead.
struct NotAscii;

/// The byte at `i`, `None` past the end; [`NotAscii`] for a byte outside ASCII.
#[inline]
fn at(s: &[u8], i: usize) -> Result<Option<u8>, NotAscii> {
    match s.get(i) {
        Some(&b) if b >= 0x80 => Err(NotAscii),
        other => Ok(other.copied()),
    }
}

/// The end of the run of bytes matching `class` from `i`; the byte that ends it must be ASCII (a
/// non-ASCII byte might continue the run as the regex sees it).
#[inline]
fn run(s: &[u8], mut i: usize, class: fn(u8) -> bool) -> Result<usize, NotAscii> {
    while let Some(b) = at(s, i)? {
        if !class(b) {
            break;
        }
        i += 1;
    }
    Ok(i)
}

/// The length of the cl100k piece at the start of `s` (not empty), or `None` when deciding it needs a
/// non-ASCII byte.
fn ascii_piece(s: &[u8]) -> Result<usize, NotAscii> {
    let c0 = at(s, 0)?.expect("not empty");
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if c0 == b'\'' {
        let lower = |b: Option<u8>| b.map(|b| b.to_ascii_lowercase());
        match lower(at(s, 1)?) {
            Some(b's' | b't' | b'm' | b'd') => return Ok(2),
            Some(b'r' | b'v') if lower(at(s, 2)?) == Some(b'e') => return Ok(3),
            Some(b'l') if lower(at(s, 2)?) == Some(b'l') => return Ok(3),
            _ => {}
        }
    }
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if letter(c0) {
        return run(s, 1, letter);
    }
    if c0 != b'\r' && c0 != b'\n' && !digit(c0) && at(s, 1)?.is_some_and(letter) {
        return run(s, 2, letter);
    }
    // \p{N}{1,3}
    if digit(c0) {
        let mut i = 1;
        while i < 3 {
            match at(s, i)? {
                Some(b) if digit(b) => i += 1,
                _ => break,
            }
        }
        return Ok(i);
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
    let start = if c0 == b' ' && at(s, 1)?.is_some_and(punct) {
        Some(1)
    } else if punct(c0) {
        Some(0)
    } else {
        None
    };
    if let Some(start) = start {
        let mut i = run(s, start + 1, punct)?;
        while matches!(s.get(i), Some(b'\r' | b'\n')) {
            i += 1;
        }
        return Ok(i);
    }
    // c0 is whitespace: the run decides the rest.
    debug_assert!(space(c0));
    let w = run(s, 1, space)?;
    // \s*[\r\n]+ : up to the run's last line break.
    if let Some(j) = s[..w].iter().rposition(|&b| b == b'\r' || b == b'\n') {
        return Ok(j + 1);
    }
    // \s+$
    if w == s.len() {
        return Ok(w);
    }
    // \s+(?!\S) : all but the last whitespace, when there are at least two; else \s+
    Ok(if w >= 2 { w - 1 } else { w })
}

/// The next cl100k piece of `text` from byte `pos` (a char boundary before the end), as a byte range end.
pub(crate) fn next_piece(bpe: &bpe_openai::Tokenizer, text: &str, pos: usize) -> usize {
    match ascii_piece(&text.as_bytes()[pos..]) {
        Ok(len) => pos + len,
        Err(NotAscii) => pos + bpe.split(&text[pos..]).next().map_or(text.len() - pos, str::len),
    }
}

/// The cl100k pieces of `text`, identical to `bpe.split(text)`.
pub(crate) fn pieces<'a>(bpe: &'a bpe_openai::Tokenizer, text: &'a str) -> impl Iterator<Item = &'a str> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= text.len() {
            return None;
        }
        let end = next_piece(bpe, text, pos);
        // A piece is never empty; the guard keeps a broken regex from looping forever.
        let end = if end > pos { end } else { text.len() };
        let piece = &text[pos..end];
        pos = end;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) {
        let bpe = bpe_openai::cl100k_base();
        let want: Vec<&str> = bpe.split(text).collect();
        let got: Vec<&str> = pieces(bpe, text).collect();
        assert_eq!(got, want, "{text:?}");
    }

    #[test]
    fn same_pieces_as_the_regex() {
        for text in [
            "",
            "hello world",
            "Hello, World! It's 12345 o'clock; they'RE here, we'Ll see, I'd've.",
            "  leading and trailing  ",
            "a\n\nb\r\n\r\nc \n d\t\te",
            "### [2026-03-18] Title\n*Tags: a, b*\n*Source: x.md:1-4*\n\n",
            "<cairn-context>\n## Retrieved Context\n\n*Assembled by Cairn — 3 items, ~120 tokens*\n",
            "'s 'S 'x '' 're 'r 'll 'l ' ",
            "(hello) [world] {x} \"quoted\" x_y __init__ a-b a/b //c ...",
            "tabs\tand\x0bvertical\x0cfeeds",
            "\x00\x01ctrl\x7f",
            "café naïve résumé ſtop 'ſ K ١٢٣ 東京大学 🙂\u{a0}\u{a0}x\u{2028}y \u{85}z",
            "x   \n",
            "   ",
            "\n",
            " ",
            "1234567 12 1 a1b2",
            "end with space ",
            "end with punct!!\n\n",
        ] {
            check(text);
        }
    }

    proptest::proptest! {
        #[test]
        fn pieces_match_the_regex(
            text in "([a-zA-Z]{1,6}|[0-9]{1,5}|[ \t\n\r\x0b\x0c]{1,4}|['sStTrReEvVmMlLdD]{1,3}|[!-/:-@\\[-`{-~]{1,3}|é|ſ|\u{a0}|\u{85}|\u{2028}|١|東京|🙂|\u{301}|—|…){0,24}"
        ) {
            check(&text);
        }

        #[test]
        fn pieces_match_the_regex_any_text(text in "\\PC{0,60}") {
            check(&text);
        }
    }
}
