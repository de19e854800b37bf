//! Fake Graphiti, LightRAG and mem0 servers on 127.0.0.1, for tests and benchmarks
//! (`test-support` feature only).
//!
//! Each speaks the request and response shapes of the real service's routes that Cairn uses, and
//! validates requests as the real one does: a missing required field gets FastAPI's 422 with a
//! `detail` list, a mem0 search without an entity id its 400, a wrong or missing key LightRAG's 403
//! or mem0's 401. Every server can be slowed down, made to fail with a status, to answer malformed
//! JSON, to require a key, or stopped (its port then refuses connections); it records the requests
//! it was sent.

// A handler's early answer is a whole `Response`; boxing it would only add noise to test code.
#![allow(clippy::result_large_err)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

/// One request a fake server received: path, headers (lowercase name, value), JSON body.
pub type Recorded = (String, Vec<(String, String)>, Value);

/// How a fake server behaves; change it while the server runs.
#[derive(Debug, Default)]
pub struct Control {
    /// Delay before answering a search, in milliseconds.
    pub delay_ms: AtomicU64,
    /// Delay before answering a health check, in milliseconds.
    pub health_delay_ms: AtomicU64,
    /// Answer searches with this status (0: answer normally).
    pub fail_status: AtomicU16,
    /// Answer health checks with this status (0: answer normally).
    pub health_status: AtomicU16,
    /// Answer searches with a body that is not JSON.
    pub malformed: AtomicBool,
    /// Searches answered.
    pub searches: AtomicUsize,
    /// Health checks answered.
    pub health_checks: AtomicUsize,
    /// The key requests must carry (none: no auth).
    api_key: Mutex<Option<String>>,
    /// Every request to a search or write route: `(path, headers as lowercase name → value, body)`.
    requests: Mutex<Vec<Recorded>>,
    /// LightRAG: the account `(user, password)` `POST /login` accepts; set, `/query/data` wants a
    /// bearer token it issued.
    login: Mutex<Option<(String, String)>>,
    /// LightRAG: the tokens issued and still accepted.
    tokens: Mutex<Vec<String>>,
    /// LightRAG: logins answered with a token.
    pub logins: AtomicUsize,
    /// Graphiti's MCP server: the sessions open.
    sessions: Mutex<Vec<String>>,
    /// Graphiti's MCP server: sessions opened (`initialize` answered).
    pub initializes: AtomicUsize,
}

impl Control {
    /// Requires `key` on every protected route (none: no auth).
    pub fn require_key(&self, key: Option<&str>) {
        *self.api_key.lock().unwrap() = key.map(str::to_owned);
    }

    /// LightRAG: accepts `user` with `password` at `POST /login`, and from then on only the tokens it
    /// issued (none: no login).
    pub fn require_login(&self, account: Option<(&str, &str)>) {
        *self.login.lock().unwrap() = account.map(|(u, p)| (u.to_owned(), p.to_owned()));
    }

    /// Graphiti's MCP server: forgets every session (as after a restart): requests naming one get 404.
    pub fn expire_sessions(&self) {
        self.sessions.lock().unwrap().clear();
    }

    /// LightRAG: stops accepting every token issued so far (as when they expire).
    pub fn expire_tokens(&self) {
        self.tokens.lock().unwrap().clear();
    }

    /// The requests received so far, as `(path, headers, body)`.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    fn key(&self) -> Option<String> {
        self.api_key.lock().unwrap().clone()
    }

    fn record(&self, path: &str, headers: &HeaderMap, body: &Value) {
        let headers = headers
            .iter()
            .map(|(k, v)| (k.as_str().to_ascii_lowercase(), v.to_str().unwrap_or_default().to_owned()))
            .collect();
        self.requests.lock().unwrap().push((path.to_owned(), headers, body.clone()));
    }

    /// Waits as configured, then the status to fail with, or the malformed answer.
    async fn misbehave(&self) -> Option<Response> {
        let delay = self.delay_ms.load(Ordering::Relaxed);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        let status = self.fail_status.load(Ordering::Relaxed);
        if status != 0 {
            let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return Some((code, axum::Json(json!({"detail": "Internal Server Error"}))).into_response());
        }
        if self.malformed.load(Ordering::Relaxed) {
            return Some(
                (StatusCode::OK, [("content-type", "application/json")], "{\"facts\": [tru").into_response(),
            );
        }
        None
    }

    async fn health(&self) -> Option<Response> {
        self.health_checks.fetch_add(1, Ordering::Relaxed);
        let delay = self.health_delay_ms.load(Ordering::Relaxed);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        let status = self.health_status.load(Ordering::Relaxed);
        (status != 0)
            .then(|| StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE).into_response())
    }
}

