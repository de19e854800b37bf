//! BM25 statistics of a scope: everything BM25 counts, counted over the documents the query may see.
//!
//! Index-wide statistics are wrong for a scoped query twice over. A word that is rare in the index but
//! common in one project (its name, its people) gets a high IDF and drowns the words that tell that
//! project's documents apart. And a public-only caller's scores would depend on how many private
//! documents hold a word, or how long they are. So when the scope restricts anything, document
//! frequencies, the number of documents and the number of tokens per field (the average length, summed
//! from the fieldnorms) are all counted over the documents in scope.
//!
//! Counting walks a term's postings (or a field's norms) once per segment. Segments never change, so
//! each count is cached under (segment, scope, what) and a commit only adds counts for its new segments.
//! Like the index's own statistics, counts include deleted documents until a merge drops them, so a
//! count never depends on when it was taken.

use std::collections::HashMap;
use std::sync::Mutex;

use cairn_core::Scope;
use tantivy::index::SegmentId;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, Searcher, SegmentReader, TERMINATED, Term};

use crate::recall::SegmentScope;

/// Counts kept before the cache starts over (each entry is a few dozen bytes).
const MAX_ENTRIES: usize = 1 << 18;

/// What is counted over the documents in scope.
#[derive(Clone, PartialEq, Eq, Hash)]
enum What {
    Docs,
    Tokens(Field),
    DocFreq(Term),
}

/// What a count is cached under: the segment, the scope (project, private items allowed), and what.
type Key = (SegmentId, Option<String>, bool, What);

/// Cached per-segment counts of documents in scope, shared by every search of one [`crate::Recaller`].
#[derive(Default)]
pub(crate) struct ScopeCounts {
    counts: Mutex<HashMap<Key, u64>>,
}

impl std::fmt::Debug for ScopeCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeCounts").finish_non_exhaustive()
    }
}

impl ScopeCounts {
    fn get_or(&self, key: Key, count: impl FnOnce() -> tantivy::Result<u64>) -> tantivy::Result<u64> {
        if let Some(n) = self.counts.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(*n);
        }
        let n = count()?;
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if counts.len() >= MAX_ENTRIES {
            counts.clear();
        }
        counts.insert(key, n);
        Ok(n)
    }
}

/// Whether a scope sees every document, so the index's own statistics are the scope's.
pub(crate) fn sees_everything(scope: &Scope) -> bool {
    scope.project.is_none() && scope.allow_private
}

/// [`Bm25StatisticsProvider`] for one search in one scope.
pub(crate) struct ScopedStats<'a> {
    searcher: &'a Searcher,
    scope: &'a Scope,
    counts: &'a ScopeCounts,
    /// Documents in scope, summed over segments.
    docs: u64,
}

impl<'a> ScopedStats<'a> {
    /// Counts (or finds in `counts`) the documents in scope.
    pub(crate) fn new(
        searcher: &'a Searcher,
        scope: &'a Scope,
        counts: &'a ScopeCounts,
    ) -> crate::Result<Self> {
        let mut stats = ScopedStats { searcher, scope, counts, docs: 0 };
        stats.docs = stats.count(What::Docs).map_err(crate::Error::engine("count documents in scope"))?;
        Ok(stats)
    }

    /// `what`, counted over the documents in scope and summed over segments.
    fn count(&self, what: What) -> tantivy::Result<u64> {
        let mut total = 0;
        for reader in self.searcher.segment_readers() {
            total += self.count_in(reader, &what)?;
        }
        Ok(total)
    }

    fn count_in(&self, reader: &SegmentReader, what: &What) -> tantivy::Result<u64> {
        let key = |what: &What| {
            (reader.segment_id(), self.scope.project.clone(), self.scope.allow_private, what.clone())
        };
        let scope = || {
            SegmentScope::new(reader, self.scope)
                .map_err(|e| tantivy::TantivyError::InternalError(e.to_string()))
        };
        let docs = self.counts.get_or(key(&What::Docs), || {
            let seg = scope()?;
            if seg.excludes_all() {
                return Ok(0);
            }
            Ok((0..reader.max_doc()).map(|doc| u64::from(seg.in_scope(doc))).sum())
        })?;
        match what {
            What::Docs => Ok(docs),
            _ if docs == 0 => Ok(0),
            // A segment wholly in scope (a store of one project): its own document frequency, exact.
            What::DocFreq(term) if docs == u64::from(reader.max_doc()) => {
                Ok(u64::from(reader.inverted_index(term.field())?.doc_freq(term)?))
            }
            _ => self.counts.get_or(key(what), || {
                let seg = scope()?;
                let mut n = 0u64;
                match what {
                    What::Docs => {}
                    What::Tokens(field) => {
                        let norms = reader.get_fieldnorms_reader(*field)?;
                        for doc in 0..reader.max_doc() {
                            if seg.in_scope(doc) {
                                n += u64::from(norms.fieldnorm(doc));
                            }
                        }
                    }
                    What::DocFreq(term) => {
                        let inverted = reader.inverted_index(term.field())?;
                        if let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? {
                            let mut doc = postings.doc();
                            while doc != TERMINATED {
                                n += u64::from(seg.in_scope(doc));
                                doc = postings.advance();
                            }
                        }
                    }
                }
                Ok(n)
            }),
        }
    }
}

impl Bm25StatisticsProvider for ScopedStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.count(What::Tokens(field))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.count(What::DocFreq(term.clone()))
    }
}
