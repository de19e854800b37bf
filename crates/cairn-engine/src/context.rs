//! The two halves of a context request as free functions over an opened recall side: recall
//! ([`recall_for`]) and assembly ([`assemble_for`]), and both at once ([`context`]). The engine's
//! [`Engine::context`](crate::Engine::context) and turns run exactly these; benchmarks time them apart.

use cairn_assemble::{AssembleOptions, AssembleRequest, Assembly};
use cairn_core::{Hit, LaneReport, LaneStatus, Millis, Scope, now_ms, prefix_words};
use cairn_recall::{RecallQuery, RecallResult, Recaller};
use cairn_store::Store;

use crate::api::{ContextQuery, GraphChoice};
use crate::graph::{GraphExpansion, GraphExpansionOptions, graph_assemble};
use crate::open::Engine;
use crate::{Error, Result as EngineResult};

/// One context request: recall in `scope`, then assembly under `budget` tokens.
#[derive(Debug, Clone)]
pub struct ContextRequest {
    /// The query (usually the user's prompt).
    pub query: String,
    /// Who is asking.
    pub scope: Scope,
    /// Token budget of the block.
    pub budget: usize,
    /// Topic candidates recalled before assembly.
    pub candidates: usize,
    /// Recent items recalled for the recency layer.
    pub recent: usize,
    /// Assembly options (format, levels, recency share, encoding, redaction).
    pub options: AssembleOptions,
    /// The time recency is measured from.
    pub now: Millis,
    /// Keep lane timings in the receipt (off by default: output is then byte-identical across runs).
    pub timings: bool,
    /// Memory files the host injects whole into the session (its bootstrap files, such as `USER.md`):
    /// left out of recall, so what is relevant is judged without them
    /// ([`RecallQuery::bootstrapped`](cairn_recall::RecallQuery::bootstrapped)).
    pub bootstrapped: Vec<String>,
}

impl ContextRequest {
    /// A request with candidates sized from the budget (see [`candidates_for`]) and default assembly
    /// options.
    pub fn new(query: impl Into<String>, scope: Scope, budget: usize, now: Millis) -> Self {
        let (candidates, recent) = candidates_for(budget);
        Self {
            query: query.into(),
            scope,
            budget,
            candidates,
            recent,
            options: AssembleOptions::default(),
            now,
            timings: false,
            bootstrapped: Vec::new(),
        }
    }
}

/// How many topic candidates and recent items are worth recalling for `budget` tokens: an L1 entry
/// costs about 100–150 tokens, so a 2,000-token budget holds about 14 topic entries and 3 recent ones;
/// the pool keeps a margin for duplicates and entries that do not fit.
pub fn candidates_for(budget: usize) -> (usize, usize) {
    ((budget / 80).clamp(8, 40), (budget / 400).clamp(2, 10))
}

/// What recall gave a context request: hits, recent items, tags and lane reports.
#[derive(Debug, Clone, Default)]
pub struct Recalled {
    /// Ranked topic hits.
    pub hits: Vec<cairn_core::Hit>,
    /// Most recent items in scope.
    pub recent: Vec<cairn_core::Hit>,
    /// Tags inferred from the query.
    pub query_tags: Vec<String>,
    /// One report per lane.
    pub lanes: Vec<LaneReport>,
    /// Problems that did not stop recall; they reach the receipt.
    pub warnings: Vec<String>,
    /// What the relevance floor decided; it reaches the receipt.
    pub relevance: Option<cairn_core::Relevance>,
    /// The query's terms and their weights in the relevance floor: what hits of remote sources are
    /// scored with.
    pub weights: cairn_recall::QueryWeights,
}

impl Recalled {
    /// Whether every local lane that ran failed (nothing could be recalled from the store at all);
    /// remote lanes do not count: a failed source leaves the rest as it was.
    pub fn all_failed(&self) -> bool {
        let local = || self.lanes.iter().filter(|l| !l.name.starts_with(crate::remote::REMOTE_LANE));
        local().next().is_some()
            && local().all(|l| matches!(l.status, LaneStatus::Failed | LaneStatus::Skipped))
            && local().any(|l| l.status == LaneStatus::Failed)
    }
}

