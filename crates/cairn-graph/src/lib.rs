//! Cairn's link graph: associative recall with reasons.
//!
//! Nodes are stored items plus the entities Cairn can name without a model (tags, projects, people and
//! places from frontmatter and contact notes, linked files, sessions). Edges are typed (`links_to`,
//! `tagged`, `mentions`, `in_project`, `same_session`, `follows`, `related`, `describes`, or any
//! snake_case type of an explicit link) and each carries a weight, a reason and provenance (file + line,
//! or session + turn).
//!
//! - [`sync_graph`] derives the graph tables from the store's ingest log (incremental per item).
//! - [`Graph::load`] reads them into a CSR adjacency; [`Graph::expand`] walks the neighbourhood of seeds
//!   inside a [`cairn_core::Scope`] (project and audience), crossing projects only over configured edge
//!   types and only when asked.
//! - [`Graph::index_pack`] (L0) and [`Graph::context_pack`] (L1/L2) build bounded packs;
//!   [`Graph::export`] writes a byte-stable `graph.json`; [`diff`] compares two exports.
//!
//! ```
//! use cairn_core::{Audience, Item, ItemKind, Provenance, Scope};
//! use cairn_graph::{ExpandOptions, Graph, sync_graph};
//! use cairn_store::{SqliteStore, Store, Write};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
//! let note = |path: &str, text: &str| Item {
//!     id: format!("memory-file:{path}"), project: "default".into(), kind: ItemKind::File,
//!     title: path.into(), text: text.into(), tags: vec![], audience: Audience::Private,
//!     provenance: Provenance::File { path: path.into(), line_start: 1, line_end: 1 },
//!     content_hash: "h".into(), created_at: 0, observed_at: 0, metadata: Default::default(),
//! };
//! store.apply(&[
//!     Write::upsert(note("a.md", "See [the plan](b.md)."), vec![]),
//!     Write::upsert(note("b.md", "The plan."), vec![]),
//! ], "example").unwrap();
//! sync_graph(&mut store).unwrap();
//! let g = Graph::load(&store).unwrap();
//! let a = g.find("item:memory-file:a.md").unwrap();
//! let exp = g.expand(&[(a, 1.0)], &Scope::owner(Some("default".into())), &ExpandOptions::default());
//! assert_eq!(g.node(exp.reached[0].node).id, "item:memory-file:b.md");
//! ```
#![warn(missing_docs)]

mod error;
mod expand;
mod export;
pub mod extract;
mod graph;
pub mod model;
mod pack;
mod sync;

pub use error::{Error, Result};
pub use expand::{ExpandOptions, Expansion, Reached};
pub use export::{Changed, Diff, EXPORT_VERSION, Export, ExportEdge, ExportNode, diff};
pub use graph::{Edge, Graph, Node};
pub use pack::{
    Budget, Candidate, ContextPack, INDEX_CAP, IndexPack, L2_CEILING, PackEntry, PackExcluded, PackMode,
    PackOptions, PathStep, SNIPPET_CAP, Seed, Suggestion,
};
pub use sync::{GraphSyncReport, graph_is_stale, rebuild_graph, sync_graph};
