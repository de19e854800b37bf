//! Holiday rules against known dates, over several years.

use cairn_dates::Locale::{self, Uk, Us};
use cairn_dates::holidays;
use jiff::civil::Date;

use crate::d;

/// The day of the holiday called `name` in `year`.
fn day_of(year: i16, locale: Locale, name: &str) -> Date {
    holidays(year, locale)
        .into_iter()
        .find(|h| h.name == name)
        .unwrap_or_else(|| panic!("no {name} in {year} ({locale})"))
        .date
}

#[test]
fn easter_sunday() {
    for (year, want) in [
        (1970, "1970-03-29"),
        (2000, "2000-04-23"),
        (2024, "2024-03-31"),
        (2025, "2025-04-20"),
        (2026, "2026-04-05"),
        (2027, "2027-03-28"),
        (2038, "2038-04-25"),
        (2100, "2100-03-28"),
    ] {
        assert_eq!(day_of(year, Uk, "Easter Sunday"), d(want), "{year}");
        assert_eq!(day_of(year, Us, "Easter Sunday"), d(want), "{year}");
    }
    assert_eq!(day_of(2026, Uk, "Good Friday"), d("2026-04-03"));
    assert_eq!(day_of(2026, Uk, "Easter Monday"), d("2026-04-06"));
}

#[test]
fn us_federal_holidays() {
    let cases = [
        (2024, "Thanksgiving Day", "2024-11-28"),
        (2025, "Thanksgiving Day", "2025-11-27"),
        (2026, "Thanksgiving Day", "2026-11-26"),
        (2026, "Memorial Day", "2026-05-25"),
        (2025, "Memorial Day", "2025-05-26"),
        (2026, "Martin Luther King Jr. Day", "2026-01-19"),
        (2025, "Martin Luther King Jr. Day", "2025-01-20"),
        (2026, "Washington's Birthday", "2026-02-16"),
        (2025, "Labor Day", "2025-09-01"),
        (2026, "Labor Day", "2026-09-07"),
        (2025, "Columbus Day", "2025-10-13"),
        (2026, "Juneteenth", "2026-06-19"),
        (2026, "Independence Day", "2026-07-04"),
        (2026, "Veterans Day", "2026-11-11"),
        (2026, "Christmas Day", "2026-12-25"),
        (2026, "New Year's Day", "2026-01-01"),
        // Before the Uniform Monday Holiday Act, and the years Veterans Day was in October.
        (1970, "Memorial Day", "1970-05-30"),
        (1970, "Washington's Birthday", "1970-02-22"),
        (1975, "Veterans Day", "1975-10-27"),
        (1978, "Veterans Day", "1978-11-11"),
        (2100, "Thanksgiving Day", "2100-11-25"),
    ];
    for (year, name, want) in cases {
        assert_eq!(day_of(year, Us, name), d(want), "{name} {year}");
    }
    let names =
        |year| holidays(year, Us).into_iter().filter(|h| h.public).map(|h| h.name).collect::<Vec<_>>();
    assert_eq!(names(2026).len(), 11);
    assert!(!names(2020).contains(&"Juneteenth"));
    assert!(!names(1985).contains(&"Martin Luther King Jr. Day"));
}

#[test]
fn uk_bank_holidays() {
    let cases = [
        (2026, "Spring bank holiday", "2026-05-25"),
        (2026, "Early May bank holiday", "2026-05-04"),
        (2026, "Summer bank holiday", "2026-08-31"),
        (2025, "Summer bank holiday", "2025-08-25"),
        (2026, "Boxing Day", "2026-12-26"),
        (2026, "Christmas Day", "2026-12-25"),
        (2026, "New Year's Day", "2026-01-01"),
        // Moved bank holidays.
        (2020, "Early May bank holiday", "2020-05-08"),
        (1995, "Early May bank holiday", "1995-05-08"),
        (2022, "Spring bank holiday", "2022-06-02"),
        (2012, "Spring bank holiday", "2012-06-04"),
    ];
    for (year, name, want) in cases {
        assert_eq!(day_of(year, Uk, name), d(want), "{name} {year}");
    }
    assert_eq!(day_of(2023, Uk, "Coronation of King Charles III"), d("2023-05-08"));
    let public = holidays(2026, Uk).into_iter().filter(|h| h.public).count();
    assert_eq!(public, 8);
    assert!(!holidays(1977, Uk).iter().any(|h| h.name == "Early May bank holiday"));
    assert!(!holidays(1973, Uk).iter().any(|h| h.name == "New Year's Day" && h.public));
}

