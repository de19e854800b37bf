//! `cairn mcp`: an MCP server over stdio (the official Rust SDK, `rmcp`) with the tools `search`,
//! `get`, `context`, `ingest`, `forget`, `intent` and `status`, answered by the same [`Engine`] as the
//! HTTP daemon; and, for each kind of remote source configured, `graphiti_search`, `lightrag_query`
//! or `memory_service_query`, which ask that source directly after checking its health. It runs as the local owner by default (the user's own client starts it over stdio);
//! `--session-key` or `--audience public` narrow it, and a tool's `session_key` only ever narrows
//! further ([`Engine::scope_within`]).

use std::sync::Arc;

use cairn_core::Scope;
use cairn_engine::{Caller, ContextQuery, Engine, Forget, Forgotten, Format, IngestNote};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hit::HitOut;
use crate::remote_tool::{
    GraphitiSearchArgs, LightragQueryArgs, MemoryServiceQueryArgs, REMOTE_TOOLS, RemoteCall, RemoteOut,
};

/// Whom the server answers as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// The local owner: private memory is visible, and memory may be forgotten.
    Owner,
    /// A host session: its key's classification decides the audience.
    Session(String),
    /// Public memory only.
    Public,
}

impl Identity {
    fn caller(&self) -> Caller<'_> {
        match self {
            Identity::Owner => Caller::Owner,
            Identity::Session(k) => Caller::Session(k),
            Identity::Public => Caller::Public,
        }
    }

    /// What this identity sees, for the tool descriptions and instructions.
    fn describe(&self) -> String {
        match self {
            Identity::Owner => "the owner (private and public memory)".into(),
            Identity::Session(k) => format!("session `{k}`"),
            Identity::Public => "public memory only".into(),
        }
    }
}

/// The format of a context block.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BlockFormat {
    /// Markdown (default).
    Markdown,
    /// XML tags.
    Xml,
    /// The whole assembly as JSON, receipt included.
    Json,
}

/// `search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to look for.
    pub query: String,
    /// Number of hits (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub k: Option<usize>,
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Answer as this session would see it (narrows, never widens, what the server sees).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// `get` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetArgs {
    /// The item id, as `search` gives it (`id`).
    pub id: String,
}

/// `ingest` arguments: the note itself.
pub type IngestArgs = IngestNote;

/// `context` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContextArgs {
    /// The question or prompt.
    pub query: String,
    /// Token budget of the block (default: the configured one).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub budget: Option<usize>,
    /// Block format (default markdown).
    #[serde(default)]
    pub format: Option<BlockFormat>,
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Answer as this session would see it (narrows, never widens, what the server sees).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// `forget` arguments: any combination; what they name together is forgotten.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ForgetArgs {
    /// Item ids (`turn:…`, `note:…`).
    #[serde(default)]
    pub ids: Vec<String>,
    /// Every captured turn of this session key.
    #[serde(default)]
    pub session: Option<String>,
    /// Every captured turn and ingested note written before this date (`2026-06-01`, RFC 3339).
    #[serde(default)]
    pub before: Option<String>,
    /// Only say what would be forgotten.
    #[serde(default)]
    pub dry_run: bool,
}

/// `intent` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct IntentArgs {
    /// The prompt to route.
    pub prompt: String,
    /// The session key (default: the server's session, else `agent:main:main`).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// `search` output.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOut {
    /// Ranked hits, best first.
    pub hits: Vec<HitOut>,
}

/// `get` output: the whole item.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ItemOut {
    /// Item id.
    pub id: String,
    /// Title.
    pub title: String,
    /// The whole text.
    pub text: String,
    /// Kind.
    pub kind: String,
    /// Project.
    pub project: String,
    /// Tags.
    pub tags: Vec<String>,
    /// `public` or `private`.
    pub audience: String,
    /// Where it came from.
    pub provenance: serde_json::Value,
    /// When it was written (ms since the epoch; 0 when unknown).
    pub created_at: i64,
    /// Its chunks' ids.
    pub chunks: Vec<String>,
}

/// `ingest` output.
#[derive(Debug, Serialize, JsonSchema)]
pub struct IngestOut {
    /// The note's id (the same text gives the same id).
    pub id: String,
}

