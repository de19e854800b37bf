//! YAML frontmatter: `---` on the first line, YAML, `---` (or `...`) on its own line.
//!
//! Frontmatter is untrusted input, and a YAML parser is not linear in every shape of it (libyaml
//! spends time proportional to the flow nesting depth on every token, so 100,000 nested `[` take
//! seconds). [`split`] therefore checks [`Limits`] with one linear scan of the text *before* any YAML
//! is parsed: size, nesting depth, tag count. Frontmatter over a limit is dropped with a warning that
//! names the line and the limit, and the body is still indexed. Values Cairn cannot use (a `date`
//! that is no date, nested `tags`, a list as `title`) are warnings too: never silently ignored.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

/// Parsed frontmatter fields Cairn understands, plus everything else as metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// `title`.
    pub title: Option<String>,
    /// `tags` (a list, or a comma/space separated string).
    pub tags: Vec<String>,
    /// `date` as written (only when it parses as a date; otherwise a warning says so).
    pub date: Option<String>,
    /// `project`.
    pub project: Option<String>,
    /// `audience` (or `visibility`).
    pub audience: Option<String>,
    /// Every other key.
    pub rest: BTreeMap<String, Value>,
}

/// A frontmatter problem, with the 1-based line in the file where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// Line in the file.
    pub line: u32,
    /// What is wrong.
    pub reason: String,
}

/// Caps checked before any YAML is parsed (the `[harvest]` settings `max_frontmatter_bytes`,
/// `max_tags`, `max_frontmatter_depth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest frontmatter, in bytes between the two `---` lines.
    pub max_bytes: usize,
    /// Most entries in `tags` (with `tag` and `keywords`), before deduplication.
    pub max_tags: usize,
    /// Deepest nesting of lists and mappings (block indentation and `[`/`{` together).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_bytes: 64 * 1024, max_tags: 256, max_depth: 32 }
    }
}

impl Limits {
    /// A bound on `[` and `{` characters, wherever they are (quoted or not). The depth scan follows
    /// quotes and comments the way YAML does for ordinary frontmatter; this bound holds whatever the
    /// text, so the parser's cost (tokens × flow depth) stays small even for crafted input.
    pub fn max_brackets(&self) -> usize {
        self.max_depth.saturating_mul(32).max(64)
    }
}

/// The outcome of [`split`]: frontmatter (when present and within the limits), the body, and the
/// warnings about values that were ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Split<'a> {
    /// The frontmatter; `None` when the file has none or it was rejected (see `warnings`).
    pub frontmatter: Option<Frontmatter>,
    /// The text after the frontmatter.
    pub body: &'a str,
    /// The file line the body starts on.
    pub body_line: u32,
    /// Ignored values and rejected frontmatter, with file lines; the file is still indexed.
    pub warnings: Vec<FrontmatterError>,
}

/// Split `text` into frontmatter and body, checking `limits` before parsing.
///
/// Files without a leading `---` line have no frontmatter; the body is then the whole text. A `---`
/// line that is never closed opens no frontmatter (it is most likely a rule above the note): the body
/// is the text after it, with a warning. Malformed frontmatter is an error (the file cannot be indexed
/// reliably); frontmatter over a limit, and values Cairn cannot use, are warnings.
pub fn split<'a>(text: &'a str, limits: &Limits) -> Result<Split<'a>, FrontmatterError> {
    let first_line_end = text.find('\n').map_or(text.len(), |i| i + 1);
    if text[..first_line_end].trim_end() != "---" {
        return Ok(Split { frontmatter: None, body: text, body_line: 1, warnings: Vec::new() });
    }
    let mut offset = first_line_end;
    let mut line = 2u32;
    while offset < text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1);
        let l = text[offset..end].trim_end();
        if l == "---" || l == "..." {
            let yaml = &text[first_line_end..offset];
            let body = &text[end..];
            let body_line = line + 1;
            return Ok(match check_and_parse(yaml, limits)? {
                Ok((fm, warnings)) => Split { frontmatter: Some(fm), body, body_line, warnings },
                Err(rejected) => Split { frontmatter: None, body, body_line, warnings: vec![rejected] },
            });
        }
        offset = end;
        line += 1;
    }
    Ok(Split {
        frontmatter: None,
        body: &text[first_line_end..],
        body_line: 2,
        warnings: vec![FrontmatterError {
            line: 1,
            reason: "frontmatter opened at line 1 is never closed; indexed as text".into(),
        }],
    })
}

