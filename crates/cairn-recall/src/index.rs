//! The derived full-text index: schema, open/create, and the write side.

use std::path::{Path, PathBuf};

use cairn_core::{Audience, Chunk, Hit, Item, ItemKind, Provenance};
use serde::{Deserialize, Serialize};
use tantivy::directory::MmapDirectory;
use tantivy::schema::document::{
    DeserializeError, DocumentDeserialize, DocumentDeserializer, ValueDeserialize, ValueDeserializer,
    ValueVisitor,
};
use tantivy::schema::{
    Field, FieldType, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexSettings, TantivyDocument, Term};

use crate::analyzer::{CairnTokenizer, TOKENIZER_NAME};
use crate::error::{Error, Result};
use crate::implied::implied_words;
use crate::mentions::mentioned_days;

/// Version of the index layout (fields, tokenizer). Bump on any change to either: old indexes are then
/// reported as [`Error::SchemaMismatch`] and rebuilt from the store.
pub const SCHEMA_VERSION: u32 = 10;

/// File written next to the tantivy files, naming the layout version.
const MARKER_FILE: &str = "cairn-recall.json";

/// Default writer heap (bytes). tantivy needs at least 15 MB per thread.
const WRITER_HEAP_BYTES: usize = 64 << 20;

#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    format: String,
    schema_version: u32,
}

/// The payload of every commit: which store sequence the index reflects.
#[derive(Debug, Serialize, Deserialize)]
struct CommitPayload {
    schema_version: u32,
    store_seq: u64,
}

/// Field handles of the schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    pub chunk_id: Field,
    pub item_id: Field,
    pub project: Field,
    pub audience: Field,
    pub kind: Field,
    pub title: Field,
    pub body: Field,
    /// The item's context (a turn's previous turn): searchable, not stored.
    pub context: Field,
    pub tags: Field,
    pub provenance: Field,
    pub content_hash: Field,
    pub created_at: Field,
    pub order_key: Field,
    /// [`order_key`] of the item id, and of the id of the item before it in its sequence (0: none).
    pub item_key: Field,
    pub previous_key: Field,
    /// The days the chunk's text names with their year ([`mentioned_days`]), as [`F_CREATED_AT`] is.
    pub mentions: Field,
}

pub(crate) const F_CHUNK_ID: &str = "chunk_id";
pub(crate) const F_PROJECT: &str = "project";
pub(crate) const F_AUDIENCE: &str = "audience";
pub(crate) const F_TAGS: &str = "tags";
pub(crate) const F_CREATED_AT: &str = "created_at";
/// A fast u64 derived from the chunk id only: breaks ties (same date) the same way whatever the
/// index's document order.
pub(crate) const F_ORDER_KEY: &str = "order_key";
/// Fast u64s linking consecutive turns: the item's key, and its previous item's key (0: none).
pub(crate) const F_ITEM_KEY: &str = "item_key";
pub(crate) const F_PREVIOUS_KEY: &str = "previous_key";
/// A fast multi-valued i64: the days a chunk names ([`Fields::mentions`]).
pub(crate) const F_MENTIONS: &str = "mentions";

/// The key of an item in [`F_ITEM_KEY`] / [`F_PREVIOUS_KEY`]: never 0, which means "none".
pub(crate) fn sequence_key(item_id: &str) -> u64 {
    order_key(item_id).max(1)
}

/// The tie-break key of a chunk id (the first 64 bits of its content hash).
pub(crate) fn order_key(chunk_id: &str) -> u64 {
    u64::from_str_radix(&cairn_core::content_hash(chunk_id.as_bytes())[..16], 16).unwrap_or(0)
}

/// Field ids, in the order [`schema`] adds the fields (checked there): the stored-hit reader matches on
/// them without a schema at hand.
struct FieldId;

