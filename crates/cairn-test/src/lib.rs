//! Fixtures shared by Cairn's tests and benchmarks: an [`Item`] builder, the one chunk of an item
//! ([`chunk_of`]), the [`Hit`] of that chunk, [`copy_dir`] for copying a workspace or config, and a
//! throw-away PostgreSQL server ([`postgres::server`]). A dev-dependency only: no library depends on it.
//!
//! ```
//! use cairn_core::{Audience, ItemKind};
//!
//! let (item, chunks) = cairn_test::item("fact:boat")
//!     .kind(ItemKind::Fact)
//!     .title("Boat")
//!     .text("The sailing boat is moored at pier nine.")
//!     .audience(Audience::Public)
//!     .tags(["boat"])
//!     .created_at(1_700_000_000_000)
//!     .with_chunk();
//! assert_eq!(item.content_hash, cairn_core::content_hash(item.text.as_bytes()));
//! assert_eq!((chunks[0].id.as_str(), chunks[0].text.as_str()), ("fact:boat#0", item.text.as_str()));
//! ```
#![warn(missing_docs)]

pub mod postgres;

use std::path::Path;

use cairn_core::{Audience, Chunk, Hit, Item, ItemKind, Millis, Provenance, Why, content_hash};

/// When [`fact`]s were written and seen: 2023-11-14T22:13:20Z.
pub const FACT_AT: Millis = 1_700_000_000_000;

/// A builder of the item `id`. Unless set: project `default`, kind [`ItemKind::Fact`], empty title,
/// text and tags, [`Audience::Private`], provenance `External { source: "test" }`, created and observed
/// at 0, no metadata, and the content hash of the text.
pub fn item(id: impl Into<String>) -> ItemBuilder {
    ItemBuilder {
        item: Item {
            id: id.into(),
            project: "default".into(),
            kind: ItemKind::Fact,
            title: String::new(),
            text: String::new(),
            tags: Vec::new(),
            audience: Audience::Private,
            provenance: Provenance::External { source: "test".into() },
            content_hash: String::new(),
            created_at: 0,
            observed_at: 0,
            metadata: Default::default(),
        },
        content_hash: None,
    }
}

/// A stated fact (kind `fact`, project `default`, from `External { source: "test" }`, no tags), written
/// and seen at [`FACT_AT`].
pub fn fact(id: &str, title: &str, text: &str, audience: Audience) -> Item {
    item(id).title(title).text(text).audience(audience).created_at(FACT_AT).observed_at(FACT_AT).build()
}

/// Copies the tree `from` to `to` (folders created).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// The one chunk (ordinal 0) of `item`: its whole text, provenance and content hash, no heading
/// ([`Chunk::whole`]).
pub fn chunk_of(item: &Item) -> Chunk {
    Chunk::whole(item)
}

/// An [`Item`] under construction; see [`item`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ItemBuilder {
    item: Item,
    content_hash: Option<String>,
}

impl ItemBuilder {
    /// The project.
    pub fn project(mut self, project: impl Into<String>) -> Self {
        self.item.project = project.into();
        self
    }

    /// The kind.
    pub fn kind(mut self, kind: ItemKind) -> Self {
        self.item.kind = kind;
        self
    }

    /// The title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.item.title = title.into();
        self
    }

    /// The text (the content hash follows it unless [`content_hash`](Self::content_hash) is set).
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.item.text = text.into();
        self
    }

    /// The tags, as given (not normalised).
    pub fn tags<T: AsRef<str>>(mut self, tags: impl IntoIterator<Item = T>) -> Self {
        self.item.tags = tags.into_iter().map(|t| t.as_ref().to_owned()).collect();
        self
    }

    /// The audience.
    pub fn audience(mut self, audience: Audience) -> Self {
        self.item.audience = audience;
        self
    }

    /// The provenance.
    pub fn provenance(mut self, provenance: Provenance) -> Self {
        self.item.provenance = provenance;
        self
    }

    /// Lines `line_start..=line_end` of the file at `path`.
    pub fn file(self, path: impl Into<String>, line_start: u32, line_end: u32) -> Self {
        self.provenance(Provenance::File { path: path.into(), line_start, line_end })
    }

    /// A named external source.
    pub fn external(self, source: impl Into<String>) -> Self {
        self.provenance(Provenance::External { source: source.into() })
    }

    /// A content hash of its own, instead of the hash of the text.
    pub fn content_hash(mut self, hash: impl Into<String>) -> Self {
        self.content_hash = Some(hash.into());
        self
    }

    /// When it was written.
    pub fn created_at(mut self, at: Millis) -> Self {
        self.item.created_at = at;
        self
    }

    /// When Cairn last saw it.
    pub fn observed_at(mut self, at: Millis) -> Self {
        self.item.observed_at = at;
        self
    }

    /// The item.
    pub fn build(self) -> Item {
        let mut item = self.item;
        item.content_hash = self.content_hash.unwrap_or_else(|| content_hash(item.text.as_bytes()));
        item
    }

    /// The item and its one chunk ([`chunk_of`]).
    pub fn with_chunk(self) -> (Item, Vec<Chunk>) {
        let item = self.build();
        let chunk = chunk_of(&item);
        (item, vec![chunk])
    }

    /// The hit of the item's one chunk, with `score`, no lane scores and no reasons.
    pub fn hit(self, score: f32) -> Hit {
        let item = self.build();
        Hit {
            chunk_id: Chunk::make_id(&item.id, 0),
            item_id: item.id,
            project: item.project,
            kind: item.kind,
            title: item.title,
            text: item.text,
            tags: item.tags,
            audience: item.audience,
            provenance: item.provenance,
            content_hash: item.content_hash,
            created_at: item.created_at,
            score,
            parts: Default::default(),
            why: Why::default(),
        }
    }
}
