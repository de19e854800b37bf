//! The lexical lane: BM25 over title (boosted), body and context (damped), an OR of the query's
//! analysed terms, scope checked per document.
//!
//! A query is scored by one of two [`Plan`]s: term at a time over its clauses ([`taat`]) when its
//! postings are few enough, else block-max WAND (always behind a project filter), over one or two
//! groups of segments (two when a recall shares its work with the helper thread). WAND's sums depend
//! on its threshold's path, so its pool keeps near ties ([`Pool`]) and is then rescored in clause
//! order ([`rescore`]): the hits do not depend on the index layout or on the threads.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering as AtomicOrdering};
use std::time::Instant;

use cairn_core::helper::Helper;
use cairn_core::{LaneStatus, Scope};
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::Postings as _;
use tantivy::query::{
    Bm25StatisticsProvider, Bm25Weight, BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring, Occur,
    Query, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, DocSet, Searcher, SegmentReader, Term};

use super::clauses::{clause_starts, quoted};
use super::{Found, SegmentScope};
use crate::analyzer::for_each_term;
use crate::error::{Error, Result};
use crate::index::F_ORDER_KEY;
use crate::recall::topn::{Pool, Scored};
use crate::recall::{RecallQuery, Recaller, lane};
use crate::stats::{self, ScopedStats};
use crate::taat;

/// A query term: its analysed form and the query word it came from.
#[derive(Debug, Clone)]
pub(in crate::recall) struct QueryTerm {
    pub(in crate::recall) term: String,
    pub(in crate::recall) surface: String,
    /// Which clause of the query it first occurs in ([`clause_starts`]).
    pub(in crate::recall) clause: usize,
    /// Whether the query quotes it somewhere ([`quoted`]).
    pub(in crate::recall) quoted: bool,
}

/// How the lexical lane scores one query: term at a time over its clauses ([`taat`]), or block-max
/// WAND over the boolean query when its postings are too many to read them all (or a project filter
/// is one of its clauses).
#[derive(Clone)]
enum Plan {
    Wand(Arc<dyn Weight>),
    Terms(Arc<taat::Clauses>),
}

/// Which [`Plan`] the lexical lane uses: chosen by cost, or (for tests) forced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::recall) enum Scoring {
    Auto,
    Wand,
    /// Term at a time whatever the cost (tests compare the two plans).
    #[cfg(test)]
    Terms,
}

impl Scoring {
    /// Whether term at a time is forced.
    #[cfg(test)]
    fn forces_terms(self) -> bool {
        self == Scoring::Terms
    }

    /// Whether term at a time is forced (only tests force it).
    #[cfg(not(test))]
    fn forces_terms(self) -> bool {
        false
    }
}

/// A term-at-a-time pass reads every posting of every clause, at a few nanoseconds each; block-max
/// WAND reads fewer when it can skip, but pays for that on every document it scores. Up to this many
/// postings per document of the index the pass was faster in every band of query sizes measured (the
/// 100k bench store, up to 5.2 per document; see `BENCHMARKS.md`); past it, WAND has more to skip.
const TERMS_MAX_POSTINGS_PER_DOC: f64 = 4.0;

impl Plan {
    fn for_each_pruning(
        &self,
        threshold: f32,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, f32) -> f32,
    ) -> tantivy::Result<()> {
        match self {
            Plan::Wand(weight) => weight.for_each_pruning(threshold, reader, callback),
            Plan::Terms(clauses) => clauses.for_each_pruning(threshold, reader, callback),
        }
    }
}

