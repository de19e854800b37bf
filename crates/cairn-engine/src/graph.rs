//! The graph step of a context request: recall's best hits seed an expansion through the link graph,
//! the reached items are offered to the assembler, fail-open. (In receipts the step reports as the
//! `graph` entry of `lanes`.) Plus the L0 index pack of `graph index`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Instant;

use cairn_assemble::{AssembleRequest, Assembly, GraphCandidate, GraphStep, GraphTrace};
use cairn_core::{Chunk, Hit, LaneReport, LaneStatus, Scope, Why};
use cairn_graph::{ExpandOptions, Graph, IndexPack, Seed};
use cairn_recall::{RecallQuery, Recaller};
use cairn_store::{SqliteStore, Store};
use cairn_tokens::Encoding;

use crate::Result;
use crate::context::{ContextRequest, assemble_cached, recall_request};

/// Knobs of the graph step.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphExpansionOptions {
    /// Expansion (depth, cross-project gating, hub cap, decay).
    pub expand: ExpandOptions,
    /// How many of the best recalled items seed the expansion.
    pub seeds: usize,
    /// At most this many graph items are offered to the assembler.
    pub max_added: usize,
}

impl Default for GraphExpansionOptions {
    fn default() -> Self {
        Self { expand: ExpandOptions::default(), seeds: 8, max_added: 8 }
    }
}

/// The graph step for one request: the loaded graph with the store to read reached items from (or why
/// they could not be opened), and the options.
pub struct GraphExpansion<'a> {
    /// The graph and its store, or the error that kept them from opening (the step then fails open).
    pub graph: std::result::Result<(&'a Graph, &'a dyn Store), &'a dyn std::fmt::Display>,
    /// Options.
    pub options: &'a GraphExpansionOptions,
}

/// Bring the graph tables up to the store (incremental) and load the graph.
pub fn open_graph(store: &mut SqliteStore) -> Result<Graph> {
    Ok(load_synced(store)?.0)
}

/// [`open_graph`], with the generation of the graph tables it read ([`SqliteStore::graph_generation`],
/// read before loading: a write after that read is seen by the next refresh).
pub(crate) fn load_synced(store: &mut SqliteStore) -> Result<(Graph, u64)> {
    // Links other hosts of a shared store made.
    store.pull_shared_links()?;
    if cairn_graph::graph_is_stale(store)? {
        cairn_graph::sync_graph(store)?;
    }
    let generation = store.graph_generation()?;
    Ok((Graph::load(store)?, generation))
}

fn failed(err: String) -> LaneReport {
    LaneReport {
        name: "graph".into(),
        status: LaneStatus::Failed,
        candidates: 0,
        micros: 0,
        error: Some(err),
    }
}

/// Context with the graph step: recall as [`crate::context`] does, then expand the best hits'
/// neighbourhood and offer the reached items to the assembler (scored by seed score × edge weights ×
/// decay), with every decision and path in `receipt.graph`.
///
/// `step: None` is exactly [`crate::context`]. Fail-open: when the graph could not be loaded or a
/// reached item cannot be read, the receipt marks the `graph` entry failed and the block is
/// byte-identical to the one without the step.
pub fn graph_context(
    recaller: std::result::Result<&Recaller, &dyn std::fmt::Display>,
    step: Option<GraphExpansion<'_>>,
    req: &ContextRequest,
) -> Assembly {
    graph_assemble(recall_request(recaller, req), step, req)
}

/// The graph step over what recall gave (`areq`), then assembly: the second half of
/// [`graph_context`], shared with the engine. `step: None` assembles `areq` as it is.
pub(crate) fn graph_assemble(
    mut areq: AssembleRequest,
    step: Option<GraphExpansion<'_>>,
    req: &ContextRequest,
) -> Assembly {
    let Some(step) = step else {
        return assemble_cached(&areq);
    };
    let (graph, store) = match step.graph {
        Ok(g) => g,
        Err(e) => {
            areq.lanes.push(failed(e.to_string()));
            return assemble_cached(&areq);
        }
    };
    let started = Instant::now();
    let expansion = expand_hits(graph, store, &areq.topic, req, step.options);
    match expansion {
        Err(e) => {
            areq.lanes.push(failed(e.to_string()));
            assemble_cached(&areq)
        }
        Ok((hits, mut trace)) => {
            let micros = if req.timings { started.elapsed().as_micros() as u64 } else { 0 };
            areq.lanes.push(LaneReport {
                name: "graph".into(),
                status: LaneStatus::Ok,
                candidates: hits.len(),
                micros,
                error: None,
            });
            if step.options.expand.allow_cross_project
                && let Some(scope) = &mut areq.options.scope
            {
                // Cross-project hits were gated by the expansion; the assembler's project check would
                // drop them again. Audience is still checked.
                scope.project = None;
            }
            // Files the host injects whole stay out, whichever way they are reached.
            let bootstrapped =
                |h: &Hit| h.provenance.file_path().is_some_and(|p| req.bootstrapped.iter().any(|b| b == p));
            areq.topic.extend(hits.into_iter().filter(|h| !bootstrapped(h)));
            let mut assembly = assemble_cached(&areq);
            let included: BTreeSet<&str> =
                assembly.receipt.included.iter().map(|i| i.chunk_id.as_str()).collect();
            let excluded: BTreeMap<&str, &str> =
                assembly.receipt.excluded.iter().map(|e| (e.chunk_id.as_str(), e.reason.as_str())).collect();
            for c in &mut trace.candidates {
                if c.decision != "offered" {
                    continue;
                }
                c.decision = if included.contains(c.chunk_id.as_str()) {
                    "included".into()
                } else if let Some(r) = excluded.get(c.chunk_id.as_str()) {
                    format!("excluded:{r}")
                } else {
                    "withheld".into()
                };
            }
            assembly.receipt.graph = Some(trace);
            assembly
        }
    }
}

