//! Which files make up the tree: the ones git tracks, or every file when the tree is not a git work
//! tree.
//!
//! git is asked through its own binary (`git ls-files -z`): what it tracks is what gets published,
//! and the binary is already on every machine that has a repository. A missing `git` binary counts
//! as "not a repository".

use std::path::Path;
use std::process::Command;

use serde::Serialize;

use crate::error::{Error, Result};

/// Where the list of files came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// `git ls-files`: the tracked files under the root.
    Git,
    /// A walk of every file under the root (`.git` directories skipped): it is not a git work tree.
    Walk,
}

impl Source {
    /// How reports name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Git => "git ls-files",
            Source::Walk => "every file: not a git work tree",
        }
    }
}

/// The files under `root`, relative to it, `/`-separated, sorted.
pub(crate) fn list(root: &Path) -> Result<(Source, Vec<String>)> {
    if !root.is_dir() {
        return Err(Error::NotADirectory { path: root.to_owned() });
    }
    if !inside_work_tree(root) {
        let mut out = Vec::new();
        walk(root, "", &mut out)?;
        out.sort();
        return Ok((Source::Walk, out));
    }
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z", "--cached"])
        .output()
        .map_err(|e| Error::Git { root: root.to_owned(), message: e.to_string() })?;
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Err(Error::Git { root: root.to_owned(), message });
    }
    let mut out: Vec<String> = output
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    out.sort();
    out.dedup();
    Ok((Source::Git, out))
}

fn inside_work_tree(root: &Path) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == b"true")
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<()> {
    let io = |source| Error::Io { path: dir.to_owned(), source };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        let kind = entry.file_type().map_err(io)?;
        if kind.is_dir() {
            if name != ".git" {
                walk(&entry.path(), &rel, out)?;
            }
        } else {
            // Files and symlinks (not followed: a link is listed as itself).
            out.push(rel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_directory_is_walked_without_its_git_folder() {
        let tmp = tempfile::tempdir().unwrap();
        for f in ["b.md", "a/c.txt", "a/d/e.rs", ".hidden", ".git/config"] {
            let p = tmp.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        // A `.git` folder that git does not recognise: still not a work tree, and not listed.
        let (source, files) = list(tmp.path()).unwrap();
        assert_eq!(source, Source::Walk);
        assert_eq!(files, [".hidden", "a/c.txt", "a/d/e.rs", "b.md"]);
    }

    #[test]
    fn a_file_is_not_a_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("f");
        std::fs::write(&f, "").unwrap();
        assert!(matches!(list(&f), Err(Error::NotADirectory { .. })));
        assert!(matches!(list(&tmp.path().join("missing")), Err(Error::NotADirectory { .. })));
    }
}
