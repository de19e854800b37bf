//! `cairn-bench remote`: what remote sources cost a turn. Warm `Engine::turn` calls in this process
//! over a generated store, against fake Graphiti, LightRAG and mem0 servers on 127.0.0.1 (the
//! `cairn-remote` test servers, real HTTP) with a set delay:
//!
//! - `local`: no sources, the baseline;
//! - `three`: the three services at `--delay-ms` each: parallel calls cost about the slowest plus
//!   local recall, not the sum;
//! - `two`: two of them, and `two_plus_down`: the same two and a third that hangs, marked down by
//!   its first failed health check: a down source adds nothing;
//! - `hanging`: one source whose health route answers but whose search never does (never marked
//!   down): every turn waits for the deadline and no longer.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cairn_core::{Audience, Item, ItemKind, Provenance, SourceState};
use cairn_engine::settings::{SourceConfig, SourceSettings};
use cairn_engine::{Engine, EngineConfig, TurnRequest};
use cairn_remote::Kind;
use cairn_remote::testing::{self, FakeServer};
use cairn_store::{SqliteStore, Store, Write};
use serde_json::{Value, json};

/// The benchmark's knobs.
pub(crate) struct RemoteBench {
    pub(crate) notes: usize,
    pub(crate) turns: usize,
    pub(crate) delay_ms: u64,
    pub(crate) timeout_ms: u64,
    pub(crate) hang_turns: usize,
}

const WORDS: &[&str] = &[
    "alice",
    "acme",
    "contract",
    "renewal",
    "boat",
    "harbor",
    "garden",
    "tomato",
    "budget",
    "review",
    "kestrel",
    "invoice",
    "travel",
    "berlin",
    "meeting",
    "design",
    "launch",
    "backup",
    "server",
    "deploy",
    "recipe",
    "dinner",
    "family",
    "school",
    "dentist",
    "insurance",
    "mortgage",
    "painting",
    "guitar",
    "running",
];

fn word(i: usize) -> &'static str {
    WORDS[i % WORDS.len()]
}

/// The prompts: two or three of the words, so that local and remote hits both clear the floor.
fn prompts() -> Vec<String> {
    (0..50)
        .map(|i| format!("What about the {} {} and the {}?", word(i), word(i * 7 + 3), word(i * 13 + 5)))
        .collect()
}

fn seed(dir: &std::path::Path, notes: usize) -> anyhow::Result<()> {
    let mut store = SqliteStore::open(&dir.join("cairn.sqlite"))?;
    let writes: Vec<Write> = (0..notes)
        .map(|i| {
            let text = format!(
                "Notes on the {} {}: the {} came up again, with the {} and the {}.",
                word(i),
                word(i / 3 + 1),
                word(i / 7 + 2),
                word(i / 11 + 4),
                word(i / 17 + 6)
            );
            let item = Item {
                id: format!("fact:{i}"),
                project: "default".into(),
                kind: ItemKind::Fact,
                title: format!("{} {}", word(i), i),
                content_hash: cairn_core::content_hash(text.as_bytes()),
                text,
                tags: vec![],
                audience: Audience::Private,
                provenance: Provenance::External { source: "bench".into() },
                created_at: 1_700_000_000_000 + i as i64 * 3_600_000,
                observed_at: 0,
                metadata: Default::default(),
            };
            let chunk = cairn_core::Chunk::whole(&item);
            Write::upsert(item, vec![chunk])
        })
        .collect();
    for batch in writes.chunks(512) {
        store.apply(batch, "bench")?;
    }
    Ok(())
}

fn servers(delay_ms: u64) -> (FakeServer, FakeServer, FakeServer) {
    let facts = (0..10)
        .map(|i| {
            let text = format!("The {} {} is linked to the {}", word(i), word(i * 7 + 3), word(i * 13 + 5));
            testing::fact("default", &format!("f{i}"), "RELATES_TO", &text, Some("2026-01-05T00:00:00Z"))
        })
        .collect();
    let graphiti = testing::graphiti(facts);
    let entities: Vec<Value> = (0..10)
        .map(|i| {
            json!({"entity_name": format!("{} {}", word(i), i), "entity_type": "CONCEPT",
                   "description": format!("The {} of the {} review", word(i), word(i + 8)), "source_id": "c", "file_path": "/d.md"})
        })
        .collect();
    let lightrag = testing::lightrag(json!({"entities": entities, "relationships": [], "chunks": []}));
    let memories = (0..10)
        .map(|i| {
            testing::memory(
                "me",
                &format!("m{i}"),
                &format!("Prefers the {} {}", word(i), word(i + 2)),
                "2026-02-01T00:00:00Z",
            )
        })
        .collect();
    let mem0 = testing::mem0(memories);
    for s in [&graphiti, &lightrag, &mem0] {
        s.control.delay_ms.store(delay_ms, Ordering::Relaxed);
    }
    (graphiti, lightrag, mem0)
}

fn source(name: &str, kind: Kind, server: &FakeServer, timeout_ms: u64) -> SourceConfig {
    let mut s = SourceSettings::new(kind, server.url());
    s.timeout_ms = timeout_ms;
    s.partition = (kind == Kind::Mem0).then(|| "me".to_owned());
    SourceConfig::resolve(name, &s, |_| None)
}

