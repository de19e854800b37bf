//! The cut to `k` hits. Ties between chunks break by chunk id, so the hits do not depend on the index
//! layout: the fused list keeps every chunk tied with the `k`-th score, then picks among them by each
//! chunk id's rank ([`IdRanks`], from the second query of an index generation on), else by the ids
//! read from the doc store.

use std::sync::Arc;

use tantivy::store::StoreReader;
use tantivy::{DocAddress, Searcher};

use super::Recaller;
use super::fusion::Fused;
use crate::error::{Error, Result};
use crate::index::F_CHUNK_ID;

/// Each document's chunk id as its rank among every chunk id of the index generation (per segment,
/// by doc id), so ties between chunks break by chunk id without reading any id.
pub(super) type IdRanks = Arc<Vec<Vec<u32>>>;

/// [`IdRanks`] of `searcher`'s segments: a merge of their sorted chunk-id dictionaries (an id in two
/// segments gets one rank; a document without an id ranks last).
fn rank_chunk_ids(searcher: &Searcher) -> Result<Vec<Vec<u32>>> {
    let read = |e: std::io::Error| Error::Engine { action: "read fast field", source: e.into() };
    let mut cols = Vec::new();
    for reader in searcher.segment_readers() {
        let col = reader.fast_fields().str(F_CHUNK_ID).map_err(Error::engine("read fast field"))?;
        cols.push(col.ok_or_else(|| read(std::io::Error::other("no chunk-id column")))?);
    }
    let mut streams = Vec::with_capacity(cols.len());
    for col in &cols {
        let mut stream = col.dictionary().stream().map_err(read)?;
        let live = stream.advance();
        streams.push((stream, live));
    }
    let mut ord_ranks: Vec<Vec<u32>> = cols.iter().map(|c| vec![u32::MAX; c.num_terms()]).collect();
    let mut rank = 0u32;
    // The smallest id at the head of any segment's dictionary; every segment holding it takes it.
    while let Some(min) = streams.iter().filter(|(_, live)| *live).map(|(s, _)| s.key()).min() {
        let min = min.to_vec();
        for (seg, (stream, live)) in streams.iter_mut().enumerate() {
            if *live && stream.key() == min.as_slice() {
                if let Some(r) = ord_ranks[seg].get_mut(stream.term_ord() as usize) {
                    *r = rank;
                }
                *live = stream.advance();
            }
        }
        rank += 1;
    }
    Ok(searcher
        .segment_readers()
        .iter()
        .zip(&cols)
        .zip(&ord_ranks)
        .map(|((reader, col), ranks)| {
            (0..reader.max_doc())
                .map(|doc| {
                    col.term_ords(doc).next().and_then(|o| ranks.get(o as usize)).copied().unwrap_or(u32::MAX)
                })
                .collect()
        })
        .collect())
}

impl Recaller {
    /// The best `k` of `fused` (in rank order), ties at the `k`-th score broken by chunk id.
    pub(super) fn cut_to_k(
        &self,
        searcher: &Searcher,
        mut fused: Vec<Fused>,
        k: usize,
        stores: Option<&[StoreReader]>,
    ) -> Vec<Fused> {
        // Keep the top k plus everything tied with the k-th score, so the chunk-id tie-break is exact.
        let cut = if fused.len() > k && k > 0 {
            let kth = fused[k - 1].0;
            fused.iter().position(|x| x.0 < kth).unwrap_or(fused.len())
        } else {
            fused.len().min(k)
        };
        fused.truncate(cut);
        if fused.len() > k
            && let Some(ranks) = self.id_ranks(searcher)
        {
            break_ties_by_id_rank(&mut fused, &ranks, k);
        }
        if fused.len() > k {
            fused = break_ties_by_stored_id(fused, stores, k);
        }
        fused
    }

    /// Every document's chunk-id rank ([`IdRanks`]); computed once per index generation, from its
    /// second query on (`None` for the first, or when a segment's ids cannot be read). Each
    /// segment's chunk-id dictionary is sorted, so one merge of the dictionaries ranks every id.
    fn id_ranks(&self, searcher: &Searcher) -> Option<IdRanks> {
        let generation = searcher.generation().generation_id();
        let mut cache = self.id_ranks.lock().unwrap_or_else(|e| e.into_inner());
        match cache.as_ref() {
            Some((g, Some(ranks))) if *g == generation => return Some(ranks.clone()),
            Some((g, None)) if *g == generation => {}
            _ => {
                *cache = Some((generation, None));
                return None;
            }
        }
        let ranks = Arc::new(rank_chunk_ids(searcher).ok()?);
        *cache = Some((generation, Some(ranks.clone())));
        Some(ranks)
    }
}

/// Ties at the `k`-th score, from the second query of an index generation on: the chunk-id tie-break
/// by each chunk id's rank, reading no id.
fn break_ties_by_id_rank(fused: &mut Vec<Fused>, ranks: &[Vec<u32>], k: usize) {
    let rank =
        |a: DocAddress| ranks.get(a.segment_ord as usize).and_then(|r| r.get(a.doc_id as usize)).copied();
    fused.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then_with(|| rank(a.1).cmp(&rank(b.1))).then_with(|| a.1.cmp(&b.1))
    });
    fused.truncate(k);
}

/// Ties at the `k`-th score, on the first query of an index generation: the chunk-id tie-break by the
/// ids read from the doc store (`fused` unchanged when one cannot be read).
fn break_ties_by_stored_id(mut fused: Vec<Fused>, stores: Option<&[StoreReader]>, k: usize) -> Vec<Fused> {
    // Ties at the k-th score: the chunk-id tie-break below picks which of them are hits. Read
    // just their ids (the first stored field) and keep those k, rather than loading every tied
    // hit. (The chunk-id fast field costs more: each id decodes a dictionary block.)
    let ids: Vec<Option<String>> = fused
        .iter()
        .map(|f| {
            let store = stores?.get(f.1.segment_ord as usize)?;
            let bytes = store.get_document_bytes(f.1.doc_id).ok()?;
            crate::index::chunk_id_from_stored_bytes(bytes.as_slice())
        })
        .collect();
    if ids.iter().all(Option::is_some) {
        let mut keyed: Vec<_> = fused.into_iter().zip(ids).collect();
        keyed.sort_by(|a, b| b.0.0.total_cmp(&a.0.0).then_with(|| a.1.cmp(&b.1)));
        keyed.truncate(k);
        fused = keyed.into_iter().map(|(f, _)| f).collect();
    }
    fused
}
