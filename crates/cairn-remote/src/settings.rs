//! The `[remote.<name>]` sections of `cairn.toml`: one per service, with every default written here
//! once. The secret is never part of these settings: they name the environment variable that holds
//! it, and the caller that reads the environment (the `cairn` binary) hands it over as a [`Secret`].

use std::collections::BTreeMap;

use cairn_core::Audience;
use serde::{Deserialize, Serialize};

use crate::Error;

/// Every configured source, by name (`[remote.graphiti]`, `[remote.docs]`, ...).
pub type RemoteSettings = BTreeMap<String, SourceSettings>;

/// The kind of service a source speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Graphiti's REST server (`getzep/graphiti`, `server/`): temporal facts from a knowledge graph.
    Graphiti,
    /// LightRAG's server (`HKUDS/LightRAG`, `lightrag/api/`): entities, relations and chunks of a
    /// document graph.
    Lightrag,
    /// mem0's REST server (`mem0ai/mem0`, `server/`): memories per user, agent or run.
    Mem0,
}

impl Kind {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Graphiti => "graphiti",
            Kind::Lightrag => "lightrag",
            Kind::Mem0 => "mem0",
        }
    }

    /// The header the secret goes in when `auth_header` is not set: a bearer token for Graphiti
    /// (which has no auth of its own; a reverse proxy in front of it may), `X-API-Key` for LightRAG
    /// and mem0.
    pub fn default_auth_header(self) -> &'static str {
        match self {
            Kind::Graphiti => "Authorization",
            Kind::Lightrag | Kind::Mem0 => "X-API-Key",
        }
    }
}

/// LightRAG's retrieval modes (`QueryRequest.mode`, less `bypass`, which retrieves nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LightragMode {
    /// Vector search over chunks only.
    Naive,
    /// Entities found by the low-level keywords, with their relations.
    Local,
    /// Relations found by the high-level keywords.
    Global,
    /// `local` and `global`.
    Hybrid,
    /// The knowledge graph and vector search over chunks (LightRAG's default).
    Mix,
}

impl LightragMode {
    /// The name LightRAG takes.
    pub fn as_str(self) -> &'static str {
        match self {
            LightragMode::Naive => "naive",
            LightragMode::Local => "local",
            LightragMode::Global => "global",
            LightragMode::Hybrid => "hybrid",
            LightragMode::Mix => "mix",
        }
    }
}

/// Which of Graphiti's servers a source speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphitiApi {
    /// Its REST server (`server/graph_service`): `POST /search`, `GET /healthcheck`.
    #[default]
    Rest,
    /// Its MCP server (`mcp_server/`) over streamable HTTP: the tool `search_memory_facts`.
    Mcp,
}

/// Which of mem0's entity ids a source's partition is (its `filters` need one of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mem0Entity {
    /// `user_id`.
    UserId,
    /// `agent_id`.
    AgentId,
    /// `run_id`.
    RunId,
}

impl Mem0Entity {
    /// The filter key.
    pub fn as_str(self) -> &'static str {
        match self {
            Mem0Entity::UserId => "user_id",
            Mem0Entity::AgentId => "agent_id",
            Mem0Entity::RunId => "run_id",
        }
    }
}

