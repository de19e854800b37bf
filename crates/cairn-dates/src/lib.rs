//! Date expressions in a free-form prompt, each resolved to an inclusive range of calendar days
//! against a reference day.
//!
//! ```
//! use cairn_dates::{Locale, resolve};
//! use jiff::civil::date;
//!
//! let found = resolve("what did we decide mid-March about the launch?", date(2026, 6, 30), &[Locale::Us]);
//! assert_eq!(found[0].phrase, "mid-March");
//! assert_eq!((found[0].start, found[0].end), (date(2026, 3, 11), date(2026, 3, 20)));
//! ```
//!
//! Pure and deterministic: no I/O and no clock (the caller passes the reference day, usually today).
//! One pass splits the prompt into words, numbers and punctuation (each word classified by one table
//! look-up); the scan then tries every form at each token that could open one, keeps the longest
//! match, and resumes after it. No form nests inside itself, so the cost is linear in the prompt.
//!
//! # Forms
//!
//! Case and apostrophes do not matter ("new years day", "Presidents’ Day"); month and weekday
//! abbreviations ("Mar", "Sept", "Tue"), ordinals ("12th", "third", "twenty-first") and hyphens or
//! dashes ("mid-March", "March 3–5") are read.
//!
//! - **Dates**: `2026-03-12`, `2026/03/12`, `12 March 2026`, `March 12, 2026`, `March 12th 2026`,
//!   `12th of March`, `the fourth of July`, `March the 12th`, with or without a weekday before them
//!   (`Tuesday 3 March`, `on Tuesday, March 3rd`: the date wins, the weekday is not checked).
//!   `the 12th` alone (no word after it, so not "the 3rd floor") is that day of the reference month,
//!   or of the month before if it is still ahead; `the 12th of last month`, `the 3rd of next month`;
//!   after a weekday (`Monday the 9th`, `Fri, the 13th`) the latest such day that falls on it.
//!   An impossible day ("31 February 2026") leaves the month.
//! - **Numeric day/month**: `12/03/2026` reads as day/month when only [`Locale::Uk`] is configured, as
//!   month/day when only [`Locale::Us`] is; with both (or neither) only when one reading is impossible
//!   (`25/12/2026`) or both agree. Dotted with a four-digit year (`12.03.2026`) is day, month, year in
//!   every locale. Without a year (`3/12`, a fraction as often as a date) only where a date is
//!   expected: after "on", "by", "since", "until", "from", "before", "after" or a weekday ("on 3/12",
//!   "Tue 3/12"; not "3/4 cup", "on 3/4 of the days", "24/7"), read by the same locale rule, its
//!   year that of the latest occurrence. Two-digit years are not read.
//! - **Weeks by number** (ISO 8601, Monday to Sunday, week 1 holding the year's first Thursday):
//!   `week 11`, `ISO week 11`, `week 11 of 2026`, `week 11, 2026`, `2026-W11`, `W11 2026`, `the
//!   11th week of 2026`, `the eleventh week of the year`; a week without a year like a month without
//!   one. Not `week 3 of the course`, `a week 2 people were off`, nor `W11` alone.
//! - **Months, seasons, years**: `March`, `March 2026`, `2026-03`, `last month`, `this month`, `last
//!   March`, `summer 2025`, `last summer`, `in the fall` (meteorological northern seasons: spring is
//!   March–May, summer June–August, autumn or fall September–November, winter December–February,
//!   named by the year it starts in; `this winter` is the one under way, else this year's, but in a
//!   prompt about the past, "did", "was", one not yet begun is the one before), `March last year`,
//!   `last year in March` (and `this year in early May`, `2024, during the summer`, `next year over
//!   Easter`: a part of the year named after it), `summer of next year`, `in 2026`, `the year 2026`,
//!   `last year`, `this year`, `Q1 2026`, `Q3` and `the third quarter` (without a year, like a
//!   month), `last quarter`. A four-digit number alone is not a year: it needs a word such as "in",
//!   "during", "since", "of" before it (and then reads as a year only from 1900 to 2199).
//! - **Parts of a period**: `early/mid/late March` (days 1–10, 11–20, 21–end; for a year
//!   January–April, May–August, September–December; for a season its first, second, third month),
//!   `the beginning/start/middle/end of March`, `the first/second/third/fourth/last week of March`
//!   (days 1–7, 8–14, 15–21, 22–28, the last seven), `the first/second half of March` (1–15, 16–end),
//!   `the first/last day of March`, `the first/last weekend of March` (the first or last Saturday in
//!   the month and the Sunday after it), `the first Monday of March`, `the third quarter of 2025`,
//!   `the first few days of April` and `the last days of April` (its first or last seven), `the
//!   second fortnight of March` (its second half). "First" may be "opening" (`the opening week of
//!   March`), "last" "final" or "closing" (`the final week of March`), and "second half" "latter half". `the year` there is the reference year: `the end of the year`,
//!   `the first half of the year`; `the month` the reference month once the part named has begun,
//!   else the month before (about the future, the reference month until the part is over, else the
//!   next): `the end of the month`, `the last day of the month`.
//! - **Counted from the reference day**: `today`, `tonight`, `this morning`, `yesterday`, `last
//!   night`, `tomorrow`, `the day before yesterday`, `three days ago` (that day), `two weeks ago`
//!   (that Monday–Sunday week), `a fortnight ago` (the week 14 days back), `a month ago` (that
//!   month), `two years ago` (that year), `two weekends ago` (last weekend, a week earlier), `a few
//!   days ago` and `several days ago` (six to two days back), `a few weeks ago` (the Monday four
//!   weeks back to the Sunday two weeks back), `the other day` (the seven days before), `the other
//!   week` (the week before last), `last week` and `this week` (Monday–Sunday), `the week before
//!   last`, `the Friday before last`, `the month before last`, `the year before last`, `last weekend` (the latest Saturday–Sunday that ended before
//!   the reference day; also `over`, `at` or `on the weekend`, which in a prompt about the future is
//!   the coming one and in one about habits, "usually", nothing), `this weekend` (the Saturday–Sunday of the reference week), `last Tuesday`, `Tuesday`, `on Tuesday`
//!   (the latest Tuesday strictly before the reference day: the reference day itself would be
//!   "today"), `this Tuesday` (in the reference week), `Tuesday last week`, and windows ending on
//!   the reference day: `the past week`, `the last 3 days`, `the past month`, `the past fortnight`
//!   (14 days back), `the past few days` and `these past few days` (4 days back), `the past few
//!   weeks` (21 days back). `this time last year` (a week either side of the day a year back), `this
//!   time last month` (three days either side), `this time last week` (the day), `this day last
//!   year`, `the same week last year`, `the same month last year`, `the same day last month`.
//!   `since <any form>` runs from its start to the reference day.
//! - **Holidays** of the configured locales (see [`holidays`]): `Thanksgiving`, `MLK day`, `Fourth
//!   of July`, `Memorial Day 2025`, `last Christmas`, `Christmas last year`, `Boxing Day`, `the
//!   August bank holiday`, `Easter`; and observances, read the same way: `Valentine's Day`, `St
//!   Patrick's Day`, `Mother's Day` (US: second Sunday of May; with only the UK, or `Mothering
//!   Sunday`: three weeks before Easter), `Father's Day` (third Sunday of June), `Halloween`,
//!   `Bonfire Night` or `Guy Fawkes Night` and `Remembrance Sunday` (UK: second Sunday of November),
//!   `Shrove Tuesday` or `Pancake Day`, `Ash Wednesday`, `Palm Sunday`, `Maundy Thursday` (47, 46, 7
//!   and 3 days before Easter Sunday). `Easter weekend` is Good Friday to Easter Monday;
//!   `<holiday> weekend` and `the weekend of <holiday>` otherwise the nearest Saturday–Sunday
//!   stretched to take in the holiday and the day it is observed (Labor Day weekend:
//!   Saturday–Monday); `the day after <holiday>`; `Christmas week` (its Monday–Sunday week);
//!   `the Christmas holidays` or `break` (Christmas Eve to New Year's Day, as is `over the
//!   holidays`), `the Easter holidays` (the Easter weekend); `Black Friday` (the day after US
//!   Thanksgiving, in both locales); `over New Year`; `the first May bank holiday` (Early May), `the
//!   second May bank holiday`, `Whitsun` and `Whit Monday` (the spring bank holiday that replaced it). A public holiday named by its kind is the
//!   latest on or before the reference day (the next, about the future or after "next"): `the bank
//!   holiday`, `the last bank holiday`, `the bank holiday weekend` (England and Wales), `the long
//!   weekend` and `the holiday weekend` (the weekend of one observed on a Monday, Thursday or
//!   Friday). A holiday of a locale that is not configured
//!   resolves to nothing, its words consumed ("Good Friday" is never "Friday"). The range is the
//!   holiday itself, not its observed day off (which [`Holiday::observed`] gives).
//! - **Anchored on a day**: `the day after/before X`, `the Monday after/before X` (the first Monday
//!   strictly after or before it), `two days after X`, `a week before X` (X moved by that many days),
//!   `the weekend of/after/before X`, `the week of X`, `the week commencing/beginning/starting X` and
//!   `the week ending X` (the seven days from or to X), `X weekend`, where X is a date, a holiday,
//!   today, yesterday or tomorrow. Stretches next to X: `the run-up to X` (also `lead-up`,
//!   `build-up`: the fortnight before it), `the days after X` and `the few days before X` (four
//!   days), `a few days after X` (two to six days after, as `a few days ago` is two to six back),
//!   `the fortnight after X` (14 days), `the weeks before X` (21 days).
//! - **Ranges**: `between X and Y`, `from X to/until/through Y`, `March 3-5`, `3–5 March`, `the 7th
//!   and 8th of March`, `between the 3rd and 10th of March`, `March 3 to
//!   April 2, 2025`, `2026-03-01 – 2026-03-10`, `between Christmas and New Year` (a bare "New Year"
//!   is New Year's Day there). An end without a year takes it from the other end.
//! - A date, month, season, holiday or part of one **without a year** is its latest occurrence that
//!   starts on or before the reference day: on 2026-06-30, "March 12" is 2026-03-12 and "December 3"
//!   2025-12-03. In a prompt about the future ("what *will* we do in August?", "*we'll* see them at
//!   Christmas", "what's *planned* over the winter?"; not when it also speaks in the past: "what did I
//!   say I'd do in March?") it is the earliest occurrence that ends on or after the reference day, the
//!   one under way or the next: on 2026-06-30, August 2026, winter 2026–27, the summer of 2026.
//!
//! # Not dates
//!
//! "May" and "March" (verbs) and month abbreviations count only next to a day or year, after a
//! qualifier ("mid-", "the end of", "last"; after "this" only capitalised), or after "in", "during",
//! "since", "until", "from", "through", "of". Alone, "August" and a bare "Easter" need their capital
//! ("an august body", "easter eggs"); a season needs a year, a qualifier or a word such as "in" or
//! "over" ("spring cleaning" is not one); before "last/this/next year" they need a capital or such a
//! word ("it may last year after year", "will prices fall this year?" are verbs). "second" only
//! counts in a form ("the second week of March").
//! Bare numbers, times of day (`10:30`, `3pm`), decimals, versions, "recently" and "lately" are left
//! alone, as is anything relative to an event ("after the launch"): [`event_relative`] finds the
//! forms that name one ("the day after I got back from Lisbon"), whose dates only memory knows. "my mother's day off", "the
//! first quarter of the game" and "one week on, the other week off" are not dates either, nor is a weekday
//! that ends a name (a capitalised word the scanner does not know before it, not opening a sentence:
//! "Sheffield Wednesday", "Cyber Monday"). Other words
//! are taken at their word: "June" is the month even when it is a name, "Christmas tree" names
//! Christmas.

