//! The engine's request and response types: what adapters send and get back (turns, context
//! requests, bootstrap file lists, notes), serialisable as the HTTP API and MCP tools show them.

use cairn_assemble::{Format, Level, Receipt};
use cairn_core::{Audience, LaneReport, Millis, Scope};
use cairn_route::{Decision, Outcome, SessionInfo};
use serde::{Deserialize, Serialize};

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
    pub(crate) fn of(info: &SessionInfo, project: Option<String>) -> Self {
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
    pub(crate) fn of(d: &Decision) -> Self {
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
    /// The store could not be reached when the turn was served: its memory is this host's as of its
    /// last refresh (a shared store's server down); a warning says since when.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
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
    /// A sub-agent session's task context (its parent, what the block held).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent: Option<TaskTrace>,
}

/// What a sub-agent's turn got from its parent session (the [`TurnTrace`]'s `subagent`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskTrace {
    /// The parent's session key; `unknown` when no spawn of this session was recorded (the turn is
    /// then served as any other).
    pub parent: String,
    /// The host's run id of the child.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Whether the parent's audience narrowed the child's (the child of a shared session sees what
    /// a shared audience may).
    pub narrowed: bool,
    /// Tokens of the `<cairn-task-context>` block (0: none).
    pub tokens: usize,
    /// The parent's turns it shows.
    pub turns: usize,
    /// The chunks recalled for the task that it shows.
    pub hits: Vec<String>,
    /// The intent whose pack the parent had active, offered to the child's routing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_intent: Option<String>,
}

/// A sub-agent spawn as the host reports it (`POST /v1/subagents`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentSpawn {
    /// The session that spawned the child.
    pub parent_session_key: String,
    /// The child's session key (it must classify as a sub-agent session).
    pub child_session_key: String,
    /// The host's run id.
    #[serde(default)]
    pub run_id: Option<String>,
    /// The agent the child runs as.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The host's label for the run.
    #[serde(default)]
    pub label: Option<String>,
    /// The host's spawn mode (`run`, `session`).
    #[serde(default)]
    pub mode: Option<String>,
}

/// A sub-agent's end as the host reports it (`POST /v1/subagents/ended`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentEnded {
    /// The child's session key.
    pub child_session_key: String,
    /// The host's run id.
    #[serde(default)]
    pub run_id: Option<String>,
    /// `ok`, `error`, `timeout`, `killed`, `reset`, `deleted`.
    #[serde(default)]
    pub outcome: Option<String>,
    /// The host's reason.
    #[serde(default)]
    pub reason: Option<String>,
    /// The error the child ended with.
    #[serde(default)]
    pub error: Option<String>,
    /// When it ended (ms since the epoch; default: now).
    #[serde(default)]
    pub ended_at: Option<Millis>,
}

/// One session as `cairn sessions` lists it: what was captured of it and its sub-agent relations.
#[derive(Debug, Clone, Serialize)]
pub struct SessionSummary {
    /// The session key.
    pub key: String,
    /// Its kind (`main_session`, `group_chat`, `subagent`, …).
    pub kind: String,
    /// Turns captured.
    pub turns: u64,
    /// When its last turn was captured (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<Millis>,
    /// The session that spawned it (sub-agents).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The sub-agent sessions it spawned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    /// Its spawn record (sub-agents).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawn: Option<cairn_store::SubagentLink>,
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
    /// How `RAG_CONTEXT.md` was made (when remote sources are configured): ids, counts and lanes,
    /// never text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rag_context: Option<RagReceipt>,
}

/// The redacted receipt of `RAG_CONTEXT.md`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RagReceipt {
    /// Whether the file was written (not for sub-agents, nor when the sources gave nothing).
    pub written: bool,
    /// Why it was not, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// One report per source (`remote:<name>`), as in a turn's trace.
    pub lanes: Vec<LaneReport>,
    /// Ids of the entities included.
    pub entities: Vec<String>,
    /// Ids of the facts and relations included.
    pub relations: Vec<String>,
    /// Results left out (over a cap, the token cap, repeats, document chunks).
    pub left_out: usize,
    /// Tokens of the file.
    pub tokens: usize,
}

/// The JSON schema of an [`Audience`] (`cairn-core` carries no schema types).
#[derive(schemars::JsonSchema)]
#[schemars(rename_all = "lowercase")]
#[allow(dead_code)]
enum AudienceSchema {
    /// Every session, shared ones included.
    Public,
    /// The owner's sessions only.
    Private,
}

/// A note to store through [`Engine::ingest`](crate::Engine::ingest).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Who may see it (default: the capture default, private unless configured; public from a
    /// shared session).
    #[serde(default)]
    #[schemars(with = "Option<AudienceSchema>")]
    pub audience: Option<Audience>,
    /// Where it came from (default `api`; set by the surface, not the caller).
    #[schemars(skip)]
    #[serde(default)]
    pub source: Option<String>,
}

/// Whether a context request expands its recalled items through the link graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphChoice {
    /// As `graph.use_in_context` says.
    #[default]
    Configured,
    /// Expand (when `graph.enabled`).
    On,
    /// Do not expand.
    Off,
}

impl GraphChoice {
    /// `Some(true)` → on, `Some(false)` → off, `None` → configured.
    pub fn from_flag(flag: Option<bool>) -> Self {
        match flag {
            Some(true) => GraphChoice::On,
            Some(false) => GraphChoice::Off,
            None => GraphChoice::Configured,
        }
    }
}

/// One context request, as every surface (the `cairn context` command, `/v1/context`, the MCP
/// `context` tool) sends it to [`Engine::context`](crate::Engine::context). Fields left `None` take
/// the engine's `[context]` settings.
#[derive(Debug, Clone)]
pub struct ContextQuery {
    /// The query (usually the user's prompt); only its first `max_prompt_bytes` are used.
    pub query: String,
    /// What the caller may see (see [`Engine::scope_for`](crate::Engine::scope_for)).
    pub scope: Scope,
    /// Token budget of the block.
    pub budget: Option<usize>,
    /// Output format.
    pub format: Option<Format>,
    /// Richest level shown.
    pub max_level: Option<Level>,
    /// Keep titles out of the receipt (default `true`).
    pub redact: bool,
    /// The time recency is measured from (default: the clock).
    pub now: Option<Millis>,
    /// Keep lane timings in the receipt (off by default: the output is then byte-identical across
    /// runs and surfaces).
    pub timings: bool,
    /// The graph step.
    pub graph: GraphChoice,
    /// Let the graph step follow cross-project edges of the configured types.
    pub cross_project: bool,
}

impl ContextQuery {
    /// A request for `query` in `scope` with every other field at its default.
    pub fn new(query: impl Into<String>, scope: Scope) -> Self {
        Self {
            query: query.into(),
            scope,
            budget: None,
            format: None,
            max_level: None,
            redact: true,
            now: None,
            timings: false,
            graph: GraphChoice::Configured,
            cross_project: false,
        }
    }
}

/// Who is asking, for [`Engine::scope_for`](crate::Engine::scope_for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller<'a> {
    /// A host session: its key's classification decides the audience.
    Session(&'a str),
    /// The local owner (the CLI run by the user): private memory is visible.
    Owner,
    /// Anyone else: public memory only.
    Public,
}

impl<'a> Caller<'a> {
    /// The caller a request names: its session key when it has a non-blank one, else `default`.
    pub fn from_session_key(key: Option<&'a str>, default: Caller<'a>) -> Caller<'a> {
        match key.filter(|k| !k.trim().is_empty()) {
            Some(k) => Caller::Session(k),
            None => default,
        }
    }
}
