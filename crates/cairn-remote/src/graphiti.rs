//! Graphiti's REST server (`getzep/graphiti`, `server/graph_service`; checked against graph-service
//! 0.1.0 over graphiti-core 0.28–0.29): temporal facts (the edges of its knowledge graph) by hybrid
//! search.
//!
//! | Cairn | Graphiti |
//! |---|---|
//! | recall | `POST /search` `{"group_ids": [..] \| null, "query", "max_facts"}` → `{"facts": [FactResult]}` |
//! | health | `GET /healthcheck` → `{"status": "healthy"}` |
//! | write-through | `POST /messages` `{"group_id", "messages": [{content, role_type, role, timestamp, name, source_description}]}` → 202 |
//!
//! Or its MCP server (`mcp_server/`, streamable HTTP; `api = "mcp"`, the endpoint its MCP URL, e.g.
//! `http://127.0.0.1:8000/mcp/`): recall is the tool `search_memory_facts` `{"query", "group_ids",
//! "max_facts"}` → `{"message", "facts": [..]}` (the same facts), write-through `add_memory` (one
//! `message` episode per turn), health an MCP session opened.
//!
//! A project's group is `projects[project]`, else `partition`, else the project's own name; a
//! request over every project searches `partition` and the mapped groups, or every group when
//! neither is set. Each fact is a hit `remote:<name>:fact:<uuid>`: its text, and when it held (its
//! `valid_at`, and `invalid_at` once it stopped holding), dated by `valid_at`.

use std::time::Duration;

use cairn_core::{CapturedTurn, Hit, SourceQuery};
use serde_json::{Value, json};

use crate::http::{CallError, Http};
use crate::mcp::McpClient;
use crate::settings::SourceSettings;
use crate::source::{HitMaker, Service, dated, day, parse_time};

pub(crate) struct Graphiti {
    name: String,
    settings: SourceSettings,
    api: Api,
}

/// Which of Graphiti's servers answers.
enum Api {
    /// Its REST server.
    Rest(Http),
    /// Its MCP server.
    Mcp(McpClient),
}

impl Graphiti {
    /// Graphiti's REST server at `http`'s base URL.
    pub(crate) fn new(name: &str, settings: SourceSettings, http: Http) -> Self {
        Graphiti { name: name.to_owned(), settings, api: Api::Rest(http) }
    }

    /// Graphiti's MCP server at `http`'s base URL (its MCP endpoint).
    pub(crate) fn mcp(name: &str, settings: SourceSettings, http: Http) -> Self {
        Graphiti { name: name.to_owned(), settings, api: Api::Mcp(McpClient::new(http)) }
    }

    /// The facts `search_memory_facts` answered (`{"facts": [..]}`, or `{"error"}`).
    fn mcp_facts(answer: &Value) -> Result<&Vec<Value>, CallError> {
        if let Some(e) = answer.get("error").and_then(Value::as_str) {
            let e: String = e.chars().take(200).collect();
            return Err(CallError::Refused(format!("search_memory_facts: {e}")));
        }
        answer
            .get("facts")
            .and_then(Value::as_array)
            .ok_or_else(|| CallError::Malformed("expected {\"facts\": [..]} from search_memory_facts".into()))
    }

    /// The `group_ids` of a search in `project` (`None`: every group).
    fn group_ids(&self, project: Option<&str>) -> Option<Vec<String>> {
        let s = &self.settings;
        match project {
            Some(p) => Some(vec![
                s.projects.get(p).or(s.partition.as_ref()).cloned().unwrap_or_else(|| p.to_owned()),
            ]),
            None => {
                let mut ids: Vec<String> = s.partition.iter().chain(s.projects.values()).cloned().collect();
                ids.sort();
                ids.dedup();
                (!ids.is_empty()).then_some(ids)
            }
        }
    }

    /// The group a captured turn of `project` is written to.
    fn group_for(&self, project: &str) -> String {
        self.group_ids(Some(project)).and_then(|g| g.into_iter().next()).unwrap_or_else(|| project.to_owned())
    }

    fn fact_hit(&self, maker: &HitMaker<'_>, fact: &Value) -> Result<Hit, CallError> {
        let field = |k: &str| fact.get(k).and_then(Value::as_str);
        let uuid = field("uuid").ok_or_else(|| CallError::Malformed("a fact without `uuid`".into()))?;
        let text = field("fact").ok_or_else(|| CallError::Malformed("a fact without `fact`".into()))?;
        let valid = field("valid_at");
        let invalid = field("invalid_at").and_then(parse_time);
        let mut body = text.trim().to_owned();
        match (valid.and_then(parse_time), invalid) {
            (Some(from), Some(to)) => body.push_str(&format!("\n(valid {} to {})", day(from), day(to))),
            (Some(from), None) => body.push_str(&format!("\n(valid since {})", day(from))),
            (None, Some(to)) => body.push_str(&format!("\n(no longer valid since {})", day(to))),
            (None, None) => {}
        }
        let created = dated(valid.or(field("created_at")));
        let title = match field("name").map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => n.replace('_', " ").to_lowercase(),
            None => "fact".to_owned(),
        };
        Ok(maker.hit("fact", uuid, title, body, created))
    }
}

impl Service for Graphiti {
    fn admit(&self, q: &SourceQuery<'_>) -> Option<String> {
        q.text.trim().is_empty().then(|| "empty query".to_owned())
    }

