//! Fusion: the lanes' candidates become one list in rank order. Every candidate gets its tag matches,
//! recency and date fit ([`Recaller::annotate`]) and its cosine similarity, whichever lane found it;
//! lane scores are put on absolute scales and weighted (or min-max normalised, or fused by reciprocal
//! rank: [`Fusion`]); consecutive turns lend each other score; maximal marginal relevance may re-order
//! the head. A candidate's relevance ([`relevance`]) is what the relevance floor compares.

use std::collections::{BTreeMap, HashMap, HashSet};

use cairn_core::LaneStatus;
use tantivy::columnar::Column;
use tantivy::{DocAddress, DocId, Searcher};

use super::lanes::date::QueryDates;
use super::lanes::lexical::{QueryTerm, TermWeights};
use super::lanes::recency::Decay;
use super::lanes::tags::TagShares;
use super::lanes::vector::{VectorLane, line_similarity};
use super::lanes::{Candidate, Found};
use super::person::{PERSON_PART, PERSON_WEIGHT};
use super::profile::{PROFILE, PROFILE_PART, PROFILE_WEIGHT};
use super::world::World;
use super::{Calibration, Fusion, Recaller, floor, lane, quantize};
use crate::error::{Error, Result};
use crate::index::{F_CHUNK_ID, F_CREATED_AT, F_ITEM_KEY, F_MENTIONS, F_PREVIOUS_KEY, F_TAGS};

/// A fused candidate: its score, its address and its parts (by lane name, and `neighbour`).
pub(super) type Fused = (f32, DocAddress, BTreeMap<String, f32>);

/// The candidates' similarities to the query ([`Recaller::similarities`]).
pub(super) struct Similarities {
    /// Each candidate's cosine similarity (its best line's where nearer).
    pub(super) cosine: HashMap<DocAddress, f32>,
    /// The candidates whose chunk has line vectors: notes of several lines, each a fact of its own.
    pub(super) lined: HashSet<DocAddress>,
    /// The coverage of the query ([`floor::coverage`]) of those of them the lexical lane found.
    pub(super) covered: HashMap<DocAddress, f32>,
}

/// The spans over which fusion min-max normalises the lexical and vector scores.
struct Spans {
    best_lex: f32,
    floor_lex: f32,
    best_vec: f32,
    worst_vec: f32,
}

impl Spans {
    /// `lexical_full`: the lexical lane filled its pool.
    fn new(
        cands: &HashMap<DocAddress, Candidate>,
        sims: &HashMap<DocAddress, f32>,
        lexical_full: bool,
    ) -> Self {
        // Both lanes are min-max normalised over the candidates, so the best of each lane scores 1 and
        // its weakest candidate 0. The lexical floor is the pool's last score when the pool is full (a
        // document just outside it scores about that), else 0 (every match is in: BM25 / best BM25).
        let lex_scores = || cands.values().filter_map(|c| c.lexical.map(|l| l.0));
        let best_lex = lex_scores().fold(0.0f32, f32::max);
        let floor_lex = if lexical_full { lex_scores().fold(best_lex, f32::min) } else { 0.0 };
        let best_vec = sims.values().copied().fold(f32::MIN, f32::max);
        let worst_vec = sims.values().copied().fold(f32::MAX, f32::min);
        Spans { best_lex, floor_lex, best_vec, worst_vec }
    }
}

