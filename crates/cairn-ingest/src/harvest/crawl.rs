//! The crawl: walking the workspace for the files the include/exclude globs select. It follows no
//! symlink, and it never drops an entry silently: a folder or file it cannot read (walk errors,
//! permissions, symlink loops) is a problem, and an entry it leaves out on purpose (a symlink, a FIFO or
//! other special file, a name that is not UTF-8) is reported as skipped. Either way the paths are
//! recorded as unseen, so the stored files under them are kept rather than deleted.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::HarvestSettings;
use super::paths::{in_scope, lossy_rel, normalize, relative, shown};
use super::report::FileProblem;
use crate::{Error, Result};

/// The options' globs, compiled: which files a run harvests, and which of them are public.
pub(super) struct Matcher {
    include: GlobSet,
    exclude: GlobSet,
    pub(super) public: GlobSet,
}

fn globset(patterns: &[String], what: &str) -> Result<GlobSet> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let glob = Glob::new(p).map_err(|e| Error::Config(format!("bad {what} glob `{p}`: {e}")))?;
        b.add(glob);
    }
    b.build().map_err(|e| Error::Config(format!("bad {what} globs: {e}")))
}

impl Matcher {
    pub(super) fn new(o: &HarvestSettings) -> Result<Self> {
        Ok(Self {
            include: globset(&o.include, "include")?,
            exclude: globset(&o.exclude, "exclude")?,
            public: globset(&o.public, "public")?,
        })
    }

    fn wants(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }
}

/// The literal folder prefix of a glob: where a walk for it must start.
fn walk_base(glob: &str) -> &str {
    let meta = glob.find(['*', '?', '[', '{']).unwrap_or(glob.len());
    match glob[..meta].rfind('/') {
        Some(i) => &glob[..i],
        None if meta == glob.len() => glob,
        None => "",
    }
}

/// A file the crawl found, with what it saw of it.
pub(super) struct Candidate {
    pub(super) rel: String,
    pub(super) abs: PathBuf,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    /// Device and inode seen by the crawl: the file read must be the same one (not a symlink or
    /// another file swapped in since).
    pub(super) id: Option<(u64, u64)>,
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

#[cfg(unix)]
pub(super) fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
pub(super) fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// What a crawl saw.
#[derive(Default)]
pub(super) struct Crawl {
    /// The files to harvest, sorted by path.
    pub(super) candidates: Vec<Candidate>,
    /// Folders and files that could not be read (walk and permission errors).
    pub(super) problems: Vec<FileProblem>,
    /// Entries left out on purpose.
    pub(super) skipped: Vec<FileProblem>,
    /// Relative paths whose stored files are kept: harvest never deletes what it could not see.
    pub(super) unseen: BTreeSet<String>,
}

struct Crawler<'a> {
    root: &'a Path,
    scopes: &'a [String],
    m: &'a Matcher,
    out: Crawl,
    seen: BTreeMap<String, Candidate>,
    reported: HashSet<String>,
    /// Folders whose names are not UTF-8 (reported once; what is under them is not listed again).
    bad_dirs: HashSet<PathBuf>,
}

impl Crawler<'_> {
    fn cannot_read(&mut self, path: &Path, reason: &str) {
        let shown = shown(self.root, path);
        if self.reported.insert(shown.clone()) {
            self.out.problems.push(FileProblem {
                path: shown,
                line: None,
                reason: format!("cannot read: {reason}; stored files under this path are kept"),
            });
        }
        self.out.unseen.insert(relative(self.root, path).unwrap_or_else(|| lossy_rel(self.root, path)));
    }

    /// Report `path` as skipped (once, by its exact name) and keep the stored files under `key`.
    fn skip(&mut self, key: String, path: &Path, reason: String) {
        let shown = shown(self.root, path);
        if self.reported.insert(shown.clone()) {
            self.out.skipped.push(FileProblem { path: shown, line: None, reason });
        }
        self.out.unseen.insert(key);
    }

    fn visit(
        &mut self,
        path: &Path,
        ft: std::fs::FileType,
        meta: impl FnOnce() -> std::io::Result<std::fs::Metadata>,
    ) {
        let Some(rel) = relative(self.root, path) else {
            // A name that is not UTF-8 (the walk stays inside the root).
            let lossy = lossy_rel(self.root, path);
            let under_bad = path.parent().is_some_and(|p| self.bad_dirs.contains(p));
            if ft.is_dir() {
                self.bad_dirs.insert(path.to_owned());
            }
            if under_bad {
                return;
            }
            if ft.is_dir() {
                self.skip(
                    lossy,
                    path,
                    "folder name is not valid UTF-8: nothing in it is harvested (rename it)".into(),
                );
            } else if self.m.wants(&lossy) {
                self.skip(lossy, path, "file name is not valid UTF-8: not harvested (rename it)".into());
            }
            return;
        };
        if ft.is_dir() || !in_scope(&rel, self.scopes) {
            return;
        }
        if ft.is_file() {
            if !self.m.wants(&rel) || self.seen.contains_key(&rel) {
                return;
            }
            match meta() {
                Ok(meta) => {
                    let c = Candidate {
                        abs: path.to_owned(),
                        size: meta.len(),
                        mtime_ns: mtime_ns(&meta),
                        id: file_id(&meta),
                        rel: rel.clone(),
                    };
                    self.seen.insert(rel, c);
                }
                Err(e) => self.cannot_read(path, &e.to_string()),
            }
        } else if ft.is_symlink() {
            if self.m.exclude.is_match(&rel) {
                return;
            }
            let (reason, may_hold_files) = symlink_reason(self.root, path);
            if may_hold_files || self.m.wants(&rel) {
                self.skip(rel, path, reason);
            }
        } else if self.m.wants(&rel) {
            self.skip(rel, path, format!("not a regular file ({}): not harvested", special_kind(ft)));
        }
    }
}

