//! The crate's one error type: what stops an audit before it can say anything about the tree.

use std::path::PathBuf;

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can stop an audit. Findings in the tree are never errors: they are the report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A list file, or the tree, could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A list file is not valid YAML, does not fit its schema (an unknown key, a wrong type, a
    /// `schema_version` other than 1, an unknown rule name) or holds a glob that does not compile.
    #[error("`{}`{}: {message}", path.display(), line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Parse {
        /// The list file.
        path: PathBuf,
        /// The 1-based line, when it is known.
        line: Option<usize>,
        /// What is wrong (the parser's message names the field).
        message: String,
    },
    /// The tree to audit is not a directory.
    #[error("`{}` is not a directory", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The private overlay directory is not a routing config that loads (its error names the
    /// file and line).
    #[error(transparent)]
    Overlay(#[from] cairn_route::Error),
    /// The tree is a git work tree but `git ls-files` failed.
    #[error("`git ls-files` failed in `{}`: {message}", root.display())]
    Git {
        /// The tree.
        root: PathBuf,
        /// git's message.
        message: String,
    },
}

/// What the caller should do about an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Fix the input (a list file, the overlay, the arguments).
    BadInput,
    /// A file or directory is missing.
    NotFound,
    /// Something outside the input failed (reading, git); retrying may help.
    Unavailable,
}

impl Error {
    /// What the caller should do about it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => ErrorKind::NotFound,
            Error::Io { .. } | Error::Git { .. } => ErrorKind::Unavailable,
            Error::NotADirectory { .. } => ErrorKind::NotFound,
            Error::Parse { .. } | Error::Overlay(_) => ErrorKind::BadInput,
        }
    }
}
