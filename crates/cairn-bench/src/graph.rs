//! Graph benchmarks: expansion latency on a generated 100k-node graph, the recall gain of the graph
//! lane on a generated multi-hop workspace, and the same comparison on LoCoMo conversations.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use cairn_core::{Audience, Item, ItemKind, Provenance, Scope, content_hash};
use cairn_engine::{ContextRequest, GraphExpansion, GraphExpansionOptions};
use cairn_graph::{ExpandOptions, Graph};
use cairn_ingest::{HarvestRequest, HarvestSettings, NoProgress};
use cairn_recall::{RecallIndex, RecallSettings, Recaller};
use cairn_store::{GraphEdgeRow, GraphNodeRow, SqliteStore, Store, TurnRecord};

/// A small deterministic generator (xorshift64*), so runs are repeatable without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[(((sorted.len() - 1) as f64) * p).round() as usize]
}

/// Rows of a generated graph: `items` item nodes in `projects` projects, `tags` tag nodes per project,
/// `links` links per item (80% inside the project), two tags per item, one project edge per item.
fn generated_rows(
    items: usize,
    tags: usize,
    links: usize,
    projects: usize,
    seed: u64,
) -> (Vec<GraphNodeRow>, Vec<GraphEdgeRow>) {
    let mut rng = Rng(seed);
    let prov =
        |i: usize, line: u32| Provenance::File { path: format!("n{i}.md"), line_start: line, line_end: line };
    let mut nodes = Vec::with_capacity(items + tags * projects + projects);
    let mut edges = Vec::with_capacity(items * (links + 3));
    let per = items / projects;
    for i in 0..items {
        let p = i / per.max(1);
        nodes.push(GraphNodeRow {
            id: format!("item:n{i}"),
            kind: "file".into(),
            title: format!("Note {i}"),
            project: format!("p{p}"),
            audience: Audience::Private,
            item_id: Some(format!("n{i}")),
            l0: String::new(),
            provenance: prov(i, 1),
            tags: vec![],
        });
        for l in 0..links {
            let j = if rng.below(10) < 8 { p * per + rng.below(per) } else { rng.below(items) };
            edges.push(GraphEdgeRow {
                src: format!("item:n{i}"),
                dst: format!("item:n{j}"),
                kind: "links_to".into(),
                weight: 1.0,
                reason: format!("links to n{j}"),
                provenance: prov(i, 2 + l as u32),
                audience: Audience::Private,
            });
        }
        for t in 0..2 {
            let tag = rng.below(tags);
            edges.push(GraphEdgeRow {
                src: format!("item:n{i}"),
                dst: format!("tag:p{p}/t{tag}"),
                kind: "tagged".into(),
                weight: 0.4,
                reason: format!("tagged t{tag}"),
                provenance: prov(i, 1 + t),
                audience: Audience::Private,
            });
        }
        edges.push(GraphEdgeRow {
            src: format!("item:n{i}"),
            dst: format!("project:p{p}"),
            kind: "in_project".into(),
            weight: 0.2,
            reason: "in project".into(),
            provenance: prov(i, 1),
            audience: Audience::Private,
        });
    }
    for p in 0..projects {
        for t in 0..tags {
            nodes.push(GraphNodeRow {
                id: format!("tag:p{p}/t{t}"),
                kind: "tag".into(),
                title: format!("t{t}"),
                project: format!("p{p}"),
                audience: Audience::Private,
                item_id: None,
                l0: String::new(),
                provenance: prov(0, 1),
                tags: vec![],
            });
        }
        nodes.push(GraphNodeRow {
            id: format!("project:p{p}"),
            kind: "project".into(),
            title: format!("p{p}"),
            project: format!("p{p}"),
            audience: Audience::Private,
            item_id: None,
            l0: String::new(),
            provenance: prov(0, 1),
            tags: vec![],
        });
    }
    (nodes, edges)
}

