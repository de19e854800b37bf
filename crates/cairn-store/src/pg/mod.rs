//! The shared backend: the [`Store`] tables on a PostgreSQL server (15 or later), for a team whose
//! agents run on several hosts and should share one memory.
//!
//! Every host keeps its derived indexes locally and follows the shared ingest log by sequence number;
//! [`seq`] explains why those numbers never skip a row committed late. Values are stored as SQLite
//! stores them (JSON as text, vectors as little-endian f32 bytes), and text is ordered bytewise
//! (`COLLATE "C"`) whatever the database's locale, as SQLite orders it.

mod connect;
mod links;
mod listen;
mod migrate;
mod seq;
mod sessions;
mod subagents;

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance};
use postgres::{Client, GenericClient, Row, Transaction};

pub use connect::Transport;
pub use listen::{CHANNEL, Heard, LISTENER_NAME, PgListener};
pub use migrate::PG_SCHEMA_VERSION;
use seq::Log;

use crate::codec::{blob_to_vector, check_vector, context_of_metadata, to_json, vector_to_blob};
use crate::{
    Change, Error, FileState, HarvestRun, NewVector, PendingChunk, Result, Store, StoreStatus, StoredVector,
    TurnOutcome, TurnRecord, VectorStatus, Write,
};

/// Items read per round trip when visiting every item.
const PAGE: i64 = 500;

