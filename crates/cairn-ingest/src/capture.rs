//! Capturing finished conversation turns, with every injected context block stripped first.

use std::sync::OnceLock;

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance, content_hash, prefix};
use cairn_store::{Store, TurnOutcome, TurnRecord};
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Tags Cairn strips from captured turns by default: its own block and those of common memory plugins.
pub const DEFAULT_STRIP_TAGS: &[&str] = &[
    "cairn-context",
    "cairn-fallback",
    "cairn-task-context",
    "pack-context",
    "graphiti-context",
    "graphiti-fallback",
    "relevant-memories",
    "supermemory-context",
];

/// Options for capture: the `[capture]` section of `cairn.toml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureSettings {
    /// Injected-block tag names to strip.
    pub strip_tags: Vec<String>,
    /// Project for turns that name none.
    pub default_project: String,
    /// Audience for turns that name none.
    pub default_audience: Audience,
    /// Longest text kept per message, in bytes (longer messages are cut at a char boundary).
    pub max_message_bytes: usize,
    /// Captured turns older than this many days are forgotten (by the daemon, hourly, and by
    /// `cairn forget --expired`); 0 keeps them forever.
    pub retention_days: u32,
}

impl Default for CaptureSettings {
    fn default() -> Self {
        Self {
            strip_tags: DEFAULT_STRIP_TAGS.iter().map(|s| s.to_string()).collect(),
            default_project: cairn_core::DEFAULT_PROJECT.into(),
            default_audience: Audience::Private,
            max_message_bytes: 256 * 1024,
            retention_days: 0,
        }
    }
}

/// A message in the host's shape: `{role, content}` with content a string or a list of parts.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Message {
    /// `user`, `assistant`, `system`, `tool`, ...
    pub role: String,
    /// A string, or parts like `{"type": "text", "text": "..."}`.
    #[serde(default)]
    pub content: serde_json::Value,
}

/// A finished turn as given to `cairn capture` (JSON on stdin) or the capture endpoint.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TurnInput {
    /// The host's session key.
    pub session_key: String,
    /// Turn id, unique within the session; derived from the content when absent.
    #[serde(default)]
    pub turn_id: Option<String>,
    /// The user's message.
    #[serde(default)]
    pub user: Option<String>,
    /// The assistant's reply.
    #[serde(default)]
    pub assistant: Option<String>,
    /// Alternatively, the run's messages; the last user message and the assistant messages after it are used.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// When the turn finished: RFC 3339 or milliseconds since the epoch; now when absent.
    #[serde(default)]
    pub timestamp: Option<serde_json::Value>,
    /// Whether the run succeeded; failed runs are skipped.
    #[serde(default)]
    pub success: Option<bool>,
    /// Project of the session.
    #[serde(default)]
    pub project: Option<String>,
    /// Audience of the session (`public` or `private`).
    #[serde(default)]
    pub audience: Option<Audience>,
    /// The session that spawned this turn's (sub-agent) session. Set by the engine from its spawn
    /// records, never read from a request.
    #[serde(skip)]
    pub spawned_by: Option<String>,
}

/// What capture did with a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CaptureOutcome {
    /// Stored as a new item.
    Stored {
        /// The item id.
        item_id: String,
        /// The turn id used.
        turn_id: String,
        /// Ingest-log sequence.
        seq: u64,
    },
    /// Already captured before (same session key and turn id).
    Duplicate {
        /// The existing item id.
        item_id: String,
        /// The turn id.
        turn_id: String,
    },
    /// Not stored, and why.
    Skipped {
        /// The reason.
        reason: String,
    },
}

