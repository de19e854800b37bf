//! Months, seasons, years and quarters, whole ("March", "March 2026", "last month", "summer 2025",
//! "March last year", "in 2026", "Q1 2026", "the third quarter") or cut by a qualifier ("mid-March",
//! "the end of last year", "the start of the year", "the second week of March", "the first half of
//! 2026", "the last weekend of May", "the first Monday of March", "the third quarter of 2025").

use jiff::civil::{Date, Weekday};

use crate::calendar::{self, Days};
use crate::lexicon::{Lex, Unit};
use crate::scan::{Hit, Scanner, longest};

/// A month or a year, as written. A month without a year takes the latest year in which the range
/// it ends up naming (the whole month, or the part a qualifier cuts) starts on or before the
/// reference day.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Period {
    Month {
        year: Option<i16>,
        month: i8,
    },
    /// A season by the month it starts in (3, 6, 9, 12); winter runs December to February.
    Season {
        year: Option<i16>,
        start: i8,
    },
    Year(i16),
}

/// A period with its year.
#[derive(Clone, Copy, Debug)]
enum Fixed {
    Month(i16, i8),
    Season(i16, i8),
    Year(i16),
}

/// The part of a period a qualifier names.
#[derive(Clone, Copy, Debug)]
enum Cut {
    Whole,
    /// Days 1–10 of a month; January–April of a year.
    Early,
    /// Days 11–20; May–August.
    Mid,
    /// Day 21 to the end; September–December.
    Late,
    /// The nth run of seven days from the start (1–5), or the last seven days (-1).
    Week(i8),
    /// The first (1) or second (2) half: days 1–15 and 16 to the end; January–June and July–December.
    Half(i8),
    FirstDay,
    LastDay,
    /// The nth Saturday–Sunday whose Saturday is in the period (1–5), or the last (-1).
    Weekend(i8),
    /// The nth weekday of a month (1–5), or the last (-1).
    Nth(i8, Weekday),
    /// A quarter of a year, 1–4.
    Quarter(i8),
}

impl Cut {
    fn apply(self, period: Fixed) -> Option<Days> {
        let (first, last) = match period {
            Fixed::Month(y, m) => calendar::month(y, m)?,
            Fixed::Season(y, m) => {
                let (y2, m2) = calendar::shift_month(y, m, 2)?;
                (calendar::month(y, m)?.0, calendar::month(y2, m2)?.1)
            }
            Fixed::Year(y) => calendar::year(y)?,
        };
        let nth_month = |y, m, n| {
            let (y, m) = calendar::shift_month(y, m, n)?;
            calendar::month(y, m)
        };
        let months =
            |y, from, to| Some((Date::new(y, from, 1).ok()?, Date::new(y, to, 1).ok()?.last_of_month()));
        match (self, period) {
            (Cut::Whole, _) => Some((first, last)),
            (Cut::Early, Fixed::Month(y, m)) => calendar::days_of_month(y, m, 1, 10),
            (Cut::Mid, Fixed::Month(y, m)) => calendar::days_of_month(y, m, 11, 20),
            (Cut::Late, Fixed::Month(y, m)) => calendar::days_of_month(y, m, 21, 31),
            (Cut::Early, Fixed::Year(y)) => months(y, 1, 4),
            (Cut::Mid, Fixed::Year(y)) => months(y, 5, 8),
            (Cut::Late, Fixed::Year(y)) => months(y, 9, 12),
            (Cut::Early, Fixed::Season(y, m)) => nth_month(y, m, 0),
            (Cut::Mid, Fixed::Season(y, m)) => nth_month(y, m, 1),
            (Cut::Late, Fixed::Season(y, m)) => nth_month(y, m, 2),
            (Cut::Half(1), Fixed::Month(y, m)) => calendar::days_of_month(y, m, 1, 15),
            (Cut::Half(_), Fixed::Month(y, m)) => calendar::days_of_month(y, m, 16, 31),
            (Cut::Half(1), Fixed::Year(y)) => months(y, 1, 6),
            (Cut::Half(_), Fixed::Year(y)) => months(y, 7, 12),
            (Cut::Week(-1), _) => Some((calendar::add_days(last, -6)?, last)),
            (Cut::Week(n), _) => {
                let start = calendar::add_days(first, 7 * i64::from(n - 1))?;
                (start <= last).then_some((start, calendar::add_days(start, 6)?.min(last)))
            }
            (Cut::FirstDay, _) => Some((first, first)),
            (Cut::LastDay, _) => Some((last, last)),
            (Cut::Weekend(-1), _) => {
                let saturday = calendar::add_days(last, -i64::from(last.weekday().since(Weekday::Saturday)))?;
                Some((saturday, calendar::add_days(saturday, 1)?))
            }
            (Cut::Weekend(n), _) => {
                let (saturday, sunday) =
                    calendar::weekend_from(calendar::add_days(first, 7 * i64::from(n - 1))?)?;
                (saturday <= last).then_some((saturday, sunday))
            }
            (Cut::Nth(n, weekday), Fixed::Month(..)) => {
                first.nth_weekday_of_month(n, weekday).ok().map(calendar::day)
            }
            (Cut::Quarter(q @ 1..=4), Fixed::Year(y)) => months(y, 3 * q - 2, 3 * q),
            (Cut::Half(_) | Cut::Nth(..) | Cut::Quarter(_), _) => None,
        }
    }
}