#[cfg(unix)]
fn special_kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: std::fs::FileType) -> &'static str {
    "a special file"
}

/// Why a symlink is skipped, and whether it may stand for a folder of notes (a folder, or a target
/// that cannot be resolved), so that it is reported even when its own name matches no include glob.
fn symlink_reason(root: &Path, link: &Path) -> (String, bool) {
    let target = std::fs::read_link(link).map_or_else(|_| "?".to_owned(), |t| t.display().to_string());
    match link.canonicalize() {
        Ok(t) => {
            let dir = t.is_dir();
            let reason = match relative(root, &t) {
                Some(rel) => format!(
                    "symlink to `{}` inside the workspace: not followed (harvest reads the target under its own path)",
                    if rel.is_empty() { "." } else { &rel }
                ),
                None => format!("symlink to `{}`, outside the workspace: not followed", t.display()),
            };
            (reason, dir)
        }
        Err(e) if symlink_loops(link) => (format!("symlink loop (`{target}`): not followed ({e})"), true),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            (format!("broken symlink to `{target}`: not followed"), true)
        }
        Err(e) => (format!("symlink to `{target}` cannot be resolved ({e}): not followed"), true),
    }
}

/// Whether following `link` comes back to a link already passed (checked by hand, so it does not
/// depend on the platform's error codes).
fn symlink_loops(link: &Path) -> bool {
    let mut seen = HashSet::new();
    let mut cur = normalize(link);
    for _ in 0..64 {
        if !seen.insert(cur.clone()) {
            return true;
        }
        match std::fs::read_link(&cur) {
            Ok(t) => cur = normalize(&cur.parent().map_or_else(|| t.clone(), |p| p.join(&t))),
            Err(_) => return false,
        }
    }
    true
}

/// The path a walk error is about, and what went wrong.
fn walk_error(err: &ignore::Error) -> (Option<&Path>, String) {
    match err {
        ignore::Error::WithPath { path, err } => (Some(path), walk_error(err).1),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => walk_error(err),
        ignore::Error::Loop { ancestor, child } => {
            (Some(child), format!("symlink loop back to `{}`", ancestor.display()))
        }
        ignore::Error::Io(e) => (None, e.to_string()),
        ignore::Error::Partial(errs) if !errs.is_empty() => walk_error(&errs[0]),
        other => (None, other.to_string()),
    }
}

/// Walk the workspace `root` (only `scopes`, when given) for the files `m` wants, without following
/// symlinks; what cannot be read or is left out on purpose is reported, never silently dropped.
pub(super) fn crawl(root: &Path, scopes: &[String], m: &Matcher, o: &HarvestSettings) -> Crawl {
    let mut bases: BTreeSet<PathBuf> = BTreeSet::new();
    if scopes.is_empty() {
        for g in &o.include {
            bases.insert(root.join(walk_base(g)));
        }
    } else {
        // A restricted run (watch mode, `cairn harvest PATH`) walks only what it was given.
        bases.extend(scopes.iter().map(|s| root.join(s)));
    }
    let mut c = Crawler {
        root,
        scopes,
        m,
        out: Crawl::default(),
        seen: BTreeMap::new(),
        reported: HashSet::new(),
        bad_dirs: HashSet::new(),
    };
    for base in bases {
        // The base is looked at without following a symlink: a symlinked base is skipped like any
        // other symlink, and a base that cannot be looked at is a problem, not an empty folder.
        match std::fs::symlink_metadata(&base) {
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => continue,
            Err(e) => {
                c.cannot_read(&base, &e.to_string());
                continue;
            }
            Ok(meta) if meta.file_type().is_symlink() => {
                let ft = meta.file_type();
                c.visit(&base, ft, || Ok(meta));
                continue;
            }
            Ok(_) => {}
        }
        let walker =
            ignore::WalkBuilder::new(&base).standard_filters(false).hidden(true).follow_links(false).build();
        for result in walker {
            match result {
                Ok(entry) => {
                    let Some(mut ft) = entry.file_type() else { continue };
                    if entry.path_is_symlink() {
                        // The walk follows its starting path: a base swapped for a symlink since it was
                        // looked at is still treated as the symlink it is.
                        match std::fs::symlink_metadata(entry.path()) {
                            Ok(m) => ft = m.file_type(),
                            Err(e) => {
                                c.cannot_read(entry.path(), &e.to_string());
                                continue;
                            }
                        }
                    }
                    c.visit(entry.path(), ft, || entry.metadata().map_err(std::io::Error::other));
                }
                Err(err) => {
                    let (path, reason) = walk_error(&err);
                    let path = path.map_or_else(|| base.clone(), Path::to_path_buf);
                    c.cannot_read(&path, &reason);
                }
            }
        }
    }
    let mut out = c.out;
    out.candidates = c.seen.into_values().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_bases() {
        assert_eq!(walk_base("memory/**/*.md"), "memory");
        assert_eq!(walk_base("MEMORY.md"), "MEMORY.md");
        assert_eq!(walk_base("*.md"), "");
        assert_eq!(walk_base("a/b/c*.md"), "a/b");
    }
}