/// One `[remote.<name>]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSettings {
    /// The service: `graphiti`, `lightrag` or `mem0`.
    pub kind: Kind,
    /// Its base URL (`http://127.0.0.1:8000`); credentials do not belong in it.
    pub endpoint: String,
    /// `false` keeps the section without using it.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Who may see what it returns: `private` (the default) keeps it out of shared audiences (group
    /// chats, forum topics); `public` only for a service that holds nothing private.
    #[serde(default)]
    pub audience: Audience,
    /// How long a turn waits for it, in milliseconds; the call is abandoned after that.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// How often the daemon checks its health, in milliseconds.
    #[serde(default = "default_health_interval_ms")]
    pub health_interval_ms: u64,
    /// Calls failing in a row (timeouts included) after which it is marked down until a health
    /// check passes; 0: only health checks mark it down.
    #[serde(default = "default_down_after")]
    pub down_after: u32,
    /// Most hits taken from it per request.
    #[serde(default = "default_max_results")]
    pub max_results: usize,
    /// The environment variable holding its secret (an API key or token); none: no auth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_env: Option<String>,
    /// The header the secret is sent in (default: `Authorization` for Graphiti, `X-API-Key` for
    /// LightRAG and mem0); as `Authorization` it is sent as `Bearer <secret>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_header: Option<String>,
    /// LightRAG: log in as this account (one of the server's `AUTH_ACCOUNTS`) with the password in
    /// `secret_env`, and send the token `POST /login` gives as a bearer, renewed before it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_user: Option<String>,
    /// Graphiti: its REST server (`rest`, the default) or its MCP server (`mcp`; `endpoint` is then
    /// the MCP URL, `http://127.0.0.1:8000/mcp/`).
    #[serde(default, skip_serializing_if = "is_rest")]
    pub api: GraphitiApi,
    /// The service's partition for every project not in `projects`: Graphiti's group id, mem0's
    /// entity id (see `mem0_entity`), LightRAG's workspace (`LIGHTRAG-WORKSPACE` header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// Cairn project → the service's partition (group id, entity id or workspace).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub projects: BTreeMap<String, String>,
    /// mem0: which entity id the partition is (`user_id`, `agent_id`, `run_id`).
    #[serde(default = "default_mem0_entity")]
    pub mem0_entity: Mem0Entity,
    /// LightRAG: the retrieval mode.
    #[serde(default = "default_mode")]
    pub mode: LightragMode,
    /// LightRAG: the retrieval mode per Cairn project (others use `mode`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub modes: BTreeMap<String, LightragMode>,
    /// Forward captured turns to the service in the background, with retries (Graphiti `POST
    /// /messages`, mem0 `POST /memories`; not LightRAG).
    #[serde(default)]
    pub write_through: bool,
}

fn yes() -> bool {
    true
}
fn is_rest(api: &GraphitiApi) -> bool {
    *api == GraphitiApi::Rest
}
fn default_timeout_ms() -> u64 {
    800
}
fn default_health_interval_ms() -> u64 {
    30_000
}
fn default_down_after() -> u32 {
    3
}
fn default_max_results() -> usize {
    10
}
fn default_mem0_entity() -> Mem0Entity {
    Mem0Entity::UserId
}
fn default_mode() -> LightragMode {
    LightragMode::Mix
}

impl SourceSettings {
    /// A section of `kind` at `endpoint` with every default.
    pub fn new(kind: Kind, endpoint: impl Into<String>) -> Self {
        SourceSettings {
            kind,
            endpoint: endpoint.into(),
            enabled: yes(),
            audience: Audience::default(),
            timeout_ms: default_timeout_ms(),
            health_interval_ms: default_health_interval_ms(),
            down_after: default_down_after(),
            max_results: default_max_results(),
            secret_env: None,
            auth_header: None,
            login_user: None,
            api: GraphitiApi::Rest,
            partition: None,
            projects: BTreeMap::new(),
            mem0_entity: default_mem0_entity(),
            mode: default_mode(),
            modes: BTreeMap::new(),
            write_through: false,
        }
    }

    /// The header the secret is sent in.
    pub fn auth_header(&self) -> &str {
        self.auth_header.as_deref().unwrap_or(self.kind.default_auth_header())
    }

    /// Checks the section (`name` for messages): a usable endpoint without credentials in it, a
    /// positive timeout, a header name that is one.
    pub fn validate(&self, name: &str) -> Result<(), Error> {
        let bad = |reason: String| Error::Settings { name: name.to_owned(), reason };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(bad("a source name is letters, digits, `-` and `_`".into()));
        }
        let rest = self
            .endpoint
            .strip_prefix("http://")
            .or_else(|| self.endpoint.strip_prefix("https://"))
            .ok_or_else(|| {
            bad(format!("`endpoint` must start with http:// or https:// (got `{}`)", self.endpoint))
        })?;
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.is_empty() {
            return Err(bad("`endpoint` has no host".into()));
        }
        if authority.contains('@') {
            return Err(bad(
                "`endpoint` must not hold credentials: name an environment variable in `secret_env`".into(),
            ));
        }
        if self.timeout_ms == 0 {
            return Err(bad("`timeout_ms` must be at least 1".into()));
        }
        if self.write_through && self.kind == Kind::Lightrag {
            return Err(bad(
                "`write_through` is for graphiti and mem0 (LightRAG ingests documents, not turns)".into(),
            ));
        }
        if self.max_results == 0 {
            return Err(bad("`max_results` must be at least 1".into()));
        }
        if self.api == GraphitiApi::Mcp && self.kind != Kind::Graphiti {
            return Err(bad("`api = \"mcp\"` is for Graphiti only (its MCP server)".into()));
        }
        if let Some(user) = &self.login_user {
            if self.kind != Kind::Lightrag {
                return Err(bad("`login_user` is for LightRAG only (its `POST /login`)".into()));
            }
            if user.trim().is_empty() || self.secret_env.is_none() {
                return Err(
                    bad("`login_user` needs an account name and its password in `secret_env`".into()),
                );
            }
        }
        let header = self.auth_header();
        if header.is_empty() || !header.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(bad(format!("`auth_header` `{header}` is not a header name")));
        }
        Ok(())
    }
}

