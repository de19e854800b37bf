//! Harvesting memory files into the store: crawl, parse, chunk, tag, write in atomic batches.
//!
//! This module holds the run's parameters ([`HarvestSettings`], [`HarvestRequest`]) and [`harvest`],
//! which puts the steps together: resolve the paths a run is restricted to (`paths`), walk the
//! workspace (`crawl`), read and parse each file (`read`), decide what to delete (`guard`), then write
//! in batches and fill in the [`HarvestReport`] (`report`).

mod crawl;
mod guard;
mod paths;
mod read;
mod report;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use cairn_core::Audience;
use cairn_store::{FileState, Store, Write};
use rayon::prelude::*;
use serde::Serialize;

use crate::frontmatter::Limits;
use crate::{Error, Result, tags};
use crawl::{Candidate, Crawl, Matcher, crawl};
use read::{Parsed, Read, read_one};

pub use cairn_core::{NoProgress, Progress};
pub use paths::{relative, resolve_path};
pub use read::parse_date;
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
    // The vocabulary is fixed before inference so the result does not depend on file order. A public
    // item is tagged only from public items' tags: a private note's tag never reaches a shared audience
    // through a public note it happens to name.
    let mut vocabulary: BTreeSet<String> = store.tag_vocabulary()?.into_iter().map(|(t, _)| t).collect();
    let mut public_vocabulary: BTreeSet<String> =
        store.public_tag_vocabulary()?.into_iter().map(|(t, _)| t).collect();
    for p in &probes {
        let (tags, audience) = match p {
            Probe::Parsed(p) => (&p.explicit_tags, p.item.audience),
            Probe::Changed { explicit_tags, audience } => (explicit_tags, *audience),
            _ => continue,
        };
        vocabulary.extend(tags.iter().cloned());
        if audience == Audience::Public {
            public_vocabulary.extend(tags.iter().cloned());
        }
    }
    let tag_matcher = tags::TagMatcher::new(&vocabulary);
    let public_matcher = tags::TagMatcher::new(&public_vocabulary);
    let finish = |p: Parsed, report: &mut HarvestReport| -> Write {
        let Parsed { mut item, chunks, explicit_tags, file, warnings } = p;
        report.warnings.extend(warnings);
        let matcher = if item.audience == Audience::Public { &public_matcher } else { &tag_matcher };
        let mut all: BTreeSet<String> = explicit_tags.iter().cloned().collect();
        all.extend(matcher.find(&item.title));
        all.extend(matcher.find(&item.text));
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
        other_writes.push(Write::Delete { item_id: f.item_id.clone() });
    }
    let found_none = scopes.is_empty() && candidates.is_empty();
    guard::check_deletions(opts, report.deleted, known.len(), found_none, &root)?;
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
                    Read::Changed(..) => unreachable!("phase 2 parses in full"),
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

#[cfg(all(test, unix))]
mod tests;
