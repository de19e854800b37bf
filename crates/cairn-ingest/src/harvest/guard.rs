//! The deletion guard: what a harvest run may delete from the store. It never deletes what it could
//! not see (stored files under a folder it could not read or an entry it skipped are kept), and it
//! refuses, before writing anything, a run that would delete too much of the store
//! (`harvest.max_delete_share`) or that finds no memory file at all while the store has some. These
//! are the checks that keep an unmounted or mistyped workspace from emptying the store.

use std::collections::BTreeSet;
use std::path::Path;

use super::HarvestSettings;
use crate::{Error, Result};

/// Whether `rel` (a stored file) is at or under one of the paths a crawl could not see.
pub(super) fn hidden(unseen: &BTreeSet<String>, rel: &str) -> bool {
    if unseen.is_empty() {
        return false;
    }
    unseen.contains("")
        || unseen.contains(rel)
        || rel.match_indices('/').any(|(i, _)| unseen.contains(&rel[..i]))
}

/// Checks that `harvest.max_delete_share` is a share (0 to 1).
pub(super) fn check_share(opts: &HarvestSettings) -> Result<()> {
    if !(0.0..=1.0).contains(&opts.max_delete_share) {
        return Err(Error::Config(format!(
            "`harvest.max_delete_share` must be between 0 and 1, not {}",
            opts.max_delete_share
        )));
    }
    Ok(())
}

/// Refuses a run that would delete `deleting` of the `total` stored files when that is more than
/// `harvest.max_delete_share` allows, or when the whole workspace (`root`) held no memory file
/// (`found_none`), unless [`HarvestSettings::allow_mass_delete`].
pub(super) fn check_deletions(
    opts: &HarvestSettings,
    deleting: usize,
    total: usize,
    found_none: bool,
    root: &Path,
) -> Result<()> {
    if deleting == 0 || opts.allow_mass_delete {
        return Ok(());
    }
    let refuse = |reason: String| Error::TooManyDeletions { deleting, total, reason };
    if found_none {
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
    Ok(())
}
