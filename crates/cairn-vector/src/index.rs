//! The in-memory vector index: rows in contiguous arrays, exact scan, optional HNSW, store sync.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use cairn_core::{Audience, Scope};
use cairn_store::{Store, StoredVector};
use hnsw_rs::hnsw::Hnsw;
use serde::{Deserialize, Serialize};

use crate::kernel::{DotDistance, dot, quantize_into, scan_f32, scan_i8};

/// Tunables of vector search (`[vector]` in the config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VectorSettings {
    /// At this many live vectors an HNSW index is built and used (below it every search is exact).
    pub ann_threshold: usize,
    /// Scan int8 codes first, then re-score the best candidates in f32: 4× less memory traffic than the
    /// f32 scan, and with the AVX2 kernels (picked at run time) the fastest exact path (see
    /// `BENCHMARKS.md`). On CPUs without AVX2 the portable int8 loop is slower than the f32 scan: set
    /// this to false there.
    pub quantize: bool,
    /// Candidates re-scored in f32 per requested hit when `quantize` is on.
    pub rescore_factor: usize,
    /// HNSW: links per node.
    pub hnsw_m: usize,
    /// HNSW: candidate list size while building.
    pub hnsw_ef_construction: usize,
    /// HNSW: candidate list size while searching (at least `k`).
    pub hnsw_ef_search: usize,
    /// HNSW is skipped (exact scan over the admitted rows) when the scope admits less than this share
    /// of the live vectors: filtered graph search degrades when most nodes are filtered out.
    pub hnsw_min_selectivity: f32,
    /// Chunks per embedder call when embedding at ingest.
    pub embed_batch: usize,
}

impl Default for VectorSettings {
    fn default() -> Self {
        VectorSettings {
            ann_threshold: 200_000,
            quantize: true,
            rescore_factor: 4,
            hnsw_m: 16,
            hnsw_ef_construction: 100,
            hnsw_ef_search: 96,
            hnsw_min_selectivity: 0.05,
            embed_batch: 32,
        }
    }
}

/// One vector hit.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    /// The chunk.
    pub chunk_id: Arc<str>,
    /// Its item.
    pub item_id: Arc<str>,
    /// Cosine similarity to the query (vectors are normalised), in `[-1, 1]`.
    pub score: f32,
}

/// How a search ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMethod {
    /// Every admitted row was scored.
    Exact,
    /// The HNSW graph, filtered by scope.
    Hnsw,
}

/// What [`VectorIndex::sync`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VectorSync {
    /// Vectors added or replaced.
    pub upserted: usize,
    /// Items whose vectors were reloaded (changed or deleted in the store).
    pub items_reloaded: usize,
}

/// An error while loading or syncing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] cairn_store::Error),
    /// A vector of the wrong length.
    #[error("vector of chunk `{chunk_id}` has {found} dimensions, the index holds {expected}")]
    Dimension {
        /// The chunk.
        chunk_id: String,
        /// Its length.
        found: usize,
        /// The index's dimension.
        expected: usize,
    },
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

struct Ann {
    /// Every row since the build is in the graph (later rows are inserted as they arrive).
    hnsw: Hnsw<'static, f32, DotDistance>,
}

/// Vectors of one model, in memory, searchable by cosine similarity within a [`Scope`].
///
/// Rows live in contiguous arrays (f32 and int8 codes); a deleted or replaced row is marked dead and the
/// arrays are compacted once a quarter of them is dead.
pub struct VectorIndex {
    model_id: String,
    dim: usize,
    settings: VectorSettings,
    chunk_ids: Vec<Arc<str>>,
    item_ids: Vec<Arc<str>>,
    project: Vec<u32>,
    public: Vec<bool>,
    alive: Vec<bool>,
    data: Vec<f32>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    by_chunk: HashMap<Arc<str>, u32>,
    by_item: HashMap<Arc<str>, Vec<u32>>,
    projects: HashMap<String, u32>,
    /// Each row's lines: the first line and how many, in `line_codes` / `line_scales`.
    line_spans: Vec<(u32, u32)>,
    /// The rows' line vectors as int8 codes (they only re-score chunks already found).
    line_codes: Vec<i8>,
    line_scales: Vec<f32>,
    dead: usize,
    ann: Option<Ann>,
    /// Ingest-log sequence the index follows.
    log_seq: u64,
    /// Vector-log sequence the index follows.
    vseq: u64,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("model_id", &self.model_id)
            .field("dim", &self.dim)
            .field("len", &self.len())
            .field("hnsw", &self.ann.is_some())
            .finish()
    }
}

