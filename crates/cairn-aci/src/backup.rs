//! Workspace backups: a snapshot of the files Cairn may change, with a manifest of their SHA-256
//! hashes and the bootstrap mode, under `<data dir>/aci/backups/<id>/`. The freshness gate: a change
//! to a workspace file goes ahead only when a backup taken within the configured window holds that
//! file's current content (the same hash, or absent in both), so the change can always be undone.
//! Rollback restores a backup, verifying every copy first and writing each file atomically.
//!
//! The bootstrap mode lives beside the backups: a marker file `<data dir>/aci/bulk` switches the
//! tiered bootstrap off, and the engine then hands the host's file list back unchanged.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic::{self, CrashPoint};
use crate::{Error, Result, sha256_hex};

/// The marker that switches the tiered bootstrap off.
pub fn bulk_marker(data_dir: &Path) -> PathBuf {
    data_dir.join("aci").join("bulk")
}

/// Whether the tiered bootstrap is off (bulk injection: the host's list is used unchanged).
pub fn is_bulk(data_dir: &Path) -> bool {
    bulk_marker(data_dir).exists()
}

/// Switches the tiered bootstrap on or off.
pub fn set_tiered(data_dir: &Path, tiered: bool) -> Result<()> {
    let marker = bulk_marker(data_dir);
    if tiered {
        match std::fs::remove_file(&marker) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io("remove", &marker)(e)),
            _ => Ok(()),
        }
    } else {
        atomic::write(
            &marker,
            b"The tiered bootstrap is off: the host's bootstrap files are injected unchanged.\n\
              `cairn workspace tiered on` removes this file.\n",
            CrashPoint::Never,
        )
    }
}

/// One file in a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Workspace-relative path.
    pub path: String,
    /// SHA-256 of its content; none: the file did not exist.
    pub sha256: Option<String>,
    /// Its size.
    pub bytes: u64,
}

/// A backup's manifest (`manifest.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The backup's id (`20261124T203000Z`, a suffix when two fall in one second).
    pub id: String,
    /// When it was taken, ms since the epoch.
    pub created_ms: i64,
    /// The workspace it was taken of.
    pub workspace: PathBuf,
    /// Whether the tiered bootstrap was on.
    pub tiered: bool,
    /// The files.
    pub files: Vec<FileEntry>,
}

fn root(data_dir: &Path) -> PathBuf {
    data_dir.join("aci").join("backups")
}

/// Takes a backup of `files` (workspace-relative) of `workspace`.
pub fn create(data_dir: &Path, workspace: &Path, files: &[String], now_ms: i64) -> Result<Manifest> {
    let root = root(data_dir);
    std::fs::create_dir_all(&root).map_err(Error::io("create", &root))?;
    let stamp = jiff::Timestamp::from_millisecond(now_ms)
        .map_err(|e| Error::BadInput(e.to_string()))?
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    let mut id = stamp.clone();
    let mut n = 1;
    while root.join(&id).exists() {
        n += 1;
        id = format!("{stamp}-{n}");
    }
    let tmp = root.join(format!(".{id}.partial"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("files")).map_err(Error::io("create", &tmp))?;
    let mut entries = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for rel in files {
        if !seen.insert(rel.clone()) {
            continue;
        }
        check_relative(rel)?;
        let path = workspace.join(rel);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let copy = tmp.join("files").join(rel);
                atomic::write(&copy, &bytes, CrashPoint::Never)?;
                entries.push(FileEntry {
                    path: rel.clone(),
                    sha256: Some(sha256_hex(&bytes)),
                    bytes: bytes.len() as u64,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                entries.push(FileEntry { path: rel.clone(), sha256: None, bytes: 0 });
            }
            Err(e) => return Err(Error::io("read", path)(e)),
        }
    }
    let manifest = Manifest {
        id: id.clone(),
        created_ms: now_ms,
        workspace: workspace.to_path_buf(),
        tiered: !is_bulk(data_dir),
        files: entries,
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::BadInput(e.to_string()))?;
    atomic::write(&tmp.join("manifest.json"), &json, CrashPoint::Never)?;
    let dest = root.join(&id);
    std::fs::rename(&tmp, &dest).map_err(Error::io("create", &dest))?;
    Ok(manifest)
}

fn check_relative(rel: &str) -> Result<()> {
    let p = Path::new(rel);
    if p.is_absolute() || p.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
        return Err(Error::BadInput(format!("`{rel}` is not a path inside the workspace")));
    }
    Ok(())
}

