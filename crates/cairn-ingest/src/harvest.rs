//! Harvesting memory files into the store: crawl, parse, chunk, tag, write in atomic batches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance, content_hash};
use cairn_store::{FileState, Store, Write};
use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use serde::Serialize;

use crate::chunk::chunk_markdown;
use crate::frontmatter::{self, Frontmatter};
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
    /// Chunks written.
    pub chunks: usize,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Problems, one per failed file.
    pub problems: Vec<FileProblem>,
    /// Per-file actions, sorted by path (unchanged files left out).
    pub files: Vec<FileEntry>,
    /// Last ingest-log sequence after the run.
    pub seq: u64,
    /// Wall time.
    pub elapsed_ms: u64,
}

/// Progress callbacks (the CLI draws a bar; the library never prints).
pub trait Progress: Sync {
    /// The number of files to look at is known.
    fn start(&self, _total: u64) {}
    /// One more file looked at.
    fn inc(&self, _n: u64) {}
    /// Done.
    fn finish(&self) {}
}

/// A [`Progress`] that does nothing.
#[derive(Debug, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

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

/// `/`-separated path of `p` relative to `root`, if inside it.
pub fn relative(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    Some(parts.join("/"))
}

struct Candidate {
    rel: String,
    abs: PathBuf,
    size: u64,
    mtime_ns: i64,
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

fn crawl(root: &Path, scopes: &[String], m: &Matcher, o: &HarvestOptions) -> Vec<Candidate> {
    let mut bases: BTreeSet<PathBuf> = BTreeSet::new();
    if scopes.is_empty() {
        for g in &o.include {
            bases.insert(root.join(walk_base(g)));
        }
    } else {
        // A restricted run (watch mode, `cairn harvest PATH`) walks only what it was given.
        bases.extend(scopes.iter().map(|s| root.join(s)));
    }
    let mut seen = BTreeMap::new();
    for base in bases {
        if !base.exists() {
            continue;
        }
        let walker =
            ignore::WalkBuilder::new(&base).standard_filters(false).hidden(true).follow_links(false).build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Some(rel) = relative(root, entry.path()) else { continue };
            if !m.wants(&rel) || !in_scope(&rel, scopes) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            seen.entry(rel.clone()).or_insert(Candidate {
                rel,
                abs: entry.path().to_owned(),
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
            });
        }
    }
    seen.into_values().collect()
}

fn in_scope(rel: &str, scopes: &[String]) -> bool {
    scopes.is_empty() || scopes.iter().any(|s| s.is_empty() || rel == s || rel.starts_with(&format!("{s}/")))
}

/// A file read and parsed, ready to store.
struct Parsed {
    item: Item,
    chunks: Vec<Chunk>,
    explicit_tags: Vec<String>,
    file: FileState,
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
    let bytes = match std::fs::read(&c.abs) {
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
    let (fm, body, first_line) = match frontmatter::split(text) {
        Ok(x) => x,
        Err(e) => return problem(Some(e.line), e.reason),
    };
    if body.trim().is_empty() && fm.as_ref().is_none_or(|f| f.title.is_none()) {
        return problem(None, "empty file (frontmatter only)".into());
    }
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
    Read::Parsed(Box::new(Parsed { item, chunks, explicit_tags, file }))
}

/// Harvest memory files under `req.root` into `store`.
///
/// Unchanged files (same size and mtime, or same content hash) are skipped; files gone from disk are
/// deleted; problem files are reported and keep whatever version the store had. Writes go in atomic
/// batches, so a run killed half-way leaves a consistent store that the next run completes.
pub fn harvest(
    store: &mut dyn Store,
    opts: &HarvestOptions,
    req: &HarvestRequest,
    progress: &dyn Progress,
) -> Result<HarvestReport> {
    let started = Instant::now();
    let root = req.root.canonicalize().map_err(|e| Error::Io { path: req.root.clone(), source: e })?;
    let matcher = Matcher::new(opts)?;
    let scopes: Vec<String> = req
        .paths
        .iter()
        .map(|p| {
            let abs = if p.is_absolute() { p.clone() } else { root.join(p) };
            let abs = abs.canonicalize().unwrap_or(abs);
            relative(&root, &abs)
                .ok_or_else(|| Error::OutsideWorkspace { path: p.clone(), root: root.clone() })
        })
        .collect::<Result<_>>()?;
    let known = store.file_states()?;
    let candidates = crawl(&root, &scopes, &matcher, opts);
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
        let Parsed { mut item, chunks, explicit_tags, file } = p;
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
        if !seen.contains(path.as_str()) && in_scope(path, &scopes) {
            report.deleted += 1;
            report.files.push(FileEntry { path: path.clone(), action: FileAction::Deleted });
            other_writes.push(Write::Delete { item_id: f.item_id.clone() });
        }
    }
    report.files.sort();
    if req.dry_run {
        for p in parsed {
            report.chunks += p.chunks.len();
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
}