/// A fake server running on its own thread until stopped or dropped.
pub struct FakeServer {
    addr: SocketAddr,
    /// How it behaves.
    pub control: Arc<Control>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeServer").field("addr", &self.addr).finish()
    }
}

impl FakeServer {
    fn start(router: impl FnOnce(Arc<Control>) -> Router) -> FakeServer {
        let control = Arc::new(Control::default());
        let app = router(control.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, bound) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
                ready.send(listener.local_addr().expect("addr")).expect("ready");
                // Not a graceful shutdown: a stopped server must not go on answering on a connection a
                // client keeps alive. Dropping the runtime below closes every open connection.
                tokio::select! {
                    _ = axum::serve(listener, app) => {}
                    _ = stopped => {}
                }
            });
            drop(rt);
        });
        let addr = bound.recv().expect("the fake server started");
        FakeServer { addr, control, stop: Some(stop), thread: Some(thread) }
    }

    /// Its base URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops it: its port refuses connections from now on (requests waiting in a delay are dropped).
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // Not joined: a request sleeping in a long delay would hold the test up.
    }
}

/// FastAPI's 422 for a body field that is missing or has the wrong type.
fn unprocessable(field: &str, msg: &str) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        axum::Json(
            json!({"detail": [{"type": "missing", "loc": ["body", field], "msg": msg, "input": null}]}),
        ),
    )
        .into_response()
}

/// The JSON body, or FastAPI's 422 when it is not a JSON object.
fn object(body: &str) -> Result<serde_json::Map<String, Value>, Response> {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(
                json!({"detail": [{"type": "json_invalid", "loc": ["body"], "msg": "JSON decode error"}]}),
            ),
        )
            .into_response()),
    }
}

fn required_str<'a>(m: &'a serde_json::Map<String, Value>, field: &str) -> Result<&'a str, Response> {
    match m.get(field) {
        Some(Value::String(s)) => Ok(s),
        None => Err(unprocessable(field, "Field required")),
        Some(_) => Err(unprocessable(field, "Input should be a valid string")),
    }
}

fn optional_int(m: &serde_json::Map<String, Value>, field: &str) -> Result<Option<i64>, Response> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            v.as_i64().map(Some).ok_or_else(|| unprocessable(field, "Input should be a valid integer"))
        }
    }
}

fn string_list(
    m: &serde_json::Map<String, Value>,
    field: &str,
    nullable: bool,
) -> Result<Option<Vec<String>>, Response> {
    match m.get(field) {
        None => Ok(None),
        Some(Value::Null) if nullable => Ok(None),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
            Ok(Some(a.iter().filter_map(Value::as_str).map(str::to_owned).collect()))
        }
        Some(_) => Err(unprocessable(field, "Input should be a valid list")),
    }
}

type Shared = State<Arc<Control>>;

// ----- Graphiti ---------------------------------------------------------------------------------

/// A Graphiti fact (`FactResult`) in group `group` (the fake filters by `group_ids`).
pub fn fact(group: &str, uuid: &str, name: &str, text: &str, valid_at: Option<&str>) -> Value {
    json!({
        "group": group,
        "uuid": uuid, "name": name, "fact": text, "valid_at": valid_at, "invalid_at": null,
        "created_at": "2026-01-01T00:00:00Z", "expired_at": null,
        "source_node_uuid": format!("{uuid}-s"), "target_node_uuid": format!("{uuid}-t"), "episodes": [],
    })
}

