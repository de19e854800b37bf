//! Every supported form, as tables of (prompt, phrase found, first day, last day).

use cairn_dates::Locale::{self, Uk, Us};

use crate::{JAN, REF, d, found, table};

const BOTH: &[Locale] = &[Us, Uk];

#[test]
fn absolute_dates() {
    table(
        REF,
        BOTH,
        &[
            ("notes from 2026-03-12 please", "2026-03-12", "2026-03-12", "2026-03-12"),
            ("log 2026-03-12T10:00:00Z", "2026-03-12", "2026-03-12", "2026-03-12"),
            ("on 2026/03/12", "2026/03/12", "2026-03-12", "2026-03-12"),
            ("the 2026-03 report", "2026-03", "2026-03-01", "2026-03-31"),
            ("on 12 March 2026 we met", "12 March 2026", "2026-03-12", "2026-03-12"),
            ("on March 12, 2026 we met", "March 12, 2026", "2026-03-12", "2026-03-12"),
            ("on March 12th 2026", "March 12th 2026", "2026-03-12", "2026-03-12"),
            ("on Mar. 12th, 2026", "Mar. 12th, 2026", "2026-03-12", "2026-03-12"),
            ("on 12th of March 2026", "12th of March 2026", "2026-03-12", "2026-03-12"),
            ("on the 12th of March, 2026", "the 12th of March, 2026", "2026-03-12", "2026-03-12"),
            ("MARCH 12 2026", "MARCH 12 2026", "2026-03-12", "2026-03-12"),
            ("sept 3 2024", "sept 3 2024", "2024-09-03", "2024-09-03"),
            ("3 Sept 2024", "3 Sept 2024", "2024-09-03", "2024-09-03"),
            ("on 29 February 2024", "29 February 2024", "2024-02-29", "2024-02-29"),
            ("25/12/2026", "25/12/2026", "2026-12-25", "2026-12-25"),
            ("12/25/2026", "12/25/2026", "2026-12-25", "2026-12-25"),
            ("03/03/2026", "03/03/2026", "2026-03-03", "2026-03-03"),
        ],
    );
}

#[test]
fn numeric_day_month_follows_the_locale() {
    table(REF, &[Uk], &[("on 12/03/2026", "12/03/2026", "2026-03-12", "2026-03-12")]);
    table(REF, &[Us], &[("on 12/03/2026", "12/03/2026", "2026-12-03", "2026-12-03")]);
    assert!(found("on 12/03/2026", REF, BOTH).is_empty(), "ambiguous with both locales");
    assert!(found("on 12/03/2026", REF, &[]).is_empty(), "ambiguous with no locale");
    // No such day: the month still counts.
    assert_eq!(
        found("on 31 February 2026", REF, BOTH),
        [("February 2026".into(), "2026-02-01".into(), "2026-02-28".into())]
    );
    assert!(found("1/2/2026/5", REF, &[Uk]).is_empty(), "part of a longer run");
}

#[test]
fn partial_dates_take_the_latest_occurrence() {
    table(
        REF,
        BOTH,
        &[
            ("what happened on March 12?", "March 12", "2026-03-12", "2026-03-12"),
            ("what happened on December 3?", "December 3", "2025-12-03", "2025-12-03"),
            ("what about June 30", "June 30", "2026-06-30", "2026-06-30"),
            ("what about July 1", "July 1", "2025-07-01", "2025-07-01"),
            ("on the 12th of March", "the 12th of March", "2026-03-12", "2026-03-12"),
            ("on 12th of March", "12th of March", "2026-03-12", "2026-03-12"),
            ("on 12 March", "12 March", "2026-03-12", "2026-03-12"),
            ("on March the 12th", "March the 12th", "2026-03-12", "2026-03-12"),
            ("on the fourth of July", "the fourth of July", "2025-07-04", "2025-07-04"),
            ("on March twenty-first", "March twenty-first", "2026-03-21", "2026-03-21"),
            ("on May 5", "May 5", "2026-05-05", "2026-05-05"),
            ("on 5 May", "5 May", "2026-05-05", "2026-05-05"),
            ("what did we do on the 12th?", "the 12th", "2026-06-12", "2026-06-12"),
            ("what did we do on the 30th?", "the 30th", "2026-06-30", "2026-06-30"),
            ("what did we do on the 31st?", "the 31st", "2026-05-31", "2026-05-31"),
            ("the March 2026 release", "March 2026", "2026-03-01", "2026-03-31"),
            ("in March of 2025", "March of 2025", "2025-03-01", "2025-03-31"),
            ("what shipped in March", "March", "2026-03-01", "2026-03-31"),
            ("what shipped in May?", "May", "2026-05-01", "2026-05-31"),
            ("what shipped in July", "July", "2025-07-01", "2025-07-31"),
            ("September notes", "September", "2025-09-01", "2025-09-30"),
            ("what changed in 2025", "2025", "2025-01-01", "2025-12-31"),
            ("what changed during 2024?", "2024", "2024-01-01", "2024-12-31"),
            ("the year 2024", "the year 2024", "2024-01-01", "2024-12-31"),
            ("Q1 2026 goals", "Q1 2026", "2026-01-01", "2026-03-31"),
            ("the Q3 plan", "Q3", "2025-07-01", "2025-09-30"),
            ("last quarter", "last quarter", "2026-01-01", "2026-03-31"),
            ("since March", "since March", "2026-03-01", "2026-06-30"),
            ("since 2025-12-01", "since 2025-12-01", "2025-12-01", "2026-06-30"),
        ],
    );
}

#[test]
fn partial_dates_roll_back_a_year_in_january() {
    table(
        JAN,
        BOTH,
        &[
            ("March 12", "March 12", "2024-03-12", "2024-03-12"),
            ("December 3", "December 3", "2024-12-03", "2024-12-03"),
            ("January 2", "January 2", "2025-01-02", "2025-01-02"),
            ("January 3", "January 3", "2024-01-03", "2024-01-03"),
            ("in March", "March", "2024-03-01", "2024-03-31"),
            ("in January", "January", "2025-01-01", "2025-01-31"),
            ("mid-December", "mid-December", "2024-12-11", "2024-12-20"),
            ("early January", "early January", "2025-01-01", "2025-01-10"),
            ("late January", "late January", "2024-01-21", "2024-01-31"),
            ("the 12th", "the 12th", "2024-12-12", "2024-12-12"),
            ("the 2nd", "the 2nd", "2025-01-02", "2025-01-02"),
            ("last March", "last March", "2024-03-01", "2024-03-31"),
            ("February 29", "February 29", "2024-02-29", "2024-02-29"),
            ("the end of last year", "the end of last year", "2024-09-01", "2024-12-31"),
        ],
    );
}

#[test]
fn weekday_with_a_date() {
    table(
        REF,
        BOTH,
        &[
            ("Tuesday 3 March", "Tuesday 3 March", "2026-03-03", "2026-03-03"),
            ("on Tuesday, March 3rd", "Tuesday, March 3rd", "2026-03-03", "2026-03-03"),
            ("Tue 3 Mar 2026", "Tue 3 Mar 2026", "2026-03-03", "2026-03-03"),
            ("Tuesday the 3rd of March", "Tuesday the 3rd of March", "2026-03-03", "2026-03-03"),
            // The date wins over a weekday that disagrees.
            ("Friday 3 March", "Friday 3 March", "2026-03-03", "2026-03-03"),
            // A weekday and a day of the month: the latest such day on that weekday.
            ("on Monday the 9th", "Monday the 9th", "2026-03-09", "2026-03-09"),
            ("Friday the 13th", "Friday the 13th", "2026-03-13", "2026-03-13"),
            ("Tue, the 30th", "Tue, the 30th", "2026-06-30", "2026-06-30"),
            ("Sunday the 28th", "Sunday the 28th", "2026-06-28", "2026-06-28"),
        ],
    );
    // Not a date: "the 9th floor".
    assert_eq!(found("Monday the 9th floor", REF, BOTH)[0].0, "Monday");
}

