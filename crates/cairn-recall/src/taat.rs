//! Term-at-a-time scoring for the lexical lane: each clause's postings are added, block by block, into
//! one score per document of the segment; then every document touched is offered once.
//!
//! Block-max WAND pays for its skipping on every document it does score (it keeps its term cursors
//! sorted, asks each for its block maximum, seeks the others). That pays off when a rare term makes
//! most of the common terms' postings skippable; it does not when no clause can be skipped: a query of
//! a few words of similar frequency, where every match may still reach the pool. There a straight pass
//! costs less per posting of the query than WAND does (on the 100k bench store 3–14 ns against 5–30,
//! with no data-dependent branch per document). The lexical lane picks this path from the number of
//! postings a query reads (see `Plan` in `recall/lanes/lexical.rs`).
//!
//! Scores come out canonical: each clause's score is added in clause order, starting from zero, the
//! same sum the lexical lane's `rescore` computes, so nothing here depends on the index layout.

use std::cell::RefCell;

use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::{Bm25StatisticsProvider, Bm25Weight};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, Score, Searcher, SegmentReader, Term};

/// One clause's BM25 weight exactly as its (boosted) term query computes it, less the explanation.
pub(crate) fn clause_weight(
    statistics: &dyn Bm25StatisticsProvider,
    term: &Term,
    boost: f32,
) -> tantivy::Result<Bm25Weight> {
    Ok(weighted(statistics, term, boost)?.0)
}

/// [`clause_weight`], with the term's document frequency as `statistics` counts it.
fn weighted(
    statistics: &dyn Bm25StatisticsProvider,
    term: &Term,
    boost: f32,
) -> tantivy::Result<(Bm25Weight, u64)> {
    let total_docs = statistics.total_num_docs()?;
    let tokens = statistics.total_num_tokens(term.field())?;
    let df = statistics.doc_freq(term)?;
    let weight = Bm25Weight::for_one_term_without_explain(df, total_docs, tokens as f32 / total_docs as f32)
        .boost_by(boost);
    Ok((weight, df))
}

/// The clauses of one lexical query, weighted, in clause order.
pub(crate) struct Clauses {
    clauses: Vec<(Term, Bm25Weight)>,
    /// The clauses' document frequencies as the weights' statistics counted them, summed.
    counted: u64,
}

impl Clauses {
    /// Weights every clause of `specs` (term, boost) with `statistics`.
    pub(crate) fn new(
        statistics: &dyn Bm25StatisticsProvider,
        specs: &[(Term, f32)],
    ) -> tantivy::Result<Self> {
        let mut counted = 0;
        let mut clauses = Vec::with_capacity(specs.len());
        for (term, boost) in specs {
            let (weight, df) = weighted(statistics, term, *boost)?;
            counted += df;
            clauses.push((term.clone(), weight));
        }
        Ok(Clauses { clauses, counted })
    }

    /// How many postings a term-at-a-time pass over `searcher` reads (deleted documents included).
    /// `weighted_by_searcher`: the weights' statistics were the searcher's own, whose document
    /// frequencies are those counts already (no second lookup of every term).
    pub(crate) fn postings(&self, searcher: &Searcher, weighted_by_searcher: bool) -> tantivy::Result<u64> {
        if weighted_by_searcher {
            return Ok(self.counted);
        }
        self.clauses.iter().try_fold(0u64, |sum, (term, _)| Ok(sum + searcher.doc_freq(term)?))
    }

