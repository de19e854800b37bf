//! Finding a private overlay's words and pack text in a public file.
//!
//! Every term (intent id, keyword, profile id, pack id, owner id) and every line of pack prose goes
//! into one Aho-Corasick automaton over folded text (lowercase, whitespace collapsed), so a file is
//! read once whatever the size of the overlay. To keep common words from drowning the report:
//!
//! - a match counts only when it stands alone: the characters around it do not continue a word or
//!   an identifier (`falconry` does not match `falconry_kit` or `superfalconry`);
//! - terms shorter than [`MIN_TERM_CHARS`] characters and pack lines shorter than
//!   [`MIN_TEXT_CHARS`] are not looked for (`trip`, `memo`, "Be brief.");
//! - the allowlist's `terms` are not looked for at all;
//! - a match inside a longer match on the same line (a keyword within a pack line) is not reported
//!   again.
//!
//! Matching is per line: a term or pack line wrapped across two lines of the public file is missed.

use std::collections::{BTreeSet, HashMap};

use aho_corasick::{AhoCorasick, MatchKind};
use cairn_route::Vocabulary;

use crate::finding::{Hit, Rule};
use crate::text::{excerpt, fold, stands_alone};

/// Terms shorter than this (in characters, after folding) are not looked for.
pub const MIN_TERM_CHARS: usize = 5;
/// Lines of pack prose shorter than this (in characters, after folding) are not looked for.
pub const MIN_TEXT_CHARS: usize = 20;

#[derive(Debug, Clone)]
struct Term {
    rule: Rule,
    /// As written in the overlay.
    shown: String,
    /// The pack a line of prose comes from.
    pack: Option<String>,
}

/// The compiled overlay terms.
#[derive(Debug, Clone)]
pub(crate) struct TermMatcher {
    automaton: Option<AhoCorasick>,
    terms: Vec<Term>,
}

/// A line of pack prose without its list marker (`- `, `* `, `1. `, `> `).
fn strip_marker(line: &str) -> &str {
    let t = line.trim_start();
    for marker in ["- ", "* ", "+ ", "> "] {
        if let Some(rest) = t.strip_prefix(marker) {
            return rest;
        }
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")) {
        return &t[digits + 2..];
    }
    t
}

impl TermMatcher {
    pub(crate) fn build(vocabulary: &Vocabulary, allowed: &BTreeSet<String>) -> TermMatcher {
        let mut patterns: Vec<String> = Vec::new();
        let mut terms: Vec<Term> = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut add = |rule: Rule, text: &str, pack: Option<&str>| {
            let folded = fold(text);
            let min = if rule == Rule::PrivatePackText { MIN_TEXT_CHARS } else { MIN_TERM_CHARS };
            if folded.chars().count() < min || allowed.contains(&folded) || seen.contains_key(&folded) {
                return;
            }
            seen.insert(folded.clone(), terms.len());
            patterns.push(folded);
            terms.push(Term { rule, shown: text.trim().to_owned(), pack: pack.map(str::to_owned) });
        };
        let v = vocabulary;
        v.intents.iter().for_each(|t| add(Rule::PrivateIntent, t, None));
        v.packs.iter().for_each(|p| add(Rule::PrivatePackId, &p.id, None));
        v.profiles.iter().for_each(|t| add(Rule::PrivateProfile, t, None));
        v.keywords.iter().for_each(|t| add(Rule::PrivateKeyword, t, None));
        v.owner_ids.iter().for_each(|t| add(Rule::PrivateOwnerId, t, None));
        for p in &v.packs {
            for line in &p.text {
                add(Rule::PrivatePackText, strip_marker(line), Some(&p.id));
            }
        }
        let automaton = (!patterns.is_empty()).then(|| {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .expect("folded terms always compile")
        });
        TermMatcher { automaton, terms }
    }

    /// Whether there is nothing to look for.
    pub(crate) fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The overlay's terms found in `text`, one hit per term and line.
    pub(crate) fn scan(&self, text: &str, hits: &mut Vec<Hit>) {
        let Some(ac) = &self.automaton else { return };
        for (n, line) in text.lines().enumerate() {
            let folded = fold(line);
            let mut found: Vec<(usize, usize, usize)> = ac
                .find_overlapping_iter(&folded)
                .filter(|m| stands_alone(&folded, m.start(), m.end()))
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
            // Longest first, so that what lies inside an earlier match can be dropped.
            found.sort_by_key(|&(s, e, t)| (std::cmp::Reverse(e - s), s, t));
            let mut kept: Vec<(usize, usize, usize)> = Vec::new();
            for (s, e, t) in found {
                let inside = kept.iter().any(|&(ks, ke, kt)| kt == t || (ks <= s && e <= ke));
                if !inside {
                    kept.push((s, e, t));
                }
            }
            kept.sort_unstable();
            for (_, _, t) in kept {
                hits.push(Hit::new(n + 1, self.terms[t].rule, self.message(t)));
            }
        }
    }

