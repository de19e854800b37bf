//! The relevance floor: a query about nothing in memory gets no hits. Each candidate's relevance is
//! its best part among what says a query is about it ([`relevance`]): the share of the query's idf
//! weight its words cover (computed here for the head of the ranked list, where a relevant chunk
//! is), its calibrated cosine similarity, its tags, its date. When no candidate reaches
//! [`RecallSettings::floor`], recall has no hits, and [`Relevance`] says why (the best candidate's
//! relevance and parts, the floor). Relevance is on one absolute scale whatever the fusion that ranks
//! the candidates.
//!
//! [`RecallSettings::floor`]: super::RecallSettings::floor

use std::collections::{BTreeMap, BTreeSet};

use cairn_core::Relevance;
use tantivy::{DocAddress, Searcher};

use super::external::QueryWeights;
use super::fusion::{COVERAGE, Fused, calibrated_affinity, calibrated_cosine, relevance};
use super::hits::Matched;
use super::lanes::Affinity;
use super::lanes::date::QueryDates;
use super::lanes::lexical::{QueryTerm, TermWeights};
use super::world::World;
use super::{Recaller, lane, quantize};
use crate::analyzer::{framing, is_cjk};

/// The part of [`Relevance::parts`] holding the query's meaning part (its calibrated affinity to
/// memory), beside the best candidate's own parts.
const AFFINITY: &str = "affinity";

/// The share of the idf weight of a dated query's other words carried by words memory lacks from
/// which its date alone does not make a note relevant.
const DATE_UNKNOWN: f32 = 0.6;

/// The share of a query's idf weight on words memory lacks from which it is measured against made-up
/// prompts as well as general ones (`general.rs`): most of it, since a common word or two ("go",
/// "tell") is known to any memory.
const NONSENSE_UNKNOWN: f32 = 0.5;

/// Candidates at the head of the ranked list whose coverage is computed: a chunk that covers the
/// query ranks high in the lexical lane, so it is among them when it exists.
const COVERED_HEAD: usize = 30;

/// The query as the floor weighs it.
pub(super) struct Weighed<'a> {
    /// As written.
    pub(super) text: &'a str,
    /// It asks about the asker (`personal.rs`): it meets the personal floor.
    pub(super) personal: bool,
    /// Its analysed terms.
    pub(super) terms: &'a [QueryTerm],
    /// Each term's idf, when the lexical lane ran.
    pub(super) weights: Option<&'a TermWeights>,
    /// Its affinity to memory, with a model.
    pub(super) affinity: Option<Affinity>,
    /// The date ranges it names.
    pub(super) dates: &'a QueryDates,
}

