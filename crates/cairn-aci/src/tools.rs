//! `TOOLS_COMPACT.md` derived from `TOOLS.md`: the lookup lines (aliases, ports, flags, ids: list items
//! and table rows that carry such values) under their section headings; prose, code blocks and the
//! "why" after a dash dropped. Nothing is cut to fit the token cap: a compact file over it fails its
//! check, so no lookup value is ever lost silently.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::markdown::list_item;

/// The compact file's name.
pub const COMPACT_FILE: &str = "TOOLS_COMPACT.md";

/// Its first lines.
const TITLE: &str = "# Tools (compact)\n\n_Lookup values only; read TOOLS.md for the details._\n";

/// Most words in a lookup line (after its explanation is cut).
const MAX_LOOKUP_WORDS: usize = 24;

static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"`[^`]+`|(^|\s)--?[A-Za-z][\w-]*|\b\d{2,}\b|\b\w+=\S+|:\d+\b|@[\w.-]+").unwrap()
});

/// What was dropped from one section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// The section heading (`(top)` before the first).
    pub section: String,
    /// Lines of prose.
    pub prose: usize,
    /// Lines of fenced code.
    pub code: usize,
    /// Explanations cut from lookup lines.
    pub explanations: usize,
}

/// The compact file and what it left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Compact {
    /// `TOOLS_COMPACT.md`'s content.
    pub content: String,
    /// Lookup lines kept.
    pub kept: usize,
    /// Per section, what was dropped (sections that lost nothing are left out).
    pub dropped: Vec<Dropped>,
    /// Its tokens.
    pub tokens: usize,
}

/// The lookup values of a line: backticked text, flags, numbers, `key=value`, `:port`, `@handle`.
pub fn values(line: &str) -> Vec<String> {
    VALUE.find_iter(line).map(|m| m.as_str().trim().to_owned()).collect()
}

/// Whether `line` is a lookup line: a table row or a short line carrying a value.
fn is_lookup(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('|') {
        return true;
    }
    let body = list_item(t).unwrap_or(t);
    !values(body).is_empty() && body.split_whitespace().count() <= MAX_LOOKUP_WORDS
}

/// A list item or line with its explanation cut (after ` — `, ` -- `, ` because `, or a first sentence
/// when the rest carries no value); whether something was cut.
fn cut(line: &str) -> (String, bool) {
    let mut s = line.trim_end().to_owned();
    for sep in [" — ", " -- ", " because ", ". "] {
        if let Some(i) = s.find(sep) {
            let (head, tail) = s.split_at(i);
            if !values(head).is_empty() && values(tail).is_empty() {
                let keep = if sep == ". " { format!("{head}.") } else { head.to_owned() };
                return (keep, true);
            }
        }
    }
    s.truncate(s.trim_end().len());
    (s, false)
}

/// Derives the compact file from `TOOLS.md`'s text.
pub fn compact(tools: &str) -> Compact {
    let lines: Vec<&str> = tools.lines().collect();
    let mut out = String::from(TITLE);
    let mut kept = 0;
    let mut dropped: Vec<Dropped> = vec![Dropped { section: "(top)".into(), ..Default::default() }];
    let mut pending_heading: Option<String> = None;
    let mut fenced = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim();
        let d = dropped.last_mut().expect("never empty");
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            d.code += 1;
            i += 1;
            continue;
        }
        if fenced {
            d.code += 1;
            i += 1;
            continue;
        }
        if let Some(level) = heading_level(t) {
            if level == 1 && dropped.len() == 1 && kept == 0 {
                // The file's own title is replaced by the compact one.
                i += 1;
                continue;
            }
            let text = t[level..].trim();
            dropped.push(Dropped { section: text.to_owned(), ..Default::default() });
            pending_heading = Some(format!("\n{} {text}\n", "#".repeat(level.max(2))));
            i += 1;
            continue;
        }
        if t.starts_with('|') {
            // A table: kept when a data row carries a value, with its header and separator.
            let start = i;
            while i < lines.len() && lines[i].trim().starts_with('|') {
                i += 1;
            }
            let rows = &lines[start..i];
            let data: Vec<&&str> = rows.iter().skip(2).filter(|r| !values(r).is_empty()).collect();
            let d = dropped.last_mut().expect("never empty");
            if data.is_empty() {
                d.prose += rows.len();
                continue;
            }
            if let Some(h) = pending_heading.take() {
                out.push_str(&h);
            }
            for r in rows.iter().take(2.min(rows.len())) {
                out.push_str(r.trim());
                out.push('\n');
            }
            for r in &data {
                out.push_str(r.trim());
                out.push('\n');
                kept += 1;
            }
            d.prose += rows.len().saturating_sub(2) - data.len();
            continue;
        }
        if t.is_empty() {
            i += 1;
            continue;
        }
        if list_item(t).is_none() {
            // A paragraph of several lines is prose, whatever numbers it mentions.
            let start = i;
            while i < lines.len() && is_paragraph_line(lines[i]) {
                i += 1;
            }
            if i - start > 1 {
                d.prose += i - start;
                continue;
            }
            i = start;
        }
        let (line, was_cut) = cut(t);
        if is_lookup(&line) {
            if let Some(h) = pending_heading.take() {
                out.push_str(&h);
            }
            let line = match list_item(&line) {
                Some(body) => format!("- {body}"),
                None => line,
            };
            out.push_str(&line);
            out.push('\n');
            kept += 1;
            if was_cut {
                d.explanations += 1;
            }
        } else {
            d.prose += 1;
        }
        i += 1;
    }
    dropped.retain(|d| d.prose + d.code + d.explanations > 0);
    let tokens = cairn_tokens::Tokenizer::default().count(&out);
    Compact { content: out, kept, dropped, tokens }
}

