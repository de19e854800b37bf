//! An item's context: text that situates the item without being part of it. For a conversation turn,
//! the turn before it in its session ("Yes, it was so powerful!" means little without the question it
//! answers).
//!
//! Recall indexes the context in its own, lower-weighted full-text field and embeds it in front of each
//! chunk's text; hits, assembly and receipts show the item's own text only.

use crate::Item;

/// The [`Item::metadata`] key holding the context.
pub const CONTEXT_KEY: &str = "context";

/// The [`Item::metadata`] key holding the id of the item just before this one in its sequence: a
/// turn's previous turn in its session. Recall lets consecutive turns lend each other score.
pub const PREVIOUS_KEY: &str = "previous";

/// The [`Item::metadata`] key holding the session key of the session that spawned a sub-agent's
/// turn: the graph links the turn to that session (`spawned_by`).
pub const SPAWNED_BY_KEY: &str = "spawned_by";

/// Longest context kept, in bytes: about a hundred tokens, at most half the 256-token window of small
/// sentence embedders, so the item's own text always keeps most of the window.
pub const MAX_CONTEXT_BYTES: usize = 512;

impl Item {
    /// The item's context (see [the module](self)), when it has one.
    pub fn context(&self) -> Option<&str> {
        self.metadata.get(CONTEXT_KEY).and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty())
    }

    /// The id of the item before this one in its sequence (see [`PREVIOUS_KEY`]), when it has one.
    pub fn previous(&self) -> Option<&str> {
        self.metadata.get(PREVIOUS_KEY).and_then(|v| v.as_str()).filter(|s| !s.is_empty())
    }

    /// Records the item before this one in its sequence (an empty id removes it).
    pub fn set_previous(&mut self, item_id: &str) {
        if item_id.is_empty() {
            self.metadata.remove(PREVIOUS_KEY);
        } else {
            self.metadata.insert(PREVIOUS_KEY.to_owned(), serde_json::Value::String(item_id.to_owned()));
        }
    }

    /// The session key of the session that spawned this turn's sub-agent session (see
    /// [`SPAWNED_BY_KEY`]), when it has one.
    pub fn spawned_by(&self) -> Option<&str> {
        self.metadata.get(SPAWNED_BY_KEY).and_then(|v| v.as_str()).filter(|s| !s.is_empty())
    }

    /// Records the session that spawned this turn's session (an empty key removes it).
    pub fn set_spawned_by(&mut self, session_key: &str) {
        if session_key.is_empty() {
            self.metadata.remove(SPAWNED_BY_KEY);
        } else {
            self.metadata
                .insert(SPAWNED_BY_KEY.to_owned(), serde_json::Value::String(session_key.to_owned()));
        }
    }

    /// Sets the context (an empty text removes it), cut as [`context_of`] does.
    pub fn set_context(&mut self, text: &str) {
        let ctx = context_of(text);
        if ctx.is_empty() {
            self.metadata.remove(CONTEXT_KEY);
        } else {
            self.metadata.insert(CONTEXT_KEY.to_owned(), serde_json::Value::String(ctx));
        }
    }
}

/// The context derived from the text that precedes an item (a previous turn): its last
/// [`MAX_CONTEXT_BYTES`], starting at a word boundary when the text is cut, trimmed.
pub fn context_of(preceding: &str) -> String {
    let text = preceding.trim();
    if text.len() <= MAX_CONTEXT_BYTES {
        return text.to_owned();
    }
    let mut start = text.len() - MAX_CONTEXT_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let tail = &text[start..];
    // Drop the partial word the cut landed in.
    match tail.find(char::is_whitespace) {
        Some(i) if i < tail.len() / 2 => tail[i..].trim_start().to_owned(),
        _ => tail.to_owned(),
    }
}

/// The text a chunk is embedded as: the item's context, the title (with the section heading) and the
/// chunk text, one per line; the title is left out when the text already starts with it.
pub fn embed_text(title: &str, heading: &str, text: &str, context: &str) -> String {
    let title = title.trim();
    let heading = heading.trim();
    let head = if heading.is_empty() || heading == title {
        title.to_owned()
    } else if title.is_empty() || heading.starts_with(title) {
        heading.to_owned()
    } else {
        format!("{title} > {heading}")
    };
    let mut out = String::with_capacity(context.len() + head.len() + text.len() + 2);
    let context = context.trim();
    if !context.is_empty() {
        out.push_str(context);
        out.push('\n');
    }
    if !head.is_empty() && !text.trim_start().starts_with(&head) {
        out.push_str(&head);
        out.push('\n');
    }
    out.push_str(text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_the_tail_cut_at_a_word() {
        assert_eq!(context_of("  short turn \n"), "short turn");
        let long = format!("{} end of the previous turn", "word ".repeat(200));
        let ctx = context_of(&long);
        assert!(ctx.len() <= MAX_CONTEXT_BYTES);
        assert!(ctx.ends_with("end of the previous turn"));
        assert!(ctx.starts_with("word "), "{ctx:?}");
        // Multi-byte characters at the cut.
        let ctx = context_of(&"é".repeat(600));
        assert!(ctx.len() <= MAX_CONTEXT_BYTES && ctx.chars().all(|c| c == 'é'));
    }

    #[test]
    fn embed_text_layout() {
        let cases = [
            (
                ("", "", "Melanie: Yes!", "Caroline: Did you like it?"),
                "Caroline: Did you like it?\nMelanie: Yes!",
            ),
            (("GRIB parser", "", "It crashed.", ""), "GRIB parser\nIt crashed."),
            (("GRIB parser", "Bugs", "It crashed.", ""), "GRIB parser > Bugs\nIt crashed."),
            (("Notes", "", "Notes\nbody", ""), "Notes\nbody"),
            (("T", "", "x", "  "), "T\nx"),
        ];
        for ((title, heading, text, context), want) in cases {
            assert_eq!(embed_text(title, heading, text, context), want);
        }
    }
}
