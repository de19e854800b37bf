//! The crate's one error type.

use std::fmt;
use std::path::PathBuf;

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One problem found while validating a config directory: which file, which field, where.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// The file the problem is in.
    pub file: PathBuf,
    /// The field, as a path such as `rules[dining].entity_boosts[0].summary_pattern`.
    pub field: String,
    /// The 1-based line, when it can be located (best effort for semantic problems).
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": `{}`: {}", self.field, self.message)
    }
}

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The config directory does not exist.
    #[error("config directory `{}` does not exist", path.display())]
    MissingDir {
        /// The directory.
        path: PathBuf,
    },
    /// A config file exists but could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A required config file (`intent_rules`, `consumer_profiles`, `pack_registry`) is absent.
    #[error("missing config file `{}` (also tried `.yml` and `.json`)", path.display())]
    MissingFile {
        /// The path that was looked for (`.yaml` form).
        path: PathBuf,
    },
    /// A file is not valid YAML/JSON or does not fit the schema: a syntax error, an unknown key,
    /// a wrong type or a missing field. The message names the field and the line.
    #[error("`{}`{}: {message}", path.display(), line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The 1-based line, when the parser reported one.
        line: Option<usize>,
        /// The parser's message (it names the field).
        message: String,
    },
    /// The files parse but do not make a usable config: a bad regex, a dangling reference,
    /// a missing pack file, a path escaping the config directory, a bad weight, a wrong
    /// `schema_version`. Every problem found is listed.
    #[error("invalid routing config ({} problem{}):\n{}", issues.len(), if issues.len() == 1 { "" } else { "s" },
        issues.iter().map(|i| format!("  {i}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// The problems, in file order.
        issues: Vec<Issue>,
    },
    /// An eval cases file or an entities file could not be used.
    #[error("`{}`: {message}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The session-state store failed (a daemon's persistence layer, for instance).
    #[error("session state: {message}")]
    State {
        /// What failed.
        message: String,
    },
    /// Detection or composition failed or panicked; the caller gets no pack (P6).
    #[error("routing failed in {stage}: {message}")]
    Internal {
        /// `detection`, `composition` or `render`.
        stage: &'static str,
        /// The error or panic message.
        message: String,
    },
}
