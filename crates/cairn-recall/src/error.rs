use std::path::PathBuf;

/// What the caller should do about an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input was wrong (a malformed corpus line, a chunk of another item).
    BadInput,
    /// Something that should exist does not (no index in the directory).
    NotFound,
    /// The index exists but cannot be used as is: rebuild it from the store.
    NeedsRebuild,
    /// The index is busy (another writer holds the lock) or the disk failed.
    Unavailable,
    /// A bug or an unexpected engine failure.
    Internal,
}

/// Everything that can go wrong in `cairn-recall`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `open` found no index in the directory. Create it with `RecallIndex::open_or_create` and rebuild.
    #[error("no recall index in `{path}`")]
    NotFound {
        /// The index directory.
        path: PathBuf,
    },
    /// The index was written by another schema version of Cairn (or its field layout differs).
    #[error("recall index `{path}` holds {found}, this build expects schema {expected}; rebuild the index")]
    SchemaMismatch {
        /// The index directory.
        path: PathBuf,
        /// What the index says (a version number or a description).
        found: String,
        /// What this build writes.
        expected: String,
    },
    /// The index files could not be read: truncated, garbled or half-written.
    #[error("recall index `{path}` is unreadable (corrupt?); rebuild the index")]
    Corrupt {
        /// The index directory.
        path: PathBuf,
        /// The engine's error.
        #[source]
        source: tantivy::TantivyError,
    },
    /// Another process holds the index writer lock.
    #[error("recall index `{path}` is locked by another writer")]
    Locked {
        /// The index directory.
        path: PathBuf,
    },
    /// A chunk passed to `upsert` does not belong to the item.
    #[error("chunk `{chunk_id}` belongs to item `{chunk_item}`, not `{item_id}`")]
    ChunkMismatch {
        /// The item being upserted.
        item_id: String,
        /// The offending chunk.
        chunk_id: String,
        /// The item the chunk names.
        chunk_item: String,
    },
    /// A filesystem operation on the index directory failed.
    #[error("{action} `{path}`")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line of an evaluation file could not be parsed.
    #[error("{path}:{line}: {message}")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// The embedder or the vector index failed while building an evaluation corpus.
    #[error("embedding the corpus failed: {0}")]
    Embed(String),
    /// The search engine failed while doing `action`.
    #[error("index {action} failed")]
    Engine {
        /// What was being done (`commit`, `search`, `open reader`, ...).
        action: &'static str,
        /// The engine's error.
        #[source]
        source: tantivy::TantivyError,
    },
}

impl Error {
    /// What the caller should do about it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::SchemaMismatch { .. } | Error::Corrupt { .. } => ErrorKind::NeedsRebuild,
            Error::Locked { .. } | Error::Io { .. } => ErrorKind::Unavailable,
            Error::ChunkMismatch { .. } | Error::BadLine { .. } => ErrorKind::BadInput,
            Error::Engine { .. } => ErrorKind::Internal,
            Error::Embed(..) => ErrorKind::Unavailable,
        }
    }

    pub(crate) fn engine(action: &'static str) -> impl FnOnce(tantivy::TantivyError) -> Error {
        move |source| Error::Engine { action, source }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
