//! The HTTP side every client shares: one keep-alive `ureq` agent per source, the secret in its
//! header, a time limit per call, JSON in and out, and failures sorted by what they mean (too slow,
//! unreachable, refused, answered wrongly). Error messages never quote the secret, the query or the
//! service's stored text: only status codes, FastAPI's validation messages and the field they name.

use std::time::Duration;

use serde_json::Value;

use crate::login::Login;
use crate::settings::Secret;

/// Largest answer read, in bytes.
const MAX_BODY: u64 = 4 << 20;
/// How much of an error message is kept, in characters.
const EXCERPT: usize = 200;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// No answer within the time limit (milliseconds).
    Timeout(u64),
    /// No connection (refused, no route, no such host).
    Unreachable(String),
    /// An answer with an error status; `detail` is the service's message, without echoed input.
    Status { status: u16, detail: String },
    /// A 2xx answer that is not what the API documents.
    Malformed(String),
    /// A well-formed answer saying the request failed (an MCP tool's or a JSON-RPC error).
    Refused(String),
}

impl CallError {
    pub(crate) fn is_timeout(&self) -> bool {
        matches!(self, CallError::Timeout(_))
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout(ms) => write!(f, "timeout {ms} ms"),
            CallError::Unreachable(why) => write!(f, "unreachable: {why}"),
            CallError::Status { status: status @ (401 | 403), detail } => {
                write!(f, "HTTP {status}: credentials rejected")?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                Ok(())
            }
            CallError::Status { status, detail } if detail.is_empty() => write!(f, "HTTP {status}"),
            CallError::Status { status, detail } => write!(f, "HTTP {status}: {detail}"),
            CallError::Malformed(why) => write!(f, "malformed answer: {why}"),
            CallError::Refused(why) => write!(f, "refused: {why}"),
        }
    }
}

/// What a request sent gives back.
type Answer = Result<ureq::http::Response<ureq::Body>, ureq::Error>;

/// An answer read whole, unparsed ([`Http::post_raw`]).
pub(crate) struct Raw {
    /// Its `Mcp-Session-Id` header.
    pub(crate) session: Option<String>,
    /// Its `Content-Type`.
    pub(crate) content_type: String,
    /// Its body.
    pub(crate) body: String,
}

/// A service's base URL, its agent and its credentials.
pub(crate) struct Http {
    base: String,
    agent: ureq::Agent,
    /// Header name and value (`Bearer <secret>` for `Authorization`).
    auth: Option<(String, Secret)>,
    /// The secret as sent, to scrub from anything quoted back.
    secret: Option<Secret>,
    /// An account to log in with instead (LightRAG's `POST /login`), its token sent as a bearer.
    login: Option<Login>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("base", &self.base)
            .field("auth", &self.auth.is_some())
            .field("login", &self.login.as_ref().map(|l| &l.user))
            .finish()
    }
}

impl Http {
    /// A client of `endpoint`, sending `secret` in `header` when given.
    pub(crate) fn new(endpoint: &str, header: &str, secret: Option<Secret>) -> Http {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let auth = secret.as_ref().map(|s| {
            let value = if header.eq_ignore_ascii_case("authorization") {
                format!("Bearer {}", s.expose())
            } else {
                s.expose().to_owned()
            };
            (header.to_owned(), Secret::new(value))
        });
        Http { base: endpoint.trim_end_matches('/').to_owned(), agent, auth, secret, login: None }
    }

    /// A client of `endpoint` that logs in as `user` with `password` (`POST /login`) and sends the
    /// token it gets as a bearer, logging in again when it is about to expire or refused.
    pub(crate) fn with_login(endpoint: &str, user: &str, password: Secret) -> Http {
        let mut http = Http::new(endpoint, "Authorization", None);
        http.secret = Some(password.clone());
        http.login = Some(Login::new(user, password));
        http
    }

