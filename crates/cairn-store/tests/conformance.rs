//! One conformance suite for every [`Store`] backend: each check runs on a new SQLite file and on a new
//! database of a real PostgreSQL server (started by `cairn_test::postgres`; see there when it is skipped).
//! A check sees the backend only through [`Place`]: a new, empty location to open a store at.

use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance, content_hash};
use cairn_store::{
    Error, ErrorKind, FileState, NewVector, PG_SCHEMA_VERSION, PgStore, SCHEMA_VERSION, SqliteStore, Store,
    TurnOutcome, TurnRecord, Write,
};

/// A new, empty location of one backend.
struct Place {
    open: Opener,
    /// The schema version a store opened here reports.
    version: u32,
    /// Overwrites the recorded schema version (to fake a newer Cairn's store).
    set_version: Box<dyn Fn(u32)>,
    /// Puts a table of another application here (before any store is opened).
    add_foreign_table: Box<dyn Fn()>,
}

impl Place {
    fn store(&self) -> Box<dyn Store> {
        (self.open)().expect("open the store")
    }
}

type Check = fn(&Place);

const CHECKS: &[(&str, Check)] = &[
    ("upsert_and_read_back", upsert_and_read_back),
    ("replace_drops_old_chunks_and_tags", replace_drops_old_chunks_and_tags),
    ("delete_cascades_and_logs_once", delete_cascades_and_logs_once),
    ("changes_since_collapses_per_item", changes_since_collapses_per_item),
    ("failed_batch_leaves_nothing", failed_batch_leaves_nothing),
    ("file_states", file_states),
    ("turns_are_idempotent_and_ordered", turns_are_idempotent_and_ordered),
    ("forget_removes_rows", forget_removes_rows),
    ("for_each_item_visits_all_in_id_order", for_each_item_visits_all_in_id_order),
    ("harvest_runs_and_status", harvest_runs_and_status),
    ("vectors", vectors),
    ("text_orders_bytewise", text_orders_bytewise),
    ("nul_is_kept_or_refused_whole", nul_is_kept_or_refused_whole),
    ("migrations_open_twice", migrations_open_twice),
    ("newer_schema_is_refused", newer_schema_is_refused),
    ("foreign_database_is_refused", foreign_database_is_refused),
];

fn run_all(backend: &str, new_place: &dyn Fn() -> Place) {
    for (name, check) in CHECKS {
        eprintln!("{backend}: {name}");
        check(&new_place());
    }
}

#[test]
fn sqlite_conforms() {
    let root = tempfile::tempdir().unwrap();
    let n = std::cell::Cell::new(0);
    run_all("sqlite", &|| {
        n.set(n.get() + 1);
        let path = root.path().join(format!("s{}.sqlite", n.get()));
        let (p1, p2, p3) = (path.clone(), path.clone(), path);
        Place {
            open: Box::new(move || SqliteStore::open(&p1).map(|s| Box::new(s) as Box<dyn Store>)),
            version: SCHEMA_VERSION,
            set_version: Box::new(move |v| {
                rusqlite::Connection::open(&p2).unwrap().pragma_update(None, "user_version", v).unwrap();
            }),
            add_foreign_table: Box::new(move || {
                rusqlite::Connection::open(&p3)
                    .unwrap()
                    .execute_batch("CREATE TABLE other (x INTEGER)")
                    .unwrap();
            }),
        }
    });
}

#[test]
fn postgres_conforms() {
    let Some(server) = cairn_test::postgres::server("postgres_conforms") else { return };
    run_all("postgres", &|| {
        let url = server.create_db();
        let u = url.clone();
        pg_place(&url, Box::new(move || PgStore::open(&u).map(|s| Box::new(s) as Box<dyn Store>)))
    });
    // A host's SQLite file with the shared store attached answers every trait method from PostgreSQL.
    let root = tempfile::tempdir().unwrap();
    let n = std::cell::Cell::new(0);
    run_all("sqlite with a shared postgres", &|| {
        n.set(n.get() + 1);
        let local = root.path().join(format!("h{}.sqlite", n.get()));
        let url = server.create_db();
        let u = url.clone();
        pg_place(
            &url,
            Box::new(move || {
                let shared = PgStore::open(&u)?;
                SqliteStore::open(&local)?.with_shared(shared).map(|s| Box::new(s) as Box<dyn Store>)
            }),
        )
    });
}

