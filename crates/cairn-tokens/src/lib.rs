//! Token counting for budgets, with a real BPE tokenizer.
//!
//! ```
//! use cairn_tokens::{Encoding, Tokenizer};
//! let t = Tokenizer::new(Encoding::Cl100k);
//! assert_eq!(t.count("hello world"), 2);
//! ```
#![warn(missing_docs)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::str::FromStr;

use rustc_hash::FxHasher;

use serde::{Deserialize, Serialize};

mod split;

/// Which BPE vocabulary counts tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o family). Its tables take about 45 ms more to load per process than cl100k's.
    O200k,
    /// `cl100k_base` (GPT-4 / GPT-3.5 family): the default, for a fast cold start.
    #[default]
    Cl100k,
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Encoding::O200k => "o200k",
            Encoding::Cl100k => "cl100k",
        })
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().trim_end_matches("_base") {
            "o200k" => Ok(Encoding::O200k),
            "cl100k" => Ok(Encoding::Cl100k),
            other => Err(format!("unknown encoding `{other}` (expected `o200k` or `cl100k`)")),
        }
    }
}

/// Pieces up to this many bytes have their counts memoised.
const MEMO_PIECE_BYTES: usize = 23;
/// Memoised pieces per thread and encoding before the memo starts over (2 MB at most).
const MEMO_PIECES: usize = 1 << 16;

/// A memoised piece, inline: its bytes zero-padded to 23, then its length. A lookup compares keys in
/// the table itself instead of following a pointer to each candidate's bytes (that pointer chase was
/// the most expensive part of counting a text whose pieces are mostly memoised).
type PieceKey = [u64; 3];

fn piece_key(piece: &[u8]) -> Option<PieceKey> {
    if piece.len() > MEMO_PIECE_BYTES {
        return None;
    }
    let mut b = [0u8; 24];
    b[..piece.len()].copy_from_slice(piece);
    b[23] = piece.len() as u8;
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    Some([word(0), word(8), word(16)])
}

type PieceMemo = HashMap<PieceKey, u32, BuildHasherDefault<FxHasher>>;

thread_local! {
    /// Token counts of short pre-tokenizer pieces, per encoding (indexed by `Encoding as usize`).
    static PIECES: RefCell<[PieceMemo; 2]> = RefCell::new([PieceMemo::default(), PieceMemo::default()]);
}

/// A token counter. Cheap to clone; the vocabulary is loaded once per process on first use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tokenizer {
    encoding: Encoding,
}

impl Tokenizer {
    /// A counter for `encoding`.
    pub fn new(encoding: Encoding) -> Self {
        Self { encoding }
    }

    /// The encoding in use.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    fn bpe(&self) -> &'static bpe_openai::Tokenizer {
        // Serialised at build time; the first use per process only deserialises it.
        match self.encoding {
            Encoding::O200k => bpe_openai::o200k_base(),
            Encoding::Cl100k => bpe_openai::cl100k_base(),
        }
    }

    /// Number of tokens in `text` (special tokens are counted as ordinary text).
    ///
    /// Exactly the BPE's own count: the text is split by the encoding's pre-tokenizer and each piece is
    /// encoded on its own, so a piece's count never depends on its neighbours. Short pieces (words with
    /// their leading space, punctuation runs) recur endlessly, so their counts are memoised per thread;
    /// only unseen or long pieces run the encoder.
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let bpe = self.bpe();
        let normalized = bpe.normalize(text);
        PIECES.with(|memo| {
            let mut memo = memo.borrow_mut();
            let memo = &mut memo[self.encoding as usize];
            let mut count_piece = |piece: &str| -> usize {
                let Some(key) = piece_key(piece.as_bytes()) else {
                    return bpe.bpe.count(piece.as_bytes());
                };
                if let Some(&n) = memo.get(&key) {
                    return n as usize;
                }
                let n = bpe.bpe.count(piece.as_bytes());
                if memo.len() >= MEMO_PIECES {
                    memo.clear();
                }
                memo.insert(key, n as u32);
                n
            };
            let text = normalized.as_str();
            match self.encoding {
                // The same pieces as the regex, found mostly without it (see `split`).
                Encoding::Cl100k => split::pieces(bpe, text).map(&mut count_piece).sum(),
                Encoding::O200k => bpe.split(text).map(&mut count_piece).sum(),
            }
        })
    }

    /// The longest prefix of `text` (cut at a char boundary, preferring whitespace) with at most `max` tokens.
    pub fn truncate<'a>(&self, text: &'a str, max: usize) -> &'a str {
        if self.count(text) <= max {
            return text;
        }
        // Binary search on char boundaries: token count is monotone in prefix length (up to BPE merges,
        // which can only lower a prefix's count, so the found prefix is always within `max`).
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let (mut lo, mut hi) = (0usize, bounds.len() - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.count(&text[..bounds[mid]]) <= max {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let cut = &text[..bounds[lo]];
        match cut.rfind(char::is_whitespace) {
            Some(ws) if ws > cut.len() / 2 => cut[..ws].trim_end(),
            _ => cut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_real_tokens() {
        let t = Tokenizer::new(Encoding::O200k);
        assert_eq!(t.count(""), 0);
        assert_eq!(t.count("hello world"), 2);
        let c = Tokenizer::new(Encoding::Cl100k);
        assert_eq!(c.count("hello world"), 2);
        // CJK costs more than one token per character in cl100k.
        assert!(c.count("記憶システム") >= 3);
    }

    #[test]
    fn piece_keys_tell_pieces_apart() {
        // Padding is zeros, so the length must tell "a" from "a\0".
        assert_ne!(piece_key(b"a"), piece_key(b"a\0"));
        assert_ne!(piece_key(b""), piece_key(b"\0"));
        assert_ne!(piece_key(&[b'x'; 23]), piece_key(&[b'x'; 22]));
        assert!(piece_key(&[b'x'; 23]).is_some());
        assert_eq!(piece_key(&[b'x'; 24]), None);
        // NUL-heavy pieces are counted exactly too, memo or not.
        let t = Tokenizer::new(Encoding::Cl100k);
        for text in ["a\0", "a", "a\0", "\0\0 a", "\0\0 a\0"] {
            assert_eq!(t.count(text), t.bpe().count(text));
        }
    }

    proptest::proptest! {
        /// The memoised count is exactly the BPE's own count, however often pieces recur.
        #[test]
        fn memoised_count_is_exact(text in "(\\PC{0,40}|[a-z ]{0,80}|記憶システム|  \n\t|'s|x{30}){0,12}") {
            for enc in [Encoding::Cl100k, Encoding::O200k] {
                let t = Tokenizer::new(enc);
                let want = t.bpe().count(text.as_str());
                proptest::prop_assert_eq!(t.count(&text), want);
                proptest::prop_assert_eq!(t.count(&text), want, "second call, from the memo");
            }
        }
    }

    #[test]
    fn truncate_respects_max() {
        let t = Tokenizer::default();
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        for max in [0, 1, 5, 17, 50] {
            let cut = t.truncate(&text, max);
            assert!(t.count(cut) <= max, "max {max}");
            assert!(text.starts_with(cut));
        }
        assert_eq!(t.truncate("short", 10), "short");
    }
}