/// The recall half of [`context`]: runs `recaller` for `req`, or reports the lexical lane failed when
/// the recall side could not be opened.
pub fn recall_for(
    recaller: std::result::Result<&Recaller, &dyn std::fmt::Display>,
    req: &ContextRequest,
) -> Recalled {
    match recaller {
        Ok(r) => {
            let mut q = RecallQuery::new(req.query.clone(), req.scope.clone(), req.candidates, req.now);
            q.recent_k = req.recent;
            q.bootstrapped = req.bootstrapped.clone();
            let result = r.recall(&q);
            let mut lanes = result.lanes;
            if !req.timings {
                for lane in &mut lanes {
                    lane.micros = 0;
                }
            }
            Recalled {
                hits: result.hits,
                recent: result.recent,
                query_tags: result.query_tags,
                lanes,
                warnings: result.warnings,
                relevance: Some(result.relevance),
                weights: result.weights,
            }
        }
        Err(e) => Recalled {
            weights: cairn_recall::QueryWeights::uniform(&req.query),
            lanes: vec![LaneReport {
                name: "lexical".into(),
                status: LaneStatus::Failed,
                candidates: 0,
                micros: 0,
                error: Some(e.to_string()),
            }],
            ..Default::default()
        },
    }
}

/// The assembly half of [`context`]: `recalled` into a block under `req.budget`.
pub fn assemble_for(req: &ContextRequest, recalled: Recalled) -> Assembly {
    assemble_cached(&assemble_request(req, recalled))
}

/// The assembly request for `req` from what recall gave (lanes such as the graph add to it).
pub(crate) fn assemble_request(req: &ContextRequest, recalled: Recalled) -> AssembleRequest {
    let mut areq = AssembleRequest::new(req.query.clone(), req.budget);
    areq.options = req.options.clone();
    if areq.options.scope.is_none() {
        areq.options.scope = Some(req.scope.clone());
    }
    areq.query_tags = recalled.query_tags;
    areq.topic = recalled.hits;
    areq.recent = recalled.recent;
    areq.lanes = recalled.lanes;
    areq.warnings = recalled.warnings;
    areq.relevance = recalled.relevance;
    areq
}

/// Recall for `req`, as an assembly request.
pub(crate) fn recall_request(
    recaller: Result<&Recaller, &dyn std::fmt::Display>,
    req: &ContextRequest,
) -> AssembleRequest {
    assemble_request(req, recall_for(recaller, req))
}

/// Assemble with token counts memoised per thread: a warm server thread recounts nothing it has seen,
/// and threads never wait on each other (same output either way).
pub(crate) fn assemble_cached(areq: &AssembleRequest) -> Assembly {
    thread_local! {
        static COUNTS: std::cell::RefCell<cairn_assemble::CountCache> =
            std::cell::RefCell::new(cairn_assemble::CountCache::default());
    }
    COUNTS.with_borrow_mut(|cache| cairn_assemble::assemble_with(areq, cache))
}

/// Recall then assemble. `recaller` is the opened recall side, or why it could not be opened: then the
/// assembly is empty and its receipt records the failed lane (fail-open).
pub fn context(recaller: Result<&Recaller, &dyn std::fmt::Display>, req: &ContextRequest) -> Assembly {
    assemble_for(req, recall_for(recaller, req))
}

impl Engine {
    /// A context request over the engine's `[context]` settings (the prompt cut to
    /// `max_prompt_bytes`).
    pub(crate) fn context_request(
        &self,
        query: &str,
        scope: Scope,
        budget: usize,
        now: Millis,
    ) -> ContextRequest {
        let c = &self.cfg.context;
        let mut req = ContextRequest::new(prefix_words(query, self.cfg.max_prompt_bytes), scope, budget, now);
        if let Some(n) = c.candidates {
            req.candidates = n;
        }
        if let Some(n) = c.recent {
            req.recent = n;
        }
        req.options = c.assemble_options();
        req
    }

