//! Days counted from an event the prompt names instead of a date: "the day after I got back from
//! Lisbon", "the day before we flew to Kraków", "two days after we arrived in Porto". The prompt
//! does not say when the event was; memory does ("back on 2026-04-19"). [`event_relative`] finds
//! the expression and what it counts from; [`EventRelative::days`] turns the event's dates, once
//! found, into the days asked about.

use std::ops::Range;

use jiff::ToSpan;
use jiff::civil::Date;

/// Which end of the event the days count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Its first day: "before we flew to", "after we arrived in".
    Start,
    /// Its last day: "after I got back from".
    End,
}

/// An expression that counts days from an event, found in a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRelative {
    /// The expression as written, e.g. "the day after I got back from Lisbon".
    pub phrase: String,
    /// Where the expression is in the prompt, in bytes.
    pub span: Range<usize>,
    /// The event's words as written ("Lisbon", "Bristol for the offsite"): what to look up.
    pub event: String,
    /// The end of the event the days count from.
    pub edge: Edge,
    /// Days from that end to the nearest day asked about: positive after it, negative before it.
    pub offset: i64,
    /// How many days are asked about (1 for "the day after", 7 for "the week after").
    pub length: i64,
}

impl EventRelative {
    /// The days asked about (first, last) and the day they count from, for an event that ran from
    /// `start` to `end`.
    pub fn days(&self, start: Date, end: Date) -> Option<(Date, Date, Date)> {
        let base = match self.edge {
            Edge::Start => start,
            Edge::End => end,
        };
        let near = base.checked_add(self.offset.days()).ok()?;
        let far = near.checked_add((self.offset.signum() * (self.length - 1)).days()).ok()?;
        Some((near.min(far), near.max(far), base))
    }
}

/// Verbs of coming back: the days count from the event's last day.
const RETURNS: &[&[&str]] = &[
    &["got", "back"],
    &["get", "back"],
    &["came", "back"],
    &["come", "back"],
    &["flew", "back"],
    &["fly", "back"],
    &["drove", "back"],
    &["arrived", "back"],
    &["were", "back"],
    &["was", "back"],
    &["got", "home"],
    &["came", "home"],
    &["flew", "home"],
    &["returned"],
    &["return"],
];

/// Verbs of setting out or arriving: the days count from the event's first day.
const LEAVES: &[&[&str]] = &[
    &["flew", "out"],
    &["set", "off"],
    &["flew"],
    &["fly"],
    &["went"],
    &["go"],
    &["travelled"],
    &["traveled"],
    &["travel"],
    &["headed"],
    &["head"],
    &["drove"],
    &["drive"],
    &["left"],
    &["leave"],
    &["departed"],
    &["arrived"],
    &["arrive"],
    &["got"],
];

/// The same verbs as gerunds, with no one named: "the day after getting back from Lisbon".
const RETURNING: &[&[&str]] = &[
    &["getting", "back"],
    &["coming", "back"],
    &["flying", "back"],
    &["driving", "back"],
    &["arriving", "back"],
    &["getting", "home"],
    &["coming", "home"],
    &["flying", "home"],
    &["returning"],
];

const LEAVING: &[&[&str]] = &[
    &["flying", "out"],
    &["setting", "off"],
    &["flying"],
    &["going"],
    &["travelling"],
    &["traveling"],
    &["heading"],
    &["driving"],
    &["leaving"],
    &["departing"],
    &["arriving"],
];

/// Nouns for a stay away, as in "the day after my trip to Lisbon" or "the week before the Lisbon
/// trip": after one, the days count from its last day; before one, from its first.
const STAYS: &[&str] = &["trip", "journey", "visit", "holiday", "vacation", "stay", "getaway"];

/// Nouns for setting out, as in "the day before my flight to Lisbon": the days count from the first
/// day (from the last with "from": "my flight back from Lisbon").
const SETTING_OUT: &[&str] = &["flight", "drive", "train", "ferry"];

/// Who may do the going: a pronoun, or a capitalised name (checked apart).
const SUBJECTS: &[&str] = &["i", "we", "he", "she", "they", "you"];

/// Small counts written as words.
const COUNTS: &[(&str, i64)] = &[
    ("a", 1),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
];

/// Words that end an event's name.
const EVENT_STOPS: &[&str] =
    &["and", "but", "or", "what", "when", "where", "who", "which", "how", "did", "was", "were"];

/// Words dropped from the front of an event's name.
const EVENT_LEAD: &[&str] = &["the", "my", "our", "a", "an", "his", "her", "their"];

