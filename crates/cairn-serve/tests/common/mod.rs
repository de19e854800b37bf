//! A real daemon on 127.0.0.1 (ephemeral port) over a real store, for the integration tests.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cairn_core::Audience;
use cairn_engine::{Engine, EngineConfig};
use cairn_serve::{Daemon, ServeSettings};
use cairn_store::{SqliteStore, Store, Write};
use cairn_test::fact;
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub const ROUTE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/config");

/// Seeds a store with a public and a private fact.
pub fn seed(data: &Path) {
    let mut store = SqliteStore::open(&data.join("cairn.sqlite")).unwrap();
    let items = [
        fact(
            "fact:trattoria",
            "Favourite restaurant",
            "Lucia's favourite restaurant is Trattoria Zanzibar; she always books the corner table for dinner.",
            Audience::Private,
        ),
        fact(
            "fact:queue",
            "Alert queue",
            "The alert queue of the ops team lives in SQLite and restaurant alerts go to the bistro channel.",
            Audience::Public,
        ),
    ];
    let writes: Vec<Write> = items.into_iter().map(|i| Write::upsert(i, vec![])).collect();
    store.apply(&writes, "test").unwrap();
}

pub fn engine_config(data: &Path) -> EngineConfig {
    let mut cfg = EngineConfig::new(data);
    cfg.route_dir = Some(PathBuf::from(ROUTE_DIR));
    cfg
}

pub fn options() -> ServeSettings {
    // Debug builds on a busy 2-core box: generous turn and request timeouts (one test sets a short
    // turn timeout on purpose). A daemon's first search embeds the relevance floor's reference prompts
    // into its fresh data directory, which alone can take more than the default 10 s there.
    ServeSettings {
        addr: "127.0.0.1:0".parse().unwrap(),
        turn_timeout_ms: 30_000,
        request_timeout_ms: 60_000,
        ..ServeSettings::default()
    }
}

pub struct TestDaemon {
    pub url: String,
    pub engine: Arc<Engine>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), cairn_serve::Error>>>,
    pub client: reqwest::Client,
}

impl TestDaemon {
    pub async fn start(data: &Path, options: ServeSettings) -> TestDaemon {
        Self::start_with(Engine::open(engine_config(data)).unwrap(), options).await
    }

    pub async fn start_with(engine: Engine, options: ServeSettings) -> TestDaemon {
        let engine = Arc::new(engine);
        let daemon = Daemon::new(engine.clone(), options);
        let (tx, rx) = oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<String>();
        let task = tokio::spawn(async move {
            daemon
                .run(
                    async move {
                        let _ = rx.await;
                    },
                    move |at| ready_tx.send(at.to_owned()).unwrap(),
                )
                .await
        });
        let url =
            tokio::task::spawn_blocking(move || ready_rx.recv_timeout(Duration::from_secs(30)).unwrap())
                .await
                .unwrap();
        TestDaemon { url, engine, shutdown: Some(tx), task: Some(task), client: reqwest::Client::new() }
    }

    /// Graceful shutdown: stop accepting, drain the capture queue, save session state.
    pub async fn stop(mut self) {
        let _ = self.shutdown.take().unwrap().send(());
        self.task.take().unwrap().await.unwrap().unwrap();
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self.client.post(format!("{}{path}", self.url)).json(body).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post_raw(&self, path: &str, body: Vec<u8>) -> (u16, Value) {
        let r = self
            .client
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        let r = self.client.get(format!("{}{path}", self.url)).send().await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    pub async fn turn(&self, key: &str, prompt: &str) -> Value {
        let (status, v) = self.post("/v1/turn", &json!({"session_key": key, "prompt": prompt})).await;
        assert_eq!(status, 200, "{v}");
        v
    }

    /// Waits until the capture queue is empty.
    pub async fn drained(&self) {
        for _ in 0..200 {
            let (_, s) = self.get("/v1/status").await;
            let s: Value = serde_json::from_str(&s).unwrap();
            if s["queue"]["queued"] == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("capture queue never drained");
    }
}