type Opener = Box<dyn Fn() -> cairn_store::Result<Box<dyn Store>>>;

/// A place on the PostgreSQL database at `url`, opened by `open`.
fn pg_place(url: &str, open: Opener) -> Place {
    let (u2, u3) = (url.to_owned(), url.to_owned());
    Place {
        open,
        version: PG_SCHEMA_VERSION,
        set_version: Box::new(move |v| {
            let mut c = postgres::Client::connect(&u2, postgres::NoTls).unwrap();
            c.execute("UPDATE cairn_schema SET version = $1", &[&(v as i32)]).unwrap();
        }),
        add_foreign_table: Box::new(move || {
            let mut c = postgres::Client::connect(&u3, postgres::NoTls).unwrap();
            c.batch_execute("CREATE TABLE other (x INTEGER)").unwrap();
        }),
    }
}

fn item(id: &str, text: &str, tags: &[&str]) -> Item {
    let mut item = cairn_test::item(id)
        .project("p")
        .kind(ItemKind::File)
        .title(format!("Title of {id}"))
        .text(text)
        .tags(tags)
        .audience(Audience::Private)
        .file(format!("{id}.md"), 1, 3)
        .created_at(1_700_000_000_000)
        .observed_at(1_700_000_000_001)
        .build();
    item.metadata.insert("k".into(), serde_json::json!({"nested": [1, "two", null]}));
    item
}

fn chunk(item_id: &str, ordinal: u32, text: &str) -> Chunk {
    Chunk {
        id: Chunk::make_id(item_id, ordinal),
        item_id: item_id.into(),
        ordinal,
        heading: format!("H{ordinal}"),
        text: text.into(),
        provenance: Provenance::File {
            path: format!("{item_id}.md"),
            line_start: ordinal + 1,
            line_end: ordinal + 2,
        },
        content_hash: content_hash(text.as_bytes()),
    }
}

fn turn(session: &str, turn_id: &str, ts: i64, audience: Audience) -> TurnRecord {
    let id = format!("turn:{session}:{turn_id}");
    let item = cairn_test::item(&id)
        .project("team")
        .kind(ItemKind::Turn)
        .title(format!("Turn {turn_id}"))
        .text(format!("User: question {turn_id}\nAssistant: answer"))
        .audience(audience)
        .provenance(Provenance::Turn { session_key: session.into(), turn_id: turn_id.into() })
        .created_at(ts)
        .observed_at(ts)
        .build();
    TurnRecord {
        session_key: session.into(),
        turn_id: turn_id.into(),
        project: "team".into(),
        audience,
        ts,
        item,
    }
}

fn upsert_and_read_back(p: &Place) {
    let mut s = p.store();
    assert_eq!(s.last_seq().unwrap(), 0);
    assert!(s.get_item("a").unwrap().is_none());
    assert!(s.chunks("a").unwrap().is_empty());
    let mut a = item("a", "alpha — ünïcödé ✓ 雪", &["x", "y"]);
    a.audience = Audience::Public;
    a.project = "proj/one".into();
    let chunks = vec![chunk("a", 0, "al"), chunk("a", 1, "pha")];
    let seq = s.apply(&[Write::upsert(a.clone(), chunks.clone())], "t").unwrap();
    assert_eq!(seq, 1);
    assert_eq!(s.get_item("a").unwrap().unwrap(), a, "every field round-trips");
    assert_eq!(s.chunks("a").unwrap(), chunks);
    assert_eq!(s.last_seq().unwrap(), seq);
    assert_eq!(s.explicit_tags("a").unwrap(), ["x", "y"]);
    assert!(s.explicit_tags("nope").unwrap().is_empty());
}