#[test]
fn parts_of_a_month() {
    table(
        REF,
        BOTH,
        &[
            ("early March", "early March", "2026-03-01", "2026-03-10"),
            ("mid-March", "mid-March", "2026-03-11", "2026-03-20"),
            ("mid March", "mid March", "2026-03-11", "2026-03-20"),
            ("mid–March", "mid–March", "2026-03-11", "2026-03-20"),
            ("late March", "late March", "2026-03-21", "2026-03-31"),
            ("late February", "late February", "2026-02-21", "2026-02-28"),
            ("early May", "early May", "2026-05-01", "2026-05-10"),
            ("late June", "late June", "2026-06-21", "2026-06-30"),
            ("early July", "early July", "2025-07-01", "2025-07-10"),
            ("mid-March 2025", "mid-March 2025", "2025-03-11", "2025-03-20"),
            ("the middle of March", "the middle of March", "2026-03-11", "2026-03-20"),
            ("the beginning of March", "the beginning of March", "2026-03-01", "2026-03-10"),
            ("the start of March", "the start of March", "2026-03-01", "2026-03-10"),
            ("the end of March", "the end of March", "2026-03-21", "2026-03-31"),
            ("end of May", "end of May", "2026-05-21", "2026-05-31"),
            ("the first week of March", "the first week of March", "2026-03-01", "2026-03-07"),
            ("the second week of March", "the second week of March", "2026-03-08", "2026-03-14"),
            ("the third week of March", "the third week of March", "2026-03-15", "2026-03-21"),
            ("the fourth week of March", "the fourth week of March", "2026-03-22", "2026-03-28"),
            ("the last week of March", "the last week of March", "2026-03-25", "2026-03-31"),
            ("the first half of March", "the first half of March", "2026-03-01", "2026-03-15"),
            ("the second half of March", "the second half of March", "2026-03-16", "2026-03-31"),
            ("the last day of March", "the last day of March", "2026-03-31", "2026-03-31"),
            ("the first day of March", "the first day of March", "2026-03-01", "2026-03-01"),
            ("the last day of February", "the last day of February", "2026-02-28", "2026-02-28"),
            // March 2026 starts on a Sunday: its Saturdays are the 7th, 14th, 21st and 28th.
            ("the first weekend of March", "the first weekend of March", "2026-03-07", "2026-03-08"),
            ("the last weekend of March", "the last weekend of March", "2026-03-28", "2026-03-29"),
            ("the last weekend of May", "the last weekend of May", "2026-05-30", "2026-05-31"),
            ("the first Monday of March", "the first Monday of March", "2026-03-02", "2026-03-02"),
            ("the last Friday in May", "the last Friday in May", "2026-05-29", "2026-05-29"),
            ("the first week of last month", "the first week of last month", "2026-05-01", "2026-05-07"),
            ("early last month", "early last month", "2026-05-01", "2026-05-10"),
        ],
    );
}

#[test]
fn parts_of_a_year() {
    table(
        REF,
        BOTH,
        &[
            ("early 2025", "early 2025", "2025-01-01", "2025-04-30"),
            ("mid-2025", "mid-2025", "2025-05-01", "2025-08-31"),
            ("late 2025", "late 2025", "2025-09-01", "2025-12-31"),
            ("the first half of 2025", "the first half of 2025", "2025-01-01", "2025-06-30"),
            ("the second half of last year", "the second half of last year", "2025-07-01", "2025-12-31"),
            ("the third quarter of 2025", "the third quarter of 2025", "2025-07-01", "2025-09-30"),
            ("the last week of 2025", "the last week of 2025", "2025-12-25", "2025-12-31"),
        ],
    );
}

#[test]
fn seasons() {
    // Meteorological, northern hemisphere; winter is named by the year it starts in.
    table(
        REF,
        BOTH,
        &[
            ("summer 2025", "summer 2025", "2025-06-01", "2025-08-31"),
            ("the summer of 2025", "the summer of 2025", "2025-06-01", "2025-08-31"),
            ("last summer", "last summer", "2025-06-01", "2025-08-31"),
            ("this summer", "this summer", "2026-06-01", "2026-08-31"),
            ("over the summer", "the summer", "2026-06-01", "2026-08-31"),
            ("in the spring", "the spring", "2026-03-01", "2026-05-31"),
            ("in the fall", "the fall", "2025-09-01", "2025-11-30"),
            ("autumn 2024", "autumn 2024", "2024-09-01", "2024-11-30"),
            ("winter 2025", "winter 2025", "2025-12-01", "2026-02-28"),
            ("last winter", "last winter", "2025-12-01", "2026-02-28"),
            // In a prompt about the past, a season not yet begun this year is the one before.
            ("what did we do this winter?", "this winter", "2025-12-01", "2026-02-28"),
            ("what will we do this winter?", "this winter", "2026-12-01", "2027-02-28"),
            ("what did we do this spring?", "this spring", "2026-03-01", "2026-05-31"),
            ("early summer", "early summer", "2026-06-01", "2026-06-30"),
            ("late summer 2025", "late summer 2025", "2025-08-01", "2025-08-31"),
            ("the end of summer", "the end of summer", "2025-08-01", "2025-08-31"),
        ],
    );
}

#[test]
fn ranges() {
    table(
        REF,
        BOTH,
        &[
            ("between March 3 and March 10", "between March 3 and March 10", "2026-03-03", "2026-03-10"),
            ("from March 3 to 10", "from March 3 to 10", "2026-03-03", "2026-03-10"),
            ("March 3-5", "March 3-5", "2026-03-03", "2026-03-05"),
            ("March 3–5, 2025", "March 3–5, 2025", "2025-03-03", "2025-03-05"),
            ("3-5 March", "3-5 March", "2026-03-03", "2026-03-05"),
            ("3 to 5 March 2025", "3 to 5 March 2025", "2025-03-03", "2025-03-05"),
            ("March 3 – April 2, 2025", "March 3 – April 2, 2025", "2025-03-03", "2025-04-02"),
            ("2026-03-01 – 2026-03-10", "2026-03-01 – 2026-03-10", "2026-03-01", "2026-03-10"),
            ("from march to may", "from march to may", "2026-03-01", "2026-05-31"),
            ("from 2024 to 2025", "from 2024 to 2025", "2024-01-01", "2025-12-31"),
            ("between 2024 and 2025", "between 2024 and 2025", "2024-01-01", "2025-12-31"),
            ("from yesterday to today", "from yesterday to today", "2026-06-29", "2026-06-30"),
            ("from December 20 to January 5", "from December 20 to January 5", "2025-12-20", "2026-01-05"),
            (
                "from Christmas 2024 to New Year's Day",
                "from Christmas 2024 to New Year's Day",
                "2024-12-25",
                "2025-01-01",
            ),
        ],
    );
    // Just after New Year, the second end moves to after the first: this winter's holidays.
    table(
        JAN,
        BOTH,
        &[("from December 20 to January 5", "from December 20 to January 5", "2024-12-20", "2025-01-05")],
    );
    // An end before the start is no range: each end stands alone.
    assert_eq!(found("March 5-3", REF, BOTH).len(), 1);
    assert!(found("between you and me, from 9 to 5", REF, BOTH).is_empty());
}

