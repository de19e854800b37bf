//! The engine: the one path from every surface (the `cairn` command, the HTTP daemon, the MCP server)
//! to Cairn's stages. Adapters build an [`EngineConfig`] from their settings, open an [`Engine`] and
//! call its methods; they never wire stages themselves.
//!
//! - [`Engine::open`]: a long-lived engine (a daemon): every part opened at once, problems reported.
//!   [`Engine::open_lazy`]: a one-shot engine (a CLI process): each part opened on first use, so a
//!   command pays only for what it touches.
//! - Reads: [`Engine::context`] (recall → graph step → assembly under a token budget, fail-open),
//!   [`Engine::search`], [`Engine::turn`] (classify → recall → route → assemble), [`Engine::bootstrap`],
//!   [`Engine::graph_index`] / [`Engine::graph_pack`]; every read is scoped by
//!   [`Engine::scope_for`].
//! - Writes: [`Engine::harvest`], [`Engine::capture_batch`], [`Engine::ingest`], [`Engine::reindex`];
//!   each brings the derived parts (full-text index, vectors, graph) up to the store.
//! - Health: [`Engine::doctor`] checks every part (store, index, model, vectors, routing, sessions,
//!   permissions) without changing any, one [`Check`] each.
//! - Stage-level functions for benchmarks and tests: [`sync_index`], [`rebuild_index`],
//!   [`recall_for`] / [`assemble_for`] / [`context`], [`embed_pending`], [`load_vectors`].
//!
//! ```
//! use cairn_core::{Audience, Item, ItemKind, Provenance};
//! use cairn_engine::{Caller, ContextQuery, Engine, EngineConfig};
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
//! drop(store);
//!
//! let mut cfg = EngineConfig::new(dir.path());
//! cfg.embed.provider = cairn_embed::EmbedProvider::None;
//! let engine = Engine::open_lazy(cfg);
//! let scope = engine.scope_for(Caller::Owner, None);
//! let assembly = engine.context(&ContextQuery::new("where is the alert queue?", scope));
//! assert!(assembly.block.contains("Alert queue"));
//! ```
#![warn(missing_docs)]

mod api;
mod bootstrap;
mod config;
mod context;
mod copy;
mod derive;
mod doctor;
pub mod eval;
mod forget;
mod forward;
mod graph;
mod index;
mod links;
mod open;
mod portable;
mod queue;
mod remote;
mod scope;
mod session;
mod sources;
mod subagents;
mod turn;
mod vectors;

pub use api::{
    BootstrapFile, BootstrapResult, Caller, ContextQuery, GraphChoice, IngestNote, IntentView, RagReceipt,
    RouteTrace, SessionSummary, SessionView, StageMicros, SubagentEnded, SubagentSpawn, TaskTrace,
    TurnRequest, TurnResponse, TurnTrace, fallback_note,
};
pub use bootstrap::{CONTEXT_FILE, RAG_CONTEXT_FILE};
pub use cairn_core::{Source, SourceState, SourceStatus};
pub use config::{
    ContextSettings, DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_BUDGET, DEFAULT_MAX_PROMPT_BYTES, EngineConfig,
    GraphSettings,
};
pub use context::{ContextRequest, Recalled, assemble_for, candidates_for, context, recall_for};
pub use copy::CopyReport;
pub use derive::{DerivedReport, HarvestOutcome};
pub use doctor::{Check, CheckStatus};
pub use forget::{Forget, Forgotten};
pub use graph::{GraphExpansion, GraphExpansionOptions, graph_context, graph_index, open_graph};
pub use index::{SyncReport, rebuild_index, sync_index};
pub use links::{LinkRequest, Linked};
pub use open::Engine;
pub use portable::{EXPORT_FORMAT, EXPORT_VERSION, PortableReport, Record};
pub use remote::REMOTE_LANE;
pub use session::{SessionEntry, SessionStates};
pub use sources::{MAX_SOURCE_HITS, SourceAnswer, SourceError, SourceRequest};
pub use vectors::{
    EmbedReport, embed_pending, embed_some, embed_text, load_vectors, sync_vectors, vector_key,
};

/// The settings sections an [`EngineConfig`] is built from, in one place for adapters.
pub mod settings {
    pub use crate::config::{ContextSettings, GraphSettings, StoreSettings};
    pub use cairn_embed::{EmbedProvider, EmbedSettings};
    pub use cairn_ingest::{CaptureSettings, HarvestSettings};
    pub use cairn_recall::RecallSettings;
    pub use cairn_remote::{RemoteSettings, SourceConfig, SourceSettings};
    pub use cairn_vector::VectorSettings;
}

/// Re-exported for adapters: the types their requests and answers carry.
pub use cairn_assemble::{Assembly, Format, Level, Receipt};
pub use cairn_graph::{ContextPack, Diff, Export, GraphSyncReport, IndexPack, PackMode, diff as graph_diff};
pub use cairn_ingest::harvest::{parse_date, relative as relative_path};
pub use cairn_ingest::{
    CaptureOutcome, FileAction, HarvestReport, HarvestRequest, TurnInput, validate_turn, watch,
};
pub use cairn_recall::{RecallQuery, RecallResult};

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
    /// There is no store in the data directory (an engine opened lazily never creates one for a
    /// read).
    #[error("no store at `{}`", .0.display())]
    NoStore(std::path::PathBuf),
    /// A part of the engine could not be opened; the message says which and why.
    #[error("{0}")]
    Unavailable(String),
}

impl Error {
    /// Whether the caller sent something unusable (as opposed to a failure on this side).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, Error::BadInput(_) | Error::Ingest(cairn_ingest::Error::BadTurn(_)))
    }

    /// Whether the store could not be reached (a shared server down, a disk full): trying again
    /// later may succeed, and nothing about the request itself is wrong.
    pub fn is_unavailable(&self) -> bool {
        let unavailable = |e: &cairn_store::Error| e.kind() == cairn_store::ErrorKind::Unavailable;
        match self {
            Error::Store(e) | Error::Ingest(cairn_ingest::Error::Store(e)) => unavailable(e),
            _ => false,
        }
    }
}
