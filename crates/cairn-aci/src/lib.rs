//! Adaptive context injection (ACI): what a workspace needs before its bootstrap files can be injected
//! by tier instead of in bulk, and the way back.
//!
//! - [`lessons`]: gather operational lessons from the workspace (AGENTS.md, LESSONS_LEARNED.md,
//!   MEMORY.md, recent daily notes), and whether the compression cadence calls for a run.
//! - [`wisdom`]: the `## Wisdom` section of SOUL.md: parsing, rendering, the deterministic checks.
//! - [`llm`]: the one call to an OpenAI-compatible chat endpoint that drafts wisdom from lessons.
//! - [`draft`]: draft files (a wisdom section or a compact tools file awaiting review), their content
//!   hash and the review queue.
//! - [`tools`]: `TOOLS_COMPACT.md` derived from `TOOLS.md`: lookup lines kept, prose dropped.
//! - [`backup`]: workspace snapshots with hash manifests, the freshness gate, rollback, and the
//!   bootstrap mode (tiered or bulk).
//! - [`gate`]: promotion of a reviewed draft: hash, check and backup gates, then an atomic replace.
//! - [`report`]: tokens per session type, bulk against tiered, and the acceptance criteria.
//!
//! Nothing here prints; callers decide what a person sees. Writes go through [`atomic::write`]
//! (temporary file, fsync, rename), so a crash leaves either the old file or the new one.
//!
//! ```
//! let soul = "# Soul\n\nCalm.\n\n## Wisdom\n\n_Last compressed: 2026-01-05 | Source lessons: 30_\n\n\
//!             **Verify first.** Names and numbers drift.\n";
//! let section = cairn_aci::wisdom::WisdomSection::find(soul).unwrap();
//! assert_eq!(section.source_lessons, Some(30));
//! assert_eq!(section.entries[0].name, "Verify first.");
//! ```
#![warn(missing_docs)]

pub mod atomic;
pub mod backup;
pub mod draft;
pub mod gate;
pub mod lessons;
pub mod llm;
mod markdown;
pub mod report;
mod settings;
pub mod tools;
pub mod wisdom;

pub use settings::{AciSettings, LlmSettings, WisdomSettings};

use std::path::PathBuf;

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("cannot {what} `{}`: {source}", path.display())]
    Io {
        /// What was being done (`read`, `write`, ...).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The chat endpoint is not configured, did not answer in time, or answered with an error.
    #[error("the chat endpoint `{endpoint}` {why}")]
    Llm {
        /// The endpoint's base URL.
        endpoint: String,
        /// What went wrong.
        why: String,
    },
    /// The approved hash is not the draft's content hash (the draft changed since it was reviewed, or
    /// another draft was named).
    #[error(
        "the draft's content hash is `{actual}`, not the approved `{approved}`: it changed since it was reviewed, or it is another draft"
    )]
    HashMismatch {
        /// The hash given with `--approve`.
        approved: String,
        /// The draft's hash now.
        actual: String,
    },
    /// The draft fails its checks.
    #[error("the draft fails its checks:\n  {}", .0.join("\n  "))]
    CheckFailed(Vec<String>),
    /// No backup holds the current content of a file the command would change.
    #[error("no fresh backup of `{file}`: {why}")]
    NoFreshBackup {
        /// The workspace file.
        file: String,
        /// Why none is fresh.
        why: String,
    },
    /// A backup's copy does not match its manifest.
    #[error("backup `{id}` is damaged: {why}")]
    DamagedBackup {
        /// The backup.
        id: String,
        /// Which file and how.
        why: String,
    },
    /// The input is unusable; the message says why.
    #[error("{0}")]
    BadInput(String),
    /// Not found (a backup id, a file).
    #[error("{0}")]
    NotFound(String),
}

impl Error {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { what, path, source }
    }
}

/// The first 12 hex digits of the SHA-256 of `bytes`: a draft's content hash as shown to a reviewer.
pub fn short_hash(bytes: &[u8]) -> String {
    sha256_hex(bytes)[..12].to_owned()
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// A date as `YYYY-MM-DD`.
pub type Date = jiff::civil::Date;
