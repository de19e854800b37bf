//! Two `cairn serve` daemons on one shared PostgreSQL store (a throw-away server, `cairn_test::postgres`):
//! cross-host freshness, from a capture acknowledged by daemon A until daemon B recalls it, with the
//! store's commit notifications and by polling alone (`serve.follow_notifications = false`); then
//! capture throughput into the store from both daemons at once.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};

const SESSION: &str = "agent:main:main";

/// What to run.
pub(crate) struct SharedBench {
    /// The `cairn` binary.
    pub cairn: PathBuf,
    /// Freshness samples per mode.
    pub samples: usize,
    /// Captures per daemon in the throughput run.
    pub captures: usize,
    /// Client tasks per daemon in the throughput run.
    pub clients: usize,
}

struct Host {
    child: Child,
    url: String,
    client: reqwest::Client,
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Host {
    fn start(cairn: &Path, dir: &Path, store_url: &str, notify: bool) -> anyhow::Result<Host> {
        let data = dir.join("data");
        std::fs::create_dir_all(dir)?;
        let mut child = Command::new(cairn)
            .current_dir(dir)
            .env_remove("CAIRN_CONFIG")
            .env("XDG_CONFIG_HOME", "/nonexistent/cairn-bench-config")
            .env("CAIRN_EMBED__MODELS_DIR", "/nonexistent/cairn-bench-models")
            .env("CAIRN_STORE__URL", store_url)
            .env("CAIRN_SERVE__FOLLOW_NOTIFICATIONS", notify.to_string())
            .arg("--data-dir")
            .arg(&data)
            .args(["serve", "--port", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", cairn.display()))?;
        let mut lines = BufReader::new(child.stderr.take().context("stderr")?).lines();
        let url = loop {
            let line = lines.next().context("the daemon exited before listening")??;
            if let Some(at) = line.strip_prefix("cairn serve: listening on ") {
                break at.to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        let token = std::fs::read_to_string(data.join("serve.token"))?;
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {}", token.trim()).parse()?);
        let client = reqwest::Client::builder().default_headers(headers).build()?;
        Ok(Host { child, url, client })
    }

    async fn capture(&self, turn_id: &str, user: &str) -> anyhow::Result<()> {
        let r = self
            .client
            .post(format!("{}/v1/capture", self.url))
            .json(&json!({"session_key": SESSION, "turn_id": turn_id, "user": user, "assistant": "noted"}))
            .send()
            .await?;
        anyhow::ensure!(r.status().as_u16() == 202, "capture {turn_id}: {}", r.status());
        Ok(())
    }

    async fn finds(&self, query: &str, id: &str) -> anyhow::Result<bool> {
        let r: Value = self
            .client
            .post(format!("{}/v1/search", self.url))
            .json(&json!({"query": query, "session_key": SESSION, "k": 10}))
            .send()
            .await?
            .json()
            .await?;
        Ok(r["hits"].as_array().is_some_and(|h| h.iter().any(|h| h["id"] == id)))
    }

    async fn status(&self) -> anyhow::Result<Value> {
        Ok(self.client.get(format!("{}/v1/status", self.url)).send().await?.json().await?)
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Runs the benchmark; the figures as JSON.
pub(crate) fn run(b: &SharedBench) -> anyhow::Result<Value> {
    let server = cairn_test::postgres::server("cairn-bench shared")
        .context("no PostgreSQL server binaries (initdb, pg_ctl) found")?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let tmp = tempfile::tempdir()?;
    let mut out = json!({"loadavg_start": loadavg(), "samples": b.samples});
    for (mode, notify) in [("notify", true), ("polling", false)] {
        let url = server.create_db();
        let dir = tmp.path().join(mode);
        let a = Host::start(&b.cairn, &dir.join("a"), &url, notify)?;
        let bh = Host::start(&b.cairn, &dir.join("b"), &url, notify)?;
        let figures = rt.block_on(freshness(&a, &bh, b.samples, notify))?;
        eprintln!("freshness ({mode}): {figures}");
        out[mode] = json!({"freshness": figures});
        drop((a, bh));

        let url = server.create_db();
        let dir = tmp.path().join(format!("{mode}-throughput"));
        let hosts = Arc::new([
            Host::start(&b.cairn, &dir.join("a"), &url, notify)?,
            Host::start(&b.cairn, &dir.join("b"), &url, notify)?,
        ]);
        let figures = rt.block_on(throughput(hosts.clone(), b.captures, b.clients))?;
        let turns = cairn_store::Store::status(&cairn_store::PgStore::open(&url)?)?.turns;
        anyhow::ensure!(turns as usize == 2 * b.captures, "{turns} turns stored, {} sent", 2 * b.captures);
        eprintln!("throughput ({mode}): {figures}");
        out[mode]["throughput"] = figures;
    }
    out["loadavg_end"] = json!(loadavg());
    Ok(out)
}

/// `samples` captures on `a`, one at a time; for each, how long until `b` recalls it (ms).
async fn freshness(a: &Host, b: &Host, samples: usize, notify: bool) -> anyhow::Result<Value> {
    // Both daemons serving (B's recall side open) and, with notifications, listening.
    for h in [a, b] {
        let until = Instant::now() + Duration::from_secs(20);
        h.finds("warmup", "none").await?;
        while notify && h.status().await?["follow"]["listening"] != true {
            anyhow::ensure!(Instant::now() < until, "daemon not listening to the store");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut ms = Vec::with_capacity(samples);
    let mut missed = 0;
    let mut jitter: u64 = 0x9e37_79b9;
    for i in 0..samples {
        let word = format!("freshword{i}q");
        let id = format!("turn:{SESSION}:fresh-{i}");
        let t0 = Instant::now();
        a.capture(&format!("fresh-{i}"), &format!("The {word} parcel arrived")).await?;
        loop {
            if b.finds(&word, &id).await? {
                ms.push(t0.elapsed().as_secs_f64() * 1000.0);
                break;
            }
            if t0.elapsed() > Duration::from_secs(5) {
                missed += 1;
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // A pause of 0–60 ms, so that captures land anywhere within the polling period.
        jitter = jitter.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        tokio::time::sleep(Duration::from_millis((jitter >> 33) % 61)).await;
    }
    ms.sort_by(f64::total_cmp);
    let mean = ms.iter().sum::<f64>() / ms.len().max(1) as f64;
    Ok(json!({
        "p50_ms": percentile(&ms, 50.0),
        "p90_ms": percentile(&ms, 90.0),
        "p99_ms": percentile(&ms, 99.0),
        "max_ms": ms.last().copied().unwrap_or(f64::NAN),
        "mean_ms": mean,
        "missed": missed,
    }))
}

/// `captures` captures per daemon from `clients` tasks each, both daemons at once: how fast they are
/// acknowledged, and how fast they are in the shared store.
async fn throughput(hosts: Arc<[Host; 2]>, captures: usize, clients: usize) -> anyhow::Result<Value> {
    let per_client = captures.div_ceil(clients.max(1));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for h in 0..2 {
        for c in 0..clients {
            let hosts = hosts.clone();
            let n = per_client.min(captures.saturating_sub(c * per_client));
            tasks.push(tokio::spawn(async move {
                for i in 0..n {
                    let text = format!("Host {h} client {c} turn {i}: the survey of harbour {i} is due");
                    hosts[h].capture(&format!("h{h}-c{c}-{i}"), &text).await?;
                }
                anyhow::Ok(())
            }));
        }
    }
    for t in tasks {
        t.await??;
    }
    let acked = start.elapsed();
    let total = 2 * captures as u64;
    loop {
        let mut done = 0;
        for h in hosts.iter() {
            let s = h.status().await?;
            done +=
                s["worker"]["stored"].as_u64().unwrap_or(0) + s["worker"]["duplicate"].as_u64().unwrap_or(0);
        }
        if done >= total {
            break;
        }
        anyhow::ensure!(start.elapsed() < Duration::from_secs(600), "captures not stored: {done} of {total}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stored = start.elapsed();
    Ok(json!({
        "captures": total,
        "clients_per_daemon": clients,
        "acknowledged_per_s": total as f64 / acked.as_secs_f64(),
        "stored_per_s": total as f64 / stored.as_secs_f64(),
        "stored_s": stored.as_secs_f64(),
    }))
}
