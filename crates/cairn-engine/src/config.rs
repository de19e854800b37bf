//! What an [`Engine`](crate::Engine) is opened with: [`EngineConfig`], and the `[context]` and
//! `[graph]` settings sections it owns. Every default lives here (or in the stage crate whose section
//! it is) and nowhere else: adapters map their resolved settings into this, never restate a value.

use std::path::PathBuf;
use std::sync::Arc;

use cairn_assemble::{AssembleOptions, Format, Level};
use cairn_embed::{EmbedSettings, Embedder};
use cairn_graph::ExpandOptions;
use cairn_ingest::{CaptureSettings, HarvestSettings};
use cairn_recall::RecallSettings;
use cairn_tokens::Encoding;
use cairn_vector::VectorSettings;
use serde::{Deserialize, Serialize};

use crate::graph::GraphExpansionOptions;

/// Default token budget of a context block or a turn's prepended text.
pub const DEFAULT_BUDGET: usize = 2000;

/// Default cap on the bytes of a prompt used for recall and routing (the rest is ignored).
pub const DEFAULT_MAX_PROMPT_BYTES: usize = 64 * 1024;

/// Default token budget of the generated bootstrap context file.
pub const DEFAULT_BOOTSTRAP_BUDGET: usize = 800;

/// The `[context]` section: how context blocks are recalled and assembled, in `cairn context`,
/// `/v1/context`, the MCP `context` tool and every turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextSettings {
    /// Token budget of the block.
    pub budget: usize,
    /// Topic candidates recalled before assembly (default: sized from the budget).
    pub candidates: Option<usize>,
    /// Recent items recalled for the recency layer (default: sized from the budget).
    pub recent: Option<usize>,
    /// Share of the budget for the recency layer (the rest is the topic layer).
    pub recency_share: f32,
    /// Richest level shown.
    pub max_level: Level,
    /// Token cap of one L2 snippet.
    pub snippet_cap: usize,
    /// Tokenizer that counts the budget.
    pub encoding: Encoding,
    /// Default output format.
    pub format: Format,
    /// Below this relevance (the best candidate's, on recall's scale where `recall.floor` is the
    /// least that is injected at all) a block holds at most `modest_items` entries and no recent
    /// layer: a prompt that only just clears the floor costs a few hundred tokens, not the budget.
    pub modest_relevance: f32,
    /// Entries of a block whose best relevance is below `modest_relevance`.
    pub modest_items: usize,
    /// Token budget of a sub-agent's `<cairn-task-context>` block (inside the turn's budget).
    pub task_budget: usize,
    /// The parent's last turns a sub-agent's task context shows.
    pub task_turns: usize,
    /// `RAG_CONTEXT.md` (written at session start when remote sources are configured): most entities.
    pub rag_entities: usize,
    /// `RAG_CONTEXT.md`: most facts and relations.
    pub rag_relations: usize,
    /// `RAG_CONTEXT.md`: its token cap.
    pub rag_budget: usize,
}

impl Default for ContextSettings {
    fn default() -> Self {
        let o = AssembleOptions::default();
        Self {
            budget: DEFAULT_BUDGET,
            candidates: None,
            recent: None,
            recency_share: o.recency_share,
            max_level: o.max_level,
            snippet_cap: o.snippet_cap,
            encoding: o.encoding,
            format: o.format,
            modest_relevance: 0.75,
            modest_items: 3,
            task_budget: 800,
            task_turns: 5,
            rag_entities: 20,
            rag_relations: 30,
            rag_budget: 800,
        }
    }
}

impl ContextSettings {
    /// Thins what recall gave when its best relevance is modest (see `modest_relevance`): the best
    /// `modest_items` hits, no recent items.
    pub(crate) fn modest(&self, recalled: &mut crate::Recalled) {
        if self.is_modest(recalled) {
            recalled.hits.truncate(self.modest_items);
            recalled.recent.clear();
        }
    }

    /// Whether what recall gave is only modestly relevant (see `modest_relevance`): its block keeps
    /// the best `modest_items` hits, and nothing is added to them (no recent items, no graph step).
    pub(crate) fn is_modest(&self, recalled: &crate::Recalled) -> bool {
        recalled.relevance.as_ref().is_some_and(|rel| {
            rel.floor > 0.0 && !recalled.hits.is_empty() && rel.best < self.modest_relevance
        })
    }

    /// The assembly options these settings resolve to.
    pub fn assemble_options(&self) -> AssembleOptions {
        AssembleOptions {
            format: self.format,
            max_level: self.max_level,
            recency_share: self.recency_share,
            snippet_cap: self.snippet_cap,
            encoding: self.encoding,
            ..AssembleOptions::default()
        }
    }
}

/// The `[store]` section: where the shared part of the store lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreSettings {
    /// A PostgreSQL database shared by several hosts (`postgres://user:password@host:port/database`):
    /// items, chunks, tags, turns, vectors and the ingest log live there, and this host's `cairn.sqlite`
    /// keeps only its own parts (graph tables, serving state, sub-agent records). `None`: everything in
    /// the embedded SQLite file.
    pub url: Option<String>,
}

