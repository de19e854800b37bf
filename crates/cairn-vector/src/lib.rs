//! Cairn's vector index: the vectors of one embedding model, in memory, searchable by cosine
//! similarity inside a [`Scope`](cairn_core::Scope).
//!
//! - Loaded from the store at open ([`VectorIndex::load`]) and kept in step with its ingest and vector
//!   logs ([`VectorIndex::sync`]), like the full-text index.
//! - Exact search below a configurable size: an int8 scan (per-vector scale) then f32 re-scoring of the
//!   best candidates, on AVX2 + FMA kernels picked at run time, or portable loops the compiler
//!   vectorises ([`kernel`]).
//! - Above it, an HNSW graph ([hnsw_rs]) walked unfiltered with a candidate list grown for the share of
//!   rows the scope rejects, the candidates then filtered by scope; narrow scopes (a small project) and
//!   walks that return too few admitted rows use the exact scan.
//! - Scope is checked on every row: a public-only caller never gets a private chunk.
//!
//! ```
//! use cairn_core::{Audience, Scope};
//! use cairn_vector::{VectorIndex, VectorSettings};
//!
//! let mut index = VectorIndex::new("model", 2, VectorSettings::default());
//! index.upsert("a#0", "a", "p", Audience::Public, &[1.0, 0.0]).unwrap();
//! index.upsert("b#0", "b", "p", Audience::Private, &[0.0, 1.0]).unwrap();
//! let (hits, _) = index.search(&[0.1, 0.9], &Scope::public_only(None), 5);
//! assert_eq!(hits.len(), 1);
//! assert_eq!(&*hits[0].chunk_id, "a#0");
//! ```
#![warn(missing_docs)]

mod index;
pub mod kernel;
#[cfg(feature = "test-support")]
pub mod synthetic;

pub use index::{Error, Result, SearchMethod, VectorHit, VectorIndex, VectorSettings, VectorSync};
