//! The endpoints of HTTP API v1 (see `docs/serve.md` and `docs/openapi.json`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use cairn_core::{Audience, Scope, content_hash};
use cairn_engine::{
    BootstrapFile, Caller, ContextQuery, Format, GraphChoice, IngestNote, Level, SourceError, TurnRequest,
    TurnResponse,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::hit::HitOut;
use crate::json::ApiJson;
use crate::metrics::label;
use crate::remote_tool::{RemoteCall, RemoteOut};
use crate::{AppState, OPENAPI};

/// Every route, as `(method, path)`; the OpenAPI document must list each.
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/v1/health"),
    ("get", "/v1/status"),
    ("get", "/metrics"),
    ("get", "/v1/openapi.json"),
    ("get", "/viewer"),
    ("post", "/v1/turn"),
    ("post", "/v1/capture"),
    ("post", "/v1/bootstrap"),
    ("post", "/v1/search"),
    ("post", "/v1/ingest"),
    ("post", "/v1/intent"),
    ("post", "/v1/context"),
    ("post", "/v1/forget"),
    ("post", "/v1/subagents"),
    ("post", "/v1/subagents/ended"),
    ("get", "/v1/sources"),
    ("post", "/v1/sources/query"),
    ("get", "/v1/graph/export"),
    ("post", "/v1/graph/diff"),
    ("get", "/v1/sessions"),
    ("get", "/v1/sessions/{key}/turns"),
];

type Shared = State<Arc<AppState>>;

/// The router with every endpoint, the body limit, the token check and the metrics middleware.
pub fn app(state: Arc<AppState>) -> Router {
    let limit = state.options.max_body_bytes;
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/status", get(status))
        .route("/metrics", get(metrics))
        .route("/v1/openapi.json", get(openapi))
        .route("/viewer", get(crate::viewer::serve))
        .route("/v1/turn", post(turn))
        .route("/v1/capture", post(capture))
        .route("/v1/bootstrap", post(bootstrap))
        .route("/v1/search", post(search))
        .route("/v1/ingest", post(ingest))
        .route("/v1/intent", post(intent))
        .route("/v1/context", post(context))
        .route("/v1/forget", post(forget))
        .route("/v1/subagents", post(subagent_spawned))
        .route("/v1/subagents/ended", post(subagent_ended))
        .route("/v1/sources", get(sources))
        .route("/v1/sources/query", post(source_query))
        .route("/v1/graph/export", get(graph_export))
        .route("/v1/graph/diff", post(graph_diff))
        .route("/v1/sessions", get(sessions))
        .route("/v1/sessions/{key}/turns", get(session_turns))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), auth))
        .layer(middleware::from_fn_with_state(state.clone(), crate::guard::guard))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint; see /v1/openapi.json")
}

/// Times every request into the latency histogram of its route.
async fn observe(State(state): Shared, req: Request, next: Next) -> Response {
    let endpoint = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let started = Instant::now();
    let resp = next.run(req).await;
    let m = &state.metrics;
    m.latency.get_or_create(&label("endpoint", endpoint.clone())).observe(started.elapsed().as_secs_f64());
    m.requests
        .get_or_create(&vec![("endpoint", endpoint), ("status", resp.status().as_u16().to_string())])
        .inc();
    resp
}

/// Requires `Authorization: Bearer <token>` when a token is configured. Health and the viewer's page
/// (no data: it reads everything through the API, with the token) stay open.
async fn auth(State(state): Shared, req: Request, next: Next) -> Response {
    if let Some(token) = &state.options.token
        && !matches!(req.uri().path(), "/v1/health" | "/viewer")
    {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        if !given.is_some_and(|g| constant_time_eq(g.as_bytes(), token.as_bytes())) {
            return ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "missing or wrong bearer token (`Authorization: Bearer <token>`)",
            )
            .into_response();
        }
    }
    next.run(req).await
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Runs `f` on the blocking pool under `timeout`.
async fn blocking<T: Send + 'static>(
    timeout: std::time::Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::time::timeout(timeout, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(ApiError::internal(format!("{what}: {e}"))),
        Err(_) => Err(ApiError::timeout(what)),
    }
}