impl FieldId {
    const CHUNK_ID: u32 = 0;
    const ITEM_ID: u32 = 1;
    const PROJECT: u32 = 2;
    const AUDIENCE: u32 = 3;
    const KIND: u32 = 4;
    const TITLE: u32 = 5;
    const BODY: u32 = 6;
    const TAGS: u32 = 7;
    const PROVENANCE: u32 = 8;
    const CONTENT_HASH: u32 = 9;
    const CREATED_AT: u32 = 10;
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_stored().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER_NAME)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        chunk_id: b.add_text_field(F_CHUNK_ID, STRING.set_fast("raw") | STORED),
        item_id: b.add_text_field("item_id", STRING | STORED),
        project: b.add_text_field(F_PROJECT, STRING.set_fast("raw") | STORED),
        audience: b.add_text_field(F_AUDIENCE, STRING.set_fast("raw") | STORED),
        kind: b.add_text_field("kind", STORED),
        title: b.add_text_field("title", text.clone()),
        body: b.add_text_field("body", text.clone()),
        tags: b.add_text_field(F_TAGS, STRING.set_fast("raw") | STORED),
        provenance: b.add_text_field("provenance", STORED),
        content_hash: b.add_text_field("content_hash", STORED),
        created_at: b.add_i64_field(F_CREATED_AT, NumericOptions::default().set_fast().set_stored()),
        order_key: b.add_u64_field(F_ORDER_KEY, NumericOptions::default().set_fast()),
        // Last: the stored fields' ids (`FieldId`) are positions in the schema.
        context: b.add_text_field(
            "context",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(TOKENIZER_NAME)
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        ),
        item_key: b.add_u64_field(F_ITEM_KEY, NumericOptions::default().set_fast()),
        previous_key: b.add_u64_field(F_PREVIOUS_KEY, NumericOptions::default().set_fast()),
        mentions: b.add_i64_field(F_MENTIONS, NumericOptions::default().set_fast()),
    };
    let ids = [
        (fields.chunk_id, FieldId::CHUNK_ID),
        (fields.item_id, FieldId::ITEM_ID),
        (fields.project, FieldId::PROJECT),
        (fields.audience, FieldId::AUDIENCE),
        (fields.kind, FieldId::KIND),
        (fields.title, FieldId::TITLE),
        (fields.body, FieldId::BODY),
        (fields.tags, FieldId::TAGS),
        (fields.provenance, FieldId::PROVENANCE),
        (fields.content_hash, FieldId::CONTENT_HASH),
        (fields.created_at, FieldId::CREATED_AT),
    ];
    assert!(ids.iter().all(|(f, id)| f.field_id() == *id), "FieldId follows the schema's order");
    (b.build(), fields)
}

/// Small doc-store blocks: a hit reads (and decompresses) one block, so smaller blocks mean faster hits.
fn index_settings() -> IndexSettings {
    IndexSettings { docstore_blocksize: 4096, ..Default::default() }
}

fn register_tokenizers(index: &Index) {
    index.tokenizers().register(TOKENIZER_NAME, TextAnalyzer::from(CairnTokenizer::default()));
}

/// Normalises a tag the way the index stores it: trimmed, lowercase.
pub(crate) fn normalize_tag(tag: &str) -> String {
    tag.trim().to_lowercase()
}

/// Between an item's title and a section heading in a chunk's title.
const TITLE_SEPARATOR: &str = " > ";

/// The title shown for a chunk: the item title, with the section heading when there is one.
pub(crate) fn chunk_title(item_title: &str, heading: &str) -> String {
    let heading = heading.trim();
    if heading.is_empty() || heading == item_title {
        item_title.to_owned()
    } else if item_title.is_empty() || heading.starts_with(item_title) {
        heading.to_owned()
    } else {
        format!("{item_title}{TITLE_SEPARATOR}{heading}")
    }
}

/// The item's title in a chunk's title ([`chunk_title`]): "Colin Pask" in "Colin Pask > Notes".
pub(crate) fn item_title_of(chunk_title: &str) -> &str {
    chunk_title.split(TITLE_SEPARATOR).next().unwrap_or(chunk_title)
}

/// A tantivy index of chunks in a directory (or in memory), derived from the store and rebuildable.
///
/// One document per [`Chunk`], carrying what a [`Hit`] needs, so recall never reads the store.
#[derive(Clone)]
pub struct RecallIndex {
    pub(crate) index: Index,
    pub(crate) fields: Fields,
    path: Option<PathBuf>,
}

