//! Cairn's domain types, shared by every stage of the pipeline.
//!
//! Nothing in this crate does IO: no files, no SQL, no network (its one thread, [`helper`], only runs
//! the stages' own work; [`now_ms`] reads the clock). The stages
//! (`cairn-ingest`, `cairn-store`, `cairn-recall`, `cairn-route`, `cairn-assemble`)
//! exchange these values.
//!
//! ```
//! use cairn_core::{Audience, Scope};
//! let scope = Scope::public_only(Some("default".into()));
//! assert!(!scope.allows(Audience::Private));
//! assert!(scope.allows(Audience::Public));
//! ```
#![warn(missing_docs)]

mod context;
mod hash;
pub mod helper;
mod item;
mod lane;
mod progress;
mod scope;
mod source;
mod text;

pub use context::{CONTEXT_KEY, MAX_CONTEXT_BYTES, PREVIOUS_KEY, SPAWNED_BY_KEY, context_of, embed_text};
pub use hash::content_hash;
pub use item::{Audience, Chunk, Hit, Item, ItemKind, Provenance, Why, memory_file_id};
pub use lane::{LaneReport, LaneStatus, Relevance};
pub use progress::{NoProgress, Progress};
pub use scope::Scope;
pub use source::{Admission, CapturedTurn, Latencies, Source, SourceQuery, SourceState, SourceStatus};
pub use text::{now_ms, prefix, prefix_words};

/// The project an item belongs to when nothing says otherwise.
pub const DEFAULT_PROJECT: &str = "default";

/// Milliseconds since the Unix epoch, the unit of every timestamp in Cairn.
pub type Millis = i64;

/// The `created_at` of an item that says nothing about when it was written (no frontmatter `date`,
/// no date in its file name or path, not a captured turn): it gets no recency and shows no date.
pub const UNDATED: Millis = 0;