/// A store on a PostgreSQL server, over one connection.
///
/// The connection sits behind a mutex so that reads through `&self` work as they do on SQLite; open
/// one `PgStore` per thread that needs its own connection.
pub struct PgStore {
    client: Mutex<Client>,
    server: connect::Server,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("label", &self.server.label).finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connect to the database at `url` (`postgres://user:password@host:port/database`, or a
    /// key=value connection string; TLS with `sslmode=require`, see [`connect`]) and migrate it to
    /// [`PG_SCHEMA_VERSION`].
    pub fn open(url: &str) -> Result<Self> {
        let server = connect::Server::parse(url)?;
        let mut client = server.connect()?;
        migrate::migrate(&mut client, &server.label)?;
        Ok(Self { client: Mutex::new(client), server })
    }

    /// The server and database, without user password (for messages).
    pub fn label(&self) -> &str {
        &self.server.label
    }

    /// How the connections reach the server (TLS, a socket, or TCP in clear).
    pub fn transport(&self) -> Transport {
        self.server.transport()
    }

    /// The id the database was given when Cairn created its tables (the same for every host).
    pub fn store_id(&self) -> Result<String> {
        migrate::store_id(&mut *self.client()?)
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<u32> {
        migrate::version(&mut *self.client()?)
    }

    /// The connection, opened again when it was lost (a server restart, a network cut): the calls that
    /// find it broken fail (the server's notice, then the reset socket), and the next one reconnects.
    fn client(&self) -> Result<MutexGuard<'_, Client>> {
        // A panic while holding the connection leaves no transaction open (it is rolled back on drop).
        let mut client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        if client.is_closed() {
            *client = self.server.connect()?;
        }
        Ok(client)
    }
}

/// `postgres://user@host:port/database` from a parsed configuration: never the password.
fn label_of(config: &postgres::Config) -> String {
    use postgres::config::Host;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    format!("postgres://{user}{host}:{port}/{}", config.get_dbname().unwrap_or(""))
}

/// A URL with anything between `:` and `@` of its authority blanked (the password), for messages.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "(not a URL)".into();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].find(':') {
            Some(colon) => format!("{scheme}://{}:***{}", &rest[..colon], &rest[at..]),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// PostgreSQL text cannot hold NUL; such a value is refused before anything is written.
fn check_text(id: &str, what: &str, value: &str) -> Result<()> {
    if value.contains('\0') {
        return Err(Error::BadInput {
            id: id.to_owned(),
            reason: format!("{what} contains a NUL character"),
        });
    }
    Ok(())
}

fn check_item(item: &Item, chunks: &[Chunk], explicit_tags: &[String]) -> Result<()> {
    let id = &item.id;
    check_text(id, "the id", id)?;
    check_text(id, "the project", &item.project)?;
    check_text(id, "the title", &item.title)?;
    check_text(id, "the text", &item.text)?;
    check_text(id, "the content hash", &item.content_hash)?;
    for tag in item.tags.iter().chain(explicit_tags) {
        check_text(id, "a tag", tag)?;
    }
    for c in chunks {
        check_text(id, "a chunk id", &c.id)?;
        check_text(id, "a chunk heading", &c.heading)?;
        check_text(id, "a chunk text", &c.text)?;
        check_text(id, "a chunk hash", &c.content_hash)?;
    }
    Ok(())
}

fn check_write(w: &Write, source: &str) -> Result<()> {
    match w {
        Write::Upsert { item, chunks, explicit_tags, file } => {
            check_text(&item.id, "the source", source)?;
            check_item(item, chunks, explicit_tags)?;
            if let Some(f) = file {
                check_file(f)?;
            }
            Ok(())
        }
        Write::Delete { item_id } => check_text(item_id, "the id", item_id),
        Write::TouchFile(f) => check_file(f),
    }
}

fn check_file(f: &FileState) -> Result<()> {
    check_text(&f.path, "the path", &f.path)?;
    check_text(&f.path, "the item id", &f.item_id)?;
    check_text(&f.path, "the content hash", &f.content_hash)
}

const ITEM_COLUMNS: &str = "id, project, kind, title, text, tags, audience, provenance, content_hash, \
                            created_at, observed_at, metadata";

fn decode_item(row: &Row) -> Result<Item> {
    let id: String = row.try_get(0)?;
    let corrupt = |reason: String| Error::Corrupt { id: id.clone(), reason };
    let kind: String = row.try_get(2)?;
    let tags: String = row.try_get(5)?;
    let audience: String = row.try_get(6)?;
    let provenance: String = row.try_get(7)?;
    let metadata: String = row.try_get(11)?;
    Ok(Item {
        project: row.try_get(1)?,
        kind: kind.parse::<ItemKind>().map_err(corrupt)?,
        title: row.try_get(3)?,
        text: row.try_get(4)?,
        tags: serde_json::from_str(&tags).map_err(|e| corrupt(format!("tags: {e}")))?,
        audience: audience.parse::<Audience>().map_err(corrupt)?,
        provenance: serde_json::from_str(&provenance).map_err(|e| corrupt(format!("provenance: {e}")))?,
        content_hash: row.try_get(8)?,
        created_at: row.try_get(9)?,
        observed_at: row.try_get(10)?,
        metadata: serde_json::from_str(&metadata).map_err(|e| corrupt(format!("metadata: {e}")))?,
        id: id.clone(),
    })
}

const CHUNK_COLUMNS: &str = "id, item_id, ordinal, heading, text, provenance, content_hash";

fn decode_chunk(row: &Row) -> Result<Chunk> {
    let id: String = row.try_get(0)?;
    let provenance: String = row.try_get(5)?;
    let ordinal: i64 = row.try_get(2)?;
    Ok(Chunk {
        item_id: row.try_get(1)?,
        ordinal: u32::try_from(ordinal)
            .map_err(|_| Error::Corrupt { id: id.clone(), reason: format!("chunk ordinal {ordinal}") })?,
        heading: row.try_get(3)?,
        text: row.try_get(4)?,
        provenance: serde_json::from_str::<Provenance>(&provenance)
            .map_err(|e| Error::Corrupt { id: id.clone(), reason: format!("chunk provenance: {e}") })?,
        content_hash: row.try_get(6)?,
        id,
    })
}

fn log(tx: &mut Transaction<'_>, op: &str, item_id: &str, hash: Option<&str>, source: &str) -> Result<u64> {
    let seq = seq::next(tx, Log::Ingest)?;
    tx.execute(
        "INSERT INTO ingest_log (seq, at, op, item_id, content_hash, source) VALUES ($1, $2, $3, $4, $5, $6)",
        &[&(seq as i64), &crate::SqliteStore::now(), &op, &item_id, &hash, &source],
    )?;
    Ok(seq)
}

fn upsert_item(
    tx: &mut Transaction<'_>,
    item: &Item,
    chunks: &[Chunk],
    explicit_tags: &[String],
    source: &str,
) -> Result<u64> {
    let seq = log(tx, "upsert", &item.id, Some(&item.content_hash), source)?;
    tx.execute(
        "INSERT INTO items (id, project, kind, title, text, tags, audience, provenance, content_hash, \
         created_at, observed_at, metadata, seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
         ON CONFLICT (id) DO UPDATE SET project = excluded.project, kind = excluded.kind, title = excluded.title, \
         text = excluded.text, tags = excluded.tags, audience = excluded.audience, provenance = excluded.provenance, \
         content_hash = excluded.content_hash, created_at = excluded.created_at, observed_at = excluded.observed_at, \
         metadata = excluded.metadata, seq = excluded.seq",
        &[
            &item.id,
            &item.project,
            &item.kind.as_str(),
            &item.title,
            &item.text,
            &to_json(&item.tags),
            &item.audience.as_str(),
            &to_json(&item.provenance),
            &item.content_hash,
            &item.created_at,
            &item.observed_at,
            &to_json(&item.metadata),
            &(seq as i64),
        ],
    )?;
    tx.execute("DELETE FROM chunks WHERE item_id = $1", &[&item.id])?;
    tx.execute("DELETE FROM item_tags WHERE item_id = $1", &[&item.id])?;
    if !chunks.is_empty() {
        let ins =
            tx.prepare(&format!("INSERT INTO chunks ({CHUNK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"))?;
        for c in chunks {
            tx.execute(
                &ins,
                &[
                    &c.id,
                    &item.id,
                    &i64::from(c.ordinal),
                    &c.heading,
                    &c.text,
                    &to_json(&c.provenance),
                    &c.content_hash,
                ],
            )?;
        }
    }
    drop_stale_vectors(tx, item, chunks)?;
    if !item.tags.is_empty() {
        let ins = tx.prepare(
            "INSERT INTO item_tags (tag, item_id, explicit) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        )?;
        for tag in &item.tags {
            tx.execute(&ins, &[tag, &item.id, &explicit_tags.contains(tag)])?;
        }
    }
    Ok(seq)
}

/// Deletes the item's vectors whose chunk is gone or whose content changed.
fn drop_stale_vectors(tx: &mut Transaction<'_>, item: &Item, chunks: &[Chunk]) -> Result<()> {
    let (ids, hashes): (Vec<String>, Vec<String>) = if chunks.is_empty() {
        (vec![Chunk::make_id(&item.id, 0)], vec![item.content_hash.clone()])
    } else {
        chunks.iter().map(|c| (c.id.clone(), c.content_hash.clone())).unzip()
    };
    tx.execute(
        "DELETE FROM vectors v WHERE v.item_id = $1 AND NOT EXISTS \
         (SELECT 1 FROM unnest($2::text[], $3::text[]) AS k(id, hash) WHERE k.id = v.chunk_id AND k.hash = v.content_hash)",
        &[&item.id, &ids, &hashes],
    )?;
    Ok(())
}

fn put_file(tx: &mut Transaction<'_>, f: &FileState) -> Result<()> {
    tx.execute(
        "INSERT INTO files (path, item_id, size, mtime_ns, content_hash) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (path) DO UPDATE SET item_id = excluded.item_id, size = excluded.size, \
         mtime_ns = excluded.mtime_ns, content_hash = excluded.content_hash",
        &[&f.path, &f.item_id, &(f.size as i64), &f.mtime_ns, &f.content_hash],
    )?;
    Ok(())
}

/// Current vectors joined with their item's project and audience. `$1` model, `$2` dim.
const VECTOR_SELECT: &str = "SELECT v.vseq, v.chunk_id, v.item_id, i.project, i.audience, v.vector \
     FROM vectors v JOIN items i ON i.id = v.item_id WHERE v.model_id = $1 AND v.dim = $2";

fn decode_vector(row: &Row, dim: usize) -> Result<StoredVector> {
    let chunk_id: String = row.try_get(1)?;
    let audience: String = row.try_get(4)?;
    let blob: Vec<u8> = row.try_get(5)?;
    let (vector, lines) = blob_to_vector(&chunk_id, &blob, dim)?;
    Ok(StoredVector {
        vseq: row.try_get::<_, i64>(0)? as u64,
        item_id: row.try_get(2)?,
        project: row.try_get(3)?,
        audience: audience
            .parse::<Audience>()
            .map_err(|reason| Error::Corrupt { id: chunk_id.clone(), reason })?,
        vector,
        lines,
        chunk_id,
    })
}

/// Chunks (and whole-text chunks of chunkless items) lacking a current vector. `$1` model, `$2` dim.
const PENDING_FROM: &str = "FROM (\
     SELECT c.id AS chunk_id, c.item_id, i.title, c.heading, c.text, c.content_hash, c.ordinal, \
       i.metadata FROM chunks c JOIN items i ON i.id = c.item_id \
     UNION ALL \
     SELECT i.id || '#0', i.id, i.title, '', i.text, i.content_hash, 0, i.metadata FROM items i \
       WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.item_id = i.id)) p \
     WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = p.chunk_id AND v.model_id = $1 \
       AND v.content_hash = p.content_hash AND v.dim = $2)";

fn dim_param(dim: usize) -> i32 {
    i32::try_from(dim).unwrap_or(i32::MAX)
}

fn count(client: &mut Client, sql: &str) -> Result<u64> {
    Ok(client.query_one(sql, &[])?.get::<_, i64>(0) as u64)
}

fn group(client: &mut Client, sql: &str) -> Result<BTreeMap<String, u64>> {
    Ok(client.query(sql, &[])?.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64)).collect())
}

