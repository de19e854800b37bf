//! Capture throughput into a shared PostgreSQL store, against the embedded SQLite file: `turns` turns
//! recorded by 1 and by 4 writers (each its own connection, as separate hosts), then one catch-up
//! from the log. Starts its own server (`cairn_test::postgres`: a Unix socket, `fsync` off).
//!
//! ```sh
//! cargo run --release -p cairn-store --example pg_capture -- 2000
//! ```

use std::time::Instant;

use cairn_core::{Audience, ItemKind, Provenance};
use cairn_store::{PgStore, SqliteStore, Store, TurnRecord};

fn turn(writer: usize, i: usize) -> TurnRecord {
    let (session, turn_id) = (format!("agent:w{writer}:main"), i.to_string());
    let text = format!("User: question {i} from writer {writer} about the harbour\nAssistant: answer {i}");
    let item = cairn_test::item(format!("turn:{session}:{turn_id}"))
        .project("team")
        .kind(ItemKind::Turn)
        .text(text)
        .audience(Audience::Private)
        .provenance(Provenance::Turn { session_key: session.clone(), turn_id: turn_id.clone() })
        .created_at(i as i64)
        .build();
    TurnRecord {
        session_key: session,
        turn_id,
        project: "team".into(),
        audience: Audience::Private,
        ts: i as i64,
        item,
    }
}

/// Records `turns` turns split over `writers` threads, each with its own store from `open`; turns/s.
fn run(writers: usize, turns: usize, open: &(dyn Fn() -> Box<dyn Store + Send> + Sync)) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        for w in 0..writers {
            let mut store = open();
            s.spawn(move || {
                for i in 0..turns / writers {
                    store.record_turn(&turn(w, i), vec![]).unwrap();
                }
            });
        }
    });
    turns as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let turns: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let server = cairn_test::postgres::server("pg_capture").expect("PostgreSQL server binaries");
    let dir = tempfile::tempdir().unwrap();
    for writers in [1, 4] {
        let url = server.create_db();
        drop(PgStore::open(&url).unwrap());
        let pg = run(writers, turns, &|| Box::new(PgStore::open(&url).unwrap()));
        let path = dir.path().join(format!("w{writers}.sqlite"));
        let sqlite = run(writers, turns, &|| Box::new(SqliteStore::open(&path).unwrap()));
        let reader = PgStore::open(&url).unwrap();
        let start = Instant::now();
        let seen = reader.changes_since(0).unwrap().len();
        let catch_up = start.elapsed();
        assert_eq!(seen, turns / writers * writers);
        println!(
            "writers {writers}: postgres {pg:.0} turns/s, sqlite {sqlite:.0} turns/s; catch-up of {seen} entries \
             from postgres {:.1} ms",
            catch_up.as_secs_f64() * 1e3
        );
    }
}
