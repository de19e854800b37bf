//! Ranges anchored on a single day named some other way: "the day after Christmas", "the day
//! before yesterday", "the Monday after Easter", "three days before Christmas", "a week after
//! Easter", "the weekend of March 14", "the weekend after Thanksgiving", "the week of March 9", "July
//! 4th weekend"; and stretches next to such a day: "the run-up to Christmas", "the days after
//! Thanksgiving", "a few days before Easter", "the fortnight after New Year", "the weeks before
//! Christmas". The anchor is a plain form (a date, a holiday, today, yesterday, tomorrow), never
//! another anchored one, so lookahead stays bounded. A day before or after X keeps X as its anchor
//! ([`crate::DateRange::anchor`]).

use jiff::civil::{Date, Weekday};

use crate::calendar::{self, add_days, day};
use crate::holidays::HolidayId;
use crate::lexicon::{Lex, Unit};
use crate::scan::{Hit, Scanner};

/// Days in "the run-up to X" (also "lead-up", "build-up"): the fortnight before X.
const RUN_UP: i64 = 14;

/// Days in "the days after X", "the few days before X".
const DAYS_NEXT_TO: i64 = 4;

/// Days in "the weeks after X", "the weeks before X".
const WEEKS_NEXT_TO: i64 = 21;

impl Scanner<'_> {
    /// A single day at `i`: its end, the day, and the holiday it is if it is one.
    fn single_day(&self, i: usize) -> Option<(usize, Date, Option<HolidayId>)> {
        let holiday = self.holiday_day(i).and_then(|(end, id, date, _)| Some((end, date?, Some(id))));
        let plain = [self.day_month(i), self.numeric(i), self.the_nth(i)].into_iter().flatten().filter_map(
            |h| match h.days {
                Some((first, last)) if first == last => Some((h.end, first, None)),
                _ => None,
            },
        );
        let relative = match self.lex(i) {
            Lex::Today => Some((i + 1, self.reference, None)),
            Lex::Yesterday => add_days(self.reference, -1).map(|d| (i + 1, d, None)),
            Lex::Tomorrow => add_days(self.reference, 1).map(|d| (i + 1, d, None)),
            _ => None,
        };
        holiday.into_iter().chain(plain).chain(relative).fold(None, |best, c| match best {
            Some(b) if b.0 >= c.0 => Some(b),
            _ => Some(c),
        })
    }

    /// "the day after/before X", "the weekend of/after/before X", "the week of/after/before X", "the
    /// week commencing/beginning/starting X" and "the week ending X" (the seven days from or to X), "the
    /// Monday after/before X" (the first Monday strictly after or before it), "two days after X",
    /// "a week before X", and "X weekend" for a date X (a holiday's weekend is read with the holiday).
    pub(crate) fn anchored(&self, i: usize) -> Option<Hit> {
        let j = i + usize::from(self.is(i, Lex::The));
        let relation = self.lex(j + 1);
        if let Lex::Weekday { day: weekday, full: true } = self.lex(j)
            && matches!(relation, Lex::After | Lex::Before)
        {
            let (end, date, _) = self.single_day(j + 2)?;
            let then = match relation {
                Lex::After => calendar::weekday_after(date, weekday)?,
                _ => calendar::weekday_before(date, weekday)?,
            };
            return Some(Hit::new(end, day(then)).counted_from(date));
        }
        if let Some(hit) = self.next_to(i, j) {
            return Some(hit);
        }
        if j == i
            && let Some(hit) = self.counted(i)
        {
            return Some(hit);
        }
        let week = Lex::Unit { unit: Unit::Week, plural: false };
        let prefix =
            (matches!(self.lex(j), Lex::Weekend | Lex::Unit { unit: Unit::Day | Unit::Week, plural: false })
                && matches!(relation, Lex::After | Lex::Before | Lex::Of))
                || (self.is(j, week) && matches!(relation, Lex::Start | Lex::Commencing | Lex::Ending));
        if !prefix {
            if j > i {
                return None;
            }
            let (end, date, holiday) = self.single_day(i)?;
            if holiday.is_some() || !self.is(end, Lex::Weekend) {
                return None;
            }
            return Some(Hit::new(end + 1, calendar::weekend_around(date)?));
        }
        let (end, date, holiday) = self.single_day(j + 2)?;
        let days = match (self.lex(j), relation) {
            (Lex::Unit { unit: Unit::Day, plural: false }, Lex::After) => day(add_days(date, 1)?),
            (Lex::Unit { unit: Unit::Day, plural: false }, Lex::Before) => day(add_days(date, -1)?),
            (Lex::Weekend, Lex::Of) => match holiday {
                Some(id) => self.holiday_weekend(id, date)?,
                None => calendar::weekend_around(date)?,
            },
            (Lex::Weekend, Lex::After) => calendar::weekend_from(add_days(date, 1)?)?,
            (Lex::Weekend, Lex::Before) => {
                let sunday = calendar::weekday_before(date, Weekday::Sunday)?;
                (add_days(sunday, -1)?, sunday)
            }
            (Lex::Unit { unit: Unit::Week, plural: false }, Lex::Of) => calendar::week_of(date)?,
            (_, Lex::Start | Lex::Commencing) => (date, add_days(date, 6)?),
            (_, Lex::Ending) => (add_days(date, -6)?, date),
            (Lex::Unit { unit: Unit::Week, plural: false }, Lex::After) => {
                calendar::week_of(add_days(date, 7)?)?
            }
            (Lex::Unit { unit: Unit::Week, plural: false }, Lex::Before) => {
                calendar::week_of(add_days(date, -7)?)?
            }
            _ => return None,
        };
        let hit = Hit::new(end, days);
        Some(if matches!(relation, Lex::After | Lex::Before) { hit.counted_from(date) } else { hit })
    }

    /// A stretch of days next to a single day X, `j` past a leading "the" at `i`: "the run-up to X"
    /// (the fortnight before it), "a few days after X" (two to six days after, as "a few days ago" is
    /// two to six days back), "the days after X" and "the few days before X" (the four days next to
    /// it), "the fortnight after X", "the weeks before X" (21 days).
    fn next_to(&self, i: usize, j: usize) -> Option<Hit> {
        let up = match self.lex(j) {
            Lex::RunUp => Some(j + 1),
            Lex::Run if self.is(self.skip(j + 1, b'-'), Lex::Up) => Some(self.skip(j + 1, b'-') + 1),
            _ => None,
        };
        if let Some(k) = up
            && self.is(k, Lex::To)
        {
            let (end, date, _) = self.single_day(k + 1)?;
            return Some(Hit::new(end, (add_days(date, -RUN_UP)?, add_days(date, -1)?)).counted_from(date));
        }
        let days = Lex::Unit { unit: Unit::Day, plural: true };
        let (k, first, last) = match self.few(j) {
            Some(k) if j == i && self.is(k, days) => (k, 2, 6),
            _ if j == i => return None,
            few => {
                let k = few.unwrap_or(j);
                let len = match self.lex(k) {
                    Lex::Unit { unit: Unit::Day, plural: true } => DAYS_NEXT_TO,
                    Lex::Unit { unit: Unit::Fortnight, plural: false } => 14,
                    Lex::Unit { unit: Unit::Week, plural: true } => WEEKS_NEXT_TO,
                    _ => return None,
                };
                (k, 1, len)
            }
        };
        let sign = match self.lex(k + 1) {
            Lex::After => 1,
            Lex::Before => -1,
            _ => return None,
        };
        let (end, date, _) = self.single_day(k + 2)?;
        let (a, b) = (add_days(date, sign * first)?, add_days(date, sign * last)?);
        Some(Hit::new(end, (a.min(b), a.max(b))).counted_from(date))
    }

    /// "two days after X", "10 days before X", "a week after X", "a fortnight before X": the single
    /// day X moved by that many days (a week is seven, a fortnight fourteen).
    fn counted(&self, i: usize) -> Option<Hit> {
        let (n, k) = self.count(i)?;
        let per = match self.lex(k) {
            Lex::Unit { unit: Unit::Day, .. } => 1,
            Lex::Unit { unit: Unit::Week, .. } => 7,
            Lex::Unit { unit: Unit::Fortnight, .. } => 14,
            _ => return None,
        };
        let sign = match self.lex(k + 1) {
            Lex::After => 1,
            Lex::Before => -1,
            _ => return None,
        };
        let (end, date, _) = self.single_day(k + 2)?;
        Some(Hit::new(end, day(add_days(date, sign * per * n)?)).counted_from(date))
    }
}