/// The segments block-max WAND searches (it skips those holding nothing in scope), in two groups when
/// `parallel` and there are two or more: balanced by document count, larger segments first, so the
/// grouping depends on the index layout alone.
fn split_segments(searcher: &Searcher, parallel: bool) -> (Vec<u32>, Vec<u32>) {
    let mut segs: Vec<(u32, u32)> =
        searcher.segment_readers().iter().enumerate().map(|(ord, r)| (r.max_doc(), ord as u32)).collect();
    if !parallel || segs.len() < 2 {
        return (segs.into_iter().map(|(_, ord)| ord).collect(), Vec::new());
    }
    segs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    let (mut a, mut b) = (0u64, 0u64);
    for (docs, ord) in segs {
        if a <= b {
            a += u64::from(docs);
            mine.push(ord);
        } else {
            b += u64::from(docs);
            theirs.push(ord);
        }
    }
    mine.sort_unstable();
    theirs.sort_unstable();
    (mine, theirs)
}

/// The lexical plan over the segments `ords` (in that order), documents out of `scope` left out.
fn search_segments(
    searcher: &Searcher,
    plan: &Plan,
    scope: &Scope,
    ords: &[u32],
    pool: &mut Pool,
) -> Result<()> {
    for &ord in ords {
        let reader = searcher.segment_reader(ord);
        let seg = SegmentScope::new(reader, scope)?;
        if seg.excludes_all() {
            continue;
        }
        // No `order_key` yet: the pool keeps every document tying with its last place (they are
        // within `NEAR`), so which of them its heap holds does not matter; [`set_order_keys`] reads
        // the keys of the few that remain.
        plan.for_each_pruning(pool.offer_above(), reader, &mut |doc, score| {
            if seg.admits(doc) {
                pool.push(Scored { score, key: 0, addr: DocAddress::new(ord, doc) });
            }
            pool.offer_above()
        })
        .map_err(Error::engine("search"))?;
    }
    Ok(())
}

/// Sets each candidate's `key` to its chunk's `order_key`.
fn set_order_keys(searcher: &Searcher, found: &mut [Scored]) -> Result<()> {
    found.sort_unstable_by_key(|s| s.addr);
    for group in found.chunk_by_mut(|a, b| a.addr.segment_ord == b.addr.segment_ord) {
        let reader = searcher.segment_reader(group[0].addr.segment_ord);
        let keys = reader.fast_fields().u64(F_ORDER_KEY).map_err(Error::engine("read fast field"))?;
        for s in group {
            s.key = keys.first(s.addr.doc_id).unwrap_or(0);
        }
    }
    Ok(())
}

/// Gives each of `found` its canonical BM25 score: the term scores of its clauses (`specs`, each a
/// term and its boost) added in clause order. Block-max WAND adds them in an order that depends on how
/// its threshold moved, which depends on the index layout, so its sums can differ in the last bit
/// between two builds of one store; these cannot.
fn rescore(
    searcher: &Searcher,
    statistics: &dyn Bm25StatisticsProvider,
    specs: &[(Term, f32)],
    found: &mut [Scored],
) -> Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    let search = |e: tantivy::TantivyError| Error::Engine { action: "search", source: e };
    // Each clause's BM25 weight, as its term query computes it, made on first use: a term absent
    // from every segment needs none.
    let mut weights: Vec<Option<Bm25Weight>> = specs.iter().map(|_| None).collect();
    let mut weight = |c: usize| -> Result<Bm25Weight> {
        if let Some(w) = &weights[c] {
            return Ok(w.clone());
        }
        let (term, boost) = &specs[c];
        let w = taat::clause_weight(statistics, term, *boost).map_err(search)?;
        weights[c] = Some(w.clone());
        Ok(w)
    };
    let mut parts = vec![0.0f32; found.len() * specs.len()];
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_unstable_by_key(|&i| found[i].addr);
    for group in order.chunk_by(|&a, &b| found[a].addr.segment_ord == found[b].addr.segment_ord) {
        let reader = searcher.segment_reader(found[group[0]].addr.segment_ord);
        for (c, (term, _)) in specs.iter().enumerate() {
            let inv = reader.inverted_index(term.field()).map_err(search)?;
            let Some(mut postings) = inv
                .read_postings(term, IndexRecordOption::WithFreqs)
                .map_err(|e| Error::Engine { action: "search", source: e.into() })?
            else {
                continue;
            };
            let norms = match reader.fieldnorms_readers().get_field(term.field()).map_err(search)? {
                Some(norms) => norms,
                None => FieldNormReader::constant(reader.max_doc(), 1),
            };
            let w = weight(c)?;
            for &i in group {
                let doc = found[i].addr.doc_id;
                if postings.doc() <= doc && postings.seek(doc) == doc {
                    parts[i * specs.len() + c] = w.score(norms.fieldnorm_id(doc), postings.term_freq());
                }
            }
        }
    }
    for (i, s) in found.iter_mut().enumerate() {
        s.score = parts[i * specs.len()..(i + 1) * specs.len()].iter().fold(0.0, |sum, p| sum + p);
    }
    Ok(())
}