fn replace_drops_old_chunks_and_tags(p: &Place) {
    let mut s = p.store();
    let a = item("a", "alpha", &["x", "y"]);
    s.apply(&[Write::upsert(a, vec![chunk("a", 0, "al"), chunk("a", 1, "pha")])], "t").unwrap();
    let mut a2 = item("a", "alpha two", &["x", "inferred"]);
    a2.audience = Audience::Public;
    let w = Write::Upsert {
        item: a2.clone(),
        chunks: vec![chunk("a", 0, "alpha two")],
        explicit_tags: vec!["x".into()],
        file: None,
    };
    let b = item("b", "beta", &["x"]);
    s.apply(&[w, Write::upsert(b, vec![])], "t").unwrap();
    assert_eq!(s.get_item("a").unwrap().unwrap(), a2);
    assert_eq!(s.chunks("a").unwrap().len(), 1);
    assert_eq!(s.explicit_tags("a").unwrap(), ["x"], "inferred tags are not explicit");
    assert_eq!(s.tag_vocabulary().unwrap(), vec![("x".to_string(), 2)]);
    assert_eq!(s.public_tag_vocabulary().unwrap(), vec![("x".to_string(), 1)], "only the public item counts");
}

fn delete_cascades_and_logs_once(p: &Place) {
    let mut s = p.store();
    s.apply(&[Write::upsert(item("a", "alpha", &["x"]), vec![chunk("a", 0, "alpha")])], "t").unwrap();
    let seq = s.apply(&[Write::Delete { item_id: "a".into() }], "t").unwrap();
    assert_eq!(seq, 2);
    assert!(s.get_item("a").unwrap().is_none());
    assert!(s.chunks("a").unwrap().is_empty(), "chunks cascade");
    assert!(s.tag_vocabulary().unwrap().is_empty(), "tags cascade");
    let changes = s.changes_since(0).unwrap();
    assert_eq!(changes.len(), 1);
    assert!(changes[0].deleted);
    assert_eq!(changes[0].seq, seq);
    // Deleting something absent logs nothing and returns the last sequence.
    assert_eq!(s.apply(&[Write::Delete { item_id: "zzz".into() }], "t").unwrap(), seq);
    assert_eq!(s.apply(&[], "t").unwrap(), seq, "an empty batch changes nothing");
}

fn changes_since_collapses_per_item(p: &Place) {
    let mut s = p.store();
    for (i, id) in ["a", "b", "a", "c", "b"].iter().enumerate() {
        s.apply(&[Write::upsert(item(id, &format!("v{i}"), &[]), vec![])], "t").unwrap();
    }
    let c: Vec<(u64, String)> = s.changes_since(0).unwrap().into_iter().map(|c| (c.seq, c.item_id)).collect();
    assert_eq!(
        c,
        [(3, "a".to_string()), (4, "c".to_string()), (5, "b".to_string())],
        "last entry per item, log order"
    );
    let c: Vec<u64> = s.changes_since(3).unwrap().into_iter().map(|c| c.seq).collect();
    assert_eq!(c, [4, 5]);
    assert!(s.changes_since(5).unwrap().is_empty());
    assert!(
        s.changes_since(u64::MAX >> 1).unwrap().is_empty(),
        "a position past the end is empty, not an error"
    );
}

fn failed_batch_leaves_nothing(p: &Place) {
    let mut s = p.store();
    s.apply(&[Write::upsert(item("before", "b", &[]), vec![])], "t").unwrap();
    // Two chunks with the same id violate the primary key: the whole batch must roll back.
    let dup = Write::upsert(item("d", "d", &[]), vec![chunk("d", 0, "a"), chunk("d", 0, "b")]);
    let err = s.apply(&[Write::upsert(item("ok", "fine", &[]), vec![]), dup], "t").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Internal, "{err}");
    assert!(s.get_item("ok").unwrap().is_none(), "nothing of a failed batch is kept");
    assert_eq!(s.last_seq().unwrap(), 1);
    // The store is usable afterwards.
    assert_eq!(s.apply(&[Write::upsert(item("after", "a", &[]), vec![])], "t").unwrap(), 2);
}