/// A fake Graphiti REST server holding `facts` (see [`fact`]): `GET /healthcheck`, `POST /search`,
/// `POST /messages`. Graphiti has no auth of its own; [`Control::require_key`] makes it check a
/// bearer token as a reverse proxy in front of it would (401).
pub fn graphiti(facts: Vec<Value>) -> FakeServer {
    let facts = Arc::new(facts);
    FakeServer::start(move |control| {
        let f = facts.clone();
        Router::new()
            .route(
                "/healthcheck",
                get(|State(c): Shared| async move {
                    match c.health().await {
                        Some(r) => r,
                        None => axum::Json(json!({"status": "healthy"})).into_response(),
                    }
                }),
            )
            .route(
                "/search",
                post(move |State(c): Shared, headers: HeaderMap, body: String| {
                    let facts = f.clone();
                    async move { graphiti_search(&c, &headers, &body, &facts).await }
                }),
            )
            .route(
                "/messages",
                post(|State(c): Shared, headers: HeaderMap, body: String| async move {
                    graphiti_messages(&c, &headers, &body)
                }),
            )
            .with_state(control)
    })
}

/// A fake of Graphiti's MCP server (`mcp_server/`, streamable HTTP at `POST /mcp`) holding `facts`:
/// `initialize` (a session id in `Mcp-Session-Id`), `notifications/initialized`, and `tools/call` of
/// `search_memory_facts` (`{"message", "facts"}` as structured content and as JSON text) and
/// `add_memory`. Answers are server-sent events, as FastMCP sends them; a request without a session
/// gets 400, one naming a session it does not know 404.
pub fn graphiti_mcp(facts: Vec<Value>) -> FakeServer {
    let facts = Arc::new(facts);
    FakeServer::start(move |control| {
        let f = facts.clone();
        Router::new()
            .route(
                "/mcp",
                post(move |State(c): Shared, headers: HeaderMap, body: String| {
                    let facts = f.clone();
                    async move { graphiti_mcp_post(&c, &headers, &body, &facts).await }
                }),
            )
            .with_state(control)
    })
}

/// One JSON-RPC message as an event stream.
fn sse(message: &Value, session: Option<&str>) -> Response {
    let mut resp = (
        StatusCode::OK,
        [("content-type", "text/event-stream"), ("cache-control", "no-cache")],
        format!("event: message\r\ndata: {message}\r\n\r\n"),
    )
        .into_response();
    if let Some(s) = session {
        resp.headers_mut().insert("mcp-session-id", s.parse().expect("header value"));
    }
    resp
}

fn rpc_error(status: StatusCode, id: &Value, code: i64, message: &str) -> Response {
    (status, axum::Json(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})))
        .into_response()
}

