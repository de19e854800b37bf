//! The per-turn pipeline and the long-lived [`Engine`] a server holds.
//!
//! One [`Engine::turn`] call per agent turn: classify the session from its key → recall scoped to
//! the session's audience and project (full-text index plus any extra [`Lane`]s) → intent detection
//! with entity boosts from the recalled hits → pack composition → assembly of the memory block under
//! what the pack left of the turn budget → the text to prepend, plus a trace. A recall or routing
//! failure gives a short `<cairn-fallback>` note in place of the failed part (fail-open); the turn
//! always gets an answer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use cairn_assemble::{AssembleOptions, Assembly, Receipt};
use cairn_core::{Audience, Hit, ItemKind, LaneReport, LaneStatus, Millis, Provenance, Scope, content_hash};
use cairn_graph::Graph;
use cairn_ingest::{CaptureOptions, CaptureOutcome};
use cairn_recall::{RecallIndex, RecallSettings, Recaller};
use cairn_route::{
    Decision, EntitySummary, Outcome, Router, SessionInfo, SessionType, SessionsConfig, classify_session,
};
use cairn_store::{QueueCounts, SqliteStore, Store, StoreStatus, Write};
use cairn_tokens::Tokenizer;
use serde::{Deserialize, Serialize};

use crate::graph::{GraphLane, GraphLaneOptions, graph_assemble};
use crate::lane::Lane;
use crate::session::{OneSession, SessionEntry, SessionStates};
use crate::{
    ContextRequest, Error, Recalled, Result, SyncReport, assemble_for, assemble_request, recall_for,
    sync_index,
};

/// Everything an [`Engine`] needs, resolved by the caller (library crates read no files or env).
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Data directory: the store is `cairn.sqlite` in it, the full-text index `index/`.
    pub data_dir: PathBuf,
    /// Routing config directory; `None` serves memory only (no packs).
    pub route_dir: Option<PathBuf>,
    /// Recall lanes and fusion.
    pub recall: RecallSettings,
    /// Default token budget of one turn's prepended text (memory block plus pack block).
    pub budget: usize,
    /// Topic candidates recalled per turn (default: sized from the budget).
    pub candidates: Option<usize>,
    /// Recent items recalled per turn (default: sized from the budget).
    pub recent: Option<usize>,
    /// Assembly options (format, levels, encoding, redaction).
    pub options: AssembleOptions,
    /// Capture options (strip tags, default project and audience).
    pub capture: CaptureOptions,
    /// Only the first this many bytes of a prompt are used for recall and routing.
    pub max_prompt_bytes: usize,
    /// Token budget of the generated bootstrap context file.
    pub bootstrap_budget: usize,
    /// The vector lane (query embedder and chunk vectors), when a model is configured; `None`: lexical,
    /// tag and recency lanes only. Turns captured by the daemon get vectors at the next harvest or
    /// reindex.
    pub vectors: Option<cairn_recall::VectorLane>,
    /// The graph lane of turns and context requests: the recalled items' link neighbourhood is
    /// offered to the assembler. `None`: off. The graph is loaded at open and refreshed by
    /// [`Engine::refresh_derived`] when the store changed.
    pub graph: Option<GraphLaneOptions>,
}

impl EngineConfig {
    /// Defaults over `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            route_dir: None,
            recall: RecallSettings::default(),
            budget: 2000,
            candidates: None,
            recent: None,
            options: AssembleOptions::default(),
            capture: CaptureOptions::default(),
            max_prompt_bytes: 64 * 1024,
            bootstrap_budget: 800,
            vectors: None,
            graph: None,
        }
    }

    /// The store file.
    pub fn store_path(&self) -> PathBuf {
        self.data_dir.join("cairn.sqlite")
    }

    /// The full-text index directory.
    pub fn index_dir(&self) -> PathBuf {
        self.data_dir.join("index")
    }
}

/// Errors of the engine's write paths that the caller should report as bad input.
pub type EngineError = Error;

/// One turn to serve.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TurnRequest {
    /// The host's session key (any format; unknown formats are classified `fallback`).
    pub session_key: String,
    /// The user's prompt.
    pub prompt: String,
    /// The host's turn id, echoed in the trace.
    #[serde(default)]
    pub turn_id: Option<String>,
    /// Token budget of the prepended text (default: the engine's).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Restrict memory to this project.
    #[serde(default)]
    pub project: Option<String>,
    /// The time of the turn (ms since the epoch), for recency and sticky expiry.
    #[serde(default)]
    pub now_ms: Option<Millis>,
}

/// How the session was classified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionView {
    /// Session kind (`main_session`, `private_dm`, `external_dm`, `forum_topic`, `group_chat`,
    /// `subagent`, `heartbeat_cron`, `fallback`).
    pub kind: String,
    /// `private` when only the owner reads the session, `public` for shared audiences.
    pub audience: Audience,
    /// The project memory is restricted to, if any.
    pub project: Option<String>,
}

