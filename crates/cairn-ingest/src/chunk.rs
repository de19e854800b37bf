//! Heading-aware chunking of markdown bodies. Each chunk keeps its heading path and line range.

/// One section of a markdown body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Heading path, `A > B`; empty for text before the first heading.
    pub heading: String,
    /// First line (1-based, in the file).
    pub line_start: u32,
    /// Last line (inclusive).
    pub line_end: u32,
    /// The text, heading line included.
    pub text: String,
}

/// Split `body` (whose first line is line `first_line` of the file) into chunks of at most about
/// `max_chars` characters: the whole body when it fits, otherwise one chunk per heading section,
/// small neighbours merged, oversized sections split at blank lines (never inside a code fence).
pub fn chunk_markdown(body: &str, first_line: u32, max_chars: usize) -> Vec<Section> {
    let max_chars = max_chars.max(200);
    let lines: Vec<&str> = body.lines().collect();
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    if body.chars().count() <= max_chars {
        return vec![whole(&lines, first_line)];
    }
    let mut sections = split_sections(&lines, first_line);
    sections = sections.into_iter().flat_map(|s| split_large(s, max_chars)).collect();
    merge_small(sections, max_chars / 4, max_chars)
}

fn whole(lines: &[&str], first_line: u32) -> Section {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
    let end = lines.iter().rposition(|l| !l.trim().is_empty()).unwrap_or(0);
    Section {
        heading: String::new(),
        line_start: first_line + start as u32,
        line_end: first_line + end as u32,
        text: lines[start..=end].join("\n"),
    }
}

/// Longest heading title kept in a chunk's heading path, in bytes (cut at a char boundary). Every
/// section below a heading repeats its title in its path: uncapped, one huge heading over many small
/// sections cost time and memory quadratic in the file (a 1 MB note took over 2 GB).
pub const MAX_HEADING_TITLE_BYTES: usize = 128;

fn heading_level(line: &str, in_fence: bool) -> Option<(usize, &str)> {
    if in_fence {
        return None;
    }
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with([' ', '\t']) {
        Some((hashes, line[hashes..].trim().trim_end_matches('#').trim()))
    } else {
        None
    }
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

fn split_sections(lines: &[&str], first_line: u32) -> Vec<Section> {
    let mut out = Vec::new();
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut start = 0usize;
    let mut heading = String::new();
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        if let Some((level, title)) = heading_level(line, in_fence) {
            push_section(&mut out, lines, start, i, &heading, first_line);
            path.retain(|(l, _)| *l < level);
            path.push((level, cairn_core::prefix(title, MAX_HEADING_TITLE_BYTES).to_owned()));
            heading = path.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join(" > ");
            start = i;
        }
        if is_fence(line) {
            in_fence = !in_fence;
        }
    }
    push_section(&mut out, lines, start, lines.len(), &heading, first_line);
    out
}

fn push_section(out: &mut Vec<Section>, lines: &[&str], start: usize, end: usize, heading: &str, first: u32) {
    let slice = &lines[start..end];
    let Some(a) = slice.iter().position(|l| !l.trim().is_empty()) else { return };
    let b = slice.iter().rposition(|l| !l.trim().is_empty()).unwrap_or(a);
    out.push(Section {
        heading: heading.to_owned(),
        line_start: first + (start + a) as u32,
        line_end: first + (start + b) as u32,
        text: slice[a..=b].join("\n"),
    });
}

fn split_large(s: Section, max_chars: usize) -> Vec<Section> {
    if s.text.chars().count() <= max_chars {
        return vec![s];
    }
    let lines: Vec<&str> = s.text.lines().collect();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut size = 0usize;
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        let len = line.chars().count() + 1;
        let boundary = !in_fence && line.trim().is_empty();
        if boundary && size >= max_chars / 2 {
            push_section(&mut out, &lines, start, i, &s.heading, s.line_start);
            start = i + 1;
            size = 0;
            continue;
        }
        // A single paragraph longer than the cap is cut at a line boundary.
        if size + len > max_chars && i > start && !in_fence {
            push_section(&mut out, &lines, start, i, &s.heading, s.line_start);
            start = i;
            size = 0;
        }
        size += len;
        if is_fence(line) {
            in_fence = !in_fence;
        }
    }
    push_section(&mut out, &lines, start, lines.len(), &s.heading, s.line_start);
    out
}

fn merge_small(sections: Vec<Section>, min_chars: usize, max_chars: usize) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::with_capacity(sections.len());
    for s in sections {
        if let Some(prev) = out.last_mut() {
            let (a, b) = (prev.text.chars().count(), s.text.chars().count());
            if (a < min_chars || b < min_chars) && a + b + 2 <= max_chars {
                prev.text.push_str("\n\n");
                prev.text.push_str(&s.text);
                prev.line_end = s.line_end;
                if prev.heading.is_empty() {
                    prev.heading = s.heading;
                }
                continue;
            }
        }
        out.push(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_body_is_one_chunk_with_lines() {
        let c = chunk_markdown("\n# T\n\nhello\n\n", 5, 1000);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].line_start, c[0].line_end), (6, 8));
        assert_eq!(c[0].text, "# T\n\nhello");
    }

    #[test]
    fn splits_at_headings_with_paths_and_lines() {
        let para = "word ".repeat(80);
        let body = format!("# Top\n{para}\n## A\n{para}\n## B\n```\n# not a heading\n```\n{para}\n");
        let c = chunk_markdown(&body, 1, 500);
        let headings: Vec<_> = c.iter().map(|s| s.heading.as_str()).collect();
        assert_eq!(headings, ["Top", "Top > A", "Top > B"]);
        assert_eq!(c[1].line_start, 3);
        assert!(c[2].text.contains("# not a heading"));
        // Every chunk's lines are within the body and ordered.
        for w in c.windows(2) {
            assert!(w[0].line_end < w[1].line_start);
        }
    }

    #[test]
    fn a_huge_heading_over_many_sections_stays_linear() {
        // Found while writing the `frontmatter` fuzz target (fuzz/): a 100 KB heading over 2,000 small
        // sections made 2,000 copies of it (a 1 MB note took over 2 GB before titles were capped).
        let body = format!("# {}\n{}", "x".repeat(100_000), "## a\n".repeat(2_000));
        let c = chunk_markdown(&body, 1, 2400);
        assert!(!c.is_empty());
        let longest = c.iter().map(|s| s.heading.len()).max().unwrap();
        assert!(longest <= 6 * (MAX_HEADING_TITLE_BYTES + 3), "a heading path of {longest} bytes");
        assert!(c[0].heading.starts_with("xxx"));
        // A title is cut at a char boundary.
        let c = chunk_markdown(&format!("# {}\n{}", "é".repeat(200), "body ".repeat(100)), 1, 200);
        assert_eq!(c[0].heading, "é".repeat(MAX_HEADING_TITLE_BYTES / 2));
    }

    #[test]
    fn oversized_sections_are_split_under_the_cap() {
        let body =
            (0..60).map(|i| format!("paragraph {i} {}\n", "x".repeat(90))).collect::<Vec<_>>().join("\n");
        let c = chunk_markdown(&body, 1, 600);
        assert!(c.len() > 5);
        assert!(
            c.iter().all(|s| s.text.chars().count() <= 600),
            "{:?}",
            c.iter().map(|s| s.text.len()).collect::<Vec<_>>()
        );
        let total: usize = c.iter().map(|s| s.text.matches("paragraph").count()).sum();
        assert_eq!(total, 60, "nothing lost");
    }
}
