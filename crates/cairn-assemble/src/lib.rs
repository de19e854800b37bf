//! Budgeted context assembly: turn recall's hits into one bounded, explainable block.
//!
//! [`assemble`] takes an [`AssembleRequest`] (the query, its tags, ranked topic hits, recent
//! hits, lane reports and a token budget) and returns an [`Assembly`]: the block to inject
//! (markdown or xml, wrapped in `<cairn-context>` tags), its entries, and a redaction-safe
//! [`Receipt`] saying what was included, what was left out and why, and where the tokens went.
//!
//! Guarantees, for any input:
//! - the block's tokens, counted with the real BPE ([`cairn_tokens`]), never exceed the budget;
//! - the same request gives byte-identical output (no clocks, no hash-map order, ties by id);
//! - every visible candidate appears in the receipt exactly once, included or excluded;
//! - the receipt holds ids, hashes, scores and counts, never item text or the query text.
//!
//! The budget is split between a recency layer (default 25%) and a topic layer; what one leaves
//! unused flows to the other. Each entry is shown at the richest level that still fits: L1
//! summaries by default, L0 one-line abstracts when tight, L2 raw snippets only when asked.
//!
//! ```
//! use std::collections::BTreeMap;
//! use cairn_assemble::{assemble, AssembleRequest, Format};
//! use cairn_core::{Audience, Hit, ItemKind, Provenance, Why};
//!
//! let hit = Hit {
//!     chunk_id: "memory-file:projects/maxrisk.md#0".into(),
//!     item_id: "memory-file:projects/maxrisk.md".into(),
//!     project: "default".into(),
//!     kind: ItemKind::File,
//!     title: "MaxRisk Project Status".into(),
//!     text: "Current equity: $3,884.55. Focus on 30-45 DTE debit spreads.".into(),
//!     tags: vec!["maxrisk".into(), "trading".into()],
//!     audience: Audience::Private,
//!     provenance: Provenance::File { path: "projects/maxrisk.md".into(), line_start: 1, line_end: 4 },
//!     content_hash: "0123456789abcdef0123456789abcdef".into(),
//!     created_at: 1_773_792_000_000, // 2026-03-18
//!     score: 1.0,
//!     parts: BTreeMap::new(),
//!     why: Why::default(),
//! };
//! let mut req = AssembleRequest::new("maxrisk status", 500);
//! req.query_tags = vec!["maxrisk".into()];
//! req.topic = vec![hit];
//! let out = assemble(&req);
//! assert!(!out.empty);
//! assert!(out.tokens <= 500);
//! assert!(out.block.starts_with("<cairn-context>\n## Retrieved Context"));
//! assert!(out.block.contains("### [2026-03-18] MaxRisk Project Status"));
//! assert!(!serde_json::to_string(&out.receipt).unwrap().contains("equity"));
//!
//! req.options.format = Format::Json;
//! let json: serde_json::Value = serde_json::from_str(&assemble(&req).output()).unwrap();
//! assert_eq!(json["source"], "cairn");
//! ```
#![warn(missing_docs)]

mod assemble;
mod cache;
mod graph_trace;
mod options;
mod receipt;
mod text;

pub use assemble::{AssembledItem, Assembly, assemble, assemble_with};
pub use cache::CountCache;
pub use cairn_tokens::Encoding;
pub use graph_trace::{GraphCandidate, GraphStep, GraphTrace};
pub use options::{AssembleOptions, AssembleRequest, Format, Layer, Level};
pub use receipt::{
    Candidates, ExcludeReason, Excluded, Included, LayerTokens, RECEIPT_VERSION, Receipt, TokenAccounting,
};
