//! Cairn's store: one SQLite file is the source of truth for items, their chunks, tags, sessions,
//! turns, harvested-file states and an append-only ingest log; or, for a team on several hosts, a
//! PostgreSQL database ([`PgStore`]) holds those, attached to each host's file
//! ([`SqliteStore::with_shared`]), which keeps what is host-local.
//!
//! Derived indexes (full text, vectors) sync from the ingest log and can always be rebuilt from the
//! store. Everything shared goes through the [`Store`] trait, which both backends implement.
//!
//! ```
//! use cairn_core::{Audience, Item, ItemKind, Provenance, content_hash};
//! use cairn_store::{SqliteStore, Store, Write};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
//! let item = Item {
//!     id: "fact:sky".into(), project: "default".into(), kind: ItemKind::Fact,
//!     title: "Sky".into(), text: "The sky is blue.".into(), tags: vec!["weather".into()],
//!     audience: Audience::Public, provenance: Provenance::External { source: "doc".into() },
//!     content_hash: content_hash(b"The sky is blue."), created_at: 0, observed_at: 0,
//!     metadata: Default::default(),
//! };
//! let seq = store.apply(&[Write::upsert(item, vec![])], "example").unwrap();
//! assert_eq!(store.get_item("fact:sky").unwrap().unwrap().title, "Sky");
//! assert_eq!(store.changes_since(0).unwrap().last().unwrap().seq, seq);
//! ```
#![warn(missing_docs)]

mod codec;
mod error;
mod graph;
mod migrate;
mod pg;
mod serving;
mod sqlite;
mod subagents;

pub use error::{Error, ErrorKind, Result};
pub use graph::{GraphEdgeRow, GraphNodeRow, GraphRows, LINK_OWNER, RawGraphEdge, RawGraphNode};
pub use migrate::SCHEMA_VERSION;
pub use pg::{
    CHANNEL as PG_LOG_CHANNEL, Heard, LISTENER_NAME as PG_LISTENER_NAME, PG_SCHEMA_VERSION, PgListener,
    PgStore, Transport as PgTransport,
};
pub use serving::{QueueCounts, QueuedCapture};
pub use sqlite::SqliteStore;
pub use subagents::{SubagentEnd, SubagentLink};

use std::collections::BTreeMap;

use cairn_core::{Audience, Chunk, Item, Millis};
use serde::Serialize;

/// One write in a batch applied atomically by [`Store::apply`].
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // built once and consumed at once; boxing buys nothing
pub enum Write {
    /// Insert or replace an item with all its chunks (old chunks are dropped).
    Upsert {
        /// The item.
        item: Item,
        /// Its chunks (may be empty: the item's text is then its only chunk).
        chunks: Vec<Chunk>,
        /// Tags that came from the source itself (they form the tag vocabulary); other tags are inferred.
        explicit_tags: Vec<String>,
        /// For harvested files: the file state to remember.
        file: Option<FileState>,
    },
    /// Remove an item, its chunks and (if any) its file state.
    Delete {
        /// The item id.
        item_id: String,
    },
    /// Remember a file's state without touching its item (an unchanged file whose mtime moved).
    TouchFile(FileState),
}

impl Write {
    /// An upsert whose tags are all explicit and that has no file state.
    pub fn upsert(item: Item, chunks: Vec<Chunk>) -> Self {
        let explicit_tags = item.tags.clone();
        Write::Upsert { item, chunks, explicit_tags, file: None }
    }
}

/// What the store remembers of a harvested file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FileState {
    /// Path relative to the workspace root, `/`-separated.
    pub path: String,
    /// The item made from it.
    pub item_id: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Hash of the file's bytes.
    pub content_hash: String,
}

/// One entry of the ingest log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Position in the log (strictly increasing).
    pub seq: u64,
    /// The item written or deleted.
    pub item_id: String,
    /// Whether the item was deleted.
    pub deleted: bool,
}

