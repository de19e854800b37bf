//! Workspace paths: the `/`-separated relative names harvest stores files under, how paths are shown
//! in messages (bytes that are not UTF-8 escaped, never converted lossily), and how the paths a run is
//! restricted to (`cairn harvest PATH`, watch events) are resolved to scopes inside the workspace
//! without following a symlink they name.

use std::path::{Component, Path, PathBuf};

use crate::{Error, Result};

/// `/`-separated path of `p` relative to `root`, if inside it and valid UTF-8 (a name that is not
/// UTF-8 is never converted lossily: two such names could collide).
pub fn relative(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// `p` relative to `root` for messages: `/`-separated, bytes that are not UTF-8 shown as `\xNN`,
/// `.` for the root itself.
pub(super) fn shown(root: &Path, p: &Path) -> String {
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
pub(super) fn lossy_rel(root: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// `p` with `.` and `..` resolved lexically (no file-system access).
pub(super) fn normalize(p: &Path) -> PathBuf {
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
pub(super) fn anchor(p: &Path) -> PathBuf {
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

/// The scopes (paths relative to `root`) a run is restricted to, from the paths it was given. With a
/// `cwd` (the command line) each path is resolved by [`resolve_path`]; without one (watch mode) a
/// path is taken relative to the workspace as it is and may name a file already gone.
pub(super) fn scopes(
    root: &Path,
    cwd: Option<&Path>,
    paths: &[PathBuf],
    stored: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>> {
    paths
        .iter()
        .map(|p| {
            if let Some(cwd) = cwd {
                return resolve_path(root, cwd, p, stored);
            }
            let abs = anchor(&if p.is_absolute() { p.clone() } else { root.join(p) });
            match relative(root, &abs) {
                Some(rel) => Ok(rel),
                None if abs.starts_with(root) => Err(Error::NotInWorkspace {
                    path: p.clone(),
                    root: root.to_owned(),
                    reason: "its name is not valid UTF-8".into(),
                }),
                None => Err(Error::OutsideWorkspace { path: p.clone(), root: root.to_owned() }),
            }
        })
        .collect()
}

/// Whether `rel` is inside one of `scopes` (no scope is the whole workspace).
pub(super) fn in_scope(rel: &str, scopes: &[String]) -> bool {
    scopes.is_empty() || scopes.iter().any(|s| under(rel, s))
}

/// Whether `rel` is `scope` or inside it (`""` is the whole workspace).
pub(super) fn under(rel: &str, scope: &str) -> bool {
    scope.is_empty() || rel.strip_prefix(scope).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}