impl Recaller {
    /// The lexical lane of one recall: its report, and its best `pool` chunks as candidates. Returns
    /// their addresses, best first (hits the helper thread may read ahead).
    pub(in crate::recall) fn lexical_step(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        found: &mut Found,
        terms: &[QueryTerm],
        pool: usize,
        parallel: bool,
    ) -> Vec<DocAddress> {
        let started = Instant::now();
        if !self.settings.lane_on(lane::LEXICAL) || terms.is_empty() {
            found.skipped(lane::LEXICAL, started);
            return Vec::new();
        }
        match self.lexical(searcher, terms, &q.scope, pool, parallel, Scoring::Auto) {
            Ok((top, term_idf)) => {
                found.term_idf = Some(term_idf);
                found.ran(lane::LEXICAL, LaneStatus::Ok, top.len(), started);
                found.enter(top.iter().map(|c| (c.addr, c.score)), |c| &mut c.lexical);
                top.iter().map(|c| c.addr).collect()
            }
            Err(e) => {
                found.failed(lane::LEXICAL, started, e);
                Vec::new()
            }
        }
    }

    /// Distinct analysed terms of the query, in order; the rarest `max_query_terms` when there are more.
    pub(in crate::recall) fn query_terms(&self, searcher: &Searcher, text: &str) -> Vec<QueryTerm> {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let mut out: Vec<QueryTerm> = Vec::new();
        let starts = clause_starts(text);
        let clause_of_byte = |at: usize| starts.partition_point(|&s| s <= at).saturating_sub(1);
        let quotations = quoted(text);
        for_each_term(text, |t, from, to| {
            let quoted = quotations.iter().any(|q| q.contains(&from));
            match seen.get(t) {
                Some(&i) => out[i].quoted |= quoted,
                None => {
                    seen.insert(t.to_owned(), out.len());
                    let clause = clause_of_byte(from);
                    let surface = text[from..to].to_lowercase();
                    out.push(QueryTerm { term: t.to_owned(), surface, clause, quoted });
                }
            }
        });
        // A clause of one term joins the next one (or the previous, at the end).
        let mut sizes: std::collections::BTreeMap<usize, usize> = Default::default();
        for t in &out {
            *sizes.entry(t.clause).or_default() += 1;
        }
        let clauses: Vec<usize> = sizes.keys().copied().collect();
        let merged: std::collections::BTreeMap<usize, usize> = clauses
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let into = if sizes[&c] > 1 || clauses.len() == 1 {
                    c
                } else {
                    clauses.get(i + 1).or_else(|| i.checked_sub(1).map(|p| &clauses[p])).copied().unwrap_or(c)
                };
                (c, into)
            })
            .collect();
        for t in &mut out {
            t.clause = merged[&t.clause];
        }
        let max = self.settings.max_query_terms.max(1);
        if out.len() > max {
            let body = self.index.fields.body;
            let mut with_df: Vec<(u64, usize, QueryTerm)> = out
                .into_iter()
                .enumerate()
                .map(|(i, t)| (searcher.doc_freq(&Term::from_field_text(body, &t.term)).unwrap_or(0), i, t))
                .collect();
            with_df.sort_by_key(|(df, i, _)| (*df, *i));
            with_df.truncate(max);
            with_df.sort_by_key(|(_, i, _)| *i);
            out = with_df.into_iter().map(|(_, _, t)| t).collect();
        }
        out
    }

    /// Every scored clause of the lexical lane: a term in a field, with its boost, in clause order.
    fn lexical_clauses(&self, terms: &[QueryTerm], contexts: bool) -> Vec<(Term, f32)> {
        let f = &self.index.fields;
        let mut specs = Vec::with_capacity(terms.len() * 3);
        for t in terms {
            specs.push((Term::from_field_text(f.body, &t.term), 1.0));
            if self.settings.title_boost > 0.0 {
                specs.push((Term::from_field_text(f.title, &t.term), self.settings.title_boost));
            }
            if self.settings.context_boost > 0.0 && contexts {
                specs.push((Term::from_field_text(f.context, &t.term), self.settings.context_boost));
            }
        }
        specs
    }

    /// BM25 over title (boosted), body and context (damped), an OR of the terms, scope checked per
    /// document: scored term at a time ([`taat`]), or by block-max WAND when the query's postings are
    /// very many or a project filter drives the search (its pool then rescored in clause order,
    /// [`rescore`]). Also returns each term's idf ([`term_idf`]), in term order.
    pub(in crate::recall) fn lexical(
        &self,
        searcher: &Searcher,
        terms: &[QueryTerm],
        scope: &Scope,
        pool: usize,
        parallel: bool,
        scoring: Scoring,
    ) -> Result<(Vec<Scored>, TermWeights)> {
        let f = &self.index.fields;
        // Without any context in the index, its clauses could only look up absent terms.
        let contexts = self.shape(searcher).contexts;
        let specs = self.lexical_clauses(terms, contexts);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = specs
            .iter()
            .map(|(term, boost)| {
                let q = TermQuery::new(term.clone(), IndexRecordOption::WithFreqs);
                let q: Box<dyn Query> =
                    if *boost == 1.0 { Box::new(q) } else { Box::new(BoostQuery::new(Box::new(q), *boost)) };
                (Occur::Should, q)
            })
            .collect();
        // A project much smaller than the index: drive the search by its posting list instead of pruning
        // a union over everything (WAND's threshold rises slowly when most good documents are out of scope).
        let mut filtered = false;
        if let Some(p) = &scope.project {
            let term = Term::from_field_text(f.project, p);
            let df = searcher.doc_freq(&term).map_err(Error::engine("search"))?;
            if df.saturating_mul(8) < searcher.num_docs() {
                let filter = TermQuery::new(term, IndexRecordOption::Basic);
                clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(filter), 0.0))));
                filtered = true;
            }
        }
        let query = BooleanQuery::new(clauses);
        // The project filter is a clause of the boolean query only: that query is for WAND.
        let scoring = if filtered { Scoring::Wand } else { scoring };
        self.top_n(searcher, &query, &specs, scoring, scope, pool, parallel)
    }

    /// The best `n` of `query` (whose scored clauses are `specs`) in `scope`, and the idf of each
    /// term (its body clause) under the same statistics. Unless `scoring` is [`Scoring::Wand`], the query
    /// must be the plain OR of `specs` (it may be scored term at a time).
    #[allow(clippy::too_many_arguments)]
    fn top_n(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        specs: &[(Term, f32)],
        scoring: Scoring,
        scope: &Scope,
        n: usize,
        parallel: bool,
    ) -> Result<(Vec<Scored>, TermWeights)> {
        let scoped = if self.settings.scoped_statistics && !stats::sees_everything(scope) {
            Some(ScopedStats::new(searcher, scope, &self.scope_counts)?)
        } else {
            None
        };
        let statistics: &dyn Bm25StatisticsProvider = match &scoped {
            Some(s) => s,
            None => searcher,
        };
        let plan = choose_plan(searcher, query, specs, scoring, statistics, scoped.is_none())?;
        let pools = search_pools(searcher, &plan, scope, n, parallel)?;
        let mut found = Pool::merge(pools, n);
        set_order_keys(searcher, &mut found)?;
        if let Plan::Wand(_) = plan {
            rescore(searcher, statistics, specs, &mut found)?;
        }
        found.sort_unstable();
        found.truncate(n);
        let idf = term_idf(statistics, specs, self.index.fields.body).map_err(Error::engine("search"))?;
        Ok((found, idf))
    }
}

