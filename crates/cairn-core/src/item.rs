use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Millis;

/// Who may see an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// Fine for shared audiences (groups, forum topics, external DMs).
    Public,
    /// Only for the owner (their DMs, main session).
    #[default]
    Private,
}

impl Audience {
    /// The lowercase name used in the store, config and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Public => "public",
            Audience::Private => "private",
        }
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Audience {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "public" | "shared" => Ok(Audience::Public),
            "private" => Ok(Audience::Private),
            other => Err(format!("unknown audience `{other}` (expected `public` or `private`)")),
        }
    }
}

/// What an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// A memory markdown file.
    File,
    /// A section of a file stored on its own.
    Section,
    /// One finished conversation turn (user + assistant).
    Turn,
    /// A stated fact.
    Fact,
    /// A document loaded from elsewhere (an eval corpus, an ingest call).
    Doc,
}

impl ItemKind {
    /// The lowercase name used in the store and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::File => "file",
            ItemKind::Section => "section",
            ItemKind::Turn => "turn",
            ItemKind::Fact => "fact",
            ItemKind::Doc => "doc",
        }
    }
}

impl fmt::Display for ItemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ItemKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "file" => ItemKind::File,
            "section" => ItemKind::Section,
            "turn" => ItemKind::Turn,
            "fact" => ItemKind::Fact,
            "doc" => ItemKind::Doc,
            other => return Err(format!("unknown item kind `{other}`")),
        })
    }
}

/// Where an item or chunk came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Provenance {
    /// Lines of a file, relative to the workspace root; lines are 1-based and inclusive.
    File {
        /// Path relative to the workspace root, `/`-separated.
        path: String,
        /// First line.
        line_start: u32,
        /// Last line.
        line_end: u32,
    },
    /// A conversation turn.
    Turn {
        /// The host's session key.
        session_key: String,
        /// The turn's id, unique within the session.
        turn_id: String,
    },
    /// Anything else: a named external source.
    External {
        /// Free-form source name, such as `locomo:conv-26`.
        source: String,
    },
}

impl Provenance {
    /// A short human-readable form: `path:12-40`, `session#turn`, or the source name.
    pub fn display(&self) -> String {
        match self {
            Provenance::File { path, line_start, line_end } => format!("{path}:{line_start}-{line_end}"),
            Provenance::Turn { session_key, turn_id } => format!("{session_key}#{turn_id}"),
            Provenance::External { source } => source.clone(),
        }
    }

    /// The workspace-relative path of a file's lines; `None` for a turn or an external source.
    pub fn file_path(&self) -> Option<&str> {
        match self {
            Provenance::File { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// The id of the item harvested from the memory file at `path` (workspace-relative, `/`-separated):
/// `memory-file:<path>`.
pub fn memory_file_id(path: &str) -> String {
    format!("memory-file:{path}")
}

/// A stored unit of memory: a file, a turn, a fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id, e.g. `memory-file:memory/daily/2026-03-18.md` or `turn:<session>:<turn>`.
    pub id: String,
    /// Project the item belongs to.
    pub project: String,
    /// What it is.
    pub kind: ItemKind,
    /// A title: frontmatter `title`, the first heading, or the file name.
    pub title: String,
    /// The whole text (frontmatter removed).
    pub text: String,
    /// Normalised tags (lowercase, deduplicated, sorted).
    pub tags: Vec<String>,
    /// Who may see it.
    pub audience: Audience,
    /// Where it came from.
    pub provenance: Provenance,
    /// Hash of the source bytes (for files) or of the stored text.
    pub content_hash: String,
    /// When it was written, only from what the item says: frontmatter `date`, else a date in its file
    /// name or path, else the captured turn's timestamp; [`crate::UNDATED`] when none.
    pub created_at: Millis,
    /// When Cairn last saw it.
    pub observed_at: Millis,
    /// Anything else the source said (extra frontmatter keys).
    pub metadata: BTreeMap<String, serde_json::Value>,
}

/// A retrievable piece of an item: a heading-aware section of a file, or a whole turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// `<item id>#<ordinal>`.
    pub id: String,
    /// The item it belongs to.
    pub item_id: String,
    /// Position within the item, from 0.
    pub ordinal: u32,
    /// Heading path of the section (`Title > Sub`), empty for the preamble.
    pub heading: String,
    /// The section's text.
    pub text: String,
    /// Where exactly it came from.
    pub provenance: Provenance,
    /// Hash of `text`.
    pub content_hash: String,
}

impl Chunk {
    /// The id of chunk `ordinal` of `item_id`.
    pub fn make_id(item_id: &str, ordinal: u32) -> String {
        format!("{item_id}#{ordinal}")
    }

    /// The whole of `item` as its one chunk (ordinal 0, no heading): its text, provenance and content
    /// hash.
    pub fn whole(item: &Item) -> Chunk {
        Chunk {
            id: Chunk::make_id(&item.id, 0),
            item_id: item.id.clone(),
            ordinal: 0,
            heading: String::new(),
            text: item.text.clone(),
            provenance: item.provenance.clone(),
            content_hash: item.content_hash.clone(),
        }
    }
}

/// Why a hit was chosen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Why {
    /// Query terms found in the text.
    pub terms: Vec<String>,
    /// Query tags the item carries.
    pub tags: Vec<String>,
    /// Lanes that found it (`lexical`, `tags`, `recency`, `vector`, `graph`).
    pub lanes: Vec<String>,
    /// Its rank (1-based) in each ranking lane that found it (`lexical`, `vector`, `tags`); the lane
    /// scores are in [`Hit::parts`].
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub ranks: std::collections::BTreeMap<String, usize>,
    /// How its date fits a date expression of the query (`2026-03-12 in 'mid-March'`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Where in the text (a byte offset, at the start of a line) the line nearest the query in
    /// meaning begins, when that is not the first line: a block that cannot show the whole text
    /// shows it from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<usize>,
}

/// A retrieved chunk with everything needed to rank, explain and render it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The chunk id.
    pub chunk_id: String,
    /// The item id.
    pub item_id: String,
    /// Project.
    pub project: String,
    /// Item kind.
    pub kind: ItemKind,
    /// Item title (with the section heading when the chunk is not the whole item).
    pub title: String,
    /// The chunk text.
    pub text: String,
    /// Item tags.
    pub tags: Vec<String>,
    /// Item audience.
    pub audience: Audience,
    /// The chunk's provenance.
    pub provenance: Provenance,
    /// The chunk's content hash.
    pub content_hash: String,
    /// Item creation time.
    pub created_at: Millis,
    /// Final fused score (higher is better).
    pub score: f32,
    /// Score per lane, before fusion.
    pub parts: BTreeMap<String, f32>,
    /// Why it matched.
    pub why: Why,
}
