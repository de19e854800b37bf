//! Calendar arithmetic on `jiff` dates. Every function is total: out of jiff's range, `None`.

use jiff::Span;
use jiff::civil::{Date, Weekday};

/// An inclusive range of days.
pub(crate) type Days = (Date, Date);

/// `d` moved by `n` days.
pub(crate) fn add_days(d: Date, n: i64) -> Option<Date> {
    d.checked_add(Span::new().try_days(n).ok()?).ok()
}

/// A single day as a range.
pub(crate) fn day(d: Date) -> Days {
    (d, d)
}

/// The Monday–Sunday week that holds `d`.
pub(crate) fn week_of(d: Date) -> Option<Days> {
    let monday = add_days(d, -i64::from(d.weekday().to_monday_zero_offset()))?;
    Some((monday, add_days(monday, 6)?))
}

/// A whole month.
pub(crate) fn month(year: i16, month: i8) -> Option<Days> {
    let first = Date::new(year, month, 1).ok()?;
    Some((first, first.last_of_month()))
}

/// A whole year.
pub(crate) fn year(year: i16) -> Option<Days> {
    Some((Date::new(year, 1, 1).ok()?, Date::new(year, 12, 31).ok()?))
}

/// The month `delta` months away from `(year, month)`.
pub(crate) fn shift_month(year: i16, month: i8, delta: i64) -> Option<(i16, i8)> {
    let index = i64::from(year) * 12 + i64::from(month - 1) + delta;
    let year = i16::try_from(index.div_euclid(12)).ok()?;
    Some((year, i8::try_from(index.rem_euclid(12)).ok()? + 1))
}

/// Days `first..=last` of `(year, month)`, `last` clamped to the month's end.
pub(crate) fn days_of_month(year: i16, month: i8, first: i8, last: i8) -> Option<Days> {
    let start = Date::new(year, month, first).ok()?;
    let end = Date::new(year, month, last.min(start.days_in_month())).ok()?;
    Some((start, end))
}

/// The most recent `weekday` strictly before `d`.
pub(crate) fn weekday_before(d: Date, weekday: Weekday) -> Option<Date> {
    let back = match d.weekday().since(weekday) {
        0 => 7,
        n => n,
    };
    add_days(d, -i64::from(back))
}

/// The first `weekday` strictly after `d`.
pub(crate) fn weekday_after(d: Date, weekday: Weekday) -> Option<Date> {
    let ahead = match d.weekday().until(weekday) {
        0 => 7,
        n => n,
    };
    add_days(d, i64::from(ahead))
}

/// The first Saturday on or after `d`, and the Sunday after it.
pub(crate) fn weekend_from(d: Date) -> Option<Days> {
    let saturday = add_days(d, i64::from(d.weekday().until(Weekday::Saturday)))?;
    Some((saturday, add_days(saturday, 1)?))
}

/// The weekend a day belongs to, as people say "the weekend of" or "Labor Day weekend": the Saturday
/// and Sunday nearest to it, stretched to take the day in. A Monday gives Saturday–Monday, a Tuesday
/// Saturday–Tuesday, a Wednesday or Thursday that day–Sunday, a Friday Friday–Sunday.
pub(crate) fn weekend_around(d: Date) -> Option<Days> {
    let since_saturday = i64::from(d.weekday().since(Weekday::Saturday));
    let saturday =
        if since_saturday <= 3 { add_days(d, -since_saturday)? } else { add_days(d, 7 - since_saturday)? };
    let sunday = add_days(saturday, 1)?;
    Some((saturday.min(d), sunday.max(d)))
}

/// The latest occurrence of a yearly range that starts on or before `reference`: `of_year` builds it
/// for a year (or cannot, e.g. February 29 in a common year). Looks back at most eight years, which
/// covers the longest gap between leap days.
pub(crate) fn latest_on_or_before(reference: Date, of_year: impl Fn(i16) -> Option<Days>) -> Option<Days> {
    (0..=8).filter_map(|back| of_year(reference.year().checked_sub(back)?)).find(|r| r.0 <= reference)
}

/// The earliest occurrence of a yearly range that ends on or after `reference` (the one under way, or
/// the next): what a year-less date names in a prompt about the future.
pub(crate) fn earliest_ending_on_or_after(
    reference: Date,
    of_year: impl Fn(i16) -> Option<Days>,
) -> Option<Days> {
    (-1..=8).filter_map(|ahead| of_year(reference.year().checked_add(ahead)?)).find(|r| r.1 >= reference)
}

/// The latest occurrence of a yearly range that starts strictly before `reference`.
pub(crate) fn latest_before(reference: Date, of_year: impl Fn(i16) -> Option<Days>) -> Option<Days> {
    latest_on_or_before(add_days(reference, -1)?, of_year)
}

/// The earliest occurrence of a yearly range that starts strictly after `reference`.
pub(crate) fn earliest_after(reference: Date, of_year: impl Fn(i16) -> Option<Days>) -> Option<Days> {
    (0..=8).filter_map(|ahead| of_year(reference.year().checked_add(ahead)?)).find(|r| r.0 > reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn weekends_around_each_weekday() {
        // 2026-05-25 is a Monday.
        let cases = [
            (date(2026, 5, 25), date(2026, 5, 23), date(2026, 5, 25)),
            (date(2026, 5, 26), date(2026, 5, 23), date(2026, 5, 26)),
            (date(2026, 5, 27), date(2026, 5, 27), date(2026, 5, 31)),
            (date(2026, 5, 28), date(2026, 5, 28), date(2026, 5, 31)),
            (date(2026, 5, 29), date(2026, 5, 29), date(2026, 5, 31)),
            (date(2026, 5, 30), date(2026, 5, 30), date(2026, 5, 31)),
            (date(2026, 5, 31), date(2026, 5, 30), date(2026, 5, 31)),
        ];
        for (d, start, end) in cases {
            assert_eq!(weekend_around(d), Some((start, end)), "{d}");
        }
    }

    #[test]
    fn shifting_months_crosses_years() {
        assert_eq!(shift_month(2026, 1, -1), Some((2025, 12)));
        assert_eq!(shift_month(2026, 12, 1), Some((2027, 1)));
        assert_eq!(shift_month(2026, 6, -18), Some((2024, 12)));
    }

    #[test]
    fn leap_days_look_back_far_enough() {
        let feb29 = |y| Date::new(y, 2, 29).ok().map(day);
        assert_eq!(latest_on_or_before(date(2103, 3, 1), feb29), Some(day(date(2096, 2, 29))));
        assert_eq!(weekday_before(date(2026, 6, 30), Weekday::Tuesday), Some(date(2026, 6, 23)));
        assert_eq!(weekday_after(date(2026, 6, 30), Weekday::Monday), Some(date(2026, 7, 6)));
    }
}