fn text_of(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Object(o)
                    if o.get("type").and_then(|t| t.as_str()).is_none_or(|t| t == "text") =>
                {
                    o.get("text").and_then(|t| t.as_str()).map(str::to_owned)
                }
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn tag_regex(tags: &[String]) -> Regex {
    let names: Vec<String> = tags.iter().map(|t| regex::escape(t)).collect();
    Regex::new(&format!(r"(?i)<\s*(/?)\s*(?:{})(?:\s[^<>]*?)?\s*(/?)\s*>", names.join("|")))
        .expect("escaped tag names always compile")
}

/// Remove every injected block named in `tags` from `text`.
///
/// Nested blocks are removed whole. An opening tag that is never closed removes everything after it (the
/// injected context is prepended, so what follows an unclosed opener is that context); a closing tag with no
/// opener removes everything before it for the same reason. Self-closing tags are dropped.
pub fn strip_injected(text: &str, tags: &[String]) -> String {
    if tags.is_empty() || !text.contains('<') {
        return text.trim().to_owned();
    }
    /// The regex for the last tag list used (capture runs with one configured list).
    type Cached = std::sync::Mutex<Option<(Vec<String>, Regex)>>;
    static CACHE: OnceLock<Cached> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let re = {
        let mut guard = cache.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some((t, re)) if t == tags => re.clone(),
            _ => {
                let re = tag_regex(tags);
                *guard = Some((tags.to_vec(), re.clone()));
                re
            }
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    let mut kept_from = 0usize; // start of text not yet copied, when depth == 0
    for m in re.captures_iter(text) {
        let whole = m.get(0).expect("match");
        let closing = !m[1].is_empty();
        let self_closing = !m[2].is_empty();
        if self_closing && !closing {
            if depth == 0 {
                out.push_str(&text[kept_from..whole.start()]);
                kept_from = whole.end();
            }
            continue;
        }
        if !closing {
            if depth == 0 {
                out.push_str(&text[kept_from..whole.start()]);
            }
            depth += 1;
        } else if depth > 0 {
            depth -= 1;
            if depth == 0 {
                kept_from = whole.end();
            }
        } else {
            // A stray closer: what came before it was injected context whose opener was lost.
            out.clear();
            kept_from = whole.end();
        }
    }
    if depth == 0 {
        out.push_str(&text[kept_from..]);
    }
    collapse_blank_lines(out.trim())
}

fn collapse_blank_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.trim_end().to_owned()
}

fn parse_ts(v: Option<&serde_json::Value>, now: Millis) -> Result<Millis> {
    match v {
        None | Some(serde_json::Value::Null) => Ok(now),
        Some(serde_json::Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .ok_or_else(|| Error::BadTurn(format!("timestamp `{n}` is not a number of milliseconds"))),
        Some(serde_json::Value::String(s)) => crate::harvest::parse_date(s)
            .ok_or_else(|| Error::BadTurn(format!("timestamp `{s}` is not RFC 3339 or YYYY-MM-DD"))),
        Some(other) => Err(Error::BadTurn(format!("timestamp must be a string or a number, got `{other}`"))),
    }
}

/// The (user, assistant) texts of a turn input, before stripping.
fn texts(input: &TurnInput) -> (String, String) {
    if input.user.is_some() || input.assistant.is_some() {
        return (input.user.clone().unwrap_or_default(), input.assistant.clone().unwrap_or_default());
    }
    let last_user = input.messages.iter().rposition(|m| m.role == "user");
    let user = last_user.map(|i| text_of(&input.messages[i].content)).unwrap_or_default();
    let assistant = input.messages[last_user.map_or(0, |i| i + 1)..]
        .iter()
        .filter(|m| m.role == "assistant")
        .map(|m| text_of(&m.content))
        .filter(|t| !t.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    (user, assistant)
}

/// Message roles a host may send; any other role is an error (never silently dropped).
pub const ROLES: &[&str] = &["user", "assistant", "system", "tool", "developer"];

/// Checks a turn the way [`capture`] will read it, without storing anything: a session key, a timestamp
/// that parses, known message roles, and something to store. A daemon calls this before it
/// acknowledges a capture, so what it acknowledges is what it stores.
pub fn validate(input: &TurnInput) -> Result<()> {
    if input.session_key.trim().is_empty() {
        return Err(Error::BadTurn("`session_key` is empty".into()));
    }
    parse_ts(input.timestamp.as_ref(), 0)?;
    for (i, m) in input.messages.iter().enumerate() {
        if !ROLES.contains(&m.role.as_str()) {
            return Err(Error::BadTurn(format!(
                "`messages[{i}].role` is `{}`; expected one of {}",
                m.role,
                ROLES.join(", ")
            )));
        }
    }
    if input.messages.is_empty() && input.user.is_none() && input.assistant.is_none() {
        return Err(Error::BadTurn("a turn needs `messages` or `user`/`assistant`".into()));
    }
    Ok(())
}

/// Capture one finished turn into `store`.
///
/// Failed runs and turns with nothing left after stripping are skipped; a turn id seen before in the same
/// session is a duplicate and changes nothing. `now` is used when the turn carries no timestamp.
pub fn capture(
    store: &mut dyn Store,
    opts: &CaptureSettings,
    input: &TurnInput,
    now: Millis,
) -> Result<CaptureOutcome> {
    if input.session_key.trim().is_empty() {
        return Err(Error::BadTurn("`session_key` is empty".into()));
    }
    if input.success == Some(false) {
        return Ok(CaptureOutcome::Skipped { reason: "the run failed".into() });
    }
    validate(input)?;
    let ts = parse_ts(input.timestamp.as_ref(), now)?;
    let (user_raw, assistant_raw) = texts(input);
    let user = strip_injected(prefix(&user_raw, opts.max_message_bytes), &opts.strip_tags);
    let assistant = strip_injected(prefix(&assistant_raw, opts.max_message_bytes), &opts.strip_tags);
    if user.is_empty() && assistant.is_empty() {
        return Ok(CaptureOutcome::Skipped { reason: "nothing left after stripping injected blocks".into() });
    }
    let turn_id = match &input.turn_id {
        Some(t) if !t.trim().is_empty() => t.trim().to_owned(),
        _ => content_hash(format!("{}\u{0}{ts}\u{0}{user}\u{0}{assistant}", input.session_key).as_bytes())
            [..16]
            .to_owned(),
    };
    let mut text = String::new();
    if !user.is_empty() {
        text.push_str("User: ");
        text.push_str(&user);
    }
    if !assistant.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("Assistant: ");
        text.push_str(&assistant);
    }
    let title_src = if user.is_empty() { &assistant } else { &user };
    let mut title: String = title_src.lines().next().unwrap_or_default().chars().take(80).collect();
    if title_src.chars().count() > 80 {
        title.push('…');
    }
    let item_id = format!("turn:{}:{turn_id}", input.session_key);
    let provenance = Provenance::Turn { session_key: input.session_key.clone(), turn_id: turn_id.clone() };
    let project = input.project.clone().unwrap_or_else(|| opts.default_project.clone());
    let audience = input.audience.unwrap_or(opts.default_audience);
    let hash = content_hash(text.as_bytes());
    let chunk = Chunk {
        id: Chunk::make_id(&item_id, 0),
        item_id: item_id.clone(),
        ordinal: 0,
        heading: String::new(),
        text: text.clone(),
        provenance: provenance.clone(),
        content_hash: hash.clone(),
    };
    let mut item = Item {
        id: item_id,
        project: project.clone(),
        kind: ItemKind::Turn,
        title,
        text,
        tags: vec![],
        audience,
        provenance,
        content_hash: hash,
        created_at: ts,
        observed_at: now,
        metadata: Default::default(),
    };
    // The turn before it in the session situates it: recall indexes and embeds it as the turn's context.
    if let Some(prev) = store.previous_turn(&input.session_key, ts, &turn_id)? {
        item.set_context(&prev.text);
        item.set_previous(&prev.id);
    }
    if let Some(parent) = &input.spawned_by {
        item.set_spawned_by(parent);
    }
    let record = TurnRecord {
        session_key: input.session_key.clone(),
        turn_id: turn_id.clone(),
        project,
        audience,
        ts,
        item,
    };
    Ok(match store.record_turn(&record, vec![chunk])? {
        TurnOutcome::Stored { item_id, seq } => CaptureOutcome::Stored { item_id, turn_id, seq },
        TurnOutcome::Duplicate { item_id } => CaptureOutcome::Duplicate { item_id, turn_id },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(s: &str) -> String {
        let tags: Vec<String> = DEFAULT_STRIP_TAGS.iter().map(|s| s.to_string()).collect();
        strip_injected(s, &tags)
    }

    #[test]
    fn strips_blocks() {
        let cases = [
            ("<cairn-context>\nold memory\n</cairn-context>\n\nWhat is up?", "What is up?"),
            ("<pack-context intent=\"x\" scope=\"private\">steps</pack-context>Hi", "Hi"),
            ("a <GRAPHITI-CONTEXT>x</graphiti-context> b", "a  b"),
            // nested, including a different injected tag inside
            ("<pack-context><cairn-context>in</cairn-context> still in</pack-context>out", "out"),
            // same tag nested
            ("<relevant-memories>a<relevant-memories>b</relevant-memories>c</relevant-memories>keep", "keep"),
            // unclosed opener: everything after it is injected
            ("keep this <supermemory-context> lost forever", "keep this"),
            // stray closer: everything before it is injected
            ("injected stuff</graphiti-fallback>\nreal question", "real question"),
            // self-closing tag
            ("a<cairn-fallback/>b", "ab"),
            // other tags untouched
            ("<b>bold</b> and <code>x</code>", "<b>bold</b> and <code>x</code>"),
            ("<pack-contextual>not ours</pack-contextual>", "<pack-contextual>not ours</pack-contextual>"),
        ];
        for (input, want) in cases {
            assert_eq!(strip(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn a_turn_carries_the_previous_turn_as_context_and_link() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = cairn_store::SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
        let opts = CaptureSettings::default();
        let turn = |id: &str, user: &str, ts: i64| TurnInput {
            session_key: "s1".into(),
            turn_id: Some(id.into()),
            user: Some(user.into()),
            assistant: Some("ok".into()),
            timestamp: Some(serde_json::json!(ts)),
            ..Default::default()
        };
        let stored = |o: CaptureOutcome| match o {
            CaptureOutcome::Stored { item_id, .. } => item_id,
            other => panic!("not stored: {other:?}"),
        };
        let first = stored(capture(&mut store, &opts, &turn("a", "Which GRIB file broke?", 10), 0).unwrap());
        let second = stored(capture(&mut store, &opts, &turn("b", "Fix it", 20), 0).unwrap());
        let mut other = turn("c", "Unrelated", 30);
        other.session_key = "s2".into();
        let third = stored(capture(&mut store, &opts, &other, 0).unwrap());
        let get = |id: &str| store.get_item(id).unwrap().unwrap();
        assert_eq!(get(&first).context(), None);
        assert_eq!(get(&second).context(), Some("User: Which GRIB file broke?\n\nAssistant: ok"));
        assert_eq!(get(&third).context(), None, "another session's turn is no context");
        // The link recall lends score along.
        assert_eq!(get(&first).previous(), None);
        assert_eq!(get(&second).previous(), Some(first.as_str()));
        assert_eq!(get(&third).previous(), None);
    }

    #[test]
    fn messages_shape() {
        let input: TurnInput = serde_json::from_value(serde_json::json!({
            "session_key": "agent:main:main",
            "messages": [
                {"role": "user", "content": "old"},
                {"role": "assistant", "content": "old reply"},
                {"role": "user", "content": [{"type": "text", "text": "<cairn-context>x</cairn-context>new q"}]},
                {"role": "assistant", "content": "new a"},
            ]
        }))
        .unwrap();
        let (u, a) = texts(&input);
        assert_eq!(a, "new a");
        assert_eq!(strip(&u), "new q");
    }
}