fn last_seq_of(client: &mut impl GenericClient) -> Result<u64> {
    Ok(client.query_one("SELECT coalesce(max(seq), 0) FROM ingest_log", &[])?.get::<_, i64>(0) as u64)
}

impl Store for PgStore {
    fn apply(&mut self, writes: &[Write], source: &str) -> Result<u64> {
        for w in writes {
            check_write(w, source)?;
        }
        let mut client = self.client()?;
        let mut tx = client.transaction()?;
        if writes.iter().any(|w| !matches!(w, Write::TouchFile(_))) {
            seq::claim(&mut tx, &[Log::Ingest])?;
        }
        let mut logged = false;
        for w in writes {
            match w {
                Write::Upsert { item, chunks, explicit_tags, file } => {
                    upsert_item(&mut tx, item, chunks, explicit_tags, source)?;
                    logged = true;
                    if let Some(f) = file {
                        put_file(&mut tx, f)?;
                    }
                }
                Write::Delete { item_id } => {
                    let n = tx.execute("DELETE FROM items WHERE id = $1", &[item_id])?;
                    tx.execute("DELETE FROM files WHERE item_id = $1", &[item_id])?;
                    // A captured turn goes with its record (a forgotten turn is gone, not a duplicate).
                    let sessions =
                        tx.query("DELETE FROM turns WHERE item_id = $1 RETURNING session_key", &[item_id])?;
                    for row in sessions {
                        let key: String = row.get(0);
                        tx.execute(
                            "UPDATE sessions SET turns = (SELECT count(*) FROM turns WHERE session_key = $1) \
                             WHERE key = $1",
                            &[&key],
                        )?;
                    }
                    if n > 0 {
                        log(&mut tx, "delete", item_id, None, source)?;
                        logged = true;
                    }
                }
                Write::TouchFile(f) => put_file(&mut tx, f)?,
            }
        }
        let seq = last_seq_of(&mut tx)?;
        if logged {
            listen::notify(&mut tx, seq)?;
        }
        tx.commit()?;
        Ok(seq)
    }

