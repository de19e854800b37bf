//! The allowlist and the denylist: YAML files of path globs, compiled once.
//!
//! ```yaml
//! # allow.yaml
//! schema_version: 1
//! allow:                 # paths that may be published (globs, relative to the audited root)
//!   - README.md
//!   - crates/**
//!   - docs/              # a trailing `/` means everything under it
//! exempt:                # content rules some allowed files may trip, with the reason
//!   - paths: [examples/config/packs/*.pack.yaml]
//!     rules: [private-pack]
//!     reason: synthetic example packs that show `scope: private`
//! terms: [thread]        # private-overlay terms too common to flag
//!
//! # deny.yaml
//! schema_version: 1
//! deny:                  # never published, whatever the allowlist says
//!   - "**/*.pem"
//! ```
//!
//! Globs follow `globset` with `literal_separator`: `*` stays within one path segment, `**` crosses
//! them, so `*.md` is a top-level file and `**/*.md` any markdown file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::finding::Rule;
use crate::text::fold;

/// `allow.yaml`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowFile {
    schema_version: u32,
    allow: Vec<String>,
    #[serde(default)]
    exempt: Vec<ExemptDef>,
    #[serde(default)]
    terms: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExemptDef {
    paths: Vec<String>,
    rules: Vec<Rule>,
    reason: String,
}

/// `deny.yaml`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DenyFile {
    schema_version: u32,
    deny: Vec<String>,
}

/// The paths that may be published, the content rules some of them may trip, and the private
/// overlay terms that are too common to flag.
#[derive(Debug, Clone)]
pub struct AllowList {
    globs: GlobSet,
    exemptions: Vec<Exemption>,
    terms: BTreeSet<String>,
}

#[derive(Debug, Clone)]
struct Exemption {
    globs: GlobSet,
    rules: Vec<Rule>,
    reason: String,
}

/// The paths that are never published, whatever the allowlist says.
#[derive(Debug, Clone)]
pub struct DenyList {
    globs: GlobSet,
    patterns: Vec<String>,
}

/// A path's standing under the two lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathVerdict {
    /// Matches this denylist pattern.
    Denied(String),
    Allowed,
    /// On neither list.
    Unlisted,
}

impl AllowList {
    /// Reads and compiles an allowlist file.
    pub fn load(path: impl AsRef<Path>) -> Result<AllowList> {
        let path = path.as_ref();
        AllowList::parse(path, &read(path)?)
    }

    /// Compiles an allowlist from its text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<AllowList> {
        let file: AllowFile = parse_yaml(path, text)?;
        check_version(path, text, file.schema_version)?;
        let globs = compile(path, text, "allow", &file.allow)?;
        let mut exemptions = Vec::with_capacity(file.exempt.len());
        for (i, e) in file.exempt.iter().enumerate() {
            if let Some(rule) = e.rules.iter().find(|r| r.is_path_rule()) {
                return Err(Error::Parse {
                    path: path.to_owned(),
                    line: locate_entry(text, "exempt", rule.as_str()),
                    message: format!(
                        "exempt[{i}].rules: `{rule}` is about a path, not content: allow the path, or take it off the denylist"
                    ),
                });
            }
            if e.rules.is_empty() || e.paths.is_empty() || e.reason.trim().is_empty() {
                return Err(Error::Parse {
                    path: path.to_owned(),
                    line: nth_item(text, "exempt", i),
                    message: format!("exempt[{i}] needs `paths`, `rules` and a `reason`, none of them empty"),
                });
            }
            exemptions.push(Exemption {
                globs: compile(path, text, "paths", &e.paths)?,
                rules: e.rules.clone(),
                reason: e.reason.trim().to_owned(),
            });
        }
        let terms = file.terms.iter().map(|t| fold(t)).filter(|t| !t.is_empty()).collect();
        Ok(AllowList { globs, exemptions, terms })
    }

    /// Whether `path` (relative, `/`-separated) is on the allowlist.
    pub fn allows(&self, path: &str) -> bool {
        self.globs.is_match(path)
    }

    /// The reason `rule` is exempted for `path`, if an `exempt` entry covers it.
    pub fn exemption(&self, path: &str, rule: Rule) -> Option<&str> {
        self.exemptions
            .iter()
            .find(|e| e.rules.contains(&rule) && e.globs.is_match(path))
            .map(|e| e.reason.as_str())
    }

    /// Overlay terms allowed in public files, folded.
    pub(crate) fn terms(&self) -> &BTreeSet<String> {
        &self.terms
    }
}

