//! Commits to the shared log wake the hosts that listen, on a real server: a listener hears each
//! commit with its last sequence number, and nothing for a write that logs nothing (a turn already
//! captured, a forgotten id that is not there); a listener whose connection ends reports it.

use std::time::Duration;

use cairn_core::{Audience, ItemKind, Provenance};
use cairn_store::{ErrorKind, Heard, PG_LISTENER_NAME, PgListener, PgStore, Store, TurnRecord, Write};

const WAIT: Duration = Duration::from_millis(300);

fn turn(t: i64) -> TurnRecord {
    let turn_id = t.to_string();
    let item = cairn_test::item(format!("turn:s:{t}"))
        .kind(ItemKind::Turn)
        .text(format!("User: turn {t}"))
        .audience(Audience::Private)
        .provenance(Provenance::Turn { session_key: "s".into(), turn_id: turn_id.clone() })
        .build();
    TurnRecord {
        session_key: "s".into(),
        turn_id,
        project: "default".into(),
        audience: Audience::Private,
        ts: t,
        item,
    }
}

#[test]
fn a_listener_hears_each_commit_to_the_log() {
    let Some(server) = cairn_test::postgres::server("a_listener_hears_each_commit_to_the_log") else {
        return;
    };
    let url = server.create_db();
    let mut store = PgStore::open(&url).unwrap();
    let mut listener = PgListener::connect(&url).unwrap();
    assert_eq!(listener.wait(Duration::from_millis(50)).unwrap(), Heard::Nothing);

    let a = cairn_test::item("a").title("A").text("alpha").build();
    let b = cairn_test::item("b").title("B").text("beta").build();
    let seq = store.apply(&[Write::upsert(a, vec![]), Write::upsert(b, vec![])], "test").unwrap();
    assert_eq!(seq, 2);
    assert_eq!(listener.wait(WAIT).unwrap(), Heard::Commit(2), "one notification for the batch");
    assert_eq!(listener.wait(Duration::from_millis(50)).unwrap(), Heard::Nothing);

    store.record_turn(&turn(1), vec![]).unwrap();
    assert_eq!(listener.wait(WAIT).unwrap(), Heard::Commit(3));
    // A duplicate turn and a delete of nothing log nothing, and wake nobody.
    store.record_turn(&turn(1), vec![]).unwrap();
    store.apply(&[Write::Delete { item_id: "missing".into() }], "test").unwrap();
    assert_eq!(listener.wait(Duration::from_millis(100)).unwrap(), Heard::Nothing);

    // Announcements received while nobody waited are taken together: the highest number.
    store.apply(&[Write::Delete { item_id: "a".into() }], "test").unwrap();
    store.record_turn(&turn(2), vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(listener.wait(WAIT).unwrap(), Heard::Commit(5));
    assert!(listener.check(WAIT).is_ok());

    // The listening connection ended (a server restart, an administrator): the next wait says so.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let ended: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
            &[&PG_LISTENER_NAME],
        )
        .unwrap()
        .get(0);
    assert_eq!(ended, 1);
    let err = (0..3).find_map(|_| listener.wait(WAIT).err()).expect("the lost connection is reported");
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    // A new listener hears the next commit.
    let mut listener = PgListener::connect(&url).unwrap();
    store.record_turn(&turn(3), vec![]).unwrap();
    assert_eq!(listener.wait(WAIT).unwrap(), Heard::Commit(6));
}

/// Session state saved on the server wakes the listening hosts, and a host pulls exactly the rows
/// written after the last one it saw, in write order, one row per session.
#[test]
fn saved_session_state_wakes_listeners_and_is_pulled_by_row_number() {
    let Some(server) =
        cairn_test::postgres::server("saved_session_state_wakes_listeners_and_is_pulled_by_row_number")
    else {
        return;
    };
    let url = server.create_db();
    let mut store = PgStore::open(&url).unwrap();
    let mut listener = PgListener::connect(&url).unwrap();
    let state = |k: &str, n: u32| (k.to_owned(), format!("{{\"turns\":{n}}}"));

    store.put_session_states(&[state("a", 1), state("b", 1)], 10).unwrap();
    assert_eq!(listener.wait(WAIT).unwrap(), Heard::Commit(0), "woken, with no log number");
    let (all, seen) = store.session_states().unwrap();
    assert_eq!((all.len(), seen), (2, 2));
    assert_eq!(store.session_states_since(seen).unwrap(), (vec![], seen));

    store.put_session_states(&[state("a", 2)], 11).unwrap();
    assert_eq!(listener.wait(WAIT).unwrap(), Heard::Commit(0));
    assert_eq!(store.session_states_since(seen).unwrap(), (vec![state("a", 2)], 3));
    assert_eq!(store.session_state("a").unwrap().as_deref(), Some("{\"turns\":2}"));
    assert_eq!(store.session_state("zzz").unwrap(), None);
    // Nothing to save wakes nobody; a NUL is refused before anything is written.
    store.put_session_states(&[], 12).unwrap();
    assert_eq!(listener.wait(Duration::from_millis(100)).unwrap(), Heard::Nothing);
    let err = store.put_session_states(&[state("c", 1), ("d".into(), "\0".into())], 13).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert_eq!(store.session_states().unwrap().0.len(), 2);
}
