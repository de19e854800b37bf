//! `cairn mcp`: an MCP server over stdio (the official Rust SDK, `rmcp`) with the tools `search`,
//! `ingest`, `context` and `intent`, answered by the same [`Engine`] as the HTTP daemon.

use std::sync::Arc;

use cairn_core::Scope;
use cairn_engine::{Caller, ContextQuery, Engine, Format, IngestNote};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// `search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to look for.
    pub query: String,
    /// Number of hits (1–100, default 10).
    #[serde(default)]
    pub k: Option<usize>,
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// The caller's session key: its audience decides whether private memory is visible (public only
    /// without one).
    #[serde(default)]
    pub session_key: Option<String>,
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
    pub budget: Option<usize>,
    /// `markdown` (default), `xml` or `json`.
    #[serde(default)]
    pub format: Option<String>,
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// The caller's session key (public only without one).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// `intent` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct IntentArgs {
    /// The prompt to route.
    pub prompt: String,
    /// The session key (default `agent:main:main`, the owner's main session).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// The MCP server.
#[derive(Clone)]
pub struct CairnMcp {
    engine: Arc<Engine>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for CairnMcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CairnMcp")
    }
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn failure(s: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(s.into())])
}

fn scope(engine: &Engine, session_key: Option<&str>, project: Option<String>) -> Scope {
    engine.scope_for(Caller::from_session_key(session_key, Caller::Public), project)
}

async fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    tokio::task::spawn_blocking(f).await.map_err(|e| format!("internal error: {e}"))
}

#[tool_router(router = tool_router)]
impl CairnMcp {
    /// A server over `engine`.
    pub fn new(engine: Arc<Engine>) -> Self {
        Self { engine, tool_router: Self::tool_router() }
    }

    /// Ranked memory hits for a query, with why each matched and where it came from.
    #[tool(
        name = "search",
        description = "Search Cairn's memory: ranked hits with title, score, snippet, why and provenance (JSON)."
    )]
    async fn search(&self, Parameters(a): Parameters<SearchArgs>) -> CallToolResult {
        if a.query.trim().is_empty() {
            return failure("`query` must not be empty");
        }
        let engine = self.engine.clone();
        let scope = scope(&engine, a.session_key.as_deref(), a.project);
        let k = a.k.unwrap_or(10).clamp(1, 100);
        match run(move || engine.search(&a.query, scope, k)).await {
            Ok(hits) => {
                let hits: Vec<_> = hits.iter().map(crate::routes::hit_json).collect();
                text(serde_json::json!({ "hits": hits }).to_string())
            }
            Err(e) => failure(e),
        }
    }

    /// Stores a note in memory; it is recallable at once.
    #[tool(
        name = "ingest",
        description = "Store a note in Cairn's memory; returns its id. Recallable at once."
    )]
    async fn ingest(&self, Parameters(a): Parameters<IngestArgs>) -> CallToolResult {
        let engine = self.engine.clone();
        let note = IngestNote { source: Some("mcp".into()), ..a };
        match run(move || engine.ingest(&note)).await {
            Ok(Ok(id)) => text(serde_json::json!({ "id": id }).to_string()),
            Ok(Err(e)) => failure(e.to_string()),
            Err(e) => failure(e),
        }
    }

    /// The token-budgeted context block for a query.
    #[tool(
        name = "context",
        description = "The context block Cairn would inject for a query, under a token budget, with its receipt."
    )]
    async fn context(&self, Parameters(a): Parameters<ContextArgs>) -> CallToolResult {
        if a.query.trim().is_empty() {
            return failure("`query` must not be empty");
        }
        let format = match a.format.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("markdown") => Format::Markdown,
            Some("xml") => Format::Xml,
            Some("json") => Format::Json,
            Some(other) => return failure(format!("`format` must be markdown, xml or json, not `{other}`")),
        };
        if a.budget == Some(0) {
            return failure("`budget` must be at least 1");
        }
        let engine = self.engine.clone();
        let scope = scope(&engine, a.session_key.as_deref(), a.project);
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
        description = "Dry-run intent routing for a prompt: the pack it would get and why (no state changes)."
    )]
    async fn intent(&self, Parameters(a): Parameters<IntentArgs>) -> CallToolResult {
        let engine = self.engine.clone();
        let key = a.session_key.unwrap_or_else(|| "agent:main:main".to_owned());
        match run(move || engine.intent(&key, &a.prompt, None)).await {
            Ok(v) => text(v.to_string()),
            Err(e) => failure(e),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CairnMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new("cairn", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Cairn is the agent's long-term memory. `search` finds memory, `context` gives the block \
                 to read for a question, `ingest` stores a note, `intent` shows which workflow pack a \
                 prompt would get.",
            )
    }
}

/// Serves MCP on stdin/stdout until the client disconnects.
pub async fn serve_stdio(engine: Arc<Engine>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    serve_lines(engine, tokio::io::stdin(), tokio::io::stdout()).await
}

/// The MCP server over newline-delimited JSON-RPC on `input`/`output`. A line that is not JSON gets the
/// JSON-RPC parse error (`-32700`, `id: null`) instead of vanishing; every other line goes to the SDK.
/// One writer task owns `output`, so answers and parse errors never interleave within a line.
pub async fn serve_lines(
    engine: Arc<Engine>,
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
    let service = CairnMcp::new(engine.clone()).serve((sdk_in, sdk_out)).await?;
    service.waiting().await?;
    reader.abort();
    let _ = forward.await;
    let _ = writer.await;
    let _ = tokio::task::spawn_blocking(move || engine.flush_sessions()).await;
    Ok(())
}
