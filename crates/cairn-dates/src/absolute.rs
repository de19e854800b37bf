//! Dates written as a day of a month: "March 12", "12th of March 2026", "Tuesday, March 3rd",
//! "the 12th", and the numeric forms `2026-03-12`, `2026/03/12`, `2026-03` and `12/03/2026`.

use jiff::civil::Date;

use crate::calendar::{self, Days, day};
use crate::lexicon::Lex;
use crate::locale::Locale;
use crate::scan::{Hit, Scanner};

impl Scanner<'_> {
    /// A year: four digits, 1000–2999.
    pub(crate) fn year_at(&self, i: usize) -> Option<i16> {
        match self.num(i)? {
            (v @ 1000..=2999, 4, false) => i16::try_from(v).ok(),
            _ => None,
        }
    }

    /// A month name at `i`, with the full stop of an abbreviation ("Mar."): `(month, full name, next)`.
    pub(crate) fn month_at(&self, i: usize) -> Option<(i8, bool, usize)> {
        match self.lex(i) {
            Lex::Month { month, full } => {
                let next = if !full && self.punct(i + 1, b'.') && self.glued(i + 1) { i + 2 } else { i + 1 };
                Some((month, full, next))
            }
            _ => None,
        }
    }

    /// A day of the month: a number 1–31 of one or two digits that is not part of a time, a decimal
    /// or a fraction ("10:30", "3.5", "1/2"), or an ordinal in words ("fourth", "twenty-first").
    /// Returns `(day, ordinal, next)`.
    pub(crate) fn day_at(&self, i: usize) -> Option<(i8, bool, usize)> {
        if let Some((value, digits, ordinal)) = self.num(i) {
            if digits > 2 || !(1..=31).contains(&value) {
                return None;
            }
            let joined = |at: usize| [b':', b'.', b'/', b','].iter().any(|&p| self.joiner(at, p));
            let touches_number = |at: usize| self.num(at).is_some();
            if (joined(i + 1) && touches_number(i + 2)) || (i >= 2 && joined(i - 1) && touches_number(i - 2))
            {
                return None;
            }
            return Some((i8::try_from(value).ok()?, ordinal, i + 1));
        }
        match self.lex(i) {
            Lex::Ordinal(n) if n <= 31 => Some((i8::try_from(n).ok()?, true, i + 1)),
            Lex::Cardinal(tens @ (20 | 30)) => {
                let k = self.skip(i + 1, b'-');
                match self.lex(k) {
                    Lex::Ordinal(unit @ 1..=9) if tens + unit <= 31 => {
                        Some((i8::try_from(tens + unit).ok()?, true, k + 1))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// An optional year after a date: `[","] 2026`. Returns the year and where the date ends.
    fn trailing_year(&self, i: usize) -> (Option<i16>, usize) {
        let k = self.skip(i, b',');
        match self.year_at(k) {
            Some(y) => (Some(y), k + 1),
            None => (None, i),
        }
    }

    /// A month and day, with the year if given; without it, the latest such day on or before the
    /// reference day (or, about the future, the next: [`Scanner::yearly`]).
    pub(crate) fn ymd(&self, year: Option<i16>, month: i8, d: i8) -> Option<Days> {
        match year {
            Some(y) => Date::new(y, month, d).ok().map(day),
            None => self.yearly(|y| Date::new(y, month, d).ok().map(day)),
        }
    }

    /// "12 March", "12th of March 2026", "the fourth of July", "March 12", "Mar. 12th, 2026",
    /// "March the 12th", each optionally after a weekday ("Tuesday 3 March", "Tue, March 3rd"),
    /// which is read past and not checked.
    pub(crate) fn day_month(&self, i: usize) -> Option<Hit> {
        let mut j = i;
        if matches!(self.lex(j), Lex::Weekday { .. }) {
            j = self.skip(j + 1, b',');
        }
        let the = self.is(j, Lex::The);
        if the {
            j += 1;
        }
        if let Some((d, ordinal, k)) = self.day_at(j) {
            let of = self.is(k, Lex::Of);
            // "the 12th of last month", "the 3rd of this month".
            if of
                && ordinal
                && let Some(shift) = self.direction(k + 1)
                && self.is(k + 2, Lex::Unit { unit: crate::lexicon::Unit::Month, plural: false })
            {
                let r = self.reference;
                let (y, m) = calendar::shift_month(r.year(), r.month(), shift)?;
                return Some(Hit::new(k + 3, day(Date::new(y, m, d).ok()?)));
            }
            let in_words = self.num(j).is_none();
            // "the 12th of March", "fourth of July", "12 March"; not "the 12 March" nor "fourth March".
            let fits = if the || of { ordinal } else { !in_words };
            if fits && let Some((month, _, k)) = self.month_at(k + usize::from(of)) {
                // "the first May bank holiday" names the holiday, not May 1.
                if self.is(k, Lex::Bank) && self.is(k + 1, Lex::Holiday) {
                    return None;
                }
                let (year, end) = self.trailing_year(k);
                return Some(Hit::new(end, self.ymd(year, month, d)?));
            }
            return None;
        }
        if the {
            return None;
        }
        let (month, _, k) = self.month_at(j)?;
        let (d, _, k) = self.day_at(self.skip_word(k, Lex::The))?;
        let (year, end) = self.trailing_year(k);
        Some(Hit::new(end, self.ymd(year, month, d)?))
    }

    /// "the 12th" alone (no word after it, so not "the 3rd floor"): that day of the reference month,
    /// or of the latest month before it that has such a day on or before the reference day. After a
    /// weekday ("Monday the 9th", "Fri, the 13th"), the latest such day that falls on that weekday
    /// (within the two years before the reference day).
    pub(crate) fn the_nth(&self, i: usize) -> Option<Hit> {
        let (weekday, i) = match self.lex(i) {
            Lex::Weekday { day, .. } => (Some(day), self.skip(i + 1, b',')),
            _ => (None, i),
        };
        if !self.is(i, Lex::The) || self.is_word(i + 2) {
            return None;
        }
        let (value @ 1..=31, 1..=2, true) = self.num(i + 1)? else { return None };
        let d = i8::try_from(value).ok()?;
        let r = self.reference;
        let months = if weekday.is_some() { 24 } else { 12 };
        (0..months)
            .filter_map(|back| {
                let (y, m) = calendar::shift_month(r.year(), r.month(), -back)?;
                Date::new(y, m, d).ok()
            })
            .find(|date| *date <= r && weekday.is_none_or(|w| date.weekday() == w))
            .map(|date| Hit::new(i + 2, day(date)))
    }

    /// `2026-03-12`, `2026/03/12`, `2026-03` (a month), `12.03.2026` (day, month, year), and
    /// `12/03/2026`, read by locale: with only the US configured as month/day, with only the UK as
    /// day/month; with both (or neither) only when one reading is impossible or both agree.
    pub(crate) fn numeric(&self, i: usize) -> Option<Hit> {
        let (_, digits, false) = self.num(i)? else { return None };
        // Not the tail of a longer run such as "1.2026-03-12" or "3/2026/03/12".
        let joined = |at: usize| [b'-', b'/', b'.'].iter().any(|&p| self.joiner(at, p));
        if i >= 2 && joined(i - 1) && self.num(i - 2).is_some() {
            return None;
        }
        let part = |at: usize, sep: u8| -> Option<(i8, u8)> {
            if !self.joiner(at, sep) {
                return None;
            }
            match self.num(at + 1)? {
                (v @ 1..=31, d @ 1..=2, false) => Some((i8::try_from(v).ok()?, d)),
                _ => None,
            }
        };
        // A run that goes on ("2026-03-12-7", "1/2/2026/5") is an identifier, not a date.
        let ends = |at: usize| !(joined(at) && self.num(at + 1).is_some());
        if digits == 4 {
            let year = self.year_at(i)?;
            for sep in [b'-', b'/'] {
                let Some((month, month_digits)) = part(i + 1, sep) else { continue };
                if let Some((d, _)) = part(i + 3, sep) {
                    let date = Date::new(year, month, d).ok().filter(|_| ends(i + 5))?;
                    return Some(Hit::new(i + 5, day(date)));
                }
                if sep == b'-' && month_digits == 2 && ends(i + 3) && !self.punct(i + 3, b'-') {
                    return calendar::month(year, month).map(|m| Hit::new(i + 3, m));
                }
                return None;
            }
            return None;
        }
        if digits > 2 {
            return None;
        }
        // "12.03.2026": day, month, year in every locale that writes dates with dots.
        if let (Some((first, _)), Some((second, _))) = (self.small(i), part(i + 1, b'.'))
            && self.joiner(i + 3, b'.')
            && ends(i + 5)
        {
            let date = Date::new(self.year_at(i + 4)?, second, first).ok()?;
            return Some(Hit::new(i + 5, day(date)));
        }
        let (Some((first, _)), Some((second, _))) = (self.small(i), part(i + 1, b'/')) else { return None };
        if !self.joiner(i + 3, b'/') {
            return self.year_less_numeric(i, first, second);
        }
        if !ends(i + 5) {
            return None;
        }
        let year = self.year_at(i + 4)?;
        let date =
            self.by_locale(Date::new(year, second, first).ok(), Date::new(year, first, second).ok())?;
        Some(Hit::new(i + 5, day(date)))
    }

    /// Of the day/month and month/day readings of a numeric date, the one the locales choose: the
    /// only possible one, or both when they agree, else the reading of the one locale configured.
    fn by_locale(&self, day_month: Option<Date>, month_day: Option<Date>) -> Option<Date> {
        match (day_month, month_day) {
            (Some(a), Some(b)) if a == b => Some(a),
            (Some(a), Some(b)) => match self.locales.only()? {
                Locale::Uk => Some(a),
                Locale::Us => Some(b),
            },
            (Some(a), None) | (None, Some(a)) => Some(a),
            (None, None) => None,
        }
    }

    /// `3/12` without a year, as a date only where a date is expected: after "on", "by", "since",
    /// "until", "from", "before", "after" or a weekday ("on 3/12", "Tue 3/12"), not followed by "of"
    /// ("on 3/4 of the days"), and never `24/7`. Read by locale as `12/03/2026` is; the year is the
    /// latest (or, about the future, the next) occurrence's.
    fn year_less_numeric(&self, i: usize, first: i8, second: i8) -> Option<Hit> {
        let expected = self
            .after_one_of(i, &[Lex::At, Lex::By, Lex::Since, Lex::Until, Lex::From, Lex::Before, Lex::After])
            || (i > 0 && matches!(self.lex(i - 1), Lex::Weekday { .. }));
        let run_goes_on = [b'/', b'-', b'.'].iter().any(|&p| self.joiner(i + 3, p));
        if !expected || run_goes_on || self.is(i + 3, Lex::Of) || (first, second) == (24, 7) {
            return None;
        }
        // Day/month and month/day as yearly dates; the locale picks one reading for every year.
        let reading =
            |y: i16| self.by_locale(Date::new(y, second, first).ok(), Date::new(y, first, second).ok());
        let days = self.yearly(|y| reading(y).map(day))?;
        Some(Hit::new(i + 3, days))
    }

    /// A plain number 1–31 of one or two digits at `i`.
    fn small(&self, i: usize) -> Option<(i8, u8)> {
        match self.num(i)? {
            (v @ 1..=31, d @ 1..=2, false) => Some((i8::try_from(v).ok()?, d)),
            _ => None,
        }
    }
}
