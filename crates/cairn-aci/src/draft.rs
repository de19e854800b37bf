//! Draft files: a wisdom section or a compact tools file awaiting review. A draft is Markdown with a
//! first-line marker naming its kind, the content to promote, and a trailing comment block (the lessons
//! a wisdom draft covers, or what a tools draft dropped). A reviewer approves a draft by its content
//! hash ([`crate::short_hash`] of the whole file); the review queue lists drafts until promoted.

use std::path::Path;

use crate::lessons::Lesson;
use crate::wisdom::WisdomSection;
use crate::{Error, Result};

/// What a draft replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// SOUL.md's `## Wisdom` section.
    Wisdom,
    /// `TOOLS_COMPACT.md`.
    ToolsCompact,
}

impl Kind {
    /// The name in the marker and the commands (`wisdom`, `tools-compact`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Wisdom => "wisdom",
            Kind::ToolsCompact => "tools-compact",
        }
    }

    /// The workspace file a promotion writes.
    pub fn target(self) -> &'static str {
        match self {
            Kind::Wisdom => "SOUL.md",
            Kind::ToolsCompact => crate::tools::COMPACT_FILE,
        }
    }
}

const MARKER: &str = "<!-- cairn draft: ";
/// Opens the trailing block of a draft.
const TRAILER: &str = "<!-- cairn: ";

/// A draft read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// What it replaces.
    pub kind: Kind,
    /// The content to promote (for a wisdom draft: the section, coverage comments included).
    pub body: String,
    /// The ids of the lessons a wisdom draft lists.
    pub lesson_ids: Vec<String>,
    /// The content hash of the whole file.
    pub hash: String,
}

impl Draft {
    /// Reads a draft file.
    pub fn read(path: &Path) -> Result<Draft> {
        let bytes = std::fs::read(path).map_err(Error::io("read", path))?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|_| Error::BadInput(format!("`{}` is not UTF-8", path.display())))?;
        let first = text.lines().next().unwrap_or_default();
        let kind = match first.strip_prefix(MARKER).and_then(|r| r.split(['.', ' ']).next()) {
            Some("wisdom") => Kind::Wisdom,
            Some("tools-compact") => Kind::ToolsCompact,
            _ => {
                return Err(Error::BadInput(format!(
                    "`{}` is not a Cairn draft (its first line is not `{MARKER}wisdom. ...` or `{MARKER}tools-compact. ...`)",
                    path.display()
                )));
            }
        };
        let rest = &text[first.len()..];
        let (body, trailer) = match rest.find(TRAILER) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let lesson_ids = trailer
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.len() > 1 && w.starts_with('L') && w[1..].chars().all(|c| c.is_ascii_digit()))
            .map(str::to_owned)
            .collect();
        Ok(Draft { kind, body: body.trim().to_owned() + "\n", lesson_ids, hash: crate::short_hash(&bytes) })
    }
}

/// A wisdom draft: the section (entries with the lessons they cover) and the list of lessons. With no
/// entries, it is a worksheet: the lessons grouped by source, and how to write entries.
pub fn render_wisdom(section: &WisdomSection, lessons: &[Lesson], model: Option<&str>) -> String {
    let mut s = String::new();
    let how = match model {
        Some(m) => format!("drafted by `{m}`; each entry names the lessons it covers"),
        None => "a worksheet: under the date line, write 12–15 entries `**<Pattern.>** <wisdom in at most 15 words>`, each followed by a comment `covers: L1, L2, L3` naming at least 3 of the lessons listed below".to_owned(),
    };
    s.push_str(&format!(
        "{MARKER}wisdom. {how}. Review it, run `cairn wisdom check`, then `cairn wisdom promote` with its hash. -->\n\n"
    ));
    s.push_str(&format!("{}\n\n", crate::wisdom::HEADING));
    if let (Some(d), Some(n)) = (section.last_compressed, section.source_lessons) {
        s.push_str(&format!("_Last compressed: {d} | Source lessons: {n}_\n\n"));
    }
    for e in &section.entries {
        s.push_str(&e.line());
        if !e.covers.is_empty() {
            s.push_str(&format!(" <!-- covers: {} -->", e.covers.join(", ")));
        }
        s.push('\n');
    }
    s.push_str(&format!("\n{TRAILER}source lessons\n"));
    let mut group = "";
    for l in lessons {
        if l.group != group {
            group = &l.group;
            s.push_str(&format!("\n{}\n", group.replace("--", "- -")));
        }
        s.push_str(&format!("{} ({}) {}\n", l.id, l.source, l.text.replace("--", "- -")));
    }
    s.push_str("-->\n");
    s
}

/// The review line of a draft in the queue file.
pub fn queue_line(kind: Kind, draft: &Path, hash: &str) -> String {
    format!(
        "- [ ] REVIEW NEEDED: {} draft `{}` (hash `{hash}`): `cairn {} promote {} --approve {hash}`",
        kind.as_str(),
        draft.display(),
        kind.as_str(),
        draft.display()
    )
}

/// The review lines of the queue file at `path` (none when it does not exist).
pub fn pending(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.lines().filter(|l| l.contains("REVIEW NEEDED:")).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Lists `draft` in the queue file (replacing an older line for the same draft file).
pub fn enqueue(queue: &Path, kind: Kind, draft: &Path, hash: &str) -> Result<()> {
    let text = std::fs::read_to_string(queue).unwrap_or_else(|_| "# Daily execution queue\n\n".to_owned());
    let mut out = without(&text, draft);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&queue_line(kind, draft, hash));
    out.push('\n');
    crate::atomic::write(queue, out.as_bytes(), crate::atomic::CrashPoint::Never)
}

/// Takes `draft`'s review line out of the queue file, if there is one.
pub fn dequeue(queue: &Path, draft: &Path) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(queue) else { return Ok(()) };
    let out = without(&text, draft);
    if out != text {
        crate::atomic::write(queue, out.as_bytes(), crate::atomic::CrashPoint::Never)?;
    }
    Ok(())
}

fn without(text: &str, draft: &Path) -> String {
    let needle = format!(" draft `{}` ", draft.display());
    text.split_inclusive('\n').filter(|l| !(l.contains("REVIEW NEEDED:") && l.contains(&needle))).collect()
}
