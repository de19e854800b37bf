//! Text analysis shared by indexing and querying: one tokenizer for every script.
//!
//! - Unicode word segmentation (UAX #29), lowercasing, Latin letters folded to their base letter
//!   (`Zoë Müller` = `Zoe Muller`, `Łódź` = `Lodz`: people type names without their accents).
//! - Latin and other alphabetic scripts: a small English stop-word list, short forms read as the word
//!   they stand for (`Ref` = `reference`, `Xmas` = `Christmas`: `short_forms.rs`), and the Snowball
//!   English stemmer.
//! - CJK (Han, Hiragana, Katakana, Hangul): each run of CJK characters becomes overlapping character
//!   bigrams (a run of one character becomes a unigram), so Chinese, Japanese and Korean text is searchable
//!   without a dictionary.

use std::sync::OnceLock;

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_normalization::char::{decompose_canonical, is_combining_mark};
use unicode_segmentation::UnicodeSegmentation;

use crate::short_forms::read_as;

/// The name the tokenizer is registered under in the index.
pub(crate) const TOKENIZER_NAME: &str = "cairn_v1";

/// Tokens longer than this (in bytes) are dropped: they are hashes or base64, not words.
const MAX_TOKEN_BYTES: usize = 64;

/// A small English stop-word list: function words and question words that carry no topic.
///
/// Kept short on purpose: BM25's idf already discounts common words; removing these keeps long
/// natural-language prompts from walking huge posting lists.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could",
    "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "hers", "him", "his", "how", "i",
    "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "we", "were",
    "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

fn is_stop_word(word: &str) -> bool {
    // The list is sorted; keep it so.
    STOP_WORDS.binary_search(&word).is_ok()
}

fn stemmer() -> &'static frostem::Stemmer {
    static STEMMER: OnceLock<frostem::Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| frostem::Stemmer::new(frostem::Algorithm::English))
}

/// Whether a character belongs to a script written without spaces between words (or, for Hangul, one
/// whose words carry attached particles): those are indexed as character bigrams.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF     // Hangul Jamo
        | 0x2E80..=0x2FDF   // CJK radicals, Kangxi radicals
        | 0x3005..=0x3007   // 々 〆 〇
        | 0x3040..=0x309F   // Hiragana
        | 0x30A0..=0x30FF   // Katakana
        | 0x3130..=0x318F   // Hangul compatibility Jamo
        | 0x31F0..=0x31FF   // Katakana phonetic extensions
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xA960..=0xA97F   // Hangul Jamo extended A
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xD7B0..=0xD7FF   // Hangul Jamo extended B
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0xFF66..=0xFF9F   // half-width Katakana
        | 0x20000..=0x3134F // CJK extensions B..G
    )
}

/// Calls `emit(term, byte_from, byte_to)` for each analysed term of `text`, in order.
///
/// This is the single definition of what a term is, used by the index tokenizer and by queries.
pub(crate) fn for_each_term(text: &str, mut emit: impl FnMut(&str, usize, usize)) {
    let mut lower = String::new();
    // Pending CJK run: (byte start, byte end) in `text`.
    let mut run: Option<(usize, usize)> = None;
    for (start, word) in text.split_word_bound_indices() {
        let end = start + word.len();
        let mut chars = word.chars();
        let Some(first) = chars.next() else { continue };
        if is_cjk(first) && word.chars().all(is_cjk) {
            run = match run {
                Some((s, e)) if e == start => Some((s, end)),
                Some((s, e)) => {
                    emit_cjk(text, s, e, &mut emit);
                    Some((start, end))
                }
                None => Some((start, end)),
            };
            continue;
        }
        if let Some((s, e)) = run.take() {
            emit_cjk(text, s, e, &mut emit);
        }
        if !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        // A word mixing CJK and other characters (rare: UAX #29 separates ideographs): split it.
        if word.chars().any(is_cjk) {
            let mut seg_start: Option<usize> = None;
            let mut seg_cjk = false;
            for (i, c) in word.char_indices() {
                let c_cjk = is_cjk(c);
                match seg_start {
                    Some(s) if c_cjk != seg_cjk => {
                        emit_plain_or_cjk(text, start + s, start + i, seg_cjk, &mut lower, &mut emit);
                        seg_start = Some(i);
                        seg_cjk = c_cjk;
                    }
                    None => {
                        seg_start = Some(i);
                        seg_cjk = c_cjk;
                    }
                    _ => {}
                }
            }
            if let Some(s) = seg_start {
                emit_plain_or_cjk(text, start + s, end, seg_cjk, &mut lower, &mut emit);
            }
            continue;
        }
        emit_word(word, start, end, &mut lower, &mut emit);
    }
    if let Some((s, e)) = run {
        emit_cjk(text, s, e, &mut emit);
    }
}