async fn health() -> Json {
    axum::Json(json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}

/// `axum::Json` of a value.
type Json = axum::Json<Value>;

async fn status(State(state): Shared) -> Result<Json, ApiError> {
    let engine = state.engine.clone();
    let (store, queue, turns) = blocking(state.request_timeout(), "status", move || {
        (engine.store_status(), engine.queue_counts(), engine.turn_count(None))
    })
    .await?;
    let stats = &state.worker.stats;
    Ok(axum::Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_secs": state.started.elapsed().as_secs(),
        "store": store.map_err(ApiError::from)?,
        "turns_recorded": turns.map_err(ApiError::from)?,
        "index": {"chunks": state.engine.indexed_chunks()},
        "queue": queue.map_err(ApiError::from)?,
        "worker": {
            "stored": stats.stored.load(Ordering::Relaxed),
            "duplicate": stats.duplicate.load(Ordering::Relaxed),
            "skipped": stats.skipped.load(Ordering::Relaxed),
            "errors": stats.errors.load(Ordering::Relaxed),
        },
        "sessions": state.engine.session_count(),
        "lanes": state.engine.lanes(),
        "routing": state.engine.has_router(),
        "problems": state.engine.problems(),
        "follow": {
            "listening": state.follow.listening.load(Ordering::Relaxed),
            "wakes": state.follow.wakes.load(Ordering::Relaxed),
            "reconnects": state.follow.reconnects.load(Ordering::Relaxed),
        },
    })))
}

async fn metrics(State(state): Shared) -> Response {
    let engine = state.engine.clone();
    let depth =
        tokio::task::spawn_blocking(move || engine.queue_counts().map(|q| q.queued as i64).unwrap_or(-1))
            .await
            .unwrap_or(-1);
    let body = state.metrics.render(depth);
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], body)
        .into_response()
}

/// Each remote source as the daemon's prober last saw it, with its call statistics (no network).
async fn sources(State(state): Shared) -> Json {
    axum::Json(json!({
        "sources": state.engine.sources_status(),
        "problems": state.engine.source_problems(),
    }))
}

/// One remote tool's call (`{"tool": "graphiti_search", ...}`), answered by the first source of its kind
/// after a health check now: 404 when none is configured, 403 when it is private and the session shared,
/// 503 when it is down or its call failed; each message names the source.
async fn source_query(State(state): Shared, ApiJson(call): ApiJson<RemoteCall>) -> Result<Json, ApiError> {
    let scope = scope_of(&state, call.session_key(), call.project())?;
    let kind = call.kind();
    let req = call.request(scope).map_err(ApiError::bad_request)?;
    let engine = state.engine.clone();
    let answer = blocking(state.request_timeout(), "sources/query", move || engine.query_source(kind, &req))
        .await?
        .map_err(|e| match e {
            SourceError::Invalid(m) => ApiError::bad_request(m),
            SourceError::NotConfigured(m) => ApiError::new(StatusCode::NOT_FOUND, "no_source", m),
            SourceError::Forbidden(m) => ApiError::new(StatusCode::FORBIDDEN, "private_source", m),
            SourceError::Unavailable(m) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "source_unavailable", m)
            }
        })?;
    Ok(axum::Json(json!(RemoteOut::from(answer))))
}

/// Who asks, for the read-only endpoints that take it as a query string.
#[derive(Debug, Deserialize)]
struct AskerQuery {
    #[serde(default)]
    session_key: Option<String>,
    #[serde(default)]
    project: Option<String>,
}

/// The graph export for the caller's scope: the exact bytes `cairn graph export` writes for it
/// (`--public-only` for a shared session, `--project` when one is named).
async fn graph_export(
    State(state): Shared,
    axum::extract::Query(q): axum::extract::Query<AskerQuery>,
) -> Result<Response, ApiError> {
    let scope = scope_of(&state, q.session_key.as_deref(), q.project)?;
    let engine = state.engine.clone();
    let json = blocking(state.request_timeout(), "graph/export", move || engine.graph_export(&scope))
        .await?
        .map_err(ApiError::internal)?
        .to_json();
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

#[derive(Debug, Deserialize)]
struct DiffBody {
    old: Value,
    new: Value,
}

/// What changed between two graph exports: the JSON `cairn graph diff --json` prints.
async fn graph_diff(ApiJson(body): ApiJson<DiffBody>) -> Result<Json, ApiError> {
    let parse = |v: &Value, what: &str| {
        cairn_engine::Export::parse(&v.to_string(), what).map_err(|e| ApiError::bad_request(e.to_string()))
    };
    let d = cairn_engine::graph_diff(&parse(&body.old, "old")?, &parse(&body.new, "new")?);
    Ok(axum::Json(json!(d)))
}

/// Every session with captured turns or spawns: what `cairn sessions --json` lists.
async fn sessions(State(state): Shared) -> Result<Json, ApiError> {
    let engine = state.engine.clone();
    let sessions = blocking(state.request_timeout(), "sessions", move || engine.sessions_overview())
        .await?
        .map_err(ApiError::internal)?;
    Ok(axum::Json(json!({ "sessions": sessions })))
}

/// The last turns the daemon served `key` (oldest first), with their receipts; a shared caller may not
/// read a private session's.
async fn session_turns(
    State(state): Shared,
    axum::extract::Path(key): axum::extract::Path<String>,
    axum::extract::Query(q): axum::extract::Query<AskerQuery>,
) -> Result<Json, ApiError> {
    let asker = scope_of(&state, q.session_key.as_deref(), None)?;
    if !asker.allow_private && state.engine.audience_for(Caller::Session(&key)).is_none() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "private_session",
            format!("session `{key}` is private and `session_key` names a shared session"),
        ));
    }
    Ok(axum::Json(json!({
        "session_key": key,
        "kept": state.options.turn_traces,
        "turns": state.turns.turns(&key),
    })))
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