/// Words after which a month name or a bare year is read as a date ("in May", "since 2024").
const LEADS_IN: &[Lex] =
    &[Lex::In, Lex::During, Lex::Throughout, Lex::Since, Lex::Until, Lex::From, Lex::Through, Lex::Of];

/// Words after which a season is read as a date, with or without "the" ("over the summer").
const LEADS_TO_SEASON: &[Lex] = &[
    Lex::In,
    Lex::During,
    Lex::Throughout,
    Lex::Since,
    Lex::Until,
    Lex::From,
    Lex::Through,
    Lex::Of,
    Lex::Over,
];

impl Scanner<'_> {
    /// The days a period (cut by `cut`) names.
    fn cut(&self, period: Period, cut: Cut) -> Option<Days> {
        match period {
            Period::Month { year: Some(y), month } => cut.apply(Fixed::Month(y, month)),
            Period::Month { year: None, month } => self.yearly(|y| cut.apply(Fixed::Month(y, month))),
            Period::Season { year: Some(y), start } => cut.apply(Fixed::Season(y, start)),
            Period::Season { year: None, start } => self.yearly(|y| cut.apply(Fixed::Season(y, start))),
            Period::Year(y) => cut.apply(Fixed::Year(y)),
        }
    }

    /// A season (meteorological, northern hemisphere: spring is March–May, summer June–August,
    /// autumn or fall September–November, winter December–February, named by the year it starts
    /// in): "summer 2025", "the summer of 2025", "last summer" (the latest one already over),
    /// "this summer" (the one under way, or else this year's; in a prompt about the past, the one
    /// before a season not yet begun), "next summer". Alone ("spring
    /// cleaning", "prices fall") it needs `context` or a word such as "in", "during", "over" before
    /// it, "the" allowed between ("over the summer").
    fn season_ref(&self, i: usize, context: bool) -> Option<(Period, usize)> {
        let r = self.reference;
        let of_year = |start: i8| move |y: i16| Cut::Whole.apply(Fixed::Season(y, start));
        if let Some(dir) = self.direction(i) {
            let Lex::Season(start) = self.lex(i + 1) else { return None };
            let year = match dir {
                -1 => (0..=2)
                    .filter_map(|back| r.year().checked_sub(back))
                    .find(|y| of_year(start)(*y).is_some_and(|s| s.1 < r))?,
                // In a prompt about the past, this year's season not yet begun is the one before it.
                0 => [r.year(), r.year().checked_sub(1)?]
                    .into_iter()
                    .find(|y| of_year(start)(*y).is_some_and(|s| s.0 <= r && r <= s.1))
                    .unwrap_or(if self.past && of_year(start)(r.year()).is_some_and(|s| s.0 > r) {
                        r.year().checked_sub(1)?
                    } else {
                        r.year()
                    }),
                _ => calendar::earliest_after(r, of_year(start))?.0.year(),
            };
            return Some((Period::Season { year: Some(year), start }, i + 2));
        }
        let the = self.is(i, Lex::The);
        let j = i + usize::from(the);
        let Lex::Season(start) = self.lex(j) else { return None };
        let sep = if self.punct(j + 1, b',') || self.is(j + 1, Lex::Of) { j + 2 } else { j + 1 };
        if let Some(year) = self.year_at(sep) {
            return Some((Period::Season { year: Some(year), start }, sep + 1));
        }
        let leads_in = self.after_one_of(i, LEADS_TO_SEASON)
            || (!the && self.is(i.wrapping_sub(1), Lex::The) && self.after_one_of(i - 1, LEADS_TO_SEASON));
        // "summer last year"; "prices fall this year" (spring, fall) is a verb unless capitalised or
        // led in.
        let verb = matches!(start, 3 | 9) && !self.capital(j);
        if let Some((year, end)) = self.relative_year(sep)
            && (context || leads_in || the || !verb)
        {
            return Some((Period::Season { year: Some(year), start }, end));
        }
        (context || leads_in).then_some((Period::Season { year: None, start }, j + 1))
    }

    /// A year counted from the reference year after a month or season: "last year", "this year",
    /// "next year" (and "previous year"). Returns the year and the token after it.
    pub(crate) fn relative_year(&self, i: usize) -> Option<(i16, usize)> {
        let dir = self.direction(i)?;
        if !self.is(i + 1, Lex::Unit { unit: Unit::Year, plural: false }) {
            return None;
        }
        Some((self.reference.year().checked_add(i16::try_from(dir).ok()?)?, i + 2))
    }

    /// `-1`, `0` or `1` for "last"/"previous", "this", "next".
    pub(crate) fn direction(&self, i: usize) -> Option<i64> {
        match self.lex(i) {
            Lex::Last | Lex::Previous => Some(-1),
            Lex::This => Some(0),
            Lex::Next => Some(1),
            _ => None,
        }
    }

    /// A month: "March", "Mar. 2026", "March of 2026", "last month", "this month", "next month",
    /// "last March" (the latest March before the reference month), "this March" (capitalised when the
    /// month is also a verb: "this may take"), "next March", "March last year", "March of next year".
    /// Without `context` (a qualifier before it), a month name alone needs to be unmistakable: a full
    /// name other than May and March ("August" capitalised), or a word such as "in", "during",
    /// "since", "of" just before it.
    fn month_ref(&self, i: usize, context: bool) -> Option<(Period, usize)> {
        let r = self.reference;
        if let Some(dir) = self.direction(i) {
            return match self.lex(i + 1) {
                Lex::Unit { unit: Unit::Month, plural: false } => {
                    let (year, month) = calendar::shift_month(r.year(), r.month(), dir)?;
                    Some((Period::Month { year: Some(year), month }, i + 2))
                }
                Lex::Month { month, full } => {
                    // "this may take a while", "this march": a verb unless capitalised.
                    if dir == 0 && (!full || month == 3 || month == 5) && !self.capital(i + 1) {
                        return None;
                    }
                    let (month, _, end) = self.month_at(i + 1)?;
                    let year = match dir {
                        -1 if month < r.month() => r.year(),
                        -1 => r.year().checked_sub(1)?,
                        0 => r.year(),
                        _ if month > r.month() => r.year(),
                        _ => r.year().checked_add(1)?,
                    };
                    Some((Period::Month { year: Some(year), month }, end))
                }
                _ => None,
            };
        }
        let (month, full, k) = self.month_at(i)?;
        let sep = if self.punct(k, b',') || self.is(k, Lex::Of) { k + 1 } else { k };
        if let Some(year) = self.year_at(sep) {
            return Some((Period::Month { year: Some(year), month }, sep + 1));
        }
        let unmistakable = full && month != 3 && month != 5 && (month != 8 || self.capital(i));
        let leads_in = self.after_one_of(i, LEADS_IN);
        // "March last year"; "it may last year" is a verb unless capitalised or led in.
        let verb = (!full || month == 3 || month == 5) && !self.capital(i);
        if let Some((year, end)) = self.relative_year(sep)
            && (context || leads_in || !verb)
        {
            return Some((Period::Month { year: Some(year), month }, end));
        }
        (context || unmistakable || leads_in).then_some((Period::Month { year: None, month }, k))
    }

    /// A year: "last year", "this year", "next year", "the year 2026", "year 2026", or a four-digit
    /// year with `context` or after "in", "during", "since", "of" and the like (then 1900–2199 only).
    /// With `context` ("the end of the year"), "the year" alone is the reference year.
    fn year_ref(&self, i: usize, context: bool) -> Option<(Period, usize)> {
        let year_word = |k| self.is(k, Lex::Unit { unit: Unit::Year, plural: false });
        if context && self.is(i, Lex::The) && year_word(i + 1) && self.year_at(i + 2).is_none() {
            return Some((Period::Year(self.reference.year()), i + 2));
        }
        if let Some(dir) = self.direction(i) {
            return year_word(i + 1)
                .then(|| {
                    Some((Period::Year(self.reference.year().checked_add(i16::try_from(dir).ok()?)?), i + 2))
                })
                .flatten();
        }
        let k = if self.is(i, Lex::The) && year_word(i + 1) { i + 2 } else { i + usize::from(year_word(i)) };
        let year = self.year_at(k)?;
        let leads_in = k > i || self.after_one_of(i, LEADS_IN);
        (context || (leads_in && (1900..=2199).contains(&year))).then_some((Period::Year(year), k + 1))
    }

    /// A month, season or year read as a date because the caller knows it is one (the end of a
    /// range: "from March to May").
    pub(crate) fn period_in_context(&self, i: usize) -> Option<Hit> {
        let (period, end) = self
            .month_ref(i, true)
            .or_else(|| self.season_ref(i, true))
            .or_else(|| self.year_ref(i, true))?;
        Some(Hit::new(end, self.cut(period, Cut::Whole)?))
    }

    /// A whole month, season, year or quarter standing alone.
    pub(crate) fn period(&self, i: usize) -> Option<Hit> {
        if let Some(hit) = self.quarter(i) {
            return Some(hit);
        }
        let (period, end) = self
            .month_ref(i, false)
            .or_else(|| self.season_ref(i, false))
            .or_else(|| self.year_ref(i, false))?;
        Some(Hit::new(end, self.cut(period, Cut::Whole)?))
    }

    /// A year, then a part of it: "last year in March", "last year, during the summer", "this year
    /// in early May", "2024 in mid-March", "next year over Easter". The part is resolved in that year
    /// (its latest occurrence up to the year's last day), so the prompt names one range, not the
    /// year and a month of the reference day's year. A part naming a year of its own ("last year in
    /// March 2024") is not one.
    pub(crate) fn year_then(&self, i: usize) -> Option<Hit> {
        let (Period::Year(year), k) = self.year_ref(i, false)? else { return None };
        let j = k + usize::from(self.punct(k, b','));
        if !matches!(self.lex(j), Lex::In | Lex::During | Lex::Throughout | Lex::Over | Lex::At) {
            return None;
        }
        let within = self.looking_back_from(Date::new(year, 12, 31).ok()?);
        let part = longest([
            within.qualified(j + 1),
            within.period(j + 1),
            within.holiday(j + 1),
            within.day_month(j + 1),
            within.the_nth(j + 1),
        ])?;
        let days = part.days?;
        (days.0.year() == year).then(|| Hit::new(part.end, days))
    }

    /// "Q1 2026", "2026 Q1", "Q3" and "the third quarter" (the latest third quarter that started on or
    /// before the reference day; not "the first quarter of the game"), "last quarter", "this
    /// quarter", "next quarter".
    fn quarter(&self, i: usize) -> Option<Hit> {
        let r = self.reference;
        let of_year = |q: u8, y: i16| Cut::Quarter(i8::try_from(q).ok()?).apply(Fixed::Year(y));
        let j = i + usize::from(self.is(i, Lex::The));
        if let Lex::Ordinal(q @ 1..=4) = self.lex(j)
            && self.is(j + 1, Lex::Quarter)
        {
            if self.is(j + 2, Lex::Of) {
                return None;
            }
            return Some(Hit::new(j + 2, self.yearly(|y| of_year(q, y))?));
        }
        if let Some(dir) = self.direction(i) {
            if !self.is(i + 1, Lex::Quarter) {
                return None;
            }
            let (y, m) = calendar::shift_month(r.year(), r.month(), 3 * dir)?;
            let q = u8::try_from((m - 1) / 3 + 1).ok()?;
            return Some(Hit::new(i + 2, of_year(q, y)?));
        }
        if let (Some(y), Lex::QuarterName(q)) = (self.year_at(i), self.lex(i + 1)) {
            return Some(Hit::new(i + 2, of_year(q, y)?));
        }
        let Lex::QuarterName(q) = self.lex(i) else { return None };
        if let Some(y) = self.year_at(i + 1) {
            return Some(Hit::new(i + 2, of_year(q, y)?));
        }
        Some(Hit::new(i + 1, self.yearly(|y| of_year(q, y))?))
    }

    /// A qualified period: "early March", "mid-March", "late 2025", "the beginning of March", "the
    /// middle of March", "the end of last year", "the first week of March", "the last week of March",
    /// "the second half of 2026", "the first day of last month", "the last weekend of May", "the
    /// first Monday of March", "the fourth quarter of 2025", "the first few days of April" (its first
    /// week), "the last days of April" (its last seven), "the second fortnight of March" (its second
    /// half), "the end of the month" (the reference month's, or the month before's when that part is
    /// still ahead). "of" may be "in", "first" may be "opening", "last" may be "final" or "closing", and
    /// "second half" "latter half".
    pub(crate) fn qualified(&self, i: usize) -> Option<Hit> {
        let the = self.is(i, Lex::The);
        let j = i + usize::from(the);
        let of = |k: usize| self.is(k, Lex::Of) || self.is(k, Lex::In);
        let (cut, k) = match self.lex(j) {
            Lex::Early if !the => (Cut::Early, j + 1),
            Lex::Mid if !the => (Cut::Mid, self.skip(j + 1, b'-')),
            Lex::Late if !the => (Cut::Late, j + 1),
            Lex::Start if of(j + 1) => (Cut::Early, j + 2),
            Lex::Middle if of(j + 1) => (Cut::Mid, j + 2),
            Lex::End if of(j + 1) => (Cut::Late, j + 2),
            // "the first few days of March", "the last days of March": its first or last seven.
            lex @ (Lex::Ordinal(1) | Lex::Opening | Lex::Last | Lex::Final)
                if self.is(self.few(j + 1).unwrap_or(j + 1), Lex::Unit { unit: Unit::Day, plural: true }) =>
            {
                let k = self.few(j + 1).unwrap_or(j + 1) + 1;
                if !of(k) {
                    return None;
                }
                (Cut::Week(if matches!(lex, Lex::Ordinal(1) | Lex::Opening) { 1 } else { -1 }), k + 1)
            }
            Lex::Latter if self.is(j + 1, Lex::Half) && of(j + 2) => (Cut::Half(2), j + 3),
            lex @ (Lex::Ordinal(1..=5) | Lex::Opening | Lex::Last | Lex::Final) if of(j + 2) => {
                let n: i8 = match lex {
                    Lex::Ordinal(n) => i8::try_from(n).ok()?,
                    Lex::Opening => 1,
                    _ => -1,
                };
                let cut = match self.lex(j + 1) {
                    Lex::Unit { unit: Unit::Week, plural: false } => Cut::Week(n),
                    Lex::Half if n <= 2 => Cut::Half(if n == -1 { 2 } else { n }),
                    Lex::Unit { unit: Unit::Day, plural: false } if n == 1 => Cut::FirstDay,
                    Lex::Unit { unit: Unit::Day, plural: false } if n == -1 => Cut::LastDay,
                    Lex::Weekend => Cut::Weekend(n),
                    Lex::Weekday { day, .. } => Cut::Nth(n, day),
                    Lex::Quarter if n <= 4 => Cut::Quarter(if n == -1 { 4 } else { n }),
                    // "the first fortnight of March": its first half.
                    Lex::Unit { unit: Unit::Fortnight, plural: false } if n <= 2 => {
                        Cut::Half(if n == -1 { 2 } else { n })
                    }
                    _ => return None,
                };
                (cut, j + 3)
            }
            _ => return None,
        };
        // "the end of the month": of the reference month once that part has begun, else of the month
        // before (about the future: of the reference month until that part is over, else the next).
        if self.is(k, Lex::The) && self.is(k + 1, Lex::Unit { unit: Unit::Month, plural: false }) {
            let r = self.reference;
            let of = |shift: i64| {
                let (y, m) = calendar::shift_month(r.year(), r.month(), shift)?;
                cut.apply(Fixed::Month(y, m))
            };
            let days = match of(0)? {
                days if self.ahead && days.1 >= r => days,
                _ if self.ahead => of(1)?,
                days if days.0 <= r => days,
                _ => of(-1)?,
            };
            return Some(Hit::new(k + 2, days));
        }
        let (period, end) = self
            .month_ref(k, true)
            .or_else(|| self.season_ref(k, true))
            .or_else(|| self.year_ref(k, true))?;
        Some(Hit::new(end, self.cut(period, cut)?))
    }
}
