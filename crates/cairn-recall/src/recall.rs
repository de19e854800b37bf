//! The read side: lanes (lexical, vector, tags, recency), fusion, MMR, and hits built from the index.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use cairn_core::helper::{self, Helper};
use cairn_core::{Hit, LaneReport, LaneStatus, Millis, Scope};
use cairn_embed::{EmbedKind, Embedder};
use cairn_vector::VectorIndex;
use serde::{Deserialize, Serialize};
use tantivy::columnar::{Column, StrColumn};
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::Postings as _;
use tantivy::query::Scorer as _;
use tantivy::query::{
    Bm25StatisticsProvider, Bm25Weight, BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring, Occur,
    Query, TermQuery, Weight,
};
use tantivy::schema::IndexRecordOption;
use tantivy::store::StoreReader;
use tantivy::{DocAddress, DocId, DocSet, IndexReader, ReloadPolicy, Searcher, SegmentReader, Term};
use unicode_segmentation::UnicodeSegmentation;

use crate::analyzer::{for_each_term, is_cjk};
use crate::error::{Error, Result};
use crate::index::{
    F_AUDIENCE, F_CHUNK_ID, F_CREATED_AT, F_ITEM_KEY, F_ORDER_KEY, F_PREVIOUS_KEY, F_PROJECT, F_TAGS,
    RecallIndex, StoredHit,
};
use crate::stats::{self, ScopeCounts, ScopedStats};
use crate::taat;

/// Lane names, as they appear in [`Hit::parts`], [`cairn_core::Why::lanes`] and [`LaneReport::name`].
pub mod lane {
    /// BM25 over title and body.
    pub const LEXICAL: &str = "lexical";
    /// Cosine similarity of the query's embedding to the chunks' embeddings.
    pub const VECTOR: &str = "vector";
    /// Tags inferred from the query.
    pub const TAGS: &str = "tags";
    /// Exponential decay by age.
    pub const RECENCY: &str = "recency";
    /// Score lent by the turn just before or after in the same session (not a lane of its own: it
    /// only moves candidates the lanes found).
    pub const NEIGHBOUR: &str = "neighbour";
}

const MS_PER_DAY: f64 = 86_400_000.0;

/// `x` rounded to 5 decimals (scores are compared and printed at this precision).
fn quantize(x: f32) -> f32 {
    ((f64::from(x) * 1e5).round() / 1e5) as f32
}

/// How lane scores become one score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Fusion {
    /// `Σ weight × part`, each part normalised to `[0, 1]`: lexical and vector scores min-max over the
    /// candidates (every candidate gets its cosine similarity, whichever lane found it).
    Weighted,
    /// Reciprocal rank fusion: `Σ weight / (k + rank in lane)`, for lanes whose scores do not compare.
    Rrf {
        /// The RRF constant (60 in the original paper).
        k: f32,
    },
}

/// Relative weight of each lane in the fused score; 0 turns a lane off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LaneWeights {
    /// BM25 lane.
    pub lexical: f32,
    /// Vector lane (used when an embedding model is configured).
    pub vector: f32,
    /// Tag lane.
    pub tags: f32,
    /// Recency lane.
    pub recency: f32,
}

impl Default for LaneWeights {
    fn default() -> Self {
        LaneWeights { lexical: 1.0, vector: 1.0, tags: 0.3, recency: 0.1 }
    }
}

impl LaneWeights {
    /// Lexical only.
    pub fn lexical_only() -> Self {
        LaneWeights { lexical: 1.0, vector: 0.0, tags: 0.0, recency: 0.0 }
    }

    /// Vector only.
    pub fn vector_only() -> Self {
        LaneWeights { lexical: 0.0, vector: 1.0, tags: 0.0, recency: 0.0 }
    }

    /// The weight of a lane by name (0 for an unknown name).
    pub fn get(&self, lane: &str) -> f32 {
        match lane {
            lane::LEXICAL => self.lexical,
            lane::VECTOR => self.vector,
            lane::TAGS => self.tags,
            lane::RECENCY => self.recency,
            _ => 0.0,
        }
    }
}

/// Every lane name, in report order.
pub const ALL_LANES: [&str; 4] = [lane::LEXICAL, lane::VECTOR, lane::TAGS, lane::RECENCY];

/// Tunables of recall, resolved once (from config) and passed to [`Recaller`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecallSettings {
    /// Lane weights.
    pub weights: LaneWeights,
    /// How lanes are fused.
    pub fusion: Fusion,
    /// Half-life of the recency decay, in days.
    pub half_life_days: f64,
    /// Multiplier of BM25 on the title field relative to the body (0: the title is not searched).
    pub title_boost: f32,
    /// Multiplier of BM25 on an item's context (a turn's previous turn) relative to the body (0: the
    /// context is not searched).
    pub context_boost: f32,
    /// Candidates each lane contributes before fusion (at least `k`).
    pub pool: usize,
    /// At most this many distinct query terms are used (the rarest ones, for very long prompts).
    pub max_query_terms: usize,
    /// Lanes that run (`lexical`, `vector`, `tags`, `recency`); a lane also needs a weight above 0, and
    /// the vector lane an embedding model.
    pub lanes: Vec<String>,
    /// Candidates the lexical lane contributes when something can lift a lexical runner-up (at least
    /// `pool`): the vector lane, or neighbour lending when the index holds linked turns. Otherwise the
    /// lexical lane contributes `pool`.
    pub lexical_pool: usize,
    /// Candidates the vector lane contributes (at least `pool`).
    pub vector_pool: usize,
    /// Semantic fallback: when the lexical lane finds fewer than this many candidates, the vector lane
    /// runs even if it is not among `lanes` (0: never).
    pub semantic_fallback: usize,
    /// Maximal marginal relevance re-ranking of the fused list: `λ·relevance − (1−λ)·max similarity to
    /// the hits above` (needs vectors). 1.0 (or no model) leaves the order alone.
    pub mmr_lambda: f32,
    /// BM25 statistics (document frequencies) counted over the documents in the query's scope, not the
    /// whole index, whenever the scope restricts the project or hides private items (see `stats.rs`).
    pub scoped_statistics: bool,
    /// Consecutive conversation turns lend each other score: a candidate gains this share of the best
    /// fused score of the turn just before or after it in its session, when that turn is a candidate
    /// too (an answer sits next to the question that names its subject). 0: off.
    pub neighbour_boost: f32,
    /// On an index of 20,000 chunks or more, a recall that runs alone in its process (no other recall,
    /// no query embedding) shares its work with a helper thread (see `cairn_core::helper`): block-max
    /// WAND over half the segments, and reading hits ahead while the other lanes run. The hits are the
    /// same on one thread or two; `false` keeps every recall on the calling thread.
    pub parallel: bool,
}