fn require(field: &str, value: &str) -> Result<(), ApiError> {
    if value.trim().is_empty() {
        return Err(ApiError::bad_request(format!("`{field}` must not be empty")));
    }
    Ok(())
}

async fn turn(
    State(state): Shared,
    ApiJson(req): ApiJson<TurnRequest>,
) -> Result<axum::Json<TurnResponse>, ApiError> {
    require("session_key", &req.session_key)?;
    if req.budget == Some(0) {
        return Err(ApiError::bad_request("`budget` must be at least 1"));
    }
    let engine = state.engine.clone();
    let r = req.clone();
    let answer =
        tokio::time::timeout(state.turn_timeout(), tokio::task::spawn_blocking(move || engine.turn(&r)))
            .await;
    let m = &state.metrics;
    let resp = match answer {
        Ok(Ok(mut resp)) => {
            if let Some(since) = state.follow.unreachable_since() {
                resp.trace.stale = true;
                let secs = (cairn_core::now_ms().max(0) as u64).saturating_sub(since) / 1000;
                resp.trace.warnings.push(format!(
                    "the store has been unreachable for {secs} s: memory is this host's as of its last refresh"
                ));
            }
            state.turns.record(&req.session_key, cairn_core::now_ms(), &resp);
            let failed = resp.trace.lanes.iter().any(|l| l.status == cairn_core::LaneStatus::Failed);
            m.recalls.get_or_create(&label("result", if failed { "failed" } else { "ok" })).inc();
            m.turns.get_or_create(&label("result", if resp.fallback { "fallback" } else { "ok" })).inc();
            m.routed(&resp.intent.packs);
            resp
        }
        Ok(Err(e)) => {
            tracing::error!("turn failed: {e}");
            m.turns.get_or_create(&label("result", "fallback")).inc();
            state.engine.fallback_turn(&req, "internal error")
        }
        Err(_) => {
            m.turns.get_or_create(&label("result", "timeout")).inc();
            state.engine.fallback_turn(&req, "timed out")
        }
    };
    Ok(axum::Json(resp))
}

/// A message: content is a string or a list of parts.
#[derive(Debug, Clone, Deserialize, Serialize)]
struct Message {
    role: String,
    #[serde(default)]
    content: Value,
}

#[derive(Debug, Deserialize)]
struct CaptureBody {
    session_key: String,
    #[serde(default)]
    turn_id: Option<String>,
    #[serde(default)]
    run_id: Option<String>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    messages: Vec<Message>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    assistant: Option<String>,
    #[serde(default)]
    audience: Option<Audience>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    timestamp: Option<Value>,
}

