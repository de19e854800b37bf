//! The days a chunk's text names. A note that is not itself dated still tells when things happened:
//! "Flu jab done at the pharmacy, 7 October 2024" in a health note, "Moved in on 2019-06-01" in
//! MEMORY.md. The index keeps each day a chunk names with its year ([`mentioned_days`]) in a fast
//! field of its own, and the date lane ranks a chunk that names a day in the query's range beside the
//! items dated in it, a little below them (`date.rs`): "when did I get my flu jab this autumn?" finds
//! the health note among the autumn's dailies. An item's own date stays what it says in its
//! frontmatter, file name or turn; the days it names never date it.

use cairn_dates::{Locale, resolve};
use jiff::civil::Date;

const MS_PER_DAY: i64 = 86_400_000;

/// Most days kept for one chunk: the first ones it names (a long log of dates is a list, not an
/// event, and a bounded field keeps the index small).
const MAX_DAYS: usize = 32;

/// Longest a named range may be and still count, in days: a day or two ("12–13 March 2026"), not
/// a month or a season, which say when a note was written about rather than when something happened.
const MAX_SPAN_DAYS: i32 = 2;

/// The day phrases are resolved against: any will do, since only phrases that write their year
/// count, and a fixed one keeps the index the same whenever it is built.
fn reference() -> Date {
    jiff::civil::date(2000, 1, 1)
}

/// Whether a date expression writes its year (four digits in a row).
pub(crate) fn names_year(phrase: &str) -> bool {
    phrase.as_bytes().windows(4).any(|w| w.iter().all(u8::is_ascii_digit))
}

/// Each day `text` names with its year, as milliseconds at midnight UTC (how items' days are
/// stored), in the order named, each once, at most [`MAX_DAYS`].
pub(crate) fn mentioned_days(text: &str) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for r in resolve(text, reference(), &Locale::ALL) {
        if !names_year(&r.phrase) {
            continue;
        }
        let Ok(span) = r.start.until(r.end) else { continue };
        if span.get_days() >= MAX_SPAN_DAYS {
            continue;
        }
        let mut day = r.start;
        while day <= r.end {
            if let Some(ms) = midnight_ms(day)
                && !out.contains(&ms)
            {
                out.push(ms);
                if out.len() == MAX_DAYS {
                    return out;
                }
            }
            let Ok(next) = day.tomorrow() else { break };
            day = next;
        }
    }
    out
}

fn midnight_ms(day: Date) -> Option<i64> {
    let ts = day.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(ts.as_millisecond().div_euclid(MS_PER_DAY) * MS_PER_DAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> i64 {
        midnight_ms(s.parse().unwrap()).unwrap()
    }

    #[test]
    fn days_written_with_their_year_are_kept() {
        assert_eq!(mentioned_days("Flu jab done at the pharmacy, 7 October 2024."), [day("2024-10-07")]);
        assert_eq!(
            mentioned_days("Moved in on 2019-06-01; boiler serviced March 3, 2021 and 2021-03-03 again."),
            [day("2019-06-01"), day("2021-03-03")]
        );
        assert_eq!(mentioned_days("Away 12–13 March 2026"), [day("2026-03-12"), day("2026-03-13")]);
    }

    #[test]
    fn months_seasons_and_days_without_a_year_are_not() {
        for text in [
            "Lisbon, April 2026",
            "summer 2025 was hot",
            "call him on Tuesday",
            "the 12th of March",
            "back last week",
            "Paid 2024 pounds",
            "",
        ] {
            assert!(mentioned_days(text).is_empty(), "{text:?}: {:?}", mentioned_days(text));
        }
    }

    #[test]
    fn a_long_list_keeps_its_first_days() {
        let text: String = (1..=28).map(|d| format!("2026-02-{d:02} ok. 2026-03-{d:02} ok. ")).collect();
        let days = mentioned_days(&text);
        assert_eq!(days.len(), MAX_DAYS);
        assert_eq!(days[0], day("2026-02-01"));
    }
}
