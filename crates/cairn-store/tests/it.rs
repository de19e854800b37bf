//! Store integration tests on real SQLite files.

use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance, content_hash};
use cairn_store::{Error, SCHEMA_VERSION, SqliteStore, Store, TurnOutcome, TurnRecord, Write};

fn item(id: &str, text: &str, tags: &[&str]) -> Item {
    cairn_test::item(id)
        .project("p")
        .kind(ItemKind::File)
        .title(id)
        .text(text)
        .tags(tags)
        .audience(Audience::Private)
        .file(format!("{id}.md"), 1, 3)
        .created_at(1_700_000_000_000)
        .observed_at(1_700_000_000_000)
        .build()
}

fn chunk(item_id: &str, ordinal: u32, text: &str) -> Chunk {
    Chunk {
        id: Chunk::make_id(item_id, ordinal),
        item_id: item_id.into(),
        ordinal,
        heading: String::new(),
        text: text.into(),
        provenance: Provenance::File { path: format!("{item_id}.md"), line_start: 1, line_end: 1 },
        content_hash: content_hash(text.as_bytes()),
    }
}

#[test]
fn upsert_replace_delete_and_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    let a = item("a", "alpha", &["x", "y"]);
    s.apply(&[Write::upsert(a.clone(), vec![chunk("a", 0, "al"), chunk("a", 1, "pha")])], "t").unwrap();
    assert_eq!(s.get_item("a").unwrap().unwrap(), a);
    assert_eq!(s.chunks("a").unwrap().len(), 2);
    // Replacing drops old chunks.
    let a2 = item("a", "alpha two", &["x"]);
    s.apply(&[Write::upsert(a2.clone(), vec![chunk("a", 0, "alpha two")])], "t").unwrap();
    assert_eq!(s.chunks("a").unwrap().len(), 1);
    assert_eq!(s.tag_vocabulary().unwrap(), vec![("x".to_string(), 1)]);
    let seq = s.apply(&[Write::Delete { item_id: "a".into() }], "t").unwrap();
    assert!(s.get_item("a").unwrap().is_none());
    assert!(s.chunks("a").unwrap().is_empty(), "chunks cascade");
    let changes = s.changes_since(0).unwrap();
    assert_eq!(changes.len(), 1, "collapsed to the last entry per item");
    assert!(changes[0].deleted);
    assert_eq!(changes[0].seq, seq);
    assert!(s.changes_since(seq).unwrap().is_empty());
    // Deleting something absent logs nothing.
    assert_eq!(s.apply(&[Write::Delete { item_id: "zzz".into() }], "t").unwrap(), seq);
}

#[test]
fn batch_is_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    let ok = item("ok", "fine", &[]);
    // Two chunks with the same id violate the primary key: the whole batch must roll back.
    let dup_chunks = Write::upsert(item("d", "d", &[]), vec![chunk("d", 0, "a"), chunk("d", 0, "b")]);
    let err = s.apply(&[Write::upsert(ok, vec![]), dup_chunks], "t").unwrap_err();
    assert!(matches!(err, Error::Sqlite(_)), "{err}");
    assert!(s.get_item("ok").unwrap().is_none(), "nothing of a failed batch is kept");
    assert_eq!(s.last_seq().unwrap(), 0);
}

#[test]
fn record_turn_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    let mut it = item("turn:k:1", "User: hi", &[]);
    it.kind = ItemKind::Turn;
    let rec = TurnRecord {
        session_key: "k".into(),
        turn_id: "1".into(),
        project: "p".into(),
        audience: Audience::Private,
        ts: 5,
        item: it,
    };
    let first = s.record_turn(&rec, vec![]).unwrap();
    assert!(matches!(first, TurnOutcome::Stored { .. }));
    let second = s.record_turn(&rec, vec![]).unwrap();
    assert_eq!(second, TurnOutcome::Duplicate { item_id: "turn:k:1".into() });
    let st = s.status().unwrap();
    assert_eq!((st.turns, st.sessions, st.items), (1, 1, 1));
}

#[test]
fn migrates_from_first_version_keeping_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    {
        let mut v1 = SqliteStore::open_at_version(&path, 1).unwrap();
        assert_eq!(v1.schema_version().unwrap(), 1);
        v1.apply(&[Write::upsert(item("a", "alpha", &["x"]), vec![chunk("a", 0, "alpha")])], "t").unwrap();
    }
    let mut s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(s.get_item("a").unwrap().unwrap().text, "alpha");
    // The v2 table works.
    let run = s.begin_harvest("/w", 1).unwrap();
    s.finish_harvest(run, 2, &serde_json::json!({"new": 1})).unwrap();
    assert_eq!(s.status().unwrap().last_harvest.unwrap().summary.unwrap()["new"], 1);
    drop(s);
    // Opening again is a no-op.
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    s.integrity_check().unwrap();
}

#[test]
fn newer_schema_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    drop(SqliteStore::open(&path).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    }
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, Error::TooNew { found, .. } if found == SCHEMA_VERSION + 1));
    assert!(err.to_string().contains("upgrade Cairn"), "{err}");
}

#[test]
fn foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.sqlite");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
    }
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, Error::NotAStore { .. }), "{err}");
    let garbage = dir.path().join("garbage.sqlite");
    std::fs::write(&garbage, vec![0x42u8; 8192]).unwrap();
    let err = SqliteStore::open(&garbage).unwrap_err();
    assert!(err.to_string().contains("garbage.sqlite"), "{err}");
}

#[test]
fn for_each_item_pairs_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    let mut writes = Vec::new();
    for i in 0..20 {
        let id = format!("i{i:02}");
        let chunks = (0..(i % 3)).map(|o| chunk(&id, o, &format!("{id}-{o}"))).collect();
        writes.push(Write::upsert(item(&id, &id, &[]), chunks));
    }
    s.apply(&writes, "t").unwrap();
    let mut seen = Vec::new();
    s.for_each_item(&mut |it, chunks| {
        assert!(chunks.iter().all(|c| c.item_id == it.id));
        seen.push((it.id, chunks.len()));
        Ok(())
    })
    .unwrap();
    assert_eq!(seen.len(), 20);
    for (id, n) in seen {
        let i: u32 = id[1..].parse().unwrap();
        assert_eq!(n as u32, i % 3, "{id}");
    }
}
