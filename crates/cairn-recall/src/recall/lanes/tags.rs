//! The tag lane: tags inferred from the query (its words, hyphen-joined runs of them, singular and
//! plural forms, CJK substrings) that some chunk in scope carries, and the chunks carrying the most
//! of them that fit the lane's pool.

use std::collections::BTreeSet;
use std::time::Instant;

use cairn_core::{LaneStatus, Scope};
use tantivy::query::Scorer as _;
use tantivy::query::{BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Searcher, Term};
use unicode_segmentation::UnicodeSegmentation;

use super::{Found, SegmentScope};
use crate::analyzer::is_cjk;
use crate::error::{Error, Result};
use crate::index::F_ORDER_KEY;
use crate::recall::topn::Scored;
use crate::recall::{RecallQuery, Recaller, lane};

impl Recaller {
    /// The tag lane of one recall: its report, and the chunks carrying the query's tags as candidates.
    /// Returns the query tags (empty when the lane is off).
    pub(in crate::recall) fn tag_step(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        found: &mut Found,
        pool: usize,
    ) -> Vec<String> {
        let started = Instant::now();
        if !self.settings.lane_on(lane::TAGS) {
            found.skipped(lane::TAGS, started);
            return Vec::new();
        }
        match self.infer_tags(searcher, &q.text, &q.scope).and_then(|tags| {
            let top = if tags.is_empty() { Vec::new() } else { self.tag_lane(searcher, &tags, q, pool)? };
            Ok((tags, top))
        }) {
            Ok((tags, top)) => {
                let status = if tags.is_empty() { LaneStatus::Skipped } else { LaneStatus::Ok };
                found.ran(lane::TAGS, status, top.len(), started);
                found.enter(top.iter().map(|c| (c.addr, c.score)), |c| &mut c.tags);
                tags
            }
            Err(e) => {
                found.failed(lane::TAGS, started, e);
                Vec::new()
            }
        }
    }

    /// Query tags: query words (and hyphen-joined runs of 2–3 words, and singular/plural forms) that are
    /// tags of at least one chunk in scope.
    fn infer_tags(&self, searcher: &Searcher, text: &str, scope: &Scope) -> Result<Vec<String>> {
        let f = &self.index.fields;
        let words = lower_words(text);
        let mut candidates: Vec<String> = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if w.chars().any(is_cjk) {
                continue;
            }
            if !crate::analyzer::STOP_WORDS.contains(&w.as_str()) {
                candidates.push(w.clone());
                candidates.push(format!("{w}s"));
                if let Some(stripped) = w.strip_suffix('s').filter(|s| s.len() > 2) {
                    candidates.push(stripped.to_owned());
                }
            }
            if i + 1 < words.len() {
                candidates.push(format!("{w}-{}", words[i + 1]));
                if i + 2 < words.len() {
                    candidates.push(format!("{w}-{}-{}", words[i + 1], words[i + 2]));
                }
            }
        }
        // CJK has no spaces: every substring (up to 8 characters) of a CJK run may be a tag.
        let chars: Vec<char> = text.chars().take(2048).collect();
        let mut i = 0;
        while i < chars.len() {
            if !is_cjk(chars[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            for a in start..i {
                for b in a + 1..=(a + 8).min(i) {
                    candidates.push(chars[a..b].iter().collect::<String>().to_lowercase());
                }
            }
        }
        let mut found = Vec::new();
        let mut seen = BTreeSet::new();
        for c in candidates {
            if !seen.insert(c.clone()) {
                continue;
            }
            let term = Term::from_field_text(f.tags, &c);
            if searcher.doc_freq(&term).map_err(Error::engine("search"))? == 0 {
                continue;
            }
            if self.any_in_scope(searcher, &term, scope)? {
                found.push(c);
            }
        }
        Ok(found)
    }

    /// Whether any alive chunk in scope has `term`.
    fn any_in_scope(&self, searcher: &Searcher, term: &Term, scope: &Scope) -> Result<bool> {
        for reader in searcher.segment_readers() {
            let seg = SegmentScope::new(reader, scope)?;
            if seg.excludes_all() {
                continue;
            }
            let inv = reader.inverted_index(term.field()).map_err(Error::engine("search"))?;
            let Some(mut postings) = inv
                .read_postings(term, IndexRecordOption::Basic)
                .map_err(|e| Error::Engine { action: "search", source: e.into() })?
            else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != tantivy::TERMINATED {
                if seg.admits(doc) {
                    return Ok(true);
                }
                doc = postings.advance();
            }
        }
        Ok(false)
    }

    /// Chunks carrying the query tags, most tags first; recency re-ranks them in fusion. When more
    /// chunks tie at the pool's lowest score than the pool holds, none of those tied chunks is kept:
    /// which of them would fit depends on index order, which differs between two builds of the same
    /// store, and tags that many chunks share tell nothing apart (their part still goes to the
    /// candidates of other lanes). So the lane gives the chunks (in scope) carrying at least `m` of the
    /// tags for the smallest `m` for which they fit in the pool: it counts, for `m` = 1, 2, …, the
    /// chunks carrying `m` tags or more, up to one more than the pool holds.
    fn tag_lane(
        &self,
        searcher: &Searcher,
        tags: &[String],
        q: &RecallQuery,
        pool: usize,
    ) -> Result<Vec<Scored>> {
        let f = &self.index.fields;
        let mut segments = Vec::new();
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let seg = SegmentScope::new(reader, &q.scope)?;
            if !seg.excludes_all() {
                let keys = reader.fast_fields().u64(F_ORDER_KEY).map_err(Error::engine("read fast field"))?;
                segments.push((ord as u32, seg, keys));
            }
        }
        for least in 1..=tags.len() {
            let clauses: Vec<(Occur, Box<dyn Query>)> = tags
                .iter()
                .map(|t| {
                    let tq = TermQuery::new(Term::from_field_text(f.tags, t), IndexRecordOption::Basic);
                    (Occur::Should, Box::new(ConstScoreQuery::new(Box::new(tq), 1.0)) as Box<dyn Query>)
                })
                .collect();
            let query = BooleanQuery::with_minimum_required_clauses(clauses, least);
            let weight = query
                .weight(EnableScoring::enabled_from_searcher(searcher))
                .map_err(Error::engine("search"))?;
            let mut found = Vec::with_capacity(pool + 1);
            'segments: for (ord, seg, keys) in &segments {
                let reader = searcher.segment_reader(*ord);
                let mut scorer = weight.scorer(reader, 1.0).map_err(Error::engine("search"))?;
                let mut doc = scorer.doc();
                while doc != tantivy::TERMINATED {
                    if seg.admits(doc) {
                        let key = keys.first(doc).unwrap_or(0);
                        found.push(Scored { score: scorer.score(), key, addr: DocAddress::new(*ord, doc) });
                        if found.len() > pool {
                            break 'segments;
                        }
                    }
                    doc = scorer.advance();
                }
            }
            if found.len() <= pool {
                found.sort_unstable();
                return Ok(found);
            }
        }
        Ok(Vec::new())
    }
}