fn file_states(p: &Place) {
    let mut s = p.store();
    let f = |path: &str, id: &str, size: u64| FileState {
        path: path.into(),
        item_id: id.into(),
        size,
        mtime_ns: 1_700_000_000_123_456_789,
        content_hash: content_hash(path.as_bytes()),
    };
    let w = Write::Upsert {
        item: item("a", "alpha", &[]),
        chunks: vec![],
        explicit_tags: vec![],
        file: Some(f("notes/a.md", "a", 10)),
    };
    s.apply(&[w], "harvest").unwrap();
    let seq = s.last_seq().unwrap();
    s.apply(&[Write::TouchFile(f("notes/a.md", "a", 11))], "harvest").unwrap();
    assert_eq!(s.last_seq().unwrap(), seq, "touching a file writes no log entry");
    let states = s.file_states().unwrap();
    assert_eq!(states.len(), 1);
    assert_eq!(states["notes/a.md"], f("notes/a.md", "a", 11));
    s.apply(&[Write::Delete { item_id: "a".into() }], "harvest").unwrap();
    assert!(s.file_states().unwrap().is_empty(), "a deleted item takes its file state along");
}

fn turns_are_idempotent_and_ordered(p: &Place) {
    let mut s = p.store();
    let t1 = turn("k", "1", 1_000, Audience::Private);
    let out = s.record_turn(&t1, vec![]).unwrap();
    let TurnOutcome::Stored { item_id, seq } = out else { panic!("{out:?}") };
    assert_eq!((item_id.as_str(), seq), ("turn:k:1", 1));
    assert_eq!(
        s.record_turn(&t1, vec![]).unwrap(),
        TurnOutcome::Duplicate { item_id: "turn:k:1".into() },
        "the same (session, turn) is stored once"
    );
    assert_eq!(s.last_seq().unwrap(), 1, "a duplicate writes nothing");
    s.record_turn(&turn("k", "3", 2_000, Audience::Private), vec![]).unwrap();
    s.record_turn(&turn("k", "2", 2_000, Audience::Private), vec![]).unwrap();
    s.record_turn(&turn("other", "9", 1_500, Audience::Public), vec![]).unwrap();
    let prev = |ts, id| s.previous_turn("k", ts, id).unwrap().map(|i| i.id);
    assert_eq!(prev(2_000, "3"), Some("turn:k:2".into()), "same time: the smaller turn id is earlier");
    assert_eq!(prev(2_000, "2"), Some("turn:k:1".into()));
    assert_eq!(prev(1_000, "1"), None);
    let stored = s.get_item("turn:k:1").unwrap().unwrap();
    assert_eq!((stored.project.as_str(), stored.audience), ("team", Audience::Private));
    let st = s.status().unwrap();
    assert_eq!((st.sessions, st.turns, st.items), (2, 4, 4));
    assert_eq!(st.per_audience.get("public"), Some(&1));
    assert_eq!(st.per_project.get("team"), Some(&4));
}

