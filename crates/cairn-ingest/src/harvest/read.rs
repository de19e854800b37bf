//! Reading one file the crawl found: the checks that make it a problem instead of an item (too large,
//! replaced since the crawl, binary, empty, malformed frontmatter), decoding (UTF-8, UTF-16 with a byte
//! order mark, or a legacy encoding detected and decoded with a warning), the unchanged-file shortcut
//! (same size and mtime, or same content hash), and parsing it into an item with its chunks: title,
//! audience, date, project and explicit tags from the frontmatter.
//!
//! An item's date comes only from what the file says: its frontmatter `date`, else a date in its file
//! name, else a date in its path ([`date_from_path`]), else [`cairn_core::UNDATED`]. Never the file's
//! modification time, which says when it was last copied or checked out, not when it was written.

use std::borrow::Cow;
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
/// A value that starts with a date and goes on after a space (`2026-03-12 10:00:00 +0100`, as some
/// static site generators write it) is that date; one that goes on with a letter, digit, `-` or `_`
/// (`2026-03-12-draft`, `2026-03-123`) is no date.
pub fn parse_date(s: &str) -> Option<Millis> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.as_millisecond());
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond());
    }
    if s.as_bytes().get(10).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return None;
    }
    let date: jiff::civil::Date = s.get(..10)?.parse().ok()?;
    midnight(date)
}

fn midnight(date: jiff::civil::Date) -> Option<Millis> {
    date.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond())
}

/// A calendar date from digit strings: a four-digit year (1000 to 9999), a month and a day of one or two
/// digits each.
fn ymd(y: &str, m: &str, d: &str) -> Option<Millis> {
    if y.len() != 4 || !(1..=2).contains(&m.len()) || !(1..=2).contains(&d.len()) {
        return None;
    }
    let year: i16 = y.parse().ok().filter(|y| *y >= 1000)?;
    midnight(jiff::civil::Date::new(year, m.parse().ok()?, d.parse().ok()?).ok()?)
}

/// The runs of ASCII digits in `s`, each with the one character that follows it (`None` at the end or
/// when more than one non-digit character follows).
fn digit_runs(s: &str) -> Vec<(&str, Option<char>)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let sep = match (b.get(i), b.get(i + 1)) {
            (Some(&c), Some(n)) if n.is_ascii_digit() => Some(c as char),
            _ => None,
        };
        out.push((&s[start..i], sep));
    }
    out
}

/// A `YYYY-MM-DD` date anywhere in a name (`-`, `_` or `.` between the parts, the same both times;
/// not inside a longer number): `2026-03-12.md`, `2026-03-12-standup.md`, `standup 2026_03_12.md`,
/// `daily.2026.03.12.md`. The first one wins.
fn date_in_name(name: &str) -> Option<Millis> {
    let runs = digit_runs(name);
    runs.windows(3).find_map(|w| {
        let [(y, s1), (m, s2), (d, _)] = w else { return None };
        let sep = (*s1)?;
        (matches!(sep, '-' | '_' | '.') && *s2 == Some(sep)).then(|| ymd(y, m, d)).flatten()
    })
}