impl Recaller {
    /// Sets the coverage part of the head of `fused` (in rank order), then empties `fused` when its
    /// best relevance is below the floor; says what it saw, and the query terms it found in the head
    /// (for the hits' `why`), and the query's terms with the weight each carries here (for hits from
    /// outside the index; `None` when the lexical lane did not weigh them).
    pub(super) fn apply_floor(
        &self,
        searcher: &Searcher,
        query: Weighed<'_>,
        fused: &mut Vec<Fused>,
        warnings: &mut Vec<String>,
    ) -> (Relevance, Matched, Option<QueryWeights>) {
        let Weighed { text, personal, terms, weights, affinity, dates } = query;
        let s = &self.settings;
        let mut matched = Matched::new();
        let mut query_weights = None;
        let weights = weights.filter(|w| w.idf.len() == terms.len());
        let weighed = weights.map(|w| weighed_idf(terms, w));
        if let Some(idf) = &weighed {
            let mut qw = QueryWeights::default();
            for (t, &i) in terms.iter().zip(idf) {
                qw.push(&t.term, &t.surface, i, t.clause);
            }
            query_weights = Some(qw);
            let total: f32 = idf.iter().sum();
            let head: Vec<(usize, DocAddress)> = fused
                .iter()
                .enumerate()
                .filter(|(_, f)| f.2.contains_key(lane::LEXICAL))
                .take(COVERED_HEAD)
                .map(|(i, f)| (i, f.1))
                .collect();
            let addrs: Vec<DocAddress> = head.iter().map(|(_, a)| *a).collect();
            match self.matched_terms(searcher, terms, &addrs) {
                Ok(sets) => {
                    for ((i, addr), set) in head.iter().zip(sets) {
                        if total > 0.0 {
                            fused[*i].2.insert(COVERAGE.to_owned(), quantize(coverage(terms, idf, &set)));
                        }
                        matched.insert(*addr, set);
                    }
                }
                Err(e) => warnings.push(format!("finding matched terms failed: {e}")),
            }
        }
        let floor = s.floor.max(0.0);
        let mut report = Relevance { floor, ..Relevance::default() };
        if let Some(w) = weights {
            report.unknown = quantize(unknown_share(&w.idf, &w.absent, |_| true)).max(0.0);
        }
        // A question about the asker meets the lower personal floor, and its nearest line counts from a
        // smaller lead. Made-up words asked about ("what is my zorblax?") stay empty: nonsense is
        // measured against made-up prompts below, and such a question passes by its nearest line only.
        if floor > 0.0 && personal {
            report.personal = true;
            report.floor = floor.min(s.personal_floor.max(0.0));
        }
        // A query most of whose words memory lacks is a paraphrase or nonsense: it is measured against
        // made-up prompts too (`general.rs`).
        let affinity = if report.unknown >= NONSENSE_UNKNOWN {
            affinity.map(Affinity::with_unknown_words)
        } else {
            affinity
        };
        let meaning = affinity.map(|a| {
            let form = s.calibration.form_weight * a.form();
            let lead = calibrated_affinity(a.lead() + form, &s.calibration);
            // A query none of whose words memory uses (made-up words, or all of them paraphrased)
            // must also come close to a note on its own: against nonsense, memory and the general
            // prompts are equally far, and their difference is noise.
            let unknown = report.unknown >= 0.999;
            let alone = if unknown { calibrated_cosine(a.nearest, &s.calibration) } else { lead };
            let margin = s.calibration.line_lead_margin;
            let line = if margin > 0.0 {
                let margin = if report.personal {
                    margin.min(s.calibration.personal_line_margin.max(0.0))
                } else {
                    margin
                };
                let lead = calibrated_affinity(a.line_lead() + form - margin, &s.calibration);
                if unknown { lead.min(calibrated_cosine(a.line, &s.calibration)) } else { lead }
            } else {
                0.0
            };
            // A question about the asker none of whose words memory uses meets the personal floor by
            // its nearest line only: its frame ("who is my …?") is near memory's own questions
            // whatever it names, so its meaning as a whole counts from the ordinary floor.
            let whole = lead.min(alone);
            let whole = if unknown && report.personal && whole < floor { 0.0 } else { whole };
            quantize(whole.max(line))
        });
        // A prompt that asks of the world ("how does a heat pump work?", "draft a polite email …") is
        // relevant by its words alone, or by none (`World`): near the notes in meaning, it asks how
        // things are, or for something new, not what the notes hold.
        let world =
            if s.world_needs_words && !report.personal { World::of(text, report.unknown) } else { World::No };
        report.world = world != World::No;
        // A date in a question that otherwise asks of what memory lacks ("who did Manchester United
        // sign this summer?") names a time, not a note: the notes of that time must also hold its
        // words or its meaning. A question about the asker ("what did I do this summer?") or one the
        // date is all of ("what happened last week?") keeps it.
        if !report.personal
            && !dates.is_empty()
            && let (Some(w), Some(idf)) = (weights, &weighed)
        {
            let beside_dates = |i: usize| !dates.names(&terms[i].surface);
            report.undated = unknown_share(idf, &w.absent, beside_dates) >= DATE_UNKNOWN;
        }
        let floor = report.floor;
        if let Some(a) = affinity {
            report.memory = Some(quantize(a.memory));
            report.general = Some(quantize(a.general));
            report.line = Some(quantize(a.line));
            report.questions = Some(quantize(a.questions));
        }
        for (_, _, parts) in fused.iter() {
            let r = quantize(relevance(parts, &s.calibration, meaning, world, report.undated));
            if r > report.best || report.parts.is_empty() {
                report.best = r;
                report.parts = parts.clone();
                if let Some(m) = meaning.filter(|_| world == World::No && parts.contains_key(lane::VECTOR)) {
                    report.parts.insert(AFFINITY.to_owned(), m);
                }
            }
        }
        if floor > 0.0 && report.best < floor {
            report.below = fused.len();
            fused.clear();
        }
        (report, matched, query_weights)
    }
}