/// From this many rows the exact int8 scan is split between two threads.
const PARALLEL_SCAN_ROWS: usize = 32_768;

/// A candidate in a top-n min-heap: the worst on top; ties: the larger row on top (dropped first).
#[derive(Clone, Copy, PartialEq)]
struct Cand {
    score: f32,
    row: u32,
}

impl Eq for Cand {}

impl Ord for Cand {
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.total_cmp(&self.score).then_with(|| self.row.cmp(&other.row))
    }
}

impl PartialOrd for Cand {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

struct TopK {
    k: usize,
    heap: BinaryHeap<Cand>,
}

impl TopK {
    fn new(k: usize) -> Self {
        TopK { k, heap: BinaryHeap::with_capacity(k + 1) }
    }

    #[inline]
    fn push(&mut self, c: Cand) {
        if self.heap.len() < self.k {
            self.heap.push(c);
        } else if let Some(mut top) = self.heap.peek_mut()
            && c < *top
        {
            *top = c;
        }
    }

    fn into_sorted(self) -> Vec<Cand> {
        let mut v = self.heap.into_vec();
        v.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.row.cmp(&b.row)));
        v
    }
}

impl VectorIndex {
    /// An empty index for vectors of `dim` dimensions made by `model_id`.
    pub fn new(model_id: impl Into<String>, dim: usize, settings: VectorSettings) -> Self {
        VectorIndex {
            model_id: model_id.into(),
            dim,
            settings,
            chunk_ids: Vec::new(),
            item_ids: Vec::new(),
            project: Vec::new(),
            public: Vec::new(),
            alive: Vec::new(),
            data: Vec::new(),
            codes: Vec::new(),
            scales: Vec::new(),
            by_chunk: HashMap::new(),
            by_item: HashMap::new(),
            projects: HashMap::new(),
            line_spans: Vec::new(),
            line_codes: Vec::new(),
            line_scales: Vec::new(),
            dead: 0,
            ann: None,
            log_seq: 0,
            vseq: 0,
        }
    }

    /// Every current vector of `model_id` in `store`, ready to search (HNSW built when large enough).
    pub fn load(store: &dyn Store, model_id: &str, dim: usize, settings: VectorSettings) -> Result<Self> {
        let mut index = VectorIndex::new(model_id, dim, settings);
        index.log_seq = store.last_seq()?;
        let mut bad = None;
        index.vseq = store.vectors_since(model_id, dim, 0, &mut |v| {
            if let Err(e) = index.upsert_stored(&v) {
                bad.get_or_insert(e);
            }
        })?;
        if let Some(e) = bad {
            return Err(e);
        }
        index.maintain();
        Ok(index)
    }

    /// Catches up with `store`: reloads the vectors of items changed or deleted since the last sync,
    /// then adds vectors written since.
    pub fn sync(&mut self, store: &dyn Store) -> Result<VectorSync> {
        let mut report = VectorSync::default();
        let last = store.last_seq()?;
        if last != self.log_seq {
            for change in store.changes_since(self.log_seq)? {
                self.remove_item(&change.item_id);
                report.items_reloaded += 1;
                if !change.deleted {
                    for v in store.item_vectors(&self.model_id, self.dim, &change.item_id)? {
                        self.upsert_stored(&v)?;
                        report.upserted += 1;
                    }
                }
            }
            self.log_seq = last;
        }
        let mut bad = None;
        let (model, dim, from) = (self.model_id.clone(), self.dim, self.vseq);
        self.vseq = store.vectors_since(&model, dim, from, &mut |v| match self.upsert_stored(&v) {
            Ok(()) => report.upserted += 1,
            Err(e) => {
                bad.get_or_insert(e);
            }
        })?;
        if let Some(e) = bad {
            return Err(e);
        }
        self.maintain();
        Ok(report)
    }