/// Whether a path component is only numbers joined by `-`, `_` or `.` (`2026`, `03`, `2026-03`, `12`).
fn numeric(component: &str) -> bool {
    !component.is_empty()
        && component.split(['-', '_', '.']).all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The date a file's workspace path `rel` gives, at midnight UTC, if any. In this order:
///
/// 1. a date in the file name: `2026-03-12.md`, `2026-03-12-standup.md`, `notes 2026_03_12.md`,
///    `journal.2026.03.12.md` (`-`, `_` or `.` between year, month and day);
/// 2. a date spread over the folders that end the path, each only numbers: `journal/2026/03/12.md`,
///    `daily/2026-03/12.md`, `log/2026/03-12.md`, `journal/2026/03/12/standup.md` (the file name may
///    then be anything);
/// 3. a date in a folder name, the deepest first: `2026-03-12/notes.md`, `trips/2026-03-12 Lisbon/day.md`.
///
/// Years have four digits (1000 to 9999), months and days one or two; a year or a month alone
/// (`2026/03/notes.md`) is no date.
pub fn date_from_path(rel: &str) -> Option<Millis> {
    let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    let (name, dirs) = parts.split_last()?;
    if let Some(d) = date_in_name(name) {
        return Some(d);
    }
    let stem = Path::new(name).file_stem().and_then(|s| s.to_str()).unwrap_or(name);
    let mut trailing: Vec<&str> = dirs.iter().rev().take_while(|d| numeric(d)).copied().collect();
    trailing.reverse();
    if numeric(stem) {
        trailing.push(stem);
    }
    let groups: Vec<&str> = trailing.iter().flat_map(|c| c.split(['-', '_', '.'])).collect();
    if let Some(d) = groups.windows(3).rev().find_map(|w| ymd(w[0], w[1], w[2])) {
        return Some(d);
    }
    dirs.iter().rev().find_map(|d| date_in_name(d))
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
        item_id: cairn_core::memory_file_id(&c.rel),
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
    let (decoded, decode_warning) = match decode(&bytes) {
        Ok(d) => d,
        Err(why) => return problem(None, why),
    };
    let text: &str = &decoded;
    if text.trim().is_empty() {
        return problem(None, "empty file".into());
    }
    let frontmatter::Split { frontmatter: fm, body, body_line: first_line, warnings } =
        match frontmatter::split(text, &o.frontmatter_limits()) {
            Ok(x) => x,
            Err(e) => return problem(Some(e.line), e.reason),
        };
    if body.trim().is_empty() && fm.as_ref().is_none_or(|f| f.title.is_none()) {
        if fm.is_none() && first_line == 2 {
            // A `---` line never closed, and nothing after it.
            return problem(None, "empty file (a `---` line and nothing else)".into());
        }
        let why: Vec<String> = warnings.iter().map(|w| format!("; line {}: {}", w.line, w.reason)).collect();
        return problem(None, format!("empty file (frontmatter only){}", why.concat()));
    }
    let warnings: Vec<FileProblem> = decode_warning
        .map(|(line, reason)| FileProblem { path: c.rel.clone(), line, reason })
        .into_iter()
        .chain(warnings.into_iter().map(|w| FileProblem {
            path: c.rel.clone(),
            line: Some(w.line),
            reason: w.reason,
        }))
        .collect();
    let audience = match fm.as_ref().and_then(|f| f.audience.as_deref()) {
        Some(a) => match a.parse::<Audience>() {
            Ok(a) => a,
            Err(e) => return problem(Some(1), format!("frontmatter `audience`: {e}")),
        },
        None if m.public.is_match(&c.rel) => Audience::Public,
        None => o.default_audience,
    };
    // Only what the file says: never its modification time (a copy, a checkout or a sync sets that).
    let created_at = fm
        .as_ref()
        .and_then(|f| f.date.as_deref())
        .and_then(parse_date)
        .or_else(|| date_from_path(&c.rel))
        .unwrap_or(cairn_core::UNDATED);
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

/// Files whose first 8 KiB hold a NUL byte are binary (text in UTF-16 has a byte order mark).
const BINARY_PROBE: usize = 8192;

/// What decoding a file that is not UTF-8 did: the line of its first byte that is not UTF-8 (when it
/// has one) and the warning.
type DecodeWarning = (Option<u32>, String);

/// A file's text and, when it was not UTF-8, a warning (with the line of the first byte that is not
/// UTF-8, when there is one): UTF-8, with a byte order mark dropped silently; UTF-16 with a byte order
/// mark; else, with no NUL byte in the first 8 KiB, the legacy encoding chardetng detects (windows-1252,
/// Shift_JIS, ...), decoded by encoding_rs. A file that is mostly UTF-8 (more characters beyond ASCII
/// that are valid UTF-8 than bytes that are not: a stray byte pasted in) stays UTF-8, the stray bytes
/// replaced. `Err` is why the file is skipped (binary).
fn decode(bytes: &[u8]) -> Result<(Cow<'_, str>, Option<DecodeWarning>), String> {
    let binary = || "binary file (contains NUL bytes)".to_owned();
    let line_at = |offset: usize| bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let lossy = |from: usize, bad_at: usize, bad: usize| {
        let why =
            format!("not valid UTF-8: {bad} byte{} replaced with U+FFFD", if bad == 1 { "" } else { "s" });
        (String::from_utf8_lossy(&bytes[from..]), Some((Some(line_at(bad_at)), why)))
    };
    match encoding_rs::Encoding::for_bom(bytes) {
        Some((enc, bom)) if enc == encoding_rs::UTF_8 => {
            return Ok(match std::str::from_utf8(&bytes[bom..]) {
                Ok(t) => (Cow::Borrowed(t), None),
                Err(e) => lossy(bom, bom + e.valid_up_to(), utf8_counts(&bytes[bom..]).1),
            });
        }
        Some((enc, bom)) => {
            // UTF-16: the byte order mark says so; its ASCII has NUL bytes, so the binary check
            // looks at the decoded text instead.
            let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom..]);
            if text.chars().take(BINARY_PROBE).any(|c| c == '\0') {
                return Err(binary());
            }
            return Ok((text, Some((None, decoded_as(enc, had_errors)))));
        }
        None => {}
    }
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return Err(binary());
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok((Cow::Borrowed(t), None)),
        Err(e) => {
            let (valid, invalid) = utf8_counts(bytes);
            if valid > invalid {
                return Ok(lossy(0, e.valid_up_to(), invalid));
            }
            let mut detector = chardetng::EncodingDetector::new();
            detector.feed(bytes, true);
            let enc = detector.guess(None, false);
            let (text, had_errors) = enc.decode_without_bom_handling(bytes);
            Ok((text, Some((Some(line_at(e.valid_up_to())), decoded_as(enc, had_errors)))))
        }
    }
}