/// How much of the query a chunk's matched tags stand for: the share of the query's idf weight carried
/// by the query words its matched tags came from (framing words weigh nothing), so a tag matched by a
/// common word among rarer ones ("work" in "how does photosynthesis work?") counts little and a tag
/// that is the query's subject counts fully. Without term weights (no lexical lane), each tag counts
/// as one word of the query.
pub(in crate::recall) struct TagShares {
    /// The query terms each query tag stands for (indices into the query's terms).
    terms_of: Vec<Vec<usize>>,
    /// Each query term's weight (its idf; 0 for a framing word), when the lexical lane weighed them.
    weight: Option<Vec<f32>>,
    /// The span a tag counts against without weights: the number of tags or terms, the larger.
    span: f32,
    /// Whether the query names each query tag as a tag ("tagged equipment", "the flat tag").
    named: Vec<bool>,
}

impl TagShares {
    /// Shares of `query_tags` against `terms` (weighted by `idf`, in term order, when known).
    pub(in crate::recall) fn new(
        query_tags: &[String],
        terms: &[super::lexical::QueryTerm],
        idf: Option<&[f32]>,
    ) -> Self {
        let terms_of = query_tags
            .iter()
            .map(|tag| {
                let words = crate::analyzer::analyze(&tag.replace('-', " "));
                (0..terms.len()).filter(|&i| words.contains(&terms[i].term)).collect()
            })
            .collect();
        let framing = crate::analyzer::framing();
        let weight = idf.filter(|w| w.len() == terms.len()).map(|w| {
            terms
                .iter()
                .zip(w)
                .map(|(t, &i)| if framing.binary_search(&t.term).is_ok() { 0.0 } else { i })
                .collect()
        });
        let named = vec![false; query_tags.len()];
        TagShares { terms_of, weight, span: query_tags.len().max(terms.len()).max(1) as f32, named }
    }

    /// The same shares, knowing which tags `text` (the query) names as tags ([`named_as_tag`]).
    pub(in crate::recall) fn named_in(mut self, text: &str, query_tags: &[String]) -> Self {
        if query_tags.is_empty() {
            return self;
        }
        let words = lower_words(text);
        let lower = text.to_lowercase();
        self.named = query_tags.iter().map(|tag| named_as_tag(&words, &lower, tag)).collect();
        self
    }

    /// Whether one of the tags at `matched` (indices into the query tags) is named as a tag.
    pub(in crate::recall) fn names_any(&self, matched: &[usize]) -> bool {
        matched.iter().any(|&t| self.named.get(t).copied().unwrap_or(false))
    }

    /// The share of the query that the tags at `matched` (indices into the query tags) stand for.
    pub(in crate::recall) fn share(&self, matched: &[usize]) -> f32 {
        let by_count = matched.len() as f32 / self.span;
        let Some(weight) = &self.weight else { return by_count };
        let total: f32 = weight.iter().sum();
        let covered: BTreeSet<usize> =
            matched.iter().flat_map(|&t| self.terms_of[t].iter().copied()).collect();
        if total <= 0.0 || covered.is_empty() {
            return by_count;
        }
        (covered.iter().map(|&i| weight[i]).sum::<f32>() / total).min(1.0)
    }
}