async fn graphiti_mcp_post(c: &Control, headers: &HeaderMap, body: &str, facts: &[Value]) -> Response {
    let Ok(msg) = serde_json::from_str::<Value>(body) else {
        return rpc_error(StatusCode::BAD_REQUEST, &Value::Null, -32700, "Parse error");
    };
    let accept = headers.get("accept").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !(accept.contains("application/json") && accept.contains("text/event-stream")) {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            &Value::Null,
            -32600,
            "Not Acceptable: Client must accept both application/json and text/event-stream",
        );
    }
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let method = msg.get("method").and_then(Value::as_str).unwrap_or_default();
    c.record(&format!("/mcp {method}"), headers, &msg);
    if method == "initialize" {
        let n = c.initializes.fetch_add(1, Ordering::Relaxed);
        let session = format!("session-{n}");
        c.sessions.lock().unwrap().push(session.clone());
        let version = msg["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18");
        let result = json!({"protocolVersion": version, "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "Graphiti Agent Memory", "version": "1.21.0"}});
        return sse(&json!({"jsonrpc": "2.0", "id": id, "result": result}), Some(&session));
    }
    match headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
        None => return rpc_error(StatusCode::BAD_REQUEST, &id, -32600, "Bad Request: Missing session ID"),
        Some(s) if !c.sessions.lock().unwrap().iter().any(|x| x == s) => {
            return rpc_error(StatusCode::NOT_FOUND, &id, -32001, "Session not found");
        }
        Some(_) => {}
    }
    match method {
        "notifications/initialized" => StatusCode::ACCEPTED.into_response(),
        "tools/call" => {
            let args = &msg["params"]["arguments"];
            let structured = match msg["params"]["name"].as_str() {
                Some("search_memory_facts") => {
                    let Some(_query) = args.get("query").and_then(Value::as_str) else {
                        let text = "Error executing tool search_memory_facts: 1 validation error: query Field required";
                        let result = json!({"content": [{"type": "text", "text": text}], "isError": true});
                        return sse(&json!({"jsonrpc": "2.0", "id": id, "result": result}), None);
                    };
                    c.searches.fetch_add(1, Ordering::Relaxed);
                    if let Some(r) = c.misbehave().await {
                        return r;
                    }
                    let groups: Option<Vec<&str>> = match &args["group_ids"] {
                        Value::Array(a) => Some(a.iter().filter_map(Value::as_str).collect()),
                        Value::String(s) => Some(vec![s.as_str()]),
                        _ => None,
                    };
                    let max = args["max_facts"].as_u64().unwrap_or(10) as usize;
                    let found: Vec<Value> = facts
                        .iter()
                        .filter(|f| {
                            groups.as_ref().is_none_or(|g| g.iter().any(|g| Some(*g) == f["group"].as_str()))
                        })
                        .take(max)
                        .map(|f| {
                            let mut f = f.clone();
                            if let Some(o) = f.as_object_mut() {
                                let group = o.remove("group").unwrap_or(Value::Null);
                                o.insert("group_id".into(), group);
                                o.insert("attributes".into(), json!({}));
                            }
                            f
                        })
                        .collect();
                    json!({"message": "Facts retrieved successfully", "facts": found})
                }
                Some("add_memory") => {
                    let name = args["name"].as_str().unwrap_or_default();
                    let group = args["group_id"].as_str().unwrap_or("main");
                    json!({"message": format!("Episode '{name}' queued for processing in group '{group}'")})
                }
                other => {
                    let m = format!("Unknown tool: {}", other.unwrap_or_default());
                    return sse(
                        &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": m}}),
                        None,
                    );
                }
            };
            let text = structured.to_string();
            let result = json!({"content": [{"type": "text", "text": text}], "structuredContent": structured,
                "isError": false});
            sse(&json!({"jsonrpc": "2.0", "id": id, "result": result}), None)
        }
        _ => sse(
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}),
            None,
        ),
    }
}

fn bearer_ok(c: &Control, headers: &HeaderMap) -> bool {
    match c.key() {
        None => true,
        Some(k) => headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {k}")),
    }
}

async fn graphiti_search(c: &Control, headers: &HeaderMap, body: &str, facts: &[Value]) -> Response {
    let m = match object(body) {
        Ok(m) => m,
        Err(r) => return r,
    };
    c.record("/search", headers, &Value::Object(m.clone()));
    if !bearer_ok(c, headers) {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({"detail": "Unauthorized"}))).into_response();
    }
    if let Err(r) = required_str(&m, "query") {
        return r;
    }
    let groups = match string_list(&m, "group_ids", true) {
        Ok(g) => g,
        Err(r) => return r,
    };
    let max = match optional_int(&m, "max_facts") {
        Ok(n) => n.unwrap_or(10).max(0) as usize,
        Err(r) => return r,
    };
    c.searches.fetch_add(1, Ordering::Relaxed);
    if let Some(r) = c.misbehave().await {
        return r;
    }
    let out: Vec<Value> = facts
        .iter()
        .filter(|f| groups.as_ref().is_none_or(|g| g.iter().any(|g| Some(g.as_str()) == f["group"].as_str())))
        .take(max)
        .map(|f| {
            let mut f = f.clone();
            f.as_object_mut().map(|o| o.remove("group"));
            f
        })
        .collect();
    axum::Json(json!({"facts": out})).into_response()
}