/// Every backup, oldest first.
pub fn list(data_dir: &Path) -> Result<Vec<Manifest>> {
    let root = root(data_dir);
    let Ok(entries) = std::fs::read_dir(&root) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path().join("manifest.json");
        let Ok(text) = std::fs::read(&path) else { continue };
        let m: Manifest = serde_json::from_slice(&text)
            .map_err(|e| Error::DamagedBackup { id: name.clone(), why: format!("manifest: {e}") })?;
        out.push(m);
    }
    out.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
    Ok(out)
}

/// The current hash of a workspace file (none: absent).
fn current(workspace: &Path, rel: &str) -> Result<Option<String>> {
    let path = workspace.join(rel);
    match std::fs::read(&path) {
        Ok(b) => Ok(Some(sha256_hex(&b))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", path)(e)),
    }
}

/// The hard gate: a backup of `workspace` taken within `max_age_hours` (0: any age) that holds the
/// current content of every file in `files`. Returns its id.
pub fn require_fresh(
    data_dir: &Path,
    workspace: &Path,
    files: &[&str],
    max_age_hours: u64,
    now_ms: i64,
) -> Result<String> {
    let backups = list(data_dir)?;
    let first = files.first().copied().unwrap_or_default().to_owned();
    if backups.is_empty() {
        return Err(Error::NoFreshBackup {
            file: first,
            why: "there is no backup; take one with `cairn workspace backup`".into(),
        });
    }
    let max_ms = i64::try_from(max_age_hours.saturating_mul(3_600_000)).unwrap_or(i64::MAX);
    let mut why = String::new();
    let mut file = first;
    for m in backups.iter().rev() {
        if max_age_hours > 0 && now_ms - m.created_ms > max_ms {
            if why.is_empty() {
                why = format!("the newest backup (`{}`) is older than {max_age_hours} hours", m.id);
            }
            continue;
        }
        let mut stale = None;
        for rel in files {
            let held = m.files.iter().find(|f| f.path == *rel);
            let now = current(workspace, rel)?;
            match held {
                Some(f) if f.sha256 == now => {}
                Some(_) => stale = Some((*rel, "it changed since")),
                None => stale = Some((*rel, "it is not in it")),
            }
            if stale.is_some() {
                break;
            }
        }
        match stale {
            None => return Ok(m.id.clone()),
            Some((rel, how)) => {
                if why.is_empty() {
                    file = rel.to_owned();
                    why = format!(
                        "{how} the newest backup (`{}`); take one with `cairn workspace backup`",
                        m.id
                    );
                }
            }
        }
    }
    Err(Error::NoFreshBackup { file, why })
}

/// What a rollback did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rollback {
    /// The backup restored.
    pub id: String,
    /// A backup of the state before the rollback (to undo it).
    pub before: String,
    /// Files written back.
    pub restored: Vec<String>,
    /// Files removed (absent when the backup was taken).
    pub removed: Vec<String>,
    /// Whether the tiered bootstrap is on afterwards.
    pub tiered: bool,
}

/// Restores backup `to` (default: the newest) into its workspace: every copy verified against the
/// manifest before anything is written, the current state backed up first, then each file replaced
/// atomically (or removed when it did not exist). `bulk` switches the tiered bootstrap off; otherwise
/// the mode recorded in the backup is restored.
pub fn rollback(
    data_dir: &Path,
    workspace: &Path,
    to: Option<&str>,
    bulk: bool,
    now_ms: i64,
) -> Result<Rollback> {
    let backups = list(data_dir)?;
    let m = match to {
        Some(id) => backups
            .iter()
            .find(|m| m.id == id)
            .ok_or_else(|| Error::NotFound(format!("no backup `{id}` (see `cairn workspace backups`)")))?,
        None => backups.last().ok_or_else(|| Error::NotFound("there is no backup to roll back to".into()))?,
    }
    .clone();
    let dir = root(data_dir).join(&m.id).join("files");
    let mut contents = Vec::new();
    for f in &m.files {
        check_relative(&f.path)?;
        let Some(want) = &f.sha256 else {
            contents.push((f.path.clone(), None));
            continue;
        };
        let bytes = std::fs::read(dir.join(&f.path))
            .map_err(|e| Error::DamagedBackup { id: m.id.clone(), why: format!("`{}`: {e}", f.path) })?;
        if sha256_hex(&bytes) != *want {
            return Err(Error::DamagedBackup {
                id: m.id.clone(),
                why: format!("`{}` does not match its hash", f.path),
            });
        }
        contents.push((f.path.clone(), Some(bytes)));
    }
    let paths: Vec<String> = m.files.iter().map(|f| f.path.clone()).collect();
    let before = create(data_dir, workspace, &paths, now_ms)?;
    let mut restored = Vec::new();
    let mut removed = Vec::new();
    for (rel, bytes) in contents {
        let path = workspace.join(&rel);
        match bytes {
            Some(b) => {
                if std::fs::read(&path).ok().as_deref() != Some(&b[..]) {
                    atomic::write(&path, &b, CrashPoint::Never)?;
                    restored.push(rel);
                }
            }
            None => {
                if path.exists() {
                    std::fs::remove_file(&path).map_err(Error::io("remove", &path))?;
                    removed.push(rel);
                }
            }
        }
    }
    let tiered = if bulk { false } else { m.tiered };
    set_tiered(data_dir, tiered)?;
    Ok(Rollback { id: m.id, before: before.id, restored, removed, tiered })
}

