//! The embedded backend: one SQLite file in WAL mode.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::codec::{blob_to_vector, check_vector, context_of_metadata, to_json, vector_to_blob};
use crate::migrate::{SCHEMA_VERSION, migrate};
use crate::pg::PgStore;
use crate::{
    Change, Error, FileState, HarvestRun, NewVector, PendingChunk, Result, Store, StoreStatus, StoredVector,
    TurnOutcome, TurnRecord, VectorStatus, Write,
};

/// A store in one SQLite file (WAL journal, foreign keys on, `synchronous = NORMAL`).
///
/// In WAL mode a committed transaction survives the process being killed; `synchronous = NORMAL`
/// only risks the last transactions on a power cut or OS crash, never corruption.
#[derive(Debug)]
pub struct SqliteStore {
    pub(crate) conn: Connection,
    path: PathBuf,
    /// Whether the schema has the `vectors` table (false only for stores opened at an older version).
    has_vectors: bool,
    /// The shared store holding the [`Store`] tables, when one is attached: this file then keeps only
    /// what is host-local (graph tables, serving state, sub-agent records).
    pub(crate) shared: Option<PgStore>,
}

impl SqliteStore {
    /// Open (creating if needed) the store at `path` and migrate it to the current schema.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_at_version(path, SCHEMA_VERSION)
    }

    /// Open and migrate only up to `version` (for tests of migrations from older versions).
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, version: u32) -> Result<Self> {
        // A new data dir is the owner's alone (0700), and so is a new store file (0600): memory is
        // never readable by other local users. Existing permissions are left as the owner set them.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| Error::Io { path: path.to_owned(), source })?;
        }
        let new = !path.exists();
        let mut conn =
            Connection::open(path).map_err(|source| Error::Open { path: path.to_owned(), source })?;
        if new {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .map_err(|source| Error::Io { path: path.to_owned(), source })?;
        }
        Self::configure(&conn, path)?;
        let version = migrate(&mut conn, path, version)?;
        Ok(Self { conn, path: path.to_owned(), has_vectors: version >= VECTORS_VERSION, shared: None })
    }

    /// Open an existing store read-only (no migration; an older schema is an error).
    pub fn open_read_only(path: &Path) -> Result<Self> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|source| Error::Open { path: path.to_owned(), source })?;
        conn.busy_timeout(Duration::from_secs(5))?;
        let version: u32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| Error::NotAStore { path: path.to_owned(), reason: e.to_string() })?;
        if version > SCHEMA_VERSION {
            return Err(Error::TooNew { path: path.to_owned(), found: version, supported: SCHEMA_VERSION });
        }
        if version < SCHEMA_VERSION {
            return Err(Error::NotAStore {
                path: path.to_owned(),
                reason: format!("schema version {version} needs migrating; open it for writing once"),
            });
        }
        Ok(Self { conn, path: path.to_owned(), has_vectors: true, shared: None })
    }

    /// The schema version (`user_version`) of the store file at `path`, read through a read-only
    /// connection: nothing is created, migrated or written (`cairn doctor`).
    pub fn schema_version_at(path: &Path) -> Result<u32> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|source| Error::Open { path: path.to_owned(), source })?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| Error::NotAStore { path: path.to_owned(), reason: e.to_string() })
    }

    fn configure(conn: &Connection, path: &Path) -> Result<()> {
        conn.busy_timeout(Duration::from_secs(5))?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(|e| Error::NotAStore { path: path.to_owned(), reason: e.to_string() })?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::NotAStore {
                path: path.to_owned(),
                reason: format!("could not switch to WAL journal (got `{mode}`)"),
            });
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Up to 64 MiB of page cache (allocated only as used): big harvest batches then never spill
        // dirty pages to the WAL mid-transaction.
        conn.pragma_update(None, "cache_size", -65536)?;
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        Ok(())
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    pub(crate) fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Attach a shared store: from now on every [`Store`] method, the session and turn reads of the
    /// host-local parts, session state and sub-agent spawn records go to `shared`; this file keeps the
    /// graph tables and the capture queue of this host. Spawn records this file kept from before they
    /// were shared are moved to the server (a writable connection does it, once).
    ///
    /// A data dir follows one log for good: its index and graph tables record how far they got in it.
    /// Attaching is refused when this file has a log of its own (a single-host store: move its memory
    /// with `cairn export` and `cairn import`) or follows another shared store; the first attach
    /// records the shared store's id.
    pub fn with_shared(mut self, shared: PgStore) -> Result<Self> {
        const KEY: &str = "shared_store_id";
        let id = shared.store_id()?;
        let recorded: Option<String> =
            self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [KEY], |r| r.get(0)).optional()?;
        match recorded {
            Some(r) if r == id => {}
            Some(r) => {
                return Err(Error::NotAStore {
                    path: self.path.clone(),
                    reason: format!(
                        "this data dir follows another shared store (id {r}), not `{}` (id {id}); use a \
                         new data dir for it",
                        shared.label()
                    ),
                });
            }
            None => {
                let local: i64 = self.conn.query_row("SELECT count(*) FROM ingest_log", [], |r| r.get(0))?;
                if local > 0 {
                    return Err(Error::NotAStore {
                        path: self.path.clone(),
                        reason: format!(
                            "this data dir holds a single-host store ({local} log entries); use a new data \
                             dir for the shared store `{}` and move the memory with `cairn export` and \
                             `cairn import`",
                            shared.label()
                        ),
                    });
                }
                if !self.conn.is_readonly(rusqlite::MAIN_DB)? {
                    self.conn.execute("INSERT INTO meta (key, value) VALUES (?1, ?2)", params![KEY, id])?;
                }
            }
        }
        self.shared = Some(shared);
        if !self.conn.is_readonly(rusqlite::MAIN_DB)? {
            self.move_spawn_records()?;
        }
        Ok(self)
    }

    /// The attached shared store, if any.
    pub fn shared(&self) -> Option<&PgStore> {
        self.shared.as_ref()
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<u32> {
        Ok(self.conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// Run `PRAGMA integrity_check`; `Ok(())` when SQLite reports `ok`.
    pub fn integrity_check(&self) -> Result<()> {
        let msg: String = self.conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
        if msg == "ok" {
            Ok(())
        } else {
            Err(Error::NotAStore { path: self.path.clone(), reason: format!("integrity check: {msg}") })
        }
    }

    pub(crate) fn now() -> Millis {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

fn decode_item(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Item>> {
    let id: String = row.get(0)?;
    let kind: String = row.get(2)?;
    let tags: String = row.get(5)?;
    let audience: String = row.get(6)?;
    let provenance: String = row.get(7)?;
    let metadata: String = row.get(11)?;
    let corrupt = |reason: String| Error::Corrupt { id: id.clone(), reason };
    let decoded = (|| {
        Ok(Item {
            project: row.get(1).map_err(|e| corrupt(e.to_string()))?,
            kind: kind.parse::<ItemKind>().map_err(corrupt)?,
            title: row.get(3).map_err(|e| corrupt(e.to_string()))?,
            text: row.get(4).map_err(|e| corrupt(e.to_string()))?,
            tags: serde_json::from_str(&tags).map_err(|e| corrupt(format!("tags: {e}")))?,
            audience: audience.parse::<Audience>().map_err(corrupt)?,
            provenance: serde_json::from_str(&provenance).map_err(|e| corrupt(format!("provenance: {e}")))?,
            content_hash: row.get(8).map_err(|e| corrupt(e.to_string()))?,
            created_at: row.get(9).map_err(|e| corrupt(e.to_string()))?,
            observed_at: row.get(10).map_err(|e| corrupt(e.to_string()))?,
            metadata: serde_json::from_str(&metadata).map_err(|e| corrupt(format!("metadata: {e}")))?,
            id: id.clone(),
        })
    })();
    Ok(decoded)
}

const ITEM_COLUMNS: &str = "id, project, kind, title, text, tags, audience, provenance, content_hash, \
                            created_at, observed_at, metadata";

fn decode_chunk(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Chunk>> {
    let id: String = row.get(0)?;
    let provenance: String = row.get(5)?;
    let provenance: Result<Provenance> = serde_json::from_str(&provenance)
        .map_err(|e| Error::Corrupt { id: id.clone(), reason: format!("chunk provenance: {e}") });
    // A column of the wrong type is an error, never a silent default.
    Ok(match provenance {
        Ok(provenance) => Ok(Chunk {
            item_id: row.get(1)?,
            ordinal: row.get(2)?,
            heading: row.get(3)?,
            text: row.get(4)?,
            content_hash: row.get(6)?,
            provenance,
            id,
        }),
        Err(e) => Err(e),
    })
}

fn log(
    tx: &rusqlite::Transaction<'_>,
    op: &str,
    item_id: &str,
    hash: Option<&str>,
    source: &str,
) -> Result<u64> {
    tx.prepare_cached(
        "INSERT INTO ingest_log (at, op, item_id, content_hash, source) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![SqliteStore::now(), op, item_id, hash, source])?;
    Ok(tx.last_insert_rowid() as u64)
}

/// The schema version that added the `vectors` table.
const VECTORS_VERSION: u32 = 3;

fn upsert_item(
    has_vectors: bool,
    tx: &rusqlite::Transaction<'_>,
    item: &Item,
    chunks: &[Chunk],
    explicit_tags: &[String],
    source: &str,
) -> Result<u64> {
    let seq = log(tx, "upsert", &item.id, Some(&item.content_hash), source)?;
    tx.prepare_cached(
        "INSERT INTO items (id, project, kind, title, text, tags, audience, provenance, content_hash, \
         created_at, observed_at, metadata, seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) \
         ON CONFLICT (id) DO UPDATE SET project = excluded.project, kind = excluded.kind, title = excluded.title, \
         text = excluded.text, tags = excluded.tags, audience = excluded.audience, provenance = excluded.provenance, \
         content_hash = excluded.content_hash, created_at = excluded.created_at, observed_at = excluded.observed_at, \
         metadata = excluded.metadata, seq = excluded.seq",
    )?
    .execute(params![
        item.id,
        item.project,
        item.kind.as_str(),
        item.title,
        item.text,
        to_json(&item.tags),
        item.audience.as_str(),
        to_json(&item.provenance),
        item.content_hash,
        item.created_at,
        item.observed_at,
        to_json(&item.metadata),
        seq as i64,
    ])?;
    tx.prepare_cached("DELETE FROM chunks WHERE item_id = ?1")?.execute([&item.id])?;
    tx.prepare_cached("DELETE FROM item_tags WHERE item_id = ?1")?.execute([&item.id])?;
    {
        let mut ins = tx.prepare_cached(
            "INSERT INTO chunks (id, item_id, ordinal, heading, text, provenance, content_hash) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for c in chunks {
            ins.execute(params![
                c.id,
                item.id,
                c.ordinal,
                c.heading,
                c.text,
                to_json(&c.provenance),
                c.content_hash
            ])?;
        }
    }
    if has_vectors {
        drop_stale_vectors(tx, item, chunks)?;
    }
    {
        let mut ins = tx
            .prepare_cached("INSERT OR IGNORE INTO item_tags (tag, item_id, explicit) VALUES (?1, ?2, ?3)")?;
        for tag in &item.tags {
            ins.execute(params![tag, item.id, explicit_tags.contains(tag)])?;
        }
    }
    Ok(seq)
}

/// Deletes the item's vectors whose chunk is gone or whose content changed (they would never be
/// current again); vectors of unchanged chunks survive the rewrite.
fn drop_stale_vectors(tx: &rusqlite::Transaction<'_>, item: &Item, chunks: &[Chunk]) -> Result<()> {
    let whole = [(Chunk::make_id(&item.id, 0), item.content_hash.clone())];
    let keep: Vec<(String, String)> = if chunks.is_empty() {
        whole.to_vec()
    } else {
        chunks.iter().map(|c| (c.id.clone(), c.content_hash.clone())).collect()
    };
    let existing: Vec<(i64, String, String)> = {
        let mut stmt =
            tx.prepare_cached("SELECT vseq, chunk_id, content_hash FROM vectors WHERE item_id = ?1")?;
        stmt.query_map([&item.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    let mut del = tx.prepare_cached("DELETE FROM vectors WHERE vseq = ?1")?;
    for (vseq, chunk_id, hash) in existing {
        if !keep.iter().any(|(id, h)| *id == chunk_id && *h == hash) {
            del.execute([vseq])?;
        }
    }
    Ok(())
}

/// Current vectors joined with their item's project and audience. `?1` model, `?2` dim.
const VECTOR_SELECT: &str = "SELECT v.vseq, v.chunk_id, v.item_id, i.project, i.audience, v.vector \
     FROM vectors v JOIN items i ON i.id = v.item_id WHERE v.model_id = ?1 AND v.dim = ?2";

fn decode_vector(row: &rusqlite::Row<'_>, dim: usize) -> rusqlite::Result<Result<StoredVector>> {
    let chunk_id: String = row.get(1)?;
    let audience: String = row.get(4)?;
    let blob: Vec<u8> = row.get(5)?;
    Ok((|| {
        let (vector, lines) = blob_to_vector(&chunk_id, &blob, dim)?;
        Ok(StoredVector {
            vseq: row.get::<_, i64>(0)? as u64,
            item_id: row.get(2)?,
            project: row.get(3)?,
            audience: audience
                .parse::<Audience>()
                .map_err(|reason| Error::Corrupt { id: chunk_id.clone(), reason })?,
            vector,
            lines,
            chunk_id: chunk_id.clone(),
        })
    })())
}

/// Chunks (and whole-text chunks of chunkless items) lacking a current vector. `?1` model, `?2` dim.
const PENDING_FROM: &str = "FROM (\
     SELECT c.id AS chunk_id, c.item_id, i.title, c.heading, c.text, c.content_hash, c.ordinal, \
       i.metadata FROM chunks c JOIN items i ON i.id = c.item_id \
     UNION ALL \
     SELECT i.id || '#0', i.id, i.title, '', i.text, i.content_hash, 0, i.metadata FROM items i \
       WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.item_id = i.id)) p \
     WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = p.chunk_id AND v.model_id = ?1 \
       AND v.content_hash = p.content_hash AND v.dim = ?2)";

fn put_file(tx: &rusqlite::Transaction<'_>, f: &FileState) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO files (path, item_id, size, mtime_ns, content_hash) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (path) DO UPDATE SET item_id = excluded.item_id, size = excluded.size, \
         mtime_ns = excluded.mtime_ns, content_hash = excluded.content_hash",
    )?
    .execute(params![f.path, f.item_id, f.size as i64, f.mtime_ns, f.content_hash])?;
    Ok(())
}

impl Store for SqliteStore {
    fn apply(&mut self, writes: &[Write], source: &str) -> Result<u64> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.apply(writes, source);
        }
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for w in writes {
            match w {
                Write::Upsert { item, chunks, explicit_tags, file } => {
                    upsert_item(self.has_vectors, &tx, item, chunks, explicit_tags, source)?;
                    if let Some(f) = file {
                        put_file(&tx, f)?;
                    }
                }
                Write::Delete { item_id } => {
                    let n = tx.prepare_cached("DELETE FROM items WHERE id = ?1")?.execute([item_id])?;
                    tx.prepare_cached("DELETE FROM files WHERE item_id = ?1")?.execute([item_id])?;
                    // A captured turn goes with its record (a forgotten turn is gone, not a duplicate).
                    let session: Option<String> = tx
                        .prepare_cached("DELETE FROM turns WHERE item_id = ?1 RETURNING session_key")?
                        .query_row([item_id], |r| r.get(0))
                        .optional()?;
                    if let Some(key) = session {
                        tx.prepare_cached(
                            "UPDATE sessions SET turns = (SELECT count(*) FROM turns WHERE session_key = ?1) \
                             WHERE key = ?1",
                        )?
                        .execute([key])?;
                    }
                    if n > 0 {
                        log(&tx, "delete", item_id, None, source)?;
                    }
                }
                Write::TouchFile(f) => put_file(&tx, f)?,
            }
        }
        let seq: i64 = tx.query_row("SELECT coalesce(max(seq), 0) FROM ingest_log", [], |r| r.get(0))?;
        tx.commit()?;
        Ok(seq as u64)
    }

    fn get_item(&self, id: &str) -> Result<Option<Item>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.get_item(id);
        }
        let mut stmt =
            self.conn.prepare_cached(&format!("SELECT {ITEM_COLUMNS} FROM items WHERE id = ?1"))?;
        stmt.query_row([id], decode_item).optional()?.transpose()
    }

    fn chunks(&self, item_id: &str) -> Result<Vec<Chunk>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.chunks(item_id);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, item_id, ordinal, heading, text, provenance, content_hash FROM chunks \
             WHERE item_id = ?1 ORDER BY ordinal",
        )?;
        let rows = stmt.query_map([item_id], decode_chunk)?;
        rows.map(|r| r?).collect()
    }

    fn file_states(&self) -> Result<BTreeMap<String, FileState>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.file_states();
        }
        let mut stmt = self.conn.prepare("SELECT path, item_id, size, mtime_ns, content_hash FROM files")?;
        let rows = stmt.query_map([], |r| {
            Ok(FileState {
                path: r.get(0)?,
                item_id: r.get(1)?,
                size: r.get::<_, i64>(2)? as u64,
                mtime_ns: r.get(3)?,
                content_hash: r.get(4)?,
            })
        })?;
        let mut out = BTreeMap::new();
        for row in rows {
            let f = row?;
            out.insert(f.path.clone(), f);
        }
        Ok(out)
    }

    fn tag_vocabulary(&self) -> Result<Vec<(String, u64)>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.tag_vocabulary();
        }
        let mut stmt = self
            .conn
            .prepare("SELECT tag, count(*) FROM item_tags WHERE explicit = 1 GROUP BY tag ORDER BY tag")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn public_tag_vocabulary(&self) -> Result<Vec<(String, u64)>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.public_tag_vocabulary();
        }
        let mut stmt = self.conn.prepare(
            "SELECT t.tag, count(*) FROM item_tags t JOIN items i ON i.id = t.item_id \
             WHERE t.explicit = 1 AND i.audience = 'public' GROUP BY t.tag ORDER BY t.tag",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn explicit_tags(&self, item_id: &str) -> Result<Vec<String>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.explicit_tags(item_id);
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT tag FROM item_tags WHERE item_id = ?1 AND explicit = 1 ORDER BY tag")?;
        let rows = stmt.query_map([item_id], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn record_turn(&mut self, turn: &TurnRecord, chunks: Vec<Chunk>) -> Result<TurnOutcome> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.record_turn(turn, chunks);
        }
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let existing: Option<String> = tx
            .query_row(
                "SELECT item_id FROM turns WHERE session_key = ?1 AND turn_id = ?2",
                params![turn.session_key, turn.turn_id],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(item_id) = existing {
            return Ok(TurnOutcome::Duplicate { item_id });
        }
        let explicit = turn.item.tags.clone();
        let seq = upsert_item(self.has_vectors, &tx, &turn.item, &chunks, &explicit, "capture")?;
        tx.execute(
            "INSERT INTO turns (session_key, turn_id, item_id, ts) VALUES (?1, ?2, ?3, ?4)",
            params![turn.session_key, turn.turn_id, turn.item.id, turn.ts],
        )?;
        tx.execute(
            "INSERT INTO sessions (key, project, audience, first_seen, last_seen, turns) \
             VALUES (?1, ?2, ?3, ?4, ?4, 1) ON CONFLICT (key) DO UPDATE SET \
             last_seen = max(last_seen, excluded.last_seen), turns = turns + 1, \
             project = excluded.project, audience = excluded.audience",
            params![turn.session_key, turn.project, turn.audience.as_str(), turn.ts],
        )?;
        tx.commit()?;
        Ok(TurnOutcome::Stored { item_id: turn.item.id.clone(), seq })
    }

    fn previous_turn(&self, session_key: &str, ts: Millis, turn_id: &str) -> Result<Option<Item>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.previous_turn(session_key, ts, turn_id);
        }
        let item_id: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT item_id FROM turns WHERE session_key = ?1 AND (ts < ?2 OR (ts = ?2 AND turn_id < ?3)) \
                 ORDER BY ts DESC, turn_id DESC LIMIT 1",
            )?
            .query_row(params![session_key, ts, turn_id], |r| r.get(0))
            .optional()?;
        match item_id {
            Some(id) => self.get_item(&id),
            None => Ok(None),
        }
    }

    fn changes_since(&self, seq: u64) -> Result<Vec<Change>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.changes_since(seq);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT max(seq), item_id, op FROM ingest_log WHERE seq > ?1 GROUP BY item_id ORDER BY max(seq)",
        )?;
        // SQLite returns the bare column `op` from the row holding max(seq).
        let rows = stmt.query_map([seq as i64], |r| {
            Ok(Change {
                seq: r.get::<_, i64>(0)? as u64,
                item_id: r.get(1)?,
                deleted: r.get::<_, String>(2)? == "delete",
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn last_seq(&self) -> Result<u64> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.last_seq();
        }
        let seq: i64 =
            self.conn.query_row("SELECT coalesce(max(seq), 0) FROM ingest_log", [], |r| r.get(0))?;
        Ok(seq as u64)
    }

    fn forgettable(&self, session_key: Option<&str>, before: Option<Millis>) -> Result<Vec<String>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.forgettable(session_key, before);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM items WHERE json_extract(provenance, '$.type') != 'file' \
             AND (?1 IS NULL OR json_extract(provenance, '$.session_key') = ?1) \
             AND (?2 IS NULL OR created_at < ?2) ORDER BY id",
        )?;
        let rows = stmt.query_map(rusqlite::params![session_key, before], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn for_each_item(&self, f: &mut dyn FnMut(Item, Vec<Chunk>) -> Result<()>) -> Result<()> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.for_each_item(f);
        }
        let mut items = self.conn.prepare(&format!("SELECT {ITEM_COLUMNS} FROM items ORDER BY id"))?;
        let mut chunk_stmt = self.conn.prepare(
            "SELECT id, item_id, ordinal, heading, text, provenance, content_hash FROM chunks ORDER BY item_id, ordinal",
        )?;
        let mut chunk_rows = chunk_stmt.query_map([], decode_chunk)?.peekable();
        let mut rows = items.query_map([], decode_item)?;
        for row in rows.by_ref() {
            let item = row??;
            let mut chunks = Vec::new();
            // Both cursors walk in item-id order; chunks of items that vanished are skipped.
            while let Some(Ok(Ok(c))) = chunk_rows.peek() {
                match c.item_id.as_str().cmp(item.id.as_str()) {
                    std::cmp::Ordering::Less => {
                        chunk_rows.next();
                    }
                    std::cmp::Ordering::Equal => {
                        if let Some(Ok(Ok(c))) = chunk_rows.next() {
                            chunks.push(c);
                        }
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            if let Some(Ok(Err(_)) | Err(_)) = chunk_rows.peek() {
                let bad = chunk_rows.next().expect("peeked");
                bad??;
            }
            f(item, chunks)?;
        }
        Ok(())
    }

    fn begin_harvest(&mut self, root: &str, at: Millis) -> Result<i64> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.begin_harvest(root, at);
        }
        self.conn
            .execute("INSERT INTO harvest_runs (started_at, root) VALUES (?1, ?2)", params![at, root])?;
        Ok(self.conn.last_insert_rowid())
    }

    fn finish_harvest(&mut self, run: i64, at: Millis, summary: &serde_json::Value) -> Result<()> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.finish_harvest(run, at, summary);
        }
        self.conn.execute(
            "UPDATE harvest_runs SET finished_at = ?1, summary = ?2 WHERE id = ?3",
            params![at, summary.to_string(), run],
        )?;
        Ok(())
    }

    fn status(&self) -> Result<StoreStatus> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.status();
        }
        let count =
            |sql: &str| -> Result<u64> { Ok(self.conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
        let group = |sql: &str| -> Result<BTreeMap<String, u64>> {
            let mut stmt = self.conn.prepare(sql)?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        };
        let last_harvest = self
            .conn
            .query_row(
                "SELECT id, started_at, finished_at, root, summary FROM harvest_runs \
                 WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1",
                [],
                |r| {
                    let summary: Option<String> = r.get(4)?;
                    Ok(HarvestRun {
                        id: r.get(0)?,
                        started_at: r.get(1)?,
                        finished_at: r.get(2)?,
                        root: r.get(3)?,
                        summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
                    })
                },
            )
            .optional()?;
        Ok(StoreStatus {
            schema_version: self.schema_version()?,
            items: count("SELECT count(*) FROM items")?,
            chunks: count("SELECT count(*) FROM chunks")?,
            per_kind: group("SELECT kind, count(*) FROM items GROUP BY kind ORDER BY kind")?,
            per_project: group("SELECT project, count(*) FROM items GROUP BY project ORDER BY project")?,
            per_audience: group("SELECT audience, count(*) FROM items GROUP BY audience ORDER BY audience")?,
            sessions: count("SELECT count(*) FROM sessions")?,
            turns: count("SELECT count(*) FROM turns")?,
            last_seq: self.last_seq()?,
            last_harvest,
        })
    }

    fn pending_vectors(&self, model_id: &str, dim: usize, limit: usize) -> Result<Vec<PendingChunk>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.pending_vectors(model_id, dim, limit);
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT p.chunk_id, p.item_id, p.title, p.heading, p.text, p.content_hash, p.metadata \
             {PENDING_FROM} ORDER BY p.item_id, p.ordinal LIMIT ?3"
        ))?;
        let rows =
            stmt.query_map(params![model_id, dim as i64, limit.min(i64::MAX as usize) as i64], |r| {
                Ok(PendingChunk {
                    chunk_id: r.get(0)?,
                    item_id: r.get(1)?,
                    title: r.get(2)?,
                    heading: r.get(3)?,
                    text: r.get(4)?,
                    content_hash: r.get(5)?,
                    context: context_of_metadata(&r.get::<_, String>(6)?),
                })
            })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn vector_status(&self, model_id: &str, dim: usize) -> Result<VectorStatus> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.vector_status(model_id, dim);
        }
        let pending: i64 = self.conn.query_row(
            &format!("SELECT count(*) {PENDING_FROM}"),
            params![model_id, dim as i64],
            |r| r.get(0),
        )?;
        let current: i64 = self.conn.query_row(
            "SELECT count(*) FROM vectors WHERE model_id = ?1 AND dim = ?2",
            params![model_id, dim as i64],
            |r| r.get(0),
        )?;
        Ok(VectorStatus { current: current as u64, pending: pending as u64 })
    }

    fn put_vectors(&mut self, model_id: &str, vectors: &[NewVector]) -> Result<usize> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.put_vectors(model_id, vectors);
        }
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut written = 0;
        {
            // Only vectors of chunks that still have this content are written.
            let mut current = tx.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?1 AND item_id = ?2 AND content_hash = ?3) \
                 OR EXISTS (SELECT 1 FROM items i WHERE i.id = ?2 AND i.id || '#0' = ?1 AND i.content_hash = ?3 \
                   AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.item_id = i.id))",
            )?;
            let mut del = tx.prepare_cached("DELETE FROM vectors WHERE chunk_id = ?1 AND model_id = ?2")?;
            let mut ins = tx.prepare_cached(
                "INSERT INTO vectors (chunk_id, model_id, item_id, content_hash, dim, vector) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for v in vectors {
                check_vector(v)?;
                let ok: bool =
                    current.query_row(params![v.chunk_id, v.item_id, v.content_hash], |r| r.get(0))?;
                if !ok {
                    continue;
                }
                del.execute(params![v.chunk_id, model_id])?;
                ins.execute(params![
                    v.chunk_id,
                    model_id,
                    v.item_id,
                    v.content_hash,
                    v.vector.len() as i64,
                    vector_to_blob(&v.vector, &v.lines)
                ])?;
                written += 1;
            }
        }
        tx.commit()?;
        Ok(written)
    }

    fn vectors_since(
        &self,
        model_id: &str,
        dim: usize,
        vseq: u64,
        f: &mut dyn FnMut(StoredVector),
    ) -> Result<u64> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.vectors_since(model_id, dim, vseq, f);
        }
        let mut stmt =
            self.conn.prepare_cached(&format!("{VECTOR_SELECT} AND v.vseq > ?3 ORDER BY v.vseq"))?;
        let mut last = vseq;
        let rows = stmt.query_map(params![model_id, dim as i64, vseq as i64], |r| decode_vector(r, dim))?;
        for row in rows {
            let v = row??;
            last = last.max(v.vseq);
            f(v);
        }
        let max: i64 = self.conn.query_row(
            "SELECT coalesce(max(vseq), 0) FROM vectors WHERE model_id = ?1",
            [model_id],
            |r| r.get(0),
        )?;
        Ok(last.max(max as u64))
    }

    fn drop_vectors(&mut self, model_id: &str) -> Result<usize> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.drop_vectors(model_id);
        }
        Ok(self.conn.execute("DELETE FROM vectors WHERE model_id = ?1", params![model_id])?)
    }

    fn item_vectors(&self, model_id: &str, dim: usize, item_id: &str) -> Result<Vec<StoredVector>> {
        if let Some(shared) = self.shared.as_ref() {
            return shared.item_vectors(model_id, dim, item_id);
        }
        let mut stmt =
            self.conn.prepare_cached(&format!("{VECTOR_SELECT} AND v.item_id = ?3 ORDER BY v.vseq"))?;
        let rows = stmt.query_map(params![model_id, dim as i64, item_id], |r| decode_vector(r, dim))?;
        rows.map(|r| r?).collect()
    }
}