    fn search(&self, q: &SourceQuery<'_>, k: usize, timeout: Duration) -> Result<Vec<Hit>, CallError> {
        let body = json!({
            "group_ids": self.group_ids(q.scope.project.as_deref()),
            "query": q.text,
            "max_facts": k,
        });
        let answer = match &self.api {
            Api::Rest(http) => http.post("/search", &body, &[], timeout)?,
            Api::Mcp(mcp) => mcp.call_tool("search_memory_facts", body, timeout)?,
        };
        let facts = match &self.api {
            Api::Rest(_) => answer
                .get("facts")
                .and_then(Value::as_array)
                .ok_or_else(|| CallError::Malformed("expected {\"facts\": [..]}".into()))?,
            Api::Mcp(_) => Self::mcp_facts(&answer)?,
        };
        let maker = HitMaker { source: &self.name, audience: self.settings.audience, scope: q.scope };
        facts.iter().take(k).map(|f| self.fact_hit(&maker, f)).collect()
    }

    fn forward(&self, turn: &CapturedTurn, timeout: Duration) -> Result<(), String> {
        let at = jiff::Timestamp::from_millisecond(turn.at).map(|t| t.to_string()).unwrap_or_default();
        let http = match &self.api {
            Api::Rest(http) => http,
            Api::Mcp(mcp) => {
                let body: Vec<String> = [("user", &turn.user), ("assistant", &turn.assistant)]
                    .into_iter()
                    .filter(|(_, text)| !text.trim().is_empty())
                    .map(|(role, text)| format!("{role}: {text}"))
                    .collect();
                let args = json!({
                    "name": format!("cairn turn {}", turn.session_key),
                    "episode_body": body.join("\n"),
                    "group_id": self.group_for(&turn.project),
                    "source": "message",
                    "source_description": format!("cairn capture of {}", turn.session_key),
                    "reference_time": at,
                });
                let answer = mcp.call_tool("add_memory", args, timeout).map_err(|e| e.to_string())?;
                return match answer.get("error").and_then(Value::as_str) {
                    Some(e) => Err(format!("add_memory: {}", e.chars().take(200).collect::<String>())),
                    None => Ok(()),
                };
            }
        };
        let messages: Vec<Value> = [("user", &turn.user), ("assistant", &turn.assistant)]
            .into_iter()
            .filter(|(_, text)| !text.trim().is_empty())
            .map(|(role, content)| {
                json!({"content": content, "role_type": role, "role": null, "timestamp": at,
                       "name": "", "source_description": format!("cairn capture of {}", turn.session_key)})
            })
            .collect();
        let body = json!({"group_id": self.group_for(&turn.project), "messages": messages});
        http.post("/messages", &body, &[], timeout).map(|_| ()).map_err(|e| e.to_string())
    }

    fn probe(&self, timeout: Duration) -> Result<(), CallError> {
        let http = match &self.api {
            Api::Rest(http) => http,
            // A session opened is a server that speaks MCP and answers.
            Api::Mcp(mcp) => return mcp.connect(timeout),
        };
        let answer = http.get("/healthcheck", timeout, true)?;
        match answer.get("status").and_then(Value::as_str) {
            Some("healthy") => Ok(()),
            _ => Err(CallError::Malformed("`/healthcheck` did not say {\"status\": \"healthy\"}".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Kind;

    fn graphiti(settings: SourceSettings) -> Graphiti {
        Graphiti::new("g", settings, Http::new("http://127.0.0.1:1", "Authorization", None))
    }

    #[test]
    fn groups_follow_the_project() {
        let mut s = SourceSettings::new(Kind::Graphiti, "http://x");
        assert_eq!(graphiti(s.clone()).group_ids(Some("work")), Some(vec!["work".to_owned()]));
        assert_eq!(graphiti(s.clone()).group_ids(None), None);
        s.projects.insert("work".into(), "g-work".into());
        s.projects.insert("home".into(), "g-home".into());
        let g = graphiti(s.clone());
        assert_eq!(g.group_ids(Some("work")), Some(vec!["g-work".to_owned()]));
        assert_eq!(g.group_ids(None), Some(vec!["g-home".to_owned(), "g-work".to_owned()]));
        s.partition = Some("main".into());
        assert_eq!(graphiti(s).group_ids(Some("other")), Some(vec!["main".to_owned()]));
    }

    #[test]
    fn a_fact_shows_when_it_held() {
        let g = graphiti(SourceSettings::new(Kind::Graphiti, "http://x"));
        let scope = cairn_core::Scope::owner(None);
        let maker = HitMaker { source: "g", audience: cairn_core::Audience::Private, scope: &scope };
        let fact = json!({"uuid": "u1", "name": "WORKS_AT", "fact": "Alice works at Acme",
            "valid_at": "2026-01-05T00:00:00Z", "invalid_at": "2026-03-01T00:00:00+00:00",
            "created_at": "2026-01-06T00:00:00Z", "expired_at": null,
            "source_node_uuid": "a", "target_node_uuid": "b", "episodes": []});
        let h = g.fact_hit(&maker, &fact).unwrap();
        assert_eq!(h.chunk_id, "remote:g:fact:u1");
        assert_eq!(h.provenance.display(), "remote:g:fact:u1");
        assert_eq!(h.title, "works at");
        assert_eq!(h.text, "Alice works at Acme\n(valid 2026-01-05 to 2026-03-01)");
        assert_eq!(day(h.created_at), "2026-01-05");
        let bad = json!({"name": "X", "fact": "no id"});
        assert!(g.fact_hit(&maker, &bad).is_err());
    }
}