    fn message(&self, t: usize) -> String {
        let term = &self.terms[t];
        let what = match term.rule {
            Rule::PrivateIntent => "intent",
            Rule::PrivateKeyword => "intent keyword",
            Rule::PrivateProfile => "consumer profile",
            Rule::PrivatePackId => "pack id",
            Rule::PrivateOwnerId => "session owner id",
            _ => {
                let pack = term.pack.as_deref().unwrap_or("?");
                return format!(
                    "a line of pack `{pack}` of the private overlay: \"{}\"",
                    excerpt(&term.shown, 60)
                );
            }
        };
        format!("{what} `{}` of the private overlay", term.shown)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use cairn_route::PackText;

    use super::*;

    fn vocabulary() -> Vocabulary {
        Vocabulary {
            intents: vec!["falconry".into(), "mews".into()],
            keywords: vec!["hawk hood".into(), "jesses".into(), "lure".into(), "Thread".into()],
            profiles: vec!["falconer_aide".into()],
            owner_ids: vec!["40411123".into()],
            packs: vec![PackText {
                id: "raptor_care".into(),
                path: PathBuf::from("packs/raptor_care.pack.yaml"),
                scope: cairn_core::Audience::Private,
                enabled: true,
                text: vec![
                    "Weigh the bird before every flight, hawk hood on.".into(),
                    "- Log the jesses and the swivel each morning".into(),
                    "Be brief.".into(),
                ],
            }],
        }
    }

    fn scan(text: &str) -> Vec<(usize, Rule)> {
        let allowed = BTreeSet::from(["thread".to_owned()]);
        let m = TermMatcher::build(&vocabulary(), &allowed);
        let mut hits = Vec::new();
        m.scan(text, &mut hits);
        hits.into_iter().map(|h| (h.line, h.rule)).collect()
    }

    #[test]
    fn each_kind_of_term_is_found() {
        let cases: &[(&str, &[(usize, Rule)])] = &[
            ("routes to falconry", &[(1, Rule::PrivateIntent)]),
            ("wear a Hawk  Hood", &[(1, Rule::PrivateKeyword)]),
            ("x\nprofile: falconer_aide\n", &[(2, Rule::PrivateProfile)]),
            ("pack raptor_care.", &[(1, Rule::PrivatePackId)]),
            ("owner_ids: [\"40411123\"]", &[(1, Rule::PrivateOwnerId)]),
            ("* WEIGH the bird before every flight,   hawk hood on.", &[(1, Rule::PrivatePackText)]),
            ("1. log the jesses and the swivel each morning", &[(1, Rule::PrivatePackText)]),
        ];
        for (text, expect) in cases {
            assert_eq!(scan(text), *expect, "{text:?}");
        }
    }

    #[test]
    fn short_common_allowed_and_embedded_words_are_not_flagged() {
        for text in [
            "the mews is closed",             // intent shorter than MIN_TERM_CHARS
            "a lure",                         // keyword shorter than MIN_TERM_CHARS
            "a thread of tweets",             // allowed by the allowlist's terms
            "falconry_kit and superfalconry", // not a whole word
            "404111234",                      // owner id inside a longer number
            "Be brief.",                      // pack line shorter than MIN_TEXT_CHARS
            "hawk\nhood",                     // wrapped across lines
        ] {
            assert_eq!(scan(text), [], "{text:?}");
        }
    }

    #[test]
    fn a_term_inside_a_pack_line_is_reported_once() {
        // The line holds the keyword `hawk hood` and `jesses` is on the next line.
        assert_eq!(
            scan("Weigh the bird before every flight, hawk hood on.\njesses, jesses"),
            [(1, Rule::PrivatePackText), (2, Rule::PrivateKeyword)]
        );
    }

    #[test]
    fn an_empty_vocabulary_finds_nothing() {
        let m = TermMatcher::build(&Vocabulary::default(), &BTreeSet::new());
        assert!(m.is_empty());
        let mut hits = Vec::new();
        m.scan("anything at all", &mut hits);
        assert!(hits.is_empty());
    }
}