/// Expansion latency: depth-2 neighbourhood of `seeds` random items on a generated graph, CSR versus a
/// string-keyed adjacency map walked the same way (the baseline), in the same run.
pub(crate) fn expansion(
    items: usize,
    seeds: usize,
    queries: usize,
    depth: usize,
) -> anyhow::Result<serde_json::Value> {
    let (projects, tags, links) = (10, 2000, 3);
    let (nodes, edges) = generated_rows(items, tags, links, projects, 7);
    let t = Instant::now();
    let g = Graph::from_rows(nodes.clone(), edges.clone());
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    // Baseline: HashMap<String, Vec<(String, f32)>> adjacency, same traversal rules (hubs skipped).
    let mut naive: HashMap<String, Vec<(String, f32)>> = HashMap::new();
    for e in &edges {
        naive.entry(e.src.clone()).or_default().push((e.dst.clone(), e.weight));
        naive.entry(e.dst.clone()).or_default().push((e.src.clone(), e.weight));
    }
    let opts = ExpandOptions { depth, ..ExpandOptions::default() };
    let scope = Scope::owner(None);
    let mut rng = Rng(11);
    let sets: Vec<Vec<u32>> = (0..queries)
        .map(|_| (0..seeds).map(|_| g.find(&format!("item:n{}", rng.below(items))).expect("item")).collect())
        .collect();
    let (mut csr, mut base, mut reached) = (Vec::new(), Vec::new(), Vec::new());
    for (qi, set) in sets.iter().enumerate() {
        let seeds_w: Vec<(u32, f32)> = set.iter().map(|&s| (s, 1.0)).collect();
        let t = Instant::now();
        let exp = g.expand(&seeds_w, &scope, &opts);
        let dt = t.elapsed().as_secs_f64() * 1e3;
        if qi >= 20 {
            csr.push(dt);
        }
        reached.push(exp.reached.len() as f64);
        let t = Instant::now();
        let n =
            naive_expand(&naive, set.iter().map(|&s| g.node(s).id.clone()).collect(), depth, opts.max_fanout);
        let dt = t.elapsed().as_secs_f64() * 1e3;
        if qi >= 20 {
            base.push(dt);
        }
        std::hint::black_box(n);
    }
    csr.sort_by(f64::total_cmp);
    base.sort_by(f64::total_cmp);
    reached.sort_by(f64::total_cmp);
    Ok(serde_json::json!({
        "bench": "graph-expansion",
        "nodes": g.nodes().len(),
        "edges": g.edges().len(),
        "seeds": seeds,
        "depth": depth,
        "queries": csr.len(),
        "build_from_rows_ms": build_ms,
        "reached_p50": pct(&reached, 0.5),
        "csr_ms": {"p50": pct(&csr, 0.5), "p99": pct(&csr, 0.99)},
        "baseline_hashmap_ms": {"p50": pct(&base, 0.5), "p99": pct(&base, 0.99)},
        "speedup_p50": pct(&base, 0.5) / pct(&csr, 0.5),
    }))
}

fn naive_expand(
    adj: &HashMap<String, Vec<(String, f32)>>,
    seeds: Vec<String>,
    depth: usize,
    fanout: usize,
) -> usize {
    let mut best: HashMap<String, (usize, f32)> = HashMap::new();
    let mut q: VecDeque<(String, usize, f32)> = VecDeque::new();
    for s in seeds {
        best.insert(s.clone(), (0, 1.0));
        q.push_back((s, 0, 1.0));
    }
    while let Some((n, d, score)) = q.pop_front() {
        if d == depth || n.starts_with("project:") {
            continue;
        }
        let Some(next) = adj.get(&n) else { continue };
        if d > 0 && next.len() > fanout {
            continue;
        }
        for (m, w) in next {
            let s = score * w * 0.85;
            match best.get(m) {
                Some(&(bd, bs)) if bd < d + 1 || bs >= s => {}
                _ => {
                    best.insert(m.clone(), (d + 1, s));
                    q.push_back((m.clone(), d + 1, s));
                }
            }
        }
    }
    best.len()
}

const CODENAMES: &[&str] = &[
    "kestrel",
    "osprey",
    "heron",
    "plover",
    "merlin",
    "harrier",
    "shrike",
    "bittern",
    "avocet",
    "dunlin",
    "godwit",
    "curlew",
    "whimbrel",
    "sanderling",
    "turnstone",
    "redshank",
    "greenshank",
    "phalarope",
    "skua",
    "fulmar",
];
const FILLER: &[&str] = &[
    "queue", "deploy", "outage", "incident", "service", "latency", "database", "cluster", "retry", "timeout",
    "backup", "release", "rollback", "config", "alert", "metrics", "storage", "network", "cache", "worker",
];

