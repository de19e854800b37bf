//! Reading one file the crawl found: the checks that make it a problem instead of an item (too large,
//! replaced since the crawl, binary, not UTF-8, empty, bad frontmatter), the unchanged-file shortcut
//! (same size and mtime, or same content hash), and parsing it into an item with its chunks: title,
//! audience, date, project and explicit tags from the frontmatter.

use std::io::Read as _;
use std::path::Path;

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance, content_hash};
use cairn_store::FileState;

use super::HarvestSettings;
use super::crawl::{Candidate, Matcher, file_id};
use super::report::FileProblem;
use crate::chunk::chunk_markdown;
use crate::frontmatter::{self, Frontmatter};
use crate::tags;

/// A file read and parsed, ready to store.
pub(super) struct Parsed {
    pub(super) item: Item,
    pub(super) chunks: Vec<Chunk>,
    pub(super) explicit_tags: Vec<String>,
    pub(super) file: FileState,
    /// Frontmatter values ignored, with lines.
    pub(super) warnings: Vec<FileProblem>,
}

/// What reading one file found.
pub(super) enum Read {
    Parsed(Box<Parsed>),
    /// Changed, not parsed further (probe pass): its explicit tags and audience.
    Changed(Vec<String>, Audience),
    Same(FileState),
    Problem(FileProblem),
}

/// Parse a `date` value: `YYYY-MM-DD`, an RFC 3339 timestamp, or a civil date-time (taken as UTC).
pub fn parse_date(s: &str) -> Option<Millis> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.as_millisecond());
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond());
    }
    let date: jiff::civil::Date = s.get(..10)?.parse().ok()?;
    date.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond())
}

fn title_of(fm: Option<&Frontmatter>, body: &str, rel: &str) -> String {
    if let Some(t) = fm.and_then(|f| f.title.clone()) {
        return t;
    }
    for line in body.lines().take(40) {
        if let Some(h) = line.strip_prefix("# ") {
            let h = h.trim();
            if !h.is_empty() {
                return h.to_owned();
            }
        }
    }
    Path::new(rel).file_stem().map_or_else(|| rel.to_owned(), |s| s.to_string_lossy().into_owned())
}

/// Read, check and parse one file. With `full == false` (the probe pass of a big run) it stops once it
/// knows the file changed and its explicit tags; every problem check comes before that point.
pub(super) fn read_one(
    c: &Candidate,
    prev: Option<&FileState>,
    o: &HarvestSettings,
    m: &Matcher,
    force: bool,
    full: bool,
) -> Read {
    let problem =
        |line: Option<u32>, reason: String| Read::Problem(FileProblem { path: c.rel.clone(), line, reason });
    if c.size > o.max_file_bytes {
        return problem(None, format!("too large: {} bytes (limit {})", c.size, o.max_file_bytes));
    }
    if let Some(p) = prev
        && !force
        && p.size == c.size
        && p.mtime_ns == c.mtime_ns
    {
        return Read::Same(p.clone());
    }
    let bytes = match read_checked(c, o.max_file_bytes) {
        Ok(b) => b,
        Err(e) => return problem(None, format!("cannot read: {e}")),
    };
    if bytes.len() as u64 > o.max_file_bytes {
        return problem(None, format!("too large: {} bytes (limit {})", bytes.len(), o.max_file_bytes));
    }
    let hash = content_hash(&bytes);
    let file = FileState {
        path: c.rel.clone(),
        item_id: format!("memory-file:{}", c.rel),
        size: bytes.len() as u64,
        mtime_ns: c.mtime_ns,
        content_hash: hash.clone(),
    };
    if let Some(p) = prev
        && !force
        && p.content_hash == hash
    {
        return Read::Same(file);
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return problem(None, "binary file (contains NUL bytes)".into());
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            return problem(Some(line), format!("not valid UTF-8 (bad byte at offset {})", e.valid_up_to()));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return problem(None, "empty file".into());
    }
    let frontmatter::Split { frontmatter: fm, body, body_line: first_line, warnings } =
        match frontmatter::split(text, &o.frontmatter_limits()) {
            Ok(x) => x,
            Err(e) => return problem(Some(e.line), e.reason),
        };
    if body.trim().is_empty() && fm.as_ref().is_none_or(|f| f.title.is_none()) {
        let why: Vec<String> = warnings.iter().map(|w| format!("; line {}: {}", w.line, w.reason)).collect();
        return problem(None, format!("empty file (frontmatter only){}", why.concat()));
    }
    let warnings: Vec<FileProblem> = warnings
        .into_iter()
        .map(|w| FileProblem { path: c.rel.clone(), line: Some(w.line), reason: w.reason })
        .collect();
    let audience = match fm.as_ref().and_then(|f| f.audience.as_deref()) {
        Some(a) => match a.parse::<Audience>() {
            Ok(a) => a,
            Err(e) => return problem(Some(1), format!("frontmatter `audience`: {e}")),
        },
        None if m.public.is_match(&c.rel) => Audience::Public,
        None => o.default_audience,
    };
    let created_at = fm
        .as_ref()
        .and_then(|f| f.date.as_deref())
        .and_then(parse_date)
        .or_else(|| Path::new(&c.rel).file_name().and_then(|n| parse_date(&n.to_string_lossy())))
        .unwrap_or(c.mtime_ns / 1_000_000);
    let title = title_of(fm.as_ref(), body, &c.rel);
    let explicit_tags = tags::normalize_all(fm.as_ref().map(|f| f.tags.iter()).into_iter().flatten());
    if !full {
        return Read::Changed(explicit_tags, audience);
    }
    let project = fm
        .as_ref()
        .and_then(|f| f.project.clone())
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| o.default_project.clone());
    let item_id = file.item_id.clone();
    let sections = chunk_markdown(body, first_line, o.chunk_max_chars);
    let last_line = first_line + body.lines().count().saturating_sub(1) as u32;
    let chunks: Vec<Chunk> = sections
        .into_iter()
        .enumerate()
        .map(|(i, s)| Chunk {
            id: Chunk::make_id(&item_id, i as u32),
            item_id: item_id.clone(),
            ordinal: i as u32,
            heading: s.heading,
            content_hash: content_hash(s.text.as_bytes()),
            text: s.text,
            provenance: Provenance::File {
                path: c.rel.clone(),
                line_start: s.line_start,
                line_end: s.line_end,
            },
        })
        .collect();
    let metadata = fm.as_ref().map(|f| f.rest.clone()).unwrap_or_default();
    let item = Item {
        id: item_id,
        project,
        kind: ItemKind::File,
        title,
        text: body.trim().to_owned(),
        tags: explicit_tags.clone(),
        audience,
        provenance: Provenance::File { path: c.rel.clone(), line_start: 1, line_end: last_line.max(1) },
        content_hash: hash,
        created_at,
        observed_at: cairn_core::now_ms(),
        metadata,
    };
    Read::Parsed(Box::new(Parsed { item, chunks, explicit_tags, file, warnings }))
}

/// Read the file the crawl saw, at most `limit + 1` bytes: it must still be a regular file, and (on
/// Unix) the same one, so a symlink or another file swapped in since the crawl is not read.
fn read_checked(c: &Candidate, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(&c.abs)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("no longer a regular file"));
    }
    if c.id.is_some() && file_id(&meta) != c.id {
        return Err(std::io::Error::other("replaced by another file (or a symlink) during the harvest"));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize + 1);
    f.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_date("2026-03-18.md").map(|d| d > 0), Some(true));
        assert_eq!(parse_date("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_date("1970-01-01T00:00:02"), Some(2000));
        assert_eq!(parse_date("notes.md"), None);
    }
}
