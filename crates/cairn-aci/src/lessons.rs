//! Gathering operational lessons: AGENTS.md's lessons section, the lessons file, MEMORY.md's lessons
//! and decisions, and the lessons of recent daily notes. A missing source is a warning, never a
//! failure: fewer sources make a thinner draft, not no draft.

use std::path::Path;

use serde::Serialize;

use crate::markdown::{list_item, sections};
use crate::wisdom::WisdomSection;
use crate::{Date, WisdomSettings};

/// One lesson: a list item of a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lesson {
    /// `L1`, `L2`, ... in the order gathered; drafts name lessons by it.
    pub id: String,
    /// The workspace-relative file and line (`AGENTS.md:14`).
    pub source: String,
    /// The group it was found in (`AGENTS.md: Operational Lessons`).
    pub group: String,
    /// The text, continuation lines joined.
    pub text: String,
}

/// What one source gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceReport {
    /// Workspace-relative path.
    pub path: String,
    /// Lessons taken from it.
    pub lessons: usize,
    /// Why it gave none, when it gave none (missing file, no such section).
    pub warning: Option<String>,
}

/// The lessons of a workspace, where they came from, and whether a compression is due.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Collection {
    /// Every lesson, duplicates (same text, any case and spacing) dropped.
    pub lessons: Vec<Lesson>,
    /// One report per source looked at.
    pub sources: Vec<SourceReport>,
    /// The date on SOUL.md's wisdom section, if any.
    pub last_compressed: Option<Date>,
    /// The number of source lessons it was compressed from.
    pub last_source_lessons: Option<usize>,
    /// Lessons beyond that number.
    pub new_lessons: usize,
    /// Whether the cadence (a month, or enough new lessons) calls for a run.
    pub due: bool,
    /// Why it is or is not due.
    pub due_reason: String,
}

/// Gathers the lessons of `workspace` as of `today`.
pub fn collect(workspace: &Path, settings: &WisdomSettings, today: Date) -> Collection {
    let mut raw: Vec<(String, String, String)> = Vec::new();
    let mut sources = Vec::new();
    let from_sections = |rel: &str, prefixes: &[String], raw: &mut Vec<(String, String, String)>| {
        let path = workspace.join(rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return SourceReport { path: rel.to_owned(), lessons: 0, warning: Some("missing".into()) };
        };
        let lines: Vec<&str> = text.lines().collect();
        let before = raw.len();
        let mut found = false;
        for prefix in prefixes {
            for (h, range) in sections(&lines, prefix) {
                found = true;
                items(&lines, range, rel, &format!("{rel}: {}", h.text), raw);
            }
        }
        let n = raw.len() - before;
        let warning = if !found {
            Some(format!(
                "no section headed {}",
                prefixes.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(" or ")
            ))
        } else if n == 0 {
            Some("no list items in its lesson sections".into())
        } else {
            None
        };
        SourceReport { path: rel.to_owned(), lessons: n, warning }
    };
    sources.push(from_sections("AGENTS.md", std::slice::from_ref(&settings.agents_section), &mut raw));
    // The lessons file is read whole.
    let rel = settings.lessons_file.as_str();
    match std::fs::read_to_string(workspace.join(rel)) {
        Ok(text) => {
            let lines: Vec<&str> = text.lines().collect();
            let before = raw.len();
            items(&lines, 0..lines.len(), rel, rel, &mut raw);
            let n = raw.len() - before;
            sources.push(SourceReport {
                path: rel.to_owned(),
                lessons: n,
                warning: (n == 0).then(|| "no list items".to_owned()),
            });
        }
        Err(_) => {
            sources.push(SourceReport { path: rel.to_owned(), lessons: 0, warning: Some("missing".into()) })
        }
    }
    sources.push(from_sections("MEMORY.md", &settings.memory_sections, &mut raw));
    let mut dailies = Vec::new();
    for dir in &settings.daily_dirs {
        let Ok(entries) = std::fs::read_dir(workspace.join(dir)) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(date) = name.strip_suffix(".md").and_then(|d| d.parse::<Date>().ok()) else { continue };
            let age = i64::from((today - date).get_days());
            if (0..settings.daily_days).contains(&age) {
                dailies.push((date, format!("{dir}/{name}")));
            }
        }
    }
    dailies.sort();
    dailies.dedup();
    if dailies.is_empty() {
        sources.push(SourceReport {
            path: settings
                .daily_dirs
                .iter()
                .map(|d| format!("{d}/YYYY-MM-DD.md"))
                .collect::<Vec<_>>()
                .join(", "),
            lessons: 0,
            warning: Some(format!("no daily notes of the last {} days", settings.daily_days)),
        });
    }
    for (_, rel) in dailies {
        let mut report = from_sections(&rel, &settings.daily_sections, &mut raw);
        // A daily without a lessons section is ordinary, not worth a warning.
        if report.lessons == 0 && report.warning.as_deref().is_some_and(|w| w.starts_with("no section")) {
            report.warning = None;
        }
        sources.push(report);
    }
    let mut seen = std::collections::HashSet::new();
    let mut lessons = Vec::new();
    for (source, group, text) in raw {
        let norm = text.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
        if !seen.insert(norm) {
            continue;
        }
        lessons.push(Lesson { id: format!("L{}", lessons.len() + 1), source, group, text });
    }
    let section =
        std::fs::read_to_string(workspace.join("SOUL.md")).ok().and_then(|s| WisdomSection::find(&s));
    let last_compressed = section.as_ref().and_then(|s| s.last_compressed);
    let last_source_lessons = section.as_ref().and_then(|s| s.source_lessons);
    let new_lessons = lessons.len().saturating_sub(last_source_lessons.unwrap_or(0));
    let (due, due_reason) = match last_compressed {
        None => (true, "SOUL.md has no `_Last compressed: ..._` line: never compressed".to_owned()),
        Some(d) => {
            let days = i64::from((today - d).get_days());
            if days >= settings.cadence_days {
                (
                    true,
                    format!(
                        "last compressed {days} days ago (a run is due every {} days)",
                        settings.cadence_days
                    ),
                )
            } else if new_lessons >= settings.cadence_lessons {
                (
                    true,
                    format!(
                        "{new_lessons} new lessons since the last run (a run is due at {})",
                        settings.cadence_lessons
                    ),
                )
            } else {
                (
                    false,
                    format!(
                        "last compressed {days} days ago, {new_lessons} new lessons (due at {} days or {} lessons)",
                        settings.cadence_days, settings.cadence_lessons
                    ),
                )
            }
        }
    };
    Collection { lessons, sources, last_compressed, last_source_lessons, new_lessons, due, due_reason }
}