    fn upsert_stored(&mut self, v: &StoredVector) -> Result<()> {
        self.upsert_with_lines(&v.chunk_id, &v.item_id, &v.project, v.audience, &v.vector, &v.lines)
    }

    /// Adds (or replaces) the vector of a chunk. Call [`VectorIndex::maintain`] after a batch.
    pub fn upsert(
        &mut self,
        chunk_id: &str,
        item_id: &str,
        project: &str,
        audience: Audience,
        vector: &[f32],
    ) -> Result<()> {
        self.upsert_with_lines(chunk_id, item_id, project, audience, vector, &[])
    }

    /// [`VectorIndex::upsert`] with the vectors of the chunk's lines, one after another (see
    /// [`VectorIndex::best_line`]).
    pub fn upsert_with_lines(
        &mut self,
        chunk_id: &str,
        item_id: &str,
        project: &str,
        audience: Audience,
        vector: &[f32],
        lines: &[f32],
    ) -> Result<()> {
        if vector.len() != self.dim || !lines.len().is_multiple_of(self.dim) {
            let found = if vector.len() != self.dim { vector.len() } else { lines.len() % self.dim };
            return Err(Error::Dimension { chunk_id: chunk_id.to_owned(), found, expected: self.dim });
        }
        if let Some(&row) = self.by_chunk.get(chunk_id) {
            self.kill(row);
        }
        let row = self.chunk_ids.len() as u32;
        let next = self.projects.len() as u32;
        let p = *self.projects.entry(project.to_owned()).or_insert(next);
        let chunk: Arc<str> = Arc::from(chunk_id);
        let item: Arc<str> = match self.by_item.get_key_value(item_id) {
            Some((k, _)) => k.clone(),
            None => Arc::from(item_id),
        };
        self.chunk_ids.push(chunk.clone());
        self.item_ids.push(item.clone());
        self.project.push(p);
        self.public.push(audience == Audience::Public);
        self.alive.push(true);
        self.data.extend_from_slice(vector);
        let s = quantize_into(vector, &mut self.codes);
        self.scales.push(s);
        let first = self.line_scales.len() as u32;
        for line in lines.chunks_exact(self.dim) {
            let s = quantize_into(line, &mut self.line_codes);
            self.line_scales.push(s);
        }
        self.line_spans.push((first, (lines.len() / self.dim) as u32));
        self.by_chunk.insert(chunk, row);
        self.by_item.entry(item).or_default().push(row);
        if let Some(ann) = &mut self.ann {
            let r = row as usize;
            ann.hnsw.insert_slice((&self.data[r * self.dim..(r + 1) * self.dim], r));
        }
        Ok(())
    }

    /// Removes every vector of an item.
    pub fn remove_item(&mut self, item_id: &str) {
        if let Some(rows) = self.by_item.remove(item_id) {
            for row in rows {
                if self.alive[row as usize] {
                    self.by_chunk.remove(&self.chunk_ids[row as usize]);
                    self.alive[row as usize] = false;
                    self.dead += 1;
                }
            }
        }
    }

    fn kill(&mut self, row: u32) {
        let r = row as usize;
        if !self.alive[r] {
            return;
        }
        self.alive[r] = false;
        self.dead += 1;
        self.by_chunk.remove(&self.chunk_ids[r]);
        if let Some(rows) = self.by_item.get_mut(&self.item_ids[r]) {
            rows.retain(|&x| x != row);
            if rows.is_empty() {
                let key = self.item_ids[r].clone();
                self.by_item.remove(&key);
            }
        }
    }

    /// Compacts when a quarter of the rows are dead; builds the HNSW index once the live count reaches
    /// the threshold (and drops it below half of it).
    pub fn maintain(&mut self) {
        let n = self.chunk_ids.len();
        if self.dead > 0 && self.dead * 4 >= n.max(64) {
            self.compact();
        }
        let live = self.len();
        if self.ann.is_none() && live >= self.settings.ann_threshold.max(1) {
            self.build_ann();
        } else if self.ann.is_some() && live * 2 < self.settings.ann_threshold {
            self.ann = None;
        }
    }