fn forget_removes_rows(p: &Place) {
    let mut s = p.store();
    s.apply(&[Write::upsert(item("file", "a memory file", &[]), vec![])], "harvest").unwrap();
    let mut note = item("note", "an ingested note", &[]);
    note.provenance = Provenance::External { source: "api".into() };
    note.created_at = 10;
    s.apply(&[Write::upsert(note, vec![])], "ingest").unwrap();
    s.record_turn(&turn("k", "1", 1_000, Audience::Private), vec![]).unwrap();
    s.record_turn(&turn("j", "1", 3_000, Audience::Private), vec![]).unwrap();
    assert_eq!(
        s.forgettable(None, None).unwrap(),
        ["note", "turn:j:1", "turn:k:1"],
        "memory files are not forgettable"
    );
    assert_eq!(s.forgettable(Some("k"), None).unwrap(), ["turn:k:1"]);
    assert_eq!(s.forgettable(None, Some(2_000)).unwrap(), ["note", "turn:k:1"]);
    assert_eq!(s.forgettable(Some("k"), Some(500)).unwrap(), Vec::<String>::new());
    s.apply(&[Write::Delete { item_id: "turn:k:1".into() }], "forget").unwrap();
    assert!(s.get_item("turn:k:1").unwrap().is_none());
    assert_eq!(s.status().unwrap().turns, 1, "the turn record goes with its item");
    // A forgotten turn is gone, not a duplicate: capturing it again stores it again.
    assert!(matches!(
        s.record_turn(&turn("k", "1", 1_000, Audience::Private), vec![]).unwrap(),
        TurnOutcome::Stored { .. }
    ));
}

fn for_each_item_visits_all_in_id_order(p: &Place) {
    let mut s = p.store();
    // More than one page of the PostgreSQL backend (500 items).
    let writes: Vec<Write> = (0..1_100)
        .map(|i| {
            let id = format!("i{i:05}");
            let chunks = if i % 3 == 0 { vec![] } else { vec![chunk(&id, 0, "x"), chunk(&id, 1, "y")] };
            Write::upsert(item(&id, &format!("text {i}"), &[]), chunks)
        })
        .collect();
    s.apply(&writes, "t").unwrap();
    let mut seen = Vec::new();
    let reader: &dyn Store = &*s;
    reader
        .for_each_item(&mut |item, chunks| {
            // The callback may read the same store.
            assert_eq!(reader.chunks(&item.id).unwrap(), chunks);
            seen.push(item.id);
            Ok(())
        })
        .unwrap();
    let expect: Vec<String> = (0..1_100).map(|i| format!("i{i:05}")).collect();
    assert_eq!(seen, expect);
    // An error from the callback stops the visit and is returned.
    let mut n = 0;
    let err = reader
        .for_each_item(&mut |item, _| {
            n += 1;
            Err(Error::Corrupt { id: item.id, reason: "stop".into() })
        })
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }));
    assert_eq!(n, 1);
}

fn harvest_runs_and_status(p: &Place) {
    let mut s = p.store();
    let st = s.status().unwrap();
    assert_eq!((st.items, st.chunks, st.last_seq, st.schema_version), (0, 0, 0, p.version));
    assert!(st.last_harvest.is_none());
    let run = s.begin_harvest("/work/space", 100).unwrap();
    assert!(s.status().unwrap().last_harvest.is_none(), "an unfinished run is not reported");
    s.apply(&[Write::upsert(item("a", "alpha", &[]), vec![chunk("a", 0, "alpha")])], "harvest").unwrap();
    s.finish_harvest(run, 200, &serde_json::json!({"added": 1})).unwrap();
    let st = s.status().unwrap();
    let h = st.last_harvest.unwrap();
    assert_eq!((h.id, h.started_at, h.finished_at, h.root.as_str()), (run, 100, Some(200), "/work/space"));
    assert_eq!(h.summary, Some(serde_json::json!({"added": 1})));
    assert_eq!((st.items, st.chunks, st.last_seq), (1, 1, 1));
    assert_eq!(st.per_kind.get("file"), Some(&1));
    let run2 = s.begin_harvest("/work/space", 300).unwrap();
    assert!(run2 > run);
}