    fn get_item(&self, id: &str) -> Result<Option<Item>> {
        let row =
            self.client()?.query_opt(&format!("SELECT {ITEM_COLUMNS} FROM items WHERE id = $1"), &[&id])?;
        row.as_ref().map(decode_item).transpose()
    }

    fn chunks(&self, item_id: &str) -> Result<Vec<Chunk>> {
        let rows = self.client()?.query(
            &format!("SELECT {CHUNK_COLUMNS} FROM chunks WHERE item_id = $1 ORDER BY ordinal"),
            &[&item_id],
        )?;
        rows.iter().map(decode_chunk).collect()
    }

    fn file_states(&self) -> Result<BTreeMap<String, FileState>> {
        let rows =
            self.client()?.query("SELECT path, item_id, size, mtime_ns, content_hash FROM files", &[])?;
        let mut out = BTreeMap::new();
        for r in rows {
            let f = FileState {
                path: r.try_get(0)?,
                item_id: r.try_get(1)?,
                size: r.try_get::<_, i64>(2)? as u64,
                mtime_ns: r.try_get(3)?,
                content_hash: r.try_get(4)?,
            };
            out.insert(f.path.clone(), f);
        }
        Ok(out)
    }

    fn tag_vocabulary(&self) -> Result<Vec<(String, u64)>> {
        let rows = self.client()?.query(
            "SELECT tag, count(*) FROM item_tags WHERE explicit GROUP BY tag ORDER BY tag COLLATE \"C\"",
            &[],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get::<_, i64>(1) as u64)).collect())
    }

    fn public_tag_vocabulary(&self) -> Result<Vec<(String, u64)>> {
        let rows = self.client()?.query(
            "SELECT t.tag, count(*) FROM item_tags t JOIN items i ON i.id = t.item_id \
             WHERE t.explicit AND i.audience = 'public' GROUP BY t.tag ORDER BY t.tag COLLATE \"C\"",
            &[],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get::<_, i64>(1) as u64)).collect())
    }

    fn explicit_tags(&self, item_id: &str) -> Result<Vec<String>> {
        let rows = self.client()?.query(
            "SELECT tag FROM item_tags WHERE item_id = $1 AND explicit ORDER BY tag COLLATE \"C\"",
            &[&item_id],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn record_turn(&mut self, turn: &TurnRecord, chunks: Vec<Chunk>) -> Result<TurnOutcome> {
        check_text(&turn.item.id, "the session key", &turn.session_key)?;
        check_text(&turn.item.id, "the turn id", &turn.turn_id)?;
        check_text(&turn.item.id, "the project", &turn.project)?;
        check_item(&turn.item, &chunks, &turn.item.tags)?;
        let mut client = self.client()?;
        let mut tx = client.transaction()?;
        // Claimed first: a second host recording the same turn waits here, then finds it recorded.
        seq::claim(&mut tx, &[Log::Ingest])?;
        let existing = tx.query_opt(
            "SELECT item_id FROM turns WHERE session_key = $1 AND turn_id = $2",
            &[&turn.session_key, &turn.turn_id],
        )?;
        if let Some(row) = existing {
            return Ok(TurnOutcome::Duplicate { item_id: row.get(0) });
        }
        let seq = upsert_item(&mut tx, &turn.item, &chunks, &turn.item.tags, "capture")?;
        tx.execute(
            "INSERT INTO turns (session_key, turn_id, item_id, ts) VALUES ($1, $2, $3, $4)",
            &[&turn.session_key, &turn.turn_id, &turn.item.id, &turn.ts],
        )?;
        tx.execute(
            "INSERT INTO sessions (key, project, audience, first_seen, last_seen, turns) \
             VALUES ($1, $2, $3, $4, $4, 1) ON CONFLICT (key) DO UPDATE SET \
             last_seen = greatest(sessions.last_seen, excluded.last_seen), turns = sessions.turns + 1, \
             project = excluded.project, audience = excluded.audience",
            &[&turn.session_key, &turn.project, &turn.audience.as_str(), &turn.ts],
        )?;
        listen::notify(&mut tx, seq)?;
        tx.commit()?;
        Ok(TurnOutcome::Stored { item_id: turn.item.id.clone(), seq })
    }

    fn previous_turn(&self, session_key: &str, ts: Millis, turn_id: &str) -> Result<Option<Item>> {
        let row = self.client()?.query_opt(
            "SELECT item_id FROM turns WHERE session_key = $1 \
             AND (ts < $2 OR (ts = $2 AND turn_id COLLATE \"C\" < $3)) \
             ORDER BY ts DESC, turn_id COLLATE \"C\" DESC LIMIT 1",
            &[&session_key, &ts, &turn_id],
        )?;
        match row {
            Some(r) => self.get_item(&r.get::<_, String>(0)),
            None => Ok(None),
        }
    }

    fn changes_since(&self, seq: u64) -> Result<Vec<Change>> {
        let rows = self.client()?.query(
            "SELECT seq, item_id, op FROM (SELECT DISTINCT ON (item_id) seq, item_id, op FROM ingest_log \
             WHERE seq > $1 ORDER BY item_id, seq DESC) last ORDER BY seq",
            &[&(seq as i64)],
        )?;
        Ok(rows
            .iter()
            .map(|r| Change {
                seq: r.get::<_, i64>(0) as u64,
                item_id: r.get(1),
                deleted: r.get::<_, &str>(2) == "delete",
            })
            .collect())
    }

    fn last_seq(&self) -> Result<u64> {
        last_seq_of(&mut *self.client()?)
    }

    fn forgettable(&self, session_key: Option<&str>, before: Option<Millis>) -> Result<Vec<String>> {
        let rows = self.client()?.query(
            "SELECT id FROM items WHERE (provenance::jsonb ->> 'type') <> 'file' \
             AND ($1::text IS NULL OR (provenance::jsonb ->> 'session_key') = $1) \
             AND ($2::bigint IS NULL OR created_at < $2) ORDER BY id COLLATE \"C\"",
            &[&session_key, &before],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn for_each_item(&self, f: &mut dyn FnMut(Item, Vec<Chunk>) -> Result<()>) -> Result<()> {
        // Page by id, releasing the connection between pages, so that `f` may use this store too.
        let mut after: Option<String> = None;
        loop {
            let page: Vec<(Item, Vec<Chunk>)> = {
                let mut client = self.client()?;
                let rows = client.query(
                    &format!(
                        "SELECT {ITEM_COLUMNS} FROM items WHERE $1::text IS NULL OR id COLLATE \"C\" > $1 \
                         ORDER BY id COLLATE \"C\" LIMIT $2"
                    ),
                    &[&after, &PAGE],
                )?;
                let items = rows.iter().map(decode_item).collect::<Result<Vec<_>>>()?;
                let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
                let mut by_item: BTreeMap<String, Vec<Chunk>> = BTreeMap::new();
                for row in client.query(
                    &format!(
                        "SELECT {CHUNK_COLUMNS} FROM chunks WHERE item_id = ANY($1) ORDER BY item_id, ordinal"
                    ),
                    &[&ids],
                )? {
                    let c = decode_chunk(&row)?;
                    by_item.entry(c.item_id.clone()).or_default().push(c);
                }
                items
                    .into_iter()
                    .map(|i| {
                        let chunks = by_item.remove(&i.id).unwrap_or_default();
                        (i, chunks)
                    })
                    .collect()
            };
            let Some((last, _)) = page.last() else { return Ok(()) };
            after = Some(last.id.clone());
            let full = page.len() as i64 == PAGE;
            for (item, chunks) in page {
                f(item, chunks)?;
            }
            if !full {
                return Ok(());
            }
        }
    }

    fn begin_harvest(&mut self, root: &str, at: Millis) -> Result<i64> {
        check_text(root, "the root", root)?;
        let row = self.client()?.query_one(
            "INSERT INTO harvest_runs (started_at, root) VALUES ($1, $2) RETURNING id",
            &[&at, &root],
        )?;
        Ok(row.get(0))
    }

    fn finish_harvest(&mut self, run: i64, at: Millis, summary: &serde_json::Value) -> Result<()> {
        self.client()?.execute(
            "UPDATE harvest_runs SET finished_at = $1, summary = $2 WHERE id = $3",
            &[&at, &summary.to_string(), &run],
        )?;
        Ok(())
    }

    fn status(&self) -> Result<StoreStatus> {
        let mut client = self.client()?;
        let c = &mut *client;
        let last_harvest = c
            .query_opt(
                "SELECT id, started_at, finished_at, root, summary FROM harvest_runs \
                 WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1",
                &[],
            )?
            .map(|r| HarvestRun {
                id: r.get(0),
                started_at: r.get(1),
                finished_at: r.get(2),
                root: r.get(3),
                summary: r.get::<_, Option<String>>(4).and_then(|s| serde_json::from_str(&s).ok()),
            });
        Ok(StoreStatus {
            schema_version: migrate::version(c)?,
            items: count(c, "SELECT count(*) FROM items")?,
            chunks: count(c, "SELECT count(*) FROM chunks")?,
            per_kind: group(c, "SELECT kind, count(*) FROM items GROUP BY kind")?,
            per_project: group(c, "SELECT project, count(*) FROM items GROUP BY project")?,
            per_audience: group(c, "SELECT audience, count(*) FROM items GROUP BY audience")?,
            sessions: count(c, "SELECT count(*) FROM sessions")?,
            turns: count(c, "SELECT count(*) FROM turns")?,
            last_seq: last_seq_of(c)?,
            last_harvest,
        })
    }

    fn pending_vectors(&self, model_id: &str, dim: usize, limit: usize) -> Result<Vec<PendingChunk>> {
        let rows = self.client()?.query(
            &format!(
                "SELECT p.chunk_id, p.item_id, p.title, p.heading, p.text, p.content_hash, p.metadata \
                 {PENDING_FROM} ORDER BY p.item_id COLLATE \"C\", p.ordinal LIMIT $3"
            ),
            &[&model_id, &dim_param(dim), &(limit.min(i64::MAX as usize) as i64)],
        )?;
        rows.iter()
            .map(|r| {
                Ok(PendingChunk {
                    chunk_id: r.try_get(0)?,
                    item_id: r.try_get(1)?,
                    title: r.try_get(2)?,
                    heading: r.try_get(3)?,
                    text: r.try_get(4)?,
                    content_hash: r.try_get(5)?,
                    context: context_of_metadata(r.try_get(6)?),
                })
            })
            .collect()
    }

    fn vector_status(&self, model_id: &str, dim: usize) -> Result<VectorStatus> {
        let mut client = self.client()?;
        let pending: i64 = client
            .query_one(&format!("SELECT count(*) {PENDING_FROM}"), &[&model_id, &dim_param(dim)])?
            .get(0);
        let current: i64 = client
            .query_one(
                "SELECT count(*) FROM vectors WHERE model_id = $1 AND dim = $2",
                &[&model_id, &dim_param(dim)],
            )?
            .get(0);
        Ok(VectorStatus { current: current as u64, pending: pending as u64 })
    }

    fn put_vectors(&mut self, model_id: &str, vectors: &[NewVector]) -> Result<usize> {
        for v in vectors {
            check_vector(v)?;
            check_text(&v.chunk_id, "the chunk id", &v.chunk_id)?;
            check_text(&v.chunk_id, "the item id", &v.item_id)?;
            check_text(&v.chunk_id, "the content hash", &v.content_hash)?;
        }
        check_text(model_id, "the model id", model_id)?;
        let mut client = self.client()?;
        let mut tx = client.transaction()?;
        // Both counters: no ingest write can change the chunks between the check and the insert.
        seq::claim(&mut tx, &[Log::Ingest, Log::Vector])?;
        let current = tx.prepare(
            "SELECT EXISTS (SELECT 1 FROM chunks WHERE id = $1 AND item_id = $2 AND content_hash = $3) \
             OR EXISTS (SELECT 1 FROM items i WHERE i.id = $2 AND i.id || '#0' = $1 AND i.content_hash = $3 \
               AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.item_id = i.id))",
        )?;
        let del = tx.prepare("DELETE FROM vectors WHERE chunk_id = $1 AND model_id = $2")?;
        let ins = tx.prepare(
            "INSERT INTO vectors (vseq, chunk_id, model_id, item_id, content_hash, dim, vector) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )?;
        let mut written = 0;
        for v in vectors {
            let ok: bool = tx.query_one(&current, &[&v.chunk_id, &v.item_id, &v.content_hash])?.get(0);
            if !ok {
                continue;
            }
            tx.execute(&del, &[&v.chunk_id, &model_id])?;
            let vseq = seq::next(&mut tx, Log::Vector)?;
            tx.execute(
                &ins,
                &[
                    &(vseq as i64),
                    &v.chunk_id,
                    &model_id,
                    &v.item_id,
                    &v.content_hash,
                    &dim_param(v.vector.len()),
                    &vector_to_blob(&v.vector, &v.lines),
                ],
            )?;
            written += 1;
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
        let (rows, max) = {
            let mut client = self.client()?;
            // One snapshot for both reads: the returned position never passes a row not visited.
            let mut tx = client
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let rows = tx.query(
                &format!("{VECTOR_SELECT} AND v.vseq > $3 ORDER BY v.vseq"),
                &[&model_id, &dim_param(dim), &(vseq as i64)],
            )?;
            let max: i64 = tx
                .query_one("SELECT coalesce(max(vseq), 0) FROM vectors WHERE model_id = $1", &[&model_id])?
                .get(0);
            tx.commit()?;
            (rows, max)
        };
        let mut last = vseq;
        for row in &rows {
            let v = decode_vector(row, dim)?;
            last = last.max(v.vseq);
            f(v);
        }
        Ok(last.max(max as u64))
    }

    fn drop_vectors(&mut self, model_id: &str) -> Result<usize> {
        check_text(model_id, "the model id", model_id)?;
        let n = self.client()?.execute("DELETE FROM vectors WHERE model_id = $1", &[&model_id])?;
        Ok(n as usize)
    }

    fn item_vectors(&self, model_id: &str, dim: usize, item_id: &str) -> Result<Vec<StoredVector>> {
        let rows = self.client()?.query(
            &format!("{VECTOR_SELECT} AND v.item_id = $3 ORDER BY v.vseq"),
            &[&model_id, &dim_param(dim), &item_id],
        )?;
        rows.iter().map(|r| decode_vector(r, dim)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redact_hides_the_password_only() {
        let check = |url: &str, expect: &str| assert_eq!(redact(url), expect, "{url}");
        check("postgres://cairn:s3cret@db.example:5432/cairn", "postgres://cairn:***@db.example:5432/cairn");
        check("postgres://cairn@db.example/cairn", "postgres://cairn@db.example/cairn");
        check("postgres://db.example/cairn?user=a@b", "postgres://db.example/cairn?user=a@b");
        check("host=/tmp user=x", "(not a URL)");
    }
}