    /// Calls `callback(doc, score)` for every document of `reader` matching a clause whose score
    /// exceeds the threshold in force (the last value `callback` returned, `threshold` at first), as
    /// [`tantivy::query::Weight::for_each_pruning`] does; documents come in no particular order.
    pub(crate) fn for_each_pruning(
        &self,
        threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        ACCUMULATOR.with_borrow_mut(|acc| {
            let max_doc = reader.max_doc() as usize;
            acc.prepare(max_doc);
            let pages = max_doc.div_ceil(PAGE);
            let (scores, marks) = (&mut acc.scores[..max_doc], &mut acc.marks[..pages]);
            let filled = self.accumulate(reader, scores, marks);
            // Offer, and leave everything zeroed for the next segment, whatever happened.
            let mut above = threshold;
            for (page, mark) in marks.iter_mut().enumerate() {
                if std::mem::take(mark) == 0 {
                    continue;
                }
                let first = page * PAGE;
                let slots = &mut scores[first..(first + PAGE).min(max_doc)];
                // Most pages hold nothing above the threshold: one branch-free test for the page.
                if filled.is_ok() && slots.iter().fold(false, |any, &s| any | (s > above)) {
                    for (doc, &score) in (first..).zip(slots.iter()) {
                        if score > above {
                            above = callback(doc as DocId, score);
                        }
                    }
                }
                slots.fill(0.0);
            }
            acc.dirty = false;
            filled
        })
    }

    /// Adds every clause's scores into `scores`, marking in `marks` each page of [`PAGE`] documents
    /// given a score.
    fn accumulate(
        &self,
        reader: &SegmentReader,
        scores: &mut [Score],
        marks: &mut [u8],
    ) -> tantivy::Result<()> {
        for (term, weight) in &self.clauses {
            let inverted = reader.inverted_index(term.field())?;
            let Some(mut postings) = inverted.read_block_postings(term, IndexRecordOption::WithFreqs)? else {
                continue;
            };
            let norms = match reader.fieldnorms_readers().get_field(term.field())? {
                Some(norms) => norms,
                None => FieldNormReader::constant(reader.max_doc(), 1),
            };
            loop {
                let docs = postings.docs();
                if docs.is_empty() {
                    break;
                }
                for (&doc, &tf) in docs.iter().zip(postings.freqs()) {
                    scores[doc as usize] += weight.score(norms.fieldnorm_id(doc), tf);
                    // A plain store, not a read-modify-write: no chain from one posting to the next.
                    marks[doc as usize / PAGE] = 1;
                }
                postings.advance();
            }
        }
        Ok(())
    }
}

/// Documents per page of the accumulator: the offer pass skips pages no posting touched.
const PAGE: usize = 64;

/// Per-thread scratch: a score per document of the segment being searched and a mark per page of
/// [`PAGE`] documents, all zero between searches. `dirty` while a search runs: one that panicked
/// midway (say, in a caller's callback) is cleaned up by the next.
#[derive(Default)]
struct Accumulator {
    scores: Vec<Score>,
    marks: Vec<u8>,
    dirty: bool,
}

impl Accumulator {
    fn prepare(&mut self, max_doc: usize) {
        if std::mem::replace(&mut self.dirty, true) {
            self.scores.fill(0.0);
            self.marks.fill(0);
        }
        if self.scores.len() < max_doc {
            self.scores.resize(max_doc, 0.0);
            self.marks.resize(max_doc.div_ceil(PAGE), 0);
        }
    }
}

thread_local! {
    static ACCUMULATOR: RefCell<Accumulator> = RefCell::new(Accumulator::default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_that_stopped_midway_leaves_nothing_behind() {
        ACCUMULATOR.with_borrow_mut(|acc| {
            acc.prepare(1000);
            // As a panic in the middle of a search would leave it.
            acc.scores[7] = 3.0;
            acc.marks[0] = 1;
        });
        ACCUMULATOR.with_borrow_mut(|acc| {
            acc.prepare(500);
            assert!(acc.scores.iter().all(|&s| s == 0.0) && acc.marks.iter().all(|&m| m == 0));
            acc.dirty = false;
            acc.scores[7] = 3.0;
            acc.prepare(500);
            assert_eq!(acc.scores[7], 3.0, "a finished search is trusted to have cleaned up");
        });
    }
}
