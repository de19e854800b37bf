//! SOUL.md's `## Wisdom` section: a date line, then one `**<Pattern.>** <wisdom>` line per entry.
//! Parsing, rendering, replacing it in SOUL.md, and the deterministic checks a section must pass.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::{Date, WisdomSettings};

/// The section's heading.
pub const HEADING: &str = "## Wisdom";

/// One entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The bold pattern name, its period included (`Verify first.`).
    pub name: String,
    /// The wisdom after it.
    pub text: String,
    /// The lesson ids it covers (from a draft's `<!-- covers: L1, L2 -->`; empty in SOUL.md).
    pub covers: Vec<String>,
}

impl Entry {
    /// The entry as it stands in SOUL.md.
    pub fn line(&self) -> String {
        format!("**{}** {}", self.name, self.text)
    }
}

/// A parsed wisdom section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WisdomSection {
    /// The `_Last compressed: YYYY-MM-DD | ..._` date.
    pub last_compressed: Option<Date>,
    /// The `Source lessons: N` count.
    pub source_lessons: Option<usize>,
    /// The entries, in order.
    pub entries: Vec<Entry>,
}

static DATE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^_Last compressed: (\d{4}-\d{2}-\d{2}) \| Source lessons: (\d+)_\s*$").unwrap()
});
static COVERS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<!--\s*covers:([^>]*)-->").unwrap());
static LESSON_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bL\d+\b").unwrap());

/// The line range of the wisdom section in `lines` (heading included), to the next heading of level
/// 1 or 2.
pub(crate) fn range(lines: &[&str]) -> Option<std::ops::Range<usize>> {
    let hs = crate::markdown::headings(lines);
    let i = hs.iter().position(|h| h.level == 2 && h.text.eq_ignore_ascii_case("wisdom"))?;
    let end = hs[i + 1..].iter().find(|h| h.level <= 2).map_or(lines.len(), |h| h.line);
    Some(hs[i].line..end)
}

impl WisdomSection {
    /// The wisdom section of a Markdown text (SOUL.md or a draft), if it has one.
    pub fn find(text: &str) -> Option<WisdomSection> {
        let lines: Vec<&str> = text.lines().collect();
        let r = range(&lines)?;
        Some(Self::parse(&lines[r.start + 1..r.end]))
    }

    fn parse(lines: &[&str]) -> WisdomSection {
        let mut s = WisdomSection { last_compressed: None, source_lessons: None, entries: Vec::new() };
        for l in lines {
            let t = l.trim();
            if let Some(c) = DATE_LINE.captures(t) {
                s.last_compressed = c[1].parse().ok();
                s.source_lessons = c[2].parse().ok();
                continue;
            }
            let t = t.strip_prefix("- ").unwrap_or(t);
            let Some(rest) = t.strip_prefix("**") else { continue };
            let Some(end) = rest.find("**") else { continue };
            let covers = COVERS
                .captures(rest)
                .map(|c| LESSON_ID.find_iter(&c[1]).map(|m| m.as_str().to_owned()).collect())
                .unwrap_or_default();
            let text = COVERS.replace_all(&rest[end + 2..], "").trim().to_owned();
            s.entries.push(Entry { name: rest[..end].trim().to_owned(), text, covers });
        }
        s
    }

    /// The section as it goes into SOUL.md (no coverage comments), ending in a newline.
    pub fn render(&self) -> String {
        let mut s = format!("{HEADING}\n\n");
        if let (Some(d), Some(n)) = (self.last_compressed, self.source_lessons) {
            s.push_str(&format!("_Last compressed: {d} | Source lessons: {n}_\n\n"));
        }
        for e in &self.entries {
            s.push_str(&e.line());
            s.push('\n');
        }
        s
    }
}

/// `soul` with its wisdom section replaced by `section` (appended when it has none); the rest of the
/// file is kept byte for byte.
pub fn replace_section(soul: &str, section: &str) -> String {
    let lines: Vec<&str> = soul.split_inclusive('\n').collect();
    let bare: Vec<&str> = lines.iter().map(|l| l.trim_end_matches(['\n', '\r'])).collect();
    match range(&bare) {
        Some(r) => {
            let mut out: String = lines[..r.start].concat();
            out.push_str(section);
            if r.end < lines.len() {
                out.push('\n');
                out.push_str(&lines[r.end..].concat());
            }
            out
        }
        None => {
            let mut out = soul.to_owned();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(section);
            out
        }
    }
}

/// The outcome of checking a wisdom section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Each failure, naming the entry or the number.
    pub failures: Vec<String>,
    /// Entries in the section.
    pub entries: usize,
    /// Tokens of the section as it would stand in SOUL.md.
    pub section_tokens: usize,
    /// Tokens of SOUL.md with the section in place (none: no SOUL.md).
    pub soul_tokens: Option<usize>,
}

impl CheckReport {
    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

/// What a check needs besides the section.
#[derive(Debug, Clone, Copy)]
pub struct CheckInput<'a> {
    /// The workspace (SOUL.md, and no WISDOM.md anywhere).
    pub workspace: &'a Path,
    /// The ids of the source lessons the draft lists (none: coverage is not known and fails).
    pub known_lessons: Option<&'a [String]>,
    /// The thresholds.
    pub settings: &'a WisdomSettings,
}