/// Words that make the word after them a tag's name: "tagged equipment", "tagged as flat".
const MARKS_BEFORE: &[&str] = &["tagged", "labelled", "labeled", "hashtag"];

/// Words that make the word before them a tag's name: "the flat tag", "my equipment tags".
const MARKS_AFTER: &[&str] = &["tag", "tags", "label", "labels", "tagged"];

/// Words that make a compound with "tag" rather than name one ("the price tag", "a name tag").
const TAG_COMPOUNDS: &[&str] = &["dog", "gift", "luggage", "name", "number", "price"];

/// The words of `text`, lower-cased, apostrophes made straight: what query tags are looked for in.
fn lower_words(text: &str) -> Vec<String> {
    text.unicode_words().map(|w| w.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'")).collect()
}

/// Whether the query (its words, and its lower-cased text) names `tag` as a tag: "#equipment", a word
/// that marks a tag just before it ("tagged equipment", "tagged as equipment"; not "tag team")
/// or just after it ("the equipment tag", "my equipment tags"; not "the price tag"). A chunk carrying
/// a tag so named is what the query asks for, whatever its words or meaning.
pub(in crate::recall) fn named_as_tag(words: &[String], lower: &str, tag: &str) -> bool {
    if lower.contains(&format!("#{tag}")) {
        return true;
    }
    let parts: Vec<&str> = tag.split('-').collect();
    let fits = |w: &str, part: &str, last: bool| {
        w == part || (last && (w.strip_suffix('s') == Some(part) || part.strip_suffix('s') == Some(w)))
    };
    let word = |i: usize| words.get(i).map(String::as_str);
    (0..words.len()).any(|a| {
        let b = a + parts.len();
        let here = b <= words.len()
            && parts.iter().enumerate().all(|(k, p)| fits(&words[a + k], p, k + 1 == parts.len()));
        if !here {
            return false;
        }
        let before = a.checked_sub(1).and_then(word);
        let marked_before = before.is_some_and(|w| MARKS_BEFORE.contains(&w))
            || (matches!(before, Some("as" | "with"))
                && a.checked_sub(2).and_then(word).is_some_and(|w| MARKS_BEFORE.contains(&w)));
        let marked_after = word(b).is_some_and(|w| MARKS_AFTER.contains(&w))
            && !(parts.len() == 1 && TAG_COMPOUNDS.contains(&parts[0]));
        marked_before || marked_after
    })
}

#[cfg(test)]
mod tests {
    use super::super::lexical::QueryTerm;
    use super::*;

    #[test]
    fn a_tag_is_named_by_the_words_beside_it() {
        let named = |q: &str, tag: &str| named_as_tag(&lower_words(q), &q.to_lowercase(), tag);
        for (q, tag) in [
            ("List everything tagged equipment.", "equipment"),
            ("What's under the flat tag?", "flat"),
            ("What have I tagged as pricing?", "pricing"),
            ("notes tagged with house", "house"),
            ("show me my #bees notes", "bees"),
            ("Which notes carry the suppliers tag?", "suppliers"),
            ("anything with the pedal steel tag", "pedal-steel"),
            ("my equipment tags", "equipment"),
        ] {
            assert!(named(q, tag), "{q}");
        }
        for (q, tag) in [
            ("what's the price tag on a new Tesla?", "price"),
            ("How do I buy equipment for a bakery?", "equipment"),
            ("is the flat in Leeds still for sale?", "flat"),
            ("tag team wrestling rules", "team"),
        ] {
            assert!(!named(q, tag), "{q}");
        }
    }

    fn terms(words: &[&str]) -> Vec<QueryTerm> {
        words
            .iter()
            .map(|w| QueryTerm { term: (*w).to_owned(), surface: (*w).to_owned(), clause: 0, quoted: false })
            .collect()
    }

    #[test]
    fn a_common_tag_word_among_rarer_ones_counts_for_its_weight() {
        // "how does photosynthesis work?": `work` is a tag, `photosynthesis` the subject.
        let t = terms(&["photosynthesi", "work"]);
        let shares = TagShares::new(&["work".to_owned()], &t, Some(&[6.0, 1.5]));
        assert!((shares.share(&[0]) - 0.2).abs() < 1e-6, "{}", shares.share(&[0]));
        // Without weights it counts as one word of two.
        assert_eq!(TagShares::new(&["work".to_owned()], &t, None).share(&[0]), 0.5);
    }

    #[test]
    fn a_tag_that_is_the_subject_counts_fully_and_terms_count_once() {
        let t = terms(&["home", "energi"]);
        let tags = ["home".to_owned(), "home-energy".to_owned()];
        let shares = TagShares::new(&tags, &t, Some(&[2.0, 3.0]));
        assert_eq!(shares.share(&[1]), 1.0);
        assert_eq!(shares.share(&[0, 1]), 1.0);
        assert!((shares.share(&[0]) - 0.4).abs() < 1e-6);
    }
}
