//! LightRAG's server (`HKUDS/LightRAG`, `lightrag/api/routers/query_routes.py`; checked against the
//! API with `/query/data`, server API 0205 and later): retrieval from a document knowledge graph
//! without generating an answer.
//!
//! | Cairn | LightRAG |
//! |---|---|
//! | recall | `POST /query/data` `{"query", "mode", "top_k", "chunk_top_k", "hl_keywords", "ll_keywords"}` → `{"status", "message", "data": {"entities", "relationships", "chunks", "references"}, "metadata"}` |
//! | health | `GET /health` → `{"status": "healthy", ..}` |
//! | project | the `LIGHTRAG-WORKSPACE` header (`projects[project]`, else `partition`, else none: the server's default workspace) |
//!
//! Cairn passes the prompt's own content words as keywords (`ll_keywords` each word, `hl_keywords`
//! the words as one phrase): with keywords given, LightRAG skips the model call it otherwise makes
//! to extract them, so a turn costs it retrieval only. A prompt without content words, or shorter
//! than LightRAG's minimum (3, a CJK character counting 2: shorter ones get 422), is not sent.
//! Entities, relations and chunks become hits `remote:<name>:entity:<name>`,
//! `remote:<name>:relation:<src>→<tgt>` and `remote:<name>:chunk:<id>`, taken in turn from the three
//! lists.

use std::time::Duration;

use cairn_core::{CapturedTurn, Hit, SourceQuery, UNDATED};
use serde_json::{Value, json};

use crate::http::{CallError, Http};
use crate::settings::SourceSettings;
use crate::source::{HitMaker, Service, partition_for};

/// LightRAG's least query weight for retrieval modes (`MIN_RAG_QUERY_WEIGHT`).
const MIN_QUERY_WEIGHT: usize = 3;
/// Keywords sent per list, and characters per keyword.
const MAX_KEYWORDS: usize = 16;
const MAX_KEYWORD_CHARS: usize = 100;

pub(crate) struct Lightrag {
    name: String,
    settings: SourceSettings,
    http: Http,
}

/// The weight LightRAG gives a query: one per character, two per CJK character.
fn query_weight(q: &str) -> usize {
    q.trim()
        .chars()
        .map(|c| {
            let wide = matches!(c as u32, 0x1100..=0x11FF | 0x2E80..=0xA4CF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFF60 | 0x20000..=0x3FFFD);
            if wide { 2 } else { 1 }
        })
        .sum()
}

/// LightRAG's `(hl_keywords, ll_keywords)` for a prompt's content words.
fn keywords(words: &[String]) -> (Vec<String>, Vec<String>) {
    let ll: Vec<String> =
        words.iter().filter(|w| w.chars().count() <= MAX_KEYWORD_CHARS).take(MAX_KEYWORDS).cloned().collect();
    let mut phrase = String::new();
    for w in &ll {
        if phrase.chars().count() + w.chars().count() + 1 > MAX_KEYWORD_CHARS {
            break;
        }
        if !phrase.is_empty() {
            phrase.push(' ');
        }
        phrase.push_str(w);
    }
    let hl = if phrase.is_empty() { Vec::new() } else { vec![phrase] };
    (hl, ll)
}

impl Lightrag {
    pub(crate) fn new(name: &str, settings: SourceSettings, http: Http) -> Self {
        Lightrag { name: name.to_owned(), settings, http }
    }

    fn array<'a>(data: &'a Value, key: &str) -> Result<&'a [Value], CallError> {
        match data.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(_) => Err(CallError::Malformed(format!("`data.{key}` is not a list"))),
        }
    }
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().trim().to_owned()
}

impl Service for Lightrag {
    fn admit(&self, q: &SourceQuery<'_>) -> Option<String> {
        if query_weight(q.text) < MIN_QUERY_WEIGHT {
            return Some(format!("query shorter than LightRAG's minimum ({MIN_QUERY_WEIGHT} characters)"));
        }
        if q.keywords.is_empty() {
            return Some("no content words in the query to pass as keywords".to_owned());
        }
        None
    }