fn emit_plain_or_cjk(
    text: &str,
    from: usize,
    to: usize,
    cjk: bool,
    lower: &mut String,
    emit: &mut impl FnMut(&str, usize, usize),
) {
    if cjk {
        emit_cjk(text, from, to, emit);
    } else if text[from..to].chars().any(char::is_alphanumeric) {
        emit_word(&text[from..to], from, to, lower, emit);
    }
}

fn emit_word(
    word: &str,
    from: usize,
    to: usize,
    lower: &mut String,
    emit: &mut impl FnMut(&str, usize, usize),
) {
    lower.clear();
    for c in word.chars() {
        match c {
            // Typographic apostrophes behave like ASCII ones (`Caroline’s` = `Caroline's`).
            '\u{2019}' | '\u{2018}' | '\u{02BC}' => lower.push('\''),
            c if c.is_ascii() => lower.push(c.to_ascii_lowercase()),
            c => c.to_lowercase().for_each(|l| fold_latin(l, lower)),
        }
    }
    let trimmed = lower.trim_matches('\'');
    if trimmed.is_empty() || trimmed.len() > MAX_TOKEN_BYTES || is_stop_word(trimmed) {
        return;
    }
    if trimmed.bytes().any(|b| b.is_ascii_lowercase()) {
        // Word frequencies are Zipfian: a small per-thread memo skips most Snowball runs (same output).
        let emitted = STEMS.with(|cell| {
            let mut memo = cell.borrow_mut();
            if let Some(stem) = memo.get(trimmed) {
                if stem.is_empty() {
                    return false;
                }
                emit(stem, from, to);
                return true;
            }
            // A short form is stemmed as the word it stands for; the memo keeps it under its own
            // spelling, so the table is read once per distinct word, not per token.
            let stemmed = stemmer().stem(read_as(trimmed).unwrap_or(trimmed));
            if memo.len() >= STEM_MEMO_CAP {
                memo.clear();
            }
            memo.insert(trimmed.into(), stemmed.as_ref().into());
            if stemmed.is_empty() {
                return false;
            }
            emit(&stemmed, from, to);
            true
        });
        if emitted {
            return;
        }
    }
    emit(trimmed, from, to);
}

/// Pushes `c` (lowercase) onto `out`, a Latin letter with diacritics as its base letter (`ë` → `e`,
/// `ł` → `l`, `ß` → `ss`, `æ` → `ae`); letters of other scripts (Greek, Cyrillic, …) as they are.
fn fold_latin(c: char, out: &mut String) {
    if !matches!(c, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}') {
        out.push(c);
        return;
    }
    let folded = match c {
        'ł' => "l",
        'ø' => "o",
        'đ' | 'ð' => "d",
        'ħ' => "h",
        'ı' => "i",
        'ŧ' => "t",
        'ß' => "ss",
        'æ' => "ae",
        'œ' => "oe",
        'þ' => "th",
        _ => {
            decompose_canonical(c, |d| {
                if !is_combining_mark(d) {
                    out.push(d);
                }
            });
            return;
        }
    };
    out.push_str(folded);
}

