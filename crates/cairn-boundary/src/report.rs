//! The outcome of an audit: violations, warnings, what the allowlist exempted, and what could not be
//! read. Nothing the audit saw is left out.

use std::path::PathBuf;

use serde::Serialize;

use crate::files::Source;
use crate::finding::Finding;

/// The outcome of [`crate::Audit::run`].
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The audited tree, as given.
    pub root: PathBuf,
    /// Where the file list came from.
    pub source: Source,
    /// Whether unlisted files were violations.
    pub strict: bool,
    /// How many files the tree holds.
    pub files: usize,
    /// How many of them had their content checked.
    pub content_checked: usize,
    /// `true` when there is no violation.
    pub passed: bool,
    /// What fails the audit, sorted by path, line and rule.
    pub violations: Vec<Finding>,
    /// What would fail it under `--strict` (unlisted files).
    pub warnings: Vec<Finding>,
    /// Content findings the allowlist's `exempt` entries cover, with their reason.
    pub exempted: Vec<Exempted>,
    /// Files whose content was not checked, and why (their path was).
    pub skipped: Vec<Skipped>,
}

/// A finding an allowlist exemption covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Exempted {
    /// The finding.
    #[serde(flatten)]
    pub finding: Finding,
    /// The exemption's `reason`.
    pub reason: String,
}

/// A file whose content was not checked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Skipped {
    /// The file, relative to the root.
    pub path: String,
    /// Why (binary, a symbolic link, not on disk, too large, unreadable).
    pub reason: String,
}