/// The idf of each term, from its body clause in `specs` (one per term, in term order, each followed
/// by the same term's clauses in other fields), and whether it occurs nowhere in scope: in no body,
/// title or tag (a word only a note's title or tags hold, "travel" in `tags: [travel]`, is known). The
/// idfs' sum is the query's full-match score: what a chunk of average length holding each query term
/// once in its body scores (BM25's term weight at `tf = 1` and average length is the idf). A term
/// absent from the index has the largest idf, so a query about something memory never mentions
/// matches little of it.
fn term_idf(
    statistics: &dyn Bm25StatisticsProvider,
    specs: &[(Term, f32)],
    body: Field,
) -> tantivy::Result<TermWeights> {
    let n = statistics.total_num_docs()? as f64;
    let mut out = TermWeights::default();
    for (i, (term, _)) in specs.iter().enumerate().filter(|(_, (t, _))| t.field() == body) {
        let df = (statistics.doc_freq(term)? as f64).min(n);
        out.idf.push(((n - df + 0.5) / (df + 0.5)).ln_1p() as f32);
        let mut absent = df == 0.0;
        for (other, _) in specs[i + 1..].iter().take_while(|(t, _)| t.field() != body) {
            if !absent {
                break;
            }
            absent = statistics.doc_freq(other)? == 0;
        }
        out.absent.push(absent);
    }
    Ok(out)
}

