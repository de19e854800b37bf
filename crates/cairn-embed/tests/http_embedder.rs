//! The HTTP embedder against a real server on 127.0.0.1 speaking the OpenAI embeddings API, serving
//! vectors from the tiny generated model.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_embed::testing::TinyModel;
use cairn_embed::{EmbedKind, Embedder, Error, HttpEmbedder, HttpEmbedderConfig, LocalEmbedder};
use common::{Reply, Server};
use serde_json::json;

fn config(server: &Server, batch_size: usize) -> HttpEmbedderConfig {
    HttpEmbedderConfig {
        base_url: server.url(),
        model: "tiny".into(),
        api_key: Some("sekret".into()),
        timeout: Duration::from_secs(5),
        batch_size,
        dim: Some(32),
        query_prefix: String::new(),
        document_prefix: String::new(),
    }
}

/// A server embedding with the tiny model, answering in reverse order with un-normalised vectors
/// (scaled by 3), as some servers do.
fn model_server() -> (tempfile::TempDir, Arc<LocalEmbedder>, Server) {
    let tmp = tempfile::tempdir().unwrap();
    TinyModel { normalize: false, ..Default::default() }.write(tmp.path()).unwrap();
    let local = Arc::new(LocalEmbedder::load(tmp.path()).unwrap());
    let l2 = Arc::clone(&local);
    let server = Server::start(Box::new(move |req| {
        if req.method != "POST" || req.path != "/v1/embeddings" {
            return Reply::json(404, &json!({"error": "no such route"}));
        }
        let body = req.json();
        let input: Vec<String> = serde_json::from_value(body["input"].clone()).unwrap();
        let refs: Vec<&str> = input.iter().map(String::as_str).collect();
        let vecs = l2.embed(&refs, EmbedKind::Document).unwrap();
        let data: Vec<_> = vecs
            .iter()
            .enumerate()
            .rev()
            .map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v.iter().map(|x| x * 3.0).collect::<Vec<_>>()}))
            .collect();
        Reply::json(200, &json!({"object": "list", "data": data, "model": body["model"]}))
    }));
    (tmp, local, server)
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

#[test]
fn batches_requests_keeps_order_and_normalises() {
    let (_t, local, server) = model_server();
    let texts: Vec<String> = (0..7).map(|i| format!("note {i} about the cat")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let http = HttpEmbedder::new(config(&server, 3)).unwrap();
    assert_eq!(http.dim(), 32);
    assert_eq!(http.model_id(), "http:tiny");
    let got = http.embed(&refs, EmbedKind::Document).unwrap();
    let want = local.embed(&refs, EmbedKind::Document).unwrap();
    assert_eq!(got.len(), 7);
    for (g, w) in got.iter().zip(&want) {
        let w = unit(w);
        assert!(g.iter().zip(&w).all(|(a, b)| (a - b).abs() < 1e-5), "order or normalisation wrong");
    }
    let reqs = server.requests();
    let sizes: Vec<usize> = reqs.iter().map(|r| r.json()["input"].as_array().unwrap().len()).collect();
    assert_eq!(sizes, vec![3, 3, 1]);
    for r in &reqs {
        assert_eq!(r.path, "/v1/embeddings");
        assert_eq!(r.header("authorization"), Some("Bearer sekret"));
        assert_eq!(r.json()["model"], "tiny");
    }
}

#[test]
fn prefixes_tell_queries_from_documents_and_name_the_vectors() {
    let (_t, local, server) = model_server();
    let plain = HttpEmbedder::new(config(&server, 8)).unwrap();
    let cfg = HttpEmbedderConfig {
        query_prefix: "query: ".into(),
        document_prefix: "passage: ".into(),
        ..config(&server, 8)
    };
    let http = HttpEmbedder::new(cfg.clone()).unwrap();
    let q = http.embed(&["the cat"], EmbedKind::Query).unwrap();
    let d = http.embed(&["the cat", "the dog"], EmbedKind::Document).unwrap();
    let inputs: Vec<serde_json::Value> =
        server.requests().iter().map(|r| r.json()["input"].clone()).collect();
    assert_eq!(inputs, vec![json!(["query: the cat"]), json!(["passage: the cat", "passage: the dog"])]);
    let want = local.embed(&["query: the cat"], EmbedKind::Query).unwrap();
    assert!(q[0].iter().zip(unit(&want[0])).all(|(a, b)| (a - b).abs() < 1e-5), "the query's own vector");
    assert_ne!(q[0], d[0], "a query and a document of the same words are embedded apart");
    // Other prefixes make other vectors: the id says so, and stored vectors are re-made.
    assert_eq!(plain.model_id(), "http:tiny");
    assert!(http.model_id().starts_with("http:tiny@"), "{}", http.model_id());
    assert_ne!(http.model_id(), plain.model_id());
    let swapped =
        HttpEmbedderConfig { query_prefix: "passage: ".into(), document_prefix: "query: ".into(), ..cfg };
    assert_ne!(HttpEmbedder::new(swapped).unwrap().model_id(), http.model_id());
}

#[test]
fn probes_the_dimension_when_not_configured() {
    let (_t, _local, server) = model_server();
    let cfg = HttpEmbedderConfig {
        dim: None,
        api_key: None,
        base_url: format!("{}/v1/", server.url()),
        ..config(&server, 8)
    };
    let http = HttpEmbedder::new(cfg).unwrap();
    assert_eq!(http.dim(), 32);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "one probe request");
    assert_eq!(reqs[0].path, "/v1/embeddings", "a base URL ending in /v1 is not doubled");
    assert_eq!(reqs[0].header("authorization"), None);
}

