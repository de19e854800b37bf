//! Cairn's write path, with no LLM in it: harvest memory files, capture finished conversation turns,
//! watch a workspace for changes.
//!
//! ```
//! use cairn_ingest::capture::strip_injected;
//! let tags = vec!["cairn-context".to_string()];
//! assert_eq!(strip_injected("<cairn-context>old</cairn-context>\n\nWhat next?", &tags), "What next?");
//! ```
#![warn(missing_docs)]

pub mod capture;
pub mod chunk;
pub mod frontmatter;
pub mod harvest;
pub mod tags;
pub mod watch;

use std::path::PathBuf;

pub use capture::{CaptureOutcome, CaptureSettings, ROLES, TurnInput, capture, validate as validate_turn};
pub use harvest::{
    FileAction, FileProblem, HarvestReport, HarvestRequest, HarvestSettings, NoProgress, Progress, harvest,
    resolve_path,
};

/// Result with ingest's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong while ingesting (per-file problems are reported, not raised).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] cairn_store::Error),
    /// A path could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// A path given to harvest is outside the workspace.
    #[error("`{path}` is outside the workspace `{root}`")]
    OutsideWorkspace {
        /// The path given.
        path: PathBuf,
        /// The workspace root.
        root: PathBuf,
    },
    /// A path given to harvest does not name anything in the workspace.
    #[error("`{path}` is not in the workspace `{root}`: {reason}")]
    NotInWorkspace {
        /// The path given.
        path: PathBuf,
        /// The workspace root.
        root: PathBuf,
        /// Why.
        reason: String,
    },
    /// A harvest would delete too much of the store (`harvest.max_delete_share`, or a workspace with
    /// no memory file); it wrote nothing.
    #[error(
        "refusing to delete {deleting} of the {total} files in the store: {reason}; nothing was changed\n\n\
         hint: if those files really are gone, allow it for one run with `cairn harvest --allow-mass-delete` \
         (`--dry-run --verbose` lists them first), or raise `harvest.max_delete_share`"
    )]
    TooManyDeletions {
        /// Stored files the run would delete.
        deleting: usize,
        /// Stored files.
        total: usize,
        /// Why that is too many.
        reason: String,
    },
    /// Invalid options (a bad glob).
    #[error("invalid settings: {0}")]
    Config(String),
    /// A turn given to capture is malformed.
    #[error("invalid turn: {0}")]
    BadTurn(String),
    /// The file watcher failed.
    #[error("watching failed: {0}")]
    Watch(String),
}