#[test]
fn anchored_on_a_day() {
    table(
        REF,
        &[Us],
        &[
            ("the week of March 9", "the week of March 9", "2026-03-09", "2026-03-15"),
            ("the weekend of March 14", "the weekend of March 14", "2026-03-14", "2026-03-15"),
            ("the weekend after Thanksgiving", "the weekend after Thanksgiving", "2025-11-29", "2025-11-30"),
            ("the weekend before Easter", "the weekend before Easter", "2026-03-28", "2026-03-29"),
            ("July 4th weekend", "July 4th weekend", "2025-07-04", "2025-07-06"),
            ("4th of July weekend", "4th of July weekend", "2025-07-04", "2025-07-06"),
            ("the day before March 1", "the day before March 1", "2026-02-28", "2026-02-28"),
            ("the day after tomorrow", "the day after tomorrow", "2026-07-02", "2026-07-02"),
        ],
    );
}

#[test]
fn relative_to_the_reference_day() {
    // 2026-06-30 is a Tuesday; its week runs Monday 29 June to Sunday 5 July.
    table(
        REF,
        BOTH,
        &[
            ("what did I do today", "today", "2026-06-30", "2026-06-30"),
            ("yesterday's notes", "yesterday's", "2026-06-29", "2026-06-29"),
            ("the day before yesterday", "the day before yesterday", "2026-06-28", "2026-06-28"),
            ("last night", "last night", "2026-06-29", "2026-06-29"),
            ("tomorrow", "tomorrow", "2026-07-01", "2026-07-01"),
            ("three days ago", "three days ago", "2026-06-27", "2026-06-27"),
            ("3 days ago", "3 days ago", "2026-06-27", "2026-06-27"),
            ("a day ago", "a day ago", "2026-06-29", "2026-06-29"),
            ("twenty-one days ago", "twenty-one days ago", "2026-06-09", "2026-06-09"),
            ("two weeks ago", "two weeks ago", "2026-06-15", "2026-06-21"),
            ("a week ago", "a week ago", "2026-06-22", "2026-06-28"),
            ("a couple of weeks ago", "a couple of weeks ago", "2026-06-15", "2026-06-21"),
            ("two months ago", "two months ago", "2026-04-01", "2026-04-30"),
            ("a year ago", "a year ago", "2025-01-01", "2025-12-31"),
            ("last week", "last week", "2026-06-22", "2026-06-28"),
            ("this past week", "this past week", "2026-06-22", "2026-06-28"),
            ("the previous week", "the previous week", "2026-06-22", "2026-06-28"),
            ("this week", "this week", "2026-06-29", "2026-07-05"),
            ("next week", "next week", "2026-07-06", "2026-07-12"),
            ("the week before last", "the week before last", "2026-06-15", "2026-06-21"),
            ("the month before last", "the month before last", "2026-04-01", "2026-04-30"),
            ("the year before last", "the year before last", "2024-01-01", "2024-12-31"),
            ("last month", "last month", "2026-05-01", "2026-05-31"),
            ("this month", "this month", "2026-06-01", "2026-06-30"),
            ("last weekend", "last weekend", "2026-06-27", "2026-06-28"),
            ("this weekend", "this weekend", "2026-07-04", "2026-07-05"),
            ("last Tuesday", "last Tuesday", "2026-06-23", "2026-06-23"),
            ("on Tuesday", "Tuesday", "2026-06-23", "2026-06-23"),
            ("on Monday", "Monday", "2026-06-29", "2026-06-29"),
            ("Friday's standup", "Friday's", "2026-06-26", "2026-06-26"),
            ("this Thursday", "this Thursday", "2026-07-02", "2026-07-02"),
            ("Wednesday last week", "Wednesday last week", "2026-06-24", "2026-06-24"),
            ("last year", "last year", "2025-01-01", "2025-12-31"),
            ("this year", "this year", "2026-01-01", "2026-12-31"),
            ("in the past week", "the past week", "2026-06-23", "2026-06-30"),
            ("in the last 3 days", "the last 3 days", "2026-06-27", "2026-06-30"),
            ("over the past two weeks", "the past two weeks", "2026-06-16", "2026-06-30"),
            ("in the past month", "the past month", "2026-05-30", "2026-06-30"),
            ("since last Tuesday", "since last Tuesday", "2026-06-23", "2026-06-30"),
        ],
    );
}

#[test]
fn relative_in_january() {
    // 2025-01-02 is a Thursday.
    table(
        JAN,
        BOTH,
        &[
            ("yesterday", "yesterday", "2025-01-01", "2025-01-01"),
            ("3 days ago", "3 days ago", "2024-12-30", "2024-12-30"),
            ("two weeks ago", "two weeks ago", "2024-12-16", "2024-12-22"),
            ("a month ago", "a month ago", "2024-12-01", "2024-12-31"),
            ("last week", "last week", "2024-12-23", "2024-12-29"),
            ("this week", "this week", "2024-12-30", "2025-01-05"),
            ("last month", "last month", "2024-12-01", "2024-12-31"),
            ("last year", "last year", "2024-01-01", "2024-12-31"),
            ("last weekend", "last weekend", "2024-12-28", "2024-12-29"),
            ("last Tuesday", "last Tuesday", "2024-12-31", "2024-12-31"),
            ("on Thursday", "Thursday", "2024-12-26", "2024-12-26"),
        ],
    );
}

#[test]
fn holidays_us() {
    table(
        REF,
        &[Us],
        &[
            ("Thanksgiving", "Thanksgiving", "2025-11-27", "2025-11-27"),
            ("thanksgiving 2026", "thanksgiving 2026", "2026-11-26", "2026-11-26"),
            ("Thanksgiving Day, 2024", "Thanksgiving Day, 2024", "2024-11-28", "2024-11-28"),
            ("Memorial Day", "Memorial Day", "2026-05-25", "2026-05-25"),
            ("Memorial Day weekend", "Memorial Day weekend", "2026-05-23", "2026-05-25"),
            ("Independence Day", "Independence Day", "2025-07-04", "2025-07-04"),
            ("the Fourth of July", "the Fourth of July", "2025-07-04", "2025-07-04"),
            ("July 4th", "July 4th", "2025-07-04", "2025-07-04"),
            ("Christmas", "Christmas", "2025-12-25", "2025-12-25"),
            ("Christmas Day", "Christmas Day", "2025-12-25", "2025-12-25"),
            ("Christmas Eve", "Christmas Eve", "2025-12-24", "2025-12-24"),
            ("New Year's Eve", "New Year's Eve", "2025-12-31", "2025-12-31"),
            ("MLK day", "MLK day", "2026-01-19", "2026-01-19"),
            ("Martin Luther King Jr. Day", "Martin Luther King Jr. Day", "2026-01-19", "2026-01-19"),
            ("Martin Luther King, Jr. Day", "Martin Luther King, Jr. Day", "2026-01-19", "2026-01-19"),
            ("Presidents' Day", "Presidents' Day", "2026-02-16", "2026-02-16"),
            ("President’s Day", "President’s Day", "2026-02-16", "2026-02-16"),
            ("Washington's Birthday", "Washington's Birthday", "2026-02-16", "2026-02-16"),
            ("Juneteenth", "Juneteenth", "2026-06-19", "2026-06-19"),
            ("Labor Day", "Labor Day", "2025-09-01", "2025-09-01"),
            ("Labor Day weekend", "Labor Day weekend", "2025-08-30", "2025-09-01"),
            ("Columbus Day", "Columbus Day", "2025-10-13", "2025-10-13"),
            ("Indigenous Peoples' Day", "Indigenous Peoples' Day", "2025-10-13", "2025-10-13"),
            ("Veterans Day", "Veterans Day", "2025-11-11", "2025-11-11"),
            ("New Year's Day", "New Year's Day", "2026-01-01", "2026-01-01"),
            ("new years day", "new years day", "2026-01-01", "2026-01-01"),
            ("New Year's", "New Year's", "2026-01-01", "2026-01-01"),
            ("the day after Thanksgiving", "the day after Thanksgiving", "2025-11-28", "2025-11-28"),
            ("Thanksgiving weekend", "Thanksgiving weekend", "2025-11-27", "2025-11-30"),
            ("the weekend of Thanksgiving", "the weekend of Thanksgiving", "2025-11-27", "2025-11-30"),
            ("Christmas 2024", "Christmas 2024", "2024-12-25", "2024-12-25"),
            ("last Christmas", "last Christmas", "2025-12-25", "2025-12-25"),
            ("next Thanksgiving", "next Thanksgiving", "2026-11-26", "2026-11-26"),
            ("Memorial Day weekend 2025", "Memorial Day weekend 2025", "2025-05-24", "2025-05-26"),
            // 4 July 2026 is a Saturday, observed on Friday 3 July.
            ("Independence Day weekend 2026", "Independence Day weekend 2026", "2026-07-03", "2026-07-05"),
            ("since Memorial Day", "since Memorial Day", "2026-05-25", "2026-06-30"),
            ("Easter", "Easter", "2026-04-05", "2026-04-05"),
        ],
    );
}

