//! Ranges written as two ends: "between March 3 and March 10", "from March to May", "from 2024 to
//! 2025", "March 3-5", "March 3 to 10", "3–5 March", "2026-03-01 – 2026-03-10". The ends are plain
//! expressions (never ranges or "since"), so lookahead stays bounded. An end without a year takes its
//! year from the other end ("March 3 – April 2, 2025"; "December 20 to January 5" crosses New Year).
//! A range whose end still comes before its start is not one: its two ends are read on their own.

use jiff::Span;
use jiff::civil::Date;

use crate::calendar::add_days;
use crate::lexicon::Lex;
use crate::scan::{Hit, Scanner};

/// How one end of a range is read.
type Parse = fn(&Scanner<'_>, usize) -> Option<Hit>;

impl Scanner<'_> {
    /// A range at `i`.
    pub(crate) fn range(&self, i: usize) -> Option<Hit> {
        let between = self.is(i, Lex::Between);
        if !between && !self.is(i, Lex::From) {
            return self.day_span(i).or_else(|| self.dated_span(i));
        }
        let end: Parse =
            |s, at| s.expression(at).or_else(|| s.period_in_context(at)).or_else(|| s.holiday_in_context(at));
        let ends = || {
            let a = end(self, i + 1)?;
            let joined = if between { self.is(a.end, Lex::And) } else { self.is_to(a.end) };
            if !joined {
                return None;
            }
            self.join(i + 1, a, end)
        };
        // "between the 3rd and 10th of March": the first end is only a day number.
        ends().or_else(|| self.day_span(i + 1))
    }

    /// "March 3-5", "March 3 to 10", "2026-03-01 – 2026-03-10", "March 3 – April 2": a day, then "to"
    /// or a dash, then a day or a bare day number.
    fn dated_span(&self, i: usize) -> Option<Hit> {
        let a = Self::single(self, i)?;
        if !self.is_to(a.end) {
            return None;
        }
        self.join(i, a, Self::single)
    }

    /// "3-5 March", "3 to 5 March 2026", "the 7th and 8th of March", "the 3rd and the 10th of March":
    /// a day number, then "to", "and" or a dash, then a day.
    fn day_span(&self, i: usize) -> Option<Hit> {
        let j = self.skip_word(i, Lex::The);
        if j == i {
            self.num(i)?;
        }
        let (d, ordinal, k) = self.day_at(j)?;
        // "the 12 and …" is not a day; "three and five March" neither (a count).
        if (j > i && !ordinal) || !(self.is_to(k) || self.is(k, Lex::And)) {
            return None;
        }
        let b = Self::single(self, k + 1)?;
        let (like, last) = b.days?;
        let first = Date::new(like.year(), like.month(), d).ok()?;
        (first <= last).then(|| Hit::new(b.end, (first, last)))
    }

    /// The range from `a` (read at `a_at` by `parse`) to the end read after the joining word. A bare
    /// day number as the second end ("March 3-5, 2025") is in the month of the first.
    fn join(&self, a_at: usize, a: Hit, parse: Parse) -> Option<Hit> {
        let b_at = a.end + 1;
        let (mut first, a_last) = a.days?;
        let (b_end, mut last, b_floats, b_has_year) = match parse(self, b_at) {
            Some(b) => (b.end, b.days?.1, self.floats(b_at, b.end), self.has_year(b_at, b.end)),
            None if first == a_last => {
                let (d, _, k) = self.day_at(b_at).filter(|_| self.num(b_at).is_some())?;
                let sep = self.skip(k, b',');
                let (year, end) = match self.year_at(sep) {
                    Some(y) => (Some(y), sep + 1),
                    None => (None, k),
                };
                let date = Date::new(year.unwrap_or(first.year()), first.month(), d).ok()?;
                (end, date, false, year.is_some())
            }
            None => return None,
        };
        if self.floats(a_at, a.end) && b_has_year {
            // The first end takes the latest year that starts it on or before the second's end.
            first = parse(&self.with_reference(last), a_at)?.days?.0;
        } else if b_floats && (first > last || self.has_year(a_at, a.end)) {
            // The second end takes its first occurrence from the first end on.
            let reference = add_days(first.checked_add(Span::new().years(1)).ok()?, -1)?;
            last = parse(&self.with_reference(reference), b_at)?.days?.1;
        }
        (first <= last).then(|| Hit::new(b_end, (first, last)))
    }

    /// A year is written among tokens `from..to`.
    fn has_year(&self, from: usize, to: usize) -> bool {
        (from..to).any(|k| self.year_at(k).is_some())
    }

    /// Tokens `from..to` name a date that recurs every year (no year written, nothing counted from
    /// the reference day), so it can be moved to another year.
    fn floats(&self, from: usize, to: usize) -> bool {
        (from..to).all(|k| {
            self.year_at(k).is_none()
                && !matches!(
                    self.lex(k),
                    Lex::Last
                        | Lex::This
                        | Lex::Next
                        | Lex::Previous
                        | Lex::Past
                        | Lex::Ago
                        | Lex::Today
                        | Lex::Tonight
                        | Lex::Yesterday
                        | Lex::Tomorrow
                        | Lex::Weekday { .. }
                )
        })
    }

    /// "to", "until", "till", "through" or a dash.
    fn is_to(&self, k: usize) -> bool {
        matches!(self.lex(k), Lex::To | Lex::Until | Lex::Through) || self.punct(k, b'-')
    }

    /// A date naming one day: "March 3", "3 March 2026", "2026-03-03".
    fn single(s: &Scanner<'_>, i: usize) -> Option<Hit> {
        [s.day_month(i), s.numeric(i)]
            .into_iter()
            .flatten()
            .filter(|h| h.days.is_some_and(|(a, b)| a == b))
            .max_by_key(|h| h.end)
    }
}
