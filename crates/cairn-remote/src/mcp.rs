//! A small client of MCP's streamable HTTP transport (protocol revision 2025-06-18), enough to call a
//! server's tools: `initialize` and `notifications/initialized` once per session, then `tools/call`,
//! each a `POST` of one JSON-RPC message whose answer is JSON or a stream of server-sent events. The
//! session id the server hands out is sent on every later request; when the server has forgotten it
//! (404), the session is opened again once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{CallError, Http, Raw};

/// The protocol revision asked for.
const PROTOCOL: &str = "2025-06-18";

/// A session with one MCP server.
pub(crate) struct McpClient {
    http: Http,
    /// The session id and the protocol revision the server chose, once initialised.
    session: Mutex<Option<(Option<String>, String)>>,
    next_id: AtomicU64,
}

impl McpClient {
    /// A client of the MCP endpoint `http` points at (the URL the server serves MCP on, `…/mcp`).
    pub(crate) fn new(http: Http) -> McpClient {
        McpClient { http, session: Mutex::new(None), next_id: AtomicU64::new(1) }
    }

    /// Opens a new session (`initialize`, then `notifications/initialized`).
    pub(crate) fn connect(&self, timeout: Duration) -> Result<(), CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let init = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "cairn", "version": env!("CARGO_PKG_VERSION")},
        }});
        let raw =
            self.http.post_raw("", &init, &[("Accept", "application/json, text/event-stream")], timeout)?;
        let session = raw.session.clone();
        let result = response(&raw, id)?;
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL).to_owned();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let mut headers =
            vec![("Accept", "application/json, text/event-stream"), ("MCP-Protocol-Version", &*version)];
        if let Some(s) = &session {
            headers.push(("Mcp-Session-Id", s));
        }
        self.http.post_raw("", &note, &headers, timeout)?;
        *self.session.lock().unwrap_or_else(|e| e.into_inner()) = Some((session, version));
        Ok(())
    }

    /// Calls tool `name` with `arguments`: its structured result, else the JSON of its text.
    pub(crate) fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let fresh = self.session.lock().unwrap_or_else(|e| e.into_inner()).is_none();
        if fresh {
            self.connect(timeout)?;
        }
        match self.try_call(name, &arguments, timeout) {
            // The server forgot the session (restarted, or expired it): open a new one, once.
            Err(CallError::Status { status: 404, .. }) if !fresh => {
                self.connect(timeout)?;
                self.try_call(name, &arguments, timeout)
            }
            other => other,
        }
    }

    fn try_call(&self, name: &str, arguments: &Value, timeout: Duration) -> Result<Value, CallError> {
        let (session, version) =
            self.session.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        let mut headers =
            vec![("Accept", "application/json, text/event-stream"), ("MCP-Protocol-Version", &*version)];
        if let Some(s) = &session {
            headers.push(("Mcp-Session-Id", s));
        }
        let raw = self.http.post_raw("", &call, &headers, timeout)?;
        let result = response(&raw, id)?;
        let text = || {
            result.get("content").and_then(Value::as_array).and_then(|c| {
                c.iter().find_map(|p| (p.get("type")? == "text").then(|| p.get("text")?.as_str()).flatten())
            })
        };
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            let why: String = text().unwrap_or("the tool failed").chars().take(200).collect();
            return Err(CallError::Refused(format!("tool `{name}` failed: {why}")));
        }
        match result.get("structuredContent") {
            Some(v) if v.is_object() => Ok(v.clone()),
            _ => {
                let t = text()
                    .ok_or_else(|| CallError::Malformed(format!("tool `{name}` answered no content")))?;
                serde_json::from_str(t).map_err(|_| {
                    CallError::Malformed(format!("tool `{name}` answered text that is not JSON"))
                })
            }
        }
    }
}

/// The `result` of the JSON-RPC response with `id` in an answer (JSON, or server-sent events whose
/// `data` lines carry messages); a JSON-RPC error is an error with its code and message.
fn response(raw: &Raw, id: u64) -> Result<Value, CallError> {
    let messages: Vec<Value> = if raw.content_type.starts_with("text/event-stream") {
        events(&raw.body).iter().filter_map(|d| serde_json::from_str(d).ok()).collect()
    } else {
        match serde_json::from_str::<Value>(&raw.body) {
            Ok(Value::Array(batch)) => batch,
            Ok(v) => vec![v],
            Err(e) => {
                return Err(CallError::Malformed(format!(
                    "not JSON (line {}, column {})",
                    e.line(),
                    e.column()
                )));
            }
        }
    };
    let m = messages
        .into_iter()
        .find(|m| m.get("id").and_then(Value::as_u64) == Some(id))
        .ok_or_else(|| CallError::Malformed(format!("no response to request {id}")))?;
    if let Some(e) = m.get("error") {
        let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message: String =
            e.get("message").and_then(Value::as_str).unwrap_or("").chars().take(200).collect();
        return Err(CallError::Refused(format!("JSON-RPC error {code}: {message}")));
    }
    m.get("result").cloned().ok_or_else(|| CallError::Malformed(format!("response {id} has no `result`")))
}

/// The data of each event in a server-sent event stream (its `data:` lines joined by newlines).
fn events(stream: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in stream.lines().chain(std::iter::once("")) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if !data.is_empty() {
                out.push(data.join("\n"));
                data.clear();
            }
        } else if let Some(d) = line.strip_prefix("data:") {
            data.push(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_from_their_data_lines() {
        let stream =
            "event: message\r\ndata: {\"a\":1}\r\n\r\n: comment\nevent: message\ndata: {\"b\":\ndata: 2}\n\n";
        assert_eq!(events(stream), ["{\"a\":1}", "{\"b\":\n2}"]);
    }

    #[test]
    fn the_response_with_the_id_is_picked_and_errors_named() {
        let raw = |ct: &str, body: &str| Raw { session: None, content_type: ct.into(), body: body.into() };
        let sse = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n\
                   event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":true}}\n\n";
        assert_eq!(response(&raw("text/event-stream", sse), 7).unwrap(), json!({"ok": true}));
        let err = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params"}}"#;
        assert_eq!(
            response(&raw("application/json", err), 3).unwrap_err().to_string(),
            "refused: JSON-RPC error -32602: Invalid params"
        );
        assert!(response(&raw("application/json", "{}"), 1).is_err());
    }
}
