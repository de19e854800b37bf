//! Vectors in the store: round trip, pending detection, staleness on content change, deletes, and the
//! migration from the previous schema.

use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance, content_hash};
use cairn_store::{NewVector, SCHEMA_VERSION, SqliteStore, Store, Write};

fn item(id: &str, text: &str, audience: Audience) -> Item {
    cairn_test::item(id)
        .project("p")
        .kind(ItemKind::Fact)
        .title(format!("Title {id}"))
        .text(text)
        .audience(audience)
        .external("t")
        .build()
}

fn chunk(item_id: &str, ordinal: u32, text: &str) -> Chunk {
    Chunk {
        id: Chunk::make_id(item_id, ordinal),
        item_id: item_id.into(),
        ordinal,
        heading: format!("H{ordinal}"),
        text: text.into(),
        provenance: Provenance::External { source: "t".into() },
        content_hash: content_hash(text.as_bytes()),
    }
}

fn vectors_for(pending: &[cairn_store::PendingChunk], salt: f32) -> Vec<NewVector> {
    pending
        .iter()
        .enumerate()
        .map(|(i, p)| NewVector {
            chunk_id: p.chunk_id.clone(),
            item_id: p.item_id.clone(),
            content_hash: p.content_hash.clone(),
            vector: vec![i as f32 + salt, -1.5, 0.25],
            lines: Vec::new(),
        })
        .collect()
}

fn all_vectors(s: &SqliteStore, model: &str) -> Vec<cairn_store::StoredVector> {
    let mut out = Vec::new();
    s.vectors_since(model, 3, 0, &mut |v| out.push(v)).unwrap();
    out
}

#[test]
fn round_trip_pending_and_reembedding_only_on_change() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    let a = item("a", "alpha beta", Audience::Private);
    let b = item("b", "whole text only", Audience::Public);
    s.apply(
        &[
            Write::upsert(a.clone(), vec![chunk("a", 0, "alpha"), chunk("a", 1, "beta")]),
            Write::upsert(b, vec![]),
        ],
        "t",
    )
    .unwrap();

    // Three chunks pending: two stored chunks and the whole-text chunk of the chunkless item.
    let pending = s.pending_vectors("m1", 3, 100).unwrap();
    let ids: Vec<&str> = pending.iter().map(|p| p.chunk_id.as_str()).collect();
    assert_eq!(ids, ["a#0", "a#1", "b#0"]);
    assert_eq!(pending[0].title, "Title a");
    assert_eq!(pending[1].heading, "H1");
    assert_eq!(pending[2].text, "whole text only");
    assert_eq!(s.pending_vectors("m1", 3, 2).unwrap().len(), 2, "limit is honoured");
    assert_eq!(s.put_vectors("m1", &vectors_for(&pending, 0.0)).unwrap(), 3);
    assert!(s.pending_vectors("m1", 3, 100).unwrap().is_empty());
    let st = s.vector_status("m1", 3).unwrap();
    assert_eq!((st.current, st.pending), (3, 0));

    // Round trip: exact floats back, with the item's project and audience.
    let stored = all_vectors(&s, "m1");
    assert_eq!(stored.len(), 3);
    assert_eq!(stored[1].vector, vec![1.0, -1.5, 0.25]);
    assert_eq!(stored[0].audience, Audience::Private);
    assert_eq!(stored[2].audience, Audience::Public);
    assert_eq!(stored[2].project, "p");

    // Another model or another dimension: everything is pending for it.
    assert_eq!(s.pending_vectors("m2", 3, 100).unwrap().len(), 3);
    assert_eq!(s.pending_vectors("m1", 4, 100).unwrap().len(), 3);

    // Rewriting the item with one chunk unchanged and one changed: only the changed one is pending,
    // and its old vector is gone.
    let last = stored.iter().map(|v| v.vseq).max().unwrap();
    s.apply(&[Write::upsert(a.clone(), vec![chunk("a", 0, "alpha"), chunk("a", 1, "gamma")])], "t").unwrap();
    let pending = s.pending_vectors("m1", 3, 100).unwrap();
    assert_eq!(pending.iter().map(|p| p.chunk_id.as_str()).collect::<Vec<_>>(), ["a#1"]);
    assert_eq!(all_vectors(&s, "m1").len(), 2);
    // A vector computed for the old content is refused.
    let stale = NewVector {
        chunk_id: "a#1".into(),
        item_id: "a".into(),
        content_hash: content_hash(b"beta"),
        vector: vec![0.0; 3],
        lines: Vec::new(),
    };
    assert_eq!(s.put_vectors("m1", &[stale]).unwrap(), 0);
    s.put_vectors("m1", &vectors_for(&pending, 9.0)).unwrap();
    let mut newer = Vec::new();
    let max = s.vectors_since("m1", 3, last, &mut |v| newer.push(v)).unwrap();
    assert_eq!(newer.len(), 1);
    assert_eq!(newer[0].chunk_id, "a#1");
    assert_eq!(max, newer[0].vseq);

    // Fewer chunks: the dropped chunk's vector goes.
    s.apply(&[Write::upsert(a, vec![chunk("a", 0, "alpha")])], "t").unwrap();
    assert_eq!(s.item_vectors("m1", 3, "a").unwrap().len(), 1);

    // Deleting the item deletes its vectors.
    s.apply(&[Write::Delete { item_id: "a".into() }], "t").unwrap();
    assert!(s.item_vectors("m1", 3, "a").unwrap().is_empty());
    assert_eq!(all_vectors(&s, "m1").iter().map(|v| v.chunk_id.as_str()).collect::<Vec<_>>(), ["b#0"]);
}

#[test]
fn audience_change_is_seen_by_item_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    s.apply(&[Write::upsert(item("a", "x", Audience::Public), vec![chunk("a", 0, "x")])], "t").unwrap();
    let pending = s.pending_vectors("m", 3, 10).unwrap();
    s.put_vectors("m", &vectors_for(&pending, 0.0)).unwrap();
    s.apply(&[Write::upsert(item("a", "x", Audience::Private), vec![chunk("a", 0, "x")])], "t").unwrap();
    // Same content: the vector survives, and reads carry the new audience.
    let v = s.item_vectors("m", 3, "a").unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].audience, Audience::Private);
}

#[test]
fn stores_of_the_previous_schema_migrate() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    {
        let mut s = SqliteStore::open_at_version(&path, SCHEMA_VERSION - 1).unwrap();
        s.apply(&[Write::upsert(item("a", "x", Audience::Public), vec![chunk("a", 0, "x")])], "t").unwrap();
    }
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(s.pending_vectors("m", 3, 10).unwrap().len(), 1);
}

#[test]
fn corrupt_vector_blob_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    let mut s = SqliteStore::open(&path).unwrap();
    s.apply(&[Write::upsert(item("a", "x", Audience::Public), vec![chunk("a", 0, "x")])], "t").unwrap();
    let pending = s.pending_vectors("m", 3, 10).unwrap();
    s.put_vectors("m", &vectors_for(&pending, 0.0)).unwrap();
    drop(s);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE vectors SET vector = x'0000'", []).unwrap();
    drop(conn);
    let s = SqliteStore::open(&path).unwrap();
    let err = s.vectors_since("m", 3, 0, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("a#0"), "{err}");
}