/// The longest event name, in words.
const EVENT_WORDS: usize = 5;

/// A word of the prompt: its text (lowercase) and where it is.
struct Word {
    lower: String,
    span: Range<usize>,
    capital: bool,
}

fn words(prompt: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in prompt.char_indices().chain(std::iter::once((prompt.len(), ' '))) {
        let part = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let text = prompt[s..i].trim_end_matches(['\'', '\u{2019}']);
                if !text.is_empty() {
                    out.push(Word {
                        lower: text.to_lowercase(),
                        span: s..s + text.len(),
                        capital: text.chars().next().is_some_and(char::is_uppercase),
                    });
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The first expression in `prompt` that counts days from an event: "the day/morning/evening after",
/// "N days before", "the week after", "a week before" (or "after"/"before" alone: the week after or
/// before), then who went ("I", "we", a name), a verb of coming back ("got back from", "returned
/// from", "came home from") or of setting out ("flew to", "went to", "left for", "arrived in"), and the
/// event's name up to the end of the clause. The verb may be a gerund with no one named ("after
/// getting back from", "before heading to"), or the going a noun ("after my trip to Lisbon", "before
/// the Lisbon trip", "before my flight to Lisbon"). "The day I left for Lisbon", with no "after" or
/// "before", is the event's own day.
pub fn event_relative(prompt: &str) -> Option<EventRelative> {
    // Most prompts hold none of these words: skip splitting them.
    if !(mentions(prompt, "after") || mentions(prompt, "before") || mentions(prompt, "the day")) {
        return None;
    }
    let w = words(prompt);
    (0..w.len()).find_map(|i| at(prompt, &w, i).or_else(|| on_the_day(prompt, &w, i)))
}

/// "the day I left for Lisbon", "the day we got back from Kraków": the event's first or last day.
fn on_the_day(prompt: &str, w: &[Word], i: usize) -> Option<EventRelative> {
    if w[i].lower != "the" || w.get(i + 1)?.lower != "day" {
        return None;
    }
    let subject = w.get(i + 2)?;
    if !SUBJECTS.contains(&subject.lower.as_str()) {
        return None;
    }
    let event = going(prompt, w, i + 2, 0)?;
    Some(relative(prompt, w, i, event, 0, 1))
}

/// Whether `prompt` holds `word` (ASCII, any case) anywhere, even inside a longer word.
fn mentions(prompt: &str, word: &str) -> bool {
    prompt.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}

fn at(prompt: &str, w: &[Word], i: usize) -> Option<EventRelative> {
    let sign = match w[i].lower.as_str() {
        "after" => 1,
        "before" => -1,
        _ => return None,
    };
    let (from, offset, length) = amount(w, i);
    let event = going(prompt, w, i + 1, sign)?;
    Some(relative(prompt, w, from, event, sign * offset, length))
}

/// A going found in a prompt, by word index.
struct Going {
    /// The end of the event its days count from.
    edge: Edge,
    /// The first word of the event's name.
    first: usize,
    /// The last word of the event's name.
    last: usize,
    /// The last word of the expression ("trip" in "the Lisbon trip").
    end: usize,
}

/// The expression from word `from` to the end of the going.
fn relative(prompt: &str, w: &[Word], from: usize, going: Going, offset: i64, length: i64) -> EventRelative {
    let span = w[from].span.start..w[going.end].span.end;
    EventRelative {
        phrase: prompt[span.clone()].to_owned(),
        span,
        event: prompt[w[going.first].span.start..w[going.last].span.end].to_owned(),
        edge: going.edge,
        offset,
        length,
    }
}

/// The going that starts at word `j` (after "after", "before" or "the day"): who went and a verb, a
/// gerund, or a noun for the going (`sign` says whether the days are after or before a stay, which
/// decides its edge), then the event's name.
fn going(prompt: &str, w: &[Word], mut j: usize, sign: i64) -> Option<Going> {
    let verb_at = |j: usize, lists: [(Edge, &[&[&str]]); 2]| {
        lists.into_iter().find_map(|(edge, verbs)| {
            verbs
                .iter()
                .find(|v| {
                    v.iter().enumerate().all(|(k, word)| w.get(j + k).is_some_and(|x| x.lower == *word))
                })
                .map(|v| (edge, v.len()))
        })
    };
    let word = |k: usize| w.get(k).map(|x| x.lower.as_str());
    if let Some((edge, len)) = verb_at(j, [(Edge::End, RETURNING), (Edge::Start, LEAVING)]) {
        return name_after_preposition(prompt, w, j + len, edge, edge.prepositions());
    }
    let subject = w.get(j)?;
    if SUBJECTS.contains(&subject.lower.as_str()) || (subject.capital && !EVENT_LEAD.contains(&word(j)?)) {
        j += 1;
        if word(j) == Some("had") {
            j += 1;
        }
        let (edge, len) = verb_at(j, [(Edge::End, RETURNS), (Edge::Start, LEAVES)])?;
        return name_after_preposition(prompt, w, j + len, edge, edge.prepositions());
    }
    // A noun for the going: "my trip to Lisbon", "our flight back from Kraków", "the Lisbon trip".
    if sign == 0 {
        return None;
    }
    let by_sign = if sign > 0 { Edge::End } else { Edge::Start };
    while word(j).is_some_and(|x| EVENT_LEAD.contains(&x)) {
        j += 1;
    }
    let noun = word(j)?;
    if STAYS.contains(&noun) {
        return name_after_preposition(prompt, w, j + 1, by_sign, &["to", "in", "at", "from"]);
    }
    if SETTING_OUT.contains(&noun) {
        let back = matches!(word(j + 1), Some("back" | "home"));
        let edge = if back || word(j + 1) == Some("from") { Edge::End } else { Edge::Start };
        return name_after_preposition(prompt, w, j + 1 + usize::from(back), edge, edge.prepositions());
    }
    // "the Lisbon trip": one to three capitalised words, then a noun for a stay.
    let first = j;
    while w.get(j).is_some_and(|x| x.capital) && j - first < 3 {
        j += 1;
    }
    (j > first && word(j).is_some_and(|x| STAYS.contains(&x))).then_some(Going {
        edge: by_sign,
        first,
        last: j - 1,
        end: j,
    })
}

impl Edge {
    /// The prepositions that lead to the event's name after a verb of going: "from" after coming back;
    /// "to", "for", "in", "at", "into" after setting out.
    fn prepositions(self) -> &'static [&'static str] {
        match self {
            Edge::End => &["from"],
            Edge::Start => &["to", "for", "in", "at", "into"],
        }
    }
}

/// The event's name after one of `prepositions` at word `j`, up to the end of the clause.
fn name_after_preposition(
    prompt: &str,
    w: &[Word],
    mut j: usize,
    edge: Edge,
    prepositions: &[&str],
) -> Option<Going> {
    if !prepositions.contains(&w.get(j)?.lower.as_str()) {
        return None;
    }
    j += 1;
    while w.get(j).is_some_and(|x| EVENT_LEAD.contains(&x.lower.as_str())) {
        j += 1;
    }
    let first = j;
    let mut last = None;
    while j < w.len() && j - first < EVENT_WORDS && !EVENT_STOPS.contains(&w[j].lower.as_str()) {
        if j > first && prompt[w[j - 1].span.end..w[j].span.start].contains([',', '.', ';', ':', '?', '!']) {
            break;
        }
        last = Some(j);
        j += 1;
    }
    let last = last?;
    Some(Going { edge, first, last, end: last })
}

/// How far from the event the words before `after`/`before` (at `i`) reach: the index of the first
/// of them, the days to the nearest day asked about, and how many days are asked about.
fn amount(w: &[Word], i: usize) -> (usize, i64, i64) {
    let word = |k: usize| i.checked_sub(k).and_then(|x| w.get(x)).map(|x| x.lower.as_str());
    match (word(2), word(1)) {
        (Some("the"), Some("day" | "morning" | "afternoon" | "evening" | "night")) => (i - 2, 1, 1),
        (Some("the"), Some("week" | "weekend")) => (i - 2, 1, 7),
        (Some(n), Some("days" | "day")) => match count(n) {
            Some(n) => (i - 2, n, 1),
            None => (i, 1, 7),
        },
        (Some(n), Some("week" | "weeks")) => match count(n) {
            Some(n) => (i - 2, 7 * n, 1),
            None => (i, 1, 7),
        },
        _ => (i, 1, 7),
    }
}

fn count(word: &str) -> Option<i64> {
    COUNTS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, n)| *n)
        .or_else(|| word.parse().ok().filter(|n| (1..=60).contains(n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i16, m: i8, day: i8) -> Date {
        jiff::civil::date(y, m, day)
    }

    #[test]
    fn finds_the_expression_and_its_event() {
        let cases: &[(&str, &str, &str, Edge, i64, i64)] = &[
            (
                "What happened the day after I got back from Lisbon?",
                "the day after I got back from Lisbon",
                "Lisbon",
                Edge::End,
                1,
                1,
            ),
            (
                "What was I doing the day before I flew to Bristol for the offsite?",
                "the day before I flew to Bristol for the offsite",
                "Bristol for the offsite",
                Edge::Start,
                -1,
                1,
            ),
            (
                "What did I do the day after we got back from Kraków?",
                "the day after we got back from Kraków",
                "Kraków",
                Edge::End,
                1,
                1,
            ),
            (
                "two days after we arrived in Porto, what did we eat?",
                "two days after we arrived in Porto",
                "Porto",
                Edge::Start,
                2,
                1,
            ),
            (
                "the week before Maria left for the conference",
                "the week before Maria left for the conference",
                "conference",
                Edge::Start,
                -1,
                7,
            ),
            (
                "what did we do after we came home from the Lake District",
                "after we came home from the Lake District",
                "Lake District",
                Edge::End,
                1,
                7,
            ),
            (
                "a week after I returned from Japan",
                "a week after I returned from Japan",
                "Japan",
                Edge::End,
                7,
                1,
            ),
            (
                "What did I do the day after getting back from Lisbon?",
                "the day after getting back from Lisbon",
                "Lisbon",
                Edge::End,
                1,
                1,
            ),
            (
                "What did I do the day before heading to Lisbon?",
                "the day before heading to Lisbon",
                "Lisbon",
                Edge::Start,
                -1,
                1,
            ),
            (
                "What happened the day before my flight to Lisbon?",
                "the day before my flight to Lisbon",
                "Lisbon",
                Edge::Start,
                -1,
                1,
            ),
            (
                "the day after our flight back from Kraków",
                "the day after our flight back from Kraków",
                "Kraków",
                Edge::End,
                1,
                1,
            ),
            (
                "What happened the day after my trip to Lisbon?",
                "the day after my trip to Lisbon",
                "Lisbon",
                Edge::End,
                1,
                1,
            ),
            (
                "two days before the Lisbon trip",
                "two days before the Lisbon trip",
                "Lisbon",
                Edge::Start,
                -2,
                1,
            ),
            (
                "What did I do the day I left for Lisbon?",
                "the day I left for Lisbon",
                "Lisbon",
                Edge::Start,
                0,
                1,
            ),
            (
                "what did we eat the day we got back from Kraków?",
                "the day we got back from Kraków",
                "Kraków",
                Edge::End,
                0,
                1,
            ),
        ];
        for &(prompt, phrase, event, edge, offset, length) in cases {
            let e = event_relative(prompt).unwrap_or_else(|| panic!("{prompt}"));
            assert_eq!(
                (e.phrase.as_str(), e.event.as_str(), e.edge, e.offset, e.length),
                (phrase, event, edge, offset, length),
                "{prompt}"
            );
            assert_eq!(&prompt[e.span.clone()], phrase);
        }
    }

    #[test]
    fn other_befores_and_afters_are_not_events() {
        for prompt in [
            "What did I do the day after Thanksgiving?",
            "the Sunday before October 25, 2022",
            "what happened after the meeting?",
            "before I forget, what's the wifi password?",
            "after we talked, did Sam reply?",
            "the day after we got back",
            "after I went",
            "the day after the trip",
            "the day after my trip",
            "what did I do the day after?",
            "the day I met Sam",
            "before going",
        ] {
            assert_eq!(event_relative(prompt), None, "{prompt}");
        }
    }

    #[test]
    fn the_days_count_from_the_edge() {
        let back = event_relative("the day after I got back from Lisbon").unwrap();
        assert_eq!(
            back.days(d(2026, 4, 14), d(2026, 4, 19)),
            Some((d(2026, 4, 20), d(2026, 4, 20), d(2026, 4, 19)))
        );
        let out = event_relative("the day before we flew to Kraków").unwrap();
        assert_eq!(
            out.days(d(2025, 10, 25), d(2025, 11, 1)),
            Some((d(2025, 10, 24), d(2025, 10, 24), d(2025, 10, 25)))
        );
        let week = event_relative("the week before we flew to Kraków").unwrap();
        assert_eq!(
            week.days(d(2025, 10, 25), d(2025, 11, 1)),
            Some((d(2025, 10, 18), d(2025, 10, 24), d(2025, 10, 25)))
        );
        let week = event_relative("in the week after we got back from Kraków").unwrap();
        assert_eq!(
            week.days(d(2025, 10, 25), d(2025, 11, 1)),
            Some((d(2025, 11, 2), d(2025, 11, 8), d(2025, 11, 1)))
        );
    }
}