impl std::fmt::Debug for RecallIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecallIndex").field("path", &self.path).finish_non_exhaustive()
    }
}

impl RecallIndex {
    /// Opens the index in `dir`, creating the directory and an empty index when there is none.
    ///
    /// Errors with [`Error::SchemaMismatch`] or [`Error::Corrupt`] when an index is there but unusable:
    /// the caller then deletes the directory (or calls [`RecallIndex::recreate`]) and rebuilds.
    pub fn open_or_create(dir: &Path) -> Result<RecallIndex> {
        if dir.join(MARKER_FILE).exists() || dir.join("meta.json").exists() {
            return Self::open(dir);
        }
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            action: "create index directory",
            path: dir.to_owned(),
            source,
        })?;
        let (schema, fields) = schema();
        let mmap = MmapDirectory::open(dir)
            .map_err(|e| Error::Engine { action: "open directory", source: e.into() })?;
        let index = Index::create(mmap, schema, index_settings()).map_err(Error::engine("create"))?;
        let marker = Marker { format: "cairn-recall".into(), schema_version: SCHEMA_VERSION };
        let marker_path = dir.join(MARKER_FILE);
        std::fs::write(&marker_path, serde_json::to_vec_pretty(&marker).unwrap_or_default())
            .map_err(|source| Error::Io { action: "write", path: marker_path, source })?;
        register_tokenizers(&index);
        Ok(RecallIndex { index, fields, path: Some(dir.to_owned()) })
    }

    /// Deletes whatever is in `dir` and creates an empty index there: the first step of a rebuild when
    /// [`RecallIndex::open`] reported [`Error::SchemaMismatch`] or [`Error::Corrupt`].
    pub fn recreate(dir: &Path) -> Result<RecallIndex> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|source| Error::Io {
                action: "remove index directory",
                path: dir.to_owned(),
                source,
            })?;
        }
        Self::open_or_create(dir)
    }

    /// Opens an existing index; [`Error::NotFound`] when `dir` holds none.
    pub fn open(dir: &Path) -> Result<RecallIndex> {
        let marker_path = dir.join(MARKER_FILE);
        let bytes = match std::fs::read(&marker_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if dir.join("meta.json").exists() {
                    return Err(Error::SchemaMismatch {
                        path: dir.to_owned(),
                        found: "an index without a Cairn marker".into(),
                        expected: SCHEMA_VERSION.to_string(),
                    });
                }
                return Err(Error::NotFound { path: dir.to_owned() });
            }
            Err(source) => return Err(Error::Io { action: "read", path: marker_path, source }),
        };
        let marker: Marker = serde_json::from_slice(&bytes).map_err(|e| Error::SchemaMismatch {
            path: dir.to_owned(),
            found: format!("an unreadable marker ({e})"),
            expected: SCHEMA_VERSION.to_string(),
        })?;
        if marker.format != "cairn-recall" || marker.schema_version != SCHEMA_VERSION {
            return Err(Error::SchemaMismatch {
                path: dir.to_owned(),
                found: format!("{} v{}", marker.format, marker.schema_version),
                expected: SCHEMA_VERSION.to_string(),
            });
        }
        let index =
            Index::open_in_dir(dir).map_err(|source| Error::Corrupt { path: dir.to_owned(), source })?;
        let (expected, fields) = schema();
        if !same_schema(&index.schema(), &expected) {
            return Err(Error::SchemaMismatch {
                path: dir.to_owned(),
                found: "a different field layout".into(),
                expected: SCHEMA_VERSION.to_string(),
            });
        }
        // Reading the metas checks the commit payload too.
        let metas = index.load_metas().map_err(|source| Error::Corrupt { path: dir.to_owned(), source })?;
        if let Some(p) = &metas.payload {
            let payload: CommitPayload = serde_json::from_str(p).map_err(|e| Error::SchemaMismatch {
                path: dir.to_owned(),
                found: format!("an unreadable commit payload ({e})"),
                expected: SCHEMA_VERSION.to_string(),
            })?;
            if payload.schema_version != SCHEMA_VERSION {
                return Err(Error::SchemaMismatch {
                    path: dir.to_owned(),
                    found: payload.schema_version.to_string(),
                    expected: SCHEMA_VERSION.to_string(),
                });
            }
        }
        register_tokenizers(&index);
        Ok(RecallIndex { index, fields, path: Some(dir.to_owned()) })
    }

    /// An index in memory: for evaluation runs and tests.
    pub fn in_memory() -> RecallIndex {
        let (schema, fields) = schema();
        let index = Index::builder()
            .schema(schema)
            .settings(index_settings())
            .create_in_ram()
            .expect("an in-memory index with a valid schema");
        register_tokenizers(&index);
        RecallIndex { index, fields, path: None }
    }

    /// The directory, `None` for an in-memory index.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The store sequence of the last commit, `None` before the first one.
    pub fn synced_seq(&self) -> Result<Option<u64>> {
        let metas = self.index.load_metas().map_err(|source| self.corrupt(source))?;
        Ok(metas.payload.and_then(|p| serde_json::from_str::<CommitPayload>(&p).ok()).map(|p| p.store_seq))
    }

    /// A writer with one indexing thread and a 64 MB heap. Only one writer may exist per index.
    pub fn writer(&self) -> Result<ChunkWriter> {
        self.writer_with(1, WRITER_HEAP_BYTES)
    }

    /// A writer with `threads` indexing threads sharing `heap_bytes` (at least 15 MB per thread).
    pub fn writer_with(&self, threads: usize, heap_bytes: usize) -> Result<ChunkWriter> {
        let writer = self.index.writer_with_num_threads(threads.max(1), heap_bytes).map_err(|e| match e {
            tantivy::TantivyError::LockFailure(..) => {
                Error::Locked { path: self.path.clone().unwrap_or_default() }
            }
            other => Error::Engine { action: "open writer", source: other },
        })?;
        Ok(ChunkWriter { writer, fields: self.fields })
    }

    fn corrupt(&self, source: tantivy::TantivyError) -> Error {
        Error::Corrupt { path: self.path.clone().unwrap_or_default(), source }
    }
}

