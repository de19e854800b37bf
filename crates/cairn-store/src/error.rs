use std::path::PathBuf;

/// Result with the store's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What a caller should do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller asked for something invalid.
    BadInput,
    /// The store is from another version of Cairn or is damaged; a person must act.
    Incompatible,
    /// The store could not be reached (locked, disk full, permissions); retrying may help.
    Unavailable,
    /// A bug or an unexpected state.
    Internal,
}

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store file was written by a newer Cairn.
    #[error(
        "store `{path}` has schema version {found}, newer than this Cairn supports ({supported}); upgrade Cairn"
    )]
    TooNew {
        /// Store path.
        path: PathBuf,
        /// Version found in the file.
        found: u32,
        /// Latest version this build knows.
        supported: u32,
    },
    /// The file is not a Cairn store (or is damaged).
    #[error("`{path}` is not a Cairn store: {reason}")]
    NotAStore {
        /// Store path.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// Applying a migration failed; the store is left at its previous version.
    #[error("migrating store `{path}` to schema version {version} failed: {source}")]
    Migration {
        /// Store path.
        path: PathBuf,
        /// Version being applied.
        version: u32,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// Creating the store's directory failed.
    #[error("cannot create the store directory for `{path}`: {source}")]
    Io {
        /// Store path.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// Opening the file failed.
    #[error("cannot open store `{path}`: {source}")]
    Open {
        /// Store path.
        path: PathBuf,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// A stored row could not be decoded.
    #[error("corrupt row for item `{id}`: {reason}")]
    Corrupt {
        /// Item id.
        id: String,
        /// What was wrong.
        reason: String,
    },
    /// Any other SQLite failure.
    #[error("store query failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

impl Error {
    /// How a caller should treat this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::TooNew { .. } | Error::NotAStore { .. } | Error::Migration { .. } => {
                ErrorKind::Incompatible
            }
            Error::Corrupt { .. } => ErrorKind::Internal,
            Error::Open { .. } | Error::Io { .. } => ErrorKind::Unavailable,
            Error::Sqlite(e) => match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                    ErrorKind::Unavailable
                }
                Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::ReadOnly) => ErrorKind::Unavailable,
                _ => ErrorKind::Internal,
            },
        }
    }
}
