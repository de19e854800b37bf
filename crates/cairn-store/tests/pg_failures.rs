//! A PostgreSQL store when the server goes away, on a real server: a lost connection fails the calls
//! that find it (as retryable), the next call reconnects; a stopped server is an error, never an
//! empty store.

use cairn_store::{ErrorKind, PgStore, Store, Write};

#[test]
fn a_lost_connection_fails_one_call_then_reconnects() {
    let Some(server) = cairn_test::postgres::server("a_lost_connection_fails_one_call_then_reconnects")
    else {
        return;
    };
    let url = server.create_db();
    let mut store = PgStore::open(&url).unwrap();
    let item = cairn_test::item("a").title("A").text("alpha").build();
    store.apply(&[Write::upsert(item, vec![])], "test").unwrap();
    // Another session ends this store's connection, as a server restart or a network cut would.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let ended = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap();
    assert_eq!(ended, 1);
    // The calls that find the connection broken fail as retryable (the server's notice, then the reset
    // socket); the one after them reconnects.
    let mut failed = 0;
    let seq = loop {
        match store.last_seq() {
            Ok(seq) => break seq,
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
                failed += 1;
                assert!(failed <= 2, "still failing after {failed} calls: {e}");
            }
        }
    };
    assert!(failed >= 1, "the broken connection was noticed");
    assert_eq!(seq, 1, "reconnected");
    assert!(store.get_item("a").unwrap().is_some());

    // With the server stopped, calls fail (retryable) instead of answering from nothing.
    drop(admin);
    drop(server);
    let err = store.get_item("a").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    let err = store.get_item("a").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.to_string().contains("cannot connect"), "{err}");
    let err = PgStore::open(&url).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
}

#[test]
fn a_bad_url_is_bad_input_and_never_shows_the_password() {
    let err = PgStore::open("postgres://cairn:s3cret@db.example:notaport/cairn").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
}