impl SessionView {
    fn of(info: &SessionInfo, project: Option<String>) -> Self {
        Self {
            kind: info.session_type.as_str().to_ascii_lowercase(),
            audience: if info.audience_shared { Audience::Public } else { Audience::Private },
            project,
        }
    }

    /// The recall scope of this session.
    pub fn scope(&self) -> Scope {
        Scope { project: self.project.clone(), allow_private: self.audience == Audience::Private }
    }
}

/// The routing decision, in short.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntentView {
    /// The injected primary pack.
    pub pack: Option<String>,
    /// Every injected pack, in order.
    pub packs: Vec<String>,
    /// Whether the pack was re-injected as a follow-up.
    pub sticky: bool,
    /// Why, in one line.
    pub reason: String,
}

impl IntentView {
    fn of(d: &Decision) -> Self {
        let reason = match &d.outcome {
            Outcome::Injected => format!("intent `{}` matched", d.intent.as_deref().unwrap_or("?")),
            Outcome::Sticky => format!("follow-up: pack of `{}` kept", d.intent.as_deref().unwrap_or("?")),
            Outcome::NoMatch => "no intent keyword in the prompt".to_owned(),
            Outcome::BelowThreshold => "no intent reached its threshold".to_owned(),
            Outcome::Suppressed => "every matching intent was suppressed by an entity boost".to_owned(),
            Outcome::Tie { intents } => format!("tie between {}: no pack", intents.join(", ")),
            Outcome::ScopeBlocked { intent } => {
                format!("intent `{intent}` has a private pack and the audience is shared")
            }
            Outcome::PrimaryUnavailable { intent, pack } => {
                format!("intent `{intent}`: pack `{pack}` is disabled")
            }
            Outcome::RequiredUnavailable { intent, pack_type, .. } => {
                format!("intent `{intent}`: required pack `{pack_type}` unavailable")
            }
            Outcome::Error { .. } => "routing failed: no pack".to_owned(),
        };
        let mut packs = Vec::new();
        if d.injected() {
            packs.extend(d.primary_pack.iter().cloned());
            packs.extend(d.composed.iter().filter(|p| Some(*p) != d.primary_pack.as_ref()).cloned());
        }
        Self {
            pack: if d.injected() { d.primary_pack.clone() } else { None },
            packs,
            sticky: d.sticky,
            reason,
        }
    }
}

/// The redaction-safe receipt of one turn: no prompt or item text, only ids, hashes, counts and
/// reasons.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TurnTrace {
    /// The session's turn number (1 for its first turn served).
    pub turn: u64,
    /// The host's turn id, if given.
    pub turn_id: Option<String>,
    /// Which classification rule fired, and warnings (an unknown key format).
    pub session_reason: String,
    /// Classification warnings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The budget of the turn.
    pub budget: usize,
    /// Tokens of the memory block (or fallback note).
    pub memory_tokens: usize,
    /// Tokens of the pack block.
    pub pack_tokens: usize,
    /// Why the fallback note was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// Whether the prompt was cut to the engine's limit for recall and routing.
    pub prompt_truncated: bool,
    /// What every recall lane did.
    pub lanes: Vec<LaneReport>,
    /// The routing outcome and its explanation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteTrace>,
    /// The assembly receipt of the memory block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
    /// Time per stage, in microseconds.
    pub micros: StageMicros,
}

/// Routing part of a [`TurnTrace`].
#[derive(Debug, Clone, Serialize)]
pub struct RouteTrace {
    /// The outcome.
    pub outcome: Outcome,
    /// Intent (rule id) injected.
    pub intent: Option<String>,
    /// The router's explanation, in order.
    pub trace: Vec<String>,
}

/// Time per stage of a turn.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct StageMicros {
    /// Recall (every lane).
    pub recall: u64,
    /// Routing.
    pub route: u64,
    /// Assembly.
    pub assemble: u64,
    /// The whole turn.
    pub total: u64,
}

/// The answer to one turn.
#[derive(Debug, Clone, Serialize)]
pub struct TurnResponse {
    /// What the host prepends to the prompt: a `<cairn-context>` memory block and/or a
    /// `<pack-context>` block, a `<cairn-fallback>` note, or `""`.
    pub prepend_context: String,
    /// Whether a fallback note stands in for memory (or for the whole answer).
    pub fallback: bool,
    /// How the session was classified.
    pub session: SessionView,
    /// The routing decision.
    pub intent: IntentView,
    /// Tokens of `prepend_context` (never above the budget).
    pub tokens: usize,
    /// The receipt.
    pub trace: TurnTrace,
}

/// The short note a turn gets instead of memory when recall failed or timed out.
pub fn fallback_note(reason: &str) -> String {
    format!(
        "<cairn-fallback>Long-term memory is unavailable for this turn ({reason}); \
         answer from the conversation alone.</cairn-fallback>"
    )
}