impl DenyList {
    /// Reads and compiles a denylist file.
    pub fn load(path: impl AsRef<Path>) -> Result<DenyList> {
        let path = path.as_ref();
        DenyList::parse(path, &read(path)?)
    }

    /// Compiles a denylist from its text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<DenyList> {
        let file: DenyFile = parse_yaml(path, text)?;
        check_version(path, text, file.schema_version)?;
        Ok(DenyList { globs: compile(path, text, "deny", &file.deny)?, patterns: file.deny })
    }

    /// The first denylist pattern `path` matches, as written.
    pub fn denies(&self, path: &str) -> Option<&str> {
        self.globs.matches(path).first().map(|&i| self.patterns[i].as_str())
    }
}

/// The denylist first, then the allowlist; on neither is unlisted (default-closed).
pub(crate) fn verdict(allow: &AllowList, deny: &DenyList, path: &str) -> PathVerdict {
    if let Some(pattern) = deny.denies(path) {
        PathVerdict::Denied(pattern.to_owned())
    } else if allow.allows(path) {
        PathVerdict::Allowed
    } else {
        PathVerdict::Unlisted
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_owned(), source })
}

fn parse_yaml<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T> {
    serde_yaml_ng::from_str(text).map_err(|e| Error::Parse {
        path: path.to_owned(),
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })
}

fn check_version(path: &Path, text: &str, version: u32) -> Result<()> {
    if version == 1 {
        return Ok(());
    }
    Err(Error::Parse {
        path: path.to_owned(),
        line: locate(text, "schema_version"),
        message: format!("unsupported schema_version {version} (expected 1)"),
    })
}