/// Whether `line` continues a paragraph: not blank, not a heading, list item, table row or fence.
fn is_paragraph_line(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && heading_level(t).is_none()
        && list_item(t).is_none()
        && !t.starts_with('|')
        && !t.starts_with("```")
        && !t.starts_with("~~~")
}

fn heading_level(t: &str) -> Option<usize> {
    let level = t.chars().take_while(|c| *c == '#').count();
    ((1..=6).contains(&level) && t[level..].starts_with(' ')).then_some(level)
}

/// The outcome of checking a compact tools file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Each failure.
    pub failures: Vec<String>,
    /// Its tokens.
    pub tokens: usize,
    /// Lookup values of TOOLS.md it holds, and how many TOOLS.md has (none: no TOOLS.md).
    pub coverage: Option<(usize, usize)>,
}

/// The checks of a compact file: within the token cap, no prose, and every lookup value of `tools`
/// (TOOLS.md) present.
pub fn check(content: &str, tools: Option<&str>, max_tokens: usize) -> CheckReport {
    let mut failures = Vec::new();
    let tokens = cairn_tokens::Tokenizer::default().count(content);
    if tokens > max_tokens {
        failures.push(format!("{tokens} tokens; at most {max_tokens}"));
    }
    if content.trim().is_empty() {
        failures.push("empty".into());
    }
    let prose: Vec<&str> = content
        .lines()
        .map(str::trim)
        .filter(|t| !t.is_empty() && heading_level(t).is_none() && !(t.starts_with('_') && t.ends_with('_')))
        .filter(|t| !is_lookup(t))
        .collect();
    if let Some(first) = prose.first() {
        failures.push(format!(
            "{} line(s) of prose, the first: `{}`",
            prose.len(),
            first.chars().take(60).collect::<String>()
        ));
    }
    let coverage = tools.map(|tools| {
        let wanted: BTreeSet<String> = compact(tools).content.lines().flat_map(values).collect();
        let have: BTreeSet<String> = content.lines().flat_map(values).collect();
        let missing: Vec<&String> = wanted.iter().filter(|v| !have.contains(*v)).collect();
        if let Some(m) = missing.first() {
            failures.push(format!("{} lookup value(s) of TOOLS.md missing, the first: `{m}`", missing.len()));
        }
        (wanted.len() - missing.len(), wanted.len())
    });
    CheckReport { failures, tokens, coverage }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_lookups_under_their_headings_and_drops_prose() {
        let tools = "# Tools\n\nThis file grew over time and explains a lot of things in long sentences.\n\n\
                     ## Browser\n\nWe use a dedicated profile since 2024 because the default one\nkept logging out after 22:00 every night.\n\n\
                     - Profile alias: `work` — chosen because it was free\n- Debug port: 9222\n\n\
                     ```sh\nbrowser --remote-debugging-port=9222\n```\n\n## Board\n\n\
                     | Name | Port |\n|---|---|\n| board | 3100 |\n| notes | none |\n\n## History\n\nLong story, nothing to look up.\n";
        let c = compact(tools);
        assert!(
            c.content.contains("## Browser\n- Profile alias: `work`\n- Debug port: 9222\n"),
            "{}",
            c.content
        );
        assert!(c.content.contains("| board | 3100 |"));
        assert!(!c.content.contains("notes"));
        assert!(!c.content.contains("## History"), "a section with nothing to look up is left out");
        assert!(!c.content.contains("dedicated profile"));
        let browser = c.dropped.iter().find(|d| d.section == "Browser").unwrap();
        assert_eq!((browser.prose, browser.code, browser.explanations), (2, 3, 1));
        let report = check(&c.content, Some(tools), 300);
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        let report = check(&c.content.replace("9222", "9333"), Some(tools), 300);
        assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    }
}
