//! The shared store over TLS, on a real server that accepts TCP connections only with TLS: with
//! `sslmode=require` and the server's CA as `sslrootcert` a host connects encrypted (the server says
//! so), stores and listens; without the CA, or under a name the certificate does not carry, it is
//! refused before anything is sent; and a URL without `sslmode=require` is not silently downgraded
//! into the clear (the server refuses it).

use std::time::Duration;

use cairn_store::{ErrorKind, Heard, PgListener, PgStore, PgTransport, Store, Write};
use cairn_test::postgres::ServerCert;

/// A CA, and a certificate for `localhost` it signed: `(CA PEM, server cert)`.
fn certificates() -> (String, ServerCert) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "Cairn test CA");
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert =
        CertificateParams::new(vec!["localhost".to_owned()]).unwrap().signed_by(&key, &ca, &ca_key).unwrap();
    (ca.pem(), ServerCert { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
}

#[test]
fn the_shared_store_over_tls_checks_the_server_and_refuses_the_clear() {
    let (ca_pem, cert) = certificates();
    let Some(server) = cairn_test::postgres::tls_server("the_shared_store_over_tls_checks_the_server", &cert)
    else {
        return;
    };
    let socket_url = server.create_db();
    let db = socket_url.rsplit('/').next().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &ca_pem).unwrap();
    let port = server.port();
    let tcp = |host: &str, params: &str| format!("postgres://postgres@{host}:{port}/{db}{params}");
    let tls = tcp("localhost", &format!("?sslmode=require&sslrootcert={}", ca.display()));

    let mut store = PgStore::open(&tls).unwrap_or_else(|e| panic!("{e}\n{}", server.log()));
    assert_eq!(store.transport(), PgTransport::Tls);
    let encrypted = server.run_client(
        "psql",
        &["-d", &db, "-Atc", "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE s.ssl AND a.client_addr IS NOT NULL"],
    );
    assert_eq!(encrypted.trim(), "1", "the server sees one TLS connection");
    let mut listener = PgListener::connect(&tls).unwrap();
    let item = cairn_test::item("a").title("A").text("alpha over TLS").build();
    assert_eq!(store.apply(&[Write::upsert(item, vec![])], "test").unwrap(), 1);
    assert_eq!(listener.wait(Duration::from_secs(2)).unwrap(), Heard::Commit(1));
    assert_eq!(store.get_item("a").unwrap().unwrap().text, "alpha over TLS");
    // The key=value form and libpq's `verify-full` mean the same.
    let kv = format!(
        "host=localhost port={port} user=postgres dbname={db} sslmode=verify-full sslrootcert={}",
        ca.display()
    );
    assert_eq!(PgStore::open(&kv).unwrap().last_seq().unwrap(), 1);

    // Without the CA: the system's roots do not know it.
    let err = PgStore::open(&tcp("localhost", "?sslmode=require")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.to_string().contains("localhost"), "names the server: {err}");
    println!("without the CA: {err}");
    // A name the certificate does not carry (it is for `localhost`, not 127.0.0.1).
    let err = PgStore::open(&tcp("127.0.0.1", &format!("?sslmode=require&sslrootcert={}", ca.display())))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    // No `sslmode=require`: no TLS, so this server refuses the connection; nothing falls back.
    let err = PgStore::open(&tcp("localhost", "")).unwrap_err();
    println!("in clear: {err}");
    assert!(err.to_string().contains("no encryption") || err.to_string().contains("pg_hba"), "{err}");
    // A bad root file is the URL's fault, named.
    let err =
        PgStore::open(&tcp("localhost", "?sslmode=require&sslrootcert=/nonexistent/ca.pem")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(err.to_string().contains("/nonexistent/ca.pem"), "{err}");
}
