//! Several hosts writing one PostgreSQL store at once, on a real server: a reader catching up by
//! sequence number never skips a row committed late, and a turn captured by many hosts is stored once.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cairn_core::{Audience, Chunk, ItemKind, Provenance, content_hash};
use cairn_store::{PgStore, Store, TurnOutcome, TurnRecord, Write};

const WRITERS: usize = 6;
const BATCHES: usize = 120;

fn upsert(id: &str) -> Write {
    let item = cairn_test::item(id).title(id).text(format!("text of {id}")).tags(["t", id]).build();
    // A few chunks, so that each transaction spends a while between taking its number and committing.
    let chunks = (0..4)
        .map(|o| Chunk {
            id: Chunk::make_id(id, o),
            item_id: id.into(),
            ordinal: o,
            heading: String::new(),
            text: format!("{id} part {o}"),
            provenance: Provenance::External { source: "test".into() },
            content_hash: content_hash(format!("{id} part {o}").as_bytes()),
        })
        .collect();
    Write::upsert(item, chunks)
}

/// Many writers on their own connections while a reader keeps catching up with `changes_since(last)`:
/// what the reader saw must be everything written, each row once, numbered 1..=n without a gap. With
/// numbers from a plain `SEQUENCE` the reader moves past numbers that commit later and misses them.
#[test]
fn catching_up_never_skips_a_late_commit() {
    let Some(server) = cairn_test::postgres::server("catching_up_never_skips_a_late_commit") else { return };
    let url = server.create_db();
    drop(PgStore::open(&url).unwrap());
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (url, done) = (url.clone(), done.clone());
        std::thread::spawn(move || {
            let store = PgStore::open(&url).unwrap();
            let mut last = 0;
            let mut seen: Vec<(u64, String)> = Vec::new();
            let mut rounds = 0;
            loop {
                // Read the flag first: the catch-up after the writers finished sees everything.
                let finished = done.load(Ordering::SeqCst);
                for c in store.changes_since(last).unwrap() {
                    assert!(c.seq > last, "changes_since({last}) returned {}", c.seq);
                    last = c.seq;
                    seen.push((c.seq, c.item_id));
                }
                rounds += 1;
                if finished {
                    return (seen, rounds);
                }
            }
        })
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut store = PgStore::open(&url).unwrap();
                let mut written = Vec::new();
                for b in 0..BATCHES {
                    let id = format!("w{w}-b{b:03}");
                    store.apply(&[upsert(&id)], "test").unwrap();
                    written.push(id);
                }
                written
            })
        })
        .collect();
    let written: BTreeSet<String> = writers.into_iter().flat_map(|h| h.join().unwrap()).collect();
    done.store(true, Ordering::SeqCst);
    let (seen, rounds) = reader.join().unwrap();
    let n = (WRITERS * BATCHES) as u64;
    assert!(rounds > 10, "the reader caught up while writers wrote ({rounds} rounds)");
    let seqs: Vec<u64> = seen.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (1..=n).collect::<Vec<_>>(), "every number seen once, in order, without a gap");
    let ids: BTreeSet<String> = seen.into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, written, "the reader saw every row written");
}