fn engine(dir: &std::path::Path, sources: Vec<SourceConfig>) -> anyhow::Result<Engine> {
    let mut cfg = EngineConfig::new(dir);
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    cfg.remote = sources;
    Ok(Engine::open(cfg)?)
}

/// Turn latencies in milliseconds over `n` turns (after a warm pass over the prompts).
fn turns(e: &Engine, n: usize, warm: bool) -> Vec<f64> {
    let prompts = prompts();
    let ask = |p: &str| {
        let t = Instant::now();
        let r = e.turn(&TurnRequest {
            session_key: "agent:main:main".into(),
            prompt: p.into(),
            ..Default::default()
        });
        std::hint::black_box(r);
        t.elapsed().as_secs_f64() * 1000.0
    };
    if warm {
        for p in prompts.iter().take(10) {
            ask(p);
        }
    }
    (0..n).map(|i| ask(&prompts[i % prompts.len()])).collect()
}

fn summary(mut ms: Vec<f64>) -> Value {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() as f64 * q).ceil() as usize).clamp(1, ms.len()) - 1];
    json!({"turns": ms.len(), "p50_ms": round(at(0.5)), "p90_ms": round(at(0.9)), "p99_ms": round(at(0.99)),
           "max_ms": round(*ms.last().unwrap_or(&0.0))})
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn run(b: &RemoteBench) -> anyhow::Result<Value> {
    let dir = tempfile::tempdir()?;
    seed(dir.path(), b.notes)?;
    let load_before = loadavg();
    let (graphiti, lightrag, mem0) = servers(b.delay_ms);
    let t = b.timeout_ms;

    eprintln!("local only");
    let local = summary(turns(&engine(dir.path(), vec![])?, b.turns, true));

    eprintln!("three sources at {} ms", b.delay_ms);
    let three_engine = engine(
        dir.path(),
        vec![
            source("graphiti", Kind::Graphiti, &graphiti, t),
            source("docs", Kind::Lightrag, &lightrag, t),
            source("memories", Kind::Mem0, &mem0, t),
        ],
    )?;
    let three_sample = three_engine.turn(&TurnRequest {
        session_key: "agent:main:main".into(),
        prompt: prompts()[0].clone(),
        ..Default::default()
    });
    let three_lanes: Vec<Value> = three_sample
        .trace
        .lanes
        .iter()
        .filter(|l| l.name.starts_with("remote:"))
        .map(|l| json!({"lane": l.name, "status": l.status, "candidates": l.candidates}))
        .collect();
    let three = summary(turns(&three_engine, b.turns, true));
    drop(three_engine);

    eprintln!("two sources");
    let two_sources = || {
        vec![source("graphiti", Kind::Graphiti, &graphiti, t), source("docs", Kind::Lightrag, &lightrag, t)]
    };
    let two = summary(turns(&engine(dir.path(), two_sources())?, b.turns, true));

    eprintln!("two sources and a hanging one, marked down by its first health check");
    let hung = testing::graphiti(vec![]);
    hung.control.delay_ms.store(3_600_000, Ordering::Relaxed);
    hung.control.health_delay_ms.store(3_600_000, Ordering::Relaxed);
    let mut with_down = two_sources();
    with_down.push(source("hung", Kind::Graphiti, &hung, t));
    let e = engine(dir.path(), with_down)?;
    let before_probe = turns(&e, 1, false)[0];
    let probed = e.probe_source("hung").map(|s| s.state);
    anyhow::ensure!(probed == Some(SourceState::Down), "the hanging source should be down after its probe");
    let two_plus_down = summary(turns(&e, b.turns, true));
    let skipped = e.sources_status().iter().find(|s| s.name == "hung").map_or(0, |s| s.skipped_down);
    drop(e);

    eprintln!("one hanging source, never marked down ({} turns at up to {} ms)", b.hang_turns, t);
    let mut s = SourceSettings::new(Kind::Graphiti, hung.url());
    s.timeout_ms = t;
    s.down_after = 0;
    hung.control.health_delay_ms.store(0, Ordering::Relaxed);
    let e = engine(dir.path(), vec![SourceConfig::resolve("hung", &s, |_| None)])?;
    let hanging = turns(&e, b.hang_turns, false);
    let over: Vec<f64> = hanging.iter().map(|ms| ms - t as f64).collect();
    let hanging = summary(hanging);
    let mut over_sorted = over.clone();
    over_sorted.sort_by(f64::total_cmp);
    let over_p99 =
        over_sorted[((over_sorted.len() as f64 * 0.99).ceil() as usize).clamp(1, over_sorted.len()) - 1];
    drop(e);
    std::thread::sleep(Duration::from_millis(10));

    Ok(json!({
        "bench": "remote",
        "notes": b.notes,
        "delay_ms": b.delay_ms,
        "timeout_ms": t,
        "loadavg_before": load_before,
        "loadavg_after": loadavg(),
        "local": local,
        "three_sources": three,
        "three_sources_lanes": three_lanes,
        "two_sources": two,
        "two_sources_plus_one_down": {"first_turn_before_the_probe_ms": round(before_probe), "after_probe": two_plus_down,
                                      "turns_without_a_call": skipped},
        "hanging_source": hanging,
        "hanging_p99_over_deadline_ms": round(over_p99),
    }))
}
