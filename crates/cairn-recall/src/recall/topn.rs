//! Top-n selection shared by the lanes: [`Scored`] candidates ordered by score then a layout-free key,
//! a bounded heap of the best `n` ([`TopN`]), and the lexical lane's [`Pool`], which also keeps the near
//! ties of its last place so that block-max WAND's threshold path (index layout, two threads) cannot
//! change which candidates come out.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering as AtomicOrdering};

use tantivy::DocAddress;

/// A candidate in a top-n heap: the smallest score on top; ties: the larger `key` (the chunk's
/// `order_key`, the same however the index was built), then the larger address, on top (dropped
/// first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Scored {
    pub(super) score: f32,
    pub(super) key: u64,
    pub(super) addr: DocAddress,
}

impl Eq for Scored {}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.key.cmp(&other.key))
            .then_with(|| self.addr.cmp(&other.addr))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Keeps the best `n` candidates.
struct TopN {
    n: usize,
    heap: BinaryHeap<Scored>,
}

impl TopN {
    fn new(n: usize) -> Self {
        TopN { n: n.max(1), heap: BinaryHeap::with_capacity(n.max(1) + 1) }
    }

    /// Offers a candidate; returns the one left out (`s` itself, or the one it pushed out), if any.
    fn push(&mut self, s: Scored) -> Option<Scored> {
        if self.heap.len() < self.n {
            self.heap.push(s);
            return None;
        }
        let mut top = self.heap.peek_mut()?;
        Some(if s < *top { std::mem::replace(&mut *top, s) } else { s })
    }

    fn is_full(&self) -> bool {
        self.heap.len() >= self.n
    }

    fn threshold(&self) -> f32 {
        if self.heap.len() < self.n { 0.0 } else { self.heap.peek().map_or(0.0, |s| s.score) }
    }
}

/// How far below the lexical pool's lowest score (relative) a candidate is still kept: far above the
/// few ulps by which block-max WAND's sums can differ from the canonical ones (`lexical::rescore`), far
/// below any difference BM25 means.
const NEAR: f32 = 1e-5;

/// The lexical lane's pool: the best `n` by block-max WAND's score, and every candidate within
/// [`NEAR`] of the lowest of them, so that the canonical best `n` (`lexical::rescore`) are among them
/// however WAND's threshold moved (which depends on the index layout and, with two threads, on timing).
///
/// The threads searching one query share their thresholds through `floor` (an `f32`'s bits, which
/// order like the scores: no score is negative): a document under another thread's `n`-th score
/// cannot be among the best `n` either.
pub(super) struct Pool {
    top: TopN,
    near: Vec<Scored>,
    floor: Arc<AtomicU32>,
}

impl Pool {
    pub(super) fn new(n: usize, floor: Arc<AtomicU32>) -> Self {
        Pool { top: TopN::new(n), near: Vec::new(), floor }
    }

    /// The score a document must exceed to be offered.
    pub(super) fn offer_above(&self) -> f32 {
        let shared = f32::from_bits(self.floor.load(AtomicOrdering::Relaxed));
        self.top.threshold().max(shared) * (1.0 - NEAR)
    }

    pub(super) fn push(&mut self, s: Scored) {
        if let Some(out) = self.top.push(s) {
            let above = self.offer_above();
            if out.score > above {
                self.near.push(out);
                if self.near.len() >= 4 * self.top.n {
                    self.near.retain(|s| s.score > above);
                }
            }
        }
        if self.top.is_full() {
            self.floor.fetch_max(self.top.threshold().to_bits(), AtomicOrdering::Relaxed);
        }
    }

    /// The candidates of `pools` (of one query) within [`NEAR`] of their `n`-th best score.
    pub(super) fn merge(pools: Vec<Pool>, n: usize) -> Vec<Scored> {
        let mut all: Vec<Scored> =
            pools.into_iter().flat_map(|p| p.top.heap.into_iter().chain(p.near)).collect();
        all.sort_unstable();
        if let Some(nth) = all.get(n.max(1) - 1).map(|s| s.score) {
            let above = nth * (1.0 - NEAR);
            all.retain(|s| s.score > above);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// However block-max WAND's threshold moves (two pools sharing a floor, documents offered in
        /// any order, each WAND sum a few ulps off its canonical score), the pools hold the canonical
        /// best `n`: rescored and cut, they equal the best `n` of every document by canonical score.
        #[test]
        fn pools_hold_the_canonical_best_n_whatever_the_threshold_did(
            docs in prop::collection::vec((0u32..40, 0u64..1_000, any::<u8>()), 1..300),
            n in 1usize..30,
            split in any::<u64>(),
        ) {
            // Scores on a coarse grid (many exact ties), keys mostly distinct.
            let canonical: Vec<Scored> = docs
                .iter()
                .enumerate()
                .map(|(i, &(grid, key, _))| Scored {
                    score: 1.0 + grid as f32 * 0.25,
                    key,
                    addr: DocAddress::new((i % 2) as u32, i as u32),
                })
                .collect();
            let floor = Arc::new(AtomicU32::new(0));
            let mut pools = [Pool::new(n, Arc::clone(&floor)), Pool::new(n, Arc::clone(&floor))];
            for (i, (c, &(_, _, noise))) in canonical.iter().zip(&docs).enumerate() {
                // WAND's sum: up to 3 ulps either way.
                let mut score = c.score;
                for _ in 0..noise % 4 {
                    score = if noise & 0x80 == 0 { score.next_up() } else { score.next_down() };
                }
                let pool = &mut pools[((split >> (i % 64)) & 1) as usize];
                if score > pool.offer_above() {
                    // As WAND offers it: no key yet (read after the merge).
                    pool.push(Scored { score, key: 0, ..*c });
                }
            }
            let mut found = Pool::merge(pools.into_iter().collect(), n);
            for f in &mut found {
                let c = &canonical[f.addr.doc_id as usize];
                (f.score, f.key) = (c.score, c.key);
            }
            found.sort_unstable();
            found.truncate(n);
            let mut want = canonical.clone();
            want.sort_unstable();
            want.truncate(n);
            prop_assert_eq!(found, want);
        }
    }
}