fn graphiti_messages(c: &Control, headers: &HeaderMap, body: &str) -> Response {
    let m = match object(body) {
        Ok(m) => m,
        Err(r) => return r,
    };
    c.record("/messages", headers, &Value::Object(m.clone()));
    let status = c.fail_status.load(Ordering::Relaxed);
    if status != 0 {
        return StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR).into_response();
    }
    if let Err(r) = required_str(&m, "group_id") {
        return r;
    }
    let Some(Value::Array(messages)) = m.get("messages") else {
        return unprocessable("messages", "Field required");
    };
    for msg in messages {
        let ok = msg.get("content").is_some_and(Value::is_string)
            && msg.get("role").is_some()
            && matches!(msg.get("role_type").and_then(Value::as_str), Some("user" | "assistant" | "system"));
        if !ok {
            return unprocessable("messages", "Field required");
        }
    }
    (
        StatusCode::ACCEPTED,
        axum::Json(json!({"message": "Messages added to processing queue", "success": true})),
    )
        .into_response()
}

// ----- LightRAG ---------------------------------------------------------------------------------

/// A fake LightRAG server answering `POST /query/data` with `data` (`{"entities": [..],
/// "relationships": [..], "chunks": [..]}`, each list cut to `top_k`), and `GET /health`. With a key
/// required, protected routes answer 403 as LightRAG does (`/health` stays open, as in its default
/// whitelist).
pub fn lightrag(data: Value) -> FakeServer {
    let data = Arc::new(data);
    FakeServer::start(move |control| {
        let d = data.clone();
        Router::new()
            .route(
                "/health",
                get(|State(c): Shared| async move {
                    match c.health().await {
                        Some(r) => r,
                        None => axum::Json(json!({"status": "healthy", "working_directory": "/tmp/rag"}))
                            .into_response(),
                    }
                }),
            )
            .route(
                "/query/data",
                post(move |State(c): Shared, headers: HeaderMap, body: String| {
                    let data = d.clone();
                    async move { lightrag_query(&c, &headers, &body, &data).await }
                }),
            )
            .route("/login", post(|State(c): Shared, body: String| async move { lightrag_login(&c, &body) }))
            .with_state(control)
    })
}

fn rag_weight(q: &str) -> usize {
    q.trim().chars().map(|c| if (c as u32) >= 0x1100 { 2 } else { 1 }).sum()
}

/// `POST /login`: an OAuth2 password form; a JWT whose payload carries `sub` and `exp` (one hour).
fn lightrag_login(c: &Control, body: &str) -> Response {
    use base64::Engine as _;
    let form: std::collections::HashMap<String, String> =
        form_urlencoded::parse(body.as_bytes()).into_owned().collect();
    let Some((user, password)) = c.login.lock().unwrap().clone() else {
        return (StatusCode::NOT_IMPLEMENTED, axum::Json(json!({"detail": "Authentication not configured"})))
            .into_response();
    };
    let (Some(u), Some(p)) = (form.get("username"), form.get("password")) else {
        return unprocessable("username", "Field required");
    };
    if *u != user || *p != password {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({"detail": "Incorrect credentials"})))
            .into_response();
    }
    let n = c.logins.fetch_add(1, Ordering::Relaxed);
    let exp = jiff::Timestamp::now().as_second() + 3600;
    let enc = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    let token = format!(
        "{}.{}.sig{n}",
        enc(r#"{"alg":"HS256","typ":"JWT"}"#),
        enc(&json!({"sub": u, "exp": exp}).to_string())
    );
    c.tokens.lock().unwrap().push(token.clone());
    axum::Json(json!({"access_token": token, "token_type": "bearer", "auth_mode": "enabled"})).into_response()
}