impl RecallSettings {
    /// Whether a lane is configured to run (listed in `lanes` with a positive weight).
    pub fn lane_on(&self, name: &str) -> bool {
        self.weights.get(name) > 0.0 && self.lanes.iter().any(|l| l == name)
    }

    /// Keeps only `lanes` (by name) switched on; the others get weight 0.
    pub fn only_lanes(mut self, lanes: &[&str]) -> Self {
        self.lanes = lanes.iter().map(|l| (*l).to_owned()).collect();
        let w = &mut self.weights;
        for (name, weight) in [
            (lane::LEXICAL, &mut w.lexical),
            (lane::VECTOR, &mut w.vector),
            (lane::TAGS, &mut w.tags),
            (lane::RECENCY, &mut w.recency),
        ] {
            if !lanes.contains(&name) {
                *weight = 0.0;
            } else if *weight == 0.0 {
                *weight = 1.0;
            }
        }
        self
    }
}

impl Default for RecallSettings {
    fn default() -> Self {
        RecallSettings {
            weights: LaneWeights::default(),
            fusion: Fusion::Weighted,
            half_life_days: 30.0,
            title_boost: 2.0,
            context_boost: 0.3,
            pool: 10,
            max_query_terms: 48,
            lanes: ALL_LANES.iter().map(|l| (*l).to_owned()).collect(),
            lexical_pool: 50,
            vector_pool: 30,
            semantic_fallback: 3,
            mmr_lambda: 1.0,
            scoped_statistics: true,
            neighbour_boost: 0.3,
            parallel: true,
        }
    }
}

/// One recall request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallQuery {
    /// The prompt or question, any length, any script.
    pub text: String,
    /// Who is asking, over which project. Applied inside every lane.
    pub scope: Scope,
    /// Number of hits.
    pub k: usize,
    /// Number of most recent chunks in scope to return in [`RecallResult::recent`] (0: none).
    pub recent_k: usize,
    /// The time recency is measured from (pass it in: tests stay deterministic).
    pub now: Millis,
}

impl RecallQuery {
    /// A query for `k` hits in `scope`, no recent list, measured from `now`.
    pub fn new(text: impl Into<String>, scope: Scope, k: usize, now: Millis) -> Self {
        RecallQuery { text: text.into(), scope, k, recent_k: 0, now }
    }
}

/// What recall found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallResult {
    /// Ranked hits, best first; ties broken by chunk id (exact within the lanes' candidate pools).
    pub hits: Vec<Hit>,
    /// The most recent chunks in scope, newest first (for the assembler's recency layer).
    pub recent: Vec<Hit>,
    /// Tags inferred from the query (only tags that some chunk in scope carries).
    pub query_tags: Vec<String>,
    /// Analysed query terms that were searched (stems and CJK bigrams).
    pub query_terms: Vec<String>,
    /// One report per lane, in the order lexical, vector, tags, recency.
    pub lanes: Vec<LaneReport>,
    /// Problems that did not stop recall (a hit that could not be read, ...). No item text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What an index generation holds, for the lanes to skip work that cannot matter.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// A chunk links to a previous turn (some segment's previous-key column is above 0): neighbour
    /// lending can lift a lexical runner-up.
    turn_links: bool,
    /// A chunk has a context (the context field holds tokens): its BM25 clauses can match.
    contexts: bool,
}

/// Every chunk, newest first, shared per index generation.
type ByDate = Arc<Vec<(Millis, DocAddress)>>;

/// One doc-store reader per segment, shared per index generation.
type Stores = Arc<Vec<StoreReader>>;

/// Each document's chunk id as its rank among every chunk id of the index generation (per segment,
/// by doc id), so ties between chunks break by chunk id without reading any id.
type IdRanks = Arc<Vec<Vec<u32>>>;

/// Documents from which a recall uses the helper thread (for block-max WAND over part of the
/// segments, and to read hits ahead): below, handing work over costs about what it saves.
const PARALLEL_FROM: u64 = 20_000;

/// Decompressed doc-store blocks each segment's reader keeps (tantivy's own default).
const STORE_CACHE_BLOCKS: usize = 100;

/// A query term: its analysed form and the query word it came from.
#[derive(Debug, Clone)]
struct QueryTerm {
    term: String,
    surface: String,
}

/// The semantic side of recall: an embedder for queries and the vectors of the stored chunks (made by
/// the same model).
#[derive(Clone)]
pub struct VectorLane {
    /// Embeds the query.
    pub embedder: Arc<dyn Embedder>,
    /// Chunk vectors (kept in step with the store by the engine).
    pub index: Arc<RwLock<VectorIndex>>,
}

impl std::fmt::Debug for VectorLane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorLane").field("model_id", &self.embedder.model_id()).finish_non_exhaustive()
    }
}

/// Answers [`RecallQuery`]s from a [`RecallIndex`] (and a [`VectorLane`], when a model is configured)
/// without touching the store.
///
/// Cheap to share (`&self` everywhere); call [`Recaller::reload`] after a writer commits.
pub struct Recaller {
    index: RecallIndex,
    reader: IndexReader,
    settings: RecallSettings,
    recent_cache: Mutex<Option<(u64, Option<ByDate>)>>,
    stores: Mutex<Option<(u64, Stores)>>,
    shape: Mutex<Option<(u64, Shape)>>,
    id_ranks: Mutex<Option<(u64, Option<IdRanks>)>>,
    vectors: Option<VectorLane>,
    scope_counts: Arc<ScopeCounts>,
}

impl std::fmt::Debug for Recaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recaller").field("index", &self.index).field("settings", &self.settings).finish()
    }
}

/// Per-segment scope check through fast fields: project and audience ordinals of that segment.
pub(crate) struct SegmentScope<'a> {
    reader: &'a SegmentReader,
    project: Option<(Column<u64>, Option<u64>)>,
    public: Option<(Column<u64>, Option<u64>)>,
}

