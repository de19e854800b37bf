//! YAML frontmatter: `---` on the first line, YAML, `---` (or `...`) on its own line.

use std::collections::BTreeMap;

use serde_json::Value;

/// Parsed frontmatter fields Cairn understands, plus everything else as metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// `title`.
    pub title: Option<String>,
    /// `tags` (a list, or a comma/space separated string).
    pub tags: Vec<String>,
    /// `date` as written.
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

/// Split `text` into (frontmatter, body, the body's first line number).
///
/// Files without a leading `---` line have no frontmatter; the body is then the whole text.
pub fn split(text: &str) -> Result<(Option<Frontmatter>, &str, u32), FrontmatterError> {
    let first_line_end = text.find('\n').map_or(text.len(), |i| i + 1);
    if text[..first_line_end].trim_end() != "---" {
        return Ok((None, text, 1));
    }
    let mut offset = first_line_end;
    let mut line = 2u32;
    while offset < text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1);
        let l = text[offset..end].trim_end();
        if l == "---" || l == "..." {
            let yaml = &text[first_line_end..offset];
            let fm = parse_yaml(yaml)?;
            return Ok((Some(fm), &text[end..], line + 1));
        }
        offset = end;
        line += 1;
    }
    Err(FrontmatterError {
        line: 1,
        reason: "unterminated frontmatter: `---` on line 1 is never closed".into(),
    })
}

fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(Frontmatter::default());
    }
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| FrontmatterError {
        // YAML lines count from the line after the opening `---`.
        line: e.location().map_or(1, |l| l.line() as u32 + 1),
        reason: format!("malformed frontmatter: {}", strip_location(&e.to_string())),
    })?;
    let map = match value {
        serde_yaml_ng::Value::Mapping(m) => m,
        serde_yaml_ng::Value::Null => return Ok(Frontmatter::default()),
        other => {
            return Err(FrontmatterError {
                line: 2,
                reason: format!("frontmatter must be a mapping of keys to values, found {}", kind(&other)),
            });
        }
    };
    let mut fm = Frontmatter::default();
    for (k, v) in map {
        let key = match k {
            serde_yaml_ng::Value::String(s) => s,
            other => yaml_scalar(&other).unwrap_or_else(|| format!("{other:?}")),
        };
        let json: Value = serde_json::to_value(&v).unwrap_or(Value::Null);
        match key.to_ascii_lowercase().as_str() {
            "title" => fm.title = yaml_scalar(&v),
            "tags" | "tag" | "keywords" => fm.tags.extend(tag_list(&v)),
            "date" | "created" => fm.date = yaml_scalar(&v),
            "project" => fm.project = yaml_scalar(&v),
            "audience" | "visibility" => fm.audience = yaml_scalar(&v),
            _ => {
                fm.rest.insert(key, json);
            }
        }
    }
    Ok(fm)
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
        serde_yaml_ng::Value::String(_) => "a string",
        serde_yaml_ng::Value::Number(_) => "a number",
        serde_yaml_ng::Value::Bool(_) => "a boolean",
        _ => "something else",
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

fn tag_list(v: &serde_yaml_ng::Value) -> Vec<String> {
    match v {
        serde_yaml_ng::Value::Sequence(items) => items.iter().filter_map(yaml_scalar).collect(),
        serde_yaml_ng::Value::String(s) => {
            s.split([',', ' ']).map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect()
        }
        other => yaml_scalar(other).into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_fields_and_keeps_the_rest() {
        let text = "---\ntitle: Weekly sync\ntags: [Alpha, beta]\ndate: 2026-03-18\nproject: apollo\nowner: sam\n---\n# Body\n";
        let (fm, body, line) = split(text).unwrap();
        let fm = fm.unwrap();
        assert_eq!(fm.title.as_deref(), Some("Weekly sync"));
        assert_eq!(fm.tags, ["Alpha", "beta"]);
        assert_eq!(fm.date.as_deref(), Some("2026-03-18"));
        assert_eq!(fm.project.as_deref(), Some("apollo"));
        assert_eq!(fm.rest["owner"], "sam");
        assert_eq!(body, "# Body\n");
        assert_eq!(line, 8);
    }

    #[test]
    fn no_frontmatter_and_string_tags() {
        let (fm, body, line) = split("# Just text\n").unwrap();
        assert!(fm.is_none());
        assert_eq!((body, line), ("# Just text\n", 1));
        let (fm, ..) = split("---\ntags: a, b c\n---\n").unwrap();
        assert_eq!(fm.unwrap().tags, ["a", "b", "c"]);
    }

    #[test]
    fn errors_carry_file_lines() {
        let err = split("---\ntitle: x\ntags: [a, b\n").unwrap_err();
        assert!(err.reason.contains("unterminated"), "{err:?}");
        let err = split("---\ntitle: ok\ntags: [a, b\nmore: x\n---\nbody").unwrap_err();
        assert!(err.reason.starts_with("malformed frontmatter"), "{err:?}");
        assert!(err.line >= 3, "{err:?}");
        let err = split("---\n- a\n- b\n---\nbody").unwrap_err();
        assert!(err.reason.contains("mapping"), "{err:?}");
    }
}