async fn lightrag_query(c: &Control, headers: &HeaderMap, body: &str, data: &Value) -> Response {
    if c.login.lock().unwrap().is_some() {
        let bearer = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let valid = bearer.is_some_and(|t| c.tokens.lock().unwrap().iter().any(|x| x == t));
        if !valid {
            let detail =
                if bearer.is_some() { "Invalid token" } else { "No credentials provided. Please login." };
            return (StatusCode::UNAUTHORIZED, axum::Json(json!({"detail": detail}))).into_response();
        }
    }
    if let Some(key) = c.key() {
        match headers.get("x-api-key").and_then(|v| v.to_str().ok()) {
            None => {
                return (StatusCode::FORBIDDEN, axum::Json(json!({"detail": "API Key required"})))
                    .into_response();
            }
            Some(k) if k != key => {
                return (StatusCode::FORBIDDEN, axum::Json(json!({"detail": "Invalid API Key"})))
                    .into_response();
            }
            _ => {}
        }
    }
    let m = match object(body) {
        Ok(m) => m,
        Err(r) => return r,
    };
    c.record("/query/data", headers, &Value::Object(m.clone()));
    let query = match required_str(&m, "query") {
        Ok(q) => q,
        Err(r) => return r,
    };
    if rag_weight(query) < 3 {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({"detail": [{"type": "value_error", "loc": ["body"],
                "msg": "Value error, RAG query is too short."}]})),
        )
            .into_response();
    }
    let mode = m.get("mode").and_then(Value::as_str).unwrap_or("mix");
    if !["local", "global", "hybrid", "naive", "mix", "bypass"].contains(&mode) {
        return unprocessable(
            "mode",
            "Input should be 'local', 'global', 'hybrid', 'naive', 'mix' or 'bypass'",
        );
    }
    for list in ["hl_keywords", "ll_keywords"] {
        if let Err(r) = string_list(&m, list, false) {
            return r;
        }
    }
    let top_k = match optional_int(&m, "top_k") {
        Ok(Some(n)) if n < 1 => return unprocessable("top_k", "Input should be greater than or equal to 1"),
        Ok(n) => n.unwrap_or(60) as usize,
        Err(r) => return r,
    };
    c.searches.fetch_add(1, Ordering::Relaxed);
    if let Some(r) = c.misbehave().await {
        return r;
    }
    let cut = |k: &str| -> Vec<Value> {
        data.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().take(top_k).cloned().collect())
            .unwrap_or_default()
    };
    axum::Json(json!({
        "status": "success",
        "message": "Query executed successfully",
        "data": {"entities": cut("entities"), "relationships": cut("relationships"), "chunks": cut("chunks"),
                 "references": []},
        "metadata": {"query_mode": mode, "keywords": {"high_level": m.get("hl_keywords"), "low_level": m.get("ll_keywords")}},
    }))
    .into_response()
}

// ----- mem0 -------------------------------------------------------------------------------------

/// A mem0 memory of entity `user_id`.
pub fn memory(user_id: &str, id: &str, text: &str, created_at: &str) -> Value {
    json!({"id": id, "memory": text, "user_id": user_id, "agent_id": null, "run_id": null, "hash": "h",
           "metadata": {}, "score": 0.42, "created_at": created_at, "updated_at": null})
}

