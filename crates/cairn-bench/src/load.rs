//! `cairn-bench load`: a load generator for `cairn serve`. N keep-alive connections send a bounded
//! number of turns (prompts from a queries file) while one more task streams captures at a fixed
//! rate; afterwards it waits for the capture queue to drain and checks that every accepted capture
//! reached the store.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};

/// Load test parameters.
#[derive(Debug, Clone)]
pub(crate) struct LoadArgs {
    pub url: String,
    pub queries: Vec<String>,
    pub connections: usize,
    pub requests: usize,
    pub warmup: usize,
    pub captures_per_s: f64,
    pub sessions: usize,
    pub budget: usize,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn status(client: &reqwest::Client, url: &str) -> anyhow::Result<Value> {
    Ok(client.get(format!("{url}/v1/status")).send().await?.error_for_status()?.json().await?)
}

async fn turns(
    client: &reqwest::Client,
    args: &LoadArgs,
    total: usize,
    next: &AtomicUsize,
    fallbacks: &AtomicU64,
    errors: &AtomicU64,
    conn: usize,
) -> Vec<f64> {
    let mut lat = Vec::with_capacity(total / args.connections.max(1) + 1);
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= total {
            return lat;
        }
        let prompt = &args.queries[(i * 7 + conn) % args.queries.len()];
        // Mostly the owner's sessions, every fourth a group (public-only recall).
        let key = if i % 4 == 3 {
            format!("agent:main:telegram:group:-100{}", i % args.sessions.max(1))
        } else {
            format!("agent:main:telegram:direct:{}", i % args.sessions.max(1))
        };
        let body = json!({"session_key": key, "prompt": prompt, "budget": args.budget});
        let started = Instant::now();
        let r = client.post(format!("{}/v1/turn", args.url)).json(&body).send().await;
        match r {
            Ok(r) if r.status().is_success() => match r.json::<Value>().await {
                Ok(v) => {
                    lat.push(started.elapsed().as_secs_f64() * 1e3);
                    if v["fallback"] == true {
                        fallbacks.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Err(_) => {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            },
            _ => {
                errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Runs the load; returns the JSON report.
pub(crate) async fn run(args: LoadArgs) -> anyhow::Result<Value> {
    anyhow::ensure!(!args.queries.is_empty(), "no queries");
    let client = reqwest::Client::builder().pool_max_idle_per_host(args.connections * 2).build()?;
    let before = status(&client, &args.url).await.context("the daemon is not answering /v1/status")?;
    let recorded_before = before["turns_recorded"].as_u64().unwrap_or(0);

    // Warm-up (not measured).
    if args.warmup > 0 {
        let next = AtomicUsize::new(0);
        let (f, e) = (AtomicU64::new(0), AtomicU64::new(0));
        let tasks: Vec<_> =
            (0..args.connections).map(|c| turns(&client, &args, args.warmup, &next, &f, &e, c)).collect();
        futures_join(tasks).await;
    }

    let next = Arc::new(AtomicUsize::new(0));
    let fallbacks = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let run_id = format!("load-{}", std::process::id());

    // Captures streaming in at a fixed rate while the turns run.
    let capture_task = {
        let (client, url, stop, run_id) = (client.clone(), args.url.clone(), stop.clone(), run_id.clone());
        let rate = args.captures_per_s;
        tokio::spawn(async move {
            let (mut sent, mut accepted, mut failed) = (0u64, 0u64, 0u64);
            if rate <= 0.0 {
                return (sent, accepted, failed);
            }
            let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
            while !stop.load(Ordering::Relaxed) {
                tick.tick().await;
                let body = json!({
                    "session_key": format!("agent:main:telegram:direct:{}", sent % 50),
                    "turn_id": format!("{run_id}-{sent}"),
                    "messages": [
                        {"role": "user", "content": format!("<cairn-context>injected</cairn-context>\n\nload test question {sent} about the kestrel rollout")},
                        {"role": "assistant", "content": format!("load test answer {sent}: the rollout is on track")}
                    ]
                });
                sent += 1;
                match client.post(format!("{url}/v1/capture")).json(&body).send().await {
                    Ok(r) if r.status().as_u16() == 202 => match r.json::<Value>().await {
                        Ok(v) if v["duplicate"] == false => accepted += 1,
                        _ => failed += 1,
                    },
                    _ => failed += 1,
                }
            }
            (sent, accepted, failed)
        })
    };

    let started = Instant::now();
    let tasks: Vec<_> = (0..args.connections)
        .map(|c| turns(&client, &args, args.requests, &next, &fallbacks, &errors, c))
        .collect();
    let lat_parts = futures_join(tasks).await;
    let seconds = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let (sent, accepted, capture_failed) = capture_task.await?;

    // Every accepted capture must reach the store.
    let drain_started = Instant::now();
    let mut after = status(&client, &args.url).await?;
    while after["queue"]["queued"].as_u64().unwrap_or(0) > 0
        && drain_started.elapsed() < Duration::from_secs(120)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
        after = status(&client, &args.url).await?;
    }
    let recorded = after["turns_recorded"].as_u64().unwrap_or(0) - recorded_before;

    let mut lat: Vec<f64> = lat_parts.into_iter().flatten().collect();
    lat.sort_by(f64::total_cmp);
    let ok = lat.len();
    Ok(json!({
        "bench": "serve-load",
        "connections": args.connections,
        "requests": args.requests,
        "ok": ok,
        "errors": errors.load(Ordering::Relaxed),
        "fallbacks": fallbacks.load(Ordering::Relaxed),
        "seconds": seconds,
        "turns_per_s": ok as f64 / seconds,
        "p50_ms": percentile(&lat, 0.50),
        "p90_ms": percentile(&lat, 0.90),
        "p99_ms": percentile(&lat, 0.99),
        "max_ms": lat.last().copied().unwrap_or(f64::NAN),
        "captures_sent": sent,
        "captures_accepted": accepted,
        "captures_failed": capture_failed,
        "captures_recorded": recorded,
        "captures_lost": accepted.saturating_sub(recorded),
        "drain_s": drain_started.elapsed().as_secs_f64(),
        "index_chunks": after["index"]["chunks"],
    }))
}

/// Polls every future to completion on the current task (no extra threads).
async fn futures_join<F: std::future::Future>(futs: Vec<F>) -> Vec<F::Output> {
    let mut futs: Vec<_> = futs.into_iter().map(Box::pin).map(Some).collect();
    let mut out: Vec<Option<F::Output>> = (0..futs.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, slot) in futs.iter_mut().enumerate() {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        out[i] = Some(v);
                        *slot = None;
                    }
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
    })
    .await;
    out.into_iter().map(|o| o.expect("every future finished")).collect()
}

/// A `cairn serve` child process, stopped with SIGTERM (graceful: drains the queue) on drop.
pub(crate) struct Daemon {
    child: Child,
    pub url: String,
}

impl Daemon {
    pub(crate) fn spawn(
        cairn: &Path,
        data: &Path,
        route: Option<&Path>,
        port: u16,
    ) -> anyhow::Result<Daemon> {
        let mut cmd = Command::new(cairn);
        cmd.arg("--data-dir").arg(data);
        if let Some(r) = route {
            cmd.arg("--route-config").arg(r);
        }
        cmd.args(["serve", "--port", &port.to_string()]).stdout(Stdio::null()).stderr(Stdio::inherit());
        let child = cmd.spawn().with_context(|| format!("starting {}", cairn.display()))?;
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            anyhow::ensure!(started.elapsed() < Duration::from_secs(300), "daemon did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(Daemon { child, url })
    }

    /// SIGTERM and wait (the daemon drains its queue first).
    pub(crate) fn stop(mut self) -> anyhow::Result<()> {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status()?;
        self.child.wait()?;
        Ok(())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The default `cairn` binary: next to this one.
pub(crate) fn cairn_next_to_me() -> anyhow::Result<PathBuf> {
    Ok(std::env::current_exe()?.with_file_name("cairn"))
}