/// The file line of the YAML text's first line (the line after the opening `---`).
const YAML_FIRST_LINE: u32 = 2;

type Parsed = (Frontmatter, Vec<FrontmatterError>);

/// Outer error: malformed YAML (the file fails). Inner error: over a limit (frontmatter dropped).
fn check_and_parse(
    yaml: &str,
    limits: &Limits,
) -> Result<Result<Parsed, FrontmatterError>, FrontmatterError> {
    let rejected = |line: u32, what: String| {
        Ok(Err(FrontmatterError {
            line,
            reason: format!("{what}: frontmatter ignored, the body is indexed"),
        }))
    };
    if yaml.len() > limits.max_bytes {
        return rejected(
            1,
            format!(
                "frontmatter is {} bytes, over the limit of {} (`harvest.max_frontmatter_bytes`)",
                yaml.len(),
                limits.max_bytes
            ),
        );
    }
    let scan = scan(yaml, limits.max_depth);
    if let Some(line) = scan.too_deep_at {
        return rejected(
            line,
            format!(
                "frontmatter nests deeper than {} levels (`harvest.max_frontmatter_depth`)",
                limits.max_depth
            ),
        );
    }
    if scan.brackets > limits.max_brackets() {
        return rejected(
            YAML_FIRST_LINE,
            format!(
                "frontmatter has {} `[`/`{{` brackets, over the limit of {} (32 per level of \
                 `harvest.max_frontmatter_depth`)",
                scan.brackets,
                limits.max_brackets()
            ),
        );
    }
    let tags_line = |scan: &Scan| {
        let key = |k: &str| scan.key_lines.get(k).copied();
        scan.tags_line
            .or_else(|| key("tags"))
            .or_else(|| key("tag"))
            .or_else(|| key("keywords"))
            .unwrap_or(YAML_FIRST_LINE)
    };
    let over_tags = |n: usize| {
        format!("frontmatter has {n} tags, over the limit of {} (`harvest.max_tags`)", limits.max_tags)
    };
    if scan.tags > limits.max_tags {
        return rejected(tags_line(&scan), over_tags(scan.tags));
    }
    let (fm, warnings) = parse_yaml(yaml, &scan.key_lines)?;
    if fm.tags.len() > limits.max_tags {
        return rejected(tags_line(&scan), over_tags(fm.tags.len()));
    }
    Ok(Ok((fm, warnings)))
}

/// What a linear pre-scan of the YAML text found, before anything is parsed.
#[derive(Debug, Default)]
struct Scan {
    /// The file line where nesting first went deeper than the limit.
    too_deep_at: Option<u32>,
    /// `[` and `{` characters anywhere.
    brackets: usize,
    /// Entries of the top-level `tags`, `tag` and `keywords` keys, as written.
    tags: usize,
    /// The line of the tag key whose entries passed the limit first.
    tags_line: Option<u32>,
    /// File line of each top-level key, lowercased.
    key_lines: HashMap<String, u32>,
}

/// Where the entries of a tag key are being counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagCount {
    /// Not in a tag key.
    Off,
    /// After `tags:` with nothing on the line: a block list may follow.
    Block { item_col: Option<usize> },
    /// Inside the flow list `[...]` opened at this flow level.
    Flow { level: usize, item_open: bool },
}