/// `forget` output.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ForgetOut {
    /// Items removed from the store and every index (or that would be, in a dry run).
    pub items: Vec<String>,
    /// Ids named and not removed, each with why.
    pub refused: Vec<String>,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

/// `status` output.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusOut {
    /// Cairn's version.
    pub version: String,
    /// Whom the server answers as.
    pub identity: String,
    /// Recall lanes in use.
    pub lanes: Vec<String>,
    /// Items in the store (the owner only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    /// Captured turns (the owner only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns: Option<u64>,
    /// Items per project (the owner only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projects: Option<std::collections::BTreeMap<String, u64>>,
    /// What is degraded (no model, no routing config, …).
    pub problems: Vec<String>,
}

/// The MCP server.
#[derive(Clone)]
pub struct CairnMcp {
    engine: Arc<Engine>,
    identity: Identity,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for CairnMcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CairnMcp").field("identity", &self.identity).finish()
    }
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn failure(s: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(s.into())])
}

async fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    tokio::task::spawn_blocking(f).await.map_err(|e| format!("internal error: {e}"))
}

#[tool_router(router = tool_router)]
impl CairnMcp {
    /// A server over `engine` answering as `identity`.
    pub fn new(engine: Arc<Engine>, identity: Identity) -> Self {
        let mut tool_router = Self::tool_router();
        // A remote tool is listed only when a source of its kind is configured.
        let kinds = engine.source_kinds();
        for (tool, kind) in REMOTE_TOOLS {
            if !kinds.iter().any(|k| k == kind) {
                tool_router.remove_route(tool);
            }
        }
        Self { engine, identity, tool_router }
    }

    /// Asks the source a remote tool needs (health checked first).
    async fn ask_source(&self, call: RemoteCall) -> Result<Json<RemoteOut>, String> {
        let scope = self.scope(call.session_key(), call.project());
        let kind = call.kind();
        let req = call.request(scope)?;
        let engine = self.engine.clone();
        let answer = run(move || engine.query_source(kind, &req)).await?.map_err(|e| e.to_string())?;
        Ok(Json(RemoteOut::from(answer)))
    }

