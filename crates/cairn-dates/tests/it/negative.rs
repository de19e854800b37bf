//! Prompts with no date in them.

use cairn_dates::{Locale, resolve};

use crate::{JAN, REF};

#[test]
fn no_date_found() {
    let prompts = [
        "may I ask you something",
        "May I ask you something?",
        "you may want to check the logs",
        "we march on",
        "March on, soldiers",
        "they march together",
        "get a second opinion",
        "wait a second",
        "what is 2+2",
        "the 3 musketeers",
        "I have 12 apples and 2026 oranges",
        "2026",
        "call me at 10:30",
        "meet at 3pm",
        "section 2.3 of the spec",
        "the 3rd floor",
        "the 21st century",
        "what did we do recently?",
        "anything lately?",
        "an august body",
        "jan and dec are names",
        "first things first",
        "the second half of the match",
        "the end of the road",
        "last but not least",
        "in the past",
        "it is a good day",
        "new year resolutions",
        "the king's speech",
        "this is the end",
        "a day in the life",
        "week 3 of the course",
        "in week 3 of rehearsals",
        "a week 2 people were off",
        "weeks 3-4 of the plan",
        "week 60",
        "the 3rd week of rehearsals",
        "London W11 3QT",
        "I'll run up to the shop",
        "the build-up to the match",
        "lead up the stairs",
        "the days after that",
        "a few days before the move",
        "the weeks before it",
        "weeks of work",
        "spring cleaning",
        "summer reading list",
        "3/4 of the tests",
        "ids 1-2-2026-7",
        "this may take a while",
        "This march is long",
        "easter eggs in the code",
        "fix bug #12 in v2.3",
        "use python 3.12",
        "port 8080 on 127.0.0.1",
        "the 2024-25 season",
        "step 3 of 5",
        "on 12/05",
        "a 24/7 service",
        "in 5 minutes",
        "the last time we met",
        "this time it worked",
        "the same time as usual",
        "the opening of the new shop",
        "the closing date",
        "at the end of the day",
        "day after day",
        "in the middle of nowhere",
        "late to the party",
        "years ago",
        "from 1 to 10",
        "next steps",
        "memorial service",
        "labor costs",
        "",
        "   ",
        "ÀÉÎ 日本語 😀",
    ];
    for p in prompts {
        for reference in [REF, JAN] {
            let found = resolve(p, reference, &Locale::ALL);
            assert!(found.is_empty(), "{p:?} gave {found:?}");
        }
    }
}

#[test]
fn near_misses_of_observances_and_vague_counts() {
    let prompts = [
        "my mother's day off",
        "how was his father's day?",
        "in the fourth quarter of the game",
        "one week on, the other week off",
        "on the other hand",
        "the other side",
        "a few days",
        "these days",
        "several weeks of work",
        "we had two days before the deadline",
        "a guy at the bonfire",
        "St. Louis",
        "the year was hard",
    ];
    for p in prompts {
        for reference in [REF, JAN] {
            let found = resolve(p, reference, &Locale::ALL);
            assert!(found.is_empty(), "{p:?} gave {found:?}");
        }
    }
}

#[test]
fn a_weekday_ending_a_name_is_not_a_date() {
    for p in ["When did Sheffield Wednesday last win the FA Cup?", "is Cyber Monday worth waiting for?"] {
        let found = resolve(p, REF, &Locale::ALL);
        assert!(found.is_empty(), "{p:?} gave {found:?}");
    }
    // Black Friday, Shrove Tuesday and Ash Wednesday are days of their own (the day after
    // Thanksgiving; 47 and 46 days before Easter), never the last such weekday.
    for (p, day) in [
        ("are the Black Friday deals any good?", "2025-11-28"),
        ("what do people eat on Shrove Tuesday?", "2026-02-17"),
        ("the service on Ash Wednesday", "2026-02-18"),
    ] {
        let named = resolve(p, REF, &Locale::ALL);
        assert_eq!(
            named.iter().map(|r| (r.start.to_string(), r.end.to_string())).collect::<Vec<_>>(),
            [(day.to_owned(), day.to_owned())],
            "{p:?}"
        );
    }
    // A weekday after the first word of a sentence, or after a known word, is still one.
    for p in ["Tuesday?", "What did I do Tuesday?", "Done. Friday was busy.", "Wednesday last week"] {
        assert_eq!(resolve(p, REF, &Locale::ALL).len(), 1, "{p:?}");
    }
}