/// Write the multi-hop workspace: per topic an incident note that names the topic and links to a
/// follow-up note holding the remediation (which never names the topic), plus distractor notes.
/// Returns (question, incident item id, follow-up item id) per topic.
fn write_multihop(
    root: &Path,
    topics: usize,
    distractors: usize,
) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut rng = Rng(42);
    let mut out = Vec::new();
    let word = |rng: &mut Rng| FILLER[rng.below(FILLER.len())];
    for t in 0..topics {
        let name = format!("{}{t}", CODENAMES[t % CODENAMES.len()]);
        let filler: Vec<&str> = (0..30).map(|_| word(&mut rng)).collect();
        let inc = format!("memory/incidents/{name}.md");
        let fu = format!("memory/followups/f{t:04}.md");
        let code = format!("RC-{:06}", rng.next() % 1_000_000);
        std::fs::create_dir_all(root.join("memory/incidents"))?;
        std::fs::create_dir_all(root.join("memory/followups"))?;
        std::fs::write(
            root.join(&inc),
            format!(
                "---\ntitle: {name} outage incident\n---\n# {name} outage incident\n\nThe {name} service had an outage. {}.\nThe remediation is written up in [the follow-up](../followups/f{t:04}.md).\n",
                filler.join(" ")
            ),
        )?;
        let filler2: Vec<&str> = (0..30).map(|_| word(&mut rng)).collect();
        std::fs::write(
            root.join(&fu),
            format!(
                "---\ntitle: Follow-up {t}\n---\n# Follow-up {t}\n\nApply change {code} and watch the dashboards. {}.\n",
                filler2.join(" ")
            ),
        )?;
        out.push((
            format!("What was the remediation for the {name} outage?"),
            format!("memory-file:{inc}"),
            format!("memory-file:{fu}"),
        ));
    }
    std::fs::create_dir_all(root.join("memory/notes"))?;
    for d in 0..distractors {
        let filler: Vec<&str> = (0..40).map(|_| word(&mut rng)).collect();
        std::fs::write(
            root.join(format!("memory/notes/n{d:05}.md")),
            format!("# Note {d}\n\nOutage remediation notes: {}.\n", filler.join(" ")),
        )?;
    }
    Ok(out)
}

fn open_all(data: &Path) -> anyhow::Result<(SqliteStore, Graph, Recaller)> {
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    let index = RecallIndex::open_or_create(&data.join("index"))?;
    cairn_engine::sync_index(&store, &index)?;
    let t = Instant::now();
    let graph = cairn_engine::open_graph(&mut store)?;
    eprintln!(
        "graph sync + load: {:.2} s ({} nodes, {} edges)",
        t.elapsed().as_secs_f64(),
        graph.nodes().len(),
        graph.edges().len()
    );
    let recaller = Recaller::new(&index, RecallSettings::default())?;
    Ok((store, graph, recaller))
}

struct Compare {
    plain_hits: f64,
    graph_hits: f64,
    plain_ms: Vec<f64>,
    graph_ms: Vec<f64>,
    plain_tokens: f64,
    graph_tokens: f64,
}

/// Run each question plainly and with the graph lane; `score` says how much of the evidence a block's
/// item ids cover (0..=1).
fn compare(
    store: &SqliteStore,
    graph: &Graph,
    recaller: &Recaller,
    questions: &[(String, Option<String>)],
    budget: usize,
    score: &mut dyn FnMut(usize, &BTreeSet<String>) -> f64,
) -> Compare {
    let opts = GraphExpansionOptions::default();
    let mut c = Compare {
        plain_hits: 0.0,
        graph_hits: 0.0,
        plain_ms: vec![],
        graph_ms: vec![],
        plain_tokens: 0.0,
        graph_tokens: 0.0,
    };
    for (i, (q, project)) in questions.iter().enumerate() {
        let mut req =
            ContextRequest::new(q.clone(), Scope::owner(project.clone()), budget, 1_800_000_000_000);
        req.recent = 0;
        let t = Instant::now();
        let plain = cairn_engine::context(Ok(recaller), &req);
        c.plain_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let lane = GraphExpansion { graph: Ok((graph, store)), options: &opts };
        let with = cairn_engine::graph_context(Ok(recaller), Some(lane), &req);
        c.graph_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let ids =
            |a: &cairn_assemble::Assembly| a.items.iter().map(|x| x.item_id.clone()).collect::<BTreeSet<_>>();
        c.plain_hits += score(i, &ids(&plain));
        c.graph_hits += score(i, &ids(&with));
        c.plain_tokens += plain.tokens as f64;
        c.graph_tokens += with.tokens as f64;
    }
    let n = questions.len().max(1) as f64;
    c.plain_hits /= n;
    c.graph_hits /= n;
    c.plain_tokens /= n;
    c.graph_tokens /= n;
    c.plain_ms.sort_by(f64::total_cmp);
    c.graph_ms.sort_by(f64::total_cmp);
    c
}

fn compare_json(c: &Compare) -> serde_json::Value {
    serde_json::json!({
        "plain": c.plain_hits,
        "graph": c.graph_hits,
        "plain_ms_p50": pct(&c.plain_ms, 0.5),
        "graph_ms_p50": pct(&c.graph_ms, 0.5),
        "plain_mean_tokens": c.plain_tokens,
        "graph_mean_tokens": c.graph_tokens,
    })
}