impl Recaller {
    /// Fills `matched_tags`, `recency` and `date_fit` (the item's date, or a day it names) of every
    /// candidate from fast fields.
    pub(super) fn annotate(
        &self,
        searcher: &Searcher,
        cands: &mut HashMap<DocAddress, Candidate>,
        query_tags: &[String],
        need_tags: bool,
        decay: &Decay,
        dates: &QueryDates,
    ) -> Result<()> {
        let mut per_segment: BTreeMap<u32, Vec<DocAddress>> = BTreeMap::new();
        for addr in cands.keys() {
            per_segment.entry(addr.segment_ord).or_default().push(*addr);
        }
        for (ord, addrs) in per_segment {
            let reader = searcher.segment_reader(ord);
            let ff = reader.fast_fields();
            let created = ff.i64(F_CREATED_AT).map_err(Error::engine("read fast field"))?;
            let named = if dates.is_empty() {
                None
            } else {
                Some(ff.i64(F_MENTIONS).map_err(Error::engine("read fast field"))?)
            };
            let tags_col =
                if need_tags { ff.str(F_TAGS).map_err(Error::engine("read fast field"))? } else { None };
            let tag_ords: Vec<Option<u64>> = match &tags_col {
                Some(col) => query_tags.iter().map(|t| col.dictionary().term_ord(t).ok().flatten()).collect(),
                None => vec![None; query_tags.len()],
            };
            for addr in addrs {
                let c = cands.get_mut(&addr).expect("candidate exists");
                let at = created.first(addr.doc_id).unwrap_or(cairn_core::UNDATED);
                c.recency = decay.of(at);
                if let Some(named) = &named {
                    c.date_fit = dates.best_fit(at, named.values_for_doc(addr.doc_id));
                }
                if let Some(col) = &tags_col {
                    let doc_ords: Vec<u64> = col.term_ords(addr.doc_id).collect();
                    c.matched_tags = tag_ords
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| o.is_some_and(|o| doc_ords.contains(&o)))
                        .map(|(i, _)| i)
                        .collect();
                }
            }
        }
        Ok(())
    }

    /// Every candidate's cosine similarity to the query (with `query_vec`, when the vector lane ran):
    /// the vector lane's score, or for a candidate of another lane its stored vector's, so that a
    /// lexical match just outside the vector pool is not scored as dissimilar.
    pub(super) fn similarities(
        &self,
        searcher: &Searcher,
        found: &mut Found,
        terms: &[QueryTerm],
        query_vec: Option<&[f32]>,
    ) -> Similarities {
        let cands = &found.cands;
        let mut sims = Similarities {
            cosine: cands.iter().filter_map(|(a, c)| c.vector.map(|v| (*a, v.0))).collect(),
            lined: HashSet::new(),
            covered: HashMap::new(),
        };
        if let (Some(qv), Some(v)) = (query_vec, &self.vectors) {
            let addrs: Vec<DocAddress> = cands.keys().copied().collect();
            match self.chunk_ids(searcher, &addrs) {
                Ok(ids) => {
                    let index = v.index.read().unwrap_or_else(|e| e.into_inner());
                    let weight = self.settings.calibration.line_weight;
                    for (addr, id) in addrs.iter().zip(ids) {
                        let Some(id) = id.as_deref() else { continue };
                        if index.has_lines(id) {
                            sims.lined.insert(*addr);
                        }
                        // The vector lane's candidates were re-scored by their lines already.
                        if !sims.cosine.contains_key(addr)
                            && let Some(vec) = index.vector(id)
                        {
                            let whole = cairn_vector::kernel::dot(qv, vec);
                            sims.cosine
                                .insert(*addr, line_similarity(whole, index.best_line(id, qv), weight));
                        }
                    }
                }
                Err(e) => found.warnings.push(format!("reading chunk ids for fusion failed: {e}")),
            }
        }
        if let Some(w) = found.term_idf.as_ref().filter(|w| w.idf.len() == terms.len()) {
            let lexical: Vec<DocAddress> = sims
                .lined
                .iter()
                .filter(|a| cands.get(a).is_some_and(|c| c.lexical.is_some()))
                .copied()
                .collect();
            if !lexical.is_empty() {
                let idf = floor::weighed_idf(terms, w);
                match self.matched_terms(searcher, terms, &lexical) {
                    Ok(sets) => {
                        for (addr, set) in lexical.iter().zip(sets) {
                            sims.covered.insert(*addr, floor::coverage(terms, &idf, &set));
                        }
                    }
                    Err(e) => found.warnings.push(format!("finding matched terms failed: {e}")),
                }
            }
        }
        sims
    }

    /// Every candidate with its fused score (see [`Fusion`]) and its parts, all rounded to 5 decimals,
    /// in no particular order. `sims`: the candidates' similarities ([`Recaller::similarities`]);
    /// `lexical_full`: the lexical lane filled its pool; `tag_shares`: how much of the query each
    /// query tag stands for; `vector_weight`: the vector lane's weight (when it ran only as the
    /// semantic fallback, the lexical lane's, at least 1); `personal`: the query is about the asker
    /// ([`RecallSettings::personal_lexical`]).
    ///
    /// [`RecallSettings::personal_lexical`]: super::RecallSettings::personal_lexical
    pub(super) fn fuse(
        &self,
        found: &Found,
        sims: &Similarities,
        lexical_full: bool,
        tag_shares: &TagShares,
        vector_weight: f32,
        personal: bool,
    ) -> Vec<Fused> {
        let s = &self.settings;
        let cal = &s.calibration;
        let cands = &found.cands;
        let full_match: f32 = found.term_idf.iter().flat_map(|w| &w.idf).sum();
        let date_on = s.lane_on(lane::DATE);
        let Similarities { cosine: sims, lined, covered } = sims;
        let Spans { best_lex, floor_lex, best_vec, worst_vec } = Spans::new(cands, sims, lexical_full);
        let recency_on = s.lane_on(lane::RECENCY)
            && found.lanes.iter().any(|l| l.name == lane::RECENCY && l.status == LaneStatus::Ok);
        let mut fused: Vec<Fused> = Vec::with_capacity(cands.len());
        let mut by_recency: Vec<(f32, DocAddress)> = cands.iter().map(|(a, c)| (c.recency, *a)).collect();
        by_recency.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let recency_rank: HashMap<DocAddress, usize> =
            by_recency.iter().enumerate().map(|(i, (_, a))| (*a, i)).collect();
        // Meaning finds the note a question about the asker paraphrases only where there is meaning.
        let personal = personal && !sims.is_empty();
        let lexical_weight = s.weights.lexical
            * found.term_idf.as_ref().map_or(1.0, visible_share).sqrt()
            * if personal { s.personal_lexical.max(0.0) } else { 1.0 }
            * if sims.is_empty() { 1.0 } else { lexical_confidence(covered.values().copied(), cal) };
        for (addr, c) in cands {
            let mut parts = BTreeMap::new();
            let lex = c.lexical.map(|(sc, _)| {
                let part = match s.fusion {
                    Fusion::Calibrated => return calibrated_lexical(sc, full_match, cal),
                    _ if best_lex > floor_lex => (sc - floor_lex) / (best_lex - floor_lex),
                    _ => 1.0,
                };
                if lined.contains(addr) {
                    part * lined_lexical_gate(sims.get(addr).copied(), covered.get(addr).copied(), cal)
                } else {
                    part
                }
            });
            let date = if date_on { c.date_fit.as_ref().map(|(fit, _)| *fit) } else { None };
            // The share of the query that tags the chunk carries stand for (a query of one word that
            // is a tag is fully about it; a common tag word among rarer ones is not).
            let tag = (!c.matched_tags.is_empty()).then(|| tag_shares.share(&c.matched_tags));
            // Min-max over every candidate's similarity: cosine similarities of one query crowd together.
            let sim = sims.get(addr).copied();
            let vec = sim
                .map(|sc| if best_vec > worst_vec { (sc - worst_vec) / (best_vec - worst_vec) } else { 1.0 });
            if let Some(l) = lex {
                parts.insert(lane::LEXICAL.to_owned(), l);
            }
            if let Some(sim) = sim {
                parts.insert(lane::VECTOR.to_owned(), sim);
            }
            if let Some(t) = tag {
                parts.insert(lane::TAGS.to_owned(), t);
            }
            let named = tag_shares.names_any(&c.matched_tags);
            if named {
                parts.insert(NAMED_TAG.to_owned(), 1.0);
            }
            if recency_on {
                parts.insert(lane::RECENCY.to_owned(), c.recency);
            }
            if let Some(d) = date {
                parts.insert(lane::DATE.to_owned(), d);
            }
            if c.profile {
                parts.insert(PROFILE_PART.to_owned(), PROFILE);
            }
            // Ranking only: relevance never reads it.
            if c.person {
                parts.insert(PERSON_PART.to_owned(), PERSON_WEIGHT);
            }
            // What a chunk is, whatever any lane scored it: the asker's profile for a prompt about
            // their treatment, a person's own note for a question that asks for one, a tag the query
            // names. Each adds its weight (in reciprocal rank fusion, as a first rank would).
            let found_as = if c.profile { PROFILE_WEIGHT } else { 0.0 }
                + if c.person { PERSON_WEIGHT } else { 0.0 }
                + if named { NAMED_TAG_WEIGHT } else { 0.0 };
            let w = &s.weights;
            let score = match s.fusion {
                Fusion::Calibrated => {
                    lexical_weight * lex.unwrap_or(0.0)
                        + vector_weight * sim.map_or(0.0, |c| calibrated_cosine(c, cal))
                        + w.tags * tag.unwrap_or(0.0)
                        + w.date * date.unwrap_or(0.0)
                        + if recency_on { w.recency * c.recency } else { 0.0 }
                        + found_as
                }
                Fusion::Weighted => {
                    lexical_weight * lex.unwrap_or(0.0)
                        + vector_weight * vec.unwrap_or(0.0)
                        + w.tags * tag.unwrap_or(0.0)
                        + if recency_on { w.recency * c.recency } else { 0.0 }
                        + w.date * date.unwrap_or(0.0)
                        + found_as
                }
                Fusion::Rrf { k } => {
                    let rrf = |rank: usize| 1.0 / (k + rank as f32 + 1.0);
                    c.lexical.map_or(0.0, |(_, r)| lexical_weight * rrf(r))
                        + c.vector.map_or(0.0, |(_, r)| vector_weight * rrf(r))
                        + c.tags.map_or(0.0, |(_, r)| w.tags * rrf(r))
                        + if recency_on { w.recency * rrf(recency_rank[addr]) } else { 0.0 }
                        + c.date.map_or(0.0, |(_, r)| w.date * rrf(r))
                        + found_as * rrf(0)
                }
            };
            // Scores are rounded to 5 decimals: BM25 statistics summed over segments differ in the last
            // bit between index layouts, and output must not depend on the layout.
            for v in parts.values_mut() {
                *v = quantize(*v);
            }
            fused.push((quantize(score), *addr, parts));
        }
        fused
    }

    /// Puts `fused` in rank order: scores lent between consecutive turns (when `lending`), best first
    /// (ties by address), then the head re-ordered by maximal marginal relevance when it is configured
    /// and the query has a vector (`query_vec`).
    pub(super) fn order(
        &self,
        searcher: &Searcher,
        fused: &mut Vec<Fused>,
        warnings: &mut Vec<String>,
        lending: bool,
        query_vec: bool,
        k: usize,
    ) {
        let s = &self.settings;
        // Without a linked turn in the index there is nothing to lend (every previous key is 0).
        if lending
            && fused.len() > 1
            && let Err(e) = self.lend_neighbour_scores(searcher, fused, s.neighbour_boost)
        {
            warnings.push(format!("reading turn links failed: {e}"));
        }
        fused.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        if s.mmr_lambda < 1.0
            && query_vec
            && let Some(v) = &self.vectors
        {
            self.mmr(v, searcher, fused, k, s.mmr_lambda);
        }
    }

    /// The chunk ids at `addrs` (from the `chunk_id` fast field), `None` where unreadable. Ordinals are
    /// resolved in sorted batches per segment: one pass over the dictionary blocks.
    fn chunk_ids(&self, searcher: &Searcher, addrs: &[DocAddress]) -> Result<Vec<Option<String>>> {
        let mut out: Vec<Option<String>> = vec![None; addrs.len()];
        let mut per_segment: BTreeMap<u32, Vec<(u64, usize)>> = BTreeMap::new();
        for (i, addr) in addrs.iter().enumerate() {
            per_segment.entry(addr.segment_ord).or_default().push((u64::from(addr.doc_id), i));
        }
        for (seg, docs) in per_segment {
            let reader = searcher.segment_reader(seg);
            let Some(col) = reader.fast_fields().str(F_CHUNK_ID).map_err(Error::engine("read fast field"))?
            else {
                continue;
            };
            let mut ords: Vec<(u64, usize)> = docs
                .iter()
                .filter_map(|&(doc, i)| col.term_ords(doc as DocId).next().map(|ord| (ord, i)))
                .collect();
            ords.sort_unstable();
            let sorted: Vec<u64> = ords.iter().map(|(o, _)| *o).collect();
            let mut next = ords.iter().map(|(_, i)| *i);
            col.dictionary()
                .sorted_ords_to_term_cb(&sorted, |bytes| {
                    if let Some(i) = next.next() {
                        out[i] = std::str::from_utf8(bytes).ok().map(str::to_owned);
                    }
                })
                .map_err(|e| Error::Engine { action: "read fast field", source: e.into() })?;
        }
        Ok(out)
    }

    /// Adds to each candidate `boost ×` the best fused score among the candidates that are the turn just
    /// before it or just after it in its session (through the items' sequence keys), recorded as the
    /// `neighbour` part. Scores lent are the fused scores before any lending, so the order of candidates
    /// does not matter.
    fn lend_neighbour_scores(&self, searcher: &Searcher, fused: &mut [Fused], boost: f32) -> Result<()> {
        let mut keys: Vec<(u64, u64)> = vec![(0, 0); fused.len()];
        let mut columns: HashMap<u32, (Column<u64>, Column<u64>)> = HashMap::new();
        for (i, (_, addr, _)) in fused.iter().enumerate() {
            let cols = match columns.entry(addr.segment_ord) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let ff = searcher.segment_reader(addr.segment_ord).fast_fields();
                    let item = ff.u64(F_ITEM_KEY).map_err(Error::engine("read fast field"))?;
                    let previous = ff.u64(F_PREVIOUS_KEY).map_err(Error::engine("read fast field"))?;
                    e.insert((item, previous))
                }
            };
            keys[i] = (cols.0.first(addr.doc_id).unwrap_or(0), cols.1.first(addr.doc_id).unwrap_or(0));
        }
        if keys.iter().all(|&(_, previous)| previous == 0) {
            return Ok(());
        }
        // Best score of each item among the candidates, and of the candidates that follow each item.
        let mut best: HashMap<u64, f32> = HashMap::new();
        let mut best_next: HashMap<u64, f32> = HashMap::new();
        for (&(item, previous), (score, _, _)) in keys.iter().zip(fused.iter()) {
            if item != 0 {
                let b = best.entry(item).or_insert(f32::MIN);
                *b = b.max(*score);
            }
            if previous != 0 {
                let b = best_next.entry(previous).or_insert(f32::MIN);
                *b = b.max(*score);
            }
        }
        for (&(item, previous), (score, _, parts)) in keys.iter().zip(fused.iter_mut()) {
            let before = (previous != 0).then(|| best.get(&previous)).flatten().copied();
            let after = (item != 0).then(|| best_next.get(&item)).flatten().copied();
            let lent = match (before, after) {
                (Some(a), Some(b)) => a.max(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => continue,
            };
            let part = quantize(boost * lent.max(0.0));
            if part > 0.0 {
                parts.insert(lane::NEIGHBOUR.to_owned(), part);
                *score = quantize(*score + part);
            }
        }
        Ok(())
    }

    /// Re-orders the head of `fused` by maximal marginal relevance (chunks without a vector keep their
    /// relevance and are never penalised).
    fn mmr(&self, v: &VectorLane, searcher: &Searcher, fused: &mut Vec<Fused>, k: usize, lambda: f32) {
        let head = fused.len().min(k.max(1) * 3);
        if head < 2 {
            return;
        }
        let Ok(index) = v.index.read() else { return };
        let best = fused[0].0.max(f32::MIN_POSITIVE);
        let vecs: Vec<Option<Vec<f32>>> = fused[..head]
            .iter()
            .map(|(_, addr, _)| {
                let doc = searcher.doc::<tantivy::TantivyDocument>(*addr).ok()?;
                let id =
                    tantivy::schema::Value::as_str(&doc.get_first(self.index.fields.chunk_id)?)?.to_owned();
                index.vector(&id).map(<[f32]>::to_vec)
            })
            .collect();
        drop(index);
        let mut rest: Vec<usize> = (0..head).collect();
        let mut order: Vec<usize> = Vec::with_capacity(head);
        while !rest.is_empty() {
            let mut pick = 0;
            let mut pick_score = f32::NEG_INFINITY;
            for (i, &c) in rest.iter().enumerate() {
                let rel = fused[c].0 / best;
                let red = match &vecs[c] {
                    Some(vc) => order
                        .iter()
                        .filter_map(|&o| vecs[o].as_ref())
                        .map(|vo| cairn_vector::kernel::dot(vc, vo))
                        .fold(0.0f32, f32::max),
                    None => 0.0,
                };
                let score = lambda * rel - (1.0 - lambda) * red;
                if score > pick_score {
                    pick_score = score;
                    pick = i;
                }
            }
            order.push(rest.remove(pick));
        }
        // The new order takes over the old scores position by position (so later sorts keep it); what is
        // below the re-ranked head cannot reach the top k any more.
        let scores: Vec<f32> = fused[..head].iter().map(|e| e.0).collect();
        let reordered: Vec<_> = order.iter().map(|&i| fused[i].clone()).collect();
        fused.truncate(head);
        for (pos, mut e) in reordered.into_iter().enumerate() {
            e.0 = scores[pos];
            fused[pos] = e;
        }
    }
}