fn same_schema(a: &Schema, b: &Schema) -> bool {
    let describe = |s: &Schema| -> Vec<(String, FieldType)> {
        s.fields().map(|(_, e)| (e.name().to_owned(), e.field_type().clone())).collect()
    };
    describe(a) == describe(b)
}

/// The write side of a [`RecallIndex`]: replace or delete an item's chunks, then commit with the store
/// sequence the index now reflects. Changes are invisible to readers until [`ChunkWriter::commit`].
pub struct ChunkWriter {
    writer: tantivy::IndexWriter,
    fields: Fields,
}

impl std::fmt::Debug for ChunkWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkWriter").finish_non_exhaustive()
    }
}

impl ChunkWriter {
    /// Replaces every chunk of `item` with `chunks` (an empty slice removes the item).
    pub fn upsert(&mut self, item: &Item, chunks: &[Chunk]) -> Result<()> {
        if let Some(c) = chunks.iter().find(|c| c.item_id != item.id) {
            return Err(Error::ChunkMismatch {
                item_id: item.id.clone(),
                chunk_id: c.id.clone(),
                chunk_item: c.item_id.clone(),
            });
        }
        self.delete_item(&item.id)?;
        let f = &self.fields;
        let mut tags: Vec<String> =
            item.tags.iter().map(|t| normalize_tag(t)).filter(|t| !t.is_empty()).collect();
        tags.sort();
        tags.dedup();
        for chunk in chunks {
            let mut doc = TantivyDocument::new();
            doc.add_text(f.chunk_id, &chunk.id);
            doc.add_text(f.item_id, &item.id);
            doc.add_text(f.project, &item.project);
            doc.add_text(f.audience, item.audience.as_str());
            doc.add_text(f.kind, item.kind.as_str());
            doc.add_text(f.title, chunk_title(&item.title, &chunk.heading));
            if !tags.is_empty() {
                // A second title value: tags are searchable words too (`vector-db` → `vector`, `db`).
                // `hit_from_doc` reads the first value only.
                doc.add_text(f.title, tags.join(" "));
            }
            doc.add_text(f.body, &chunk.text);
            let implied = implied_words(&chunk.text);
            if !implied.is_empty() {
                // A second body value: searched, never shown (`set_stored` keeps the first).
                doc.add_text(f.body, implied);
            }
            if let Some(ctx) = item.context() {
                doc.add_text(f.context, ctx);
            }
            for t in &tags {
                doc.add_text(f.tags, t);
            }
            doc.add_text(f.provenance, serde_json::to_string(&chunk.provenance).unwrap_or_default());
            doc.add_text(f.content_hash, &chunk.content_hash);
            doc.add_i64(f.created_at, item.created_at);
            doc.add_u64(f.order_key, order_key(&chunk.id));
            doc.add_u64(f.item_key, sequence_key(&item.id));
            doc.add_u64(f.previous_key, item.previous().map_or(0, sequence_key));
            for day in mentioned_days(&chunk.text) {
                doc.add_i64(f.mentions, day);
            }
            self.writer.add_document(doc).map_err(Error::engine("add document"))?;
        }
        Ok(())
    }