#[test]
fn holidays_uk() {
    table(
        REF,
        &[Uk],
        &[
            ("Good Friday", "Good Friday", "2026-04-03", "2026-04-03"),
            ("Easter Monday", "Easter Monday", "2026-04-06", "2026-04-06"),
            ("Easter", "Easter", "2026-04-05", "2026-04-05"),
            ("Easter Sunday", "Easter Sunday", "2026-04-05", "2026-04-05"),
            ("Easter weekend", "Easter weekend", "2026-04-03", "2026-04-06"),
            ("Easter weekend 2025", "Easter weekend 2025", "2025-04-18", "2025-04-21"),
            ("over the easter weekend", "easter weekend", "2026-04-03", "2026-04-06"),
            ("the weekend of Easter 2024", "the weekend of Easter 2024", "2024-03-29", "2024-04-01"),
            ("Early May bank holiday", "Early May bank holiday", "2026-05-04", "2026-05-04"),
            ("May Day", "May Day", "2026-05-04", "2026-05-04"),
            ("the May Day bank holiday", "May Day bank holiday", "2026-05-04", "2026-05-04"),
            ("Spring bank holiday", "Spring bank holiday", "2026-05-25", "2026-05-25"),
            ("the spring bank holiday weekend", "spring bank holiday weekend", "2026-05-23", "2026-05-25"),
            ("Summer bank holiday", "Summer bank holiday", "2025-08-25", "2025-08-25"),
            ("August bank holiday 2026", "August bank holiday 2026", "2026-08-31", "2026-08-31"),
            ("Boxing Day", "Boxing Day", "2025-12-26", "2025-12-26"),
            ("Christmas Day", "Christmas Day", "2025-12-25", "2025-12-25"),
            ("New Year’s Day", "New Year’s Day", "2026-01-01", "2026-01-01"),
            ("the day after Boxing Day", "the day after Boxing Day", "2025-12-27", "2025-12-27"),
            // Christmas 2021 fell on a Saturday: the bank holiday moved to Monday 27 December.
            ("Christmas weekend 2021", "Christmas weekend 2021", "2021-12-25", "2021-12-27"),
        ],
    );
}

#[test]
fn holidays_only_in_the_configured_locales() {
    assert!(found("Boxing Day", REF, &[Us]).is_empty());
    assert!(found("Thanksgiving", REF, &[Uk]).is_empty());
    assert!(found("Good Friday", REF, &[Us]).is_empty(), "not read as 'Friday'");
    assert!(found("the August bank holiday", REF, &[Us]).is_empty(), "not read as 'August'");
    assert!(found("Christmas", REF, &[]).is_empty());
    let both = found("Christmas", REF, BOTH);
    assert_eq!(both, [("Christmas".into(), "2025-12-25".into(), "2025-12-25".into())]);
}

#[test]
fn holidays_in_january() {
    table(
        JAN,
        BOTH,
        &[
            ("Christmas", "Christmas", "2024-12-25", "2024-12-25"),
            ("Thanksgiving", "Thanksgiving", "2024-11-28", "2024-11-28"),
            ("New Year's Day", "New Year's Day", "2025-01-01", "2025-01-01"),
            ("Easter", "Easter", "2024-03-31", "2024-03-31"),
            ("last Christmas", "last Christmas", "2024-12-25", "2024-12-25"),
        ],
    );
}