/// The share of the weight `idf` of the terms `keep` takes (by index) that the terms memory lacks
/// (`absent`) carry; 0 when they weigh nothing.
fn unknown_share(idf: &[f32], absent: &[bool], keep: impl Fn(usize) -> bool) -> f32 {
    let (mut total, mut unknown) = (0.0f32, 0.0f32);
    for (_, (&w, &a)) in idf.iter().zip(absent).enumerate().filter(|(i, _)| keep(*i)) {
        total += w;
        if a {
            unknown += w;
        }
    }
    if total > 0.0 { unknown / total } else { 0.0 }
}

/// Each query term's idf as coverage weighs it: words that frame a question ("current status",
/// "catch me up") weigh nothing unless the query quotes them ("the Polish word for 'thank you'"), nor
/// does a CJK bigram found nowhere (most likely one that bridges two
/// words: 北京的故宫 → 京的, 的故): neither says what the query asks about.
pub(super) fn weighed_idf(terms: &[QueryTerm], w: &TermWeights) -> Vec<f32> {
    let framing = framing();
    terms
        .iter()
        .zip(w.idf.iter().zip(&w.absent))
        .map(|(t, (&i, &absent))| {
            let bridging = absent && t.term.chars().any(is_cjk);
            if bridging || !t.quoted && framing.binary_search(&t.term).is_ok() { 0.0 } else { i }
        })
        .collect()
}

/// The share of the query's weight (`idf`, from [`weighed_idf`]) that the terms `set` (indexes into
/// `terms`) cover: each clause's share, the best of them.
pub(super) fn coverage(terms: &[QueryTerm], idf: &[f32], set: &BTreeSet<usize>) -> f32 {
    let mut total: BTreeMap<usize, f32> = BTreeMap::new();
    for (t, i) in terms.iter().zip(idf) {
        *total.entry(t.clause).or_default() += i;
    }
    let mut covered: BTreeMap<usize, f32> = BTreeMap::new();
    for &t in set {
        *covered.entry(terms[t].clause).or_default() += idf[t];
    }
    covered.iter().map(|(c, w)| w / total[c].max(f32::MIN_POSITIVE)).fold(0.0f32, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query term in clause `clause`, quoted or not.
    fn term(term: &str, clause: usize, quoted: bool) -> QueryTerm {
        QueryTerm { term: term.to_owned(), surface: term.to_owned(), clause, quoted }
    }

    #[test]
    fn framing_words_weigh_nothing_unless_quoted() {
        // "What is the Polish word for 'thank you'?": "thank" frames small talk, but here it is asked about.
        let w = TermWeights { idf: vec![3.0, 2.0, 4.0], absent: vec![false; 3] };
        let asked = [term("polish", 0, false), term("word", 0, false), term("thank", 0, true)];
        assert_eq!(weighed_idf(&asked, &w), [3.0, 2.0, 4.0]);
        let framing = [term("polish", 0, false), term("word", 0, false), term("thank", 0, false)];
        assert_eq!(weighed_idf(&framing, &w), [3.0, 2.0, 0.0]);
        // A note about Polish lessons that holds "polish" and "word" covers little of the question.
        let idf = weighed_idf(&asked, &w);
        assert!(coverage(&asked, &idf, &BTreeSet::from([0, 1])) < 0.6);
    }

    #[test]
    fn coverage_is_the_best_clause() {
        let terms = [term("apollo", 0, false), term("storm", 1, false), term("alert", 1, false)];
        let idf = [2.0, 1.0, 1.0];
        assert_eq!(coverage(&terms, &idf, &BTreeSet::from([0])), 1.0);
        assert_eq!(coverage(&terms, &idf, &BTreeSet::from([1])), 0.5);
    }
}