/// The 1-based line of the first occurrence of `needle`.
fn locate(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// The 1-based line of a list entry: the first line from the `section:` key on that holds it (an
/// empty entry: a quoted empty string). Best effort: the parser gives no positions for values.
fn locate_entry(text: &str, section: &str, entry: &str) -> Option<usize> {
    let key = format!("{section}:");
    let from = text.lines().position(|l| l.contains(&key)).unwrap_or(0);
    let entry = entry.trim();
    let holds =
        |l: &str| if entry.is_empty() { l.contains("''") || l.contains("\"\"") } else { l.contains(entry) };
    text.lines().enumerate().skip(from).find(|(_, l)| holds(l)).map(|(i, _)| i + 1)
}

/// The 1-based line of the `n`-th (0-based) `- ` item after the `section:` key.
fn nth_item(text: &str, section: &str, n: usize) -> Option<usize> {
    let key = format!("{section}:");
    let from = text.lines().position(|l| l.trim_start().starts_with(&key))?;
    let mut items = text.lines().enumerate().skip(from + 1).filter(|(_, l)| l.trim_start().starts_with("- "));
    items.nth(n).map(|(i, _)| i + 1)
}

/// `./a`, `/a` → `a`; `dir/` → `dir/**`.
fn normalise(pattern: &str) -> String {
    let p = pattern.trim();
    let p = p.strip_prefix("./").unwrap_or(p);
    let p = p.trim_start_matches('/');
    if p.ends_with('/') { format!("{p}**") } else { p.to_owned() }
}

fn compile(path: &Path, text: &str, section: &str, patterns: &[String]) -> Result<GlobSet> {
    let bad = |pattern: &str, message: String| Error::Parse {
        path: PathBuf::from(path),
        line: locate_entry(text, section, pattern),
        message: format!("pattern `{pattern}`: {message}"),
    };
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let p = normalise(pattern);
        if p.is_empty() {
            return Err(bad(pattern, "empty pattern".into()));
        }
        let glob = GlobBuilder::new(&p)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| bad(pattern, e.kind().to_string()))?;
        set.add(glob);
    }
    set.build().map_err(|e| Error::Parse { path: path.to_owned(), line: None, message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(text: &str) -> AllowList {
        AllowList::parse(Path::new("allow.yaml"), text).unwrap()
    }

    fn deny(text: &str) -> DenyList {
        DenyList::parse(Path::new("deny.yaml"), text).unwrap()
    }

    #[test]
    fn the_denylist_is_checked_first_and_nothing_is_allowed_by_default() {
        let a = allow("schema_version: 1\nallow: ['config/**', 'README.md', 'docs/', '*.toml']\n");
        let d = deny("schema_version: 1\ndeny: ['config/private/**', '**/*.pem']\n");
        let check = |path: &str, expect: PathVerdict| assert_eq!(verdict(&a, &d, path), expect, "{path}");
        let denied = |p: &str| PathVerdict::Denied(p.to_owned());
        check("config/example.yaml", PathVerdict::Allowed);
        check("config/private/rules.yaml", denied("config/private/**"));
        check("config/keys/server.pem", denied("**/*.pem"));
        check("server.pem", denied("**/*.pem"));
        check("README.md", PathVerdict::Allowed);
        check("docs/README.md", PathVerdict::Allowed);
        check("docs/a/b/c.md", PathVerdict::Allowed);
        check("docs", PathVerdict::Unlisted);
        check("Cargo.toml", PathVerdict::Allowed);
        check("crates/a/Cargo.toml", PathVerdict::Unlisted);
        check("notes.txt", PathVerdict::Unlisted);
        check("sub/README.md", PathVerdict::Unlisted);
    }

    #[test]
    fn an_empty_allowlist_allows_nothing() {
        let a = allow("schema_version: 1\nallow: []\n");
        let d = deny("schema_version: 1\ndeny: []\n");
        for path in ["README.md", "a/b.rs", ".gitignore"] {
            assert_eq!(verdict(&a, &d, path), PathVerdict::Unlisted);
        }
    }

    #[test]
    fn exemptions_cover_their_paths_and_rules_only() {
        let a = allow(
            "schema_version: 1\nallow: ['**']\nexempt:\n  - paths: ['examples/**/*.pack.yaml']\n    rules: [private-pack, email]\n    reason: synthetic\n",
        );
        assert_eq!(a.exemption("examples/config/packs/a.pack.yaml", Rule::PrivatePack), Some("synthetic"));
        assert_eq!(a.exemption("examples/config/packs/a.pack.yaml", Rule::Email), Some("synthetic"));
        assert_eq!(a.exemption("examples/config/packs/a.pack.yaml", Rule::Secret), None);
        assert_eq!(a.exemption("config/a.pack.yaml", Rule::PrivatePack), None);
    }

    #[test]
    fn allowed_terms_are_folded() {
        let a = allow("schema_version: 1\nallow: []\nterms: ['Thread', '  Book  A Table ']\n");
        assert!(a.terms().contains("thread") && a.terms().contains("book a table"));
    }

    /// (file text, expected line, a fragment of the message)
    #[test]
    fn bad_files_name_the_line() {
        let cases: &[(&str, Option<usize>, &str)] = &[
            ("schema_version: 1\nallow:\n  - a\n  alow: b\n", Some(4), ""),
            ("schema_version: 1\nallow: ['a']\nextra: 1\n", Some(3), "unknown field `extra`"),
            ("schema_version: 2\nallow: []\n", Some(1), "unsupported schema_version 2"),
            ("schema_version: 1\nallow:\n  - 'docs/**'\n  - 'src/[a'\n", Some(4), "pattern `src/[a`"),
            ("schema_version: 1\nallow: ['']\n", Some(2), "empty pattern"),
            (
                "schema_version: 1\n# docs/ and src/\nallow:\n  - docs/\n  - src/[\n",
                Some(5),
                "pattern `src/[`",
            ),
            (
                "schema_version: 1\nallow: []\nexempt:\n  - paths: [a]\n    rules: [secrets]\n    reason: r\n",
                Some(5),
                "unknown variant `secrets`",
            ),
            (
                "schema_version: 1\nallow: []\nexempt:\n  - paths: [a]\n    rules: [denied]\n    reason: r\n",
                Some(5),
                "is about a path",
            ),
            (
                "schema_version: 1\nallow: []\nexempt:\n  - paths: [a]\n    rules: [email]\n    reason: ok\n  - paths: [a]\n    rules: [email]\n    reason: ' '\n",
                Some(7),
                "needs `paths`, `rules` and a `reason`",
            ),
        ];
        for (text, line, fragment) in cases {
            match AllowList::parse(Path::new("allow.yaml"), text) {
                Err(Error::Parse { path, line: got, message }) => {
                    assert_eq!(path, Path::new("allow.yaml"));
                    assert_eq!(got, *line, "{text:?}: {message}");
                    assert!(message.contains(fragment), "{text:?}: {message}");
                }
                other => panic!("{text:?}: expected a parse error, got {other:?}"),
            }
        }
        let err = DenyList::parse(Path::new("deny.yaml"), "schema_version: 1\nallow: []\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `allow`"), "{err}");
    }
}
