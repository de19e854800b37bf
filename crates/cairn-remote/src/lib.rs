//! Remote sources: the memory services a user already runs, consulted on every turn beside Cairn's
//! own recall lanes.
//!
//! - [`settings`]: the `[remote.<name>]` sections (`kind`, `endpoint`, auth by a secret named by an
//!   environment variable, `timeout_ms`, health interval, `max_results`, project mapping, audience).
//! - [`RemoteSource`]: one configured service as a [`cairn_core::Source`], over one of three clients,
//!   each written against the service's real REST API (see each module for the mapping and the
//!   versions checked): [`graphiti`](crate::graphiti) (Graphiti's `graph_service`),
//!   [`lightrag`](crate::lightrag) (LightRAG server's `/query/data`) and [`mem0`](crate::mem0)
//!   (mem0's REST server).
//! - Health ([`health`](crate::health)): up, down or unknown, since when and why; a down source is
//!   not called. Statistics per source: calls, errors, timeouts, a latency histogram.
//!
//! Calls are blocking (`ureq`, one keep-alive agent per source) with the source's time limit per
//! call; the engine runs the sources of a request side by side under one deadline. Secrets are read
//! by the caller from the environment and never appear in errors, statuses or logs.
//!
//! ```
//! use cairn_core::{Admission, Scope, Source, SourceQuery};
//! use cairn_remote::settings::{Kind, SourceConfig, SourceSettings};
//! use cairn_remote::RemoteSource;
//!
//! let settings = SourceSettings::new(Kind::Mem0, "http://127.0.0.1:8888");
//! let source = RemoteSource::open(&SourceConfig::resolve("memories", &settings, |_| None)).unwrap();
//! assert_eq!(source.timeout().as_millis(), 800);
//! // mem0 needs an entity id: without one configured, nothing is sent.
//! let scope = Scope::owner(None);
//! let q = SourceQuery { text: "where does Alice work?", keywords: &[], scope: &scope, k: 5, mode: None };
//! assert!(matches!(source.admit(&q), Admission::Skip(_)));
//! ```
#![warn(missing_docs)]

mod graphiti;
mod health;
mod http;
mod lightrag;
mod login;
mod mcp;
mod mem0;
pub mod settings;
mod source;
#[cfg(feature = "test-support")]
pub mod testing;

pub use settings::{Kind, RemoteSettings, Secret, SourceConfig, SourceSettings};
pub use source::{RemoteSource, open_sources};

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong opening a source.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `[remote.<name>]` section is unusable.
    #[error("`[remote.{name}]`: {reason}")]
    Settings {
        /// The source's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
}