    fn search(&self, q: &SourceQuery<'_>, k: usize, timeout: Duration) -> Result<Vec<Hit>, CallError> {
        let s = &self.settings;
        let configured = q.scope.project.as_ref().and_then(|p| s.modes.get(p)).copied().unwrap_or(s.mode);
        // A mode asked for by name (a tool's argument), else the configured one.
        let mode = q.mode.and_then(|m| serde_json::from_value(json!(m)).ok()).unwrap_or(configured);
        let (hl, ll) = keywords(q.keywords);
        let body = json!({
            "query": q.text,
            "mode": mode.as_str(),
            "top_k": k,
            "chunk_top_k": k,
            "hl_keywords": hl,
            "ll_keywords": ll,
        });
        let workspace = partition_for(s, q.scope);
        let headers: Vec<(&str, &str)> = workspace.map(|w| ("LIGHTRAG-WORKSPACE", w)).into_iter().collect();
        let answer = self.http.post("/query/data", &body, &headers, timeout)?;
        match answer.get("status").and_then(Value::as_str) {
            Some("success") => {}
            Some(other) => {
                let message = answer.get("message").and_then(Value::as_str).unwrap_or_default();
                let message: String = message.chars().take(200).collect();
                return Err(CallError::Malformed(format!("status `{other}`: {message}")));
            }
            None => return Err(CallError::Malformed("expected {\"status\", \"data\": {..}}".into())),
        }
        let data = answer.get("data").ok_or_else(|| CallError::Malformed("no `data`".into()))?;
        let maker = HitMaker { source: &self.name, audience: s.audience, scope: q.scope };
        let entities = Self::array(data, "entities")?.iter().filter_map(|e| {
            let name = text_of(e, "entity_name");
            let description = text_of(e, "description");
            if name.is_empty() || description.is_empty() {
                return None;
            }
            let kind = text_of(e, "entity_type");
            let title =
                if kind.is_empty() { name.clone() } else { format!("{name} ({})", kind.to_lowercase()) };
            Some(maker.hit("entity", &name, title, description, UNDATED))
        });
        let relations = Self::array(data, "relationships")?.iter().filter_map(|r| {
            let (src, tgt) = (text_of(r, "src_id"), text_of(r, "tgt_id"));
            let description = text_of(r, "description");
            if src.is_empty() || tgt.is_empty() || description.is_empty() {
                return None;
            }
            let title = format!("{src} → {tgt}");
            Some(maker.hit("relation", &format!("{src}→{tgt}"), title, description, UNDATED))
        });
        let chunks = Self::array(data, "chunks")?.iter().enumerate().filter_map(|(i, c)| {
            let content = text_of(c, "content");
            if content.is_empty() {
                return None;
            }
            let id = text_of(c, "chunk_id");
            let id = if id.is_empty() { format!("{i}") } else { id };
            let path = text_of(c, "file_path");
            let title = path.rsplit('/').next().filter(|t| !t.is_empty()).unwrap_or("document").to_owned();
            Some(maker.hit("chunk", &id, title, content, UNDATED))
        });
        // In turn from the three lists, so that each kind has its share of `k`.
        let mut lists: Vec<Box<dyn Iterator<Item = Hit>>> =
            vec![Box::new(entities), Box::new(relations), Box::new(chunks)];
        let mut out = Vec::new();
        while out.len() < k {
            let before = out.len();
            for list in &mut lists {
                if out.len() < k
                    && let Some(h) = list.next()
                {
                    out.push(h);
                }
            }
            if out.len() == before {
                break;
            }
        }
        Ok(out)
    }

    fn forward(&self, _turn: &CapturedTurn, _timeout: Duration) -> Result<(), String> {
        Err("LightRAG takes documents, not turns".to_owned())
    }

    fn probe(&self, timeout: Duration) -> Result<(), CallError> {
        let answer = self.http.get("/health", timeout, true)?;
        match answer.get("status").and_then(Value::as_str) {
            Some("healthy") => Ok(()),
            _ => Err(CallError::Malformed("`/health` did not say {\"status\": \"healthy\"}".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_queries_weigh_as_lightrag_counts() {
        assert_eq!(query_weight(" ab "), 2);
        assert_eq!(query_weight("abc"), 3);
        assert_eq!(query_weight("故宫"), 4);
    }

    #[test]
    fn keywords_are_the_content_words() {
        let words: Vec<String> = ["acme", "contract", "renewal"].map(String::from).to_vec();
        let (hl, ll) = keywords(&words);
        assert_eq!(hl, ["acme contract renewal"]);
        assert_eq!(ll, words);
        let many: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
        let (hl, ll) = keywords(&many);
        assert_eq!(ll.len(), MAX_KEYWORDS);
        assert!(hl[0].chars().count() <= MAX_KEYWORD_CHARS);
        assert_eq!(keywords(&[]), (vec![], vec![]));
    }
}
