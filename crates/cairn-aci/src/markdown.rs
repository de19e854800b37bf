//! The little Markdown this crate needs: ATX headings and the line range of a section.

/// A heading: its line index, level (number of `#`) and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heading {
    pub(crate) line: usize,
    pub(crate) level: usize,
    pub(crate) text: String,
}

/// The ATX headings of `lines`, outside fenced code.
pub(crate) fn headings(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || l.starts_with(' ') {
            continue;
        }
        let level = t.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&level) && t[level..].starts_with(' ') {
            out.push(Heading {
                line: i,
                level,
                text: t[level..].trim().trim_end_matches('#').trim().to_owned(),
            });
        }
    }
    out
}

/// Line ranges (heading line excluded) of the sections whose heading starts with `prefix` (any case):
/// each runs to the next heading of the same or a higher level.
pub(crate) fn sections(lines: &[&str], prefix: &str) -> Vec<(Heading, std::ops::Range<usize>)> {
    let hs = headings(lines);
    let prefix = prefix.to_lowercase();
    let mut out = Vec::new();
    for (i, h) in hs.iter().enumerate() {
        if !h.text.to_lowercase().starts_with(&prefix) {
            continue;
        }
        let end = hs[i + 1..].iter().find(|n| n.level <= h.level).map_or(lines.len(), |n| n.line);
        out.push((h.clone(), h.line + 1..end));
    }
    out
}

/// The text of a list item line (`- x`, `* x`, `+ x`, `1. x`, `1) x`, a `[ ]` box dropped), if it is one.
pub(crate) fn list_item(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let rest = if let Some(r) =
        t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).or_else(|| t.strip_prefix("+ "))
    {
        r
    } else {
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        t[digits..].strip_prefix(". ").or_else(|| t[digits..].strip_prefix(") "))?
    };
    let rest = rest.trim_start();
    let rest = ["[ ] ", "[x] ", "[X] "].iter().find_map(|b| rest.strip_prefix(b)).unwrap_or(rest);
    Some(rest.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_end_at_the_next_heading_of_their_level() {
        let text = "# A\n## Lessons\n- one\n### sub\n- two\n## Other\n- three";
        let lines: Vec<&str> = text.lines().collect();
        let s = sections(&lines, "lessons");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].1, 2..5);
    }

    #[test]
    fn list_items() {
        for (line, want) in
            [("- a", Some("a")), ("  2. b", Some("b")), ("* [x] c", Some("c")), ("text", None), ("-x", None)]
        {
            assert_eq!(list_item(line), want, "{line}");
        }
    }
}
