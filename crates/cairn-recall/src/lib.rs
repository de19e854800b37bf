//! Cairn's recall: a derived, rebuildable full-text index over chunks, and the lanes that query it.
//!
//! The SQLite store is the source of truth. This crate keeps a [tantivy] index of its chunks in a
//! directory (one document per [`Chunk`](cairn_core::Chunk), carrying everything a
//! [`Hit`](cairn_core::Hit) needs), so the read path never touches SQLite.
//!
//! - Write side: [`RecallIndex`] → [`ChunkWriter`]: `upsert(item, chunks)`, `delete_item`, `clear`,
//!   `commit(store_seq)`; [`RecallIndex::synced_seq`] says how far the index follows the store.
//! - Read side: [`Recaller::recall`] runs the lanes and fuses them:
//!   - **lexical**: BM25 (title boosted) over an OR of the analysed query terms, top-k scored term at a
//!     time (block-max WAND when the query's postings are very many);
//!   - **tags**: tags inferred from the query against the index's tag vocabulary;
//!   - **recency**: exponential decay with a half-life, from a `now` passed in; plus a `recent` list.
//! - Scope (project, audience) is checked inside every lane: out-of-scope chunks are never candidates.
//! - [`eval`]: Recall@k, Hit@k and NDCG@10 on a labelled corpus (LoCoMo format).
//!
//! Text in any script is searchable: Unicode word segmentation, English stemming and stop words for
//! Latin text, character bigrams for Chinese, Japanese and Korean (see [`analyze`]).
//!
//! ```
//! use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance, Scope};
//! use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller};
//!
//! # fn main() -> cairn_recall::Result<()> {
//! let dir = tempfile::tempdir().unwrap();
//! let index = RecallIndex::open_or_create(&dir.path().join("index"))?;
//! let item = Item {
//!     id: "memory-file:notes.md".into(),
//!     project: "default".into(),
//!     kind: ItemKind::File,
//!     title: "GRIB parser".into(),
//!     text: "The weather reader crashed on a truncated GRIB file.".into(),
//!     tags: vec!["weather".into()],
//!     audience: Audience::Public,
//!     provenance: Provenance::External { source: "example".into() },
//!     content_hash: "h".into(),
//!     created_at: 0,
//!     observed_at: 0,
//!     metadata: Default::default(),
//! };
//! let chunk = Chunk {
//!     id: Chunk::make_id(&item.id, 0),
//!     item_id: item.id.clone(),
//!     ordinal: 0,
//!     heading: String::new(),
//!     text: item.text.clone(),
//!     provenance: item.provenance.clone(),
//!     content_hash: "h".into(),
//! };
//! let mut writer = index.writer()?;
//! writer.upsert(&item, &[chunk])?;
//! writer.commit(1)?;
//! assert_eq!(index.synced_seq()?, Some(1));
//!
//! let recaller = Recaller::new(&index, RecallSettings::default())?;
//! let q = RecallQuery::new("why did the weather reader crash?", Scope::public_only(None), 5, 0);
//! let result = recaller.recall(&q);
//! assert_eq!(result.hits[0].item_id, "memory-file:notes.md");
//! assert_eq!(result.query_tags, ["weather"]);
//! assert!(result.hits[0].why.terms.contains(&"crash".to_string()));
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

mod analyzer;
mod error;
pub mod eval;
mod implied;
mod index;
mod mentions;
mod recall;
mod short_forms;
mod stats;
mod taat;

pub use analyzer::{STOP_WORDS, analyze, content_words};
pub use error::{Error, ErrorKind, Result};
pub use index::{ChunkWriter, RecallIndex, SCHEMA_VERSION};
pub use recall::{
    ALL_LANES, COVERAGE_PART, Calibration, DEFAULT_FLOOR, DEFAULT_PERSONAL_FLOOR, DEFAULT_PERSONAL_LEXICAL,
    ExternalScored, Fusion, LaneWeights, PERSON_PART, PROFILE_PART, QueryWeights, RecallQuery, RecallResult,
    RecallSettings, Recaller, VectorLane, lane, score_external,
};
