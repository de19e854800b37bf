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
        /// Store path (for PostgreSQL: the server and database, without the password).
        path: PathBuf,
        /// Version found in the file.
        found: u32,
        /// Latest version this build knows.
        supported: u32,
    },
    /// The file is not a Cairn store (or is damaged).
    #[error("`{path}` is not a Cairn store: {reason}")]
    NotAStore {
        /// Store path (for PostgreSQL: the server and database, without the password).
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
    /// A value the store cannot hold (PostgreSQL text cannot contain a NUL character); nothing was written.
    #[error("cannot store `{id}`: {reason}")]
    BadInput {
        /// The item (or turn, file, chunk) id.
        id: String,
        /// What was wrong.
        reason: String,
    },
    /// `store.url` is not a PostgreSQL connection URL the client understands.
    #[error("store URL `{url}` is not usable: {reason}")]
    BadUrl {
        /// The URL without its password.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// Connecting to the PostgreSQL server failed.
    #[error("cannot connect to the store at `{url}`: {}", with_causes(source))]
    Connect {
        /// The server and database, without the password.
        url: String,
        /// The client's error.
        source: postgres::Error,
    },
    /// Applying a PostgreSQL migration failed; the database is left at its previous version.
    #[error("migrating store `{url}` to schema version {version} failed: {source}")]
    PgMigration {
        /// The server and database, without the password.
        url: String,
        /// Version being applied.
        version: u32,
        /// The client's error.
        source: postgres::Error,
    },
    /// A PostgreSQL connection was closed (the server went away).
    #[error("the connection to the store at `{url}` was closed")]
    Disconnected {
        /// The server and database, without the password.
        url: String,
    },
    /// Any other PostgreSQL failure (a lost connection, a deadlock, a failed query).
    #[error("store query failed: {0}")]
    Postgres(#[from] postgres::Error),
}

impl Error {
    /// How a caller should treat this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::TooNew { .. }
            | Error::NotAStore { .. }
            | Error::Migration { .. }
            | Error::PgMigration { .. } => ErrorKind::Incompatible,
            Error::Corrupt { .. } => ErrorKind::Internal,
            Error::Open { .. } | Error::Io { .. } | Error::Connect { .. } | Error::Disconnected { .. } => {
                ErrorKind::Unavailable
            }
            Error::BadInput { .. } | Error::BadUrl { .. } => ErrorKind::BadInput,
            Error::Postgres(e) => pg_kind(e),
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

/// Lost connections, a server shutting down or out of room, lock timeouts, deadlocks and serialisation
/// failures may pass when retried; anything else is a bug or an unexpected state.
/// `e` and what caused it, as `error: cause: cause` ("db error" alone says nothing; its cause is the
/// server's message, and a TLS failure's cause names the certificate problem).
fn with_causes(e: &postgres::Error) -> String {
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

fn pg_kind(e: &postgres::Error) -> ErrorKind {
    use postgres::error::SqlState;
    let Some(code) = e.code() else {
        // No SQLSTATE: the connection broke (or was closed) underneath the query.
        return ErrorKind::Unavailable;
    };
    let retryable = [
        SqlState::T_R_SERIALIZATION_FAILURE,
        SqlState::T_R_DEADLOCK_DETECTED,
        SqlState::LOCK_NOT_AVAILABLE,
        SqlState::QUERY_CANCELED,
        SqlState::ADMIN_SHUTDOWN,
        SqlState::CRASH_SHUTDOWN,
        SqlState::CANNOT_CONNECT_NOW,
        SqlState::TOO_MANY_CONNECTIONS,
        SqlState::DISK_FULL,
        SqlState::READ_ONLY_SQL_TRANSACTION,
    ];
    if retryable.contains(code) || code.code().starts_with("08") {
        ErrorKind::Unavailable
    } else {
        ErrorKind::Internal
    }
}