/// A finished conversation turn to record.
#[derive(Debug, Clone)]
pub struct TurnRecord {
    /// Host session key.
    pub session_key: String,
    /// Turn id, unique within the session.
    pub turn_id: String,
    /// Project of the session.
    pub project: String,
    /// Audience of the session.
    pub audience: Audience,
    /// When the turn finished.
    pub ts: Millis,
    /// The item holding the turn's (stripped) text.
    pub item: Item,
}

/// Result of recording a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TurnOutcome {
    /// Stored as a new item.
    Stored {
        /// The item id.
        item_id: String,
        /// Ingest-log sequence of the write.
        seq: u64,
    },
    /// This turn id was recorded before; nothing changed.
    Duplicate {
        /// The existing item id.
        item_id: String,
    },
}

/// Counts and facts for `cairn status`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StoreStatus {
    /// Schema version of the open store.
    pub schema_version: u32,
    /// Number of items.
    pub items: u64,
    /// Number of chunks.
    pub chunks: u64,
    /// Items per kind.
    pub per_kind: BTreeMap<String, u64>,
    /// Items per project.
    pub per_project: BTreeMap<String, u64>,
    /// Items per audience.
    pub per_audience: BTreeMap<String, u64>,
    /// Recorded sessions.
    pub sessions: u64,
    /// Recorded turns.
    pub turns: u64,
    /// Last ingest-log sequence.
    pub last_seq: u64,
    /// The last finished harvest run, if any.
    pub last_harvest: Option<HarvestRun>,
}

/// A harvest run as recorded in the store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HarvestRun {
    /// Run id.
    pub id: i64,
    /// Start time.
    pub started_at: Millis,
    /// End time, when finished.
    pub finished_at: Option<Millis>,
    /// Workspace root harvested.
    pub root: String,
    /// The run's JSON summary.
    pub summary: Option<serde_json::Value>,
}

/// A chunk whose vector under a model is missing or stale (its content changed since it was embedded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingChunk {
    /// The chunk id (for an item stored without chunks: its whole-text chunk, ordinal 0).
    pub chunk_id: String,
    /// The item.
    pub item_id: String,
    /// The item's title.
    pub title: String,
    /// The chunk's section heading (may be empty).
    pub heading: String,
    /// The chunk text.
    pub text: String,
    /// The item's context (`metadata.context`: a turn's previous turn), empty when it has none.
    pub context: String,
    /// The chunk's content hash, stored with its vector.
    pub content_hash: String,
}

/// A vector to store for a chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct NewVector {
    /// The chunk id.
    pub chunk_id: String,
    /// Its item.
    pub item_id: String,
    /// The chunk's content hash at embedding time.
    pub content_hash: String,
    /// The vector.
    pub vector: Vec<f32>,
    /// The vectors of the chunk's lines, one after another (each as long as `vector`; empty when
    /// the chunk is embedded whole only). Stored in the same row, after `vector`.
    pub lines: Vec<f32>,
}

/// A stored, current vector with what scope checks need.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVector {
    /// Position in the vector log (grows with every write).
    pub vseq: u64,
    /// The chunk id.
    pub chunk_id: String,
    /// Its item.
    pub item_id: String,
    /// The item's project.
    pub project: String,
    /// The item's audience.
    pub audience: Audience,
    /// The vector.
    pub vector: Vec<f32>,
    /// The vectors of its lines, one after another ([`NewVector::lines`]).
    pub lines: Vec<f32>,
}

/// Counts of vectors under one model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VectorStatus {
    /// Chunks with a current vector.
    pub current: u64,
    /// Chunks lacking one (new, changed, or embedded by another model).
    pub pending: u64,
}