/// A secret (API key or token) read from the environment by the caller. Shown as `***` by `Debug`;
/// not serialisable, so it cannot reach a receipt, a trace or a status answer.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// One source, ready to open: its settings and, when `secret_env` names one, the secret it holds
/// (`Err` with the variable's name when it is not set).
#[derive(Debug, Clone)]
pub struct SourceConfig {
    /// The name (`[remote.<name>]`).
    pub name: String,
    /// The section.
    pub settings: SourceSettings,
    /// The secret, when `secret_env` is set: `Err(variable)` when the variable is unset or empty.
    pub secret: Option<Result<Secret, String>>,
}

impl SourceConfig {
    /// `settings` under `name`, with the secret looked up by `lookup` (the caller's environment).
    pub fn resolve(name: &str, settings: &SourceSettings, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let secret = settings.secret_env.as_ref().map(|var| match lookup(var) {
            Some(v) if !v.trim().is_empty() => Ok(Secret::new(v.trim())),
            _ => Err(var.clone()),
        });
        SourceConfig { name: name.to_owned(), settings: settings.clone(), secret }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml_text: &str) -> SourceSettings {
        serde_json::from_value(toml_like(toml_text)).unwrap()
    }

    /// The sections are written in TOML; serde_json with the same shape checks the defaults here.
    fn toml_like(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn defaults_are_written_once() {
        let s = parse(r#"{"kind": "graphiti", "endpoint": "http://127.0.0.1:8000"}"#);
        assert_eq!(s, SourceSettings::new(Kind::Graphiti, "http://127.0.0.1:8000"));
        assert_eq!(s.timeout_ms, 800);
        assert_eq!(s.audience, Audience::Private);
        assert_eq!(s.auth_header(), "Authorization");
        assert_eq!(SourceSettings::new(Kind::Mem0, "http://x").auth_header(), "X-API-Key");
    }

    #[test]
    fn bad_sections_are_named() {
        let mut s = SourceSettings::new(Kind::Mem0, "http://user:pw@127.0.0.1:8888");
        let e = s.validate("mem").unwrap_err().to_string();
        assert!(e.contains("remote.mem") && e.contains("credentials"), "{e}");
        assert!(!e.contains("pw"), "{e}");
        s.endpoint = "127.0.0.1:8888".into();
        assert!(s.validate("mem").unwrap_err().to_string().contains("http://"));
        s.endpoint = "http://127.0.0.1:8888".into();
        s.validate("mem").unwrap();
        assert!(s.validate("bad name").is_err());
        s.timeout_ms = 0;
        assert!(s.validate("mem").is_err());
    }

    #[test]
    fn the_secret_comes_from_the_named_variable_and_never_shows() {
        let mut s = SourceSettings::new(Kind::Mem0, "http://x");
        s.secret_env = Some("MEM0_KEY".into());
        let c = SourceConfig::resolve("mem", &s, |v| (v == "MEM0_KEY").then(|| "s3cret".to_owned()));
        assert_eq!(c.secret.as_ref().unwrap().as_ref().unwrap().expose(), "s3cret");
        assert!(!format!("{c:?}").contains("s3cret"));
        let missing = SourceConfig::resolve("mem", &s, |_| None);
        assert_eq!(missing.secret.unwrap().unwrap_err(), "MEM0_KEY");
    }
}
