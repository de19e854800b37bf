//! The engine: wires Cairn's stages together. Adapters (CLI, HTTP, MCP) call this crate, never the
//! stages directly.
//!
//! - [`sync_index`]: bring the derived full-text index up to the store's ingest log (incremental, or a
//!   full rebuild when the index is missing, damaged or from another store).
//! - [`embed_pending`]: embed chunks lacking a current vector (after harvest, capture, reindex);
//!   [`load_vectors`] / [`sync_vectors`]: the in-memory vector index the recaller's vector lane reads.
//! - [`context`]: recall → assembly under a token budget, fail-open: a recall failure still yields an
//!   (empty) assembly whose receipt names the failed lane.
//!
//! ```
//! use cairn_core::{Audience, Item, ItemKind, Provenance, Scope};
//! use cairn_engine::{ContextRequest, context, sync_index};
//! use cairn_recall::{RecallIndex, RecallSettings, Recaller};
//! use cairn_store::{SqliteStore, Store, Write};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
//! let item = Item {
//!     id: "fact:queue".into(), project: "default".into(), kind: ItemKind::Fact,
//!     title: "Alert queue".into(), text: "The alert queue lives in SQLite.".into(), tags: vec![],
//!     audience: Audience::Public, provenance: Provenance::External { source: "doc".into() },
//!     content_hash: "h".into(), created_at: 0, observed_at: 0, metadata: Default::default(),
//! };
//! store.apply(&[Write::upsert(item, vec![])], "example").unwrap();
//! let index = RecallIndex::open_or_create(&dir.path().join("index")).unwrap();
//! let report = sync_index(&store, &index).unwrap();
//! assert_eq!(report.upserted, 1);
//! let recaller = Recaller::new(&index, RecallSettings::default()).unwrap();
//! let req = ContextRequest::new("where is the alert queue?", Scope::owner(None), 300, 0);
//! let assembly = context(Ok(&recaller), &req);
//! assert!(assembly.block.contains("Alert queue"));
//! ```
#![warn(missing_docs)]

mod graph;

pub use graph::{GraphLane, GraphLaneOptions, graph_context, graph_index, open_graph};

use cairn_assemble::{AssembleOptions, AssembleRequest, Assembly};
use cairn_core::{Chunk, LaneReport, LaneStatus, Millis, Scope};
use cairn_recall::{RecallIndex, RecallQuery, Recaller};
use cairn_store::Store;
use serde::Serialize;

mod vectors;
pub use vectors::{
    EmbedProgress, EmbedReport, NoProgress, embed_pending, embed_text, load_vectors, sync_vectors,
};
mod lane;
mod session;
mod turn;

pub use lane::Lane;
pub use session::{SessionEntry, SessionStates};
pub use turn::{
    BootstrapFile, BootstrapResult, CONTEXT_FILE, DerivedReport, Engine, EngineConfig, EngineError,
    IngestNote, IntentView, RouteTrace, SessionView, StageMicros, TurnRequest, TurnResponse, TurnTrace,
    fallback_note, now_ms,
};