impl<'a> SegmentScope<'a> {
    pub(crate) fn new(reader: &'a SegmentReader, scope: &Scope) -> Result<Self> {
        let ff = reader.fast_fields();
        let str_col = |name: &str| -> Result<Option<StrColumn>> {
            ff.str(name).map_err(|e| Error::Engine { action: "read fast field", source: e })
        };
        let ord_of = |col: &Option<StrColumn>, key: &str| -> Result<(Column<u64>, Option<u64>)> {
            match col {
                Some(c) => {
                    let ord = c
                        .dictionary()
                        .term_ord(key)
                        .map_err(|e| Error::Engine { action: "read fast field", source: e.into() })?;
                    Ok((c.ords().clone(), ord))
                }
                None => Ok((Column::build_empty_column(reader.max_doc()), None)),
            }
        };
        let project = match &scope.project {
            Some(p) => Some(ord_of(&str_col(F_PROJECT)?, p)?),
            None => None,
        };
        let public = if scope.allow_private { None } else { Some(ord_of(&str_col(F_AUDIENCE)?, "public")?) };
        Ok(SegmentScope { reader, project, public })
    }

    /// Whether nothing in this segment can be in scope.
    pub(crate) fn excludes_all(&self) -> bool {
        matches!(&self.project, Some((_, None))) || matches!(&self.public, Some((_, None)))
    }

    /// Whether the (alive) document is in scope.
    #[inline]
    fn admits(&self, doc: DocId) -> bool {
        !self.reader.is_deleted(doc) && self.in_scope(doc)
    }

    /// Whether the document, deleted or not, is in scope.
    #[inline]
    pub(crate) fn in_scope(&self, doc: DocId) -> bool {
        for check in [&self.project, &self.public].into_iter().flatten() {
            match check {
                (col, Some(ord)) => {
                    if col.first(doc) != Some(*ord) {
                        return false;
                    }
                }
                (_, None) => return false,
            }
        }
        true
    }
}

/// A candidate in a top-n heap: the smallest score on top; ties: the larger `key` (the chunk's
/// `order_key`, the same however the index was built), then the larger address, on top (dropped
/// first).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Scored {
    score: f32,
    key: u64,
    addr: DocAddress,
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
/// few ulps by which block-max WAND's sums can differ from the canonical ones ([`rescore`]), far below
/// any difference BM25 means.
const NEAR: f32 = 1e-5;

/// The lexical lane's pool: the best `n` by block-max WAND's score, and every candidate within
/// [`NEAR`] of the lowest of them, so that the canonical best `n` ([`rescore`]) are among them however
/// WAND's threshold moved (which depends on the index layout and, with two threads, on timing).
///
/// The threads searching one query share their thresholds through `floor` (an `f32`'s bits, which
/// order like the scores: no score is negative): a document under another thread's `n`-th score
/// cannot be among the best `n` either.
struct Pool {
    top: TopN,
    near: Vec<Scored>,
    floor: Arc<AtomicU32>,
}

impl Pool {
    fn new(n: usize, floor: Arc<AtomicU32>) -> Self {
        Pool { top: TopN::new(n), near: Vec::new(), floor }
    }

    /// The score a document must exceed to be offered.
    fn offer_above(&self) -> f32 {
        let shared = f32::from_bits(self.floor.load(AtomicOrdering::Relaxed));
        self.top.threshold().max(shared) * (1.0 - NEAR)
    }

