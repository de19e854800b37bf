//! The scan: at each token that could open a date expression, every form is tried and the longest
//! match wins; the scan then resumes after it. Each form looks ahead a bounded number of tokens (no
//! form nests inside itself), so a prompt costs time linear in its length.

use jiff::civil::Date;

use crate::calendar::{self, Days};
use crate::lexicon::Lex;
use crate::locale::Locales;
use crate::token::{Kind, Token, tokenize};

/// A match: where it ends (a token index, exclusive) and the days it names. `days` is `None` for a
/// holiday name of a locale that is not configured: the name is consumed so that its words ("Friday"
/// in "Good Friday", "May" in "May Day") are not read on their own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub(crate) end: usize,
    pub(crate) days: Option<Days>,
    /// The day the expression counts from, when it names a day before or after another.
    pub(crate) anchor: Option<Date>,
}

impl Hit {
    pub(crate) fn new(end: usize, days: Days) -> Hit {
        Hit { end, days: Some(days), anchor: None }
    }

    /// The same match, counted from `anchor`.
    pub(crate) fn counted_from(self, anchor: Date) -> Hit {
        Hit { anchor: Some(anchor), ..self }
    }
}

/// The tokens of one prompt and what they are resolved against.
pub(crate) struct Scanner<'a> {
    toks: &'a [Token],
    pub(crate) reference: Date,
    pub(crate) locales: Locales,
    /// The prompt asks about the future ([`tense::ahead`]): a date without a year is its next
    /// occurrence, not its last.
    pub(crate) ahead: bool,
    /// The prompt asks about habits ([`tense::habitual`]): "the weekend" is any weekend.
    pub(crate) habitual: bool,
    /// The prompt speaks in the past ([`tense::past`]): "this winter" in June is the one just gone.
    pub(crate) past: bool,
}

/// Finds the date expressions of `text`: each one's span (bytes), days and anchor, in order.
pub(crate) fn scan(
    text: &str,
    reference: Date,
    locales: Locales,
    mut emit: impl FnMut(usize, usize, Days, Option<Date>),
) {
    let toks = tokenize(text);
    let s = Scanner {
        toks: &toks,
        reference,
        locales,
        ahead: crate::tense::ahead(text),
        habitual: crate::tense::habitual(text),
        past: crate::tense::past(text),
    };
    let mut i = 0;
    while i < toks.len() {
        match s.longest(i) {
            Some(hit) => {
                debug_assert!(hit.end > i, "a match consumes a token");
                if let Some(days) = hit.days {
                    emit(toks[i].start, toks[hit.end - 1].end, days, hit.anchor);
                }
                i = hit.end.max(i + 1);
            }
            None => i += 1,
        }
    }
}

/// Keeps the longest of several candidate matches (the first among equals).
pub(crate) fn longest(candidates: impl IntoIterator<Item = Option<Hit>>) -> Option<Hit> {
    candidates.into_iter().flatten().fold(None, |best: Option<Hit>, h| match best {
        Some(b) if b.end >= h.end => Some(b),
        _ => Some(h),
    })
}

