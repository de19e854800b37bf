//! Watching a workspace: debounced file-system events turned into batches of changed paths.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::new_debouncer;

use crate::{Error, Result};

/// Watch `root` recursively and call `on_change` with each debounced batch of changed paths (files or
/// folders that were created, modified, renamed or removed) until `stop` is set.
///
/// Editors that save by writing a temporary file and renaming it over the original show up as a change
/// of the original path; a removed folder shows up as the folder's path. The callback decides what to do
/// (typically a harvest restricted to those paths). Errors from the watcher are passed to `on_error`
/// and watching goes on.
pub fn watch(
    root: &Path,
    debounce: Duration,
    stop: &AtomicBool,
    mut on_change: impl FnMut(Vec<PathBuf>),
    mut on_error: impl FnMut(String),
) -> Result<()> {
    let (tx, rx) = mpsc::channel();
    let mut debouncer = new_debouncer(debounce, None, tx).map_err(|e| Error::Watch(e.to_string()))?;
    debouncer
        .watch(root, RecursiveMode::Recursive)
        .map_err(|e| Error::Watch(format!("{}: {e}", root.display())))?;
    while !stop.load(Ordering::Relaxed) {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Ok(events)) => {
                let mut paths = BTreeSet::new();
                for ev in events {
                    if ev.kind.is_access() {
                        continue;
                    }
                    paths.extend(ev.event.paths.iter().cloned());
                }
                if !paths.is_empty() {
                    on_change(paths.into_iter().collect());
                }
            }
            Ok(Err(errors)) => {
                for e in errors {
                    on_error(e.to_string());
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    Ok(())
}