    /// `GET path`, parsed as JSON; `authed`: with the credentials.
    pub(crate) fn get(&self, path: &str, timeout: Duration, authed: bool) -> Result<Value, CallError> {
        let send = |auth: Option<(&str, &str)>| {
            let mut req = self.agent.get(format!("{}{path}", self.base));
            if let Some((h, v)) = auth {
                req = req.header(h, v);
            }
            req.config().timeout_global(Some(timeout)).build().call()
        };
        self.call(timeout, authed, send, Self::answer)
    }

    /// `POST path` with a JSON `body` and extra `headers`, parsed as JSON (an empty 2xx body is
    /// `null`).
    pub(crate) fn post(
        &self,
        path: &str,
        body: &Value,
        headers: &[(&str, &str)],
        timeout: Duration,
    ) -> Result<Value, CallError> {
        self.post_with(path, body, headers, timeout, Self::answer)
    }

    /// `POST path` with a JSON `body` and extra `headers`, its answer read whole but not parsed: for a
    /// protocol that may answer a stream of events (MCP's streamable HTTP). An error status is an error.
    pub(crate) fn post_raw(
        &self,
        path: &str,
        body: &Value,
        headers: &[(&str, &str)],
        timeout: Duration,
    ) -> Result<Raw, CallError> {
        self.post_with(path, body, headers, timeout, Self::read)
    }

    fn post_with<T>(
        &self,
        path: &str,
        body: &Value,
        headers: &[(&str, &str)],
        timeout: Duration,
        read: impl Fn(&Self, Answer, Duration) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let bytes = serde_json::to_vec(body).map_err(|e| CallError::Malformed(format!("request: {e}")))?;
        let send = |auth: Option<(&str, &str)>| {
            let mut req =
                self.agent.post(format!("{}{path}", self.base)).header("Content-Type", "application/json");
            if let Some((h, v)) = auth {
                req = req.header(h, v);
            }
            for (h, v) in headers {
                req = req.header(*h, *v);
            }
            req.config().timeout_global(Some(timeout)).build().send(&bytes[..])
        };
        self.call(timeout, true, send, read)
    }

    /// Sends what `send` builds, with the credentials when `authed` (`send` gets the header to add):
    /// the static secret, or a login's token, fetched first when none is held and fetched again once
    /// when the service answers 401; `read` reads the answer.
    fn call<T>(
        &self,
        timeout: Duration,
        authed: bool,
        send: impl Fn(Option<(&str, &str)>) -> Answer,
        read: impl Fn(&Self, Answer, Duration) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let Some(login) = self.login.as_ref().filter(|_| authed) else {
            let auth = self.auth.as_ref().filter(|_| authed).map(|(h, v)| (h.as_str(), v.expose()));
            return read(self, send(auth), timeout);
        };
        let fresh = login.current().is_none();
        let token = match login.current() {
            Some(t) => t,
            None => self.log_in(login, timeout)?,
        };
        let bearer = format!("Bearer {}", token.expose());
        match read(self, send(Some(("Authorization", &bearer))), timeout) {
            Err(CallError::Status { status: 401, .. }) if !fresh => {
                login.forget();
                let token = self.log_in(login, timeout)?;
                let bearer = format!("Bearer {}", token.expose());
                read(self, send(Some(("Authorization", &bearer))), timeout)
            }
            other => other,
        }
    }

    /// `POST /login` with the account's name and password as an OAuth2 password form.
    fn log_in(&self, login: &Login, timeout: Duration) -> Result<Secret, CallError> {
        let resp = self
            .agent
            .post(format!("{}/login", self.base))
            .config()
            .timeout_global(Some(timeout))
            .build()
            .send_form([
                ("grant_type", "password"),
                ("username", login.user.as_str()),
                ("password", login.password.expose()),
            ]);
        let answer = self.answer(resp, timeout).map_err(|e| match e {
            CallError::Status { status, detail } => {
                let at = format!("`/login` as `{}`", login.user);
                let detail = if detail.is_empty() { at } else { format!("{at}: {detail}") };
                CallError::Status { status, detail }
            }
            other => other,
        })?;
        login.accept(&answer)
    }

