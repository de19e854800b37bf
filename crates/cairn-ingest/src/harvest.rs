//! Harvesting memory files into the store: crawl, parse, chunk, tag, write in atomic batches.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::{ErrorKind, Read as _};
use std::path::{Component, Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance, content_hash};
use cairn_store::{FileState, Store, Write};
use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use serde::Serialize;

use crate::chunk::chunk_markdown;
use crate::frontmatter::{self, Frontmatter, Limits};
use crate::{Error, Result, tags};

/// Options for harvesting: the `[harvest]` section of `cairn.toml`.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HarvestOptions {
    /// Globs (relative to the workspace root) of files to harvest.
    pub include: Vec<String>,
    /// Globs to leave out.
    pub exclude: Vec<String>,
    /// Globs of files whose items are public (unless their frontmatter says otherwise).
    pub public: Vec<String>,
    /// Project for files whose frontmatter names none.
    pub default_project: String,
    /// Audience for files that neither frontmatter nor `public` globs decide.
    pub default_audience: Audience,
    /// Files larger than this are reported and skipped.
    pub max_file_bytes: u64,
    /// Target maximum chunk size in characters.
    pub chunk_max_chars: usize,
    /// Files per store transaction.
    pub batch_size: usize,
    /// Frontmatter larger than this (bytes between the `---` lines) is ignored with a warning; the
    /// body is still indexed. Checked before any YAML is parsed.
    pub max_frontmatter_bytes: usize,
    /// Frontmatter with more tags than this is ignored with a warning (checked before parsing).
    pub max_tags: usize,
    /// Frontmatter nested deeper than this (lists and mappings) is ignored with a warning (checked
    /// before parsing).
    pub max_frontmatter_depth: usize,
    /// A run that would delete more than this share (0 to 1) of the store's files refuses, as does a
    /// run that finds no memory file while the store has some; nothing is deleted.
    pub max_delete_share: f64,
    /// Skip the [`max_delete_share`](Self::max_delete_share) and empty-workspace checks for this run
    /// (`cairn harvest --allow-mass-delete`). Never read from a config file.
    #[serde(skip)]
    pub allow_mass_delete: bool,
    /// The directory paths were given in (the command line's current directory; never read from a
    /// config file). When set, each request path is tried relative to the workspace and then to this
    /// directory, and a path that names nothing in the workspace is an error (see [`resolve_path`]);
    /// when unset (watch mode), paths are relative to the workspace and may name files already gone.
    #[serde(skip)]
    pub cwd: Option<PathBuf>,
}

impl Default for HarvestOptions {
    fn default() -> Self {
        Self {
            include: vec!["MEMORY.md".into(), "memory/**/*.md".into()],
            exclude: vec![],
            public: vec![],
            default_project: cairn_core::DEFAULT_PROJECT.into(),
            default_audience: Audience::Private,
            max_file_bytes: 4 * 1024 * 1024,
            chunk_max_chars: 2400,
            batch_size: 512,
            max_frontmatter_bytes: 64 * 1024,
            max_tags: 256,
            max_frontmatter_depth: 32,
            max_delete_share: 0.5,
            allow_mass_delete: false,
            cwd: None,
        }
    }
}

impl HarvestOptions {
    /// The frontmatter limits of these options.
    pub fn frontmatter_limits(&self) -> Limits {
        Limits {
            max_bytes: self.max_frontmatter_bytes,
            max_tags: self.max_tags,
            max_depth: self.max_frontmatter_depth,
        }
    }
}

/// One harvest run's parameters.
#[derive(Debug, Clone, Default)]
pub struct HarvestRequest {
    /// Workspace root.
    pub root: PathBuf,
    /// Restrict the run to these files or folders (absolute or relative to the root); empty = everything.
    pub paths: Vec<PathBuf>,
    /// Report what would change without writing.
    pub dry_run: bool,
    /// Re-index every file even when unchanged.
    pub force: bool,
}

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
    /// Chunks written.
    pub chunks: usize,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Problems: one per failed file, and one per folder or file that could not be read.
    pub problems: Vec<FileProblem>,
    /// Entries left out on purpose, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_entries: Vec<FileProblem>,
    /// Files indexed with something ignored (a frontmatter value, frontmatter over a limit), with
    /// the line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<FileProblem>,
    /// Per-file actions, sorted by path (unchanged files left out).
    pub files: Vec<FileEntry>,
    /// Last ingest-log sequence after the run.
    pub seq: u64,
    /// Wall time.
    pub elapsed_ms: u64,
}