/// One pass over the YAML text: block indentation, `- `/`? ` compact nesting, flow brackets outside
/// quotes and comments, block scalars skipped; top-level key lines; tag entries. Linear in the text.
fn scan(yaml: &str, max_depth: usize) -> Scan {
    let mut out =
        Scan { brackets: yaml.bytes().filter(|b| matches!(b, b'[' | b'{')).count(), ..Scan::default() };
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    let mut quote: Option<u8> = None;
    // A block scalar (`|`, `>`): the parent's column, and its content's once known.
    let mut block_scalar: Option<(usize, Option<usize>)> = None;
    let mut tags = TagCount::Off;
    let mut tags_key_line = YAML_FIRST_LINE;
    for (i, line) in yaml.lines().enumerate() {
        let lineno = YAML_FIRST_LINE + i as u32;
        let b = line.as_bytes();
        let col = b.iter().take_while(|&&c| c == b' ').count();
        let blank = b[col..].iter().all(u8::is_ascii_whitespace);
        if let Some((parent, content)) = &mut block_scalar {
            if blank {
                continue;
            }
            let need = *content.get_or_insert(col);
            if col > *parent && col >= need {
                continue;
            }
            block_scalar = None;
        }
        let mut pos = 0;
        let mut block_depth = indents.len();
        if quote.is_none() && flow == 0 {
            if blank || b[col] == b'#' {
                continue;
            }
            while indents.last().is_some_and(|&t| t > col) {
                indents.pop();
            }
            if indents.last().is_none_or(|&t| t < col) {
                indents.push(col);
            }
            pos = col;
            let mut compact = 0;
            while pos < b.len() && matches!(b[pos], b'-' | b'?') && b.get(pos + 1).is_none_or(|&c| c == b' ')
            {
                compact += 1;
                pos += 1;
                while pos < b.len() && b[pos] == b' ' {
                    pos += 1;
                }
            }
            block_depth = indents.len() + compact;
            if block_depth > max_depth && out.too_deep_at.is_none() {
                out.too_deep_at = Some(lineno);
            }
            // Tag entries of a block list, and where the tag key ends.
            if let TagCount::Block { item_col } = &mut tags {
                if col == 0 && compact == 0 {
                    tags = TagCount::Off;
                } else if compact > 0 && item_col.is_none_or(|c| c == col) {
                    *item_col = Some(col);
                    count_tag(&mut out, tags_key_line);
                }
            }
            if col == 0
                && compact == 0
                && let Some((key, value_at)) = top_key(line)
            {
                let key = key.to_ascii_lowercase();
                let is_tags = matches!(key.as_str(), "tags" | "tag" | "keywords");
                out.key_lines.entry(key).or_insert(lineno);
                tags = TagCount::Off;
                if is_tags {
                    tags_key_line = lineno;
                    let value = strip_comment(&line[value_at..]).trim();
                    if value.is_empty() {
                        tags = TagCount::Block { item_col: None };
                    } else if value.starts_with('[') {
                        tags = TagCount::Flow { level: 1, item_open: false };
                    } else if !value.starts_with(['"', '\'', '|', '>', '&', '!', '{']) {
                        // A comma/space separated string.
                        let n = value.split([',', ' ']).filter(|t| !t.trim().is_empty()).count();
                        for _ in 0..n {
                            count_tag(&mut out, tags_key_line);
                        }
                    }
                }
                pos = value_at;
            }
        }
        // Characters: quotes, comments, flow brackets, block scalar indicators. A line starts a token
        // (outside quotes); so does the place after an indicator.
        let mut token_start = true;
        let mut prev_space = true;
        while pos < b.len() {
            let c = b[pos];
            match quote {
                Some(b'\'') => {
                    if c == b'\'' {
                        if b.get(pos + 1) == Some(&b'\'') {
                            pos += 2;
                            continue;
                        }
                        quote = None;
                        token_start = false;
                    }
                    pos += 1;
                    prev_space = false;
                    continue;
                }
                Some(_) => {
                    if c == b'\\' {
                        pos += 2;
                        continue;
                    }
                    if c == b'"' {
                        quote = None;
                        token_start = false;
                    }
                    pos += 1;
                    prev_space = false;
                    continue;
                }
                None => {}
            }
            match c {
                b'#' if prev_space => break,
                b' ' | b'\t' => {
                    prev_space = true;
                    pos += 1;
                    continue;
                }
                b'"' | b'\'' if token_start => {
                    quote = Some(c);
                    if let TagCount::Flow { level, item_open } = &mut tags
                        && flow == *level
                        && !*item_open
                    {
                        *item_open = true;
                        count_tag(&mut out, tags_key_line);
                    }
                }
                b'[' | b'{' if flow > 0 || token_start => {
                    if let TagCount::Flow { level, item_open } = &mut tags
                        && flow == *level
                        && !*item_open
                    {
                        *item_open = true;
                        count_tag(&mut out, tags_key_line);
                    }
                    flow += 1;
                    if block_depth + flow > max_depth && out.too_deep_at.is_none() {
                        out.too_deep_at = Some(lineno);
                    }
                    token_start = true;
                    prev_space = false;
                    pos += 1;
                    continue;
                }
                b']' | b'}' if flow > 0 => {
                    flow -= 1;
                    if let TagCount::Flow { level, .. } = tags
                        && flow < level
                    {
                        tags = TagCount::Off;
                    }
                }
                b',' if flow > 0 => {
                    if let TagCount::Flow { level, item_open } = &mut tags
                        && flow == *level
                    {
                        *item_open = false;
                    }
                    token_start = true;
                    prev_space = false;
                    pos += 1;
                    continue;
                }
                b'|' | b'>' if flow == 0 && token_start => {
                    block_scalar = Some((indents.last().copied().unwrap_or(0), None));
                    break;
                }
                _ => {
                    if let TagCount::Flow { level, item_open } = &mut tags
                        && flow == *level
                        && !*item_open
                    {
                        *item_open = true;
                        count_tag(&mut out, tags_key_line);
                    }
                }
            }
            // `-`, `?` and `:` followed by a space are indicators: a node may start after them.
            token_start = matches!(c, b'-' | b'?' | b':') && b.get(pos + 1).is_none_or(|&n| n == b' ')
                || (flow > 0 && c == b':');
            prev_space = false;
            pos += 1;
        }
    }
    out
}