#[test]
fn a_slow_server_times_out_with_a_clear_error() {
    let server = Server::start(Box::new(|_| Reply {
        delay: Duration::from_secs(3),
        ..Reply::json(200, &json!({"data": []}))
    }));
    let cfg = HttpEmbedderConfig { timeout: Duration::from_millis(300), ..config(&server, 8) };
    let http = HttpEmbedder::new(cfg).unwrap();
    let started = Instant::now();
    let e = http.embed(&["hello"], EmbedKind::Query).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    assert!(matches!(e, Error::HttpTimeout { .. }), "{e:?}");
    assert!(e.to_string().contains("timed out after 0.3 s"), "{e}");
}

#[test]
fn error_statuses_and_malformed_bodies_are_reported() {
    let cases: Vec<(Reply, &str)> = vec![
        (
            Reply::bytes(500, "text/plain", b"model not loaded: all-minilm".to_vec()),
            "HTTP 500: model not loaded",
        ),
        (Reply::json(401, &json!({"error": {"message": "bad key"}})), "HTTP 401"),
        (Reply::json(200, &json!({"nope": 1})), "malformed"),
        (Reply::bytes(200, "text/html", b"<html>hello</html>".to_vec()), "malformed"),
        (
            Reply::json(200, &json!({"data": [{"embedding": [1.0, 0.0], "index": 0}]})),
            "2 dimensions, expected 32",
        ),
        (Reply::json(200, &json!({"data": []})), "0 embeddings for 1 inputs"),
        (
            Reply::json(200, &json!({"data": [{"embedding": vec![0.5f32; 32], "index": 4}]})),
            "index 4 out of range",
        ),
    ];
    for (reply, needle) in cases {
        let reply = std::sync::Mutex::new(Some(reply));
        let server = Server::start(Box::new(move |_| reply.lock().unwrap().take().expect("one request")));
        let http = HttpEmbedder::new(config(&server, 8)).unwrap();
        let e = http.embed(&["hello"], EmbedKind::Query).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(needle), "want {needle:?} in {msg}");
        assert!(msg.contains(&server.url()), "names the endpoint: {msg}");
        match e {
            Error::HttpStatus { .. } => assert!(needle.starts_with("HTTP")),
            Error::BadResponse { .. } => assert!(!needle.starts_with("HTTP")),
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn an_unreachable_server_is_an_http_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let cfg = HttpEmbedderConfig {
        base_url: format!("http://127.0.0.1:{port}"),
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(2),
        batch_size: 4,
        dim: None,
        query_prefix: String::new(),
        document_prefix: String::new(),
    };
    let e = HttpEmbedder::new(cfg).unwrap_err();
    assert!(matches!(e, Error::Http { .. }), "{e:?}");
    assert!(e.to_string().contains(&format!("127.0.0.1:{port}")), "{e}");
}
