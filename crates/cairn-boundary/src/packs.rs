//! Pack files marked private: a `*.pack.yaml` (`.yml`, `.json`) whose top-level `scope` is
//! `private` holds someone's own instructions, whatever the overlay says, so it has no place in a
//! public tree unless the allowlist exempts it as a synthetic example.

use crate::finding::{Hit, Rule};

/// Whether `path` names a pack file.
pub(crate) fn is_pack_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    [".pack.yaml", ".pack.yml", ".pack.json"].iter().any(|ext| name.ends_with(ext))
}

/// A top-level `scope: private` key of a YAML line (JSON: `"scope": "private"` at any depth of
/// indentation, since a JSON pack has no other `scope`).
fn private_scope_line(line: &str, json: bool) -> bool {
    let l = if json { line.trim_start() } else { line };
    let Some(rest) = l.strip_prefix("scope").or_else(|| l.strip_prefix("\"scope\"")) else { return false };
    let Some(value) = rest.trim_start().strip_prefix(':') else { return false };
    let value = value.split('#').next().unwrap_or_default();
    let value = value.trim().trim_end_matches(',').trim().trim_matches(['"', '\'']);
    value == "private"
}

/// The `private-pack` hit of a pack file, if it is marked private.
pub(crate) fn scan(path: &str, text: &str, hits: &mut Vec<Hit>) {
    if !is_pack_file(path) {
        return;
    }
    let json = path.ends_with(".json");
    if let Some(n) = text.lines().position(|l| private_scope_line(l, json)) {
        hits.push(Hit::new(n + 1, Rule::PrivatePack, "pack file marked `scope: private`".into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(path: &str, text: &str) -> Vec<usize> {
        let mut hits = Vec::new();
        scan(path, text, &mut hits);
        hits.into_iter().map(|h| h.line).collect()
    }

    #[test]
    fn a_pack_marked_private_is_found_at_its_scope_line() {
        let cases: &[(&str, &str, &[usize])] = &[
            ("packs/a.pack.yaml", "name: a\nscope: private\n", &[2]),
            ("a.pack.yml", "name: a\nscope: 'private'   # mine\n", &[2]),
            ("a.pack.yaml", "scope: \"private\"\n", &[1]),
            ("a.pack.json", "{\n  \"name\": \"a\",\n  \"scope\": \"private\"\n}\n", &[3]),
            ("a.pack.yaml", "name: a\nscope: public\n", &[]),
            ("a.pack.yaml", "steps:\n  - id: x\n    scope: private\n", &[]),
            ("a.pack.yaml", "name: a\n", &[]),
            ("a.pack.yaml", "scoped: private\n", &[]),
            ("pack_registry.yaml", "packs:\nscope: private\n", &[]),
            ("notes.md", "scope: private\n", &[]),
        ];
        for (path, text, expect) in cases {
            assert_eq!(lines(path, text), *expect, "{path}: {text:?}");
        }
    }
}
