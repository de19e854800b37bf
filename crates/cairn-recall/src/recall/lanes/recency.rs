//! The recency lane: exponential decay by age with a half-life ([`Decay`]), measured from the query's
//! `now`, as a part of every candidate's score, and the recent list (the newest chunks in scope, from
//! a list sorted once per index generation, [`ByDate`]).

use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Instant;

use cairn_core::{Hit, LaneStatus, Millis, Scope, UNDATED};
use tantivy::{DocAddress, Searcher};

use super::{Found, SegmentScope};
use crate::error::{Error, Result};
use crate::index::{F_CREATED_AT, F_ORDER_KEY};
use crate::recall::read_ahead::HitReader;
use crate::recall::{RecallQuery, Recaller, lane, quantize};

const MS_PER_DAY: f64 = 86_400_000.0;

/// Every dated chunk, newest first, shared per index generation (an undated chunk is never recent).
pub(in crate::recall) type ByDate = Arc<Vec<(Millis, DocAddress)>>;

/// A chunk's recency: `0.5^(age / half-life)`, its age counted from the query's `now` (a chunk from
/// the future counts as new).
pub(in crate::recall) struct Decay {
    now: Millis,
    half_life_ms: f64,
}

impl Decay {
    pub(in crate::recall) fn new(half_life_days: f64, now: Millis) -> Self {
        Decay { now, half_life_ms: half_life_days.max(1e-9) * MS_PER_DAY }
    }

    /// The recency of a chunk created at `created`.
    pub(in crate::recall) fn of(&self, created: Millis) -> f32 {
        let age = (self.now - created).max(0) as f64;
        0.5f64.powf(age / self.half_life_ms) as f32
    }
}

impl Recaller {
    /// The recency lane of one recall: its report, and the hits of the recent list (`list`, asked
    /// for when the query wants one), each scored by its recency. The lane's part of every other
    /// hit's score comes through fusion.
    pub(in crate::recall) fn recency_step(
        &self,
        q: &RecallQuery,
        found: &mut Found,
        list: Option<Result<Vec<(Millis, DocAddress)>>>,
        reader: &HitReader,
        decay: &Decay,
    ) -> Vec<Hit> {
        let started = Instant::now();
        let mut recent = Vec::new();
        if q.recent_k == 0 && !self.settings.lane_on(lane::RECENCY) {
            found.skipped(lane::RECENCY, started);
            return recent;
        }
        match list.unwrap_or_else(|| Ok(Vec::new())) {
            Ok(list) => {
                for (created, addr) in list {
                    match reader.read(addr) {
                        Ok(mut hit) => {
                            let d = quantize(decay.of(created));
                            hit.score = d;
                            hit.parts.insert(lane::RECENCY.into(), d);
                            hit.why.lanes.push(lane::RECENCY.into());
                            recent.push(hit);
                        }
                        Err(e) => found.warnings.push(format!("reading a recent chunk failed: {e}")),
                    }
                }
                found.ran(lane::RECENCY, LaneStatus::Ok, recent.len(), started);
            }
            Err(e) => found.failed(lane::RECENCY, started, e),
        }
        recent
    }

    /// The newest `n` dated chunks in scope (same date: ordered by a key derived from the chunk id).
    pub(in crate::recall) fn recent(
        &self,
        searcher: &Searcher,
        scope: &Scope,
        n: usize,
    ) -> Result<Vec<(Millis, DocAddress)>> {
        let scopes: Vec<SegmentScope<'_>> =
            searcher.segment_readers().iter().map(|r| SegmentScope::new(r, scope)).collect::<Result<_>>()?;
        if let Some(by_date) = self.by_date(searcher)? {
            return Ok(by_date
                .iter()
                .filter(|(_, a)| scopes[a.segment_ord as usize].admits(a.doc_id))
                .take(n)
                .copied()
                .collect());
        }
        // The first query of this index generation (a one-shot process asks only once): select the
        // newest `n` without sorting every chunk. The order is the sorted list's: date descending,
        // then the chunk-id key, then the address.
        type Rank = (std::cmp::Reverse<Millis>, u64, DocAddress);
        let mut heap: BinaryHeap<Rank> = BinaryHeap::with_capacity(n + 1);
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let created = reader.fast_fields().i64(F_CREATED_AT).map_err(Error::engine("read fast field"))?;
            let order = reader.fast_fields().u64(F_ORDER_KEY).map_err(Error::engine("read fast field"))?;
            let seg = &scopes[ord];
            if seg.excludes_all() {
                continue;
            }
            for doc in reader.doc_ids_alive() {
                let date = created.first(doc).unwrap_or(UNDATED);
                if date == UNDATED {
                    continue;
                }
                if heap.len() >= n && heap.peek().is_some_and(|top| date < top.0.0) {
                    continue;
                }
                if !seg.admits(doc) {
                    continue;
                }
                let rank = (
                    std::cmp::Reverse(date),
                    order.first(doc).unwrap_or(0),
                    DocAddress::new(ord as u32, doc),
                );
                if heap.len() < n {
                    heap.push(rank);
                } else if let Some(mut top) = heap.peek_mut()
                    && rank < *top
                {
                    *top = rank;
                }
            }
        }
        Ok(heap.into_sorted_vec().into_iter().map(|(date, _, addr)| (date.0, addr)).collect())
    }

    /// Every chunk, newest first; computed once per index generation, from its second query on
    /// (`None` for the first).
    fn by_date(&self, searcher: &Searcher) -> Result<Option<ByDate>> {
        let generation = searcher.generation().generation_id();
        let mut cache = self.recent_cache.lock().unwrap_or_else(|e| e.into_inner());
        match cache.as_ref() {
            Some((g, Some(list))) if *g == generation => return Ok(Some(list.clone())),
            Some((g, None)) if *g == generation => {}
            _ => {
                *cache = Some((generation, None));
                return Ok(None);
            }
        }
        let mut keyed = Vec::with_capacity(searcher.num_docs() as usize);
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let created = reader.fast_fields().i64(F_CREATED_AT).map_err(Error::engine("read fast field"))?;
            let order = reader.fast_fields().u64(F_ORDER_KEY).map_err(Error::engine("read fast field"))?;
            for doc in reader.doc_ids_alive() {
                let at = created.first(doc).unwrap_or(UNDATED);
                if at == UNDATED {
                    continue;
                }
                let key = (at, order.first(doc).unwrap_or(0));
                keyed.push((key, DocAddress::new(ord as u32, doc)));
            }
        }
        // The key is total (the address last), so an unstable sort gives the same order, faster.
        keyed.sort_unstable_by(|a, b| b.0.0.cmp(&a.0.0).then(a.0.1.cmp(&b.0.1)).then_with(|| a.1.cmp(&b.1)));
        let list =
            Arc::new(keyed.into_iter().map(|((created, _), addr)| (created, addr)).collect::<Vec<_>>());
        *cache = Some((generation, Some(list.clone())));
        Ok(Some(list))
    }
}