/// A fake mem0 REST server holding `memories` (see [`memory`]): `POST /search` (filtered by the
/// entity ids in `filters`), `POST /memories`, `GET /entities`, `GET /openapi.json`. With a key
/// required, protected routes answer 401 as mem0 does.
pub fn mem0(memories: Vec<Value>) -> FakeServer {
    let memories = Arc::new(memories);
    FakeServer::start(move |control| {
        let m = memories.clone();
        Router::new()
            .route(
                "/openapi.json",
                get(|State(c): Shared| async move {
                    match c.health().await {
                        Some(r) => r,
                        None => axum::Json(json!({"openapi": "3.1.0", "info": {"title": "Mem0 REST APIs"},
                            "paths": {"/search": {}, "/memories": {}, "/entities": {}}}))
                        .into_response(),
                    }
                }),
            )
            .route(
                "/entities",
                get(|State(c): Shared, headers: HeaderMap| async move {
                    match mem0_auth(&c, &headers) {
                        Some(r) => r,
                        None => axum::Json(json!([])).into_response(),
                    }
                }),
            )
            .route(
                "/search",
                post(move |State(c): Shared, headers: HeaderMap, body: String| {
                    let memories = m.clone();
                    async move { mem0_search(&c, &headers, &body, &memories).await }
                }),
            )
            .route(
                "/memories",
                post(|State(c): Shared, headers: HeaderMap, body: String| async move {
                    mem0_add(&c, &headers, &body)
                }),
            )
            .route("/memories/{id}", get(|Path(_id): Path<String>| async { StatusCode::NOT_FOUND }))
            .with_state(control)
    })
}

fn mem0_auth(c: &Control, headers: &HeaderMap) -> Option<Response> {
    let key = c.key()?;
    let given = headers.get("x-api-key").and_then(|v| v.to_str().ok()).map(str::to_owned).or_else(|| {
        headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_owned)
    });
    match given {
        None => Some(
            (
                StatusCode::UNAUTHORIZED,
                axum::Json(json!({"detail":
                "Authentication required. Provide a Bearer token or X-API-Key header."})),
            )
                .into_response(),
        ),
        Some(k) if k != key => Some(
            (StatusCode::UNAUTHORIZED, axum::Json(json!({"detail": "Invalid API key."}))).into_response(),
        ),
        Some(_) => None,
    }
}

const ENTITY_KEYS: [&str; 3] = ["user_id", "agent_id", "run_id"];

async fn mem0_search(c: &Control, headers: &HeaderMap, body: &str, memories: &[Value]) -> Response {
    if let Some(r) = mem0_auth(c, headers) {
        return r;
    }
    let m = match object(body) {
        Ok(m) => m,
        Err(r) => return r,
    };
    c.record("/search", headers, &Value::Object(m.clone()));
    if let Err(r) = required_str(&m, "query") {
        return r;
    }
    let top_k = match optional_int(&m, "top_k") {
        Ok(n) => n.unwrap_or(20).max(0) as usize,
        Err(r) => return r,
    };
    let filters = m.get("filters").and_then(Value::as_object).cloned().unwrap_or_default();
    if !ENTITY_KEYS
        .iter()
        .any(|k| filters.get(*k).and_then(Value::as_str).is_some_and(|v| !v.trim().is_empty()))
    {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"detail":
            "filters must contain at least one of: user_id, agent_id, run_id. "})),
        )
            .into_response();
    }
    c.searches.fetch_add(1, Ordering::Relaxed);
    if let Some(r) = c.misbehave().await {
        return r;
    }
    let out: Vec<Value> = memories
        .iter()
        .filter(|mem| ENTITY_KEYS.iter().all(|k| filters.get(*k).is_none_or(|v| mem.get(*k) == Some(v))))
        .take(top_k)
        .cloned()
        .collect();
    axum::Json(json!({"results": out})).into_response()
}

fn mem0_add(c: &Control, headers: &HeaderMap, body: &str) -> Response {
    if let Some(r) = mem0_auth(c, headers) {
        return r;
    }
    let m = match object(body) {
        Ok(m) => m,
        Err(r) => return r,
    };
    c.record("/memories", headers, &Value::Object(m.clone()));
    let Some(Value::Array(messages)) = m.get("messages") else {
        return unprocessable("messages", "Field required");
    };
    if messages.iter().any(|msg| {
        !msg.get("role").is_some_and(Value::is_string) || !msg.get("content").is_some_and(Value::is_string)
    }) {
        return unprocessable("messages", "Field required");
    }
    if !ENTITY_KEYS.iter().any(|k| m.get(*k).is_some_and(Value::is_string)) {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"detail":
            "At least one identifier (user_id, agent_id, run_id) is required."})),
        )
            .into_response();
    }
    axum::Json(json!({"results": []})).into_response()
}
