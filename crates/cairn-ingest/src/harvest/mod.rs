//! Harvesting memory files into the store: crawl, parse, chunk, tag, write in atomic batches.
//!
//! This module holds the run's parameters ([`HarvestSettings`], [`HarvestRequest`]) and [`harvest`],
//! which puts the steps together: resolve the paths a run is restricted to (`paths`), walk the
//! workspace (`crawl`), read and parse each file (`read`), decide what to delete (`guard`), infer tags
//! against the vocabulary the store will have after the run (`vocab`), then write in batches and fill
//! in the [`HarvestReport`] (`report`).

mod crawl;
mod guard;
mod paths;
mod read;
mod report;
mod vocab;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use cairn_core::Audience;
use cairn_store::{FileState, Store, Write};
use rayon::prelude::*;
use serde::Serialize;

use crate::frontmatter::Limits;
use crate::{Error, Result};
use crawl::{Candidate, Crawl, Matcher, crawl};
use read::{Parsed, Read, read_one};
use vocab::{Matchers, Vocabulary};

pub use cairn_core::{NoProgress, Progress};
pub use paths::{relative, resolve_path};
pub use read::{date_from_path, parse_date};
pub use report::{FileAction, FileEntry, FileProblem, HarvestReport};

/// Options for harvesting: the `[harvest]` section of `cairn.toml`.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HarvestSettings {
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