    fn push(&mut self, s: Scored) {
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
    fn merge(pools: Vec<Pool>, n: usize) -> Vec<Scored> {
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
enum Scoring {
    Auto,
    Wand,
    #[cfg_attr(not(test), allow(dead_code))]
    Terms,
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

/// The hit at `addr`: through the fast decoder of its doc-store bytes, else through tantivy's.
fn read_hit(searcher: &Searcher, stores: Option<&[StoreReader]>, addr: DocAddress) -> Result<Hit> {
    if let Some(store) = stores.and_then(|s| s.get(addr.segment_ord as usize))
        && let Ok(bytes) = store.get_document_bytes(addr.doc_id)
        && let Some(hit) = crate::index::hit_from_stored_bytes(bytes.as_slice())
    {
        return Ok(hit);
    }
    let StoredHit(hit) = searcher.doc(addr).map_err(Error::engine("read stored document"))?;
    Ok(hit)
}

/// Hits read ahead on the helper thread (the recent list, then the lexical pool by rank) while this
/// thread runs the other lanes and fusion. Each hit is read once, by whichever thread claims it
/// first: the helper goes front to back, and this thread, once it knows which hits it needs, back to
/// front, so the two meet in the middle.
struct ReadAhead {
    searcher: Searcher,
    stores: Option<Stores>,
    addrs: Vec<DocAddress>,
    slots: Vec<Slot>,
    /// Set once this thread has taken what it needs: the helper reads no further.
    done: AtomicBool,
}

/// One read-ahead hit: its state (free, claimed, read) and, once read, the hit.
#[derive(Default)]
struct Slot {
    state: AtomicU8,
    hit: Mutex<Option<Result<Hit>>>,
}

const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const READ: u8 = 2;

/// How long the calling thread waits for a hit the helper is reading.
const READ_PATIENCE: std::time::Duration = std::time::Duration::from_micros(40);

impl ReadAhead {
    fn new(searcher: &Searcher, stores: Option<Stores>, addrs: Vec<DocAddress>) -> Self {
        let slots = addrs.iter().map(|_| Slot::default()).collect();
        ReadAhead { searcher: searcher.clone(), stores, addrs, slots, done: AtomicBool::new(false) }
    }

    /// The helper's side: every hit, front to back, until this thread is done.
    fn run(&self) {
        for i in 0..self.addrs.len() {
            if self.done.load(AtomicOrdering::Relaxed) {
                break;
            }
            self.read(i);
        }
    }

    /// Reads hit `i` unless the other thread has claimed it.
    fn read(&self, i: usize) {
        let slot = &self.slots[i];
        if slot
            .state
            .compare_exchange(FREE, CLAIMED, AtomicOrdering::Acquire, AtomicOrdering::Relaxed)
            .is_err()
        {
            return;
        }
        // Marks the slot read even if reading panics (the slot is then empty and `take` reads again).
        struct Release<'s>(&'s AtomicU8);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(READ, AtomicOrdering::Release);
            }
        }
        let _release = Release(&slot.state);
        let hit = read_hit(&self.searcher, self.stores.as_ref().map(|s| s.as_slice()), self.addrs[i]);
        *slot.hit.lock().unwrap_or_else(|e| e.into_inner()) = Some(hit);
    }

    /// Hit `i`, read here unless the helper has claimed it (then waited for a little: it reads a hit
    /// in microseconds, unless it lost its core; then read here too).
    fn take(&self, i: usize) -> Result<Hit> {
        self.read(i);
        let slot = &self.slots[i];
        let read = helper::wait_until(|| slot.state.load(AtomicOrdering::Acquire) == READ, READ_PATIENCE);
        let hit = if read { slot.hit.lock().unwrap_or_else(|e| e.into_inner()).take() } else { None };
        hit.unwrap_or_else(|| {
            read_hit(&self.searcher, self.stores.as_ref().map(|s| s.as_slice()), self.addrs[i])
        })
    }
}

/// What the vector lane found (index addresses with their cosine similarity, best first) and the query
/// vector.
type VectorFound = (Vec<(DocAddress, f32)>, Vec<f32>);

/// A query embedding started before the lanes ran: call it to wait for the vector.
type PendingQuery<'a> = Box<dyn FnOnce() -> std::result::Result<Vec<f32>, String> + 'a>;

/// The query's embedding.
fn embed_query(v: &VectorLane, text: &str) -> std::result::Result<Vec<f32>, String> {
    let mut vecs = v.embedder.embed(&[text], EmbedKind::Query).map_err(|e| e.to_string())?;
    vecs.pop().filter(|x| !x.is_empty()).ok_or_else(|| "the embedder returned no vector".to_owned())
}

/// Everything fusion knows about one candidate.
#[derive(Debug, Default, Clone)]
struct Candidate {
    lexical: Option<(f32, usize)>,
    vector: Option<(f32, usize)>,
    tags: Option<(f32, usize)>,
    recency: f32,
    matched_tags: Vec<usize>,
}

fn lane_report(
    name: &str,
    status: LaneStatus,
    candidates: usize,
    started: Instant,
    error: Option<String>,
) -> LaneReport {
    LaneReport {
        name: name.to_owned(),
        status,
        candidates,
        micros: started.elapsed().as_micros() as u64,
        error,
    }
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
    /// A recaller over `index` with `settings`. Reads the last committed state; see [`Recaller::reload`].
    pub fn new(index: &RecallIndex, settings: RecallSettings) -> Result<Recaller> {
        let reader = index
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(Error::engine("open reader"))?;
        Ok(Recaller {
            index: index.clone(),
            reader,
            settings,
            recent_cache: Mutex::new(None),
            stores: Mutex::new(None),
            shape: Mutex::new(None),
            id_ranks: Mutex::new(None),
            vectors: None,
            scope_counts: Default::default(),
        })
    }

    /// Adds the vector lane (or removes it with `None`).
    pub fn with_vectors(mut self, lane: Option<VectorLane>) -> Self {
        self.vectors = lane;
        self
    }

    /// The vector lane, when one is attached.
    pub fn vectors(&self) -> Option<&VectorLane> {
        self.vectors.as_ref()
    }

    /// Picks up the writer's latest commit.
    pub fn reload(&self) -> Result<()> {
        self.reader.reload().map_err(Error::engine("reload reader"))
    }

    /// The settings in use.
    pub fn settings(&self) -> &RecallSettings {
        &self.settings
    }

    /// Number of chunks visible to this recaller (all scopes).
    pub fn num_chunks(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Runs every enabled lane and fuses them. Never fails: a failing lane is reported as
    /// [`LaneStatus::Failed`] in [`RecallResult::lanes`] and the others still contribute.
    pub fn recall(&self, q: &RecallQuery) -> RecallResult {
        match &self.vectors {
            // The query embedding (milliseconds of model time) runs on a second thread while the
            // lexical, tag and recency lanes run on this one.
            Some(v) if self.settings.lane_on(lane::VECTOR) => std::thread::scope(|sc| {
                let pending = sc.spawn(|| embed_query(v, &q.text));
                let join: PendingQuery<'_> = Box::new(move || {
                    pending.join().unwrap_or_else(|_| Err("the embedder panicked".to_owned()))
                });
                self.recall_with(q, Some(join))
            }),
            _ => self.recall_with(q, None),
        }
    }

