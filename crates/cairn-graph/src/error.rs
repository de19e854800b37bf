/// Result with the graph's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong in the graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store failed, or a graph row could not be decoded (a damaged graph table).
    #[error("graph store: {0}")]
    Store(#[from] cairn_store::Error),
    /// A node id given by the caller is not in the graph (or not visible to the caller).
    #[error("unknown node `{0}`")]
    UnknownNode(String),
    /// A malformed argument: an edge type that is not snake_case, an empty reason, a bad export file.
    #[error("{0}")]
    BadInput(String),
}