fn count_tag(out: &mut Scan, key_line: u32) {
    out.tags += 1;
    if out.tags_line.is_none() {
        out.tags_line = Some(key_line);
    }
}

/// A top-level `key:` line: the key and where its value starts.
fn top_key(line: &str) -> Option<(&str, usize)> {
    let b = line.as_bytes();
    if matches!(b.first(), None | Some(b'#' | b'-' | b'?' | b'[' | b'{' | b' ' | b'\t')) {
        return None;
    }
    let (key, after) = if matches!(b[0], b'"' | b'\'') {
        let close = line[1..].find(b[0] as char)? + 1;
        (&line[1..close], close + 1)
    } else {
        let i = line.find(": ").or_else(|| line.ends_with(':').then(|| line.len() - 1))?;
        (line[..i].trim_end(), i)
    };
    let rest = &line[after..];
    let colon = rest.strip_prefix(':')?;
    if !colon.is_empty() && !colon.starts_with([' ', '\t']) {
        return None;
    }
    Some((key, after + 1))
}

fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'#' && (i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t') {
            return &s[..i];
        }
    }
    s
}

fn parse_yaml(yaml: &str, key_lines: &HashMap<String, u32>) -> Result<Parsed, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok((Frontmatter::default(), Vec::new()));
    }
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| FrontmatterError {
        // YAML lines count from the line after the opening `---`.
        line: e.location().map_or(1, |l| l.line() as u32 + 1),
        reason: format!("malformed frontmatter: {}", strip_location(&e.to_string())),
    })?;
    let map = match value {
        serde_yaml_ng::Value::Mapping(m) => m,
        serde_yaml_ng::Value::Null => return Ok((Frontmatter::default(), Vec::new())),
        other => {
            return Err(FrontmatterError {
                line: 2,
                reason: format!("frontmatter must be a mapping of keys to values, found {}", kind(&other)),
            });
        }
    };
    let mut fm = Frontmatter::default();
    let mut warnings = Vec::new();
    for (k, v) in map {
        let key = match k {
            serde_yaml_ng::Value::String(s) => s,
            other => yaml_scalar(&other).unwrap_or_else(|| format!("{other:?}")),
        };
        let lower = key.to_ascii_lowercase();
        let line = key_lines.get(&lower).copied().unwrap_or(YAML_FIRST_LINE);
        let mut warn = |reason: String| warnings.push(FrontmatterError { line, reason });
        let single = |v: &serde_yaml_ng::Value, warn: &mut dyn FnMut(String)| match v {
            serde_yaml_ng::Value::Sequence(_) | serde_yaml_ng::Value::Mapping(_) => {
                warn(format!("frontmatter `{key}` must be a single value, found {}: ignored", kind(v)));
                None
            }
            _ => yaml_scalar(v),
        };
        match lower.as_str() {
            "title" => fm.title = single(&v, &mut warn),
            "tags" | "tag" | "keywords" => fm.tags.extend(tag_list(&key, &v, &mut warn)),
            "date" | "created" => {
                fm.date = single(&v, &mut warn).and_then(|d| {
                    if crate::harvest::parse_date(&d).is_some() {
                        Some(d)
                    } else {
                        warn(format!(
                            "frontmatter `{key}`: `{d}` is not a date (YYYY-MM-DD or an RFC 3339 date-time): \
                             ignored, the date in the file's name or path is used, if it has one"
                        ));
                        None
                    }
                });
            }
            "project" => fm.project = single(&v, &mut warn),
            "audience" | "visibility" => fm.audience = single(&v, &mut warn),
            _ => {
                let json: Value = serde_json::to_value(&v).unwrap_or(Value::Null);
                fm.rest.insert(key, json);
            }
        }
    }
    Ok((fm, warnings))
}