    fn recall_with(&self, q: &RecallQuery, pending: Option<PendingQuery<'_>>) -> RecallResult {
        let _running = helper::running();
        let mut pending = pending;
        let searcher = self.reader.searcher();
        let s = &self.settings;
        // The helper thread takes part on a large index when nothing else runs: no other recall, and
        // no query embedding (its thread has the other core).
        let parallel =
            s.parallel && pending.is_none() && searcher.num_docs() >= PARALLEL_FROM && helper::alone();
        let pool = s.pool.max(q.k);
        // The deeper lexical pool serves what can lift a lexical runner-up: hybrid fusion, and lending
        // between linked turns. Without either, the smaller pool lets block-max WAND prune sooner.
        let hybrid = self.vectors.is_some() && s.lane_on(lane::VECTOR);
        let lending = s.neighbour_boost > 0.0 && self.shape(&searcher).turn_links;
        let lexical_pool = if hybrid || lending { s.lexical_pool.max(pool) } else { pool };
        let mut warnings = Vec::new();
        let mut lanes = Vec::new();
        let terms = self.query_terms(&searcher, &q.text);
        let shared_stores = self.stores(&searcher);
        let stores = shared_stores.as_ref().map(|s| s.as_slice());
        let mut cands: HashMap<DocAddress, Candidate> = HashMap::new();
        // The recent list (from a list sorted once per index generation): its hits are read ahead.
        let recent_list =
            if q.recent_k > 0 { Some(self.recent(&searcher, &q.scope, q.recent_k)) } else { None };
        let mut ahead_addrs: Vec<DocAddress> =
            recent_list.iter().flat_map(|r| r.iter().flatten().map(|(_, a)| *a)).collect();

        // Lexical lane.
        let started = Instant::now();
        if s.lane_on(lane::LEXICAL) && !terms.is_empty() {
            match self.lexical(&searcher, &terms, &q.scope, lexical_pool, parallel, Scoring::Auto) {
                Ok(top) => {
                    lanes.push(lane_report(lane::LEXICAL, LaneStatus::Ok, top.len(), started, None));
                    ahead_addrs.extend(top.iter().map(|c| c.addr));
                    for (rank, c) in top.into_iter().enumerate() {
                        cands.entry(c.addr).or_default().lexical = Some((c.score, rank));
                    }
                }
                Err(e) => lanes.push(lane_report(
                    lane::LEXICAL,
                    LaneStatus::Failed,
                    0,
                    started,
                    Some(e.to_string()),
                )),
            }
        } else {
            lanes.push(lane_report(lane::LEXICAL, LaneStatus::Skipped, 0, started, None));
        }

        // The helper thread, free again, reads hits ahead while this one runs the other lanes.
        let ahead = parallel.then(|| {
            // Each address once, at its first place.
            let mut at: HashMap<DocAddress, usize> = HashMap::with_capacity(ahead_addrs.len());
            ahead_addrs.retain(|a| {
                let next = at.len();
                *at.entry(*a).or_insert(next) == next
            });
            let ra = Arc::new(ReadAhead::new(&searcher, shared_stores.clone(), ahead_addrs));
            let theirs = Arc::clone(&ra);
            let _ = Helper::shared().try_run(move || theirs.run());
            (ra, at)
        });
        let read = |addr: DocAddress| match ahead.as_ref().and_then(|(ra, at)| Some((ra, *at.get(&addr)?))) {
            Some((ra, i)) => ra.take(i),
            None => read_hit(&searcher, stores, addr),
        };

        // Vector lane; also the semantic fallback when lexical recall found little.
        let started = Instant::now();
        let lexical_found = cands.len();
        let fallback = s.semantic_fallback > 0 && lexical_found < s.semantic_fallback;
        let mut vector_weight = s.weights.vector;
        let mut query_vec: Option<Vec<f32>> = None;
        match &self.vectors {
            Some(v) if s.lane_on(lane::VECTOR) || fallback => {
                if !s.lane_on(lane::VECTOR) {
                    vector_weight = s.weights.lexical.max(1.0);
                }
                match self.vector_lane(v, &searcher, q, s.vector_pool.max(pool), pending.take()) {
                    Ok((top, qv)) => {
                        lanes.push(lane_report(lane::VECTOR, LaneStatus::Ok, top.len(), started, None));
                        for (rank, (addr, score)) in top.into_iter().enumerate() {
                            cands.entry(addr).or_default().vector = Some((score, rank));
                        }
                        query_vec = Some(qv);
                    }
                    Err(e) => {
                        lanes.push(lane_report(lane::VECTOR, LaneStatus::Failed, 0, started, Some(e)));
                    }
                }
            }
            _ => lanes.push(lane_report(lane::VECTOR, LaneStatus::Skipped, 0, started, None)),
        }

        // Tag lane.
        let started = Instant::now();
        let mut query_tags = Vec::new();
        if s.lane_on(lane::TAGS) {
            match self.infer_tags(&searcher, &q.text, &q.scope).and_then(|tags| {
                let top =
                    if tags.is_empty() { Vec::new() } else { self.tag_lane(&searcher, &tags, q, pool)? };
                Ok((tags, top))
            }) {
                Ok((tags, top)) => {
                    let status = if tags.is_empty() { LaneStatus::Skipped } else { LaneStatus::Ok };
                    lanes.push(lane_report(lane::TAGS, status, top.len(), started, None));
                    for (rank, c) in top.into_iter().enumerate() {
                        cands.entry(c.addr).or_default().tags = Some((c.score, rank));
                    }
                    query_tags = tags;
                }
                Err(e) => {
                    lanes.push(lane_report(lane::TAGS, LaneStatus::Failed, 0, started, Some(e.to_string())))
                }
            }
        } else {
            lanes.push(lane_report(lane::TAGS, LaneStatus::Skipped, 0, started, None));
        }

        // Tag matches and recency for every candidate, from fast fields.
        let need_tags = !query_tags.is_empty();
        let half_life_ms = s.half_life_days.max(1e-9) * MS_PER_DAY;
        let decay = |created: Millis| -> f32 {
            let age = (q.now - created).max(0) as f64;
            0.5f64.powf(age / half_life_ms) as f32
        };
        if let Err(e) = self.annotate(&searcher, &mut cands, &query_tags, need_tags, &decay) {
            warnings.push(format!("reading tags and dates failed: {e}"));
        }

        // Recency lane: the recent list, and (through `annotate`) a part of every hit's score.
        let started = Instant::now();
        let mut recent = Vec::new();
        if q.recent_k > 0 || s.lane_on(lane::RECENCY) {
            match recent_list.unwrap_or_else(|| Ok(Vec::new())) {
                Ok(list) => {
                    for (created, addr) in list {
                        match read(addr) {
                            Ok(mut hit) => {
                                let d = quantize(decay(created));
                                hit.score = d;
                                hit.parts.insert(lane::RECENCY.into(), d);
                                hit.why.lanes.push(lane::RECENCY.into());
                                recent.push(hit);
                            }
                            Err(e) => warnings.push(format!("reading a recent chunk failed: {e}")),
                        }
                    }
                    lanes.push(lane_report(lane::RECENCY, LaneStatus::Ok, recent.len(), started, None));
                }
                Err(e) => lanes.push(lane_report(
                    lane::RECENCY,
                    LaneStatus::Failed,
                    0,
                    started,
                    Some(e.to_string()),
                )),
            }
        } else {
            lanes.push(lane_report(lane::RECENCY, LaneStatus::Skipped, 0, started, None));
        }
        let recent_ids: BTreeSet<String> = recent.iter().map(|h| h.chunk_id.clone()).collect();

        // Fusion. Complete scores first: every candidate of another lane gets its cosine similarity
        // too (a lexical match just outside the vector pool is not scored as dissimilar).
        let mut sims: HashMap<DocAddress, f32> =
            cands.iter().filter_map(|(a, c)| c.vector.map(|v| (*a, v.0))).collect();
        if let (Some(qv), Some(v)) = (&query_vec, &self.vectors) {
            let missing: Vec<DocAddress> =
                cands.iter().filter(|(_, c)| c.vector.is_none()).map(|(a, _)| *a).collect();
            match self.chunk_ids(&searcher, &missing) {
                Ok(ids) => {
                    let index = v.index.read().unwrap_or_else(|e| e.into_inner());
                    for (addr, id) in missing.iter().zip(ids) {
                        if let Some(vec) = id.as_deref().and_then(|id| index.vector(id)) {
                            sims.insert(*addr, cairn_vector::kernel::dot(qv, vec));
                        }
                    }
                }
                Err(e) => warnings.push(format!("reading chunk ids for fusion failed: {e}")),
            }
        }
        // Both lanes are min-max normalised over the candidates, so the best of each lane scores 1 and
        // its weakest candidate 0. The lexical floor is the pool's last score when the pool is full (a
        // document just outside it scores about that), else 0 (every match is in: BM25 / best BM25).
        let lex_scores = || cands.values().filter_map(|c| c.lexical.map(|l| l.0));
        let best_lex = lex_scores().fold(0.0f32, f32::max);
        let floor_lex =
            if lexical_found >= lexical_pool { lex_scores().fold(best_lex, f32::min) } else { 0.0 };
        let best_vec = sims.values().copied().fold(f32::MIN, f32::max);
        let worst_vec = sims.values().copied().fold(f32::MAX, f32::min);
        let n_tags = query_tags.len().max(1) as f32;
        let recency_on = s.lane_on(lane::RECENCY)
            && lanes.iter().any(|l| l.name == lane::RECENCY && l.status == LaneStatus::Ok);
        let mut fused: Vec<(f32, DocAddress, BTreeMap<String, f32>)> = Vec::with_capacity(cands.len());
        let mut by_recency: Vec<(f32, DocAddress)> = cands.iter().map(|(a, c)| (c.recency, *a)).collect();
        by_recency.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let recency_rank: HashMap<DocAddress, usize> =
            by_recency.iter().enumerate().map(|(i, (_, a))| (*a, i)).collect();
        for (addr, c) in &cands {
            let mut parts = BTreeMap::new();
            let lex = c.lexical.map(|(sc, _)| {
                if best_lex > floor_lex { (sc - floor_lex) / (best_lex - floor_lex) } else { 1.0 }
            });
            let tag = (!c.matched_tags.is_empty()).then(|| c.matched_tags.len() as f32 / n_tags);
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
            if recency_on {
                parts.insert(lane::RECENCY.to_owned(), c.recency);
            }
            let w = &s.weights;
            let score = match s.fusion {
                Fusion::Weighted => {
                    w.lexical * lex.unwrap_or(0.0)
                        + vector_weight * vec.unwrap_or(0.0)
                        + w.tags * tag.unwrap_or(0.0)
                        + if recency_on { w.recency * c.recency } else { 0.0 }
                }
                Fusion::Rrf { k } => {
                    let rrf = |rank: usize| 1.0 / (k + rank as f32 + 1.0);
                    c.lexical.map_or(0.0, |(_, r)| w.lexical * rrf(r))
                        + c.vector.map_or(0.0, |(_, r)| vector_weight * rrf(r))
                        + c.tags.map_or(0.0, |(_, r)| w.tags * rrf(r))
                        + if recency_on { w.recency * rrf(recency_rank[addr]) } else { 0.0 }
                }
            };
            // Scores are rounded to 5 decimals: BM25 statistics summed over segments differ in the last
            // bit between index layouts, and output must not depend on the layout.
            for v in parts.values_mut() {
                *v = quantize(*v);
            }
            fused.push((quantize(score), *addr, parts));
        }
        // Without a linked turn in the index there is nothing to lend (every previous key is 0).
        if lending
            && fused.len() > 1
            && let Err(e) = self.lend_neighbour_scores(&searcher, &mut fused, s.neighbour_boost)
        {
            warnings.push(format!("reading turn links failed: {e}"));
        }
        fused.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        if s.mmr_lambda < 1.0
            && query_vec.is_some()
            && let Some(v) = &self.vectors
        {
            self.mmr(v, &searcher, &mut fused, q.k, s.mmr_lambda);
        }
        // Keep the top k plus everything tied with the k-th score, so the chunk-id tie-break is exact.
        let cut = if fused.len() > q.k && q.k > 0 {
            let kth = fused[q.k - 1].0;
            fused.iter().position(|x| x.0 < kth).unwrap_or(fused.len())
        } else {
            fused.len().min(q.k)
        };
        fused.truncate(cut);
        if fused.len() > q.k
            && let Some(ranks) = self.id_ranks(&searcher)
        {
            // Ties at the k-th score, from the second query of an index generation on: the chunk-id
            // tie-break by each chunk id's rank, reading no id.
            let rank = |a: DocAddress| {
                ranks.get(a.segment_ord as usize).and_then(|r| r.get(a.doc_id as usize)).copied()
            };
            fused.sort_by(|a, b| {
                b.0.total_cmp(&a.0).then_with(|| rank(a.1).cmp(&rank(b.1))).then_with(|| a.1.cmp(&b.1))
            });
            fused.truncate(q.k);
        }
        if fused.len() > q.k {
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
                keyed.truncate(q.k);
                fused = keyed.into_iter().map(|(f, _)| f).collect();
            }
        }