async fn capture(State(state): Shared, ApiJson(body): ApiJson<CaptureBody>) -> Result<Response, ApiError> {
    require("session_key", &body.session_key)?;
    let m = &state.metrics;
    if body.success == Some(false) {
        m.captures.get_or_create(&label("result", "failed_run")).inc();
        return Ok(axum::Json(json!({"accepted": false, "reason": "failed_run"})).into_response());
    }
    if body.messages.is_empty() && body.user.is_none() && body.assistant.is_none() {
        return Err(ApiError::bad_request("a capture needs `messages` or `user`/`assistant`"));
    }
    for (i, msg) in body.messages.iter().enumerate() {
        if !(msg.content.is_string() || msg.content.is_array() || msg.content.is_null()) {
            return Err(ApiError::bad_request(format!(
                "invalid field `messages[{i}].content`: expected a string or a list of parts"
            )));
        }
    }
    // The turn id: the host's, else the run id, else derived from the content (so a retried capture of
    // the same turn dedupes).
    let turn_id = match body.turn_id.as_deref().or(body.run_id.as_deref()).map(str::trim) {
        Some(t) if !t.is_empty() => t.to_owned(),
        _ => {
            let material = serde_json::to_string(&(&body.messages, &body.user, &body.assistant))
                .map_err(ApiError::internal)?;
            content_hash(format!("{}\u{0}{material}", body.session_key).as_bytes())[..16].to_owned()
        }
    };
    let input = json!({
        "session_key": body.session_key,
        "turn_id": turn_id,
        "user": body.user,
        "assistant": body.assistant,
        "messages": body.messages,
        "timestamp": body.timestamp,
        "project": body.project,
        "audience": body.audience,
    });
    // Validated exactly as the worker will read it: what is acknowledged is stored.
    let turn: cairn_engine::TurnInput = serde_json::from_value(input.clone())
        .map_err(|e| ApiError::bad_request(format!("invalid capture: {e}")))?;
    cairn_engine::validate_turn(&turn).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let payload = serde_json::to_string(&input).map_err(ApiError::internal)?;
    let engine = state.engine.clone();
    let (key, tid) = (body.session_key.clone(), turn_id.clone());
    let fresh =
        blocking(state.request_timeout(), "capture", move || engine.enqueue_capture(&key, &tid, &payload))
            .await?
            .map_err(ApiError::from)?;
    if fresh {
        state.worker.wake();
    }
    m.captures.get_or_create(&label("result", if fresh { "accepted" } else { "duplicate" })).inc();
    Ok((StatusCode::ACCEPTED, axum::Json(json!({"accepted": true, "turn_id": turn_id, "duplicate": !fresh})))
        .into_response())
}

#[derive(Debug, Deserialize)]
struct BootstrapBody {
    session_key: String,
    #[serde(default)]
    files: Vec<BootstrapFile>,
    #[serde(default)]
    workspace_dir: Option<PathBuf>,
}

async fn bootstrap(State(state): Shared, ApiJson(body): ApiJson<BootstrapBody>) -> Result<Json, ApiError> {
    require("session_key", &body.session_key)?;
    let engine = state.engine.clone();
    let result = blocking(state.request_timeout(), "bootstrap", move || {
        engine.bootstrap(&body.session_key, body.files, body.workspace_dir.as_deref())
    })
    .await?;
    Ok(axum::Json(serde_json::to_value(result).map_err(ApiError::internal)?))
}

/// The scope of a caller: its session's, or public-only without a session key.
/// The caller's session key, which every memory endpoint requires: its classification decides what
/// the caller sees (the owner's sessions see private memory, shared ones only public memory).
fn session_of(session_key: Option<&str>) -> Result<&str, ApiError> {
    session_key.filter(|k| !k.trim().is_empty()).ok_or_else(|| {
        ApiError::bad_request(
            "`session_key` is required: name the caller's session (`agent:main:main` is the owner's main \
             session and sees private memory; a shared session's key sees public memory only)",
        )
    })
}

fn scope_of(state: &AppState, session_key: Option<&str>, project: Option<String>) -> Result<Scope, ApiError> {
    Ok(state.engine.scope_within(Caller::Owner, Some(session_of(session_key)?), project))
}

#[derive(Debug, Deserialize)]
struct SearchBody {
    query: String,
    #[serde(default)]
    k: Option<usize>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    session_key: Option<String>,
}

async fn search(State(state): Shared, ApiJson(body): ApiJson<SearchBody>) -> Result<Json, ApiError> {
    require("query", &body.query)?;
    let scope = scope_of(&state, body.session_key.as_deref(), body.project)?;
    let k = body.k.unwrap_or(10);
    if !(1..=100).contains(&k) {
        return Err(ApiError::bad_request(format!("`k` must be within 1..=100, got {k}")));
    }
    let engine = state.engine.clone();
    let hits =
        blocking(state.request_timeout(), "search", move || engine.search(&body.query, scope, k)).await?;
    let hits: Vec<HitOut> = hits.iter().map(HitOut::from).collect();
    Ok(axum::Json(json!({ "hits": hits })))
}

#[derive(Debug, Deserialize)]
struct IngestBody {
    text: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    audience: Option<Audience>,
    #[serde(default)]
    session_key: Option<String>,
}

async fn ingest(State(state): Shared, ApiJson(body): ApiJson<IngestBody>) -> Result<Response, ApiError> {
    require("text", &body.text)?;
    let key = session_of(body.session_key.as_deref())?;
    // A note sent from a shared session is public unless it says otherwise.
    let audience = body.audience.or_else(|| state.engine.audience_for(Caller::Session(key)));
    let note = IngestNote {
        text: body.text,
        title: body.title,
        tags: body.tags,
        project: body.project,
        audience,
        source: Some(format!("api:{key}")),
    };
    let engine = state.engine.clone();
    let id = blocking(state.request_timeout(), "ingest", move || engine.ingest(&note)).await??;
    Ok((StatusCode::CREATED, axum::Json(json!({"id": id}))).into_response())
}