/// The `[graph]` section: the link graph and the graph step of context requests and turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraphSettings {
    /// Master switch: `false` turns the graph step off everywhere.
    pub enabled: bool,
    /// Expand recalled items through the graph in context requests (`cairn context`, `/v1/context`,
    /// the MCP `context` tool) unless the request says otherwise.
    pub use_in_context: bool,
    /// Expand recalled items through the graph in every turn `cairn serve` and `cairn mcp` answer.
    pub use_in_turns: bool,
    /// Follow cross-project edges (only of `cross_project_edge_types`).
    pub cross_project: bool,
    /// Edge types that may cross projects.
    pub cross_project_edge_types: Vec<String>,
    /// Hops expanded from the seeds.
    pub depth: usize,
    /// Best recalled items that seed the expansion.
    pub seeds: usize,
    /// Most graph items offered to the assembler.
    pub max_added: usize,
    /// Nodes with more edges than this are not expanded (hubs).
    pub max_fanout: usize,
    /// Token cap of an index pack.
    pub index_cap: usize,
    /// Default token budget of a context pack.
    pub pack_budget: usize,
    /// Token cap of one raw snippet in a context pack.
    pub snippet_cap: usize,
}

impl Default for GraphSettings {
    fn default() -> Self {
        let e = ExpandOptions::default();
        let s = GraphExpansionOptions::default();
        Self {
            enabled: true,
            use_in_context: false,
            use_in_turns: true,
            cross_project: e.allow_cross_project,
            cross_project_edge_types: e.cross_project_edge_types,
            depth: e.depth,
            seeds: s.seeds,
            max_added: s.max_added,
            max_fanout: e.max_fanout,
            index_cap: cairn_graph::INDEX_CAP,
            pack_budget: DEFAULT_BUDGET,
            snippet_cap: cairn_graph::SNIPPET_CAP,
        }
    }
}

impl GraphSettings {
    /// The expansion these settings give, with cross-project edges followed when `cross_project` (or
    /// the setting) says so, `depth` hops unless given.
    pub fn expand(&self, cross_project: bool, depth: Option<usize>) -> ExpandOptions {
        ExpandOptions {
            depth: depth.unwrap_or(self.depth),
            allow_cross_project: cross_project || self.cross_project,
            cross_project_edge_types: self.cross_project_edge_types.clone(),
            max_fanout: self.max_fanout,
            ..ExpandOptions::default()
        }
    }

    /// The graph step's options for one request.
    pub fn expansion(&self, cross_project: bool) -> GraphExpansionOptions {
        GraphExpansionOptions {
            expand: self.expand(cross_project, None),
            seeds: self.seeds,
            max_added: self.max_added,
        }
    }
}

/// Everything an [`Engine`](crate::Engine) needs, resolved by the caller (library crates read no
/// files or environment of their own).
#[derive(Clone)]
pub struct EngineConfig {
    /// Data directory: the store is `cairn.sqlite` in it (with a shared store: this host's part of
    /// it), the full-text index `index/`.
    pub data_dir: PathBuf,
    /// The agent workspace harvested by [`Engine::harvest`](crate::Engine::harvest); `None`: no
    /// harvesting through this engine.
    pub workspace: Option<PathBuf>,
    /// Routing config directory; `None` serves memory only (no packs).
    pub route_dir: Option<PathBuf>,
    /// Recall lanes and fusion.
    pub recall: RecallSettings,
    /// Context blocks: budget, candidates, assembly defaults.
    pub context: ContextSettings,
    /// Harvesting memory files.
    pub harvest: HarvestSettings,
    /// Capture options (strip tags, default project and audience).
    pub capture: CaptureSettings,
    /// Only the first this many bytes of a prompt are used for recall and routing.
    pub max_prompt_bytes: usize,
    /// Token budget of the generated bootstrap context file.
    pub bootstrap_budget: usize,
    /// The embedding model of the vector lane (`provider = "none"`: lexical, tag and recency lanes
    /// only).
    pub embed: EmbedSettings,
    /// The vector index and embedding at ingest.
    pub vector: VectorSettings,
    /// An embedder already opened (tests, hosts that embed elsewhere); when set it is used instead of
    /// opening `embed`.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// The link graph and its step.
    pub graph: GraphSettings,
    /// The shared store, if any (`[store]`).
    pub store: StoreSettings,
    /// Remote sources (`[remote.<name>]`), with their secrets read by the caller: consulted on every
    /// turn and context request beside the recall lanes.
    pub remote: Vec<cairn_remote::SourceConfig>,
}

impl std::fmt::Debug for EngineConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineConfig")
            .field("data_dir", &self.data_dir)
            .field("workspace", &self.workspace)
            .field("route_dir", &self.route_dir)
            .field("context", &self.context)
            .field("embed", &self.embed.provider)
            .field("graph", &self.graph.enabled)
            .field("shared_store", &self.store.url.is_some())
            .field("remote", &self.remote.iter().map(|r| r.name.as_str()).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl EngineConfig {
    /// Defaults over `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            workspace: None,
            route_dir: None,
            recall: RecallSettings::default(),
            context: ContextSettings::default(),
            harvest: HarvestSettings::default(),
            capture: CaptureSettings::default(),
            max_prompt_bytes: DEFAULT_MAX_PROMPT_BYTES,
            bootstrap_budget: DEFAULT_BOOTSTRAP_BUDGET,
            embed: EmbedSettings::default(),
            vector: VectorSettings::default(),
            embedder: None,
            graph: GraphSettings::default(),
            store: StoreSettings::default(),
            remote: Vec::new(),
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

    /// Whether the vector lane may be used at all (it is on, or it is the semantic fallback).
    pub(crate) fn wants_vectors(&self) -> bool {
        self.recall.lane_on(cairn_recall::lane::VECTOR) || self.recall.semantic_fallback > 0
    }
}