    /// Removes every chunk of the item.
    pub fn delete_item(&mut self, item_id: &str) -> Result<()> {
        self.writer.delete_term(Term::from_field_text(self.fields.item_id, item_id));
        Ok(())
    }

    /// Removes everything (the first step of a rebuild); takes effect at the next commit.
    pub fn clear(&mut self) -> Result<()> {
        self.writer.delete_all_documents().map_err(Error::engine("clear"))?;
        Ok(())
    }

    /// Makes the changes durable and visible, recording that the index reflects the store up to
    /// `store_seq` (see [`RecallIndex::synced_seq`]). Readers see them after [`crate::Recaller::reload`].
    pub fn commit(&mut self, store_seq: u64) -> Result<()> {
        let payload = serde_json::to_string(&CommitPayload { schema_version: SCHEMA_VERSION, store_seq })
            .unwrap_or_default();
        let mut prepared = self.writer.prepare_commit().map_err(Error::engine("commit"))?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(Error::engine("commit"))?;
        Ok(())
    }

    /// Drops the changes made since the last commit.
    pub fn rollback(&mut self) -> Result<()> {
        self.writer.rollback().map_err(Error::engine("rollback"))?;
        Ok(())
    }

    /// Waits for background merges to finish and releases the writer lock.
    pub fn finish(self) -> Result<()> {
        self.writer.wait_merging_threads().map_err(Error::engine("merge"))
    }
}

/// A [`Hit`] (with empty score, parts and reasons) read straight from a stored document: each stored
/// string is decoded once, into the hit (no intermediate document).
pub(crate) struct StoredHit(pub Hit);

/// A stored value as [`StoredHit`] needs it.
enum Stored {
    Str(String),
    I64(i64),
    Other,
}

struct StoredVisitor;

impl ValueVisitor for StoredVisitor {
    type Value = Stored;

    fn visit_null(&self) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_string(&self, val: String) -> Result<Stored, DeserializeError> {
        Ok(Stored::Str(val))
    }

    fn visit_u64(&self, _val: u64) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_i64(&self, val: i64) -> Result<Stored, DeserializeError> {
        Ok(Stored::I64(val))
    }

    fn visit_f64(&self, _val: f64) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }

    fn visit_bool(&self, _val: bool) -> Result<Stored, DeserializeError> {
        Ok(Stored::Other)
    }
}

impl ValueDeserialize for Stored {
    fn deserialize<'de, D>(deserializer: D) -> Result<Self, DeserializeError>
    where
        D: ValueDeserializer<'de>,
    {
        deserializer.deserialize_any(StoredVisitor)
    }
}