#[test]
fn several_in_one_prompt_in_order_without_overlap() {
    let got = found(
        "Compare what we said on March 3rd, mid-April and two weeks ago with the notes from 2025-12-01.",
        REF,
        BOTH,
    );
    let want = [
        ("March 3rd", "2026-03-03", "2026-03-03"),
        ("mid-April", "2026-04-11", "2026-04-20"),
        ("two weeks ago", "2026-06-15", "2026-06-21"),
        ("2025-12-01", "2025-12-01", "2025-12-01"),
    ];
    let got: Vec<_> = got.iter().map(|(p, s, e)| (p.as_str(), s.as_str(), e.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn the_longest_reading_wins() {
    let got = found("the last week of March and the last week", REF, BOTH);
    assert_eq!(got[0].0, "the last week of March");
    assert_eq!(got[1].0, "the last week");
    assert_eq!(got.len(), 2);
}

#[test]
fn locale_parses_and_displays() {
    assert_eq!("US".parse::<Locale>(), Ok(Us));
    assert_eq!("uk".parse::<Locale>(), Ok(Uk));
    assert_eq!("en-GB".parse::<Locale>(), Ok(Uk));
    assert!("fr".parse::<Locale>().is_err());
    assert_eq!(Us.to_string(), "us");
    assert_eq!(Uk.to_string(), "uk");
}

#[test]
fn year_less_dates_in_prompts_about_the_future_are_the_next_occurrence() {
    table(
        REF,
        &[Locale::Us, Locale::Uk],
        &[
            ("what will we do in August?", "August", "2026-08-01", "2026-08-31"),
            ("how will we keep warm in winter from now on?", "winter", "2026-12-01", "2027-02-28"),
            ("what's planned over the summer?", "the summer", "2026-06-01", "2026-08-31"),
            ("we'll see them at Christmas", "Christmas", "2026-12-25", "2026-12-25"),
            ("what will I do on March 12?", "March 12", "2027-03-12", "2027-03-12"),
            ("anything scheduled for early September?", "early September", "2026-09-01", "2026-09-10"),
            // Under way counts as ahead: the reference day is in June.
            ("what are we going to do in June?", "June", "2026-06-01", "2026-06-30"),
            // A prompt that also speaks in the past asks about the past.
            ("what did I say I'd do in August?", "August", "2025-08-01", "2025-08-31"),
            ("what did we do in the winter?", "the winter", "2025-12-01", "2026-02-28"),
            // A year, or "last", says which whatever the tense.
            ("what will we do in August 2025?", "August 2025", "2025-08-01", "2025-08-31"),
        ],
    );
}

#[test]
fn weekday_after_or_before_a_day() {
    // The first such weekday strictly after or before the anchor, as one range.
    table(
        REF,
        &[Us],
        &[
            ("the Monday after Easter", "the Monday after Easter", "2026-04-06", "2026-04-06"),
            ("the Sunday before Easter", "the Sunday before Easter", "2026-03-29", "2026-03-29"),
            ("the Friday before Memorial Day", "the Friday before Memorial Day", "2026-05-22", "2026-05-22"),
            ("the Tuesday after Thanksgiving", "the Tuesday after Thanksgiving", "2025-12-02", "2025-12-02"),
            ("on Monday after Christmas 2024", "Monday after Christmas 2024", "2024-12-30", "2024-12-30"),
            // Christmas 2025 is a Thursday: the Thursday after it is a week later.
            ("the Thursday after Christmas", "the Thursday after Christmas", "2026-01-01", "2026-01-01"),
            // 13 March 2026 is a Friday.
            ("the Friday before March 13", "the Friday before March 13", "2026-03-06", "2026-03-06"),
            ("the Wednesday after today", "the Wednesday after today", "2026-07-01", "2026-07-01"),
            ("the Monday before yesterday", "the Monday before yesterday", "2026-06-22", "2026-06-22"),
            ("the Friday after Halloween", "the Friday after Halloween", "2025-11-07", "2025-11-07"),
        ],
    );
    table(
        JAN,
        BOTH,
        &[
            // Easter 2024 was 31 March; Thanksgiving 2024 28 November.
            ("the Monday after Easter", "the Monday after Easter", "2024-04-01", "2024-04-01"),
            ("the Tuesday after Thanksgiving", "the Tuesday after Thanksgiving", "2024-12-03", "2024-12-03"),
            (
                "the Friday before New Year's Day",
                "the Friday before New Year's Day",
                "2024-12-27",
                "2024-12-27",
            ),
        ],
    );
    // A weekday before something that is not a day stays the weekday.
    assert_eq!(found("on Friday before the launch", REF, BOTH)[0].0, "Friday");
}

#[test]
fn days_and_weeks_after_or_before_a_day() {
    table(
        REF,
        BOTH,
        &[
            ("two days after New Year's Day", "two days after New Year's Day", "2026-01-03", "2026-01-03"),
            ("three days before Christmas", "three days before Christmas", "2025-12-22", "2025-12-22"),
            ("a week after Easter", "a week after Easter", "2026-04-12", "2026-04-12"),
            ("10 days before March 3", "10 days before March 3", "2026-02-21", "2026-02-21"),
            ("a day after Christmas", "a day after Christmas", "2025-12-26", "2025-12-26"),
            (
                "a fortnight after Christmas 2024",
                "a fortnight after Christmas 2024",
                "2025-01-08",
                "2025-01-08",
            ),
            ("two weeks before Halloween", "two weeks before Halloween", "2025-10-17", "2025-10-17"),
            ("a day after February 28, 2024", "a day after February 28, 2024", "2024-02-29", "2024-02-29"),
            ("3 weeks before today", "3 weeks before today", "2026-06-09", "2026-06-09"),
        ],
    );
    table(
        JAN,
        BOTH,
        &[
            ("two days after New Year's Day", "two days after New Year's Day", "2025-01-03", "2025-01-03"),
            ("three days before Christmas", "three days before Christmas", "2024-12-22", "2024-12-22"),
        ],
    );
}

#[test]
fn stretches_next_to_a_day() {
    table(
        REF,
        BOTH,
        &[
            (
                "what did I do in the run-up to Christmas?",
                "the run-up to Christmas",
                "2025-12-11",
                "2025-12-24",
            ),
            ("the lead-up to Easter", "the lead-up to Easter", "2026-03-22", "2026-04-04"),
            ("the build up to March 20", "the build up to March 20", "2026-03-06", "2026-03-19"),
            ("in the runup to Christmas", "the runup to Christmas", "2025-12-11", "2025-12-24"),
            ("in the days after Christmas", "the days after Christmas", "2025-12-26", "2025-12-29"),
            ("the few days before Easter", "the few days before Easter", "2026-04-01", "2026-04-04"),
            ("a few days after Christmas", "a few days after Christmas", "2025-12-27", "2025-12-31"),
            ("several days before March 10", "several days before March 10", "2026-03-04", "2026-03-08"),
            ("the fortnight after Easter", "the fortnight after Easter", "2026-04-06", "2026-04-19"),
            (
                "the fortnight before New Year's Day",
                "the fortnight before New Year's Day",
                "2025-12-18",
                "2025-12-31",
            ),
            ("in the weeks before Christmas", "the weeks before Christmas", "2025-12-04", "2025-12-24"),
            ("the weeks after May 1", "the weeks after May 1", "2026-05-02", "2026-05-22"),
        ],
    );
}

#[test]
fn weekends_fortnights_and_vague_counts() {
    // 2026-06-30 is a Tuesday; the last weekend was 27–28 June.
    table(
        REF,
        BOTH,
        &[
            ("a weekend ago", "a weekend ago", "2026-06-27", "2026-06-28"),
            ("two weekends ago", "two weekends ago", "2026-06-20", "2026-06-21"),
            ("three weekends ago", "three weekends ago", "2026-06-13", "2026-06-14"),
            ("a fortnight ago", "a fortnight ago", "2026-06-15", "2026-06-21"),
            ("two fortnights ago", "two fortnights ago", "2026-06-01", "2026-06-07"),
            ("in the past fortnight", "the past fortnight", "2026-06-16", "2026-06-30"),
            ("over the last fortnight", "the last fortnight", "2026-06-16", "2026-06-30"),
            ("a few days ago", "a few days ago", "2026-06-24", "2026-06-28"),
            ("several days ago", "several days ago", "2026-06-24", "2026-06-28"),
            ("a few weeks ago", "a few weeks ago", "2026-06-01", "2026-06-21"),
            ("in the past few days", "the past few days", "2026-06-26", "2026-06-30"),
            ("over the last few days", "the last few days", "2026-06-26", "2026-06-30"),
            ("these past few days", "these past few days", "2026-06-26", "2026-06-30"),
            ("the past several days", "the past several days", "2026-06-26", "2026-06-30"),
            ("over the past few weeks", "the past few weeks", "2026-06-09", "2026-06-30"),
            ("I saw her the other day", "the other day", "2026-06-23", "2026-06-29"),
            ("we met the other week", "the other week", "2026-06-15", "2026-06-21"),
        ],
    );
    // 2025-01-02 is a Thursday; the last weekend was 28–29 December.
    table(
        JAN,
        BOTH,
        &[
            ("two weekends ago", "two weekends ago", "2024-12-21", "2024-12-22"),
            ("a fortnight ago", "a fortnight ago", "2024-12-16", "2024-12-22"),
            ("a few days ago", "a few days ago", "2024-12-27", "2024-12-31"),
            ("a few weeks ago", "a few weeks ago", "2024-12-02", "2024-12-22"),
            ("the past fortnight", "the past fortnight", "2024-12-19", "2025-01-02"),
            ("the past few days", "the past few days", "2024-12-29", "2025-01-02"),
            ("the past few weeks", "the past few weeks", "2024-12-12", "2025-01-02"),
            ("the other day", "the other day", "2024-12-26", "2025-01-01"),
        ],
    );
    // On a Sunday, "a weekend ago" is the one before, as "last weekend" is.
    let sunday = crate::d("2026-06-28");
    table(
        sunday,
        BOTH,
        &[
            ("a weekend ago", "a weekend ago", "2026-06-20", "2026-06-21"),
            ("two weekends ago", "two weekends ago", "2026-06-13", "2026-06-14"),
        ],
    );
}

#[test]
fn quarters_without_a_year() {
    table(
        REF,
        BOTH,
        &[
            ("the first quarter", "the first quarter", "2026-01-01", "2026-03-31"),
            ("the second quarter", "the second quarter", "2026-04-01", "2026-06-30"),
            ("the third quarter", "the third quarter", "2025-07-01", "2025-09-30"),
            ("in the fourth quarter", "the fourth quarter", "2025-10-01", "2025-12-31"),
            ("first quarter results", "first quarter", "2026-01-01", "2026-03-31"),
            ("what will we ship in the third quarter?", "the third quarter", "2026-07-01", "2026-09-30"),
            ("the first quarter of the year", "the first quarter of the year", "2026-01-01", "2026-03-31"),
        ],
    );
    table(
        JAN,
        BOTH,
        &[
            ("the first quarter", "the first quarter", "2025-01-01", "2025-03-31"),
            ("the fourth quarter", "the fourth quarter", "2024-10-01", "2024-12-31"),
        ],
    );
}

#[test]
fn parts_of_the_reference_year() {
    table(
        REF,
        BOTH,
        &[
            ("the start of the year", "the start of the year", "2026-01-01", "2026-04-30"),
            ("the beginning of the year", "the beginning of the year", "2026-01-01", "2026-04-30"),
            ("the middle of the year", "the middle of the year", "2026-05-01", "2026-08-31"),
            ("by the end of the year", "the end of the year", "2026-09-01", "2026-12-31"),
            ("early this year", "early this year", "2026-01-01", "2026-04-30"),
            ("late last year", "late last year", "2025-09-01", "2025-12-31"),
            ("the first half of the year", "the first half of the year", "2026-01-01", "2026-06-30"),
            ("the second half of the year", "the second half of the year", "2026-07-01", "2026-12-31"),
            ("the last week of the year", "the last week of the year", "2026-12-25", "2026-12-31"),
            ("the end of the year 2024", "the end of the year 2024", "2024-09-01", "2024-12-31"),
        ],
    );
    table(
        JAN,
        BOTH,
        &[
            ("the end of the year", "the end of the year", "2025-09-01", "2025-12-31"),
            ("late last year", "late last year", "2024-09-01", "2024-12-31"),
        ],
    );
}

#[test]
fn months_seasons_and_holidays_with_a_relative_year() {
    table(
        REF,
        BOTH,
        &[
            ("in March last year", "March last year", "2025-03-01", "2025-03-31"),
            ("March of next year", "March of next year", "2027-03-01", "2027-03-31"),
            ("in May this year", "May this year", "2026-05-01", "2026-05-31"),
            ("December last year", "December last year", "2025-12-01", "2025-12-31"),
            ("early March last year", "early March last year", "2025-03-01", "2025-03-10"),
            ("summer last year", "summer last year", "2025-06-01", "2025-08-31"),
            ("in the spring next year", "the spring next year", "2027-03-01", "2027-05-31"),
            ("winter last year", "winter last year", "2025-12-01", "2026-02-28"),
            ("Christmas last year", "Christmas last year", "2025-12-25", "2025-12-25"),
            ("Easter this year", "Easter this year", "2026-04-05", "2026-04-05"),
        ],
    );
    table(
        JAN,
        BOTH,
        &[
            ("in March last year", "March last year", "2024-03-01", "2024-03-31"),
            ("December last year", "December last year", "2024-12-01", "2024-12-31"),
        ],
    );
    // The year first, then what in it: one range, not the year and a month of another.
    table(
        REF,
        BOTH,
        &[
            ("what did I do last year in March?", "last year in March", "2025-03-01", "2025-03-31"),
            ("last year, during the summer", "last year, during the summer", "2025-06-01", "2025-08-31"),
            ("last year at Christmas", "last year at Christmas", "2025-12-25", "2025-12-25"),
            ("this year in early May", "this year in early May", "2026-05-01", "2026-05-10"),
            ("in 2024 in mid-March", "2024 in mid-March", "2024-03-11", "2024-03-20"),
            ("next year over Easter", "next year over Easter", "2027-03-28", "2027-03-28"),
        ],
    );
    let spans = |p| found(p, REF, BOTH).into_iter().map(|f| f.0).collect::<Vec<_>>();
    // A month of another year is its own range; a prompt about the future does not move the year.
    assert_eq!(spans("last year in March 2024"), ["last year", "March 2024"]);
    assert_eq!(spans("what will we do next year in August?"), ["next year in August"]);
    // A verb before "last year" stays a verb: only "last year" is read.
    assert_eq!(spans("it may last year after year"), ["last year"]);
    assert_eq!(spans("will prices fall this year?"), ["this year"]);
}

#[test]
fn observances() {
    table(
        REF,
        &[Us],
        &[
            ("Valentine's Day", "Valentine's Day", "2026-02-14", "2026-02-14"),
            ("valentines day 2025", "valentines day 2025", "2025-02-14", "2025-02-14"),
            ("St Patrick's Day", "St Patrick's Day", "2026-03-17", "2026-03-17"),
            ("St. Patrick's Day", "St. Patrick's Day", "2026-03-17", "2026-03-17"),
            ("Saint Patrick’s Day", "Saint Patrick’s Day", "2026-03-17", "2026-03-17"),
            ("Mother's Day", "Mother's Day", "2026-05-10", "2026-05-10"),
            ("for mothers day 2025", "mothers day 2025", "2025-05-11", "2025-05-11"),
            ("Father's Day", "Father's Day", "2026-06-21", "2026-06-21"),
            ("Father’s Day 2024", "Father’s Day 2024", "2024-06-16", "2024-06-16"),
            ("Halloween", "Halloween", "2025-10-31", "2025-10-31"),
            ("Halloween 2024", "Halloween 2024", "2024-10-31", "2024-10-31"),
            ("last Halloween", "last Halloween", "2025-10-31", "2025-10-31"),
            ("the day after Halloween", "the day after Halloween", "2025-11-01", "2025-11-01"),
            // 31 October 2025 is a Friday.
            ("Halloween weekend", "Halloween weekend", "2025-10-31", "2025-11-02"),
            ("the weekend of Mother's Day", "the weekend of Mother's Day", "2026-05-09", "2026-05-10"),
            ("what will we do for Halloween?", "Halloween", "2026-10-31", "2026-10-31"),
            ("Christmas Eve", "Christmas Eve", "2025-12-24", "2025-12-24"),
            ("New Year's Eve", "New Year's Eve", "2025-12-31", "2025-12-31"),
        ],
    );
    table(
        REF,
        &[Uk],
        &[
            // Mothering Sunday is three weeks before Easter Sunday (5 April 2026).
            ("Mother's Day", "Mother's Day", "2026-03-15", "2026-03-15"),
            ("Mothering Sunday", "Mothering Sunday", "2026-03-15", "2026-03-15"),
            ("Mothering Sunday 2025", "Mothering Sunday 2025", "2025-03-30", "2025-03-30"),
            ("Mothering Sunday 2027", "Mothering Sunday 2027", "2027-03-07", "2027-03-07"),
            ("Father's Day", "Father's Day", "2026-06-21", "2026-06-21"),
            ("Bonfire Night", "Bonfire Night", "2025-11-05", "2025-11-05"),
            ("Guy Fawkes Night 2024", "Guy Fawkes Night 2024", "2024-11-05", "2024-11-05"),
            // The second Sunday of November.
            ("Remembrance Sunday", "Remembrance Sunday", "2025-11-09", "2025-11-09"),
            ("Remembrance Sunday 2024", "Remembrance Sunday 2024", "2024-11-10", "2024-11-10"),
            ("Valentine's Day", "Valentine's Day", "2026-02-14", "2026-02-14"),
            ("Halloween", "Halloween", "2025-10-31", "2025-10-31"),
        ],
    );
    // Easter's moveable days before it (Easter Sunday 2026 is 5 April, 2025's 20 April).
    table(
        REF,
        BOTH,
        &[
            ("Shrove Tuesday", "Shrove Tuesday", "2026-02-17", "2026-02-17"),
            ("on Pancake Day", "Pancake Day", "2026-02-17", "2026-02-17"),
            ("Pancake Day 2025", "Pancake Day 2025", "2025-03-04", "2025-03-04"),
            ("Ash Wednesday", "Ash Wednesday", "2026-02-18", "2026-02-18"),
            ("Palm Sunday", "Palm Sunday", "2026-03-29", "2026-03-29"),
            ("Maundy Thursday 2025", "Maundy Thursday 2025", "2025-04-17", "2025-04-17"),
        ],
    );
    // "ash" and "palm" alone are words: the weekday after them is a weekday.
    assert_eq!(found("ash on Wednesday", REF, BOTH)[0].0, "Wednesday");
    assert!(found("Remembrance Sunday", REF, &[Us]).is_empty());
    // With both locales "Mother's Day" is the US one; "Mothering Sunday" the UK one.
    table(
        REF,
        BOTH,
        &[
            ("Mother's Day", "Mother's Day", "2026-05-10", "2026-05-10"),
            ("Mothering Sunday", "Mothering Sunday", "2026-03-15", "2026-03-15"),
        ],
    );
    table(
        JAN,
        BOTH,
        &[
            ("Valentine's Day", "Valentine's Day", "2024-02-14", "2024-02-14"),
            ("Halloween", "Halloween", "2024-10-31", "2024-10-31"),
            ("St Patrick's Day", "St Patrick's Day", "2024-03-17", "2024-03-17"),
        ],
    );
    // Another locale's observance is consumed and resolves to nothing ("Sunday" is not read).
    assert!(found("Bonfire Night", REF, &[Us]).is_empty());
    assert!(found("Mothering Sunday", REF, &[Us]).is_empty());
}

#[test]
fn ranges_between_holidays() {
    table(
        REF,
        BOTH,
        &[
            ("between Christmas and New Year", "between Christmas and New Year", "2025-12-25", "2026-01-01"),
            (
                "between Christmas and New Year's Day",
                "between Christmas and New Year's Day",
                "2025-12-25",
                "2026-01-01",
            ),
            ("from christmas to new year", "from christmas to new year", "2025-12-25", "2026-01-01"),
            (
                "between Christmas and New Year 2027",
                "between Christmas and New Year 2027",
                "2026-12-25",
                "2027-01-01",
            ),
            (
                "between Halloween and Bonfire Night",
                "between Halloween and Bonfire Night",
                "2025-10-31",
                "2025-11-05",
            ),
        ],
    );
    table(
        JAN,
        BOTH,
        &[("between Christmas and New Year", "between Christmas and New Year", "2024-12-25", "2025-01-01")],
    );
    // After Christmas, the range runs into the coming New Year.
    table(
        crate::d("2026-12-28"),
        BOTH,
        &[("between Christmas and New Year", "between Christmas and New Year", "2026-12-25", "2027-01-01")],
    );
}

/// A day before or after another keeps that other day as its anchor; other forms have none.
#[test]
fn a_day_counted_from_another_keeps_it_as_its_anchor() {
    let anchor_of = |prompt: &str| {
        let found = cairn_dates::resolve(prompt, REF, BOTH);
        assert_eq!(found.len(), 1, "{prompt}: {found:?}");
        found[0].anchor.map(|d| d.to_string())
    };
    for (prompt, anchor) in [
        ("what did we do on the Sunday before October 25, 2022?", Some("2022-10-25")),
        ("the day after Christmas", Some("2025-12-25")),
        ("two weeks before August 11, 2023", Some("2023-08-11")),
        ("the week before 16 November 2023", Some("2023-11-16")),
        ("the weekend after Thanksgiving", Some("2025-11-27")),
        ("the weekend of March 14", None),
        ("the week of March 9", None),
        ("on March 12", None),
        ("last week", None),
    ] {
        assert_eq!(anchor_of(prompt).as_deref(), anchor, "{prompt}");
    }
}

#[test]
fn other_ways_of_saying_it() {
    table(
        REF,
        BOTH,
        &[
            (
                "what happened in the final week of March?",
                "the final week of March",
                "2026-03-25",
                "2026-03-31",
            ),
            (
                "what did I do on the final day of April?",
                "the final day of April",
                "2026-04-30",
                "2026-04-30",
            ),
            (
                "what happened in the first few days of April?",
                "the first few days of April",
                "2026-04-01",
                "2026-04-07",
            ),
            (
                "what happened over the last days of April?",
                "the last days of April",
                "2026-04-24",
                "2026-04-30",
            ),
            (
                "what happened in the latter half of April?",
                "the latter half of April",
                "2026-04-16",
                "2026-04-30",
            ),
            ("what happened the Friday before last?", "the Friday before last", "2026-06-19", "2026-06-19"),
            ("what did I do Friday before last?", "Friday before last", "2026-06-19", "2026-06-19"),
            (
                "what happened between the 3rd and 10th of March?",
                "between the 3rd and 10th of March",
                "2026-03-03",
                "2026-03-10",
            ),
            (
                "what happened on the 7th and 8th of March?",
                "the 7th and 8th of March",
                "2026-03-07",
                "2026-03-08",
            ),
            (
                "what happened on the 12th of last month?",
                "the 12th of last month",
                "2026-05-12",
                "2026-05-12",
            ),
            ("due on the 3rd of next month", "the 3rd of next month", "2026-07-03", "2026-07-03"),
            ("what happened on 12.03.2026?", "12.03.2026", "2026-03-12", "2026-03-12"),
            ("what happened over the weekend?", "the weekend", "2026-06-27", "2026-06-28"),
            ("what did I do at the weekend?", "the weekend", "2026-06-27", "2026-06-28"),
            ("what happened on the weekend?", "the weekend", "2026-06-27", "2026-06-28"),
            ("what will we do over the weekend?", "the weekend", "2026-07-04", "2026-07-05"),
            ("what did I do over Christmas break?", "Christmas break", "2025-12-24", "2026-01-01"),
            ("what happened over the holidays?", "the holidays", "2025-12-24", "2026-01-01"),
            ("what happened Christmas week?", "Christmas week", "2025-12-22", "2025-12-28"),
            ("what did I do over the Easter holidays?", "Easter holidays", "2026-04-03", "2026-04-06"),
            ("what did I do on Black Friday?", "Black Friday", "2025-11-28", "2025-11-28"),
            ("what did I do over New Year?", "New Year", "2026-01-01", "2026-01-01"),
            ("what happened at the end of the month?", "the end of the month", "2026-06-21", "2026-06-30"),
            (
                "what happened at the beginning of the month?",
                "the beginning of the month",
                "2026-06-01",
                "2026-06-10",
            ),
            (
                "what happened on the last day of the month?",
                "the last day of the month",
                "2026-06-30",
                "2026-06-30",
            ),
            (
                "what happened in the first fortnight of March?",
                "the first fortnight of March",
                "2026-03-01",
                "2026-03-15",
            ),
            (
                "what happened in the second fortnight of March?",
                "the second fortnight of March",
                "2026-03-16",
                "2026-03-31",
            ),
            (
                "what happened the week commencing 9 March?",
                "the week commencing 9 March",
                "2026-03-09",
                "2026-03-15",
            ),
            (
                "what happened in the week beginning March 9th?",
                "the week beginning March 9th",
                "2026-03-09",
                "2026-03-15",
            ),
            (
                "what happened in the week ending March 15th?",
                "the week ending March 15th",
                "2026-03-09",
                "2026-03-15",
            ),
        ],
    );
    // "The month" is the reference month once the part named has begun, else the month before; about
    // the future, the reference month until the part is over, else the next.
    table(
        d("2026-06-05"),
        BOTH,
        &[("what happened at the end of the month?", "the end of the month", "2026-05-21", "2026-05-31")],
    );
    table(
        d("2026-06-05"),
        BOTH,
        &[("what will we do at the end of the month?", "the end of the month", "2026-06-21", "2026-06-30")],
    );
    table(
        d("2026-06-25"),
        BOTH,
        &[(
            "what will we do at the start of the month?",
            "the start of the month",
            "2026-07-01",
            "2026-07-10",
        )],
    );
}

#[test]
fn a_holiday_named_by_kind() {
    table(
        REF,
        &[Uk],
        &[
            // The spring bank holiday, Monday 25 May 2026.
            ("what did I do on the bank holiday?", "the bank holiday", "2026-05-25", "2026-05-25"),
            (
                "what did I do over the bank holiday weekend?",
                "the bank holiday weekend",
                "2026-05-23",
                "2026-05-25",
            ),
            ("what did I do on the last bank holiday?", "the last bank holiday", "2026-05-25", "2026-05-25"),
            ("what will I do on the next bank holiday?", "the next bank holiday", "2026-08-31", "2026-08-31"),
            ("what did I do over the long weekend?", "the long weekend", "2026-05-23", "2026-05-25"),
            (
                "what did I do on the first May bank holiday?",
                "first May bank holiday",
                "2026-05-04",
                "2026-05-04",
            ),
            (
                "what did I do on the second May bank holiday?",
                "second May bank holiday",
                "2026-05-25",
                "2026-05-25",
            ),
            (
                "what did I do on the Whitsun bank holiday?",
                "Whitsun bank holiday",
                "2026-05-25",
                "2026-05-25",
            ),
            ("what did I do on Whit Monday?", "Whit Monday", "2026-05-25", "2026-05-25"),
        ],
    );
    // Easter Monday: the bank holiday weekend is the Easter weekend.
    table(
        d("2026-04-08"),
        &[Uk],
        &[(
            "what did I do over the bank holiday weekend?",
            "the bank holiday weekend",
            "2026-04-03",
            "2026-04-06",
        )],
    );
    table(
        REF,
        &[Us],
        &[
            // Juneteenth, Friday 19 June 2026.
            ("what did I do over the long weekend?", "the long weekend", "2026-06-19", "2026-06-21"),
            ("what happened over the holiday weekend?", "the holiday weekend", "2026-06-19", "2026-06-21"),
            // Independence Day falls on a Saturday in 2026 and is observed on Friday 3 July.
            ("what will we do over the long weekend?", "the long weekend", "2026-07-03", "2026-07-05"),
        ],
    );
    // England's bank holidays only: consumed, resolving to nothing, with only the US configured.
    assert!(found("what did I do on the bank holiday?", REF, &[Us]).is_empty());
    for p in ["what do I usually do at the weekend?", "is a bank holiday coming?", "a long weekend away"] {
        assert!(found(p, REF, BOTH).is_empty(), "{p}");
    }
}

#[test]
fn the_same_time_a_unit_back() {
    table(
        d("2025-05-30"),
        BOTH,
        &[
            ("what was I doing this time last year?", "this time last year", "2024-05-23", "2024-06-06"),
            (
                "what happened at the same time last year?",
                "the same time last year",
                "2024-05-23",
                "2024-06-06",
            ),
            (
                "what happened around this time last month?",
                "this time last month",
                "2025-04-27",
                "2025-05-03",
            ),
            ("what did I do this time last week?", "this time last week", "2025-05-23", "2025-05-23"),
            ("what did I do this day last year?", "this day last year", "2024-05-30", "2024-05-30"),
            ("what happened the same day last month?", "the same day last month", "2025-04-30", "2025-04-30"),
            ("what happened the same week last year?", "the same week last year", "2024-05-27", "2024-06-02"),
            (
                "what happened the same month last year?",
                "the same month last year",
                "2024-05-01",
                "2024-05-31",
            ),
            (
                "what did I do in the opening week of March?",
                "the opening week of March",
                "2025-03-01",
                "2025-03-07",
            ),
            (
                "what happened in the closing week of April?",
                "the closing week of April",
                "2025-04-24",
                "2025-04-30",
            ),
            (
                "what did I do in the opening days of May?",
                "the opening days of May",
                "2025-05-01",
                "2025-05-07",
            ),
        ],
    );
}

#[test]
fn iso_week_numbers() {
    // REF is Tuesday 2026-06-30, in ISO week 27 of 2026 (Monday 2026-06-29).
    table(
        REF,
        BOTH,
        &[
            ("what did I do in week 11?", "week 11", "2026-03-09", "2026-03-15"),
            ("notes from ISO week 11", "ISO week 11", "2026-03-09", "2026-03-15"),
            ("week 11 of 2025", "week 11 of 2025", "2025-03-10", "2025-03-16"),
            ("in week 11, 2025", "week 11, 2025", "2025-03-10", "2025-03-16"),
            ("in week 11 2025", "week 11 2025", "2025-03-10", "2025-03-16"),
            ("the 2026-W11 report", "2026-W11", "2026-03-09", "2026-03-15"),
            ("the 2026-W01 report", "2026-W01", "2025-12-29", "2026-01-04"),
            ("2020-W53 was odd", "2020-W53", "2020-12-28", "2021-01-03"),
            ("what happened in W11 2025?", "W11 2025", "2025-03-10", "2025-03-16"),
            ("the 11th week of 2025", "the 11th week of 2025", "2025-03-10", "2025-03-16"),
            ("the eleventh week of the year", "the eleventh week of the year", "2026-03-09", "2026-03-15"),
            ("week 27 of this year", "week 27 of this year", "2026-06-29", "2026-07-05"),
            // Not yet begun this year: last year's.
            ("what did we ship in week 30?", "week 30", "2025-07-21", "2025-07-27"),
            // About the future: the next one.
            ("what will we do in week 30?", "week 30", "2026-07-20", "2026-07-26"),
        ],
    );
}

#[test]
fn year_less_numeric_dates_where_a_date_is_expected() {
    table(REF, &[Us], &[("what happened on 3/12?", "3/12", "2026-03-12", "2026-03-12")]);
    table(REF, &[Uk], &[("what happened on 3/12?", "3/12", "2025-12-03", "2025-12-03")]);
    table(REF, &[Uk], &[("is it due by 12/3?", "12/3", "2026-03-12", "2026-03-12")]);
    table(REF, &[Us], &[("what did I do Tue 3/10?", "3/10", "2026-03-10", "2026-03-10")]);
    // Only one reading is a date, or both readings agree: read with both locales too.
    table(REF, BOTH, &[("since 25/12", "since 25/12", "2025-12-25", "2026-06-30")]);
    table(REF, BOTH, &[("what about on 4/4?", "4/4", "2026-04-04", "2026-04-04")]);
    assert!(found("what happened on 3/12?", REF, BOTH).is_empty(), "ambiguous with both locales");
    for prompt in ["add 3/4 cup of flour", "on 3/4 of the days", "support on 24/7", "on 1/2/3", "score 3/12"]
    {
        assert!(found(prompt, REF, &[Us]).is_empty(), "{prompt}: {:?}", found(prompt, REF, &[Us]));
    }
}