/// The calibrated lexical part of a BM25 score `bm25` for a query whose full-match score is
/// `full_match` ([`Calibration::lexical_half`]).
pub(super) fn calibrated_lexical(bm25: f32, full_match: f32, cal: &Calibration) -> f32 {
    if full_match <= 0.0 {
        return 0.0;
    }
    let x = (bm25 / full_match).max(0.0);
    x / (x + cal.lexical_half.max(1e-6))
}

/// What a min-max lexical part counts for in a chunk of several lines whose similarity to the
/// query is `cosine` and whose words cover `share` of the query ([`floor::coverage`], when it was
/// measured): its calibrated cosine to the power [`Calibration::lined_lexical_gate`], or `share` when
/// that is more (a chunk holding what the question names, such as the line with the error code asked
/// about, is a match however far its meaning), at most 1 (1 when the gate is 0). A chunk whose
/// matched words cover nothing holds only words that frame the question ("up" of "who can fix up
/// the gutter?"), which weigh nothing in its coverage either: 0.
pub(super) fn lined_lexical_gate(cosine: Option<f32>, share: Option<f32>, cal: &Calibration) -> f32 {
    if cal.lined_lexical_gate <= 0.0 {
        return 1.0;
    }
    if share.is_some_and(|s| s <= 0.0) {
        return 0.0;
    }
    let meaning = cosine.map_or(0.0, |c| calibrated_cosine(c, cal).min(1.0).powf(cal.lined_lexical_gate));
    meaning.max(share.unwrap_or(0.0)).clamp(0.0, 1.0)
}