    fn compact(&mut self) {
        let keep: Vec<usize> = (0..self.chunk_ids.len()).filter(|&r| self.alive[r]).collect();
        let dim = self.dim;
        let mut data = Vec::with_capacity(keep.len() * dim);
        let mut codes = Vec::with_capacity(keep.len() * dim);
        for &r in &keep {
            data.extend_from_slice(&self.data[r * dim..(r + 1) * dim]);
            codes.extend_from_slice(&self.codes[r * dim..(r + 1) * dim]);
        }
        let mut line_codes = Vec::new();
        let mut line_scales = Vec::new();
        let mut line_spans = Vec::with_capacity(keep.len());
        for &r in &keep {
            let (first, n) = self.line_spans[r];
            let (a, b) = (first as usize, (first + n) as usize);
            line_spans.push((line_scales.len() as u32, n));
            line_codes.extend_from_slice(&self.line_codes[a * dim..b * dim]);
            line_scales.extend_from_slice(&self.line_scales[a..b]);
        }
        self.line_codes = line_codes;
        self.line_scales = line_scales;
        self.line_spans = line_spans;
        let pick = |v: &[Arc<str>]| keep.iter().map(|&r| v[r].clone()).collect::<Vec<_>>();
        self.chunk_ids = pick(&self.chunk_ids);
        self.item_ids = pick(&self.item_ids);
        self.project = keep.iter().map(|&r| self.project[r]).collect();
        self.public = keep.iter().map(|&r| self.public[r]).collect();
        self.scales = keep.iter().map(|&r| self.scales[r]).collect();
        self.alive = vec![true; keep.len()];
        self.data = data;
        self.codes = codes;
        self.dead = 0;
        self.by_chunk = self.chunk_ids.iter().enumerate().map(|(r, c)| (c.clone(), r as u32)).collect();
        self.by_item.clear();
        for (r, item) in self.item_ids.iter().enumerate() {
            self.by_item.entry(item.clone()).or_default().push(r as u32);
        }
        if self.ann.is_some() {
            self.build_ann();
        }
    }

    /// (Re)builds the HNSW graph over every live row, on every core.
    pub fn build_ann(&mut self) {
        let n = self.chunk_ids.len();
        let s = &self.settings;
        let hnsw =
            Hnsw::new(s.hnsw_m.clamp(2, 255), n.max(1), 16, s.hnsw_ef_construction.max(8), DotDistance);
        let rows: Vec<(&[f32], usize)> =
            (0..n).filter(|&r| self.alive[r]).map(|r| (self.row(r as u32), r)).collect();
        hnsw.parallel_insert_slice(&rows);
        self.ann = Some(Ann { hnsw });
    }

    #[inline]
    fn row(&self, row: u32) -> &[f32] {
        let r = row as usize;
        &self.data[r * self.dim..(r + 1) * self.dim]
    }

    /// The vector of a live chunk.
    pub fn vector(&self, chunk_id: &str) -> Option<&[f32]> {
        self.by_chunk.get(chunk_id).map(|&r| self.row(r))
    }

    /// The best cosine similarity between `query` and one of a live chunk's lines (`None` when the
    /// chunk is not in the index or was embedded whole only). Lines are kept as int8 codes, so this
    /// is within about 1 % of the exact cosine.
    pub fn best_line(&self, chunk_id: &str, query: &[f32]) -> Option<f32> {
        self.nearest_line(chunk_id, query).map(|(_, cosine)| cosine)
    }