        if let Some((ra, at)) = &ahead {
            // Read the hits the helper has not reached, from the last: the two threads meet halfway.
            for (_, addr, _) in fused.iter().rev() {
                if let Some(&i) = at.get(addr) {
                    ra.read(i);
                }
            }
        }
        let mut hits = Vec::with_capacity(fused.len());
        for (score, addr, parts) in fused {
            match read(addr) {
                Ok(mut hit) => {
                    let c = &cands[&addr];
                    hit.score = score;
                    hit.parts = parts;
                    if let Some((_, r)) = c.lexical {
                        hit.why.lanes.push(lane::LEXICAL.into());
                        hit.why.ranks.insert(lane::LEXICAL.into(), r + 1);
                    }
                    if let Some((_, r)) = c.vector {
                        hit.why.lanes.push(lane::VECTOR.into());
                        hit.why.ranks.insert(lane::VECTOR.into(), r + 1);
                    }
                    if let Some((_, r)) = c.tags {
                        hit.why.ranks.insert(lane::TAGS.into(), r + 1);
                    }
                    if !c.matched_tags.is_empty() {
                        hit.why.lanes.push(lane::TAGS.into());
                        hit.why.tags = c.matched_tags.iter().map(|&i| query_tags[i].clone()).collect();
                    }
                    if recent_ids.contains(&hit.chunk_id) {
                        hit.why.lanes.push(lane::RECENCY.into());
                    }
                    if hit.parts.contains_key(lane::NEIGHBOUR) {
                        hit.why.lanes.push(lane::NEIGHBOUR.into());
                    }
                    hits.push((addr, hit));
                }
                Err(e) => warnings.push(format!("reading a hit failed: {e}")),
            }
        }
        if let Some((ra, _)) = &ahead {
            ra.done.store(true, AtomicOrdering::Relaxed);
        }
        hits.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.1.chunk_id.cmp(&b.1.chunk_id)));
        hits.truncate(q.k);
        if let Err(e) = self.explain_terms(&searcher, &terms, &mut hits) {
            warnings.push(format!("finding matched terms failed: {e}"));
        }
        RecallResult {
            hits: hits.into_iter().map(|(_, h)| h).collect(),
            recent,
            query_tags,
            query_terms: terms.into_iter().map(|t| t.term).collect(),
            lanes,
            warnings,
        }
    }

    /// Embeds the query and searches the vectors in scope; returns index addresses with their cosine
    /// similarity, best first, and the query vector.
    fn vector_lane(
        &self,
        v: &VectorLane,
        searcher: &Searcher,
        q: &RecallQuery,
        pool: usize,
        pending: Option<PendingQuery<'_>>,
    ) -> std::result::Result<VectorFound, String> {
        let qv = match pending {
            Some(join) => join()?,
            None => embed_query(v, &q.text)?,
        };
        let index = v.index.read().map_err(|_| "the vector index is poisoned".to_owned())?;
        if index.dim() != qv.len() {
            return Err(format!(
                "query vector has {} dimensions, stored vectors {} (model `{}`)",
                qv.len(),
                index.dim(),
                index.model_id()
            ));
        }
        let (hits, _) = index.search(&qv, &q.scope, pool);
        drop(index);
        let scopes: Vec<SegmentScope<'_>> = searcher
            .segment_readers()
            .iter()
            .map(|r| SegmentScope::new(r, &q.scope))
            .collect::<Result<_>>()
            .map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(hits.len());
        for h in hits {
            // Vectors of chunks the full-text index does not hold (yet) are skipped; the scope is
            // checked again on the index's own fields.
            if let Some(addr) = self.address_of(searcher, &h.chunk_id).map_err(|e| e.to_string())?
                && scopes[addr.segment_ord as usize].admits(addr.doc_id)
            {
                out.push((addr, h.score));
            }
        }
        Ok((out, qv))
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
    fn lend_neighbour_scores(
        &self,
        searcher: &Searcher,
        fused: &mut [(f32, DocAddress, BTreeMap<String, f32>)],
        boost: f32,
    ) -> Result<()> {
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

    /// The index address of a live chunk.
    fn address_of(&self, searcher: &Searcher, chunk_id: &str) -> Result<Option<DocAddress>> {
        let term = Term::from_field_text(self.index.fields.chunk_id, chunk_id);
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let inv = reader.inverted_index(term.field()).map_err(Error::engine("search"))?;
            let Some(mut postings) = inv
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| Error::Engine { action: "search", source: e.into() })?
            else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != tantivy::TERMINATED {
                if !reader.is_deleted(doc) {
                    return Ok(Some(DocAddress::new(ord as u32, doc)));
                }
                doc = postings.advance();
            }
        }
        Ok(None)
    }

    /// Re-orders the head of `fused` by maximal marginal relevance (chunks without a vector keep their
    /// relevance and are never penalised).
    fn mmr(
        &self,
        v: &VectorLane,
        searcher: &Searcher,
        fused: &mut Vec<(f32, DocAddress, BTreeMap<String, f32>)>,
        k: usize,
        lambda: f32,
    ) {
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

    /// Distinct analysed terms of the query, in order; the rarest `max_query_terms` when there are more.
    fn query_terms(&self, searcher: &Searcher, text: &str) -> Vec<QueryTerm> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for_each_term(text, |t, from, to| {
            if seen.insert(t.to_owned()) {
                out.push(QueryTerm { term: t.to_owned(), surface: text[from..to].to_lowercase() });
            }
        });
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
    /// [`rescore`]).
    fn lexical(
        &self,
        searcher: &Searcher,
        terms: &[QueryTerm],
        scope: &Scope,
        pool: usize,
        parallel: bool,
        scoring: Scoring,
    ) -> Result<Vec<Scored>> {
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

    /// The best `n` of `query` (whose scored clauses are `specs`) in `scope`. Unless `scoring` is
    /// [`Scoring::Wand`], the query must be the plain OR of `specs` (it may be scored term at a time).
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
    ) -> Result<Vec<Scored>> {
        let scoped = if self.settings.scoped_statistics && !stats::sees_everything(scope) {
            Some(ScopedStats::new(searcher, scope, &self.scope_counts)?)
        } else {
            None
        };
        let statistics: &dyn Bm25StatisticsProvider = match &scoped {
            Some(s) => s,
            None => searcher,
        };
        let search = |e| Error::Engine { action: "search", source: e };
        let mut plan = None;
        if scoring != Scoring::Wand && !specs.is_empty() {
            let clauses = taat::Clauses::new(statistics, specs).map_err(search)?;
            let most = TERMS_MAX_POSTINGS_PER_DOC * searcher.num_docs() as f64;
            if scoring == Scoring::Terms
                || clauses.postings(searcher, scoped.is_none()).map_err(search)? as f64 <= most
            {
                plan = Some(Plan::Terms(Arc::new(clauses)));
            }
        }
        let plan = match plan {
            Some(plan) => plan,
            None => Plan::Wand(
                query
                    .weight(EnableScoring::enabled_from_statistics_provider(statistics, searcher))
                    .map_err(search)?
                    .into(),
            ),
        };
        let (mine, theirs) = split_segments(searcher, parallel);
        let floor = Arc::new(AtomicU32::new(0));
        // Whichever thread gets to the second group first searches it: the helper when it is free
        // and awake, else this thread once the first group is done.
        let taken = Arc::new(AtomicBool::new(false));
        let handed = if theirs.is_empty() {
            None
        } else {
            let (searcher, plan, scope, ords) =
                (searcher.clone(), plan.clone(), scope.clone(), theirs.clone());
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
        search_segments(searcher, &plan, scope, &mine, &mut pools[0])?;
        if !theirs.is_empty() {
            let helped = match handed {
                Some(pending) if taken.swap(true, AtomicOrdering::AcqRel) => pending.wait().flatten(),
                _ => None,
            };
            let other = match helped {
                Some(found) => found?,
                None => {
                    let mut pool = Pool::new(n, Arc::clone(&floor));
                    search_segments(searcher, &plan, scope, &theirs, &mut pool)?;
                    pool
                }
            };
            pools.push(other);
        }
        let mut found = Pool::merge(pools, n);
        set_order_keys(searcher, &mut found)?;
        if let Plan::Wand(_) = plan {
            rescore(searcher, statistics, specs, &mut found)?;
        }
        found.sort_unstable();
        found.truncate(n);
        Ok(found)
    }

    /// Query tags: query words (and hyphen-joined runs of 2–3 words, and singular/plural forms) that are
    /// tags of at least one chunk in scope.
    fn infer_tags(&self, searcher: &Searcher, text: &str, scope: &Scope) -> Result<Vec<String>> {
        let f = &self.index.fields;
        let words: Vec<String> = text
            .unicode_words()
            .map(|w| w.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'"))
            .filter(|w| !w.is_empty())
            .collect();
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

    /// Fills `matched_tags` and `recency` of every candidate from fast fields.
    fn annotate(
        &self,
        searcher: &Searcher,
        cands: &mut HashMap<DocAddress, Candidate>,
        query_tags: &[String],
        need_tags: bool,
        decay: &dyn Fn(Millis) -> f32,
    ) -> Result<()> {
        let mut per_segment: BTreeMap<u32, Vec<DocAddress>> = BTreeMap::new();
        for addr in cands.keys() {
            per_segment.entry(addr.segment_ord).or_default().push(*addr);
        }
        for (ord, addrs) in per_segment {
            let reader = searcher.segment_reader(ord);
            let ff = reader.fast_fields();
            let created = ff.i64(F_CREATED_AT).map_err(Error::engine("read fast field"))?;
            let tags_col =
                if need_tags { ff.str(F_TAGS).map_err(Error::engine("read fast field"))? } else { None };
            let tag_ords: Vec<Option<u64>> = match &tags_col {
                Some(col) => query_tags.iter().map(|t| col.dictionary().term_ord(t).ok().flatten()).collect(),
                None => vec![None; query_tags.len()],
            };
            for addr in addrs {
                let c = cands.get_mut(&addr).expect("candidate exists");
                c.recency = decay(created.first(addr.doc_id).unwrap_or(0));
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

    /// The newest `n` chunks in scope (same date: ordered by a key derived from the chunk id).
    fn recent(&self, searcher: &Searcher, scope: &Scope, n: usize) -> Result<Vec<(Millis, DocAddress)>> {
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
                let date = created.first(doc).unwrap_or(0);
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
                let key = (created.first(doc).unwrap_or(0), order.first(doc).unwrap_or(0));
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

    /// The doc-store readers of this index generation, opened on its first query (`None` when one
    /// cannot be opened: hits are then read through the searcher).
    fn stores(&self, searcher: &Searcher) -> Option<Stores> {
        let generation = searcher.generation().generation_id();
        let mut cache = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, stores)) = cache.as_ref()
            && *g == generation
        {
            return Some(stores.clone());
        }
        let stores: Stores = Arc::new(
            searcher
                .segment_readers()
                .iter()
                .map(|r| r.get_store_reader(STORE_CACHE_BLOCKS))
                .collect::<std::io::Result<_>>()
                .ok()?,
        );
        *cache = Some((generation, stores.clone()));
        Some(stores)
    }

    /// What this index generation holds ([`Shape`]); read once per generation.
    fn shape(&self, searcher: &Searcher) -> Shape {
        let generation = searcher.generation().generation_id();
        let mut cache = self.shape.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, shape)) = *cache
            && g == generation
        {
            return shape;
        }
        let readers = searcher.segment_readers();
        let shape = Shape {
            // Errors count as present: the caller then does the general thing.
            turn_links: readers
                .iter()
                .any(|r| r.fast_fields().u64(F_PREVIOUS_KEY).map_or(true, |c| c.max_value() > 0)),
            contexts: readers.iter().any(|r| {
                r.inverted_index(self.index.fields.context).map_or(true, |inv| inv.total_num_tokens() > 0)
            }),
        };
        *cache = Some((generation, shape));
        shape
    }

    /// Sets `why.terms`: the query words whose terms occur in each hit's title or body.
    fn explain_terms(
        &self,
        searcher: &Searcher,
        terms: &[QueryTerm],
        hits: &mut [(DocAddress, Hit)],
    ) -> Result<()> {
        let f = &self.index.fields;
        let mut found: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); hits.len()];
        let mut per_segment: BTreeMap<u32, Vec<(DocId, usize)>> = BTreeMap::new();
        for (i, (addr, _)) in hits.iter().enumerate() {
            per_segment.entry(addr.segment_ord).or_default().push((addr.doc_id, i));
        }
        for (ord, mut docs) in per_segment {
            docs.sort_unstable();
            let reader = searcher.segment_reader(ord);
            for field in [f.body, f.title] {
                let inv = reader.inverted_index(field).map_err(Error::engine("search"))?;
                for (ti, t) in terms.iter().enumerate() {
                    let term = Term::from_field_text(field, &t.term);
                    let Some(mut postings) = inv
                        .read_postings(&term, IndexRecordOption::Basic)
                        .map_err(|e| Error::Engine { action: "search", source: e.into() })?
                    else {
                        continue;
                    };
                    for &(doc, hi) in &docs {
                        if postings.doc() > doc {
                            continue;
                        }
                        if postings.seek(doc) == doc {
                            found[hi].insert(ti);
                        }
                    }
                }
            }
        }
        for ((_, hit), set) in hits.iter_mut().zip(found) {
            let mut words: Vec<String> = Vec::new();
            for ti in set {
                let w = &terms[ti].surface;
                if !words.contains(w) {
                    words.push(w.clone());
                }
            }
            hit.why.terms = words;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance};
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

    /// An item of one chunk whose text is `text`.
    fn item_of(id: &str, project: &str, audience: Audience, title: &str, text: &str) -> (Item, Chunk) {
        let item = Item {
            id: id.into(),
            project: project.into(),
            kind: ItemKind::File,
            title: title.into(),
            text: text.into(),
            tags: Vec::new(),
            audience,
            provenance: Provenance::File { path: format!("{id}.md"), line_start: 1, line_end: 2 },
            content_hash: cairn_core::content_hash(text.as_bytes()),
            created_at: 0,
            observed_at: 0,
            metadata: Default::default(),
        };
        let chunk = Chunk {
            id: Chunk::make_id(id, 0),
            item_id: id.into(),
            ordinal: 0,
            heading: String::new(),
            text: text.into(),
            provenance: item.provenance.clone(),
            content_hash: item.content_hash.clone(),
        };
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
            let wand = r.lexical(&searcher, &terms, &scope, n, parallel, Scoring::Wand).unwrap();
            let taat = r.lexical(&searcher, &terms, &scope, n, parallel, Scoring::Terms).unwrap();
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
            let found = r.lexical(&searcher, &terms, &Scope::owner(None), 30, false, scoring).unwrap();
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