/// Multi-hop gain: share of questions whose block holds the follow-up (reachable only by the link),
/// and the incident note itself (first hop), plain versus graph-aware.
pub(crate) fn multihop(
    data: &Path,
    topics: usize,
    distractors: usize,
    budget: usize,
) -> anyhow::Result<serde_json::Value> {
    let ws = data.join("workspace");
    std::fs::create_dir_all(&ws)?;
    let qs = write_multihop(&ws, topics, distractors)?;
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    let req = HarvestRequest { root: ws.clone(), ..Default::default() };
    cairn_ingest::harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress)?;
    drop(store);
    let (store, graph, recaller) = open_all(data)?;
    let questions: Vec<(String, Option<String>)> = qs.iter().map(|(q, _, _)| (q.clone(), None)).collect();
    let second = compare(&store, &graph, &recaller, &questions, budget, &mut |i, ids| {
        ids.contains(&qs[i].2) as u8 as f64
    });
    let first = compare(&store, &graph, &recaller, &questions, budget, &mut |i, ids| {
        ids.contains(&qs[i].1) as u8 as f64
    });
    Ok(serde_json::json!({
        "bench": "graph-multihop",
        "topics": topics,
        "distractors": distractors,
        "budget": budget,
        "second_hop_in_block": compare_json(&second),
        "first_hop_in_block": compare_json(&first),
    }))
}

/// LoCoMo: turns stored as conversation turns (sessions `conv:S<n>`, so `same_session` and `follows`
/// edges exist); evidence recall of the block, plain versus graph-aware, scoped to the conversation.
pub(crate) fn locomo(
    dir: &Path,
    data: &Path,
    budget: usize,
    limit: Option<usize>,
) -> anyhow::Result<serde_json::Value> {
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    if store.last_seq()? == 0 {
        let corpus = std::fs::read_to_string(dir.join("corpus.jsonl")).context("reading corpus.jsonl")?;
        for (n, line) in corpus.lines().enumerate() {
            let v: serde_json::Value =
                serde_json::from_str(line).with_context(|| format!("corpus.jsonl line {}", n + 1))?;
            let id = v["id"].as_str().unwrap_or_default().to_owned();
            let conv = v["conversation"].as_str().unwrap_or_default().to_owned();
            let session = format!("{conv}:S{}", v["session"].as_u64().unwrap_or(0));
            let text = v["text"].as_str().unwrap_or_default().to_owned();
            let turn_id = id.rsplit(':').next().unwrap_or_default().to_owned();
            let item = Item {
                id: id.clone(),
                project: conv.clone(),
                kind: ItemKind::Turn,
                title: format!("{session} turn {turn_id}"),
                content_hash: content_hash(text.as_bytes()),
                text,
                tags: vec![],
                audience: Audience::Private,
                provenance: Provenance::Turn { session_key: session.clone(), turn_id: turn_id.clone() },
                created_at: n as i64,
                observed_at: 0,
                metadata: Default::default(),
            };
            let rec = TurnRecord {
                session_key: session,
                turn_id,
                project: conv,
                audience: Audience::Private,
                ts: n as i64,
                item,
            };
            store.record_turn(&rec, vec![])?;
        }
    }
    drop(store);
    let (store, graph, recaller) = open_all(data)?;
    let queries = std::fs::read_to_string(dir.join("queries.jsonl")).context("reading queries.jsonl")?;
    let mut questions = Vec::new();
    let mut evidence: Vec<Vec<String>> = Vec::new();
    for line in queries.lines().take(limit.unwrap_or(usize::MAX)) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let ev: Vec<String> = v["evidence"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
            .unwrap_or_default();
        if ev.is_empty() {
            continue;
        }
        questions.push((
            v["question"].as_str().unwrap_or_default().to_owned(),
            v["conversation"].as_str().map(String::from),
        ));
        evidence.push(ev);
    }
    let c = compare(&store, &graph, &recaller, &questions, budget, &mut |i, ids| {
        let ev = &evidence[i];
        ev.iter().filter(|e| ids.contains(*e)).count() as f64 / ev.len() as f64
    });
    let all = compare(&store, &graph, &recaller, &questions, budget, &mut |i, ids| {
        evidence[i].iter().all(|e| ids.contains(e)) as u8 as f64
    });
    Ok(serde_json::json!({
        "bench": "graph-locomo",
        "questions": questions.len(),
        "budget": budget,
        "evidence_recall_in_block": compare_json(&c),
        "all_evidence_in_block": compare_json(&all),
    }))
}