/// The same property step by step: while another transaction holds an uncommitted number, a second
/// writer cannot commit a larger one, so a reader cannot see it first.
#[test]
fn a_pending_number_holds_back_later_writers() {
    let Some(server) = cairn_test::postgres::server("a_pending_number_holds_back_later_writers") else {
        return;
    };
    let url = server.create_db();
    let reader = PgStore::open(&url).unwrap();
    let mut other_host = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut tx = other_host.transaction().unwrap();
    let pending: i64 = tx
        .query_one(
            "INSERT INTO ingest_log (seq, at, op, item_id, source) \
             VALUES (cairn_next_seq('ingest'), 0, 'delete', 'gone', 'other') RETURNING seq",
            &[],
        )
        .unwrap()
        .get(0);
    let writer = {
        let url = url.clone();
        std::thread::spawn(move || PgStore::open(&url).unwrap().apply(&[upsert("later")], "test").unwrap())
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(!writer.is_finished(), "the second writer waits for the pending number's transaction");
    assert!(reader.changes_since(0).unwrap().is_empty(), "nothing is visible before the first commit");
    tx.commit().unwrap();
    let later = writer.join().unwrap();
    assert!(later > pending as u64, "numbers follow commit order");
    let seen: Vec<(u64, String)> =
        reader.changes_since(0).unwrap().into_iter().map(|c| (c.seq, c.item_id)).collect();
    assert_eq!(seen, [(pending as u64, "gone".to_string()), (later, "later".to_string())]);
}

/// Vector numbers too: many writers embedding at once, a reader following `vectors_since`.
#[test]
fn vector_catch_up_never_skips() {
    let Some(server) = cairn_test::postgres::server("vector_catch_up_never_skips") else { return };
    let url = server.create_db();
    let mut store = PgStore::open(&url).unwrap();
    let ids: Vec<String> = (0..WRITERS * 40).map(|i| format!("v{i:04}")).collect();
    store.apply(&ids.iter().map(|id| upsert(id)).collect::<Vec<_>>(), "test").unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (url, done) = (url.clone(), done.clone());
        std::thread::spawn(move || {
            let store = PgStore::open(&url).unwrap();
            let (mut last, mut seen) = (0, Vec::new());
            loop {
                let finished = done.load(Ordering::SeqCst);
                last = store.vectors_since("m", 2, last, &mut |v| seen.push(v.vseq)).unwrap();
                if finished {
                    return seen;
                }
            }
        })
    };
    let writers: Vec<_> = ids
        .chunks(40)
        .map(|part| {
            let (url, part) = (url.clone(), part.to_vec());
            std::thread::spawn(move || {
                let mut store = PgStore::open(&url).unwrap();
                for id in part {
                    let vectors: Vec<_> = (0..4)
                        .map(|o| cairn_store::NewVector {
                            chunk_id: Chunk::make_id(&id, o),
                            item_id: id.clone(),
                            content_hash: content_hash(format!("{id} part {o}").as_bytes()),
                            vector: vec![o as f32, 1.0],
                            lines: Vec::new(),
                        })
                        .collect();
                    assert_eq!(store.put_vectors("m", &vectors).unwrap(), 4);
                }
            })
        })
        .collect();
    writers.into_iter().for_each(|h| h.join().unwrap());
    done.store(true, Ordering::SeqCst);
    let seen = reader.join().unwrap();
    let n = (ids.len() * 4) as u64;
    assert_eq!(seen, (1..=n).collect::<Vec<_>>(), "every vector seen once, in order, without a gap");
}

/// Hosts capturing the same turn at the same time: one stores it, every other finds it stored.
#[test]
fn a_turn_captured_by_many_hosts_is_stored_once() {
    let Some(server) = cairn_test::postgres::server("a_turn_captured_by_many_hosts_is_stored_once") else {
        return;
    };
    let url = server.create_db();
    drop(PgStore::open(&url).unwrap());
    let start = Arc::new(std::sync::Barrier::new(WRITERS));
    let hosts: Vec<_> = (0..WRITERS)
        .map(|h| {
            let (url, start) = (url.clone(), start.clone());
            std::thread::spawn(move || {
                let mut store = PgStore::open(&url).unwrap();
                start.wait();
                (0..20)
                    .map(|t| {
                        let turn_id = t.to_string();
                        let item = cairn_test::item(format!("turn:shared:{t}"))
                            .project("team")
                            .kind(ItemKind::Turn)
                            .text(format!("User: {t} (host {h})"))
                            .audience(Audience::Private)
                            .provenance(Provenance::Turn {
                                session_key: "shared".into(),
                                turn_id: turn_id.clone(),
                            })
                            .build();
                        let rec = TurnRecord {
                            session_key: "shared".into(),
                            turn_id,
                            project: "team".into(),
                            audience: Audience::Private,
                            ts: t,
                            item,
                        };
                        store.record_turn(&rec, vec![]).unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let outcomes: Vec<TurnOutcome> = hosts.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let stored = outcomes.iter().filter(|o| matches!(o, TurnOutcome::Stored { .. })).count();
    assert_eq!(stored, 20, "each turn stored by exactly one host");
    let store = PgStore::open(&url).unwrap();
    let st = store.status().unwrap();
    assert_eq!((st.turns, st.sessions, st.items, st.last_seq), (20, 1, 20, 20));
}