/// The store interface every backend implements. Kept narrow on purpose: a shared server database
/// for teams only needs to implement these.
pub trait Store {
    /// Apply a batch of writes atomically; returns the last ingest-log sequence afterwards.
    fn apply(&mut self, writes: &[Write], source: &str) -> Result<u64>;
    /// One item by id.
    fn get_item(&self, id: &str) -> Result<Option<Item>>;
    /// The chunks of an item, in order.
    fn chunks(&self, item_id: &str) -> Result<Vec<Chunk>>;
    /// Every harvested file state, by path.
    fn file_states(&self) -> Result<BTreeMap<String, FileState>>;
    /// The explicit tag vocabulary with item counts, sorted by tag.
    fn tag_vocabulary(&self) -> Result<Vec<(String, u64)>>;

    /// The explicit tags of public items only, with their counts (what may be inferred on a public item).
    fn public_tag_vocabulary(&self) -> Result<Vec<(String, u64)>>;
    /// The explicit tags of one item (those its source gave; the rest of [`Item::tags`] are inferred),
    /// sorted; empty for an unknown item.
    fn explicit_tags(&self, item_id: &str) -> Result<Vec<String>>;
    /// Record a finished turn; idempotent per `(session_key, turn_id)`.
    fn record_turn(&mut self, turn: &TurnRecord, chunks: Vec<Chunk>) -> Result<TurnOutcome>;
    /// The recorded turn of `session_key` just before `(ts, turn_id)` (turns are ordered by time, then
    /// turn id), as its item.
    fn previous_turn(&self, session_key: &str, ts: Millis, turn_id: &str) -> Result<Option<Item>>;
    /// Ingest-log entries after `seq`, collapsed to the last entry per item, in log order.
    fn changes_since(&self, seq: u64) -> Result<Vec<Change>>;
    /// The last ingest-log sequence (0 for an empty store).
    fn last_seq(&self) -> Result<u64>;
    /// Items that are not memory files (captured turns, ingested notes), in id order: of the session
    /// `session_key` when given, created before `before` when given (what `cairn forget` and capture
    /// retention may remove; a memory file is removed by deleting or editing the file).
    fn forgettable(&self, session_key: Option<&str>, before: Option<Millis>) -> Result<Vec<String>>;
    /// Visit every item with its chunks, in id order (for rebuilding derived indexes).
    fn for_each_item(&self, f: &mut dyn FnMut(Item, Vec<Chunk>) -> Result<()>) -> Result<()>;
    /// Start a harvest run record.
    fn begin_harvest(&mut self, root: &str, at: Millis) -> Result<i64>;
    /// Finish a harvest run record with its summary.
    fn finish_harvest(&mut self, run: i64, at: Millis, summary: &serde_json::Value) -> Result<()>;
    /// Counts for `cairn status`.
    fn status(&self) -> Result<StoreStatus>;

    /// Up to `limit` chunks without a current vector under `model_id` (missing, stale content, or another
    /// dimension), in item then chunk order.
    fn pending_vectors(&self, model_id: &str, dim: usize, limit: usize) -> Result<Vec<PendingChunk>>;
    /// Current and pending vector counts under `model_id`.
    fn vector_status(&self, model_id: &str, dim: usize) -> Result<VectorStatus>;
    /// Store vectors (replacing any earlier one of the same chunk and model) in one transaction. Vectors
    /// of chunks or items that no longer exist, or whose content changed meanwhile, are dropped.
    fn put_vectors(&mut self, model_id: &str, vectors: &[NewVector]) -> Result<usize>;
    /// Visit every current vector of `model_id` and dimension `dim` written after `vseq`, in vseq order;
    /// returns the last vseq of that model (or `vseq` when nothing is newer).
    fn vectors_since(
        &self,
        model_id: &str,
        dim: usize,
        vseq: u64,
        f: &mut dyn FnMut(StoredVector),
    ) -> Result<u64>;
    /// The current vectors of one item under `model_id`.
    fn item_vectors(&self, model_id: &str, dim: usize, item_id: &str) -> Result<Vec<StoredVector>>;
    /// Deletes every vector stored under `model_id` (vectors of a model, or of a way of embedding
    /// with it, no longer used); returns how many.
    fn drop_vectors(&mut self, model_id: &str) -> Result<usize>;
}