/// Entries kept in the per-thread stem memo before it is cleared.
const STEM_MEMO_CAP: usize = 65_536;

thread_local! {
    static STEMS: std::cell::RefCell<std::collections::HashMap<Box<str>, Box<str>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn emit_cjk(text: &str, from: usize, to: usize, emit: &mut impl FnMut(&str, usize, usize)) {
    let run = &text[from..to];
    let idx: Vec<usize> = run.char_indices().map(|(i, _)| i).chain(std::iter::once(run.len())).collect();
    let n = idx.len() - 1;
    if n == 1 {
        emit(run, from, to);
        return;
    }
    let mut buf = String::new();
    for w in 0..n - 1 {
        buf.clear();
        buf.extend(run[idx[w]..idx[w + 2]].chars().flat_map(char::to_lowercase));
        emit(&buf, from + idx[w], from + idx[w + 2]);
    }
}

/// Words that frame a question or a turn of small talk without naming its topic ("what's the *current
/// status* of X", "*catch me up* on X", "*anything* about X I *should keep in mind*", "*summarise* the
/// money *side* of *things*", "anything *tagged* house?", "the family *notes*", "thanks, *good night*", "*talk* *soon*"), and the words of relative dates, which the date
/// lane reads. Searched like any word, but they say nothing about whether a note is what the prompt is
/// about, so the relevance floor's coverage leaves them out (`floor.rs`). As written; [`framing`] holds
/// their analysed terms.
const FRAMING_WORDS: &str = "what's whats who's how's where's when's current currently status update updates     latest recent recently new news happen happened happening going go goes doing anything something everything     nothing thing things stuff should shall would could might must may can keep mind remember remind     recall know tell say said ask asked think thought want need like just also again still ever much many     more most extra lot lots bit kind sort way please thanks thank hi hello hey ok okay yes no sure good     great cool nice fine well right really very night morning evening afternoon bye goodbye catch up     give get got make made let look find show explain help detail details info information that's \
    summarise summarize summary overview rundown recap side tag tags tagged note notes noted \
    it's there's all today tonight tomorrow yesterday day days week weeks weekend month months year years \
    ago last next now talk chat speak soon later";

/// The analysed terms of [`FRAMING_WORDS`], sorted.
pub(crate) fn framing() -> &'static [String] {
    static TERMS: OnceLock<Vec<String>> = OnceLock::new();
    TERMS.get_or_init(|| {
        let mut t = analyze(FRAMING_WORDS);
        t.sort_unstable();
        t.dedup();
        t
    })
}

/// The analysed terms of `text`, in order (duplicates kept).
pub fn analyze(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t, _, _| out.push(t.to_owned()));
    out
}

/// The words of `text` that say what it is about, as written (lowercased), each once, in order:
/// every word but stop words, words that frame a question ("current", "status", "remind") and
/// numbers alone; a run of CJK characters is kept whole. For services that take keywords (LightRAG's
/// `hl_keywords`/`ll_keywords`) instead of asking their own model for them.
pub fn content_words(text: &str) -> Vec<String> {
    let framing = framing();
    let mut out: Vec<String> = Vec::new();
    let mut push = |word: String| {
        if !out.contains(&word) {
            out.push(word);
        }
    };
    // A run of CJK characters (split into one word per character by the segmenter) stays whole.
    let mut run: Option<(usize, usize)> = None;
    for (start, word) in text.split_word_bound_indices() {
        let end = start + word.len();
        if word.chars().next().is_some_and(is_cjk) && word.chars().all(is_cjk) {
            run = match run {
                Some((s, e)) if e == start => Some((s, end)),
                Some((s, e)) => {
                    push(text[s..e].to_owned());
                    Some((start, end))
                }
                None => Some((start, end)),
            };
            continue;
        }
        if let Some((s, e)) = run.take() {
            push(text[s..e].to_owned());
        }
        if !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        let lower = word.to_lowercase();
        if lower.len() > MAX_TOKEN_BYTES || lower.chars().all(|c| c.is_numeric()) {
            continue;
        }
        let terms = analyze(&lower);
        if terms.iter().any(|t| framing.binary_search(t).is_err()) {
            push(lower);
        }
    }
    if let Some((s, e)) = run {
        push(text[s..e].to_owned());
    }
    out
}