/// The deterministic checks: entry count, words per entry, lessons per entry, nothing specific (ports,
/// model tags, paths, hostnames), the section's and SOUL.md's tokens, the required entry, and no
/// `WISDOM.md` in the workspace.
pub fn check(section: &WisdomSection, input: CheckInput<'_>) -> CheckReport {
    let s = input.settings;
    let tokenizer = cairn_tokens::Tokenizer::default();
    let mut failures = Vec::new();
    let n = section.entries.len();
    if !(s.min_entries..=s.max_entries).contains(&n) {
        failures.push(format!("{n} entries; {}–{} wanted", s.min_entries, s.max_entries));
    }
    if section.last_compressed.is_none() {
        failures.push("no `_Last compressed: YYYY-MM-DD | Source lessons: N_` line".into());
    }
    let required = normalize(&s.required_entry);
    let is_required = |e: &Entry| normalize(&e.line()) == required;
    if !section.entries.iter().any(is_required) {
        failures.push(format!("the required entry is missing: {}", s.required_entry));
    }
    for (i, e) in section.entries.iter().enumerate() {
        let label = format!("entry {} (**{}**)", i + 1, e.name);
        let words = e.text.split_whitespace().count();
        if words > s.max_words {
            failures.push(format!("{label}: {words} words; at most {}", s.max_words));
        }
        if is_required(e) {
            continue;
        }
        match input.known_lessons {
            Some(known) => {
                let mut covers: Vec<&String> = e.covers.iter().filter(|c| known.contains(c)).collect();
                covers.sort();
                covers.dedup();
                if covers.len() < s.min_lessons {
                    failures.push(format!(
                        "{label}: covers {} source lesson(s); at least {}",
                        covers.len(),
                        s.min_lessons
                    ));
                }
            }
            None => failures.push(format!("{label}: no record of the source lessons it covers")),
        }
        for why in specifics(&e.line()) {
            failures.push(format!("{label}: {why}"));
        }
    }
    let rendered = section.render();
    let section_tokens = tokenizer.count(&rendered);
    if section_tokens > s.max_tokens {
        failures.push(format!("the wisdom section is {section_tokens} tokens; at most {}", s.max_tokens));
    }
    let soul_tokens = match std::fs::read_to_string(input.workspace.join("SOUL.md")) {
        Ok(soul) => {
            let t = tokenizer.count(&replace_section(&soul, &rendered));
            if t > s.soul_max_tokens {
                failures
                    .push(format!("SOUL.md with this section is {t} tokens; at most {}", s.soul_max_tokens));
            }
            Some(t)
        }
        Err(_) => {
            failures.push(format!("no SOUL.md in `{}`", input.workspace.display()));
            None
        }
    };
    for p in find_named(input.workspace, "wisdom.md") {
        failures.push(format!("`{}` exists: wisdom lives in SOUL.md only", p.display()));
    }
    CheckReport { failures, entries: n, section_tokens, soul_tokens }
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

static PORT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i):\d{2,5}\b|\bport\s+\d+|\b\d{3,5}\b").unwrap());
static MODEL_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Za-z][\w.-]*:[\w.-]*\d[\w.-]*\b|\b[A-Za-z]+-?\d+[\w.-]*\b").unwrap());
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(^|\s|`)(~|\.{1,2})?/[\w.-]|\w/\w|\b[\w-]+\.(md|json|jsonl|sh|toml|yaml|yml|py|ts|js|rs|txt|log)\b",
    )
    .unwrap()
});
static HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\blocalhost\b|\b\d{1,3}(\.\d{1,3}){3}\b|\b[a-z0-9-]{2,}(\.[a-z0-9-]{2,})+\b").unwrap()
});

/// What in `text` is too specific for wisdom: port numbers, model tags, paths, hostnames.
pub fn specifics(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (re, what) in
        [(&HOST, "a hostname"), (&PATH, "a path"), (&PORT, "a port number"), (&MODEL_TAG, "a model tag")]
    {
        if let Some(m) = re.find(text) {
            out.push(format!("{what} (`{}`)", m.as_str().trim()));
        }
    }
    out
}

/// Files named `name` (any case) anywhere under `dir`, hidden folders skipped.
pub fn find_named(dir: &Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() && !file.starts_with('.') {
                stack.push(e.path());
            } else if t.is_file() && file.eq_ignore_ascii_case(name) {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifics_are_flagged_and_plain_wisdom_is_not() {
        for (text, flagged) in [
            ("Verify assumptions before hardcoding; names and numbers drift.", false),
            ("Check the service on port 3100 first.", true),
            ("Prefer qwen3-coder:30b for code.", true),
            ("Read ~/.config/app before editing.", true),
            ("Call gateway.example.internal first.", true),
            ("Keep TOOLS.md short.", true),
            ("One change, one check, e.g. a test.", false),
        ] {
            assert_eq!(!specifics(text).is_empty(), flagged, "{text}: {:?}", specifics(text));
        }
    }

    #[test]
    fn replacing_keeps_the_rest_byte_for_byte() {
        let soul = "# Soul\r\nCalm.\n\n## Wisdom\n\nold\n\n## Vibe\nDry.\n";
        let out = replace_section(soul, "## Wisdom\n\nnew\n");
        assert_eq!(out, "# Soul\r\nCalm.\n\n## Wisdom\n\nnew\n\n## Vibe\nDry.\n");
        assert_eq!(replace_section("# Soul", "## Wisdom\n"), "# Soul\n\n## Wisdom\n");
    }

    #[test]
    fn parses_entries_with_their_coverage() {
        let s = WisdomSection::find("## Wisdom\n_Last compressed: 2026-02-01 | Source lessons: 12_\n**A.** b c <!-- covers: L1, L2,L3 -->\n- **D.** e\n").unwrap();
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.entries[0].covers, ["L1", "L2", "L3"]);
        assert_eq!(s.entries[0].text, "b c");
        assert_eq!(
            s.render(),
            "## Wisdom\n\n_Last compressed: 2026-02-01 | Source lessons: 12_\n\n**A.** b c\n**D.** e\n"
        );
    }
}
