//! Birthdays named in a prompt: "what did we do for my birthday?", "the day after Nell's birthday",
//! "my birthday weekend". The prompt does not say when the birthday is; memory does ("- Born 12 May
//! 1977 in Pittsburgh." in MEMORY.md, "- Birthday: 3 March" in Nell's own note, or a daily note that
//! says "my birthday today"). The birthday's day and month, found in the query's scope, stand in for
//! the words that name it, and the prompt's dates are read again: "the day after May 12", "May 12
//! weekend", a day without a year as any other (its latest occurrence, or the next in a prompt about
//! the future). `why.date` still quotes the prompt ("2026-05-13 in 'the day after my birthday'").
//!
//! Whose birthday a line gives: for "my birthday", a line of a note that is nobody's own (not a
//! contact's: USER.md, MEMORY.md, a daily note) that says "my birthday" or opens with "birthday",
//! "born" or "date of birth", else the note's first line that says "born" or "birthday" with a day
//! and names no relation nor anyone's birthday ("- Harriet Mensah, born 3 March 1987 in Sheffield."
//! heading her notes; not "- Zofia, our daughter, born 15 November 2017", "- Mom's birthday Oct
//! 12"); for "Nell's birthday", a line that names her with "birthday" or "born", or one that opens
//! so in her own note. Nothing is made up: with no such line in scope, the words name no day.
//! English only.

use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;
use tantivy::Searcher;

use super::lanes::date::{QueryDates, reference_day};
use super::lanes::lexical::Scoring;
use super::relations::{is_relation, person_of};
use super::{RecallQuery, Recaller};
use crate::index::{StoredHit, item_title_of};

/// The best lexical matches of "birthday born" (and the name) that are read for a birthday.
const POOL: usize = 10;

/// "my birthday", "our birthday"; "Nell's birthday" (a capitalised name, group 1).
static ASKED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(?:(?:my|our)|([A-Z][\p{L}-]+)['’]s) (?i:birthday)\b").expect("valid"));

/// A line that opens with what it gives: "- Birthday: 3 March", "Born 12 May 1977", "DOB 3/12/1980".
static OPENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[\s\-*•#>]*(?:birthday|born|date of birth|dob|d\.o\.b\.)\b").expect("valid")
});

/// "born" or "birthday" in a line.
static BORN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(?:born|birthday)\b").expect("valid"));

/// Whether `line` names no relation before its "born" ("- Zofia, our daughter, born …", "Mum (born
/// …)"; what follows tells of the person: "born 1979-08-14; engineering manager at …") and no one's
/// birthday ("Leah's birthday").
fn names_no_one_else(line: &str) -> bool {
    let lower = line.to_lowercase().replace('\u{2019}', "'");
    let before = BORN.find(line).map_or(line, |m| &line[..m.start()]);
    !lower.contains("'s birthday") && !before.split(|c: char| !c.is_alphanumeric()).any(is_relation)
}

/// The day and month of `whose` birthday as `hit` tells it (see the module docs).
fn told_in(
    whose: &Whose,
    hit: &cairn_core::Hit,
    reference: Date,
    locales: &[cairn_dates::Locale],
) -> Option<(i8, i8)> {
    let owner = person_of(item_title_of(&hit.title));
    let said = hit.text.lines().filter(|line| tells(whose, owner.as_deref(), line)).find_map(|line| {
        day_in(line, reference, locales).or_else(|| {
            // "My birthday today!" in a dated note: the note's day.
            (MINE.is_match(line) || matches!(whose, Whose::Named(_)))
                .then(|| QueryDates::day_of_item(hit.created_at))
                .flatten()
                .map(|d| (d.month(), d.day()))
        })
    });
    if said.is_some() || *whose != Whose::Mine || owner.is_some() {
        return said;
    }
    // The line that heads the asker's notes: the first to say when someone was born.
    let (first, day) = hit
        .text
        .lines()
        .filter(|line| BORN.is_match(line))
        .find_map(|line| Some((line, day_in(line, reference, locales)?)))?;
    names_no_one_else(first).then_some(day)
}

/// "my birthday" in a line.
static MINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bmy birthday\b").expect("valid"));

/// Whose birthday a prompt names: the asker's, or a person's by name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Whose {
    Mine,
    Named(String),
}

/// The birthday a prompt names: whose, and where the words are (bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Asked {
    whose: Whose,
    span: std::ops::Range<usize>,
}

/// The first birthday `text` names (see the module docs).
fn asked(text: &str) -> Option<Asked> {
    // Most prompts name none: one pass over the bytes before the pattern runs.
    if !text.as_bytes().windows(8).any(|w| w.eq_ignore_ascii_case(b"birthday")) {
        return None;
    }
    let c = ASKED.captures(text)?;
    let whose = match c.get(1) {
        Some(name) => Whose::Named(name.as_str().to_owned()),
        None => Whose::Mine,
    };
    let m = c.get(0)?;
    Some(Asked { whose, span: m.start()..m.end() })
}

/// The day and month a line gives, if it gives one day (a date with or without its year).
fn day_in(line: &str, reference: Date, locales: &[cairn_dates::Locale]) -> Option<(i8, i8)> {
    let days = cairn_dates::resolve(line, reference, locales);
    let one = days.iter().find(|r| r.start == r.end)?;
    Some((one.start.month(), one.start.day()))
}