pub use cairn_core::{NoProgress, Progress};

struct Matcher {
    include: GlobSet,
    exclude: GlobSet,
    public: GlobSet,
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
    fn new(o: &HarvestOptions) -> Result<Self> {
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

/// `/`-separated path of `p` relative to `root`, if inside it and valid UTF-8 (a name that is not
/// UTF-8 is never converted lossily: two such names could collide).
pub fn relative(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// `p` relative to `root` for messages: `/`-separated, bytes that are not UTF-8 shown as `\xNN`,
/// `.` for the root itself.
fn shown(root: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    let text = escape_os(rel.as_os_str());
    let text =
        if std::path::MAIN_SEPARATOR == '/' { text } else { text.replace(std::path::MAIN_SEPARATOR, "/") };
    if text.is_empty() { ".".to_owned() } else { text }
}

#[cfg(unix)]
fn escape_os(s: &std::ffi::OsStr) -> String {
    use std::fmt::Write as _;
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in s.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

#[cfg(not(unix))]
fn escape_os(s: &std::ffi::OsStr) -> String {
    s.to_string_lossy().into_owned()
}

/// `p` relative to `root`, `/`-separated, converted lossily: only to keep stored files that an older
/// version stored under such a name (never to read or store anything).
fn lossy_rel(root: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// `p` with `.` and `..` resolved lexically (no file-system access).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `p` made absolute through the real file system, except for its last component: the longest
/// existing ancestor is canonicalised (symlinks in it resolved) and the rest appended, so a path that
/// does not exist (a deleted file) or is a symlink still resolves to where it is, not where it points.
fn anchor(p: &Path) -> PathBuf {
    let p = normalize(p);
    let (parent, name) = match (p.parent(), p.file_name()) {
        (Some(parent), Some(name)) => (parent.to_path_buf(), Some(name.to_owned())),
        _ => (p.clone(), None),
    };
    let mut existing = parent.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let mut base = loop {
        if let Ok(c) = existing.canonicalize() {
            break c;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(up), Some(n)) => {
                rest.push(n);
                existing = up;
            }
            _ => break existing.to_path_buf(),
        }
    };
    for n in rest.iter().rev() {
        base.push(n);
    }
    if let Some(name) = name {
        base.push(name);
    }
    base
}

/// Resolve a path given on the command line to a path relative to the workspace `root`: tried
/// relative to the workspace, then to `cwd` (absolute paths as they are), canonicalised. A path that
/// exists must be inside the workspace ([`Error::OutsideWorkspace`] otherwise); one that does not
/// exist is accepted only when `stored` says the store has files under it (they were deleted), so a
/// mistyped path is an error ([`Error::NotInWorkspace`]) instead of a run that does nothing.
pub fn resolve_path(root: &Path, cwd: &Path, arg: &Path, stored: &dyn Fn(&str) -> bool) -> Result<String> {
    let root = root.canonicalize().map_err(|e| Error::Io { path: root.to_owned(), source: e })?;
    let tries: Vec<PathBuf> =
        if arg.is_absolute() { vec![arg.to_owned()] } else { vec![root.join(arg), cwd.join(arg)] };
    let not_in = |reason: String| Error::NotInWorkspace { path: arg.to_owned(), root: root.clone(), reason };
    let mut outside = false;
    for t in &tries {
        if std::fs::symlink_metadata(t).is_err() {
            continue;
        }
        let abs = anchor(t);
        match relative(&root, &abs) {
            Some(rel) => return Ok(rel),
            None if abs.starts_with(&root) => return Err(not_in("its name is not valid UTF-8".into())),
            None => outside = true,
        }
    }
    if outside {
        return Err(Error::OutsideWorkspace { path: arg.to_owned(), root });
    }
    for t in &tries {
        if let Some(rel) = relative(&root, &anchor(t))
            && stored(&rel)
        {
            return Ok(rel);
        }
    }
    let looked = if arg.is_absolute() {
        String::new()
    } else {
        format!(" (looked in the workspace and in the current directory `{}`)", cwd.display())
    };
    Err(not_in(format!("no such file or folder{looked}, and no stored file under it")))
}

struct Candidate {
    rel: String,
    abs: PathBuf,
    size: u64,
    mtime_ns: i64,
    /// Device and inode seen by the crawl: the file read must be the same one (not a symlink or
    /// another file swapped in since).
    id: Option<(u64, u64)>,
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// What a crawl saw.
#[derive(Default)]
struct Crawl {
    candidates: Vec<Candidate>,
    /// Folders and files that could not be read (walk and permission errors).
    problems: Vec<FileProblem>,
    /// Entries left out on purpose.
    skipped: Vec<FileProblem>,
    /// Relative paths whose stored files are kept: harvest never deletes what it could not see.
    unseen: BTreeSet<String>,
}

/// Whether `rel` (a stored file) is at or under one of the paths a crawl could not see.
fn hidden(unseen: &BTreeSet<String>, rel: &str) -> bool {
    if unseen.is_empty() {
        return false;
    }
    unseen.contains("")
        || unseen.contains(rel)
        || rel.match_indices('/').any(|(i, _)| unseen.contains(&rel[..i]))
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

fn crawl(root: &Path, scopes: &[String], m: &Matcher, o: &HarvestOptions) -> Crawl {
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

fn in_scope(rel: &str, scopes: &[String]) -> bool {
    scopes.is_empty() || scopes.iter().any(|s| under(rel, s))
}

/// Whether `rel` is `scope` or inside it (`""` is the whole workspace).
fn under(rel: &str, scope: &str) -> bool {
    scope.is_empty() || rel.strip_prefix(scope).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// A file read and parsed, ready to store.
struct Parsed {
    item: Item,
    chunks: Vec<Chunk>,
    explicit_tags: Vec<String>,
    file: FileState,
    /// Frontmatter values ignored, with lines.
    warnings: Vec<FileProblem>,
}

enum Read {
    Parsed(Box<Parsed>),
    /// Changed, not parsed further (probe pass): its explicit tags.
    Changed(Vec<String>),
    Same(FileState),
    Problem(FileProblem),
}

/// Phase 1's verdict on a file: unchanged, unreadable, or changed (kept whole for small runs).
enum Probe {
    Same(FileState),
    Problem(FileProblem),
    Parsed(Box<Parsed>),
    Changed { explicit_tags: Vec<String> },
}

fn now_ms() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Parse a `date` value: `YYYY-MM-DD`, an RFC 3339 timestamp, or a civil date-time (taken as UTC).
pub fn parse_date(s: &str) -> Option<Millis> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.as_millisecond());
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond());
    }
    let date: jiff::civil::Date = s.get(..10)?.parse().ok()?;
    date.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond())
}

fn title_of(fm: Option<&Frontmatter>, body: &str, rel: &str) -> String {
    if let Some(t) = fm.and_then(|f| f.title.clone()) {
        return t;
    }
    for line in body.lines().take(40) {
        if let Some(h) = line.strip_prefix("# ") {
            let h = h.trim();
            if !h.is_empty() {
                return h.to_owned();
            }
        }
    }
    Path::new(rel).file_stem().map_or_else(|| rel.to_owned(), |s| s.to_string_lossy().into_owned())
}

/// Read, check and parse one file. With `full == false` (the probe pass of a big run) it stops once it
/// knows the file changed and its explicit tags; every problem check comes before that point.
fn read_one(
    c: &Candidate,
    prev: Option<&FileState>,
    o: &HarvestOptions,
    m: &Matcher,
    force: bool,
    full: bool,
) -> Read {
    let problem =
        |line: Option<u32>, reason: String| Read::Problem(FileProblem { path: c.rel.clone(), line, reason });
    if c.size > o.max_file_bytes {
        return problem(None, format!("too large: {} bytes (limit {})", c.size, o.max_file_bytes));
    }
    if let Some(p) = prev
        && !force
        && p.size == c.size
        && p.mtime_ns == c.mtime_ns
    {
        return Read::Same(p.clone());
    }
    let bytes = match read_checked(c, o.max_file_bytes) {
        Ok(b) => b,
        Err(e) => return problem(None, format!("cannot read: {e}")),
    };
    if bytes.len() as u64 > o.max_file_bytes {
        return problem(None, format!("too large: {} bytes (limit {})", bytes.len(), o.max_file_bytes));
    }
    let hash = content_hash(&bytes);
    let file = FileState {
        path: c.rel.clone(),
        item_id: format!("memory-file:{}", c.rel),
        size: bytes.len() as u64,
        mtime_ns: c.mtime_ns,
        content_hash: hash.clone(),
    };
    if let Some(p) = prev
        && !force
        && p.content_hash == hash
    {
        return Read::Same(file);
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return problem(None, "binary file (contains NUL bytes)".into());
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            return problem(Some(line), format!("not valid UTF-8 (bad byte at offset {})", e.valid_up_to()));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return problem(None, "empty file".into());
    }
    let frontmatter::Split { frontmatter: fm, body, body_line: first_line, warnings } =
        match frontmatter::split(text, &o.frontmatter_limits()) {
            Ok(x) => x,
            Err(e) => return problem(Some(e.line), e.reason),
        };
    if body.trim().is_empty() && fm.as_ref().is_none_or(|f| f.title.is_none()) {
        let why: Vec<String> = warnings.iter().map(|w| format!("; line {}: {}", w.line, w.reason)).collect();
        return problem(None, format!("empty file (frontmatter only){}", why.concat()));
    }
    let warnings: Vec<FileProblem> = warnings
        .into_iter()
        .map(|w| FileProblem { path: c.rel.clone(), line: Some(w.line), reason: w.reason })
        .collect();
    let audience = match fm.as_ref().and_then(|f| f.audience.as_deref()) {
        Some(a) => match a.parse::<Audience>() {
            Ok(a) => a,
            Err(e) => return problem(Some(1), format!("frontmatter `audience`: {e}")),
        },
        None if m.public.is_match(&c.rel) => Audience::Public,
        None => o.default_audience,
    };
    let created_at = fm
        .as_ref()
        .and_then(|f| f.date.as_deref())
        .and_then(parse_date)
        .or_else(|| Path::new(&c.rel).file_name().and_then(|n| parse_date(&n.to_string_lossy())))
        .unwrap_or(c.mtime_ns / 1_000_000);
    let title = title_of(fm.as_ref(), body, &c.rel);
    let explicit_tags = tags::normalize_all(fm.as_ref().map(|f| f.tags.iter()).into_iter().flatten());
    if !full {
        return Read::Changed(explicit_tags);
    }
    let project = fm
        .as_ref()
        .and_then(|f| f.project.clone())
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| o.default_project.clone());
    let item_id = file.item_id.clone();
    let sections = chunk_markdown(body, first_line, o.chunk_max_chars);
    let last_line = first_line + body.lines().count().saturating_sub(1) as u32;
    let chunks: Vec<Chunk> = sections
        .into_iter()
        .enumerate()
        .map(|(i, s)| Chunk {
            id: Chunk::make_id(&item_id, i as u32),
            item_id: item_id.clone(),
            ordinal: i as u32,
            heading: s.heading,
            content_hash: content_hash(s.text.as_bytes()),
            text: s.text,
            provenance: Provenance::File {
                path: c.rel.clone(),
                line_start: s.line_start,
                line_end: s.line_end,
            },
        })
        .collect();
    let metadata = fm.as_ref().map(|f| f.rest.clone()).unwrap_or_default();
    let item = Item {
        id: item_id,
        project,
        kind: ItemKind::File,
        title,
        text: body.trim().to_owned(),
        tags: explicit_tags.clone(),
        audience,
        provenance: Provenance::File { path: c.rel.clone(), line_start: 1, line_end: last_line.max(1) },
        content_hash: hash,
        created_at,
        observed_at: now_ms(),
        metadata,
    };
    Read::Parsed(Box::new(Parsed { item, chunks, explicit_tags, file, warnings }))
}

/// Read the file the crawl saw, at most `limit + 1` bytes: it must still be a regular file, and (on
/// Unix) the same one, so a symlink or another file swapped in since the crawl is not read.
fn read_checked(c: &Candidate, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(&c.abs)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("no longer a regular file"));
    }
    if c.id.is_some() && file_id(&meta) != c.id {
        return Err(std::io::Error::other("replaced by another file (or a symlink) during the harvest"));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize + 1);
    f.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Harvest memory files under `req.root` into `store`.
///
/// Unchanged files (same size and mtime, or same content hash) are skipped; files gone from disk are
/// deleted; problem files are reported and keep whatever version the store had. Writes go in atomic
/// batches, so a run killed half-way leaves a consistent store that the next run completes.
///
/// Harvest never deletes what it could not see: a folder that cannot be read is a problem and the
/// stored files under it are kept, as are those under skipped entries (symlinks, FIFOs, names that are
/// not UTF-8). A run that would delete more than [`HarvestOptions::max_delete_share`] of the store's
/// files, or that finds no memory file at all while the store has some, fails with
/// [`Error::TooManyDeletions`] before writing anything (unless
/// [`HarvestOptions::allow_mass_delete`]).
pub fn harvest(
    store: &mut dyn Store,
    opts: &HarvestOptions,
    req: &HarvestRequest,
    progress: &dyn Progress,
) -> Result<HarvestReport> {
    let started = Instant::now();
    let root = req.root.canonicalize().map_err(|e| Error::Io { path: req.root.clone(), source: e })?;
    let matcher = Matcher::new(opts)?;
    if !(0.0..=1.0).contains(&opts.max_delete_share) {
        return Err(Error::Config(format!(
            "`harvest.max_delete_share` must be between 0 and 1, not {}",
            opts.max_delete_share
        )));
    }
    let known = store.file_states()?;
    let stored_under = |rel: &str| known.keys().any(|k| under(k, rel));
    let scopes: Vec<String> = req
        .paths
        .iter()
        .map(|p| {
            if let Some(cwd) = &opts.cwd {
                return resolve_path(&root, cwd, p, &stored_under);
            }
            let abs = anchor(&if p.is_absolute() { p.clone() } else { root.join(p) });
            match relative(&root, &abs) {
                Some(rel) => Ok(rel),
                None if abs.starts_with(&root) => Err(Error::NotInWorkspace {
                    path: p.clone(),
                    root: root.clone(),
                    reason: "its name is not valid UTF-8".into(),
                }),
                None => Err(Error::OutsideWorkspace { path: p.clone(), root: root.clone() }),
            }
        })
        .collect::<Result<_>>()?;
    let Crawl { candidates, problems: crawl_problems, skipped, unseen } =
        crawl(&root, &scopes, &matcher, opts);
    // Phase 1: what changed, and the explicit tags of what changed (the run's tag vocabulary). Big runs
    // keep only the tags here and parse again in phase 2, so memory stays bounded by one batch.
    let keep_parsed = candidates.len() <= opts.batch_size.max(1) || req.dry_run;
    progress.start(candidates.len() as u64);
    let probes: Vec<Probe> = candidates
        .par_iter()
        .map(|c| {
            let r = read_one(c, known.get(&c.rel), opts, &matcher, req.force, keep_parsed);
            progress.inc(1);
            match r {
                Read::Same(f) => Probe::Same(f),
                Read::Problem(p) => Probe::Problem(p),
                Read::Parsed(p) => Probe::Parsed(p),
                Read::Changed(explicit_tags) => Probe::Changed { explicit_tags },
            }
        })
        .collect();
    progress.finish();

    let mut report = HarvestReport { scanned: candidates.len(), dry_run: req.dry_run, ..Default::default() };
    report.problems = crawl_problems;
    report.skipped = skipped.len();
    for s in &skipped {
        report.files.push(FileEntry { path: s.path.clone(), action: FileAction::Skipped });
    }
    report.skipped_entries = skipped;
    // The vocabulary is fixed before inference so the result does not depend on file order.
    let mut vocabulary: BTreeSet<String> = store.tag_vocabulary()?.into_iter().map(|(t, _)| t).collect();
    for p in &probes {
        match p {
            Probe::Parsed(p) => vocabulary.extend(p.explicit_tags.iter().cloned()),
            Probe::Changed { explicit_tags, .. } => vocabulary.extend(explicit_tags.iter().cloned()),
            _ => {}
        }
    }
    let tag_matcher = tags::TagMatcher::new(&vocabulary);
    let finish = |p: Parsed, report: &mut HarvestReport| -> Write {
        let Parsed { mut item, chunks, explicit_tags, file, warnings } = p;
        report.warnings.extend(warnings);
        let mut all: BTreeSet<String> = explicit_tags.iter().cloned().collect();
        all.extend(tag_matcher.find(&item.title));
        all.extend(tag_matcher.find(&item.text));
        item.tags = all.into_iter().collect();
        report.chunks += chunks.len();
        Write::Upsert { item, chunks, explicit_tags, file: Some(file) }
    };

    let mut other_writes: Vec<Write> = Vec::new();
    let mut changed: Vec<&Candidate> = Vec::new();
    let mut parsed: Vec<Box<Parsed>> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (c, p) in candidates.iter().zip(probes) {
        seen.insert(&c.rel);
        match p {
            Probe::Same(f) => {
                report.unchanged += 1;
                if known.get(&c.rel) != Some(&f) {
                    other_writes.push(Write::TouchFile(f));
                }
            }
            Probe::Problem(p) => {
                report.failed += 1;
                report.files.push(FileEntry { path: p.path.clone(), action: FileAction::Failed });
                report.problems.push(p);
            }
            Probe::Parsed(_) | Probe::Changed { .. } => {
                let action = if known.contains_key(&c.rel) { FileAction::Updated } else { FileAction::New };
                match action {
                    FileAction::New => report.new += 1,
                    _ => report.updated += 1,
                }
                report.files.push(FileEntry { path: c.rel.clone(), action });
                match p {
                    Probe::Parsed(p) => parsed.push(p),
                    _ => changed.push(c),
                }
            }
        }
    }
    for (path, f) in &known {
        if seen.contains(path.as_str()) || !in_scope(path, &scopes) {
            continue;
        }
        if hidden(&unseen, path) {
            // Not seen because its folder could not be read or was skipped: not known to be gone.
            report.kept += 1;
            report.files.push(FileEntry { path: path.clone(), action: FileAction::Kept });
            continue;
        }
        report.deleted += 1;
        report.files.push(FileEntry { path: path.clone(), action: FileAction::Deleted });
        other_writes.push(Write::Delete { item_id: f.item_id.clone() });
    }
    if report.deleted > 0 && !opts.allow_mass_delete {
        let (deleting, total) = (report.deleted, known.len());
        let refuse = |reason: String| Error::TooManyDeletions { deleting, total, reason };
        if scopes.is_empty() && candidates.is_empty() {
            return Err(refuse(format!(
                "the workspace `{}` holds no memory file matching `harvest.include` (is it the right folder, \
                 and mounted?)",
                root.display()
            )));
        }
        if deleting as f64 > opts.max_delete_share * total as f64 {
            return Err(refuse(format!(
                "that is {:.0}% of them, more than `harvest.max_delete_share` ({}) allows",
                100.0 * deleting as f64 / total as f64,
                opts.max_delete_share
            )));
        }
    }
    report.files.sort();
    if req.dry_run {
        for p in parsed {
            report.chunks += p.chunks.len();
            report.warnings.extend(p.warnings);
        }
    } else {
        // Phase 2: parse and write the changed files one batch at a time.
        let batch = opts.batch_size.max(1);
        let mut writes: Vec<Write> = parsed.into_iter().map(|p| finish(*p, &mut report)).collect();
        if !changed.is_empty() {
            progress.start(changed.len() as u64);
        }
        for group in changed.chunks(batch) {
            let reads: Vec<Read> = group
                .par_iter()
                .map(|c| {
                    let r = read_one(c, known.get(&c.rel), opts, &matcher, req.force, true);
                    progress.inc(1);
                    r
                })
                .collect();
            for r in reads {
                match r {
                    Read::Parsed(p) => writes.push(finish(*p, &mut report)),
                    Read::Changed(_) => unreachable!("phase 2 parses in full"),
                    // Changed again since phase 1: keep the file's state as it is now.
                    Read::Same(f) => writes.push(Write::TouchFile(f)),
                    Read::Problem(p) => {
                        report.failed += 1;
                        report.problems.push(p);
                    }
                }
            }
            store.apply(&writes, "harvest")?;
            writes.clear();
        }
        progress.finish();
        writes.append(&mut other_writes);
        for group in writes.chunks(batch) {
            store.apply(group, "harvest")?;
        }
    }
    report.seq = store.last_seq()?;
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
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

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_date("2026-03-18.md").map(|d| d > 0), Some(true));
        assert_eq!(parse_date("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_date("1970-01-01T00:00:02"), Some(2000));
        assert_eq!(parse_date("notes.md"), None);
    }
    #[cfg(unix)]
    mod unix {
        use super::*;

        struct Ws {
            tmp: tempfile::TempDir,
            root: PathBuf,
            store: cairn_store::SqliteStore,
        }

        impl Ws {
            fn new() -> Self {
                let tmp = tempfile::tempdir().unwrap();
                let root = tmp.path().join("w");
                std::fs::create_dir_all(root.join("memory")).unwrap();
                let store = cairn_store::SqliteStore::open(&tmp.path().join("s.sqlite")).unwrap();
                Ws { tmp, root, store }
            }

            fn write(&self, rel: &str) {
                let p = self.root.join(rel);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, format!("# {rel}\n\nnotes about {rel}\n")).unwrap();
            }

            fn run(&mut self, opts: &HarvestOptions) -> Result<HarvestReport> {
                let req = HarvestRequest { root: self.root.clone(), ..Default::default() };
                harvest(&mut self.store, opts, &req, &NoProgress)
            }

            fn stored(&self) -> Vec<String> {
                self.store.file_states().unwrap().into_keys().collect()
            }
        }

        fn counts(r: &HarvestReport) -> [usize; 5] {
            [r.new, r.unchanged, r.deleted, r.failed, r.kept]
        }

        #[test]
        fn a_walk_error_keeps_the_stored_files_under_it() {
            // A folder the walk cannot read, made without privileges (root reads a `chmod 000` folder): its
            // path outgrows PATH_MAX once the workspace moves deeper, so reading it fails (ENAMETOOLONG).
            let mut ws = Ws::new();
            let opts = HarvestOptions::default();
            ws.write("memory/a.md");
            let long = "d".repeat(200);
            let deep: String = (0..18).map(|_| format!("{long}/")).collect();
            let deep_file = format!("memory/{deep}n.md");
            assert!(ws.root.join(&deep_file).as_os_str().len() < 4000);
            ws.write(&deep_file);
            assert_eq!(counts(&ws.run(&opts).unwrap()), [2, 0, 0, 0, 0]);

            let moved = ws.tmp.path().join("l".repeat(250)).join("m".repeat(250));
            std::fs::create_dir_all(&moved).unwrap();
            let old_root = std::mem::replace(&mut ws.root, moved.join("w"));
            std::fs::rename(&old_root, &ws.root).unwrap();
            assert!(ws.root.join(&deep_file).as_os_str().len() > 4096);
            let r = ws.run(&opts).unwrap();
            std::fs::rename(&ws.root, &old_root).unwrap();
            assert_eq!(counts(&r), [0, 1, 0, 0, 1], "{r:#?}");
            assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
            let p = &r.problems[0];
            assert!(
                p.path.starts_with(&format!("memory/{long}/")) && deep_file.starts_with(&p.path),
                "{p:?}"
            );
            assert!(p.reason.starts_with("cannot read: ") && p.reason.contains("stored files"), "{p:?}");
            assert_eq!(r.files, [FileEntry { path: deep_file.clone(), action: FileAction::Kept }]);
            assert_eq!(ws.stored().len(), 2);
        }

        #[test]
        fn a_walk_base_behind_a_symlink_loop_is_a_problem_not_an_empty_folder() {
            let mut ws = Ws::new();
            let mut opts = HarvestOptions::default();
            opts.include.push("notes/inner/**/*.md".into());
            ws.write("memory/a.md");
            ws.write("notes/inner/x.md");
            assert_eq!(counts(&ws.run(&opts).unwrap()), [2, 0, 0, 0, 0]);
            std::fs::remove_dir_all(ws.root.join("notes")).unwrap();
            std::os::unix::fs::symlink("notes", ws.root.join("notes")).unwrap();
            let r = ws.run(&opts).unwrap();
            assert_eq!(counts(&r), [0, 1, 0, 0, 1], "{r:#?}");
            assert_eq!(r.problems[0].path, "notes/inner");
            assert!(r.problems[0].reason.contains("symbolic links"), "{:?}", r.problems);
            assert_eq!(ws.stored(), ["memory/a.md", "notes/inner/x.md"]);
        }

        #[test]
        fn skipped_entries_keep_their_stored_files() {
            let mut ws = Ws::new();
            let opts = HarvestOptions::default();
            for f in ["memory/a.md", "memory/b.md", "memory/sub/x.md", "memory/sub/y.md"] {
                ws.write(f);
            }
            assert_eq!(counts(&ws.run(&opts).unwrap()), [4, 0, 0, 0, 0]);
            // A folder replaced by a symlink leading out, a file by a symlink to another note.
            let outside = ws.tmp.path().join("outside");
            std::fs::create_dir(&outside).unwrap();
            std::fs::remove_dir_all(ws.root.join("memory/sub")).unwrap();
            std::os::unix::fs::symlink(&outside, ws.root.join("memory/sub")).unwrap();
            std::fs::remove_file(ws.root.join("memory/b.md")).unwrap();
            std::os::unix::fs::symlink("a.md", ws.root.join("memory/b.md")).unwrap();
            let r = ws.run(&opts).unwrap();
            assert_eq!(counts(&r), [0, 1, 0, 0, 3], "{r:#?}");
            assert_eq!(r.skipped, 2);
            let reason = |p: &str| &r.skipped_entries.iter().find(|s| s.path == p).unwrap().reason;
            assert!(reason("memory/sub").contains("outside the workspace"), "{:?}", r.skipped_entries);
            assert!(
                reason("memory/b.md").contains("`memory/a.md` inside the workspace"),
                "{:?}",
                r.skipped_entries
            );
            assert_eq!(ws.stored().len(), 4);
        }

        #[test]
        fn mass_deletion_is_refused_before_any_write() {
            let mut ws = Ws::new();
            let mut opts = HarvestOptions::default();
            for f in ["memory/a.md", "memory/b.md", "memory/c.md", "memory/d.md"] {
                ws.write(f);
            }
            ws.run(&opts).unwrap();
            for f in ["memory/a.md", "memory/b.md", "memory/c.md"] {
                std::fs::remove_file(ws.root.join(f)).unwrap();
            }
            ws.write("memory/new.md");
            let seq = ws.store.last_seq().unwrap();
            match ws.run(&opts) {
                Err(Error::TooManyDeletions { deleting: 3, total: 4, reason }) => {
                    assert!(reason.contains("75%"), "{reason}");
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(ws.store.last_seq().unwrap(), seq, "nothing written, not even the new file");
            opts.max_delete_share = 1.5;
            assert!(matches!(ws.run(&opts), Err(Error::Config(_))));
            opts.max_delete_share = 0.75;
            assert_eq!(counts(&ws.run(&opts).unwrap()), [1, 1, 3, 0, 0]);

            // No memory file at all: refused whatever the share, unless allowed.
            std::fs::remove_dir_all(ws.root.join("memory")).unwrap();
            opts.max_delete_share = 1.0;
            let err = ws.run(&opts).unwrap_err();
            assert!(err.to_string().contains("holds no memory file"), "{err}");
            opts.allow_mass_delete = true;
            assert_eq!(counts(&ws.run(&opts).unwrap()), [0, 0, 2, 0, 0]);
        }

        #[test]
        fn paths_resolve_against_the_workspace_then_the_current_dir() {
            let ws = Ws::new();
            ws.write("memory/a.md");
            let cwd = ws.tmp.path();
            std::fs::write(cwd.join("outside.md"), "x").unwrap();
            std::os::unix::fs::symlink(cwd.join("outside.md"), ws.root.join("memory/link.md")).unwrap();
            let none = |_: &str| false;
            let resolve =
                |p: &str, stored: &dyn Fn(&str) -> bool| resolve_path(&ws.root, cwd, Path::new(p), stored);
            assert_eq!(resolve("memory/a.md", &none).unwrap(), "memory/a.md");
            assert_eq!(resolve("w/memory/a.md", &none).unwrap(), "memory/a.md");
            assert_eq!(resolve("w/memory/../memory/./a.md", &none).unwrap(), "memory/a.md");
            assert_eq!(resolve(".", &none).unwrap(), "");
            // A symlink names itself, not its target (harvest then reports it as skipped).
            assert_eq!(resolve("memory/link.md", &none).unwrap(), "memory/link.md");
            assert!(matches!(resolve("../outside.md", &none), Err(Error::OutsideWorkspace { .. })));
            assert!(matches!(resolve("outside.md", &none), Err(Error::OutsideWorkspace { .. })));
            // Gone from disk: fine while the store has it, an error otherwise.
            let stored = |rel: &str| rel == "memory/gone.md";
            assert_eq!(resolve("w/memory/gone.md", &stored).unwrap(), "memory/gone.md");
            let err = resolve("memory/typo.md", &none).unwrap_err();
            assert!(matches!(err, Error::NotInWorkspace { .. }), "{err}");
            assert!(
                err.to_string().contains(&ws.root.canonicalize().unwrap().display().to_string()),
                "{err}"
            );
        }
    }
}