fn strip_location(msg: &str) -> String {
    match msg.find(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

fn kind(v: &serde_yaml_ng::Value) -> &'static str {
    match v {
        serde_yaml_ng::Value::Sequence(_) => "a list",
        serde_yaml_ng::Value::Mapping(_) => "a mapping",
        serde_yaml_ng::Value::String(_) => "a string",
        serde_yaml_ng::Value::Number(_) => "a number",
        serde_yaml_ng::Value::Bool(_) => "a boolean",
        serde_yaml_ng::Value::Tagged(t) => kind(&t.value),
        serde_yaml_ng::Value::Null => "nothing",
    }
}

fn yaml_scalar(v: &serde_yaml_ng::Value) -> Option<String> {
    match v {
        serde_yaml_ng::Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        serde_yaml_ng::Value::Number(n) => Some(n.to_string()),
        serde_yaml_ng::Value::Bool(b) => Some(b.to_string()),
        serde_yaml_ng::Value::Tagged(t) => yaml_scalar(&t.value),
        _ => None,
    }
}

fn tag_list(key: &str, v: &serde_yaml_ng::Value, warn: &mut dyn FnMut(String)) -> Vec<String> {
    match v {
        serde_yaml_ng::Value::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    serde_yaml_ng::Value::Sequence(_) | serde_yaml_ng::Value::Mapping(_) => warn(format!(
                        "frontmatter `{key}`: entry {} is {}, not a tag: ignored (tags are a flat list)",
                        i + 1,
                        kind(item)
                    )),
                    _ => out.extend(yaml_scalar(item)),
                }
            }
            out
        }
        serde_yaml_ng::Value::String(s) => {
            s.split([',', ' ']).map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect()
        }
        serde_yaml_ng::Value::Mapping(_) => {
            warn(format!(
                "frontmatter `{key}` must be a list or a comma-separated string, found a mapping: ignored"
            ));
            Vec::new()
        }
        serde_yaml_ng::Value::Tagged(t) => tag_list(key, &t.value, warn),
        other => yaml_scalar(other).into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn split_default(text: &str) -> Result<Split<'_>, FrontmatterError> {
        split(text, &Limits::default())
    }

    #[test]
    fn parses_known_fields_and_keeps_the_rest() {
        let text = "---\ntitle: Weekly sync\ntags: [Alpha, beta]\ndate: 2026-03-18\nproject: apollo\nowner: sam\n---\n# Body\n";
        let s = split_default(text).unwrap();
        let fm = s.frontmatter.unwrap();
        assert_eq!(fm.title.as_deref(), Some("Weekly sync"));
        assert_eq!(fm.tags, ["Alpha", "beta"]);
        assert_eq!(fm.date.as_deref(), Some("2026-03-18"));
        assert_eq!(fm.project.as_deref(), Some("apollo"));
        assert_eq!(fm.rest["owner"], "sam");
        assert_eq!(s.body, "# Body\n");
        assert_eq!(s.body_line, 8);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn no_frontmatter_and_string_tags() {
        let s = split_default("# Just text\n").unwrap();
        assert!(s.frontmatter.is_none());
        assert_eq!((s.body, s.body_line), ("# Just text\n", 1));
        let s = split_default("---\ntags: a, b c\n---\n").unwrap();
        assert_eq!(s.frontmatter.unwrap().tags, ["a", "b", "c"]);
    }

    #[test]
    fn unterminated_frontmatter_is_text_with_a_warning() {
        let s = split_default("---\ntitle: x\ntags: [a, b\n\nThe note itself.\n").unwrap();
        assert!(s.frontmatter.is_none());
        assert_eq!((s.body, s.body_line), ("title: x\ntags: [a, b\n\nThe note itself.\n", 2));
        let w: Vec<(u32, &str)> = s.warnings.iter().map(|w| (w.line, w.reason.as_str())).collect();
        assert_eq!(w, [(1, "frontmatter opened at line 1 is never closed; indexed as text")]);
        let s = split_default("---").unwrap();
        assert_eq!((s.body, s.warnings.len()), ("", 1));
    }

    #[test]
    fn errors_carry_file_lines() {
        let err = split_default("---\ntitle: ok\ntags: [a, b\nmore: x\n---\nbody").unwrap_err();
        assert!(err.reason.starts_with("malformed frontmatter"), "{err:?}");
        assert!(err.line >= 3, "{err:?}");
        let err = split_default("---\n- a\n- b\n---\nbody").unwrap_err();
        assert!(err.reason.contains("mapping"), "{err:?}");
    }

    #[test]
    fn unusable_values_are_warnings_with_lines() {
        let text = "---\ntitle: [a, b]\nowner: sam\ndate: next tuesday\ntags:\n  - ok\n  - [nested, list]\n  - {k: v}\nproject: p\n---\nbody\n";
        let s = split_default(text).unwrap();
        let fm = s.frontmatter.unwrap();
        assert_eq!(fm.tags, ["ok"]);
        assert_eq!(fm.title, None);
        assert_eq!(fm.date, None);
        assert_eq!(fm.project.as_deref(), Some("p"));
        let w: Vec<(u32, &str)> = s.warnings.iter().map(|w| (w.line, w.reason.as_str())).collect();
        assert_eq!(w.len(), 4, "{w:?}");
        assert!(w[0].0 == 2 && w[0].1.contains("`title` must be a single value"), "{w:?}");
        assert!(w[1].0 == 4 && w[1].1.contains("`next tuesday` is not a date"), "{w:?}");
        assert!(w[2].0 == 5 && w[2].1.contains("entry 2 is a list"), "{w:?}");
        assert!(w[3].0 == 5 && w[3].1.contains("entry 3 is a mapping"), "{w:?}");
        let s = split_default("---\ntags: {a: 1}\n---\nbody").unwrap();
        assert!(s.warnings[0].reason.contains("found a mapping"), "{:?}", s.warnings);
    }

    #[test]
    fn limits_reject_before_parsing_and_keep_the_body() {
        let limits = Limits { max_bytes: 200, max_tags: 3, max_depth: 4 };
        let big = format!("---\nnote: {}\n---\nthe body\n", "x".repeat(300));
        let s = split(&big, &limits).unwrap();
        assert!(s.frontmatter.is_none());
        assert_eq!((s.body, s.body_line), ("the body\n", 4));
        assert_eq!(s.warnings[0].line, 1);
        assert!(s.warnings[0].reason.contains("over the limit of 200"), "{:?}", s.warnings);

        for (text, line) in [
            ("---\ntitle: t\ntags: [a, b, c, d]\n---\nbody", 3),
            ("---\ntitle: t\ntags:\n  - a\n  - b\n  - c\n  - d\n---\nbody", 3),
            ("---\ntags: a, b, c, d\n---\nbody", 2),
            ("---\nkeywords: [a, b]\ntag: [c, d]\n---\nbody", 2),
        ] {
            let s = split(text, &limits).unwrap();
            assert!(s.frontmatter.is_none(), "{text}");
            assert_eq!(s.warnings[0].line, line, "{text}: {:?}", s.warnings);
            assert!(s.warnings[0].reason.contains("4 tags, over the limit of 3"), "{text}: {:?}", s.warnings);
        }
        let s = split("---\ntags: [a, 'b, c', \"d]\"]\n---\nbody", &limits).unwrap();
        assert_eq!(s.frontmatter.unwrap().tags.len(), 3, "{:?}", s.warnings);

        for (text, line) in [
            ("---\na: [[[[[x]]]]]\n---\nbody", 2),
            ("---\nok: 1\na: {b: {c: [d, [e]]}}\n---\nbody", 3),
            ("---\na:\n  b:\n    c:\n      d:\n        e: 1\n---\nbody", 6),
            ("---\na:\n  - - - - - x\n---\nbody", 3),
        ] {
            let s = split(text, &limits).unwrap();
            assert!(s.frontmatter.is_none(), "{text}");
            assert_eq!(s.warnings[0].line, line, "{text}: {:?}", s.warnings);
            assert!(s.warnings[0].reason.contains("deeper than 4 levels"), "{text}: {:?}", s.warnings);
        }
        // Brackets inside quotes, comments and block scalars are not nesting.
        let text = "---\na: \"[[[[[[\"\nb: '{{{{{{' # [[[[[[\nc: |\n  [[[[[[\n  {{{{{{\nd: [x]\n---\nbody";
        let s = split(text, &limits).unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.frontmatter.unwrap().rest["d"], serde_json::json!(["x"]));
    }

    #[test]
    fn hostile_frontmatter_is_rejected_in_linear_time() {
        let limits = Limits { max_bytes: usize::MAX, ..Limits::default() };
        let tags: Vec<String> = (0..150_000).map(|i| format!("t{i}")).collect();
        let nested = format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000));
        let crafted = format!("a: {}", "[ \"]\", ".repeat(20_000));
        for yaml in [format!("tags: [{}]", tags.join(", ")), nested, crafted] {
            let text = format!("---\n{yaml}\n---\nbody\n");
            let started = Instant::now();
            let s = split(&text, &limits).unwrap();
            let took = started.elapsed();
            assert!(s.frontmatter.is_none() && s.warnings.len() == 1, "{:?}", s.warnings);
            assert!(took < Duration::from_millis(500), "{} bytes took {took:?}", text.len());
        }
    }
}