/// A bootstrap file as the host lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootstrapFile {
    /// Basename.
    pub name: String,
    /// Path (the host dedupes by path).
    pub path: String,
    /// Content, if loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Whether the file does not exist.
    #[serde(default)]
    pub missing: bool,
}

/// The filtered and extended bootstrap file list.
#[derive(Debug, Clone, Serialize)]
pub struct BootstrapResult {
    /// The files to load.
    pub files: Vec<BootstrapFile>,
    /// Paths added.
    pub added: Vec<String>,
    /// Paths removed.
    pub removed: Vec<String>,
    /// How the session was classified.
    pub session: SessionView,
}

/// Name of the generated session context file.
pub const CONTEXT_FILE: &str = "CAIRN_CONTEXT.md";

/// The long-lived serving side: store connections, the full-text index and its reader, the router,
/// extra lanes and every session's state. `Send + Sync`; every method takes `&self`.
pub struct Engine {
    cfg: EngineConfig,
    index: Option<RecallIndex>,
    recaller: RwLock<std::result::Result<Arc<Recaller>, String>>,
    router: Option<Router>,
    route_error: Option<String>,
    sessions_cfg: SessionsConfig,
    /// Captures, ingests and index syncs (one writer at a time).
    writer: Mutex<SqliteStore>,
    /// Session state and queue bookkeeping (its own connection: never waits behind an index sync).
    side: Mutex<SqliteStore>,
    sessions: SessionStates,
    lanes: Vec<Arc<dyn Lane>>,
    tokenizer: Tokenizer,
    /// The loaded graph (or why it could not be loaded); `None` when the graph lane is off.
    graph: RwLock<Option<std::result::Result<Arc<Graph>, String>>>,
    /// Read connections the graph lane reads reached items with (turns never queue on one).
    readers: Vec<Mutex<SqliteStore>>,
    /// Embeds captured turns and refreshes the graph (its own connection: never blocks captures).
    deriver: Mutex<SqliteStore>,
    /// The store sequence [`Engine::refresh_derived`] last caught up with.
    derived_seq: AtomicU64,
}

/// What [`Engine::refresh_derived`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DerivedReport {
    /// Whether the store had changed since the last refresh (nothing is done otherwise).
    pub changed: bool,
    /// Chunks embedded (captured turns, ingested notes).
    pub embedded: usize,
    /// Whether the graph was synced and reloaded.
    pub graph_reloaded: bool,
    /// What failed (the previous vectors and graph stay in use).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("cfg", &self.cfg).field("lanes", &self.lanes.len()).finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The first `max` bytes of `s`, cut at a char boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn open_index(dir: &Path) -> std::result::Result<RecallIndex, String> {
    match RecallIndex::open_or_create(dir) {
        Ok(i) => Ok(i),
        Err(first) => RecallIndex::recreate(dir).map_err(|e| {
            format!("index `{}` unusable ({first}) and could not be rebuilt: {e}", dir.display())
        }),
    }
}