/// How far the lexical lane is trusted in fusion with a model, from `coverage` (the coverage of the
/// query by each lexical match in a note of several lines, [`Similarities::covered`]): the square
/// root of the best one's share of [`Calibration::lexical_full_coverage`], at most 1 (1 when that is
/// 0, or when no such match was measured). Min-max normalisation gives the lane's best match a full
/// part however little of the query it holds; a paraphrase shares only incidental words with any
/// note ("cost" and "month" of "who leads my jogging group, and what does it cost per month?"), so
/// its lexical lane would stretch a note about the household budget to the same part as a note
/// holding every word of a question asked in the note's own words.
pub(super) fn lexical_confidence(coverage: impl Iterator<Item = f32>, cal: &Calibration) -> f32 {
    let full = cal.lexical_full_coverage;
    match coverage.reduce(f32::max) {
        Some(best) if full > 0.0 => (best.max(0.0) / full).min(1.0).sqrt(),
        _ => 1.0,
    }
}

/// The share of the query's idf weight carried by words that occur somewhere in scope: the lexical
/// lane sees only that part of the query, so its weight in fusion shrinks with it (by its square root:
/// a paraphrase whose salient words memory never uses leans on its meaning more than on the one common
/// word the lexical lane could match, while a conversational question that shares few words with its
/// answer keeps most of its lexical weight).
fn visible_share(w: &TermWeights) -> f32 {
    let total: f32 = w.idf.iter().sum();
    let absent: f32 = w.idf.iter().zip(&w.absent).filter(|(_, a)| **a).map(|(i, _)| i).sum();
    if total > 0.0 { 1.0 - absent / total } else { 1.0 }
}

