//! Node and edge vocabulary, stable ids.

/// Edge types the extractor writes. Explicit links may use any snake_case type.
pub mod edge {
    /// A markdown link, a wiki link or a frontmatter `links` entry.
    pub const LINKS_TO: &str = "links_to";
    /// An item carries a tag.
    pub const TAGGED: &str = "tagged";
    /// An item names a known entity (person, place, another note's title) or lists it in frontmatter.
    pub const MENTIONS: &str = "mentions";
    /// An item belongs to a project.
    pub const IN_PROJECT: &str = "in_project";
    /// A turn belongs to a session.
    pub const SAME_SESSION: &str = "same_session";
    /// A turn follows the previous turn of its session.
    pub const FOLLOWS: &str = "follows";
    /// A frontmatter `related` entry.
    pub const RELATED: &str = "related";
    /// A contact note describes a person (or a place note a place).
    pub const DESCRIBES: &str = "describes";
    /// A sub-agent's turn was spawned by a session (the turn → the parent's session node).
    pub const SPAWNED_BY: &str = "spawned_by";
}

/// Entity node types (item nodes use the item kind: `file`, `turn`, `fact`, ...).
pub mod node {
    /// A tag of one project.
    pub const TAG: &str = "tag";
    /// A project.
    pub const PROJECT: &str = "project";
    /// A person (frontmatter `people`, contact notes).
    pub const PERSON: &str = "person";
    /// A place (frontmatter `places`/`place`/`location`).
    pub const PLACE: &str = "place";
    /// A linked file or wiki page that is not a stored item.
    pub const LINKED_FILE: &str = "linked_file";
    /// A conversation session.
    pub const SESSION: &str = "session";
}

/// `item:<item id>`.
pub fn item_id(item: &str) -> String {
    format!("item:{item}")
}

/// `<kind>:<project>/<slug>` for project-scoped entities (tags, people, places, linked files).
pub fn entity_id(kind: &str, project: &str, name: &str) -> String {
    format!("{kind}:{project}/{}", slug(name))
}

/// `project:<name>`.
pub fn project_id(project: &str) -> String {
    format!("project:{project}")
}

/// `session:<key>`.
pub fn session_id(key: &str) -> String {
    format!("session:{key}")
}

/// Lowercase, words joined by `-`: `Ana Lima` → `ana-lima`. Keeps any script's letters and digits.
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut dash = false;
    for c in name.trim().chars() {
        if c.is_alphanumeric() || c == '.' || c == '_' || c == '/' {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
    }
    out
}

/// Whether `s` is a valid edge type: snake_case ASCII, 1–40 chars.
pub fn valid_edge_kind(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && s.as_bytes()[0].is_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        for (input, want) in
            [("Ana Lima", "ana-lima"), ("  São  Paulo ", "são-paulo"), ("a/b.md", "a/b.md"), ("x--y", "x-y")]
        {
            assert_eq!(slug(input), want, "{input}");
        }
    }

    #[test]
    fn edge_kinds() {
        assert!(valid_edge_kind("inspired_by"));
        assert!(!valid_edge_kind("Inspired"));
        assert!(!valid_edge_kind("_x"));
        assert!(!valid_edge_kind(""));
        assert!(!valid_edge_kind("a-b"));
    }
}
