//! What a harvest run reports: the counts, the per-file actions ([`FileAction`], [`FileEntry`]) and the
//! files or folders it could not read, left out on purpose or read with warnings ([`FileProblem`]).
//! They are the run's output (printed, or serialised as JSON), kept apart from the code that fills them
//! in.

use serde::Serialize;

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// Stored for the first time.
    New,
    /// Content changed and was re-indexed.
    Updated,
    /// Same content as stored.
    Unchanged,
    /// Gone from disk; removed from the store.
    Deleted,
    /// Could not be harvested (see the problem list); any earlier version is kept.
    Failed,
    /// Found but left out on purpose (see the skipped list): not a regular file, a symlink, a name
    /// that is not UTF-8. Any stored version is kept.
    Skipped,
    /// In the store, not seen on disk because its folder could not be read or was skipped: kept.
    Kept,
}

/// One file's line in a report.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FileEntry {
    /// Path relative to the root.
    pub path: String,
    /// What happened.
    pub action: FileAction,
}

/// A file that could not be harvested, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileProblem {
    /// Path relative to the root.
    pub path: String,
    /// Line in the file, when the problem has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for FileProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.path, self.reason),
            None => write!(f, "{}: {}", self.path, self.reason),
        }
    }
}

/// The outcome of a harvest run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HarvestReport {
    /// Files matched by the include globs.
    pub scanned: usize,
    /// New files stored.
    pub new: usize,
    /// Changed files re-indexed.
    pub updated: usize,
    /// Unchanged files skipped.
    pub unchanged: usize,
    /// Files removed from the store.
    pub deleted: usize,
    /// Files that could not be harvested.
    pub failed: usize,
    /// Entries left out on purpose (FIFOs, symlinks, names that are not UTF-8).
    pub skipped: usize,
    /// Stored files not deleted because the path they are under could not be read or was skipped.
    pub kept: usize,
    /// Stored files this run did not re-read whose inferred tags changed because the tag vocabulary did
    /// (a tag now explicit somewhere, or no longer): written again with their new tags.
    pub retagged: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Problems: one per failed file, and one per folder or file that could not be read.
    pub problems: Vec<FileProblem>,
    /// Entries left out on purpose, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_entries: Vec<FileProblem>,
    /// Files indexed with something ignored or guessed (a frontmatter value, frontmatter over a limit or
    /// never closed, text that is not UTF-8 and was decoded), with the line when there is one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<FileProblem>,
    /// Per-file actions, sorted by path (unchanged files left out).
    pub files: Vec<FileEntry>,
    /// Last ingest-log sequence after the run.
    pub seq: u64,
    /// Wall time.
    pub elapsed_ms: u64,
}