/// Whether `line` of a chunk owned by `owner` (a person's own note, or nobody's) gives `whose` birthday.
fn tells(whose: &Whose, owner: Option<&str>, line: &str) -> bool {
    let key = OPENS.is_match(line);
    match whose {
        Whose::Mine => owner.is_none() && (MINE.is_match(line) || key),
        Whose::Named(name) => {
            let names = line.split(|c: char| !c.is_alphanumeric()).any(|w| w == name);
            (names && BORN.is_match(line)) || (owner == Some(name) && key)
        }
    }
}

/// `month` and `day` written as a prompt would ("May 12"): jiff's own month names, in a leap year so
/// that 29 February is a day too.
fn written(month: i8, day: i8) -> Option<String> {
    Some(Date::new(2000, month, day).ok()?.strftime("%B %-d").to_string())
}

impl Recaller {
    /// The query's date ranges with a birthday it names read as its day (see the module docs), or
    /// `None` when it names none, a date expression already covers the words ("Washington's
    /// Birthday"), or memory in scope does not say when it is.
    pub(in crate::recall) fn birthday_dates(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        locales: &[cairn_dates::Locale],
        dates: &QueryDates,
    ) -> Option<QueryDates> {
        let a = asked(&q.text)?;
        if dates.covers(&a.span) {
            return None;
        }
        let reference = reference_day(q.now)?;
        let words = match &a.whose {
            Whose::Mine => "birthday born".to_owned(),
            Whose::Named(name) => format!("{name} birthday born"),
        };
        let terms = self.query_terms(searcher, &words);
        let (top, _) = self.lexical(searcher, &terms, &q.scope, POOL, false, Scoring::Auto).ok()?;
        let (month, day) = top
            .iter()
            .filter_map(|c| searcher.doc::<StoredHit>(c.addr).ok())
            .find_map(|StoredHit(hit)| told_in(&a.whose, &hit, reference, locales))?;
        let date = written(month, day)?;
        let text = format!("{}{date}{}", &q.text[..a.span.start], &q.text[a.span.end..]);
        Some(QueryDates::substituted(
            &q.text,
            &text,
            a.span.start..a.span.start + date.len(),
            a.span,
            q.now,
            locales,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_names_a_birthday() {
        let mine = asked("what did we do for my birthday?").unwrap();
        assert_eq!((mine.whose, mine.span), (Whose::Mine, 19..30));
        assert_eq!(asked("the day after Nell's birthday").unwrap().whose, Whose::Named("Nell".into()));
        assert_eq!(asked("Zoë’s Birthday party").unwrap().whose, Whose::Named("Zoë".into()));
        assert!(asked("a birthday cake recipe").is_none());
        assert!(asked("whose birthday is it?").is_none());
        assert!(asked("birthdays in my family").is_none());
    }

    #[test]
    fn lines_that_give_whose_birthday() {
        let mine = Whose::Mine;
        let nell = Whose::Named("Nell".into());
        assert!(tells(&mine, None, "- Born 12 May 1977 in Pittsburgh."));
        assert!(tells(&mine, None, "- Birthday: 14 March"));
        assert!(tells(&mine, None, "Cake at work: my birthday!"));
        // Another's birthday in the asker's notes, and a contact's own note.
        assert!(!tells(&mine, None, "- Nell: born 3 March 2009."));
        assert!(!tells(&mine, Some("Colin"), "- Born 1950 in Hull."));
        assert!(tells(&nell, None, "- Nell: born 3 March 2009."));
        assert!(tells(&nell, None, "Nell's birthday tea at Gran's."));
        assert!(tells(&nell, Some("Nell"), "- Birthday: 3 March"));
        assert!(!tells(&nell, Some("Colin"), "- Birthday: 9 June"));
        assert!(!tells(&nell, None, "- Nell starts school in March."));
        assert!(!tells(&nell, None, "- Nell was stubborn about March."));
        // The line that heads the asker's notes, naming no one else.
        assert!(names_no_one_else("- Harriet Mensah, born 3 March 1987 in Sheffield."));
        assert!(!names_no_one_else("- Zofia, our daughter, born 15 November 2017."));
        assert!(!names_no_one_else("- Mom's birthday Oct 12 (turns 80 this year)."));
        assert!(!names_no_one_else("- Daughter Nell (Eleanor), born June 2009."));
        assert!(names_no_one_else(
            "- Greg Albrecht, 45 (born 1979-08-14). Engineering manager at Waybright."
        ));
    }

    #[test]
    fn a_day_is_written_as_a_prompt_would_write_it() {
        let reference = jiff::civil::date(2026, 6, 30);
        let us = [cairn_dates::Locale::Us];
        assert_eq!(day_in("- Born 12 May 1977 in Pittsburgh.", reference, &us), Some((5, 12)));
        assert_eq!(day_in("- Birthday: 3 March", reference, &us), Some((3, 3)));
        assert_eq!(day_in("- Born in Pittsburgh.", reference, &us), None);
        assert_eq!(written(5, 12).as_deref(), Some("May 12"));
        assert_eq!(written(2, 29).as_deref(), Some("February 29"));
        assert_eq!(written(13, 1), None);
    }
}
