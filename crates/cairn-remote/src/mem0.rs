//! mem0's REST server (`mem0ai/mem0`, `server/main.py`, `server/routers/`; checked against mem0
//! 2.0): memories per user, agent or run.
//!
//! | Cairn | mem0 |
//! |---|---|
//! | recall | `POST /search` `{"query", "filters": {"user_id" \| "agent_id" \| "run_id": id}, "top_k"}` → `{"results": [{id, memory, score, created_at, ..}]}` (400 without an entity id) |
//! | write-through | `POST /memories` `{"messages": [{role, content}], "user_id" \| "agent_id" \| "run_id": id, "metadata"}` |
//! | health | liveness `GET /openapi.json` (no health route); with a secret configured, readiness by an authenticated `GET /entities` |
//! | auth | `X-API-Key` (or `Authorization: Bearer`) |
//!
//! The entity id is `projects[project]`, else `partition`: a request for a project with neither is
//! not sent (mem0 has no "every user" search). Each memory is a hit `remote:<name>:memory:<id>`,
//! dated by its `created_at`. The service's `score` is not used: relevance is Cairn's own.

use std::time::Duration;

use cairn_core::{CapturedTurn, Hit, SourceQuery};
use serde_json::{Value, json};

use crate::http::{CallError, Http};
use crate::settings::SourceSettings;
use crate::source::{HitMaker, Service, dated, partition_for};

pub(crate) struct Mem0 {
    name: String,
    settings: SourceSettings,
    http: Http,
    /// A secret is configured: the health check also checks that it is accepted.
    authed: bool,
}

impl Mem0 {
    pub(crate) fn new(name: &str, settings: SourceSettings, http: Http, authed: bool) -> Self {
        Mem0 { name: name.to_owned(), settings, http, authed }
    }
}

impl Service for Mem0 {
    fn admit(&self, q: &SourceQuery<'_>) -> Option<String> {
        if q.text.trim().is_empty() {
            return Some("empty query".to_owned());
        }
        match (partition_for(&self.settings, q.scope), &q.scope.project) {
            (Some(_), _) => None,
            (None, Some(p)) => Some(format!("no {} for project `{p}`", self.settings.mem0_entity.as_str())),
            (None, None) => {
                Some(format!("no {} configured (`partition`)", self.settings.mem0_entity.as_str()))
            }
        }
    }

    fn search(&self, q: &SourceQuery<'_>, k: usize, timeout: Duration) -> Result<Vec<Hit>, CallError> {
        let s = &self.settings;
        let mut filters = serde_json::Map::new();
        if let Some(id) = partition_for(s, q.scope) {
            filters.insert(s.mem0_entity.as_str().to_owned(), json!(id));
        }
        let body = json!({"query": q.text, "filters": filters, "top_k": k});
        let answer = self.http.post("/search", &body, &[], timeout)?;
        // mem0 answers `{"results": [..]}`; servers before 1.0 answered the list itself.
        let results = match &answer {
            Value::Array(a) => a,
            other => other
                .get("results")
                .and_then(Value::as_array)
                .ok_or_else(|| CallError::Malformed("expected {\"results\": [..]}".into()))?,
        };
        let maker = HitMaker { source: &self.name, audience: s.audience, scope: q.scope };
        let mut out = Vec::new();
        for r in results.iter().take(k) {
            let id = match r.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return Err(CallError::Malformed("a memory without `id`".into())),
            };
            let memory = r
                .get("memory")
                .and_then(Value::as_str)
                .ok_or_else(|| CallError::Malformed("a memory without `memory`".into()))?;
            if memory.trim().is_empty() {
                continue;
            }
            let created = dated(r.get("created_at").and_then(Value::as_str));
            out.push(maker.hit("memory", &id, "memory".to_owned(), memory.trim().to_owned(), created));
        }
        Ok(out)
    }

    fn forward(&self, turn: &CapturedTurn, timeout: Duration) -> Result<(), String> {
        let scope = cairn_core::Scope::owner(Some(turn.project.clone()));
        let entity = self.settings.mem0_entity.as_str();
        let id = partition_for(&self.settings, &scope)
            .ok_or_else(|| format!("no {entity} for project `{}`", turn.project))?;
        let messages: Vec<Value> = [("user", &turn.user), ("assistant", &turn.assistant)]
            .into_iter()
            .filter(|(_, text)| !text.trim().is_empty())
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        let mut body =
            json!({"messages": messages, "metadata": {"source": "cairn", "session_key": turn.session_key}});
        body[entity] = json!(id);
        self.http.post("/memories", &body, &[], timeout).map(|_| ()).map_err(|e| e.to_string())
    }

    fn probe(&self, timeout: Duration) -> Result<(), CallError> {
        let spec = self.http.get("/openapi.json", timeout, false)?;
        if spec.get("paths").and_then(|p| p.get("/search")).is_none() {
            return Err(CallError::Malformed("`/openapi.json` lists no `/search`: not a mem0 server".into()));
        }
        if self.authed {
            let entities = self.http.get("/entities", timeout, true)?;
            if !entities.is_array() {
                return Err(CallError::Malformed("`/entities` is not a list".into()));
            }
        }
        Ok(())
    }
}
