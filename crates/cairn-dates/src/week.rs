//! ISO 8601 week numbers: "week 11", "ISO week 11 of 2026", "week 11, 2026", "2026-W11", "W11 2026"
//! (not "W11" alone, a London postcode as often as a week), "the 11th week of 2026". A week is Monday to Sunday; week 1 is the one holding the year's first
//! Thursday, so week 1 of 2026 starts on Monday 2025-12-29 and 2026 has 53 weeks.
//!
//! Without a year, a week number is the latest such week that starts on or before the reference day
//! (in a prompt about the future, the earliest that ends on or after it), like a month without one.
//! Not weeks of something else: "week 3 of the course", "a week 2 people were off", "week 3-4", "the
//! 3rd week of rehearsals" (a part of a month, "the third week of March", is read in `period.rs`).

use jiff::civil::{ISOWeekDate, Weekday};

use crate::calendar::{self, Days};
use crate::lexicon::{Lex, Unit};
use crate::scan::{Hit, Scanner};

/// The Monday–Sunday ISO week `week` of ISO year `year`, if the year has it.
fn iso_week(year: i16, week: u8) -> Option<Days> {
    let monday = ISOWeekDate::new(year, i8::try_from(week).ok()?, Weekday::Monday).ok()?.date();
    Some((monday, calendar::add_days(monday, 6)?))
}

impl Scanner<'_> {
    /// An ISO week by its number (see the module docs).
    pub(crate) fn iso_week(&self, i: usize) -> Option<Hit> {
        let week_word = Lex::Unit { unit: Unit::Week, plural: false };
        // "2026-W11", "2026 W11".
        if let Some(year) = self.year_at(i) {
            let j = if self.joiner(i + 1, b'-') { i + 2 } else { i + 1 };
            let Lex::WeekName(week) = self.lex(j) else { return None };
            return Some(Hit::new(j + 1, iso_week(year, week)?));
        }
        // "W11 2026", "W11 of 2026"; not "W11" alone (a London postcode as often as a week).
        if let Lex::WeekName(week) = self.lex(i) {
            return self.of_year(i + 1, week).filter(|hit| hit.end > i + 1);
        }
        // "the 11th week of 2026", "the eleventh week of the year": only with a year, since "the
        // third week" alone is a part of a month or of something else.
        if self.is(i, Lex::The) {
            let week = match (self.num(i + 1), self.lex(i + 1)) {
                (Some((n @ 1..=53, 1..=2, true)), _) => u8::try_from(n).ok()?,
                (_, Lex::Ordinal(n)) => n,
                _ => return None,
            };
            if !self.is(i + 2, week_word) || !self.is(i + 3, Lex::Of) {
                return None;
            }
            if let Some(year) = self.year_at(i + 4) {
                return Some(Hit::new(i + 5, iso_week(year, week)?));
            }
            if self.is(i + 4, Lex::The) && self.is(i + 5, Lex::Unit { unit: Unit::Year, plural: false }) {
                return Some(Hit::new(i + 6, self.yearly(|y| iso_week(y, week))?));
            }
            return None;
        }
        // "week 11", "ISO week 11", "week 11 of 2026", "week 11, 2026".
        let j = i + usize::from(self.is(i, Lex::Iso));
        if !self.is(j, week_word) || self.after_one_of(i, &[Lex::A]) || self.num(i.wrapping_sub(1)).is_some()
        {
            return None;
        }
        let (n @ 1..=53, 1..=2, false) = self.num(j + 1)? else { return None };
        // Not "week 11-12" or "week 3/4" (a range or a fraction of something).
        if [b'-', b'/', b'.', b':'].iter().any(|&p| self.joiner(j + 2, p)) {
            return None;
        }
        self.of_year(j + 2, u8::try_from(n).ok()?)
    }

    /// Week `week` of the year named at `i` ("2026", ", 2026", "of 2026"), else of the reference
    /// year as a date without a year is; `None` when "of" names something else ("week 3 of the
    /// course").
    fn of_year(&self, i: usize, week: u8) -> Option<Hit> {
        let j = self.skip(i, b',');
        if let Some(year) = self.year_at(j) {
            return Some(Hit::new(j + 1, iso_week(year, week)?));
        }
        if self.is(i, Lex::Of) {
            return match self.year_at(i + 1) {
                Some(year) => Some(Hit::new(i + 2, iso_week(year, week)?)),
                None if self.is(i + 1, Lex::The)
                    && self.is(i + 2, Lex::Unit { unit: Unit::Year, plural: false }) =>
                {
                    Some(Hit::new(i + 3, self.yearly(|y| iso_week(y, week))?))
                }
                None if self.is(i + 1, Lex::This)
                    && self.is(i + 2, Lex::Unit { unit: Unit::Year, plural: false }) =>
                {
                    Some(Hit::new(i + 3, iso_week(self.reference.year(), week)?))
                }
                None => None,
            };
        }
        Some(Hit::new(i, self.yearly(|y| iso_week(y, week))?))
    }
}