/// The list items of `lines[range]`, each with its continuation lines, into `out` as (source, group,
/// text). Nested items belong to their parent.
fn items(
    lines: &[&str],
    range: std::ops::Range<usize>,
    rel: &str,
    group: &str,
    out: &mut Vec<(String, String, String)>,
) {
    let mut current: Option<(usize, String)> = None;
    let flush = |c: &mut Option<(usize, String)>, out: &mut Vec<(String, String, String)>| {
        if let Some((line, text)) = c.take() {
            let text = text.trim().to_owned();
            if !text.is_empty() {
                out.push((format!("{rel}:{}", line + 1), group.to_owned(), text));
            }
        }
    };
    let mut fenced = false;
    for i in range {
        let l = lines[i];
        if l.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || l.trim_start().starts_with('#') {
            flush(&mut current, out);
            continue;
        }
        let indent = l.len() - l.trim_start().len();
        match list_item(l) {
            Some(text) if indent < 2 => {
                flush(&mut current, out);
                current = Some((i, text.to_owned()));
            }
            _ if l.trim().is_empty() => flush(&mut current, out),
            _ => {
                if let Some((_, t)) = current.as_mut() {
                    t.push(' ');
                    t.push_str(list_item(l).unwrap_or(l.trim()));
                }
            }
        }
    }
    flush(&mut current, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_sections_and_recent_dailies_and_warns_per_missing_source() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        std::fs::write(w.join("AGENTS.md"), "# Agents\n\n## Operational Lessons (earned)\n\n- Check the port.\n  Twice.\n- Pin versions.\n\n## Other\n- not a lesson\n").unwrap();
        std::fs::write(
            w.join("MEMORY.md"),
            "# Memory\n## Decisions\n1. Keep one queue.\n## People\n- not one\n",
        )
        .unwrap();
        std::fs::create_dir_all(w.join("memory/daily")).unwrap();
        std::fs::write(w.join("memory/daily/2026-03-10.md"), "## Lessons\n- Recent one.\n- pin versions.\n")
            .unwrap();
        std::fs::write(w.join("memory/daily/2026-01-01.md"), "## Lessons\n- Too old.\n").unwrap();
        let today: Date = "2026-03-20".parse().unwrap();
        let c = collect(w, &WisdomSettings::default(), today);
        let texts: Vec<&str> = c.lessons.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Check the port. Twice.", "Pin versions.", "Keep one queue.", "Recent one."]);
        assert_eq!(c.lessons[0].source, "AGENTS.md:5");
        let missing: Vec<&str> = c
            .sources
            .iter()
            .filter(|s| s.warning.as_deref() == Some("missing"))
            .map(|s| s.path.as_str())
            .collect();
        assert_eq!(missing, ["LESSONS_LEARNED.md"]);
        assert!(c.due, "never compressed");
    }
}