/// The calibrated vector part of a cosine similarity: 0 at [`Calibration::cosine_zero`] and below,
/// 1 at [`Calibration::cosine_one`], linear in between and beyond.
pub(super) fn calibrated_cosine(cosine: f32, cal: &Calibration) -> f32 {
    let span = (cal.cosine_one - cal.cosine_zero).max(1e-6);
    ((cosine - cal.cosine_zero) / span).max(0.0)
}

/// A candidate's relevance from its parts (as [`Recaller::fuse`] and the floor's coverage step
/// leave them with [`Fusion::Calibrated`]): its best part among what says the query is about it —
/// the share of the query's idf weight its words cover ([`COVERAGE`]), its meaning, its tags, its
/// date. Recency and lending only order what is relevant. Its meaning is the query's `meaning`
/// ([`calibrated_affinity`]) when the general prompts were measured, else its calibrated cosine.
/// For a prompt that asks of the world (`world`, `world.rs`) the meaning is no part of its own; its
/// words count only from a chunk holding most of them ([`Calibration::strong_words`]), with or
/// without a model, and not at all when it asks in a form that does so whatever memory knows of
/// them ([`World::Form`]). The date counts unless `undated` (the rest of the query asks of what
/// memory lacks, `floor.rs`) or the prompt asks of the world.
pub(super) fn relevance(
    parts: &BTreeMap<String, f32>,
    cal: &Calibration,
    meaning: Option<f32>,
    world: World,
    undated: bool,
) -> f32 {
    let part = |l: &str| parts.get(l).copied().unwrap_or(0.0);
    let mut words = part(COVERAGE).max(part(lane::TAGS));
    let vector = match meaning {
        Some(m) => {
            // A prompt that reads as a general question (its meaning far nearer the general prompts
            // than memory) is not made relevant by a word or two it shares with a note: its words
            // count when they are most of the query and the chunk holding them is about it too (not
            // "joke" in "the hills are no joke").
            let own = parts.get(lane::VECTOR).map_or(0.0, |&c| calibrated_cosine(c, cal));
            let about = words >= cal.strong_words && own >= cal.words_need_meaning;
            if m < cal.words_need_meaning && !about {
                words = words.min(m);
            }
            if parts.contains_key(lane::VECTOR) { m } else { 0.0 }
        }
        None => parts.get(lane::VECTOR).map_or(0.0, |&c| calibrated_cosine(c, cal)),
    };
    // A prompt in a form that asks of the world ("how does a refrigerator keep food cold?") counts
    // only the words of a chunk holding most of it: with or without a model, its meaning is near
    // the notes on its subject whatever it asks.
    // In a form that asks of the world whatever memory knows ("how many miles is a marathon?" of a
    // half-marathon runner), not even a chunk holding all of its words.
    match world {
        World::Form => words = 0.0,
        World::Words if words < cal.strong_words => words = 0.0,
        _ => {}
    }
    let world = world != World::No;
    let vector = if world { 0.0 } else { vector };
    // A prompt that asks of the world names a time in the world ("what should I pack for a week in
    // Iceland in winter?"), not a note's.
    let date = if undated || world { 0.0 } else { part(lane::DATE) };
    words.max(vector).max(date).max(part(PROFILE_PART)).max(part(NAMED_TAG))
}

