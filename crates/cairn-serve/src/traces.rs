//! The last turns each session was served, for the turn inspector (`GET /v1/sessions/{key}/turns`):
//! per turn its time, the session's classification, the routing decision, the token count and the
//! trace with its receipt. Redaction-safe by default: neither the prompt nor the injected block is kept,
//! only ids, scores, reasons and what the receipt already shows; `serve.trace_blocks` keeps the block
//! too. In memory only; a restart starts empty.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use cairn_engine::TurnResponse;
use serde_json::{Value, json};

/// Sessions remembered at most; the one served longest ago is dropped first.
const MAX_SESSIONS: usize = 512;

/// The last turns of each session.
#[derive(Debug)]
pub struct TurnLog {
    /// Turns kept per session (0: none).
    per_session: usize,
    /// Whether each turn's injected block is kept.
    blocks: bool,
    inner: Mutex<Sessions>,
}

#[derive(Debug, Default)]
struct Sessions {
    turns: HashMap<String, VecDeque<Value>>,
    /// Session keys, the one served longest ago first.
    order: VecDeque<String>,
}

impl TurnLog {
    /// A log keeping `per_session` turns of each session, with their injected blocks when `blocks`.
    pub fn new(per_session: usize, blocks: bool) -> TurnLog {
        TurnLog { per_session, blocks, inner: Mutex::new(Sessions::default()) }
    }

    /// Keeps what `session_key` was served (its oldest turn goes beyond `per_session`).
    pub fn record(&self, session_key: &str, at_ms: i64, resp: &TurnResponse) {
        if self.per_session == 0 {
            return;
        }
        let mut entry = json!({
            "at_ms": at_ms,
            "session": resp.session,
            "intent": resp.intent,
            "fallback": resp.fallback,
            "tokens": resp.tokens,
            "trace": resp.trace,
        });
        if self.blocks {
            entry["block"] = Value::String(resp.prepend_context.clone());
        }
        let mut s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = s.order.iter().position(|k| k == session_key) {
            s.order.remove(i);
        } else if s.order.len() >= MAX_SESSIONS
            && let Some(old) = s.order.pop_front()
        {
            s.turns.remove(&old);
        }
        s.order.push_back(session_key.to_owned());
        let turns = s.turns.entry(session_key.to_owned()).or_default();
        turns.push_back(entry);
        while turns.len() > self.per_session {
            turns.pop_front();
        }
    }

    /// The turns kept for `session_key`, oldest first.
    pub fn turns(&self, session_key: &str) -> Vec<Value> {
        let s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        s.turns.get(session_key).map(|t| t.iter().cloned().collect()).unwrap_or_default()
    }
}
