//! Properties over arbitrary prompts: no panic, well-formed ranges, linear time.

use std::time::{Duration, Instant};

use cairn_dates::{Locale, resolve};
use jiff::civil::Date;
use proptest::prelude::*;

use crate::REF;

/// Words the scanner knows, to make arbitrary prompts dense with near-misses.
const VOCAB: &[&str] = &[
    "the",
    "of",
    "in",
    "last",
    "this",
    "next",
    "past",
    "since",
    "early",
    "mid",
    "-",
    "late",
    "end",
    "start",
    "first",
    "second",
    "week",
    "weeks",
    "weekend",
    "day",
    "days",
    "month",
    "year",
    "ago",
    "a",
    "couple",
    "March",
    "may",
    "Feb",
    "Sept.",
    "Tuesday",
    "Sun",
    "12th",
    "3",
    "31",
    "29",
    "2026",
    "1999",
    "/",
    ",",
    ".",
    ":",
    "Christmas",
    "Easter",
    "Good",
    "Friday",
    "bank",
    "holiday",
    "New",
    "Year's",
    "Eve",
    "Q1",
    "quarter",
    "half",
    "before",
    "after",
    "yesterday",
    "today",
    "twenty",
    "first",
    "0",
    "99999",
    "’s",
    "few",
    "several",
    "other",
    "these",
    "fortnight",
    "weekends",
    "St",
    "Patrick's",
    "Mother's",
    "Mothering",
    "Sunday",
    "Halloween",
    "my",
    "Monday",
    "third",
    "night",
];

fn check(prompt: &str, reference: Date) {
    let found = resolve(prompt, reference, &Locale::ALL);
    let mut last_end = 0;
    for r in &found {
        assert!(r.start <= r.end, "{r:?}");
        assert!(r.span.start < r.span.end && r.span.end <= prompt.len(), "{r:?}");
        assert!(r.span.start >= last_end, "overlap at {r:?}");
        assert_eq!(prompt.get(r.span.clone()), Some(r.phrase.as_str()));
        last_end = r.span.end;
    }
}

fn reference() -> impl Strategy<Value = Date> {
    (-9999i16..=9999, 1i8..=12, 1i8..=28).prop_map(|(y, m, d)| Date::new(y, m, d).unwrap())
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(prompt in any::<String>(), reference in reference()) {
        check(&prompt, reference);
    }

    #[test]
    fn vocabulary_soup_is_well_formed(words in prop::collection::vec(prop::sample::select(VOCAB), 0..40),
                                      glue in prop::collection::vec(prop::sample::select(&[" ", "", "-", "  "][..]), 40),
                                      reference in reference()) {
        let prompt: String = words.iter().zip(&glue).flat_map(|(w, g)| [*w, *g]).collect();
        check(&prompt, reference);
        check(&prompt, REF);
    }
}

/// 64 KiB of prompt, dense with date words or with none, is scanned in linear time: well under the
/// generous bound even in an unoptimised build.
#[test]
fn time_is_linear_in_the_prompt() {
    let fillers = [
        "the end of the first week of March since the day after Christmas 2025, ",
        "the the the the of of in in last last first second week ",
        "12/03/2026-2026-03-12 3 days ago mid-May ",
        "no dates here, only words about the project and its plans ",
        "a a a a a a a a a a a a a a a a a a a a a a ",
        "the Monday after the Friday before two days after a few weeks ago between Christmas and New Year ",
    ];
    for filler in fillers {
        let prompt = filler.repeat(64 * 1024 / filler.len() + 1);
        let started = Instant::now();
        let found = resolve(&prompt, REF, &Locale::ALL);
        let took = started.elapsed();
        assert!(took < Duration::from_millis(250), "{took:?} for {filler:?} ({} found)", found.len());
        // Twice the text takes about twice the time, not four times.
        let double = prompt.repeat(2);
        let started = Instant::now();
        resolve(&double, REF, &Locale::ALL);
        let took_double = started.elapsed();
        assert!(
            took_double < took * 4 + Duration::from_millis(20),
            "{took:?} then {took_double:?} for {filler:?}"
        );
    }
}