fn vectors(p: &Place) {
    let mut s = p.store();
    s.apply(
        &[
            Write::upsert(item("a", "alpha", &[]), vec![chunk("a", 0, "al"), chunk("a", 1, "pha")]),
            Write::upsert(item("b", "beta", &[]), vec![]),
        ],
        "t",
    )
    .unwrap();
    let pending = s.pending_vectors("m", 3, 10).unwrap();
    let ids: Vec<&str> = pending.iter().map(|c| c.chunk_id.as_str()).collect();
    assert_eq!(ids, ["a#0", "a#1", "b#0"], "a chunkless item is its own whole-text chunk");
    assert_eq!(s.pending_vectors("m", 3, 2).unwrap().len(), 2, "limit");
    assert_eq!(s.vector_status("m", 3).unwrap().pending, 3);
    let new: Vec<NewVector> = pending
        .iter()
        .enumerate()
        .map(|(i, c)| NewVector {
            chunk_id: c.chunk_id.clone(),
            item_id: c.item_id.clone(),
            content_hash: c.content_hash.clone(),
            vector: vec![i as f32, -1.5, 0.25],
            // The second chunk has two lines, stored in its row after its own vector.
            lines: if i == 1 { vec![0.5, 0.5, 0.0, -0.25, 1.0, 2.0] } else { Vec::new() },
        })
        .collect();
    assert_eq!(s.put_vectors("m", &new).unwrap(), 3);
    let st = s.vector_status("m", 3).unwrap();
    assert_eq!((st.current, st.pending), (3, 0));
    assert_eq!(s.vector_status("other", 3).unwrap().pending, 3, "per model");
    let mut seen = Vec::new();
    let mut lines = Vec::new();
    let last = s
        .vectors_since("m", 3, 0, &mut |v| {
            lines.push(v.lines);
            seen.push((v.vseq, v.chunk_id, v.vector))
        })
        .unwrap();
    assert_eq!(seen.len(), 3);
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "vseq order");
    assert_eq!(last, seen[2].0);
    assert_eq!(seen[1].2, vec![1.0, -1.5, 0.25], "vectors round-trip exactly");
    assert_eq!(lines, vec![vec![], vec![0.5, 0.5, 0.0, -0.25, 1.0, 2.0], vec![]], "and their lines");
    let mut none = 0;
    assert_eq!(s.vectors_since("m", 3, last, &mut |_| none += 1).unwrap(), last);
    assert_eq!(none, 0);
    assert_eq!(
        s.vectors_since("m", 4, 0, &mut |_| none += 1).unwrap(),
        last,
        "another dimension: none visited"
    );
    assert_eq!(none, 0);
    let av = s.item_vectors("m", 3, "a").unwrap();
    assert_eq!(av.len(), 2);
    assert_eq!((av[0].project.as_str(), av[0].audience), ("p", Audience::Private));
    // Re-embedding a chunk gives it a new, larger vseq.
    s.put_vectors("m", &new[..1]).unwrap();
    let mut again = Vec::new();
    let last2 = s.vectors_since("m", 3, last, &mut |v| again.push(v.chunk_id)).unwrap();
    assert_eq!(again, ["a#0"]);
    assert!(last2 > last);
    // A changed chunk loses its vector; unchanged ones keep theirs.
    s.apply(&[Write::upsert(item("a", "alpha", &[]), vec![chunk("a", 0, "al"), chunk("a", 1, "PHA")])], "t")
        .unwrap();
    let ids: Vec<String> = s.item_vectors("m", 3, "a").unwrap().into_iter().map(|v| v.chunk_id).collect();
    assert_eq!(ids, ["a#0"]);
    // A vector of stale content or of a vanished item is dropped, not written.
    assert_eq!(s.put_vectors("m", &new[1..2]).unwrap(), 0, "stale content");
    s.apply(&[Write::Delete { item_id: "b".into() }], "t").unwrap();
    assert!(s.item_vectors("m", 3, "b").unwrap().is_empty(), "vectors cascade with their item");
    assert_eq!(s.put_vectors("m", &new[2..3]).unwrap(), 0, "vanished item");
    // An empty vector is refused and nothing of the batch is written.
    let mut bad = new[..1].to_vec();
    bad.push(NewVector { vector: vec![], ..new[0].clone() });
    assert!(s.put_vectors("m", &bad).is_err());
    // Lines that are not whole vectors of the chunk's length: refused.
    let ragged = NewVector { lines: vec![1.0, 2.0], ..new[0].clone() };
    assert!(s.put_vectors("m", &[ragged]).is_err());
    // Dropping one model's vectors leaves another's.
    assert_eq!(s.put_vectors("m2", &new[..1]).unwrap(), 1);
    let kept = s.vector_status("m", 3).unwrap().current;
    assert!(kept > 0);
    assert_eq!(s.drop_vectors("m").unwrap(), kept as usize);
    assert_eq!(s.vector_status("m", 3).unwrap().current, 0);
    assert_eq!(s.drop_vectors("m").unwrap(), 0, "nothing left to drop");
    assert_eq!(s.vector_status("m2", 3).unwrap().current, 1, "another model's vectors stay");
}