    /// Recall, then the graph step when it is on, then assembly under the budget: the context block
    /// for `q`, with its receipt. Never fails: a part that could not be opened or failed is marked
    /// failed in the receipt and the block is built from the rest (empty when nothing is left).
    pub fn context(&self, q: &ContextQuery) -> Assembly {
        let budget = q.budget.unwrap_or(self.cfg.context.budget);
        let mut req = self.context_request(&q.query, q.scope.clone(), budget, q.now.unwrap_or_else(now_ms));
        if let Some(f) = q.format {
            req.options.format = f;
        }
        if let Some(l) = q.max_level {
            req.options.max_level = l;
        }
        req.options.redact = q.redact;
        req.timings = q.timings;
        let g = &self.cfg.graph;
        let wanted = match q.graph {
            GraphChoice::Configured => g.use_in_context,
            GraphChoice::On => true,
            GraphChoice::Off => false,
        };
        if wanted && !g.enabled && q.graph == GraphChoice::On {
            tracing::warn!("the graph step is disabled by `graph.enabled = false`");
        }
        let step = (wanted && g.enabled).then(|| g.expansion(q.cross_project));
        let mut recalled = self.gather(&req);
        self.cfg.context.modest(&mut recalled);
        self.assemble(&req, recalled, step.as_ref())
    }

    /// Ranked hits for a query in `scope` (`k` clamped to 1–100).
    pub fn search(&self, query: &str, scope: Scope, k: usize) -> Vec<Hit> {
        let mut req = self.context_request(query, scope, self.cfg.context.budget, now_ms());
        req.candidates = k.clamp(1, 100);
        req.recent = 0;
        let mut hits = self.gather(&req).hits;
        hits.truncate(k);
        hits
    }

    /// One recall with every explanation (lane scores, terms, tags, lane reports): the `recall`
    /// command's view. Fails when the recall side cannot be opened.
    pub fn recall(&self, q: &RecallQuery) -> EngineResult<RecallResult> {
        let recaller = self.recaller().map_err(Error::Unavailable)?;
        Ok(recaller.recall(q))
    }

    /// Recall over the index and every remote source, side by side under one deadline (see
    /// `remote.rs`).
    pub(crate) fn gather(&self, req: &ContextRequest) -> Recalled {
        let pending = self.remote_start(req);
        let recaller = self.recaller();
        let mut recalled = match &recaller {
            Ok(r) => recall_for(Ok(r), req),
            Err(e) => recall_for(Err(e as &dyn std::fmt::Display), req),
        };
        self.remote_finish(pending, req, &mut recalled);
        recalled
    }

    /// Assembly of what recall gave, through the graph step when `step` is given (fail-open: a graph
    /// that could not be loaded marks the step failed and the block is the one without it).
    pub(crate) fn assemble(
        &self,
        req: &ContextRequest,
        recalled: Recalled,
        step: Option<&GraphExpansionOptions>,
    ) -> Assembly {
        // A modest block keeps its few entries: the graph adds none to them.
        let Some(options) = step.filter(|_| !self.cfg.context.is_modest(&recalled)) else {
            return assemble_for(req, recalled);
        };
        let areq = assemble_request(req, recalled);
        // The graph first: a read connection is opened only when there is a graph to read items for.
        let graph = match self.graph() {
            Ok(g) => g,
            Err(e) => return graph_assemble(areq, Some(GraphExpansion { graph: Err(&e), options }), req),
        };
        match self.reader() {
            Ok(store) => {
                let step = GraphExpansion { graph: Ok((&*graph, &*store as &dyn Store)), options };
                graph_assemble(areq, Some(step), req)
            }
            Err(e) => graph_assemble(areq, Some(GraphExpansion { graph: Err(&e), options }), req),
        }
    }
}
