//! Personal contact details: e-mail addresses and phone numbers, except the ranges reserved for
//! examples.
//!
//! - E-mail: a domain of `example.com`, `example.org`, `example.net` (or a subdomain of one), or a
//!   name under the reserved top-level domains `.example`, `.test`, `.invalid`, `.localhost`
//!   (RFC 2606, RFC 6761) is fine. An SSH remote (`git@host:owner/repo`) is not an address.
//! - Phone: North American numbers with an area code (`(919) 555-0142`, `919-555-0142`,
//!   `+1 919 555 0142`) and international numbers written with a leading `+` (8 to 15 digits). Only
//!   the exchange 555 with line numbers 0100–0199, reserved for fiction, is fine. Digits must be
//!   grouped by spaces, dots or dashes: a run of bare digits (an id, a timestamp) is not a number.

use std::sync::LazyLock;

use regex::Regex;

use crate::finding::{Hit, Rule};
use crate::text::{LineIndex, is_word_char};

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[a-z0-9][a-z0-9._%+-]*@((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})\b")
        .expect("e-mail pattern compiles")
});

/// North American: optional `+1`, area code (bracketed or not), exchange, line number.
static NANP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\+1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])(\d{3})[\s.-](\d{4})")
        .expect("phone pattern compiles")
});

/// International: a leading `+`, then digit groups separated by spaces, dots or dashes.
static INTERNATIONAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\+\d{1,3}(?:[\s.-]\(?\d{1,5}\)?){2,6}").expect("phone pattern compiles"));

const RESERVED_DOMAINS: [&str; 3] = ["example.com", "example.org", "example.net"];
const RESERVED_TLDS: [&str; 4] = ["example", "test", "invalid", "localhost"];

fn reserved_domain(domain: &str) -> bool {
    let d = domain.to_ascii_lowercase();
    let tld = d.rsplit('.').next().unwrap_or_default();
    RESERVED_TLDS.contains(&tld) || RESERVED_DOMAINS.iter().any(|r| d == *r || d.ends_with(&format!(".{r}")))
}

/// `true` when a digit or letter touches the match: it is part of something longer.
fn glued(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    before.is_some_and(|c| is_word_char(c) || c == '+') || after.is_some_and(is_word_char)
}

pub(crate) fn scan(text: &str, lines: &LineIndex, hits: &mut Vec<Hit>) {
    for caps in EMAIL.captures_iter(text) {
        let (m, domain) = (caps.get(0).expect("match"), &caps[1]);
        let before = text[..m.start()].chars().next_back();
        let ssh_remote = text[m.end()..]
            .strip_prefix(':')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_alphanumeric()));
        if reserved_domain(domain) || ssh_remote || before.is_some_and(|c| is_word_char(c) || c == '.') {
            continue;
        }
        hits.push(Hit::new(
            lines.line_of(m.start()),
            Rule::Email,
            format!("e-mail address `{}` outside the reserved example domains", m.as_str()),
        ));
    }
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for caps in NANP.captures_iter(text) {
        let m = caps.get(0).expect("match");
        if glued(text, m.start(), m.end()) {
            continue;
        }
        taken.push((m.start(), m.end()));
        let line_number: u32 = caps[2].parse().unwrap_or(0);
        if &caps[1] == "555" && (100..=199).contains(&line_number) {
            continue;
        }
        hits.push(phone(lines, m.start(), m.as_str()));
    }
    for m in INTERNATIONAL.find_iter(text) {
        let digits = m.as_str().chars().filter(char::is_ascii_digit).count();
        let overlaps = taken.iter().any(|&(s, e)| m.start() < e && s < m.end());
        if overlaps || !(8..=15).contains(&digits) || glued(text, m.start(), m.end()) {
            continue;
        }
        hits.push(phone(lines, m.start(), m.as_str()));
    }
}

fn phone(lines: &LineIndex, at: usize, number: &str) -> Hit {
    Hit::new(
        lines.line_of(at),
        Rule::Phone,
        format!("phone number `{number}` outside the reserved 555-0100–0199 range"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `~` splits what would otherwise be a real-looking address or number, so that this file is
    /// not itself a leak (the repository is audited with these rules); it is dropped before scanning.
    fn rules(text: &str) -> Vec<Rule> {
        let text = &text.replace('~', "");
        let mut hits = Vec::new();
        scan(text, &LineIndex::new(text), &mut hits);
        hits.into_iter().map(|h| h.rule).collect()
    }

    #[test]
    fn real_looking_addresses_and_numbers_are_flagged() {
        let cases: &[(&str, &[Rule])] = &[
            ("mail jane.doe@~acme-corp.io today", &[Rule::Email]),
            ("<Bob+tag@~Mail.Company.co.uk>", &[Rule::Email]),
            ("call (919) 555-~0230", &[Rule::Phone]),
            ("call 919-867-~5309", &[Rule::Phone]),
            ("call 919.867.~5309.", &[Rule::Phone]),
            ("call +1 919 867 ~5309", &[Rule::Phone]),
            ("ring +~44 20 7946 1234", &[Rule::Phone]),
            ("ring +~33 1-23-45-67-89", &[Rule::Phone]),
            ("a@~b.io, (212) 555-~0999", &[Rule::Email, Rule::Phone]),
            ("write to bob@~corp.io: he knows", &[Rule::Email]),
        ];
        for (text, expect) in cases {
            assert_eq!(rules(text), *expect, "{text:?}");
        }
    }

    #[test]
    fn reserved_ranges_and_lookalikes_are_not_flagged() {
        for text in [
            "user@example.com",
            "ops@mail.example.org",
            "x@example.net",
            "alice@corp.example",
            "bob@host.test",
            "nobody@nowhere.invalid",
            "me@dev.localhost",
            "git@github.com:owner/repo.git",
            "a@b.c",
            "crate@1.2.3",
            "openclaw@2026.9.6",
            "@scope/package",
            "(919) 555-0190",
            "919-555-0100",
            "+1 212 555 0199",
            "2026-03-16 12:30",
            "id 12345678901",
            "0.0904763, 0.0404396, 0.0239057",
            "version 1.2.3-4",
            "v919-867-53091",
            "+1 2 3",
        ] {
            assert_eq!(rules(text), [], "{text:?}");
        }
    }

    #[test]
    fn the_reserved_phone_range_is_exactly_0100_to_0199() {
        assert_eq!(rules("(919) 555-~0099"), [Rule::Phone]);
        assert_eq!(rules("(919) 555-0100"), []);
        assert_eq!(rules("(919) 555-0199"), []);
        assert_eq!(rules("(919) 555-~0200"), [Rule::Phone]);
        assert_eq!(rules("(919) 556-~0150"), [Rule::Phone]);
    }
}