#[derive(Debug, Deserialize)]
struct ForgetBody {
    session_key: Option<String>,
    #[serde(default)]
    ids: Vec<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    before: Option<String>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    dry_run: bool,
}

/// Forgets captured turns and ingested notes; only for a session that sees private memory (the
/// owner's).
async fn forget(State(state): Shared, ApiJson(body): ApiJson<ForgetBody>) -> Result<Json, ApiError> {
    let scope = scope_of(&state, body.session_key.as_deref(), body.project)?;
    if !scope.allow_private {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "only the owner's sessions may forget memory",
        ));
    }
    let before = match &body.before {
        Some(s) => Some(
            cairn_engine::parse_date(s)
                .ok_or_else(|| ApiError::bad_request(format!("`before` is not a date: `{s}`")))?,
        ),
        None => None,
    };
    let req = cairn_engine::Forget { ids: body.ids, session: body.session, before, dry_run: body.dry_run };
    let engine = state.engine.clone();
    let f = blocking(state.request_timeout(), "forget", move || engine.forget(&req, &scope)).await??;
    Ok(axum::Json(serde_json::to_value(&f).map_err(ApiError::internal)?))
}

/// Records a sub-agent spawn: the child's turns then get its task's context from the parent, never
/// seeing more than the parent may.
async fn subagent_spawned(
    State(state): Shared,
    ApiJson(body): ApiJson<cairn_engine::SubagentSpawn>,
) -> Result<Response, ApiError> {
    require("parent_session_key", &body.parent_session_key)?;
    require("child_session_key", &body.child_session_key)?;
    let engine = state.engine.clone();
    let link = blocking(state.request_timeout(), "subagents", move || engine.spawned(&body)).await??;
    let v = serde_json::to_value(&link).map_err(ApiError::internal)?;
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// Records how a sub-agent ended and links its captured turns to its parent.
async fn subagent_ended(
    State(state): Shared,
    ApiJson(body): ApiJson<cairn_engine::SubagentEnded>,
) -> Result<Json, ApiError> {
    require("child_session_key", &body.child_session_key)?;
    let engine = state.engine.clone();
    let known =
        blocking(state.request_timeout(), "subagents", move || engine.subagent_ended(&body)).await??;
    Ok(axum::Json(json!({ "known": known })))
}

#[derive(Debug, Deserialize)]
struct IntentBody {
    session_key: String,
    prompt: String,
    #[serde(default)]
    now_ms: Option<i64>,
}

async fn intent(State(state): Shared, ApiJson(body): ApiJson<IntentBody>) -> Result<Json, ApiError> {
    require("session_key", &body.session_key)?;
    let engine = state.engine.clone();
    let v = blocking(state.request_timeout(), "intent", move || {
        engine.intent(&body.session_key, &body.prompt, body.now_ms)
    })
    .await?;
    Ok(axum::Json(v))
}

#[derive(Debug, Deserialize)]
struct ContextBody {
    query: String,
    #[serde(default)]
    budget: Option<usize>,
    #[serde(default)]
    format: Option<Format>,
    #[serde(default)]
    level: Option<Level>,
    #[serde(default)]
    session_key: Option<String>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    now_ms: Option<i64>,
    #[serde(default)]
    use_graph: Option<bool>,
    #[serde(default)]
    cross_project: bool,
}

async fn context(State(state): Shared, ApiJson(body): ApiJson<ContextBody>) -> Result<Response, ApiError> {
    require("query", &body.query)?;
    if body.budget == Some(0) {
        return Err(ApiError::bad_request("`budget` must be at least 1"));
    }
    let mut q = ContextQuery::new(body.query, scope_of(&state, body.session_key.as_deref(), body.project)?);
    q.budget = body.budget;
    q.format = body.format;
    q.max_level = body.level;
    q.now = body.now_ms;
    q.graph = GraphChoice::from_flag(body.use_graph);
    q.cross_project = body.cross_project;
    let engine = state.engine.clone();
    let a = blocking(state.request_timeout(), "context", move || engine.context(&q)).await?;
    // Serialised straight from the assembly (not through a `Value`, which would widen its f32 scores):
    // the same bytes `cairn context --format json` prints.
    let body = serde_json::to_string(&a).map_err(ApiError::internal)?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}