/// Each query term's idf in the caller's scope, and whether it occurs nowhere there (term order).
#[derive(Debug, Clone, Default)]
pub(in crate::recall) struct TermWeights {
    pub(in crate::recall) idf: Vec<f32>,
    pub(in crate::recall) absent: Vec<bool>,
}

/// The [`Plan`] for `query` (whose scored clauses are `specs`, weighted by `statistics`, which are the
/// searcher's own when `by_searcher`): term at a time when `scoring` forces it or when its postings are
/// few enough per document, unless `scoring` is [`Scoring::Wand`]; block-max WAND otherwise.
fn choose_plan(
    searcher: &Searcher,
    query: &dyn Query,
    specs: &[(Term, f32)],
    scoring: Scoring,
    statistics: &dyn Bm25StatisticsProvider,
    by_searcher: bool,
) -> Result<Plan> {
    let search = |e| Error::Engine { action: "search", source: e };
    let mut plan = None;
    if scoring != Scoring::Wand && !specs.is_empty() {
        let clauses = taat::Clauses::new(statistics, specs).map_err(search)?;
        let most = TERMS_MAX_POSTINGS_PER_DOC * searcher.num_docs() as f64;
        if scoring.forces_terms() || clauses.postings(searcher, by_searcher).map_err(search)? as f64 <= most {
            plan = Some(Plan::Terms(Arc::new(clauses)));
        }
    }
    Ok(match plan {
        Some(plan) => plan,
        None => Plan::Wand(
            query
                .weight(EnableScoring::enabled_from_statistics_provider(statistics, searcher))
                .map_err(search)?
                .into(),
        ),
    })
}