impl Engine {
    /// Opens the store (creating and migrating it if needed), the index (rebuilt when missing or
    /// damaged, synced to the store), the routing config and the saved session states.
    ///
    /// Only a store that cannot be opened is an error: a broken index or routing config leaves the
    /// engine serving fallback notes or memory without packs, with the reason in [`Engine::problems`].
    pub fn open(cfg: EngineConfig) -> Result<Engine> {
        let store_path = cfg.store_path();
        let mut writer = SqliteStore::open(&store_path)?;
        writer.set_durable(true)?;
        let side = SqliteStore::open(&store_path)?;
        side.set_durable(true)?;
        let sessions = SessionStates::default();
        let saved = side.session_states()?;
        sessions.load(saved.into_iter().filter_map(|(k, json)| Some((k, serde_json::from_str(&json).ok()?))));

        let (router, route_error) = match &cfg.route_dir {
            Some(dir) => match Router::load(dir) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(format!("routing config `{}`: {e}", dir.display()))),
            },
            None => (None, None),
        };
        let sessions_cfg = router.as_ref().map(|r| r.config().sessions().clone()).unwrap_or_default();

        let (index, recaller) = match open_index(&cfg.index_dir()) {
            Ok(index) => {
                let synced = sync_index(&writer, &index).map_err(|e| format!("index sync: {e}"));
                let recaller = synced.and_then(|_| {
                    Recaller::new(&index, cfg.recall.clone())
                        .map(|r| Arc::new(r.with_vectors(cfg.vectors.clone())))
                        .map_err(|e| e.to_string())
                });
                (Some(index), recaller)
            }
            Err(e) => (None, Err(e)),
        };
        let (graph, readers) = match cfg.graph {
            Some(_) => {
                let graph =
                    crate::graph::open_graph(&mut writer).map(Arc::new).map_err(|e| format!("graph: {e}"));
                let n = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 16);
                let readers = (0..n)
                    .map(|_| SqliteStore::open(&store_path).map(Mutex::new))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                (Some(graph), readers)
            }
            None => (None, Vec::new()),
        };
        let deriver = SqliteStore::open(&store_path)?;
        // Zero: the first refresh checks for work a previous run left (captures not yet embedded).
        let derived_seq = AtomicU64::new(0);
        Ok(Engine {
            graph: RwLock::new(graph),
            readers,
            deriver: Mutex::new(deriver),
            derived_seq,
            tokenizer: Tokenizer::new(cfg.options.encoding),
            cfg,
            index,
            recaller: RwLock::new(recaller),
            router,
            route_error,
            sessions_cfg,
            writer: Mutex::new(writer),
            side: Mutex::new(side),
            sessions,
            lanes: Vec::new(),
        })
    }

    /// Adds an extra recall lane consulted on every turn.
    pub fn with_lane(mut self, lane: Arc<dyn Lane>) -> Self {
        self.lanes.push(lane);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Why parts of the engine are degraded (index, routing), if they are.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Err(e) = &*self.recaller.read().unwrap_or_else(|e| e.into_inner()) {
            out.push(format!("recall unavailable: {e}"));
        }
        out.extend(self.route_error.clone());
        if let Some(Err(e)) = &*self.graph.read().unwrap_or_else(|e| e.into_inner()) {
            out.push(format!("graph lane unavailable: {e}"));
        }
        out
    }

    /// Names of the recall lanes available (`lexical`, `tags`, `recency` and extra lanes).
    pub fn lanes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.recaller().is_ok() {
            let w = &self.cfg.recall.weights;
            for (name, weight) in [("lexical", w.lexical), ("tags", w.tags), ("recency", w.recency)] {
                if weight > 0.0 {
                    out.push(name.to_owned());
                }
            }
        }
        if self.cfg.vectors.is_some() {
            out.push("vector".to_owned());
        }
        if self.cfg.graph.is_some() {
            out.push("graph".to_owned());
        }
        out.extend(self.lanes.iter().map(|l| l.name().to_owned()));
        out
    }

    /// Whether a routing config is loaded.
    pub fn has_router(&self) -> bool {
        self.router.is_some()
    }

    fn recaller(&self) -> std::result::Result<Arc<Recaller>, String> {
        self.recaller.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Classifies a session key (unknown formats give the `fallback` kind, never an error).
    pub fn classify(&self, session_key: &str) -> SessionInfo {
        classify_session(session_key, &self.sessions_cfg)
    }

    fn context_request(&self, query: &str, scope: Scope, budget: usize, now: Millis) -> ContextRequest {
        let mut req = ContextRequest::new(query, scope, budget, now);
        if let Some(n) = self.cfg.candidates {
            req.candidates = n;
        }
        if let Some(n) = self.cfg.recent {
            req.recent = n;
        }
        req.options = self.cfg.options.clone();
        req.timings = true;
        req
    }

    /// Recall over the index and every extra lane.
    fn recall(&self, req: &ContextRequest) -> Recalled {
        let recaller = self.recaller();
        let mut recalled = match &recaller {
            Ok(r) => recall_for(Ok(r), req),
            Err(e) => recall_for(Err(e as &dyn std::fmt::Display), req),
        };
        for lane in &self.lanes {
            let started = Instant::now();
            let (status, candidates, error) = match lane.recall(&req.query, &req.scope, req.candidates) {
                Ok(hits) => {
                    let n = hits.len();
                    for hit in hits {
                        let in_scope = req.scope.contains(&hit.project, hit.audience);
                        if in_scope && !recalled.hits.iter().any(|h| h.chunk_id == hit.chunk_id) {
                            recalled.hits.push(hit);
                        }
                    }
                    (LaneStatus::Ok, n, None)
                }
                Err(e) => (LaneStatus::Failed, 0, Some(e)),
            };
            recalled.lanes.push(LaneReport {
                name: lane.name().to_owned(),
                status,
                candidates,
                micros: started.elapsed().as_micros() as u64,
                error,
            });
        }
        recalled.hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
        recalled
    }

    /// Assembly of what recall gave, through the graph lane when it is on (fail-open: a graph that
    /// could not be loaded marks the lane failed and the block is the one without it).
    fn assemble(&self, req: &ContextRequest, recalled: Recalled) -> Assembly {
        let Some(options) = &self.cfg.graph else {
            return assemble_for(req, recalled);
        };
        let areq = assemble_request(req, recalled);
        let graph = self.graph.read().unwrap_or_else(|e| e.into_inner()).clone();
        match graph {
            Some(Ok(graph)) => {
                let reader = self.reader();
                let lane = GraphLane { graph: Ok((&*graph, &*reader as &dyn Store)), options };
                graph_assemble(areq, Some(lane), req)
            }
            Some(Err(e)) => graph_assemble(areq, Some(GraphLane { graph: Err(&e), options }), req),
            None => graph_assemble(areq, None, req),
        }
    }

    /// A free read connection (or the calling thread's share of the pool when all are busy).
    fn reader(&self) -> std::sync::MutexGuard<'_, SqliteStore> {
        for r in &self.readers {
            if let Ok(g) = r.try_lock() {
                return g;
            }
        }
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::thread::current().id().hash(&mut h);
        lock(&self.readers[h.finish() as usize % self.readers.len()])
    }

    /// Catches the derived parts up with the store after captures and ingests: embeds chunks that
    /// lack a vector (when a model is configured) into the live vector index, and syncs and reloads
    /// the graph (when the graph lane is on). Cheap when nothing changed. Failures leave the previous
    /// vectors and graph in use and are reported; the next call retries.
    pub fn refresh_derived(&self) -> DerivedReport {
        let mut report = DerivedReport::default();
        let mut store = lock(&self.deriver);
        let seq = match store.last_seq() {
            Ok(s) => s,
            Err(e) => {
                report.errors.push(format!("store: {e}"));
                return report;
            }
        };
        if seq == self.derived_seq.load(Ordering::Acquire) {
            return report;
        }
        report.changed = true;
        let mut ok = true;
        if let Some(lane) = &self.cfg.vectors {
            match crate::embed_pending(&mut *store, &*lane.embedder, 32, &crate::NoProgress) {
                Ok(r) => {
                    report.embedded = r.embedded;
                    if let Some(e) = r.error {
                        report.errors.push(format!("embedding: {e}"));
                        ok = false;
                    }
                }
                Err(e) => {
                    report.errors.push(format!("embedding: {e}"));
                    ok = false;
                }
            }
            if let Err(e) = crate::sync_vectors(&*store, &lane.index) {
                report.errors.push(format!("vector index: {e}"));
                ok = false;
            }
        }
        if self.cfg.graph.is_some() {
            let stale = cairn_graph::graph_is_stale(&store).unwrap_or(true);
            let failed = matches!(&*self.graph.read().unwrap_or_else(|e| e.into_inner()), Some(Err(_)));
            if stale || failed {
                match crate::graph::open_graph(&mut store) {
                    Ok(g) => {
                        *self.graph.write().unwrap_or_else(|e| e.into_inner()) = Some(Ok(Arc::new(g)));
                        report.graph_reloaded = true;
                    }
                    Err(e) => {
                        // Keep serving the last good graph; report the failure.
                        report.errors.push(format!("graph: {e}"));
                        ok = false;
                    }
                }
            }
        }
        if ok {
            self.derived_seq.store(seq, Ordering::Release);
        }
        report
    }

    /// Entity summaries of the best hits, for the router's entity boosts.
    fn entities(hits: &[Hit]) -> Vec<EntitySummary> {
        hits.iter()
            .take(5)
            .map(|h| EntitySummary {
                summary: h.title.clone(),
                facts: h.tags.iter().cloned().chain(std::iter::once(cut(&h.text, 400).to_owned())).collect(),
            })
            .collect()
    }

    /// Serves one turn. Never fails: a recall or routing failure gives a fallback note in its place.
    pub fn turn(&self, req: &TurnRequest) -> TurnResponse {
        let started = Instant::now();
        let now = req.now_ms.unwrap_or_else(now_ms);
        let budget = req.budget.unwrap_or(self.cfg.budget);
        let info = self.classify(&req.session_key);
        let session = SessionView::of(&info, req.project.clone());
        let prompt = cut(&req.prompt, self.cfg.max_prompt_bytes);
        let mut trace = TurnTrace {
            turn_id: req.turn_id.clone(),
            session_reason: info.reason.clone(),
            warnings: info.warnings.clone(),
            budget,
            prompt_truncated: prompt.len() < req.prompt.len(),
            ..Default::default()
        };

        // Recall.
        let t = Instant::now();
        let creq = self.context_request(prompt, session.scope(), budget, now);
        let recalled = self.recall(&creq);
        trace.micros.recall = t.elapsed().as_micros() as u64;
        let recall_failed = match self.recaller() {
            Err(_) => Some("the memory index is unavailable".to_owned()),
            Ok(_) if recalled.all_failed() => Some("every recall lane failed".to_owned()),
            Ok(_) => None,
        };

        // Routing, with entity boosts from the recalled hits; the turn counter moves either way.
        let t = Instant::now();
        let entities = Self::entities(&recalled.hits);
        let decision = self.sessions.update(&req.session_key, |entry| {
            entry.turns += 1;
            trace.turn = entry.turns;
            self.router.as_ref().map(|router| {
                let input = cairn_route::TurnInput::new(prompt)
                    .session_key(&req.session_key)
                    .entities(&entities)
                    .at(now);
                router.decide(&input, &mut OneSession { key: &req.session_key, entry })
            })
        });
        trace.micros.route = t.elapsed().as_micros() as u64;
        let intent = decision.as_ref().map(IntentView::of).unwrap_or_else(|| IntentView {
            reason: match &self.route_error {
                Some(_) => "routing config unavailable: no pack".to_owned(),
                None => "no routing config: no pack".to_owned(),
            },
            ..Default::default()
        });
        let route_failed = matches!(decision.as_ref().map(|d| &d.outcome), Some(Outcome::Error { .. }));
        let mut pack_block = decision.as_ref().and_then(|d| d.pack_block.clone()).unwrap_or_default();
        let mut intent = intent;
        let mut pack_tokens = self.tokenizer.count(&pack_block);
        if pack_tokens > budget {
            intent.reason =
                format!("{}; pack of {pack_tokens} tokens exceeds the budget of {budget}", intent.reason);
            intent.pack = None;
            intent.packs.clear();
            pack_block.clear();
            pack_tokens = 0;
        }
        trace.route = decision.map(|d| RouteTrace { outcome: d.outcome, intent: d.intent, trace: d.trace });

        // Memory under what the pack left (one token for the separator).
        let t = Instant::now();
        let room = budget.saturating_sub(pack_tokens + usize::from(pack_tokens > 0));
        trace.lanes = recalled.lanes.clone();
        let mut memory = String::new();
        let mut fallback_reason = recall_failed.or_else(|| route_failed.then(|| "routing failed".to_owned()));
        if let Some(reason) = &fallback_reason {
            let note = fallback_note(reason);
            if self.tokenizer.count(&note) <= room {
                memory = note;
            }
        } else if room > 0 {
            let mut mreq = creq;
            mreq.budget = room;
            let assembly: Assembly = self.assemble(&mreq, recalled);
            if let Some(g) = assembly.receipt.lanes.iter().find(|l| l.name == "graph") {
                trace.lanes.push(g.clone());
            }
            memory = assembly.block;
            trace.receipt = Some(assembly.receipt);
        }
        trace.micros.assemble = t.elapsed().as_micros() as u64;

        let mut prepend = memory;
        if !pack_block.is_empty() {
            if !prepend.is_empty() {
                prepend.push_str("\n\n");
            }
            prepend.push_str(&pack_block);
        }
        let mut tokens = self.tokenizer.count(&prepend);
        if tokens > budget {
            // Joining two blocks never adds more than a token or two; keep the pack if anything.
            prepend = pack_block;
            tokens = pack_tokens;
            trace.receipt = None;
            fallback_reason.get_or_insert_with(|| "memory block dropped to keep the budget".to_owned());
        }
        trace.pack_tokens = pack_tokens;
        trace.memory_tokens = tokens.saturating_sub(pack_tokens);
        let fallback = fallback_reason.is_some() && prepend.contains("<cairn-fallback>");
        trace.fallback_reason = fallback_reason;
        trace.micros.total = started.elapsed().as_micros() as u64;
        TurnResponse { prepend_context: prepend, fallback, session, intent, tokens, trace }
    }

    /// The answer for a turn that could not be served in time (or at all): the fallback note alone.
    pub fn fallback_turn(&self, req: &TurnRequest, reason: &str) -> TurnResponse {
        let info = self.classify(&req.session_key);
        let note = fallback_note(reason);
        TurnResponse {
            tokens: self.tokenizer.count(&note),
            prepend_context: note,
            fallback: true,
            session: SessionView::of(&info, req.project.clone()),
            intent: IntentView { reason: format!("not routed: {reason}"), ..Default::default() },
            trace: TurnTrace {
                turn_id: req.turn_id.clone(),
                session_reason: info.reason,
                budget: req.budget.unwrap_or(self.cfg.budget),
                fallback_reason: Some(reason.to_owned()),
                ..Default::default()
            },
        }
    }

    /// The routing decision for a prompt, as a dry run: the session's sticky state is read, never
    /// written, and the turn counter does not move.
    pub fn intent(&self, session_key: &str, prompt: &str, now: Option<Millis>) -> serde_json::Value {
        let now = now.unwrap_or_else(now_ms);
        let prompt = cut(prompt, self.cfg.max_prompt_bytes);
        let info = self.classify(session_key);
        let session = SessionView::of(&info, None);
        let Some(router) = &self.router else {
            return serde_json::json!({
                "session": session,
                "intent": IntentView { reason: "no routing config: no pack".into(), ..Default::default() },
                "problems": self.route_error.iter().collect::<Vec<_>>(),
            });
        };
        let creq = self.context_request(prompt, session.scope(), self.cfg.budget, now);
        let entities = Self::entities(&self.recall(&creq).hits);
        let mut entry: SessionEntry = self.sessions.get(session_key);
        let input = cairn_route::TurnInput::new(prompt).session_key(session_key).entities(&entities).at(now);
        let d = router.decide(&input, &mut OneSession { key: session_key, entry: &mut entry });
        serde_json::json!({
            "session": session,
            "intent": IntentView::of(&d),
            "decision": d,
        })
    }

    /// A session's saved state (sticky pack, turns served).
    pub fn session_state(&self, session_key: &str) -> SessionEntry {
        self.sessions.get(session_key)
    }

    /// Writes changed session states to the store; returns how many. Call it periodically and at
    /// shutdown.
    pub fn flush_sessions(&self) -> Result<usize> {
        let dirty = self.sessions.take_dirty();
        if dirty.is_empty() {
            return Ok(0);
        }
        lock(&self.side).put_session_states(&dirty, now_ms())?;
        Ok(dirty.len())
    }

    /// Recall then assembly for a query (the `context` endpoint and tool). `scope` decides what the
    /// caller may see.
    pub fn context(&self, query: &str, scope: Scope, budget: Option<usize>, now: Option<Millis>) -> Assembly {
        let now = now.unwrap_or_else(now_ms);
        let req = self.context_request(
            cut(query, self.cfg.max_prompt_bytes),
            scope,
            budget.unwrap_or(self.cfg.budget),
            now,
        );
        let recalled = self.recall(&req);
        self.assemble(&req, recalled)
    }

    /// Context with explicit assembly options (format).
    pub fn context_with(
        &self,
        query: &str,
        scope: Scope,
        budget: usize,
        options: AssembleOptions,
    ) -> Assembly {
        let mut req = self.context_request(cut(query, self.cfg.max_prompt_bytes), scope, budget, now_ms());
        req.options = options;
        let recalled = self.recall(&req);
        self.assemble(&req, recalled)
    }

    /// Ranked hits for a query in `scope`.
    pub fn search(&self, query: &str, scope: Scope, k: usize) -> Vec<Hit> {
        let mut req =
            self.context_request(cut(query, self.cfg.max_prompt_bytes), scope, self.cfg.budget, now_ms());
        req.candidates = k.clamp(1, 100);
        req.recent = 0;
        let mut hits = self.recall(&req).hits;
        hits.truncate(k);
        hits
    }

    /// Stores one piece of text as a note and makes it recallable; returns its item id.
    pub fn ingest(&self, note: &IngestNote) -> Result<String> {
        if note.text.trim().is_empty() {
            return Err(Error::BadInput("`text` is empty".into()));
        }
        let hash = content_hash(note.text.as_bytes());
        let id = format!("note:{}", &hash[..16]);
        let title = note.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| {
            let first = note.text.trim().lines().next().unwrap_or_default();
            first.chars().take(80).collect()
        });
        let now = now_ms();
        let item = cairn_core::Item {
            id: id.clone(),
            project: note.project.clone().unwrap_or_else(|| self.cfg.capture.default_project.clone()),
            kind: ItemKind::Doc,
            title,
            text: note.text.clone(),
            tags: note.tags.clone(),
            audience: note.audience.unwrap_or(self.cfg.capture.default_audience),
            provenance: Provenance::External { source: note.source.clone().unwrap_or_else(|| "api".into()) },
            content_hash: hash,
            created_at: now,
            observed_at: now,
            metadata: Default::default(),
        };
        let tags = item.tags.clone();
        let mut writer = lock(&self.writer);
        writer.apply(&[Write::Upsert { item, chunks: vec![], explicit_tags: tags, file: None }], "ingest")?;
        self.sync_locked(&writer)?;
        Ok(id)
    }

    /// Captures finished turns (stripping injected blocks) in one go, then syncs the index once so
    /// the next turn can recall them. Returns each turn's outcome.
    pub fn capture_batch(
        &self,
        turns: &[cairn_ingest::TurnInput],
    ) -> (Vec<std::result::Result<CaptureOutcome, Error>>, Result<SyncReport>) {
        let mut writer = lock(&self.writer);
        let now = now_ms();
        let outcomes = turns
            .iter()
            .map(|t| cairn_ingest::capture(&mut *writer, &self.cfg.capture, t, now).map_err(Error::from))
            .collect();
        let sync = self.sync_locked(&writer);
        (outcomes, sync)
    }

    /// Brings the index up to the store and makes the reader see it.
    pub fn sync(&self) -> Result<SyncReport> {
        let writer = lock(&self.writer);
        self.sync_locked(&writer)
    }

    fn sync_locked(&self, writer: &SqliteStore) -> Result<SyncReport> {
        let Some(index) = &self.index else {
            return Ok(SyncReport::default());
        };
        let report = sync_index(writer, index)?;
        let mut slot = self.recaller.write().unwrap_or_else(|e| e.into_inner());
        match &*slot {
            Ok(r) => r.reload()?,
            Err(_) => {
                let recaller = Recaller::new(index, self.cfg.recall.clone())?;
                *slot = Ok(Arc::new(recaller.with_vectors(self.cfg.vectors.clone())))
            }
        }
        Ok(report)
    }

    /// Store counts.
    pub fn store_status(&self) -> Result<StoreStatus> {
        Ok(lock(&self.side).status()?)
    }

    /// Number of chunks the reader sees.
    pub fn indexed_chunks(&self) -> Option<u64> {
        self.recaller().ok().map(|r| r.num_chunks())
    }

    /// Number of sessions with saved state.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Durable capture queue: adds a turn unless `(session_key, turn_id)` was queued before.
    /// Returns `true` when it was new.
    pub fn enqueue_capture(&self, session_key: &str, turn_id: &str, payload: &str) -> Result<bool> {
        Ok(lock(&self.side).enqueue_capture(session_key, turn_id, payload, now_ms())?)
    }

    /// Up to `limit` queued captures, oldest first.
    pub fn queued_captures(&self, limit: usize) -> Result<Vec<cairn_store::QueuedCapture>> {
        Ok(lock(&self.side).queued_captures(limit)?)
    }

    /// Marks a queued capture processed.
    pub fn finish_capture(&self, id: i64, outcome: &str) -> Result<()> {
        Ok(lock(&self.side).finish_capture(id, outcome)?)
    }

    /// Records a failed processing attempt (given up after `max_attempts`).
    pub fn fail_capture(&self, id: i64, error: &str, max_attempts: i64) -> Result<()> {
        Ok(lock(&self.side).fail_capture(id, error, max_attempts)?)
    }

    /// Capture queue counts.
    pub fn queue_counts(&self) -> Result<QueueCounts> {
        Ok(lock(&self.side).queue_counts()?)
    }

    /// Recorded turns (of one session, or all).
    pub fn turn_count(&self, session_key: Option<&str>) -> Result<u64> {
        Ok(lock(&self.side).turn_count(session_key)?)
    }

    /// Filters the host's bootstrap files to the session kind's set, adds files of that set that the
    /// host did not list (read from `workspace_dir`), and adds a generated [`CONTEXT_FILE`] with recent
    /// memory in the session's scope.
    pub fn bootstrap(
        &self,
        session_key: &str,
        files: Vec<BootstrapFile>,
        workspace_dir: Option<&Path>,
    ) -> BootstrapResult {
        let info = self.classify(session_key);
        let session = SessionView::of(&info, None);
        let wanted = &info.files;
        let matches =
            |f: &BootstrapFile, w: &str| f.name == w || f.path == w || f.path.ends_with(&format!("/{w}"));
        let mut out = Vec::new();
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for f in files {
            if f.name == CONTEXT_FILE {
                continue;
            }
            if wanted.iter().any(|w| matches(&f, w)) {
                out.push(f);
            } else {
                removed.push(f.path);
            }
        }
        for w in wanted {
            if out.iter().any(|f| matches(f, w)) {
                continue;
            }
            let Some(dir) = workspace_dir else { continue };
            let path = dir.join(w);
            // Only files inside the workspace, and only ones that exist.
            if w.contains("..") || Path::new(w).is_absolute() {
                continue;
            }
            if let Ok(content) = std::fs::read_to_string(&path) {
                let p = path.to_string_lossy().into_owned();
                added.push(p.clone());
                let name = Path::new(w).file_name().map_or(w.clone(), |n| n.to_string_lossy().into_owned());
                out.push(BootstrapFile { name, path: p, content: Some(content), missing: false });
            }
        }
        let content = self.session_context_file(&info, session.scope());
        let path = match workspace_dir {
            Some(d) => d.join(CONTEXT_FILE).to_string_lossy().into_owned(),
            None => CONTEXT_FILE.to_owned(),
        };
        added.push(path.clone());
        out.push(BootstrapFile {
            name: CONTEXT_FILE.to_owned(),
            path,
            content: Some(content),
            missing: false,
        });
        BootstrapResult { files: out, added, removed, session }
    }

    fn session_context_file(&self, info: &SessionInfo, scope: Scope) -> String {
        let mut options = self.cfg.options.clone();
        options.require_topic = false;
        let mut req = self.context_request("", scope, self.cfg.bootstrap_budget, now_ms());
        req.options = options;
        req.recent = 10;
        let recalled = self.recall(&req);
        let assembly = assemble_for(&req, recalled);
        let kind = info.session_type.as_str().to_ascii_lowercase();
        let mut s = format!(
            "# Session context\n\nGenerated by Cairn for this session ({kind}). Recent memory in scope; \
             ask with the `cairn_search` tool for more.\n\n"
        );
        if assembly.block.is_empty() {
            s.push_str("No memory in scope yet.\n");
        } else {
            s.push_str(&assembly.block);
            s.push('\n');
        }
        if info.session_type == SessionType::Fallback {
            s.push_str("\n(The session key is in no known format; it was treated as the owner's.)\n");
        }
        s
    }
}

/// A note to store through [`Engine::ingest`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IngestNote {
    /// The text.
    pub text: String,
    /// Title (default: the first line).
    #[serde(default)]
    pub title: Option<String>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Project (default: the capture default).
    #[serde(default)]
    pub project: Option<String>,
    /// Audience (default: the capture default).
    #[serde(default)]
    pub audience: Option<Audience>,
    /// Where it came from (default `api`).
    #[serde(default)]
    pub source: Option<String>,
}

/// Milliseconds since the epoch.
pub fn now_ms() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