/// Result with the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] cairn_store::Error),
    /// The index failed.
    #[error(transparent)]
    Index(#[from] cairn_recall::Error),
    /// The vector index failed.
    #[error(transparent)]
    Vectors(#[from] cairn_vector::Error),
    /// The graph failed.
    #[error(transparent)]
    Graph(#[from] cairn_graph::Error),
    /// Capturing a turn failed (a malformed turn is [`cairn_ingest::Error::BadTurn`]).
    #[error(transparent)]
    Ingest(#[from] cairn_ingest::Error),
    /// The input is unusable; the message names the field.
    #[error("{0}")]
    BadInput(String),
}

impl Error {
    /// Whether the caller sent something unusable (as opposed to a failure on this side).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, Error::BadInput(_) | Error::Ingest(cairn_ingest::Error::BadTurn(_)))
    }
}

/// What [`sync_index`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// Items (re)written to the index.
    pub upserted: usize,
    /// Items removed from the index.
    pub deleted: usize,
    /// Whether the whole index was rebuilt.
    pub rebuilt: bool,
    /// The store sequence the index now follows.
    pub seq: u64,
}

/// The chunks to index for an item: its stored chunks, or the whole text as one chunk.
fn chunks_or_whole(item: &cairn_core::Item, chunks: Vec<Chunk>) -> Vec<Chunk> {
    if !chunks.is_empty() {
        return chunks;
    }
    vec![Chunk {
        id: Chunk::make_id(&item.id, 0),
        item_id: item.id.clone(),
        ordinal: 0,
        heading: String::new(),
        text: item.text.clone(),
        provenance: item.provenance.clone(),
        content_hash: item.content_hash.clone(),
    }]
}

/// Bring `index` up to date with `store`'s ingest log.
///
/// Incremental when the index already follows this store; a full rebuild when the index has never been
/// synced or claims a sequence the store does not have (a different or restored store).
pub fn sync_index(store: &dyn Store, index: &RecallIndex) -> Result<SyncReport> {
    let last = store.last_seq()?;
    let synced = index.synced_seq()?;
    match synced {
        Some(s) if s == last => Ok(SyncReport { seq: last, ..Default::default() }),
        Some(s) if s < last => {
            let mut writer = index.writer()?;
            let mut report = SyncReport { seq: last, ..Default::default() };
            for change in store.changes_since(s)? {
                if change.deleted {
                    writer.delete_item(&change.item_id)?;
                    report.deleted += 1;
                    continue;
                }
                match store.get_item(&change.item_id)? {
                    Some(item) => {
                        let chunks = chunks_or_whole(&item, store.chunks(&item.id)?);
                        writer.upsert(&item, &chunks)?;
                        report.upserted += 1;
                    }
                    None => {
                        writer.delete_item(&change.item_id)?;
                        report.deleted += 1;
                    }
                }
            }
            writer.commit(last)?;
            writer.finish()?;
            Ok(report)
        }
        _ => rebuild_index(store, index),
    }
}

/// Rebuild `index` from scratch from every item in `store`.
pub fn rebuild_index(store: &dyn Store, index: &RecallIndex) -> Result<SyncReport> {
    // The sequence is read first: writes that land during the rebuild are picked up by the next sync.
    let last = store.last_seq()?;
    // A rebuild indexes everything at once: use every core and a larger indexing heap.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let mut writer = index.writer_with(threads, 128 * 1024 * 1024 * threads)?;
    writer.clear()?;
    let mut report = SyncReport { rebuilt: true, seq: last, ..Default::default() };
    let mut index_err: Option<cairn_recall::Error> = None;
    store.for_each_item(&mut |item, chunks| {
        let chunks = chunks_or_whole(&item, chunks);
        if let Err(e) = writer.upsert(&item, &chunks) {
            index_err.get_or_insert(e);
        }
        report.upserted += 1;
        Ok(())
    })?;
    if let Some(e) = index_err {
        writer.rollback()?;
        return Err(e.into());
    }
    writer.commit(last)?;
    writer.finish()?;
    Ok(report)
}

/// One context request: recall in `scope`, then assembly under `budget` tokens.
#[derive(Debug, Clone)]
pub struct ContextRequest {
    /// The query (usually the user's prompt).
    pub query: String,
    /// Who is asking.
    pub scope: Scope,
    /// Token budget of the block.
    pub budget: usize,
    /// Topic candidates recalled before assembly.
    pub candidates: usize,
    /// Recent items recalled for the recency layer.
    pub recent: usize,
    /// Assembly options (format, levels, recency share, encoding, redaction).
    pub options: AssembleOptions,
    /// The time recency is measured from.
    pub now: Millis,
    /// Keep lane timings in the receipt (off by default: output is then byte-identical across runs).
    pub timings: bool,
}

impl ContextRequest {
    /// A request with candidates sized from the budget (see [`candidates_for`]) and default assembly
    /// options.
    pub fn new(query: impl Into<String>, scope: Scope, budget: usize, now: Millis) -> Self {
        let (candidates, recent) = candidates_for(budget);
        Self {
            query: query.into(),
            scope,
            budget,
            candidates,
            recent,
            options: AssembleOptions::default(),
            now,
            timings: false,
        }
    }
}

/// How many topic candidates and recent items are worth recalling for `budget` tokens: an L1 entry
/// costs about 100–150 tokens, so a 2,000-token budget holds about 14 topic entries and 3 recent ones;
/// the pool keeps a margin for duplicates and entries that do not fit.
pub fn candidates_for(budget: usize) -> (usize, usize) {
    ((budget / 80).clamp(8, 40), (budget / 400).clamp(2, 10))
}

/// What recall gave a context request: hits, recent items, tags and lane reports.
#[derive(Debug, Clone, Default)]
pub struct Recalled {
    /// Ranked topic hits.
    pub hits: Vec<cairn_core::Hit>,
    /// Most recent items in scope.
    pub recent: Vec<cairn_core::Hit>,
    /// Tags inferred from the query.
    pub query_tags: Vec<String>,
    /// One report per lane.
    pub lanes: Vec<LaneReport>,
}

impl Recalled {
    /// Whether every lane that ran failed (nothing could be recalled at all).
    pub fn all_failed(&self) -> bool {
        !self.lanes.is_empty()
            && self.lanes.iter().all(|l| matches!(l.status, LaneStatus::Failed | LaneStatus::Skipped))
            && self.lanes.iter().any(|l| l.status == LaneStatus::Failed)
    }
}

/// The recall half of [`context`]: runs `recaller` for `req`, or reports the lexical lane failed when
/// the recall side could not be opened.
pub fn recall_for(recaller: Result<&Recaller, &dyn std::fmt::Display>, req: &ContextRequest) -> Recalled {
    match recaller {
        Ok(r) => {
            let mut q = RecallQuery::new(req.query.clone(), req.scope.clone(), req.candidates, req.now);
            q.recent_k = req.recent;
            let result = r.recall(&q);
            let mut lanes = result.lanes;
            if !req.timings {
                for lane in &mut lanes {
                    lane.micros = 0;
                }
            }
            Recalled { hits: result.hits, recent: result.recent, query_tags: result.query_tags, lanes }
        }
        Err(e) => Recalled {
            lanes: vec![LaneReport {
                name: "lexical".into(),
                status: LaneStatus::Failed,
                candidates: 0,
                micros: 0,
                error: Some(e.to_string()),
            }],
            ..Default::default()
        },
    }
}

/// The assembly half of [`context`]: `recalled` into a block under `req.budget`.
pub fn assemble_for(req: &ContextRequest, recalled: Recalled) -> Assembly {
    assemble_cached(&assemble_request(req, recalled))
}

/// The assembly request for `req` from what recall gave (lanes such as the graph add to it).
fn assemble_request(req: &ContextRequest, recalled: Recalled) -> AssembleRequest {
    let mut areq = AssembleRequest::new(req.query.clone(), req.budget);
    areq.options = req.options.clone();
    if areq.options.scope.is_none() {
        areq.options.scope = Some(req.scope.clone());
    }
    areq.query_tags = recalled.query_tags;
    areq.topic = recalled.hits;
    areq.recent = recalled.recent;
    areq.lanes = recalled.lanes;
    areq
}

/// Recall for `req`, as an assembly request.
fn recall_request(
    recaller: Result<&Recaller, &dyn std::fmt::Display>,
    req: &ContextRequest,
) -> AssembleRequest {
    assemble_request(req, recall_for(recaller, req))
}

/// Assemble with token counts memoised per thread: a warm server thread recounts nothing it has seen,
/// and threads never wait on each other (same output either way).
fn assemble_cached(areq: &AssembleRequest) -> Assembly {
    thread_local! {
        static COUNTS: std::cell::RefCell<cairn_assemble::CountCache> =
            std::cell::RefCell::new(cairn_assemble::CountCache::default());
    }
    COUNTS.with_borrow_mut(|cache| cairn_assemble::assemble_with(areq, cache))
}

/// Recall then assemble. `recaller` is the opened recall side, or why it could not be opened: then the
/// assembly is empty and its receipt records the failed lane (fail-open).
pub fn context(recaller: Result<&Recaller, &dyn std::fmt::Display>, req: &ContextRequest) -> Assembly {
    assemble_for(req, recall_for(recaller, req))
}
