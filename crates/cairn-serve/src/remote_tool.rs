//! The remote sources' tools as every surface offers them (MCP `graphiti_search`, `lightrag_query`,
//! `memory_service_query`; HTTP `POST /v1/sources/query`, which the OpenClaw plugin's tools call): their
//! arguments (the seed's names), the [`SourceRequest`] each becomes, and the answer's shape.

use cairn_core::{Scope, UNDATED};
use cairn_engine::{SourceAnswer, SourceRequest};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A span of dates (`2026-03-01`, RFC 3339), either end open.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    /// First day (inclusive).
    #[serde(default)]
    pub start: Option<String>,
    /// Last day (inclusive).
    #[serde(default)]
    pub end: Option<String>,
}

/// `graphiti_search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GraphitiSearchArgs {
    /// Natural-language query.
    pub query: String,
    /// Only facts valid within this span (by their `valid_at`).
    #[serde(default, rename = "timeRange")]
    pub time_range: Option<TimeRange>,
    /// Most facts (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<usize>,
    /// Only this project's group.
    #[serde(default)]
    pub project: Option<String>,
    /// Answer as this session would see it (narrows, never widens, what the server sees).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// LightRAG's retrieval modes.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RagMode {
    /// Vector search over chunks.
    Naive,
    /// Entities and their relations.
    Local,
    /// Relations by theme.
    Global,
    /// Local and global.
    Hybrid,
    /// The knowledge graph and vector search over chunks.
    Mix,
}

impl RagMode {
    fn as_str(self) -> &'static str {
        match self {
            RagMode::Naive => "naive",
            RagMode::Local => "local",
            RagMode::Global => "global",
            RagMode::Hybrid => "hybrid",
            RagMode::Mix => "mix",
        }
    }
}

/// `lightrag_query` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LightragQueryArgs {
    /// Natural-language query.
    pub query: String,
    /// Retrieval mode (default hybrid).
    #[serde(default)]
    pub mode: Option<RagMode>,
    /// Most results (default 5).
    #[serde(default, rename = "topK")]
    #[schemars(range(min = 1, max = 50))]
    pub top_k: Option<usize>,
    /// Include the document chunks (the sources) besides entities and relations (default true).
    #[serde(default, rename = "includeSources")]
    pub include_sources: Option<bool>,
    /// Only this project's workspace.
    #[serde(default)]
    pub project: Option<String>,
    /// Answer as this session would see it (narrows, never widens, what the server sees).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// `memory_service_query` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MemoryServiceQueryArgs {
    /// Natural-language query.
    pub query: String,
    /// Most memories (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<usize>,
    /// Only this project's entity id.
    #[serde(default)]
    pub project: Option<String>,
    /// Answer as this session would see it (narrows, never widens, what the server sees).
    #[serde(default)]
    pub session_key: Option<String>,
}

/// One call of a remote source's tool: `{"tool": "graphiti_search", ...its arguments}`.
#[derive(Debug, Deserialize)]
#[serde(tag = "tool")]
pub enum RemoteCall {
    /// Facts from Graphiti.
    #[serde(rename = "graphiti_search")]
    Graphiti(GraphitiSearchArgs),
    /// Entities, relations and chunks from LightRAG.
    #[serde(rename = "lightrag_query")]
    Lightrag(LightragQueryArgs),
    /// Memories from mem0.
    #[serde(rename = "memory_service_query")]
    Memory(MemoryServiceQueryArgs),
}

/// The tools of the remote sources, with the kind of source each needs.
pub const REMOTE_TOOLS: [(&str, &str); 3] =
    [("graphiti_search", "graphiti"), ("lightrag_query", "lightrag"), ("memory_service_query", "mem0")];

impl RemoteCall {
    /// The kind of source the call needs (`graphiti`, `lightrag`, `mem0`).
    pub fn kind(&self) -> &'static str {
        match self {
            RemoteCall::Graphiti(_) => "graphiti",
            RemoteCall::Lightrag(_) => "lightrag",
            RemoteCall::Memory(_) => "mem0",
        }
    }

    /// The session the call asks as, when it names one.
    pub fn session_key(&self) -> Option<&str> {
        match self {
            RemoteCall::Graphiti(a) => a.session_key.as_deref(),
            RemoteCall::Lightrag(a) => a.session_key.as_deref(),
            RemoteCall::Memory(a) => a.session_key.as_deref(),
        }
    }

    /// The project the call is limited to, when it names one.
    pub fn project(&self) -> Option<String> {
        match self {
            RemoteCall::Graphiti(a) => a.project.clone(),
            RemoteCall::Lightrag(a) => a.project.clone(),
            RemoteCall::Memory(a) => a.project.clone(),
        }
    }

    /// The request to the source for a caller who sees `scope`; an error names the bad argument.
    pub fn request(self, scope: Scope) -> Result<SourceRequest, String> {
        Ok(match self {
            RemoteCall::Graphiti(a) => {
                let mut req = SourceRequest::new(a.query, a.limit.unwrap_or(10), scope);
                req.within = a.time_range.map(span).transpose()?;
                req
            }
            RemoteCall::Lightrag(a) => {
                let mut req = SourceRequest::new(a.query, a.top_k.unwrap_or(5), scope);
                req.mode = Some(a.mode.unwrap_or(RagMode::Hybrid).as_str().to_owned());
                req.chunks = a.include_sources.unwrap_or(true);
                req
            }
            RemoteCall::Memory(a) => SourceRequest::new(a.query, a.limit.unwrap_or(10), scope),
        })
    }
}

/// A `timeRange` as a span of milliseconds: from the start day's first to the end day's last.
fn span(r: TimeRange) -> Result<(Option<i64>, Option<i64>), String> {
    let at = |s: Option<String>, what: &str| -> Result<Option<i64>, String> {
        s.map(|d| {
            cairn_engine::parse_date(&d).ok_or_else(|| format!("`timeRange.{what}` is not a date: `{d}`"))
        })
        .transpose()
    };
    Ok((at(r.start, "start")?, at(r.end, "end")?.map(|e| e + 86_400_000 - 1)))
}

/// One result of a remote source.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RemoteHitOut {
    /// Its id, `remote:<source>:<what>:<id>`.
    pub id: String,
    /// Title (a fact's relation, an entity's name and type, a document's file name).
    pub title: String,
    /// The whole text.
    pub text: String,
    /// Its date (`valid_at` for a Graphiti fact, `created_at` for a memory), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// A remote source's answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RemoteOut {
    /// The source asked (its configured name).
    pub source: String,
    /// Its results, in its own order.
    pub results: Vec<RemoteHitOut>,
}

impl From<SourceAnswer> for RemoteOut {
    fn from(a: SourceAnswer) -> RemoteOut {
        let results = a
            .hits
            .into_iter()
            .map(|h| RemoteHitOut {
                date: (h.created_at != UNDATED).then(|| day(h.created_at)),
                id: h.chunk_id,
                title: h.title,
                text: h.text,
            })
            .collect();
        RemoteOut { source: a.source, results }
    }
}

fn day(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_default()
}