#[test]
fn weekend_holidays_are_observed_on_a_weekday() {
    let observed = |year, locale, name: &str| {
        holidays(year, locale).into_iter().find(|h| h.name == name).map(|h| (h.date, h.observed)).unwrap()
    };
    // 2026-07-04 is a Saturday: observed Friday.
    assert_eq!(observed(2026, Us, "Independence Day"), (d("2026-07-04"), d("2026-07-03")));
    // 2022-01-01 is a Saturday: the US observed it on Friday 31 December 2021, England on Monday 3 January.
    assert_eq!(observed(2022, Us, "New Year's Day").1, d("2021-12-31"));
    assert_eq!(observed(2022, Uk, "New Year's Day").1, d("2022-01-03"));
    // Christmas 2021 on a Saturday, Boxing Day on a Sunday: Monday 27 and Tuesday 28 December.
    assert_eq!(observed(2021, Uk, "Christmas Day").1, d("2021-12-27"));
    assert_eq!(observed(2021, Uk, "Boxing Day").1, d("2021-12-28"));
    // Christmas 2022 on a Sunday: Boxing Day Monday 26, Christmas observed Tuesday 27.
    assert_eq!(observed(2022, Uk, "Christmas Day").1, d("2022-12-27"));
    assert_eq!(observed(2022, Uk, "Boxing Day").1, d("2022-12-26"));
    assert_eq!(observed(2022, Us, "Christmas Day").1, d("2022-12-26"));
    // Observances do not move.
    assert_eq!(observed(2021, Us, "Christmas Eve").1, d("2021-12-24"));
}

#[test]
fn every_year_1970_to_2100_is_complete_and_sorted() {
    for year in 1970..=2100 {
        for locale in Locale::ALL {
            let list = holidays(year, locale);
            assert!(list.windows(2).all(|w| w[0].date <= w[1].date), "{year} {locale}");
            assert!(list.iter().all(|h| h.date.year() == year), "{year} {locale}");
            for h in &list {
                let gap = (h.observed - h.date).get_days().abs();
                assert!(gap <= 2, "{h:?}");
            }
            let mondays = ["Memorial Day", "Labor Day", "Summer bank holiday", "Easter Monday"];
            for h in list.iter().filter(|h| year >= 1971 && mondays.contains(&h.name)) {
                assert_eq!(h.date.weekday(), jiff::civil::Weekday::Monday, "{h:?}");
            }
        }
    }
    assert!(holidays(-9999, Uk).iter().all(|h| !h.name.starts_with("Easter")));
}

#[test]
fn observances_are_dated_and_not_public() {
    let cases = [
        (2026, Us, "Valentine's Day", "2026-02-14"),
        (2026, Uk, "St Patrick's Day", "2026-03-17"),
        (2024, Us, "Mother's Day", "2024-05-12"),
        (2025, Us, "Mother's Day", "2025-05-11"),
        (2026, Us, "Mother's Day", "2026-05-10"),
        // Three weeks before Easter Sunday.
        (2024, Uk, "Mothering Sunday", "2024-03-10"),
        (2025, Uk, "Mothering Sunday", "2025-03-30"),
        (2026, Uk, "Mothering Sunday", "2026-03-15"),
        (2027, Uk, "Mothering Sunday", "2027-03-07"),
        (2024, Us, "Father's Day", "2024-06-16"),
        (2025, Uk, "Father's Day", "2025-06-15"),
        (2026, Us, "Father's Day", "2026-06-21"),
        (2026, Us, "Halloween", "2026-10-31"),
        (2026, Uk, "Bonfire Night", "2026-11-05"),
        // The day after the fourth Thursday of November.
        (2024, Us, "Black Friday", "2024-11-29"),
        (2025, Uk, "Black Friday", "2025-11-28"),
        (2026, Us, "Black Friday", "2026-11-27"),
        // Easter Sunday minus 47, 46, 7 and 3 days (Easter 2024: 31 March; 2027: 28 March).
        (2024, Us, "Shrove Tuesday", "2024-02-13"),
        (2027, Uk, "Shrove Tuesday", "2027-02-09"),
        (2024, Uk, "Ash Wednesday", "2024-02-14"),
        (2024, Us, "Palm Sunday", "2024-03-24"),
        (2027, Uk, "Maundy Thursday", "2027-03-25"),
        // The second Sunday of November.
        (2023, Uk, "Remembrance Sunday", "2023-11-12"),
        (2026, Uk, "Remembrance Sunday", "2026-11-08"),
    ];
    for (year, locale, name, want) in cases {
        assert_eq!(day_of(year, locale, name), d(want), "{name} {year}");
    }
    let observances = [
        "Valentine's Day",
        "St Patrick's Day",
        "Mother's Day",
        "Mothering Sunday",
        "Father's Day",
        "Halloween",
        "Bonfire Night",
        "Black Friday",
        "Shrove Tuesday",
        "Ash Wednesday",
        "Palm Sunday",
        "Maundy Thursday",
        "Remembrance Sunday",
    ];
    for locale in Locale::ALL {
        for h in holidays(2026, locale).iter().filter(|h| observances.contains(&h.name)) {
            assert!(!h.public && h.observed == h.date, "{h:?}");
        }
    }
    assert!(!holidays(2026, Us).iter().any(|h| h.name == "Bonfire Night" || h.name == "Mothering Sunday"));
    assert!(!holidays(2026, Uk).iter().any(|h| h.name == "Mother's Day"));
}