/// Characters beyond ASCII that are valid UTF-8, and bytes that are not UTF-8.
fn utf8_counts(bytes: &[u8]) -> (usize, usize) {
    bytes.utf8_chunks().fold((0, 0), |(valid, invalid), c| {
        (valid + c.valid().chars().filter(|c| !c.is_ascii()).count(), invalid + c.invalid().len())
    })
}

fn decoded_as(enc: &'static encoding_rs::Encoding, had_errors: bool) -> String {
    let mut why = format!("not UTF-8: decoded as {}", enc.name());
    if had_errors {
        why.push_str(&format!(" (some bytes are not {} either: replaced with U+FFFD)", enc.name()));
    }
    why
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

    const DAY: Millis = 86_400_000;

    fn day(date: &str) -> Millis {
        parse_date(date).unwrap()
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-02"), Some(DAY));
        assert_eq!(parse_date("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_date("1970-01-01T00:00:02"), Some(2000));
        assert_eq!(parse_date("1970-01-02 10:00:00 +0100"), Some(DAY), "a date, then a time after a space");
        assert_eq!(parse_date("notes.md"), None);
        // A date followed by more of a word is no date value.
        for no in ["2026-03-12-draft", "2026-03-123", "2026-03-12x", "2026-13-01", "next tuesday"] {
            assert_eq!(parse_date(no), None, "{no}");
        }
    }

    #[test]
    fn dates_in_paths() {
        let d = day("2026-03-12");
        for rel in [
            "memory/2026-03-12.md",
            "memory/2026-03-12-empty.md",
            "memory/standup 2026_03_12.md",
            "memory/journal.2026.03.12.md",
            "journal/2026/03/12.md",
            "journal/2026/3/12.md",
            "daily/2026-03/12.md",
            "log/2026/03-12.md",
            "journal/2026/03/12/standup.md",
            "2026-03-12/notes.md",
            "trips/2026-03-12 Lisbon/day-one.md",
            "2026-01-01 year/2026/03/12.md",
            "2026-01-01/2026-03-12.md",
        ] {
            assert_eq!(date_from_path(rel), Some(d), "{rel}");
        }
        for rel in [
            "memory/notes.md",
            "memory/2026/03/notes.md",
            "memory/2026-03.md",
            "memory/2026/03/retro/notes.md",
            "memory/v1.2.3.md",
            "memory/20260312.md",
            "memory/12026-03-12.md",
            "memory/2026-02-30.md",
            "memory/0999-01-01.md",
        ] {
            assert_eq!(date_from_path(rel), None, "{rel}");
        }
        assert_eq!(date_from_path("memory/2026-03-12 to 2026-04-01.md"), Some(d), "the first date");
        assert_eq!(date_from_path("a/1999/12/31/2026/03/12.md"), Some(d), "the deepest date");
    }

    #[test]
    fn decoding() {
        let utf8 = |b: &[u8]| {
            let (t, w) = decode(b).unwrap();
            (t.into_owned(), w)
        };
        assert_eq!(utf8(b"plain"), ("plain".into(), None));
        assert_eq!(utf8(b"\xEF\xBB\xBFcaf\xC3\xA9"), ("café".into(), None), "a UTF-8 BOM goes silently");
        let latin1 = b"line one\ncaf\xE9 Zo\xEB M\xFCller, na\xEFve fa\xE7ade, \xE0 bient\xF4t\n";
        let (text, w) = utf8(latin1);
        assert!(text.contains("café Zoë Müller"), "{text}");
        assert_eq!(w, Some((Some(2), "not UTF-8: decoded as windows-1252".into())));
        let mut utf16: Vec<u8> = vec![0xFF, 0xFE];
        utf16.extend("# Notes\ncafé Zoë".encode_utf16().flat_map(u16::to_le_bytes));
        let (text, w) = utf8(&utf16);
        assert_eq!(text, "# Notes\ncafé Zoë");
        assert_eq!(w, Some((None, "not UTF-8: decoded as UTF-16LE".into())));
        let mut utf16be: Vec<u8> = vec![0xFE, 0xFF];
        utf16be.extend("Zoë".encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(utf8(&utf16be).0, "Zoë");
        assert_eq!(decode(b"abc\0def").unwrap_err(), "binary file (contains NUL bytes)");
        assert!(decode(b"\xFF\xFEa\0\0\0").is_err(), "UTF-16 holding a NUL character is binary");
        let (text, w) = utf8(b"\xEF\xBB\xBFok\n\xFF");
        assert_eq!(text, "ok\n\u{FFFD}");
        assert_eq!(w, Some((Some(2), "not valid UTF-8: 1 byte replaced with U+FFFD".into())));
        // Mostly UTF-8 with a stray byte: not decoded as a legacy encoding (that would garble the rest).
        let mixed = ["café Zoë Müller\nnaïve ".as_bytes(), b"\xE9", " façade\n".as_bytes()].concat();
        let (text, w) = utf8(&mixed);
        assert_eq!(text, "café Zoë Müller\nnaïve \u{FFFD} façade\n");
        assert_eq!(w.unwrap().0, Some(2));
    }
}