/// The tantivy tokenizer wrapping [`for_each_term`].
#[derive(Clone, Default)]
pub(crate) struct CairnTokenizer {
    tokens: Vec<Token>,
}

/// The token stream of [`CairnTokenizer`].
pub(crate) struct CairnTokenStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
}

impl Tokenizer for CairnTokenizer {
    type TokenStream<'a> = CairnTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CairnTokenStream<'a> {
        self.tokens.clear();
        let tokens = &mut self.tokens;
        for_each_term(text, |t, from, to| {
            let position = tokens.len();
            tokens.push(Token {
                offset_from: from,
                offset_to: to,
                position,
                text: t.to_owned(),
                position_length: 1,
            });
        });
        CairnTokenStream { tokens: &mut self.tokens, next: 0 }
    }
}

impl TokenStream for CairnTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: &[&str]) {
        assert_eq!(analyze(text), expect, "analysing {text:?}");
    }

    #[test]
    fn content_words_drop_stop_and_framing_words() {
        assert_eq!(
            content_words("What's the current status of the Acme contract? Remind me, Acme's 2026 deal"),
            ["acme", "contract", "acme's", "deal"]
        );
        assert_eq!(content_words("北京的故宫 opening hours"), ["北京的故宫", "opening", "hours"]);
        assert!(content_words("what's new today?").is_empty());
        // "How are X doing?" asks about X, as "how is X going?" does.
        assert_eq!(content_words("how are the bees doing?"), ["bees"]);
    }

    #[test]
    fn stop_words_sorted() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn latin() {
        check("The Dogs are RUNNING quickly!", &["dog", "run", "quick"]);
        check("Caroline’s adoption agencies", &["carolin", "adopt", "agenc"]);
        check("p99 latency: 4.1 ms", &["p99", "latenc", "4.1", "ms"]);
        check("Ünïcödé Straße", &["unicod", "strass"]);
        check("", &[]);
        check("the of and", &[]);
    }

    #[test]
    fn latin_letters_fold_to_their_base() {
        check("Zoë Müller, Café Lumière", &["zoe", "muller", "cafe", "lumier"]);
        check("Zoe Muller, Cafe Lumiere", &["zoe", "muller", "cafe", "lumier"]);
        check("Łódź, Kraków, Øresund, Ærø", &["lodz", "krakow", "oresund", "aero"]);
        check("Þórður Ðoan", &["thordur", "doan"]);
        // Other scripts keep their letters.
        check("Москва Αθήνα", &["москва", "αθήνα"]);
    }

    #[test]
    fn short_forms_and_their_words_are_one_term() {
        check("Ref AW-23817, appt Fri", &["refer", "aw", "23817", "appoint", "friday"]);
        check("the reference for the appointment on Friday", &["refer", "appoint", "friday"]);
        assert_eq!(analyze("Xmas at Mum's"), analyze("Christmas at Mum's"));
        assert_eq!(analyze("the veterinarian"), analyze("the vet"));
        // A word of its own is not read as a weekday.
        assert_ne!(analyze("sun"), analyze("Sunday"));
    }

    #[test]
    fn cjk_bigrams() {
        check("东京大学", &["东京", "京大", "大学"]);
        check("我", &["我"]);
        check("Rust编程语言", &["rust", "编程", "程语", "语言"]);
        check("東京に行きました", &["東京", "京に", "に行", "行き", "きま", "まし", "した"]);
        check("カタカナ", &["カタ", "タカ", "カナ"]);
        check("서울에서 만나요", &["서울", "울에", "에서", "만나", "나요"]);
        check("数据库 search 引擎", &["数据", "据库", "search", "引擎"]);
    }
}
