//! The public/private boundary audit: may this tree be published?
//!
//! Cairn users keep a private routing config (their real intents, keywords, packs) next to a
//! shareable one. Before a tree goes public, [`Audit::run`] checks that:
//!
//! - every file is **allowlisted** and none is **denylisted**: the denylist is checked first and the
//!   allowlist cannot override it; a file on neither list is a warning, or a violation when strict
//!   (default-closed);
//! - no file holds the **private overlay**'s intent ids, keywords, profile ids, pack ids, owner ids
//!   or lines of pack prose (whole words, above a minimum length: see [`MIN_TERM_CHARS`]), and no
//!   file of the overlay directory is in the tree;
//! - no pack file is marked `scope: private`;
//! - no file holds a **secret** (API keys and tokens, private key blocks) or **contact details**
//!   (e-mail addresses, phone numbers) outside the ranges reserved for examples.
//!
//! The file list is what git tracks (`git ls-files`), or every file when the tree is not a git work
//! tree. The audit reads files and runs `git`; it changes nothing. Formats and rules are documented
//! in `docs/boundary.md`.
//!
//! ```
//! use std::path::Path;
//! use cairn_boundary::{AllowList, Audit, DenyList, Rule};
//!
//! let tree = tempfile::tempdir()?;
//! std::fs::write(tree.path().join("README.md"), "Write to ada@example.com.\n")?;
//! std::fs::write(tree.path().join("notes.txt"), "nothing to see\n")?;
//!
//! let allow = AllowList::parse(Path::new("allow.yaml"), "schema_version: 1\nallow: ['*.md']\n")?;
//! let deny = DenyList::parse(Path::new("deny.yaml"), "schema_version: 1\ndeny: ['**/*.pem']\n")?;
//!
//! // The address is in a reserved example domain; `notes.txt` is on no list: a warning ...
//! let report = Audit::new(allow.clone(), deny.clone()).run(tree.path())?;
//! assert!(report.passed);
//! assert_eq!(report.warnings[0].rule, Rule::Unlisted);
//!
//! // ... and a violation when strict (default-closed).
//! let report = Audit::new(allow, deny).strict(true).run(tree.path())?;
//! assert!(!report.passed);
//! let v = &report.violations[0];
//! assert_eq!((v.path.as_str(), v.line, v.rule), ("notes.txt", None, Rule::Unlisted));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod audit;
mod contacts;
mod error;
mod files;
mod finding;
mod lists;
mod overlay;
mod packs;
mod report;
mod secrets;
mod terms;
mod text;

pub use audit::{Audit, MAX_CONTENT_BYTES};
pub use error::{Error, ErrorKind, Result};
pub use files::Source;
pub use finding::{Finding, Rule};
pub use lists::{AllowList, DenyList};
pub use overlay::Overlay;
pub use report::{Exempted, Report, Skipped};
pub use terms::{MIN_TERM_CHARS, MIN_TEXT_CHARS};