/// The part set on a chunk that carries a tag the query names as one ("tagged equipment", "the flat
/// tag"): such a chunk is what the query asks for, whatever its words or meaning, so the part counts
/// fully in relevance, and [`NAMED_TAG_WEIGHT`] more in the score.
pub(super) const NAMED_TAG: &str = "named_tag";

/// What a chunk carrying a tag the query names adds to its score: as much as the best lexical match,
/// so notes tagged "basement" come before the notes that only say "basement" most often.
const NAMED_TAG_WEIGHT: f32 = 1.0;

/// The meaning part of relevance: the query's affinity to memory (memory's lead over the general
/// prompts), 0 at [`Calibration::affinity_zero`] and below, 1 at [`Calibration::affinity_one`].
pub(super) fn calibrated_affinity(lead: f32, cal: &Calibration) -> f32 {
    let span = (cal.affinity_one - cal.affinity_zero).max(1e-6);
    ((lead - cal.affinity_zero) / span).max(0.0)
}

/// The part holding a chunk's coverage of the query: the idf of the query terms it contains (in its
/// title or body) over the idf of all of them.
pub(super) const COVERAGE: &str = "coverage";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_asking_of_the_world_counts_only_strong_words() {
        let cal = Calibration::default();
        let parts = |coverage: f32| BTreeMap::from([(COVERAGE.to_owned(), coverage)]);
        // "how does a refrigerator keep food cold?" against a note on keeping sourdough cold.
        assert_eq!(relevance(&parts(0.7), &cal, None, World::Words, false), 0.0);
        assert_eq!(relevance(&parts(0.7), &cal, None, World::No, false), 0.7);
        assert_eq!(relevance(&parts(0.9), &cal, None, World::Words, false), 0.9);
        // With a model as without: its meaning, near the note's subject, does not let a part of its
        // words count.
        let near = |coverage: f32| {
            BTreeMap::from([(COVERAGE.to_owned(), coverage), (lane::VECTOR.to_owned(), 0.45)])
        };
        assert_eq!(relevance(&near(0.7), &cal, Some(0.9), World::Words, false), 0.0);
        assert_eq!(relevance(&near(0.7), &cal, Some(0.9), World::No, false), 0.9);
        assert_eq!(relevance(&near(0.9), &cal, Some(0.9), World::Words, false), 0.9);
        // In a form that asks of the world whatever memory knows ("how many miles is a marathon?"),
        // not even all of its words; a tag it names as one still counts.
        assert_eq!(relevance(&near(1.0), &cal, Some(0.9), World::Form, false), 0.0);
        assert_eq!(relevance(&parts(1.0), &cal, None, World::Form, false), 0.0);
        let named = BTreeMap::from([(COVERAGE.to_owned(), 1.0), (NAMED_TAG.to_owned(), 1.0)]);
        assert_eq!(relevance(&named, &cal, None, World::Form, false), 1.0);
        // A date counts unless the rest of the question asks of what memory lacks.
        let dated = BTreeMap::from([(lane::DATE.to_owned(), 1.0)]);
        assert_eq!(relevance(&dated, &cal, None, World::No, false), 1.0);
        assert_eq!(relevance(&dated, &cal, None, World::No, true), 0.0);
        // Nor in a prompt that asks of the world ("what should I pack for Iceland in winter?").
        assert_eq!(relevance(&dated, &cal, None, World::Words, false), 0.0);
        assert_eq!(relevance(&dated, &cal, Some(0.9), World::Words, false), 0.0);
    }

    #[test]
    fn a_word_match_counts_as_far_as_the_note_is_near_the_question() {
        let cal = Calibration::default();
        // The calibrated cosine (0 at 0.1, 1 at 0.5), at most 1; nothing without a similarity.
        assert!((lined_lexical_gate(Some(0.3), Some(0.1), &cal) - 0.5).abs() < 1e-6);
        assert_eq!(lined_lexical_gate(Some(0.7), Some(0.1), &cal), 1.0);
        assert_eq!(lined_lexical_gate(Some(0.05), None, &cal), 0.0);
        assert_eq!(lined_lexical_gate(None, None, &cal), 0.0);
        // Coverage not measured: the meaning alone.
        assert!((lined_lexical_gate(Some(0.3), None, &cal) - 0.5).abs() < 1e-6);
        // Only framing words matched (a coverage of 0): nothing, however near the note.
        assert_eq!(lined_lexical_gate(Some(0.7), Some(0.0), &cal), 0.0);
        // A chunk holding most of the query counts whatever its meaning (an error code asked about).
        assert!((lined_lexical_gate(Some(0.05), Some(0.8), &cal) - 0.8).abs() < 1e-6);
        assert_eq!(lined_lexical_gate(None, Some(2.5), &cal), 1.0);
        // Off: unchanged.
        let off = Calibration { lined_lexical_gate: 0.0, ..cal };
        assert_eq!(lined_lexical_gate(Some(0.2), Some(0.0), &off), 1.0);
    }

    #[test]
    fn the_lexical_lane_counts_as_far_as_its_best_match_covers_the_query() {
        let cal = Calibration::default();
        // Half the query covered (the default) or more: the whole weight.
        assert_eq!(lexical_confidence([0.1, 0.5].into_iter(), &cal), 1.0);
        assert_eq!(lexical_confidence([0.9].into_iter(), &cal), 1.0);
        // One incidental word of five: the square root of 0.2 / 0.5.
        assert!((lexical_confidence([0.2, 0.1].into_iter(), &cal) - 0.4f32.sqrt()).abs() < 1e-6);
        assert_eq!(lexical_confidence([0.0].into_iter(), &cal), 0.0);
        // Nothing measured, or off: unchanged.
        assert_eq!(lexical_confidence(std::iter::empty(), &cal), 1.0);
        let off = Calibration { lexical_full_coverage: 0.0, ..cal };
        assert_eq!(lexical_confidence([0.1].into_iter(), &off), 1.0);
    }
}