    /// An answer parsed as JSON (an empty 2xx body is `null`).
    fn answer(&self, resp: Answer, timeout: Duration) -> Result<Value, CallError> {
        let text = self.read(resp, timeout)?.body;
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        // The body's own text is never quoted: it may hold what the service stores.
        serde_json::from_str(&text)
            .map_err(|e| CallError::Malformed(format!("not JSON (line {}, column {})", e.line(), e.column())))
    }

    /// An answer read whole (at most [`MAX_BODY`]); an error status is an error with the service's
    /// message.
    fn read(&self, resp: Answer, timeout: Duration) -> Result<Raw, CallError> {
        let ms = timeout.as_millis() as u64;
        let mut resp = resp.map_err(|e| self.transport(e, ms))?;
        let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (session, content_type) = (header("mcp-session-id"), header("content-type").unwrap_or_default());
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| self.transport(e, ms))?;
        if !(200..300).contains(&status) {
            return Err(CallError::Status { status, detail: self.scrub(&detail_of(&body)) });
        }
        Ok(Raw { session, content_type, body })
    }

    fn transport(&self, e: ureq::Error, ms: u64) -> CallError {
        match e {
            ureq::Error::Timeout(_) => CallError::Timeout(ms),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => CallError::Timeout(ms),
            ureq::Error::Io(io) => CallError::Unreachable(self.scrub(&io.kind().to_string())),
            ureq::Error::HostNotFound => CallError::Unreachable("host not found".into()),
            ureq::Error::ConnectionFailed => CallError::Unreachable("connection failed".into()),
            other => CallError::Unreachable(self.scrub(&prefix(&other.to_string()))),
        }
    }

    /// `text` with the secret (should a service echo it) replaced.
    fn scrub(&self, text: &str) -> String {
        match &self.secret {
            Some(s) if !s.expose().is_empty() => text.replace(s.expose(), "***"),
            _ => text.to_owned(),
        }
    }
}

/// The message of an error answer: FastAPI's `detail` (a string, or validation errors reduced to
/// `field: message`, never the `input` they echo), else nothing.
fn detail_of(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(body) else { return String::new() };
    let out = match v.get("detail") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(errors)) => errors
            .iter()
            .map(|e| {
                let loc: Vec<String> = e
                    .get("loc")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter(|p| p.as_str() != Some("body"))
                            .map(|p| match p {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let msg = e.get("msg").and_then(Value::as_str).unwrap_or("invalid");
                if loc.is_empty() { msg.to_owned() } else { format!("{}: {msg}", loc.join(".")) }
            })
            .collect::<Vec<_>>()
            .join("; "),
        _ => String::new(),
    };
    prefix(&out)
}

fn prefix(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(EXCERPT) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_errors_keep_field_and_message_only() {
        let body = r#"{"detail":[{"type":"missing","loc":["body","query"],"msg":"Field required","input":{"secret prompt":1}}]}"#;
        assert_eq!(detail_of(body), "query: Field required");
        assert_eq!(detail_of(r#"{"detail":"Invalid API key."}"#), "Invalid API key.");
        assert_eq!(detail_of("<html>oops</html>"), "");
    }

    #[test]
    fn messages_say_what_happened() {
        assert_eq!(CallError::Timeout(800).to_string(), "timeout 800 ms");
        assert_eq!(
            CallError::Status { status: 403, detail: "Invalid API Key".into() }.to_string(),
            "HTTP 403: credentials rejected (Invalid API Key)"
        );
        assert_eq!(CallError::Status { status: 500, detail: String::new() }.to_string(), "HTTP 500");
    }

    #[test]
    fn a_secret_echoed_back_is_scrubbed() {
        let http = Http::new("http://127.0.0.1:1/", "X-API-Key", Some(Secret::new("s3cret")));
        assert_eq!(http.scrub("bad key s3cret"), "bad key ***");
        assert_eq!(http.base, "http://127.0.0.1:1");
        assert!(!format!("{http:?}").contains("s3cret"));
    }
}