#![warn(missing_docs)]

mod absolute;
mod anchor;
mod calendar;
mod event;
mod holidays;
mod lexicon;
mod locale;
mod named;
mod period;
mod range;
mod relative;
mod scan;
mod tense;
mod token;
mod week;

use std::ops::Range;

use jiff::civil::Date;

pub use crate::event::{Edge, EventRelative, event_relative};
pub use crate::holidays::{Holiday, holidays};
pub use crate::locale::Locale;

/// A date expression found in a prompt, and the days it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DateRange {
    /// The first day named.
    pub start: Date,
    /// The last day named (inclusive); equal to `start` for a single day.
    pub end: Date,
    /// The expression as written in the prompt, e.g. "mid-March".
    pub phrase: String,
    /// Where the expression is in the prompt, in bytes.
    pub span: Range<usize>,
    /// The day the expression counts from when it names a day, week or weekend before or after
    /// another: October 25, 2022 in "the Sunday before October 25, 2022". What is written on that day
    /// may well tell of it ("last Sunday we…").
    pub anchor: Option<Date>,
}

impl DateRange {
    /// Whether `date` falls in the range.
    pub fn contains(&self, date: Date) -> bool {
        self.start <= date && date <= self.end
    }
}

/// Finds the date expressions in `prompt` and resolves each against `reference` (usually today).
/// `locales` decides which holidays are known and how `dd/mm/yyyy` reads. The ranges come in prompt
/// order and never overlap; where two readings compete, the longer one wins.
pub fn resolve(prompt: &str, reference: Date, locales: &[Locale]) -> Vec<DateRange> {
    let mut out = Vec::new();
    scan::scan(prompt, reference, locale::Locales::of(locales), |from, to, (start, end), anchor| {
        out.push(DateRange { start, end, phrase: prompt[from..to].to_owned(), span: from..to, anchor });
    });
    out
}