/// A hit with empty fields, filled by [`set_stored`].
fn empty_hit() -> Hit {
    Hit {
        chunk_id: String::new(),
        item_id: String::new(),
        project: String::new(),
        kind: ItemKind::Doc,
        title: String::new(),
        text: String::new(),
        tags: Vec::new(),
        audience: Audience::Private,
        provenance: Provenance::External { source: "unknown".into() },
        content_hash: String::new(),
        created_at: 0,
        score: 0.0,
        parts: Default::default(),
        why: Default::default(),
    }
}

/// Sets the hit field that stored field `id` holds (`title`: whether the title was set already).
fn set_stored(hit: &mut Hit, title: &mut bool, id: u32, value: Stored) {
    match value {
        Stored::Str(s) if id == FieldId::CHUNK_ID => hit.chunk_id = s,
        Stored::Str(s) if id == FieldId::ITEM_ID => hit.item_id = s,
        Stored::Str(s) if id == FieldId::PROJECT => hit.project = s,
        Stored::Str(s) if id == FieldId::AUDIENCE => {
            hit.audience = if s == "public" { Audience::Public } else { Audience::Private }
        }
        Stored::Str(s) if id == FieldId::KIND => hit.kind = s.parse().unwrap_or(ItemKind::Doc),
        // The first title value is the title; a second one holds the tags as words.
        Stored::Str(s) if id == FieldId::TITLE && !*title => {
            hit.title = s;
            *title = true;
        }
        // The first body value is the text; a second one holds the words it implies.
        Stored::Str(s) if id == FieldId::BODY && hit.text.is_empty() => hit.text = s,
        Stored::Str(s) if id == FieldId::TAGS => hit.tags.push(s),
        Stored::Str(s) if id == FieldId::PROVENANCE => {
            if let Ok(p) = serde_json::from_str(&s) {
                hit.provenance = p;
            }
        }
        Stored::Str(s) if id == FieldId::CONTENT_HASH => hit.content_hash = s,
        Stored::I64(v) if id == FieldId::CREATED_AT => hit.created_at = v,
        _ => {}
    }
}

impl DocumentDeserialize for StoredHit {
    fn deserialize<'de, D>(mut deserializer: D) -> Result<Self, DeserializeError>
    where
        D: DocumentDeserializer<'de>,
    {
        let mut hit = empty_hit();
        let mut title = false;
        while let Some((field, value)) = deserializer.next_field::<Stored>()? {
            set_stored(&mut hit, &mut title, field.field_id(), value);
        }
        Ok(StoredHit(hit))
    }
}

/// Type codes of tantivy's doc-store encoding that [`hit_from_stored_bytes`] reads.
const TEXT_CODE: u8 = 0;
const I64_CODE: u8 = 2;

/// A VInt of tantivy's encoding (7 bits per byte, least significant first, the last byte has its high
/// bit set) at the start of `bytes`, which advance past it.
fn read_vint(bytes: &mut &[u8]) -> Option<u64> {
    let mut out = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        out |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 != 0 {
            *bytes = &bytes[i + 1..];
            return Some(out);
        }
    }
    None
}

fn read_array<const N: usize>(bytes: &mut &[u8]) -> Option<[u8; N]> {
    let (head, rest) = bytes.split_first_chunk::<N>()?;
    *bytes = rest;
    Some(*head)
}

/// The hit stored in one document's doc-store bytes (as [`tantivy::store::StoreReader::get_document_bytes`]
/// returns them): the same hit [`StoredHit`] gives, each string validated and copied once instead of
/// going through tantivy's `Read`-based decoder. `None` for anything but text and i64 values, or
/// malformed bytes: the caller then reads the document through tantivy.
pub(crate) fn hit_from_stored_bytes(mut bytes: &[u8]) -> Option<Hit> {
    let b = &mut bytes;
    let values = read_vint(b)?;
    let mut hit = empty_hit();
    let mut title = false;
    for _ in 0..values {
        let id = u32::from_le_bytes(read_array::<4>(b)?);
        let [code] = read_array::<1>(b)?;
        let value = match code {
            TEXT_CODE => {
                let len = usize::try_from(read_vint(b)?).ok()?;
                if len > b.len() {
                    return None;
                }
                let (s, rest) = b.split_at(len);
                *b = rest;
                Stored::Str(std::str::from_utf8(s).ok()?.to_owned())
            }
            I64_CODE => Stored::I64(i64::from_le_bytes(read_array::<8>(b)?)),
            _ => return None,
        };
        set_stored(&mut hit, &mut title, id, value);
    }
    b.is_empty().then_some(hit)
}