    /// Facts from the temporal knowledge graph (Graphiti).
    #[tool(
        name = "graphiti_search",
        description = "Search the temporal knowledge graph (Graphiti) for facts about entities and their relations from past sessions, each with when it held. Checks the service's health first and fails with the source's name if it is down.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn graphiti_search(
        &self,
        Parameters(a): Parameters<GraphitiSearchArgs>,
    ) -> Result<Json<RemoteOut>, String> {
        self.ask_source(RemoteCall::Graphiti(a)).await
    }

    /// Entities, relations and document chunks from the document knowledge base (LightRAG).
    #[tool(
        name = "lightrag_query",
        description = "Query the long-term document knowledge base (LightRAG): entities, relations and, with includeSources, the document chunks they come from (retrieval only, no generated answer). Checks the service's health first and fails with the source's name if it is down.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn lightrag_query(
        &self,
        Parameters(a): Parameters<LightragQueryArgs>,
    ) -> Result<Json<RemoteOut>, String> {
        self.ask_source(RemoteCall::Lightrag(a)).await
    }

    /// Memories from the memory service (mem0).
    #[tool(
        name = "memory_service_query",
        description = "Query the memory service (mem0) for stored memories about the user. Checks the service's health first and fails with the source's name if it is down.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn memory_service_query(
        &self,
        Parameters(a): Parameters<MemoryServiceQueryArgs>,
    ) -> Result<Json<RemoteOut>, String> {
        self.ask_source(RemoteCall::Memory(a)).await
    }

    fn scope(&self, session_key: Option<&str>, project: Option<String>) -> Scope {
        self.engine.scope_within(self.identity.caller(), session_key, project)
    }

    /// Ranked memory hits for a query, with why each matched and where it came from.
    #[tool(
        name = "search",
        description = "Search Cairn's memory: ranked hits with id, title, score, snippet, why and provenance. Sees what the server's identity sees (`status` says which); `session_key` narrows it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(&self, Parameters(a): Parameters<SearchArgs>) -> Result<Json<SearchOut>, String> {
        if a.query.trim().is_empty() {
            return Err("`query` must not be empty".into());
        }
        let k = a.k.unwrap_or(10);
        if !(1..=100).contains(&k) {
            return Err(format!("`k` must be within 1..=100, got {k}"));
        }
        let engine = self.engine.clone();
        let scope = self.scope(a.session_key.as_deref(), a.project);
        let hits = run(move || engine.search(&a.query, scope, k)).await?;
        Ok(Json(SearchOut { hits: hits.iter().map(HitOut::from).collect() }))
    }

    /// One whole item by id.
    #[tool(
        name = "get",
        description = "One memory item whole (text, tags, provenance, chunks) by the id `search` gives.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get(&self, Parameters(a): Parameters<GetArgs>) -> Result<Json<ItemOut>, String> {
        let engine = self.engine.clone();
        let scope = self.scope(None, None);
        let id = a.id.clone();
        let found = run(move || engine.get(&id, &scope)).await?.map_err(|e| e.to_string())?;
        let Some((item, chunks)) = found else { return Err(format!("no item `{}`", a.id)) };
        Ok(Json(ItemOut {
            id: item.id,
            title: item.title,
            text: item.text,
            kind: item.kind.to_string(),
            project: item.project,
            tags: item.tags,
            audience: item.audience.to_string(),
            provenance: serde_json::to_value(&item.provenance).unwrap_or_default(),
            created_at: item.created_at,
            chunks: chunks.into_iter().map(|c| c.id).collect(),
        }))
    }

    /// Stores a note in memory; it is recallable at once.
    #[tool(
        name = "ingest",
        description = "Store a note in Cairn's memory; returns its id (the same text gives the same id). Searchable at once by the server's identity.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn ingest(&self, Parameters(a): Parameters<IngestArgs>) -> Result<Json<IngestOut>, String> {
        let engine = self.engine.clone();
        let audience = a.audience.or_else(|| engine.audience_for(self.identity.caller()));
        let note = IngestNote { audience, source: Some("mcp".into()), ..a };
        let id = run(move || engine.ingest(&note)).await?.map_err(|e| e.to_string())?;
        Ok(Json(IngestOut { id }))
    }

    /// Forgets captured turns and ingested notes (the owner only).
    #[tool(
        name = "forget",
        description = "Forget captured turns and ingested notes by id, session or date: removed from the store and every index, so nothing recalls them any more. The owner only; memory files are changed by editing the file.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn forget(&self, Parameters(a): Parameters<ForgetArgs>) -> Result<Json<ForgetOut>, String> {
        let before = match &a.before {
            Some(s) => {
                Some(cairn_engine::parse_date(s).ok_or_else(|| format!("`before` is not a date: `{s}`"))?)
            }
            None => None,
        };
        let req = Forget { ids: a.ids, session: a.session, before, dry_run: a.dry_run };
        let engine = self.engine.clone();
        let scope = self.scope(None, None);
        let f: Forgotten = run(move || engine.forget(&req, &scope)).await?.map_err(|e| e.to_string())?;
        Ok(Json(ForgetOut { items: f.items, refused: f.refused, dry_run: f.dry_run }))
    }

    /// The token-budgeted context block for a query.
    #[tool(
        name = "context",
        description = "The context block Cairn would inject for a query, under a token budget (markdown, xml, or json with its receipt). Empty when nothing is relevant.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn context(&self, Parameters(a): Parameters<ContextArgs>) -> CallToolResult {
        if a.query.trim().is_empty() {
            return failure("`query` must not be empty");
        }
        let format = match a.format.unwrap_or(BlockFormat::Markdown) {
            BlockFormat::Markdown => Format::Markdown,
            BlockFormat::Xml => Format::Xml,
            BlockFormat::Json => Format::Json,
        };
        if a.budget == Some(0) {
            return failure("`budget` must be at least 1");
        }
        let engine = self.engine.clone();
        let scope = self.scope(a.session_key.as_deref(), a.project);
        let mut q = ContextQuery::new(a.query, scope);
        q.budget = a.budget;
        q.format = Some(format);
        let result = run(move || engine.context(&q)).await;
        match result {
            Ok(a) if format == Format::Json => text(a.to_json()),
            Ok(a) => text(a.block),
            Err(e) => failure(e),
        }
    }

    /// Which workflow pack a prompt would get (dry run: no session state changes).
    #[tool(
        name = "intent",
        description = "Dry-run intent routing for a prompt: the pack it would get and why (no state changes).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn intent(&self, Parameters(a): Parameters<IntentArgs>) -> CallToolResult {
        let engine = self.engine.clone();
        let own = match &self.identity {
            Identity::Session(k) => k.clone(),
            _ => "agent:main:main".to_owned(),
        };
        let key = a.session_key.unwrap_or(own);
        match run(move || engine.intent(&key, &a.prompt, None)).await {
            Ok(v) => text(v.to_string()),
            Err(e) => failure(e),
        }
    }

    /// What the server answers as and what memory holds.
    #[tool(
        name = "status",
        description = "Cairn's version, whom this server answers as, the recall lanes in use, what is degraded, and (for the owner) what memory holds.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn status(&self) -> Result<Json<StatusOut>, String> {
        let engine = self.engine.clone();
        let owner = self.identity == Identity::Owner;
        let identity = self.identity.describe();
        run(move || {
            let st = if owner { engine.store_status().ok() } else { None };
            Json(StatusOut {
                version: env!("CARGO_PKG_VERSION").into(),
                identity,
                lanes: engine.lanes(),
                items: st.as_ref().map(|s| s.items),
                turns: st.as_ref().map(|s| s.turns),
                projects: st.map(|s| s.per_project),
                problems: engine.problems(),
            })
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CairnMcp {
    fn get_info(&self) -> ServerConfig {
        let mut about = format!(
            "Cairn is the agent's long-term memory; this server answers as {}. `search` finds memory \
             (then `get` reads an item whole), `context` gives the block to read for a question, \
             `ingest` stores a note, `forget` removes turns and notes (owner only), `intent` shows \
             which workflow pack a prompt would get, `status` what memory holds.",
            self.identity.describe()
        );
        if self.identity == Identity::Owner
            && let Ok(st) = self.engine.store_status()
        {
            let projects: Vec<&str> = st.per_project.keys().map(String::as_str).collect();
            about.push_str(&format!(
                " Memory now holds {} items ({} captured turns) in the projects {}.",
                st.items,
                st.turns,
                projects.join(", ")
            ));
        }
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new("cairn", env!("CARGO_PKG_VERSION")))
            .with_instructions(about)
    }
}

/// Serves MCP on stdin/stdout until the client disconnects.
pub async fn serve_stdio(
    engine: Arc<Engine>,
    identity: Identity,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    serve_lines(engine, identity, tokio::io::stdin(), tokio::io::stdout()).await
}

/// The MCP server over newline-delimited JSON-RPC on `input`/`output`. A line that is not JSON gets the
/// JSON-RPC parse error (`-32700`, `id: null`) instead of vanishing; every other line goes to the SDK.
/// One writer task owns `output`, so answers and parse errors never interleave within a line.
pub async fn serve_lines(
    engine: Arc<Engine>,
    identity: Identity,
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (to_sdk, sdk_in) = tokio::io::duplex(64 * 1024);
    let (sdk_out, from_sdk) = tokio::io::duplex(64 * 1024);
    let (lines_tx, mut lines_rx) = tokio::sync::mpsc::unbounded_channel::<String>();

    let errors = lines_tx.clone();
    let reader = tokio::spawn(async move {
        let mut to_sdk = to_sdk;
        let mut lines = BufReader::new(input).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(_) => {
                    if to_sdk.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let answer = serde_json::json!({
                        "jsonrpc": "2.0",
                        "id": null,
                        "error": {"code": -32700, "message": format!("Parse error: {e}")},
                    });
                    let _ = errors.send(answer.to_string());
                }
            }
        }
        // End of input: closing the SDK's side ends the session.
        let _ = to_sdk.shutdown().await;
    });
    let forward = tokio::spawn(async move {
        let mut lines = BufReader::new(from_sdk).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = lines_rx.recv().await {
            if output.write_all(format!("{line}\n").as_bytes()).await.is_err()
                || output.flush().await.is_err()
            {
                break;
            }
        }
    });
    let service = CairnMcp::new(engine.clone(), identity).serve((sdk_in, sdk_out)).await?;
    service.waiting().await?;
    reader.abort();
    let _ = forward.await;
    let _ = writer.await;
    let _ = tokio::task::spawn_blocking(move || engine.flush_sessions()).await;
    Ok(())
}