impl Scanner<'_> {
    /// The longest expression that starts at token `i`.
    fn longest(&self, i: usize) -> Option<Hit> {
        match self.toks[i].kind {
            Kind::Word(Lex::Other) | Kind::Punct(_) => None,
            Kind::Word(_) | Kind::Num { .. } => longest([self.since(i), self.expression(i), self.range(i)]),
        }
    }

    /// Any expression but "since …" and ranges (which wrap these).
    pub(crate) fn expression(&self, i: usize) -> Option<Hit> {
        longest([
            self.holiday(i),
            self.day_month(i),
            self.numeric(i),
            self.relative(i),
            self.qualified(i),
            self.period(i),
            self.year_then(i),
            self.the_nth(i),
            self.anchored(i),
            self.iso_week(i),
        ])
    }

    /// "since <expression>": from the start of the expression to the reference day.
    fn since(&self, i: usize) -> Option<Hit> {
        if !self.is(i, Lex::Since) {
            return None;
        }
        let inner = self.expression(i + 1)?;
        let (first, _) = inner.days?;
        (first <= self.reference).then(|| Hit::new(inner.end, (first, self.reference)))
    }

    /// The same prompt, resolved against another reference day.
    pub(crate) fn with_reference(&self, reference: Date) -> Scanner<'_> {
        Scanner { reference, ..*self }
    }

    /// The same prompt, resolved against another reference day as a prompt about the past: a date
    /// without a year is its latest occurrence up to that day.
    pub(crate) fn looking_back_from(&self, reference: Date) -> Scanner<'_> {
        Scanner { reference, ahead: false, ..*self }
    }

    /// The occurrence of a yearly range (`of_year` builds it for a year) that a date without a year
    /// names: the latest that starts on or before the reference day, or in a prompt about the future
    /// the earliest that ends on or after it.
    pub(crate) fn yearly(&self, of_year: impl Fn(i16) -> Option<Days>) -> Option<Days> {
        if self.ahead {
            calendar::earliest_ending_on_or_after(self.reference, of_year)
        } else {
            calendar::latest_on_or_before(self.reference, of_year)
        }
    }

    // Token access. Out of range reads as nothing.

    /// The word at `i`; `Lex::Other` for an unknown word, a number, punctuation or past the end.
    pub(crate) fn lex(&self, i: usize) -> Lex {
        match self.toks.get(i) {
            Some(Token { kind: Kind::Word(lex), .. }) => *lex,
            _ => Lex::Other,
        }
    }

    /// The word at `i` is `lex`.
    pub(crate) fn is(&self, i: usize, lex: Lex) -> bool {
        self.lex(i) == lex
    }

    /// Any word (known or not) is at `i`.
    pub(crate) fn is_word(&self, i: usize) -> bool {
        matches!(self.toks.get(i), Some(Token { kind: Kind::Word(_), .. }))
    }

    /// The number at `i`: its value, digit count and whether it had an ordinal suffix.
    pub(crate) fn num(&self, i: usize) -> Option<(u32, u8, bool)> {
        match self.toks.get(i)?.kind {
            Kind::Num { value, digits, ordinal } => Some((value, digits, ordinal)),
            _ => None,
        }
    }

    /// The punctuation at `i` is `p`.
    pub(crate) fn punct(&self, i: usize, p: u8) -> bool {
        matches!(self.toks.get(i), Some(Token { kind: Kind::Punct(q), .. }) if *q == p)
    }

    /// Token `i` touches the token before it (no space between).
    pub(crate) fn glued(&self, i: usize) -> bool {
        i > 0 && i < self.toks.len() && self.toks[i - 1].end == self.toks[i].start
    }

    /// Token `i` is punctuation `p` glued to the token before it, and the token after is glued to it.
    pub(crate) fn joiner(&self, i: usize, p: u8) -> bool {
        self.punct(i, p) && self.glued(i) && self.glued(i + 1)
    }

    /// `i + 1` if token `i` is punctuation `p`, else `i`.
    pub(crate) fn skip(&self, i: usize, p: u8) -> usize {
        if self.punct(i, p) { i + 1 } else { i }
    }

    /// `i + 1` if token `i` is the word `lex`, else `i`.
    pub(crate) fn skip_word(&self, i: usize, lex: Lex) -> usize {
        if self.is(i, lex) { i + 1 } else { i }
    }

    /// The word at `i` starts with a capital letter.
    pub(crate) fn capital(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| t.capital)
    }

    /// The word at `i` carries a possessive apostrophe.
    pub(crate) fn possessive(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| t.possessive)
    }

    /// The word before `i` is one of `lexes`.
    pub(crate) fn after_one_of(&self, i: usize, lexes: &[Lex]) -> bool {
        i > 0 && lexes.contains(&self.lex(i - 1))
    }
}