impl Default for HarvestSettings {
    fn default() -> Self {
        Self {
            include: vec!["MEMORY.md".into(), "USER.md".into(), "memory/**/*.md".into()],
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

impl HarvestSettings {
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

/// Phase 1's verdict on a file: unchanged, unreadable, or changed (kept whole for small runs).
enum Probe {
    Same(FileState),
    Problem(FileProblem),
    Parsed(Box<Parsed>),
    Changed { explicit_tags: Vec<String>, audience: Audience },
}

/// Harvest memory files under `req.root` into `store`.
///
/// Unchanged files (same size and mtime, or same content hash) are skipped; files gone from disk are
/// deleted; problem files are reported and keep whatever version the store had. Writes go in atomic
/// batches, so a run killed half-way leaves a consistent store that the next run completes.
///
/// The same files give the same store whatever the order and batching of the runs that harvested
/// them: tags are inferred against the tag vocabulary the store has after the run, and when a run
/// changes that vocabulary the stored files it does not read again are re-inferred too (`retagged`).
///
/// Harvest never deletes what it could not see: a folder that cannot be read is a problem and the
/// stored files under it are kept, as are those under skipped entries (symlinks, FIFOs, names that are
/// not UTF-8). A run that would delete more than [`HarvestSettings::max_delete_share`] of the store's
/// files, or that finds no memory file at all while the store has some, fails with
/// [`Error::TooManyDeletions`] before writing anything (unless
/// [`HarvestSettings::allow_mass_delete`]).
pub fn harvest(
    store: &mut dyn Store,
    opts: &HarvestSettings,
    req: &HarvestRequest,
    progress: &dyn Progress,
) -> Result<HarvestReport> {
    let started = Instant::now();
    let root = req.root.canonicalize().map_err(|e| Error::Io { path: req.root.clone(), source: e })?;
    let matcher = Matcher::new(opts)?;
    guard::check_share(opts)?;
    let known = store.file_states()?;
    let stored_under = |rel: &str| known.keys().any(|k| paths::under(k, rel));
    let scopes = paths::scopes(&root, opts.cwd.as_deref(), &req.paths, &stored_under)?;
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
                Read::Changed(explicit_tags, audience) => Probe::Changed { explicit_tags, audience },
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
    let mut other_writes: Vec<Write> = Vec::new();
    let mut changed: Vec<&Candidate> = Vec::new();
    let mut parsed: Vec<Box<Parsed>> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    // Items the run replaces or deletes, and the explicit tags and audience of the files it writes.
    let mut replaced: Vec<&str> = Vec::new();
    let mut written: Vec<(Vec<String>, Audience)> = Vec::new();
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
                if let Some(f) = known.get(&c.rel) {
                    replaced.push(&f.item_id);
                }
                match p {
                    Probe::Parsed(p) => {
                        written.push((p.explicit_tags.clone(), p.item.audience));
                        parsed.push(p);
                    }
                    Probe::Changed { explicit_tags, audience } => {
                        written.push((explicit_tags, audience));
                        changed.push(c);
                    }
                    _ => unreachable!("matched above"),
                }
            }
        }
    }
    for (path, f) in &known {
        if seen.contains(path.as_str()) || !paths::in_scope(path, &scopes) {
            continue;
        }
        if guard::hidden(&unseen, path) {
            // Not seen because its folder could not be read or was skipped: not known to be gone.
            report.kept += 1;
            report.files.push(FileEntry { path: path.clone(), action: FileAction::Kept });
            continue;
        }
        report.deleted += 1;
        report.files.push(FileEntry { path: path.clone(), action: FileAction::Deleted });
        replaced.push(&f.item_id);
        other_writes.push(Write::Delete { item_id: f.item_id.clone() });
    }
    let found_none = scopes.is_empty() && candidates.is_empty();
    guard::check_deletions(opts, report.deleted, known.len(), found_none, &root)?;
    report.files.sort();

    // Tags are inferred against the vocabulary the store will have after this run, fixed before any
    // inference so the result depends neither on file order nor on how the files were split into runs
    // (see `vocab`). The stored files this run does not write are brought up to it first.
    let batch = opts.batch_size.max(1);
    let (before, after) = Vocabulary::before_and_after(
        store,
        replaced.iter().copied(),
        written.iter().map(|(t, a)| (t.as_slice(), *a)),
    )?;
    let replaced: BTreeSet<&str> = replaced.into_iter().collect();
    let others = known.values().map(|f| f.item_id.as_str()).filter(|id| !replaced.contains(id));
    report.retagged = vocab::retag(store, others, &after, Some(&before), batch, req.dry_run)?;
    let matchers = Matchers::new(&after);
    let finish = |p: Parsed, report: &mut HarvestReport| -> Write {
        let Parsed { mut item, chunks, explicit_tags, file, warnings } = p;
        report.warnings.extend(warnings);
        let mut all: BTreeSet<String> = explicit_tags.iter().cloned().collect();
        all.extend(matchers.infer(&item));
        item.tags = all.into_iter().collect();
        report.chunks += chunks.len();
        Write::Upsert { item, chunks, explicit_tags, file: Some(file) }
    };
    if req.dry_run {
        for p in parsed {
            report.chunks += p.chunks.len();
            report.warnings.extend(p.warnings);
        }
    } else {
        // Phase 2: parse and write the changed files one batch at a time.
        let mut unwritten: Vec<&str> = Vec::new();
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
            for (c, r) in group.iter().zip(reads) {
                match r {
                    Read::Parsed(p) => writes.push(finish(*p, &mut report)),
                    Read::Changed(..) => unreachable!("phase 2 parses in full"),
                    // Changed again since phase 1: keep the file's state as it is now.
                    Read::Same(f) => {
                        unwritten.extend(known.get(&c.rel).map(|f| f.item_id.as_str()));
                        writes.push(Write::TouchFile(f));
                    }
                    Read::Problem(p) => {
                        unwritten.extend(known.get(&c.rel).map(|f| f.item_id.as_str()));
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
        // A file that changed again or became unreadable between the two reads of a big run keeps its
        // stored version, and may leave another vocabulary than predicted: then every stored file is
        // re-inferred against the real one; else only those kept versions, inferred before this run.
        let now = Vocabulary::of_store(store)?;
        if now != after {
            let files = store.file_states()?;
            let ids = files.values().map(|f| f.item_id.as_str());
            report.retagged += vocab::retag(store, ids, &now, Some(&after), batch, false)?;
        } else if !unwritten.is_empty() {
            report.retagged += vocab::retag(store, unwritten, &now, None, batch, false)?;
        }
    }
    report.seq = store.last_seq()?;
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// Re-infers the tags of every harvested file against the store's tag vocabulary as it is now and
/// writes those whose tags change (`batch_size` per transaction); returns how many. For writes outside
/// a harvest that change the vocabulary (a note ingested with a tag no item had): a harvest keeps the
/// files up to the vocabulary itself.
pub fn retag_files(store: &mut dyn Store, batch_size: usize) -> Result<usize> {
    let now = Vocabulary::of_store(store)?;
    let files = store.file_states()?;
    vocab::retag(store, files.values().map(|f| f.item_id.as_str()), &now, None, batch_size, false)
}

#[cfg(all(test, unix))]
mod tests;
