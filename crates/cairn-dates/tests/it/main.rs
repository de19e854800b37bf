//! Integration tests for `cairn-dates`.

mod cost;
mod forms;
mod holidays;
mod negative;
mod props;

use cairn_dates::{DateRange, Locale, resolve};
use jiff::civil::{Date, date};

/// The main reference day: Tuesday 30 June 2026.
pub(crate) const REF: Date = date(2026, 6, 30);
/// A reference just after New Year, to check that year-less forms roll back: Thursday 2 January 2025.
pub(crate) const JAN: Date = date(2025, 1, 2);

/// Parses `YYYY-MM-DD`.
pub(crate) fn d(s: &str) -> Date {
    s.parse().unwrap_or_else(|e| panic!("bad test date {s}: {e}"))
}

/// Checks a table of `(prompt, phrase, start, end)`: the prompt yields exactly one range, with that
/// phrase and those days.
pub(crate) fn table(reference: Date, locales: &[Locale], cases: &[(&str, &str, &str, &str)]) {
    let mut failures = Vec::new();
    for &(prompt, phrase, start, end) in cases {
        let found = resolve(prompt, reference, locales);
        let want = (phrase, d(start), d(end));
        let got: Vec<_> = found.iter().map(|r| (r.phrase.as_str(), r.start, r.end)).collect();
        if got != [want] {
            failures.push(format!("{prompt:?}: want {want:?}, got {got:?}"));
        }
        for r in &found {
            assert_eq!(&prompt[r.span.clone()], r.phrase);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed (reference {reference}):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The ranges found, as `(phrase, start, end)` strings, for multi-match checks.
pub(crate) fn found(prompt: &str, reference: Date, locales: &[Locale]) -> Vec<(String, String, String)> {
    resolve(prompt, reference, locales)
        .into_iter()
        .map(|DateRange { start, end, phrase, .. }| (phrase, start.to_string(), end.to_string()))
        .collect()
}