fn node_of(item_id: &str) -> String {
    cairn_graph::model::item_id(item_id)
}

/// Expand from the best topic hits; the reached items become hits.
fn expand_hits(
    graph: &Graph,
    store: &dyn Store,
    topic: &[Hit],
    req: &ContextRequest,
    opts: &GraphExpansionOptions,
) -> Result<(Vec<Hit>, GraphTrace)> {
    let mut order: Vec<&Hit> = topic.iter().collect();
    order.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    let mut seeds: Vec<(u32, f32)> = Vec::new();
    let mut recalled: HashSet<&str> = HashSet::new();
    for h in &order {
        recalled.insert(h.item_id.as_str());
    }
    for h in order {
        if seeds.len() >= opts.seeds {
            break;
        }
        if let Some(i) = graph.find(&node_of(&h.item_id))
            && !seeds.iter().any(|s| s.0 == i)
        {
            seeds.push((i, h.score));
        }
    }
    let exp = graph.expand(&seeds, &req.scope, &opts.expand);
    let redact = req.options.redact;
    let mut trace = GraphTrace {
        seeds: seeds.iter().map(|&(i, _)| graph.node(i).id.clone()).collect(),
        depth: opts.expand.depth,
        cross_project: opts.expand.allow_cross_project,
        candidates: Vec::new(),
        hubs: exp.hubs.iter().map(|&i| graph.node(i).id.clone()).collect(),
        over_cap: 0,
    };
    let mut hits = Vec::new();
    for r in &exp.reached {
        let n = graph.node(r.node);
        let Some(item_id) = &n.item_id else { continue };
        let recalled_already = recalled.contains(item_id.as_str());
        if hits.len() >= opts.max_added && !recalled_already {
            trace.over_cap += 1;
            continue;
        }
        let path = graph
            .path_steps(r)
            .into_iter()
            .map(|s| GraphStep {
                from: s.from,
                to: s.to,
                kind: s.kind,
                provenance: s.provenance,
                cross_project: s.cross_project,
                reason: (!redact).then_some(s.reason),
            })
            .collect();
        let mut cand = GraphCandidate {
            node: n.id.clone(),
            chunk_id: String::new(),
            depth: r.depth,
            score: r.score,
            decision: String::new(),
            path,
        };
        if recalled_already {
            cand.decision = "already_recalled".into();
        } else {
            match store.get_item(item_id)? {
                Some(item) if req.scope.allows(item.audience) => {
                    let chunk = store.chunks(item_id)?.into_iter().next().unwrap_or_else(|| Chunk {
                        id: Chunk::make_id(item_id, 0),
                        item_id: item_id.clone(),
                        ordinal: 0,
                        heading: String::new(),
                        text: item.text.clone(),
                        provenance: item.provenance.clone(),
                        content_hash: item.content_hash.clone(),
                    });
                    cand.chunk_id = chunk.id.clone();
                    cand.decision = "offered".into();
                    hits.push(Hit {
                        chunk_id: chunk.id,
                        item_id: item.id,
                        project: item.project,
                        kind: item.kind,
                        title: item.title,
                        text: chunk.text,
                        tags: item.tags,
                        audience: item.audience,
                        provenance: chunk.provenance,
                        content_hash: chunk.content_hash,
                        created_at: item.created_at,
                        score: r.score,
                        parts: BTreeMap::from([("graph".to_owned(), r.score)]),
                        why: Why {
                            terms: vec![],
                            tags: vec![],
                            lanes: vec!["graph".into()],
                            ..Default::default()
                        },
                    });
                }
                _ => cand.decision = "missing".into(),
            }
        }
        trace.candidates.push(cand);
    }
    Ok((hits, trace))
}

/// The L0 index pack for a query: recall's best items seed the graph; the pack lists them and their
/// neighbourhood under `cap` tokens.
#[allow(clippy::too_many_arguments)]
pub fn graph_index(
    recaller: &Recaller,
    graph: &Graph,
    query: &str,
    scope: &Scope,
    expand: &ExpandOptions,
    k: usize,
    cap: usize,
    encoding: Encoding,
    now: cairn_core::Millis,
) -> IndexPack {
    let q = RecallQuery::new(query.to_owned(), scope.clone(), k.max(8), now);
    let result = recaller.recall(&q);
    let mut seeds: Vec<Seed> = Vec::new();
    for h in result.hits {
        let id = node_of(&h.item_id);
        if seeds.iter().any(|s| s.id == id) {
            continue;
        }
        let mut why = Vec::new();
        if !h.why.terms.is_empty() {
            why.push(format!("terms: {}", h.why.terms.join(", ")));
        }
        if !h.why.tags.is_empty() {
            why.push(format!("tags: {}", h.why.tags.join(", ")));
        }
        if why.is_empty() {
            why.push(format!("lanes: {}", h.why.lanes.join(", ")));
        }
        seeds.push(Seed { id, score: h.score, why: format!("recall match ({})", why.join("; ")) });
    }
    graph.index_pack(&seeds, scope, expand, k, cap, encoding)
}