/// The chunk id in one document's doc-store bytes (see [`hit_from_stored_bytes`]), reading no
/// further than it: the first stored field.
pub(crate) fn chunk_id_from_stored_bytes(mut bytes: &[u8]) -> Option<String> {
    let b = &mut bytes;
    read_vint(b)?;
    let id = u32::from_le_bytes(read_array::<4>(b)?);
    let [code] = read_array::<1>(b)?;
    if id != FieldId::CHUNK_ID || code != TEXT_CODE {
        return None;
    }
    let len = usize::try_from(read_vint(b)?).ok()?;
    Some(std::str::from_utf8(b.get(..len)?).ok()?.to_owned())
}

#[cfg(test)]
mod tests {
    use cairn_core::{Chunk, Item};
    use tantivy::DocAddress;

    use super::*;

    fn item(id: &str, title: &str, text: &str, tags: &[&str], provenance: Provenance) -> Item {
        cairn_test::item(id)
            .project("p")
            .kind(ItemKind::Turn)
            .title(title)
            .text(text)
            .tags(tags)
            .audience(Audience::Public)
            .provenance(provenance)
            .created_at(-1_234_567_890_123)
            .build()
    }

    /// The fast decoder gives exactly the hit tantivy's decoder gives, for every document.
    #[test]
    fn stored_bytes_decode_like_tantivy() {
        let index = RecallIndex::in_memory();
        let mut w = index.writer_with(1, 15 << 20).unwrap();
        let long = "x".repeat(20_000);
        let items = [
            item(
                "a",
                "Title",
                "body text",
                &["Alpha", "beta-gamma"],
                Provenance::External { source: "s".into() },
            ),
            item("b", "", "", &[], Provenance::File { path: "m/b.md".into(), line_start: 3, line_end: 9 }),
            item(
                "c",
                "記憶 «ü»",
                "café 🙂 東京\n\n\tend",
                &["x"],
                Provenance::External { source: "".into() },
            ),
            item("d", "Long", &long, &[], Provenance::External { source: "web".into() }),
        ];
        for it in &items {
            let chunks: Vec<Chunk> = [0u32, 1]
                .iter()
                .map(|&i| Chunk {
                    id: Chunk::make_id(&it.id, i),
                    item_id: it.id.clone(),
                    ordinal: i,
                    heading: if i == 0 { String::new() } else { "Part".into() },
                    text: it.text.clone(),
                    provenance: it.provenance.clone(),
                    content_hash: cairn_core::content_hash(it.text.as_bytes()),
                })
                .collect();
            w.upsert(it, &chunks).unwrap();
        }
        w.commit(1).unwrap();
        let reader = index.index.reader().unwrap();
        let searcher = reader.searcher();
        let mut seen = 0;
        for (ord, seg) in searcher.segment_readers().iter().enumerate() {
            let store = seg.get_store_reader(0).unwrap();
            for doc in seg.doc_ids_alive() {
                let bytes = store.get_document_bytes(doc).unwrap();
                let fast = hit_from_stored_bytes(bytes.as_slice()).expect("decodes");
                let StoredHit(want) = searcher.doc(DocAddress::new(ord as u32, doc)).unwrap();
                assert_eq!(fast, want);
                assert_eq!(chunk_id_from_stored_bytes(bytes.as_slice()), Some(want.chunk_id.clone()));
                assert!(!fast.chunk_id.is_empty() && fast.created_at == -1_234_567_890_123);
                // Truncated or extended bytes are rejected, never misread.
                let raw = bytes.as_slice();
                assert!(hit_from_stored_bytes(&raw[..raw.len() - 1]).is_none());
                assert!(hit_from_stored_bytes(&[raw, &[0]].concat()).is_none());
                seen += 1;
            }
        }
        assert_eq!(seen, 8);
    }
}