/// Checks every copy of a backup against its manifest; the problems found.
pub fn verify(data_dir: &Path, m: &Manifest) -> Vec<String> {
    let dir = root(data_dir).join(&m.id).join("files");
    m.files
        .iter()
        .filter_map(|f| {
            let want = f.sha256.as_ref()?;
            match std::fs::read(dir.join(&f.path)) {
                Ok(b) if sha256_hex(&b) == *want => None,
                Ok(_) => Some(format!("`{}` does not match its hash", f.path)),
                Err(e) => Some(format!("`{}`: {e}", f.path)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3_600_000;

    #[test]
    fn a_backup_is_fresh_only_while_it_holds_the_current_content_and_is_young_enough() {
        let dir = tempfile::tempdir().unwrap();
        let (ws, data) = (dir.path().join("ws"), dir.path().join("data"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("SOUL.md"), "calm").unwrap();
        let files = ["SOUL.md".to_owned(), "TOOLS_COMPACT.md".to_owned()];
        let t0 = 1_790_000_000_000;
        let fresh = |now: i64, file: &str| require_fresh(&data, &ws, &[file], 24, now);
        assert!(matches!(fresh(t0, "SOUL.md"), Err(Error::NoFreshBackup { .. })), "no backup at all");
        let id = create(&data, &ws, &files, t0).unwrap().id;
        assert_eq!(fresh(t0 + HOUR, "SOUL.md").unwrap(), id);
        assert_eq!(fresh(t0 + HOUR, "TOOLS_COMPACT.md").unwrap(), id, "absent then, absent now");
        let err = fresh(t0 + 25 * HOUR, "SOUL.md").unwrap_err().to_string();
        assert!(err.contains("older than 24 hours"), "{err}");
        assert!(require_fresh(&data, &ws, &["SOUL.md"], 0, t0 + 100 * HOUR).is_ok(), "0: any age");
        std::fs::write(ws.join("SOUL.md"), "changed").unwrap();
        let err = fresh(t0 + HOUR, "SOUL.md").unwrap_err().to_string();
        assert!(err.contains("changed since"), "{err}");
        std::fs::write(ws.join("TOOLS_COMPACT.md"), "new").unwrap();
        assert!(fresh(t0 + HOUR, "TOOLS_COMPACT.md").is_err(), "present now, absent then");
        // An older backup that holds the current content still counts.
        let second = create(&data, &ws, &files, t0 + HOUR).unwrap().id;
        assert_ne!(second, id);
        std::fs::write(ws.join("SOUL.md"), "calm").unwrap();
        assert_eq!(fresh(t0 + 2 * HOUR, "SOUL.md").unwrap(), id);
    }

    #[test]
    fn rollback_refuses_a_damaged_backup_before_writing_anything() {
        let dir = tempfile::tempdir().unwrap();
        let (ws, data) = (dir.path().join("ws"), dir.path().join("data"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("SOUL.md"), "calm").unwrap();
        std::fs::write(ws.join("USER.md"), "mara").unwrap();
        let files = ["SOUL.md".to_owned(), "USER.md".to_owned()];
        let m = create(&data, &ws, &files, 1_790_000_000_000).unwrap();
        std::fs::write(ws.join("SOUL.md"), "changed").unwrap();
        std::fs::write(ws.join("USER.md"), "changed").unwrap();
        std::fs::write(root(&data).join(&m.id).join("files/USER.md"), "tampered").unwrap();
        let err = rollback(&data, &ws, None, false, 1_790_000_100_000).unwrap_err().to_string();
        assert!(err.contains("`USER.md` does not match its hash"), "{err}");
        assert_eq!(std::fs::read_to_string(ws.join("SOUL.md")).unwrap(), "changed", "nothing written");
        assert_eq!(list(&data).unwrap().len(), 1, "no backup taken either");
    }
}
