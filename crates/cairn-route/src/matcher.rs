//! Precompiled matchers: one Aho-Corasick automaton over every folded keyword of every rule,
//! and one `RegexSet` each for boost summary and fact patterns.

use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::{RegexSet, RegexSetBuilder};

use crate::text::{is_word_char, on_word_boundaries};

#[derive(Debug, Clone, Copy)]
struct Owner {
    rule: u32,
    keyword: u32,
    word: bool,
}

/// All keywords of all rules in one automaton.
#[derive(Debug, Clone)]
pub(crate) struct KeywordMatcher {
    ac: Option<AhoCorasick>,
    /// Per pattern: `owners[start..end]`.
    ranges: Vec<(u32, u32)>,
    owners: Vec<Owner>,
    /// Per pattern: (first char is a word char, last char is a word char).
    edges: Vec<(bool, bool)>,
}

impl KeywordMatcher {
    /// `rules[i]` = (folded keywords, word mode).
    pub(crate) fn build<'a>(rules: impl Iterator<Item = (&'a [String], bool)>) -> Result<Self, String> {
        let mut by_pattern: BTreeMap<&str, Vec<Owner>> = BTreeMap::new();
        for (r, (keywords, word)) in rules.enumerate() {
            for (k, kw) in keywords.iter().enumerate() {
                by_pattern.entry(kw.as_str()).or_default().push(Owner {
                    rule: r as u32,
                    keyword: k as u32,
                    word,
                });
            }
        }
        let mut ranges = Vec::with_capacity(by_pattern.len());
        let mut owners = Vec::new();
        let mut edges = Vec::with_capacity(by_pattern.len());
        let mut patterns = Vec::with_capacity(by_pattern.len());
        for (pattern, list) in by_pattern {
            let start = owners.len() as u32;
            owners.extend(list);
            ranges.push((start, owners.len() as u32));
            edges.push((
                pattern.chars().next().is_some_and(is_word_char),
                pattern.chars().next_back().is_some_and(is_word_char),
            ));
            patterns.push(pattern);
        }
        let ac = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    // A DFA scans about twice as fast; bound its memory (~0.6 KB per pattern).
                    .kind((patterns.len() <= 20_000).then_some(AhoCorasickKind::DFA))
                    .build(&patterns)
                    .map_err(|e| format!("cannot build the keyword automaton: {e}"))?,
            )
        };
        Ok(KeywordMatcher { ac, ranges, owners, edges })
    }

    /// Distinct `(rule, keyword)` pairs found in folded `text`, sorted.
    pub(crate) fn find(&self, text: &str) -> Vec<(u32, u32)> {
        let Some(ac) = &self.ac else { return Vec::new() };
        let mut found = Vec::new();
        for m in ac.find_overlapping_iter(text) {
            let p = m.pattern().as_usize();
            let (start, end) = self.ranges[p];
            let (left, right) = self.edges[p];
            let mut bounded: Option<bool> = None;
            for o in &self.owners[start as usize..end as usize] {
                if o.word {
                    let ok = *bounded
                        .get_or_insert_with(|| on_word_boundaries(text, m.start(), m.end(), left, right));
                    if !ok {
                        continue;
                    }
                }
                found.push((o.rule, o.keyword));
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// Boost patterns of all rules, compiled into two sets (case-insensitive).
#[derive(Debug, Clone)]
pub(crate) struct BoostSets {
    pub(crate) summary: RegexSet,
    pub(crate) fact: RegexSet,
}

impl BoostSets {
    pub(crate) fn build(summary: &[&str], fact: &[&str]) -> Result<Self, String> {
        let build = |p: &[&str]| {
            RegexSetBuilder::new(p)
                .case_insensitive(true)
                .build()
                .map_err(|e| format!("boost pattern set: {e}"))
        };
        Ok(BoostSets { summary: build(summary)?, fact: build(fact)? })
    }

    /// Which summary patterns match any of `texts` (by set index).
    pub(crate) fn matching(set: &RegexSet, texts: impl Iterator<Item = impl AsRef<str>>) -> Vec<bool> {
        let mut hit = vec![false; set.len()];
        if set.is_empty() {
            return hit;
        }
        for t in texts {
            for i in set.matches(t.as_ref()).iter() {
                hit[i] = true;
            }
        }
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::fold;

    fn matcher(rules: &[(&[&str], bool)]) -> KeywordMatcher {
        let folded: Vec<(Vec<String>, bool)> =
            rules.iter().map(|(k, w)| (k.iter().map(|s| fold(s)).collect(), *w)).collect();
        KeywordMatcher::build(folded.iter().map(|(k, w)| (k.as_slice(), *w))).unwrap()
    }

    #[test]
    fn word_and_substring() {
        let m = matcher(&[(&["deal", "term sheet", "c++"], true), (&["deal"], false), (&["eal"], false)]);
        assert_eq!(m.find(&fold("The DEALER sent a Term\n Sheet")), vec![(0, 1), (1, 0), (2, 0)]);
        assert_eq!(m.find(&fold("a deal, in c++.")), vec![(0, 0), (0, 2), (1, 0), (2, 0)]);
        assert_eq!(m.find(&fold("nothing here")), vec![]);
    }

    #[test]
    fn repeated_keyword_counts_once() {
        let m = matcher(&[(&["wine"], true)]);
        assert_eq!(m.find("wine wine winery wine"), vec![(0, 0)]);
        // A later bounded occurrence still counts after an unbounded one.
        assert_eq!(m.find("wines and wine"), vec![(0, 0)]);
    }
}