    /// Which of a live chunk's lines is nearest `query` (its position among the chunk's lines) and
    /// its cosine similarity, as [`VectorIndex::best_line`] measures it.
    pub fn nearest_line(&self, chunk_id: &str, query: &[f32]) -> Option<(usize, f32)> {
        if query.len() != self.dim {
            return None;
        }
        let &row = self.by_chunk.get(chunk_id)?;
        let (first, n) = self.line_spans[row as usize];
        (first..first + n)
            .map(|l| {
                let l = l as usize;
                let codes = &self.line_codes[l * self.dim..(l + 1) * self.dim];
                let d: f32 = query.iter().zip(codes).map(|(q, &c)| q * f32::from(c)).sum();
                (l - first as usize, d * self.line_scales[l])
            })
            .reduce(|a, b| if b.1 > a.1 { b } else { a })
    }

    /// Whether a live chunk has line vectors (a chunk of several lines).
    pub fn has_lines(&self, chunk_id: &str) -> bool {
        self.by_chunk.get(chunk_id).is_some_and(|&row| self.line_spans[row as usize].1 > 0)
    }

    /// The model the vectors come from.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Vector length.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Live vectors.
    pub fn len(&self) -> usize {
        self.chunk_ids.len() - self.dead
    }

    /// Whether no vector is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the HNSW index is built.
    pub fn has_ann(&self) -> bool {
        self.ann.is_some()
    }

    /// The settings in use.
    pub fn settings(&self) -> &VectorSettings {
        &self.settings
    }

    /// Approximate heap bytes held by the rows (vectors, codes, ids), without the HNSW graph.
    pub fn memory_bytes(&self) -> usize {
        let n = self.chunk_ids.len();
        let ids: usize = self.chunk_ids.iter().map(|c| c.len() + 16).sum::<usize>()
            + self.by_item.keys().map(|k| k.len() + 16).sum::<usize>();
        self.data.len() * 4
            + self.codes.len()
            + self.line_codes.len()
            + self.line_scales.len() * 4
            + n * (4 + 4 + 2 + 16 + 16 + 32 + 8)
            + ids
    }

    fn admits(&self, row: usize, project: Option<u32>, allow_private: bool) -> bool {
        self.alive[row]
            && (allow_private || self.public[row])
            && project.is_none_or(|p| self.project[row] == p)
    }

    /// The `k` most similar chunks to `query` within `scope`, best first (ties: older row first).
    /// Exact below the HNSW threshold or for narrow scopes, HNSW otherwise.
    pub fn search(&self, query: &[f32], scope: &Scope, k: usize) -> (Vec<VectorHit>, SearchMethod) {
        if self.ann.is_some() {
            let (project, allow_private) = match self.resolve_scope(scope) {
                Some(s) => s,
                None => return (Vec::new(), SearchMethod::Exact),
            };
            let admitted = self.count_admitted(project, allow_private);
            let share = admitted as f32 / self.len().max(1) as f32;
            if share >= self.settings.hnsw_min_selectivity {
                let hits = self.search_hnsw_admitted(query, project, allow_private, admitted, k);
                if hits.len() >= k.min(admitted) {
                    return (hits, SearchMethod::Hnsw);
                }
            }
        }
        (self.search_exact(query, scope, k), SearchMethod::Exact)
    }

    fn resolve_scope(&self, scope: &Scope) -> Option<(Option<u32>, bool)> {
        let project = match &scope.project {
            Some(p) => Some(*self.projects.get(p)?),
            None => None,
        };
        Some((project, scope.allow_private))
    }

    fn count_admitted(&self, project: Option<u32>, allow_private: bool) -> usize {
        (0..self.chunk_ids.len()).filter(|&r| self.admits(r, project, allow_private)).count()
    }

    fn hit(&self, c: Cand) -> VectorHit {
        let r = c.row as usize;
        VectorHit { chunk_id: self.chunk_ids[r].clone(), item_id: self.item_ids[r].clone(), score: c.score }
    }