/// The pools of `plan`'s best `n` in `scope`: one over every segment, or, when `parallel`, one per
/// group of segments ([`split_segments`]), the second group searched by the helper thread if it takes
/// it first.
fn search_pools(
    searcher: &Searcher,
    plan: &Plan,
    scope: &Scope,
    n: usize,
    parallel: bool,
) -> Result<Vec<Pool>> {
    let (mine, theirs) = split_segments(searcher, parallel);
    let floor = Arc::new(AtomicU32::new(0));
    // Whichever thread gets to the second group first searches it: the helper when it is free
    // and awake, else this thread once the first group is done.
    let taken = Arc::new(AtomicBool::new(false));
    let handed = if theirs.is_empty() {
        None
    } else {
        let (searcher, plan, scope, ords) = (searcher.clone(), plan.clone(), scope.clone(), theirs.clone());
        let (mut pool, taken) = (Pool::new(n, Arc::clone(&floor)), Arc::clone(&taken));
        Helper::shared()
            .try_run(move || {
                if taken.swap(true, AtomicOrdering::AcqRel) {
                    return None;
                }
                Some(search_segments(&searcher, &plan, &scope, &ords, &mut pool).map(|()| pool))
            })
            .ok()
    };
    let mut pools = vec![Pool::new(n, Arc::clone(&floor))];
    search_segments(searcher, plan, scope, &mine, &mut pools[0])?;
    if !theirs.is_empty() {
        let helped = match handed {
            Some(pending) if taken.swap(true, AtomicOrdering::AcqRel) => pending.wait().flatten(),
            _ => None,
        };
        let other = match helped {
            Some(found) => found?,
            None => {
                let mut pool = Pool::new(n, Arc::clone(&floor));
                search_segments(searcher, plan, scope, &theirs, &mut pool)?;
                pool
            }
        };
        pools.push(other);
    }
    Ok(pools)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use cairn_core::{Audience, Chunk, Item, ItemKind};
    use proptest::prelude::*;
    use tantivy::query::Scorer as _;

    use super::*;
    use crate::{RecallIndex, RecallSettings};

    /// An item of one chunk whose text is `text`.
    fn item_of(id: &str, project: &str, audience: Audience, title: &str, text: &str) -> (Item, Chunk) {
        let item = cairn_test::item(id)
            .project(project)
            .kind(ItemKind::File)
            .title(title)
            .text(text)
            .audience(audience)
            .file(format!("{id}.md"), 1, 2)
            .build();
        let chunk = cairn_test::chunk_of(&item);
        (item, chunk)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Term at a time and block-max WAND find the same best `n`, with the same scores to the bit:
        /// whatever the documents (repeated words, varied lengths, rewritten and so deleted ones, in
        /// several segments), the query, the scope (project, audience) and the threads.
        #[test]
        fn term_at_a_time_finds_what_block_max_wand_finds(
            docs in prop::collection::vec(
                (prop::collection::vec(0usize..12, 1..24), 0usize..3, any::<bool>(), 0usize..12),
                1..120,
            ),
            rewrites in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
            commits in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
            query in prop::collection::vec(0usize..14, 1..6),
            scope in 0usize..4,
            n in 1usize..30,
            parallel in any::<bool>(),
        ) {
            // Twelve words, two of them absent from every document.
            const WORDS: [&str; 14] = [
                "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
                "kappa", "lambda", "omicron", "sigma", "omega",
            ];
            let dir = tempfile::tempdir().unwrap();
            let index = RecallIndex::open_or_create(dir.path()).unwrap();
            let mut w = index.writer().unwrap();
            let cuts: BTreeSet<usize> = commits.iter().map(|c| c.index(docs.len())).collect();
            let text_of = |words: &[usize]| words.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
            let mut seq = 0;
            for (i, (words, project, private, title)) in docs.iter().enumerate() {
                let audience = if *private { Audience::Private } else { Audience::Public };
                let project = format!("p{project}");
                let (item, chunk) = item_of(&format!("d{i:03}"), &project, audience, WORDS[*title], &text_of(words));
                w.upsert(&item, &[chunk]).unwrap();
                if cuts.contains(&i) {
                    seq += 1;
                    w.commit(seq).unwrap();
                }
            }
            seq += 1;
            w.commit(seq).unwrap();
            // Rewritten items: their first version stays in its segment, deleted.
            for r in &rewrites {
                let i = r.index(docs.len());
                let (words, project, private, title) = &docs[i];
                let audience = if *private { Audience::Private } else { Audience::Public };
                let reversed: Vec<usize> = words.iter().rev().map(|&x| (x + 1) % 12).collect();
                let (item, chunk) =
                    item_of(&format!("d{i:03}"), &format!("p{project}"), audience, WORDS[*title], &text_of(&reversed));
                w.upsert(&item, &[chunk]).unwrap();
            }
            w.commit(seq + 1).unwrap();
            let r = Recaller::new(&index, RecallSettings::default()).unwrap();
            let searcher = r.reader.searcher();
            let scope = match scope {
                0 => Scope::owner(None),
                1 => Scope::public_only(None),
                2 => Scope::owner(Some("p1".into())),
                _ => Scope::public_only(Some("p2".into())),
            };
            let text = query.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
            let terms = r.query_terms(&searcher, &text);
            let wand = r.lexical(&searcher, &terms, &scope, n, parallel, Scoring::Wand).unwrap().0;
            let taat = r.lexical(&searcher, &terms, &scope, n, parallel, Scoring::Terms).unwrap().0;
            prop_assert_eq!(&taat, &wand, "{} in {:?}", text, scope);
            // Weighted by the searcher, the postings to read are its document frequencies.
            let specs = r.lexical_clauses(&terms, false);
            let clauses = taat::Clauses::new(&searcher, &specs).unwrap();
            prop_assert_eq!(clauses.postings(&searcher, true).unwrap(), clauses.postings(&searcher, false).unwrap());
            // Not two empty answers agreeing: seeing everything, each document holding a word of
            // the query (in its text or title) is a match.
            if rewrites.is_empty() && scope == Scope::owner(None) {
                let matches = docs.iter().filter(|d| query.iter().any(|q| d.0.contains(q) || d.3 == *q)).count();
                prop_assert_eq!(taat.len(), matches.min(n));
            }
        }
    }

    #[test]
    fn rescoring_adds_each_clause_score_in_clause_order() {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
        let dir = tempfile::tempdir().unwrap();
        let index = RecallIndex::open_or_create(dir.path()).unwrap();
        let mut w = index.writer().unwrap();
        for i in 0..80usize {
            // Varied lengths and term frequencies; titles share some words, in two segments.
            let text: Vec<&str> = (0..3 + i % 11).map(|j| words[(i * 7 + j * j) % words.len()]).collect();
            let text = text.join(" ");
            let (item, chunk) = item_of(&format!("n{i:03}"), "p", Audience::Public, words[i % 5], &text);
            w.upsert(&item, &[chunk]).unwrap();
            if i == 40 {
                w.commit(1).unwrap();
            }
        }
        w.commit(2).unwrap();
        let r = Recaller::new(&index, RecallSettings::default()).unwrap();
        let searcher = r.reader.searcher();
        assert_eq!(searcher.segment_readers().len(), 2);
        let queries = ["alpha beta gamma", "delta zeta theta eta", "epsilon alpha"];
        for (q, scoring) in queries.iter().flat_map(|q| [(q, Scoring::Wand), (q, Scoring::Terms)]) {
            let terms = r.query_terms(&searcher, q);
            let specs = r.lexical_clauses(&terms, false);
            let found = r.lexical(&searcher, &terms, &Scope::owner(None), 30, false, scoring).unwrap().0;
            assert!(found.len() >= 10, "{q}: {}", found.len());
            assert!(found.windows(2).all(|p| p[0].score >= p[1].score));
            for s in &found {
                // Each clause scored on its own, the way block-max WAND's term scorers score it.
                let reader = searcher.segment_reader(s.addr.segment_ord);
                let mut want = 0.0f32;
                for (term, boost) in &specs {
                    let weight = TermQuery::new(term.clone(), IndexRecordOption::WithFreqs)
                        .weight(EnableScoring::enabled_from_searcher(&searcher))
                        .unwrap();
                    let mut scorer = weight.scorer(reader, *boost).unwrap();
                    if scorer.doc() <= s.addr.doc_id && scorer.seek(s.addr.doc_id) == s.addr.doc_id {
                        want += scorer.score();
                    }
                }
                assert_eq!(s.score.to_bits(), want.to_bits(), "{q} ({scoring:?}): {:?}", s.addr);
            }
        }
    }
}
