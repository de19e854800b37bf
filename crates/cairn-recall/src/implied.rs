//! Words a chunk implies without writing them. A contact note holds `zoe@example.org` and
//! `(919) 555-0190`, never the words "email" or "phone"; people ask "what is Zoë's email address?"
//! and "what's Luis's number?". The index adds [`implied_words`] to the chunk as a second body value
//! (searched, never shown), so the lexical lane, the relevance floor's coverage and a hit's `why`
//! treat them as the chunk's own words, with or without a model.

use std::sync::LazyLock;

use regex::Regex;

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}").expect("valid")
});
static WEB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:https?://|www\.)[^\s<>]+").expect("valid"));
/// A run of digits, spaces, dots, dashes and brackets that may be a phone number ([`is_phone`] decides).
static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\+?\(?\d[\d \t().-]{6,}\d").expect("valid"));
static ISO_DATE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d{4}-\d{2}-\d{2}").expect("valid"));

/// What an email address implies.
const EMAIL_WORDS: &str = "email address";
/// What a phone number implies.
const PHONE_WORDS: &str = "phone number telephone";
/// What a web address implies.
const WEB_WORDS: &str = "website link";

/// The words `text` implies, space-separated (empty when none): an email address implies "email
/// address", a phone number "phone number telephone", a web address "website link".
pub(crate) fn implied_words(text: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    if EMAIL.is_match(text) {
        words.push(EMAIL_WORDS);
    }
    // An email's domain is not a web address; a bare `www.` or `http(s)://` is.
    if WEB.is_match(text) {
        words.push(WEB_WORDS);
    }
    if DIGITS.find_iter(text).any(|m| is_phone(m.as_str())) {
        words.push(PHONE_WORDS);
    }
    words.join(" ")
}

/// Whether a run of digits and separators reads as a phone number: 9 to 15 digits (national numbers
/// with their area code, or international ones), written with a separator, a leading `+` or an area
/// code in brackets; not a date (`2026-03-12 14 30`), a plain long number (an account number) or a
/// number whose later groups have single digits (an ISBN, `978-0-14-044913-6`).
fn is_phone(run: &str) -> bool {
    let run = run.trim_end_matches(['.', '-', ' ', '\t', ')', '(']);
    let digits = run.chars().filter(char::is_ascii_digit).count();
    if !(9..=15).contains(&digits) || ISO_DATE.is_match(run) {
        return false;
    }
    let groups: Vec<&str> = run.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).collect();
    if groups.iter().skip(1).any(|g| g.len() < 2) {
        return false;
    }
    groups.len() > 1 || run.starts_with('+')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_details_imply_their_words() {
        let cases: &[(&str, &str)] = &[
            ("- zoe@example.org, (919) 555-0190.", "email address phone number telephone"),
            ("Mobile: 07700 900123", "phone number telephone"),
            ("call +1 919 555 0123 after six", "phone number telephone"),
            ("+14155550123", "phone number telephone"),
            ("919.555.0190", "phone number telephone"),
            ("1-800-555-0199", "phone number telephone"),
            ("Write to j.o'neil+vet@mail.example.org", "email address"),
            ("Booked on https://example.org/tickets?id=4", "website link"),
            ("see www.allotments-leeds.org.uk", "website link"),
        ];
        for (text, words) in cases {
            assert_eq!(implied_words(text), *words, "{text}");
        }
    }

    #[test]
    fn dates_amounts_and_plain_numbers_imply_nothing() {
        for text in [
            "2026-03-12 14:30 met Lena",
            "Met on 2026-03-12 09 30 at the office",
            "Paid £1,250,000 for the house",
            "Account 12345678901",
            "Ran 2015-2019 at the club",
            "The bookshelf is 180 x 90 x 30 cm",
            "Versions 1.2.3 and 4.5.6",
            "ISBN 978-0-14-044913-6",
            "Email Zoë about the menu",
            "@lena said hello",
        ] {
            assert_eq!(implied_words(text), "", "{text}");
        }
    }
}