    /// Exact search: every admitted row is scored (int8 scan then f32 re-scoring when `quantize` is on,
    /// else f32 throughout).
    pub fn search_exact(&self, query: &[f32], scope: &Scope, k: usize) -> Vec<VectorHit> {
        if k == 0 || query.len() != self.dim {
            return Vec::new();
        }
        let Some((project, allow_private)) = self.resolve_scope(scope) else {
            return Vec::new();
        };
        let dim = self.dim;
        let admit = |r: usize| self.admits(r, project, allow_private);
        let best = if self.settings.quantize {
            let mut qcodes = Vec::with_capacity(dim);
            let qs = quantize_into(query, &mut qcodes);
            let pool = k * self.settings.rescore_factor.max(1) + 8;
            // One half of the rows on each core when the scan is long enough to pay for a thread: each
            // half keeps its own best `pool`, and merging them keeps the same set (the order is total).
            let scan = |from: usize, to: usize| {
                let mut top = TopK::new(pool);
                scan_i8(
                    &qcodes,
                    &self.codes[from * dim..to * dim],
                    dim,
                    |r| admit(from + r),
                    |r, d| {
                        let r = from + r;
                        top.push(Cand { score: d as f32 * qs * self.scales[r], row: r as u32 });
                    },
                );
                top
            };
            let rows = self.chunk_ids.len();
            let top = if rows >= PARALLEL_SCAN_ROWS
                && std::thread::available_parallelism().map_or(1, |c| c.get()) >= 2
            {
                let mid = rows / 2;
                let (mut top, other) = std::thread::scope(|sc| {
                    let other = sc.spawn(|| scan(mid, rows));
                    let mine = scan(0, mid);
                    (mine, other.join())
                });
                match other {
                    Ok(other) => {
                        for c in other.heap {
                            top.push(c);
                        }
                        top
                    }
                    // A panicking half: scan it again on this thread.
                    Err(_) => {
                        for c in scan(mid, rows).heap {
                            top.push(c);
                        }
                        top
                    }
                }
            } else {
                scan(0, rows)
            };
            let mut exact = TopK::new(k);
            for c in top.into_sorted() {
                exact.push(Cand { score: dot(query, self.row(c.row)), row: c.row });
            }
            exact
        } else {
            let mut top = TopK::new(k);
            scan_f32(query, &self.data, dim, admit, |r, d| top.push(Cand { score: d, row: r as u32 }));
            top
        };
        best.into_sorted().into_iter().map(|c| self.hit(c)).collect()
    }

    /// HNSW search, the scope applied to the graph's candidates; empty when no graph is built. The walk
    /// itself is unfiltered (hnsw_rs's filtered walk never stops early and visits most of the graph):
    /// the candidate list grows with the share of rows the scope rejects, and [`VectorIndex::search`]
    /// falls back to the exact scan when fewer than `k` admitted rows come back.
    pub fn search_hnsw(&self, query: &[f32], scope: &Scope, k: usize) -> Vec<VectorHit> {
        let Some((project, allow_private)) = self.resolve_scope(scope) else {
            return Vec::new();
        };
        let admitted = if allow_private && project.is_none() {
            self.len()
        } else {
            self.count_admitted(project, allow_private)
        };
        self.search_hnsw_admitted(query, project, allow_private, admitted, k)
    }

    fn search_hnsw_admitted(
        &self,
        query: &[f32],
        project: Option<u32>,
        allow_private: bool,
        admitted: usize,
        k: usize,
    ) -> Vec<VectorHit> {
        let Some(ann) = &self.ann else { return Vec::new() };
        if k == 0 || query.len() != self.dim || admitted == 0 {
            return Vec::new();
        }
        let base = self.settings.hnsw_ef_search.max(k);
        // Rows the graph holds that the scope rejects (other scopes, dead rows) take candidate slots.
        let share = admitted as f64 / self.chunk_ids.len().max(1) as f64;
        let ef = ((base as f64 / share).ceil() as usize).clamp(base, base.max(k * 64).max(2048));
        let found = ann.hnsw.search(query, ef, ef);
        let mut top = TopK::new(k);
        for n in found {
            // Re-scored exactly: the graph's distance is only used to navigate.
            if n.d_id < self.chunk_ids.len() && self.admits(n.d_id, project, allow_private) {
                top.push(Cand { score: dot(query, self.row(n.d_id as u32)), row: n.d_id as u32 });
            }
        }
        top.into_sorted().into_iter().map(|c| self.hit(c)).collect()
    }
}
