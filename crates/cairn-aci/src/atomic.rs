//! Replacing a file so that a reader (or a crash) sees the old content or the new, never a mix: write a
//! temporary file beside it, fsync it, rename it over the file, fsync the folder.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Prefix of the temporary files; hidden, and removed by [`clean`] when a crash left one behind.
pub const TEMP_PREFIX: &str = ".cairn-tmp-";

/// Where a test may stop the process: between the fsynced temporary file and the rename.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CrashPoint {
    /// Never (every real run).
    #[default]
    Never,
    /// Abort after the temporary file is written and synced, before the rename.
    BeforeRename,
}

/// Writes `bytes` to `path` atomically (see the module docs).
pub fn write(path: &Path, bytes: &[u8], crash: CrashPoint) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let tmp: PathBuf = dir.join(format!("{TEMP_PREFIX}{name}-{}-{nanos}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(Error::io("write", &tmp))?;
        f.write_all(bytes).map_err(Error::io("write", &tmp))?;
        f.sync_all().map_err(Error::io("sync", &tmp))?;
        if crash == CrashPoint::BeforeRename {
            std::process::abort();
        }
        std::fs::rename(&tmp, path).map_err(Error::io("replace", path))?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes temporary files a crash left in `dir`; returns how many.
pub fn clean(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("SOUL.md");
        std::fs::write(&p, "old").unwrap();
        super::write(&p, b"new", super::CrashPoint::Never).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