fn text_orders_bytewise(p: &Place) {
    let mut s = p.store();
    let writes: Vec<Write> = ["b", "B", "a", "é", "A-1", "a_1"]
        .iter()
        .map(|id| Write::upsert(item(id, "t", &[id]), vec![]))
        .collect();
    s.apply(&writes, "t").unwrap();
    let mut bytewise = vec!["b", "B", "a", "é", "A-1", "a_1"];
    bytewise.sort();
    let vocab: Vec<String> = s.tag_vocabulary().unwrap().into_iter().map(|(t, _)| t).collect();
    assert_eq!(vocab, bytewise);
    let mut ids = Vec::new();
    s.for_each_item(&mut |i, _| {
        ids.push(i.id);
        Ok(())
    })
    .unwrap();
    assert_eq!(ids, bytewise);
}

fn nul_is_kept_or_refused_whole(p: &Place) {
    let mut s = p.store();
    let bad = item("nul", "before\0after", &[]);
    let batch = [Write::upsert(item("fine", "ok", &[]), vec![]), Write::upsert(bad.clone(), vec![])];
    match s.apply(&batch, "t") {
        Ok(_) => assert_eq!(s.get_item("nul").unwrap().unwrap(), bad, "kept exactly"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::BadInput, "{e}");
            assert!(s.get_item("fine").unwrap().is_none(), "nothing of the batch is written");
            assert_eq!(s.last_seq().unwrap(), 0);
        }
    }
    let mut t = turn("k\0", "1", 1, Audience::Private);
    t.item.id = "turn:nul".into();
    match s.record_turn(&t, vec![]) {
        Ok(_) => assert!(s.get_item("turn:nul").unwrap().is_some()),
        Err(e) => assert_eq!(e.kind(), ErrorKind::BadInput, "{e}"),
    }
}

fn migrations_open_twice(p: &Place) {
    {
        let mut s = p.store();
        assert_eq!(s.status().unwrap().schema_version, p.version);
        s.apply(&[Write::upsert(item("a", "alpha", &[]), vec![])], "t").unwrap();
    }
    let s = p.store();
    assert_eq!(s.status().unwrap().schema_version, p.version, "reopening migrates nothing");
    assert!(s.get_item("a").unwrap().is_some(), "data survives reopening");
    // Two stores open at once on one place.
    let t = p.store();
    assert_eq!(t.last_seq().unwrap(), 1);
}

fn newer_schema_is_refused(p: &Place) {
    drop(p.store());
    (p.set_version)(p.version + 1);
    let Err(err) = (p.open)() else { panic!("opened") };
    assert!(
        matches!(err, Error::TooNew { found, supported, .. } if found == p.version + 1 && supported == p.version),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Incompatible);
}

fn foreign_database_is_refused(p: &Place) {
    (p.add_foreign_table)();
    let Err(err) = (p.open)() else { panic!("opened") };
    assert!(matches!(err, Error::NotAStore { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::Incompatible);
}
