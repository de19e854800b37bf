//! Days and weeks counted from the reference day: "today", "yesterday", "last night", "three days
//! ago", "two weeks ago", "a fortnight ago", "two weekends ago", "a few days ago", "the other day",
//! "last week", "this weekend", "last Tuesday", "Tuesday", "Tuesday last week", "the past 3 days",
//! "the past fortnight", "the past few weeks", "the week before last", "this time last year", "the
//! same week last year". Weeks run Monday–Sunday.

use jiff::Span;
use jiff::civil::{Date, Weekday};

use crate::calendar::{self, Days, add_days, day};
use crate::lexicon::{Lex, Unit};
use crate::scan::{Hit, Scanner};

impl Scanner<'_> {
    /// Any form counted from the reference day.
    pub(crate) fn relative(&self, i: usize) -> Option<Hit> {
        let r = self.reference;
        match self.lex(i) {
            Lex::Today | Lex::Tonight => Some(Hit::new(i + 1, day(r))),
            Lex::Yesterday => Some(Hit::new(i + 1, day(add_days(r, -1)?))),
            Lex::Tomorrow => Some(Hit::new(i + 1, day(add_days(r, 1)?))),
            Lex::This if self.is(i + 1, Lex::DayPart) => Some(Hit::new(i + 2, day(r))),
            // "this time last year": the days around the reference day a year back.
            Lex::This if self.is(i + 1, Lex::Time) => self.a_unit_back(i + 2, None),
            // "this day last year".
            Lex::This if self.is(i + 1, Lex::Unit { unit: Unit::Day, plural: false }) => {
                self.a_unit_back(i + 2, Some(Unit::Day))
            }
            Lex::Last if self.is(i + 1, Lex::Night) => Some(Hit::new(i + 2, day(add_days(r, -1)?))),
            Lex::Last | Lex::Past | Lex::Previous | Lex::This | Lex::Next => self.shifted(i),
            Lex::The | Lex::These => self.the_past(i),
            Lex::Weekday { day: weekday, full: true } => self.weekday(i, weekday),
            _ => self.ago(i),
        }
    }

    /// A count: digits (up to four), a number in words ("three", "twenty-one"), "a"/"an", or
    /// "a couple of". Returns the count and the next token.
    pub(crate) fn count(&self, i: usize) -> Option<(i64, usize)> {
        if let Some((value, 1..=4, false)) = self.num(i) {
            // Not a decimal such as "1.5".
            return (!(self.joiner(i + 1, b'.') && self.num(i + 2).is_some()))
                .then_some((i64::from(value), i + 1));
        }
        match self.lex(i) {
            Lex::Cardinal(tens @ (20 | 30)) => {
                let k = self.skip(i + 1, b'-');
                match self.lex(k) {
                    Lex::Cardinal(unit @ 1..=9) => Some((i64::from(tens + unit), k + 1)),
                    _ => Some((i64::from(tens), i + 1)),
                }
            }
            Lex::Cardinal(n) => Some((i64::from(n), i + 1)),
            Lex::A if self.is(i + 1, Lex::Couple) => Some((2, self.skip_word(i + 2, Lex::Of))),
            Lex::Couple => Some((2, self.skip_word(i + 1, Lex::Of))),
            Lex::A => Some((1, i + 1)),
            _ => None,
        }
    }

    /// A vague count: "a few", "few", "several". Returns the next token.
    pub(crate) fn few(&self, i: usize) -> Option<usize> {
        match self.lex(i) {
            Lex::A if self.is(i + 1, Lex::Few) => Some(i + 2),
            Lex::Few => Some(i + 1),
            _ => None,
        }
    }

    /// A unit word at `i` ("day", "weeks").
    fn unit(&self, i: usize) -> Option<Unit> {
        match self.lex(i) {
            Lex::Unit { unit, .. } => Some(unit),
            _ => None,
        }
    }

    /// The reference day moved back by `n` units.
    fn back(&self, n: i64, unit: Unit) -> Option<Date> {
        let span = match unit {
            Unit::Day => Span::new().try_days(n),
            Unit::Week => Span::new().try_weeks(n),
            Unit::Month => Span::new().try_months(n),
            Unit::Year => Span::new().try_years(n),
            Unit::Fortnight => Span::new().try_weeks(n.checked_mul(2)?),
        };
        self.reference.checked_sub(span.ok()?).ok()
    }

    /// "three days ago" (that day), "two weeks ago" and "a fortnight ago" (that week), "a month ago"
    /// (that month), "five years ago" (that year), "two weekends ago" (last weekend moved back a week),
    /// "a few days ago" (six to two days back), "a few weeks ago" (the weeks four to two weeks back).
    fn ago(&self, i: usize) -> Option<Hit> {
        if let Some(k) = self.few(i) {
            return self.few_ago(k);
        }
        let (n, k) = self.count(i)?;
        if !self.is(k + 1, Lex::Ago) {
            return None;
        }
        if matches!(self.lex(k), Lex::Weekend | Lex::Weekends) {
            if n < 1 {
                return None;
            }
            let last = calendar::weekday_before(self.reference, Weekday::Sunday)?;
            let sunday = add_days(last, -7 * (n - 1))?;
            return Some(Hit::new(k + 2, (add_days(sunday, -1)?, sunday)));
        }
        let unit = self.unit(k)?;
        let then = self.back(n, unit)?;
        let days = match unit {
            Unit::Day => day(then),
            Unit::Week | Unit::Fortnight => calendar::week_of(then)?,
            Unit::Month => calendar::month(then.year(), then.month())?,
            Unit::Year => calendar::year(then.year())?,
        };
        Some(Hit::new(k + 2, days))
    }

    /// "[a] few days ago", "several days ago": six to two days back; "a few weeks ago": the Monday
    /// four weeks back to the Sunday two weeks back. `k` is the unit after the vague count.
    fn few_ago(&self, k: usize) -> Option<Hit> {
        if !self.is(k + 1, Lex::Ago) {
            return None;
        }
        let r = self.reference;
        let days = match self.unit(k)? {
            Unit::Day => (add_days(r, -6)?, add_days(r, -2)?),
            Unit::Week => (calendar::week_of(add_days(r, -28)?)?.0, calendar::week_of(add_days(r, -14)?)?.1),
            _ => return None,
        };
        Some(Hit::new(k + 2, days))
    }

    /// A vague window ending on the reference day, `k` the unit after "few": "past few days" (four
    /// days back to today), "past few weeks" (21 days back).
    fn few_window(&self, k: usize) -> Option<Hit> {
        let back = match self.unit(k)? {
            Unit::Day => -4,
            Unit::Week => -21,
            _ => return None,
        };
        Some(Hit::new(k + 1, (add_days(self.reference, back)?, self.reference)))
    }

    /// A rolling window ending on the reference day: `n` units back to today.
    fn window(&self, n: i64, unit: Unit, end: usize) -> Option<Hit> {
        Some(Hit::new(end, (self.back(n, unit)?, self.reference)))
    }

    /// "last week", "this week", "next week", "this past week"; "last weekend", "this weekend",
    /// "next weekend"; "last Tuesday", "this Tuesday", "next Tuesday"; "past week" and "last 3 days"
    /// (windows ending today); "last fortnight", "past few days" (windows too).
    fn shifted(&self, i: usize) -> Option<Hit> {
        let r = self.reference;
        let this_past = self.is(i, Lex::This) && self.is(i + 1, Lex::Past);
        let j = i + 1 + usize::from(this_past);
        let dir: i64 = match self.lex(i) {
            _ if this_past => -1,
            Lex::Last | Lex::Past | Lex::Previous => -1,
            Lex::This => 0,
            _ => 1,
        };
        let rolling = self.is(i, Lex::Past);
        match self.lex(j) {
            Lex::Unit { unit, plural: false } if rolling && unit != Unit::Day => self.window(1, unit, j + 1),
            Lex::Unit { unit: Unit::Week, plural: false } => {
                Some(Hit::new(j + 1, calendar::week_of(add_days(r, 7 * dir)?)?))
            }
            Lex::Weekend => {
                let days = match dir {
                    -1 => {
                        let sunday = calendar::weekday_before(r, Weekday::Sunday)?;
                        (add_days(sunday, -1)?, sunday)
                    }
                    _ => {
                        let (monday, _) = calendar::week_of(add_days(r, 7 * dir)?)?;
                        (add_days(monday, 5)?, add_days(monday, 6)?)
                    }
                };
                Some(Hit::new(j + 1, days))
            }
            Lex::Unit { unit: Unit::Fortnight, plural: false } if dir == -1 => {
                self.window(1, Unit::Fortnight, j + 1)
            }
            Lex::Weekday { day: weekday, .. } => {
                let date = match dir {
                    -1 => calendar::weekday_before(r, weekday)?,
                    0 => add_days(calendar::week_of(r)?.0, i64::from(weekday.to_monday_zero_offset()))?,
                    _ => calendar::weekday_after(r, weekday)?,
                };
                Some(Hit::new(j + 1, day(date)))
            }
            _ if dir == -1 && !this_past => {
                if let Some(k) = self.few(j) {
                    return self.few_window(k);
                }
                let (n, k) = self.count(j)?;
                let unit = self.unit(k)?;
                self.window(n, unit, k + 1)
            }
            _ => None,
        }
    }

    /// "last year", "last month" or "last week" at `k`, after "this time", "this day" or "the same
    /// <span>": the reference day moved back by that unit, and `span` of it (the day, its week or its
    /// month), or with no span ("this time …") the days around it: a week either side a year back, three
    /// days a month back, the day itself a week back.
    fn a_unit_back(&self, k: usize, span: Option<Unit>) -> Option<Hit> {
        if !matches!(self.lex(k), Lex::Last | Lex::Previous) {
            return None;
        }
        let Lex::Unit { unit: back @ (Unit::Year | Unit::Month | Unit::Week), plural: false } =
            self.lex(k + 1)
        else {
            return None;
        };
        let then = self.back(1, back)?;
        let days = match span {
            Some(Unit::Day) => day(then),
            Some(Unit::Week) if back != Unit::Week => calendar::week_of(then)?,
            Some(Unit::Month) if back == Unit::Year => calendar::month(then.year(), then.month())?,
            Some(_) => return None,
            None => {
                let around = match back {
                    Unit::Year => 7,
                    Unit::Month => 3,
                    _ => 0,
                };
                (add_days(then, -around)?, add_days(then, around)?)
            }
        };
        Some(Hit::new(k + 2, days))
    }

    /// "the past week", "the last month", "the past 3 days", "the past fortnight", "the past few days",
    /// "these past few days" (windows ending on the reference day); "the previous week" (the calendar
    /// week before this one); "the week before last", "the weekend before last", "the Friday before
    /// last", "the month before last", "the year before last"; "over the weekend" (last weekend, or the coming one about the future); "the other day" (the
    /// week before the reference day), "the other week" (the week before last; neither after "one" in
    /// the four words before: "one week on, the other week off").
    fn the_past(&self, i: usize) -> Option<Hit> {
        let r = self.reference;
        if self.is(i, Lex::These) && !matches!(self.lex(i + 1), Lex::Past | Lex::Last) {
            return None;
        }
        match self.lex(i + 1) {
            // "the same week last year", "the same day last month".
            Lex::Same => match self.lex(i + 2) {
                Lex::Time => self.a_unit_back(i + 3, None),
                Lex::Unit { unit, plural: false } if unit != Unit::Fortnight => {
                    self.a_unit_back(i + 3, Some(unit))
                }
                _ => None,
            },
            Lex::Past | Lex::Last => match self.lex(i + 2) {
                Lex::Unit { unit, plural: false } if unit != Unit::Day => self.window(1, unit, i + 3),
                _ => {
                    if let Some(k) = self.few(i + 2) {
                        return self.few_window(k);
                    }
                    let (n, k) = self.count(i + 2)?;
                    let unit = self.unit(k)?;
                    self.window(n, unit, k + 1)
                }
            },
            Lex::Previous => match self.lex(i + 2) {
                Lex::Unit { unit: Unit::Week, plural: false } => {
                    Some(Hit::new(i + 3, calendar::week_of(add_days(r, -7)?)?))
                }
                _ => None,
            },
            Lex::Unit { unit: Unit::Week, plural: false }
                if self.is(i + 2, Lex::Before) && self.is(i + 3, Lex::Last) =>
            {
                Some(Hit::new(i + 4, calendar::week_of(add_days(r, -14)?)?))
            }
            // "the month before last", "the year before last": the calendar month or year two back.
            Lex::Unit { unit: Unit::Month, plural: false }
                if self.is(i + 2, Lex::Before) && self.is(i + 3, Lex::Last) =>
            {
                let first = r.first_of_month().checked_sub(Span::new().months(2)).ok()?;
                Some(Hit::new(i + 4, (first, first.last_of_month())))
            }
            Lex::Unit { unit: Unit::Year, plural: false }
                if self.is(i + 2, Lex::Before) && self.is(i + 3, Lex::Last) =>
            {
                let year = r.year().checked_sub(2)?;
                Some(Hit::new(i + 4, (Date::new(year, 1, 1).ok()?, Date::new(year, 12, 31).ok()?)))
            }
            Lex::Weekend if self.is(i + 2, Lex::Before) && self.is(i + 3, Lex::Last) => {
                let sunday = add_days(calendar::weekday_before(r, Weekday::Sunday)?, -7)?;
                Some(Hit::new(i + 4, (add_days(sunday, -1)?, sunday)))
            }
            Lex::Weekday { day: weekday, full: true }
                if self.is(i + 2, Lex::Before) && self.is(i + 3, Lex::Last) =>
            {
                Some(Hit::new(i + 4, day(add_days(calendar::weekday_before(r, weekday)?, -7)?)))
            }
            // "over the weekend", "at the weekend", "on the weekend": the last one, or in a prompt
            // about the future the coming one; nothing in one about habits ("what do I usually do at
            // the weekend?"), nor before "of", "before", "after" (anchored forms).
            Lex::Weekend
                if self.after_one_of(i, &[Lex::Over, Lex::At, Lex::During])
                    && !matches!(self.lex(i + 2), Lex::Of | Lex::Before | Lex::After)
                    && !self.habitual =>
            {
                let days = if self.ahead {
                    let (monday, _) = calendar::week_of(r)?;
                    (add_days(monday, 5)?, add_days(monday, 6)?)
                } else {
                    let sunday = calendar::weekday_before(r, Weekday::Sunday)?;
                    (add_days(sunday, -1)?, sunday)
                };
                Some(Hit::new(i + 2, days))
            }
            Lex::Another if (i.saturating_sub(4)..i).any(|k| self.is(k, Lex::Cardinal(1))) => None,
            Lex::Another => match self.lex(i + 2) {
                Lex::Unit { unit: Unit::Day, plural: false } => {
                    Some(Hit::new(i + 3, (add_days(r, -7)?, add_days(r, -1)?)))
                }
                Lex::Unit { unit: Unit::Week, plural: false } => {
                    Some(Hit::new(i + 3, calendar::week_of(add_days(r, -14)?)?))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// "Tuesday" alone (the latest Tuesday before the reference day, never the reference day itself:
    /// that is "today"), or "Tuesday last week", "Tuesday of next week", "Tuesday this week".
    fn weekday(&self, i: usize, weekday: Weekday) -> Option<Hit> {
        let r = self.reference;
        let j = self.skip_word(i + 1, Lex::Of);
        let week = |dir: i64| -> Option<Days> {
            let (monday, _) = calendar::week_of(add_days(r, 7 * dir)?)?;
            Some(day(add_days(monday, i64::from(weekday.to_monday_zero_offset()))?))
        };
        let dir = match self.lex(j) {
            Lex::Last | Lex::Previous => Some(-1),
            Lex::This => Some(0),
            Lex::Next => Some(1),
            _ => None,
        };
        if let Some(dir) = dir
            && self.is(j + 1, Lex::Unit { unit: Unit::Week, plural: false })
        {
            return Some(Hit::new(j + 2, week(dir)?));
        }
        if self.named_before(i) {
            return None;
        }
        // "Friday before last": a week before last Friday.
        if self.is(i + 1, Lex::Before) && self.is(i + 2, Lex::Last) {
            return Some(Hit::new(i + 3, day(add_days(calendar::weekday_before(r, weekday)?, -7)?)));
        }
        Some(Hit::new(i + 1, day(calendar::weekday_before(r, weekday)?)))
    }

    /// A bare weekday is the end of a name ("Sheffield Wednesday", "Cyber Monday", "Ash Wednesday")
    /// when the word before it is a capitalised word the scanner does not know, itself not the first
    /// word of a sentence (where any word is capitalised).
    fn named_before(&self, i: usize) -> bool {
        let Some(name) = i.checked_sub(1) else { return false };
        let opens = name == 0 || [b'.', b'?', b'!'].iter().any(|&p| self.punct(name - 1, p));
        self.capital(name) && self.lex(name) == Lex::Other && self.is_word(name) && !opens
    }
}
