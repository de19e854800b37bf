//! The closed HTTP surface, checked before any handler runs: a request that a web page in the user's
//! browser could send (a cross-site form post, a `fetch` from another origin, a DNS-rebound host name)
//! is refused before it can read or write memory.
//!
//! - `Host` must name a loopback host (`localhost`, `127.x.y.z`, `[::1]`), the address the daemon
//!   listens on, or one of `serve.allowed_hosts`: a page whose host name was rebound to 127.0.0.1 still
//!   sends its own name, and gets 403. (On a Unix socket, which no browser reaches, any name.)
//! - A request carrying an `Origin` header (every browser `POST`, and every cross-origin `fetch`) is
//!   refused unless the origin is the daemon's own (`http://` + the `Host` just checked, which is what
//!   the viewer's page at `/viewer` sends: a page can only carry that origin if this daemon served it)
//!   or is listed in `serve.allowed_origins`. Any other origin, another port on loopback included, is
//!   refused. Hosts such as the OpenClaw plugin send none.
//! - A `POST` body must be declared `application/json` (415 otherwise): an HTML form can only send
//!   `text/plain`, form-encoded or multipart bodies without a preflight.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::ApiError;

/// The host part of a `Host` header value (`name:port`, `[v6]:port`), lower-cased.
fn host_name(value: &str) -> String {
    let v = value.trim();
    let name = if let Some(rest) = v.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        v.rsplit_once(':').filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit())).map_or(v, |(h, _)| h)
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether `name` (from [`host_name`]) may be served. On a Unix socket any name is: no browser
/// reaches a socket, and its file mode decides who may connect.
fn host_allowed(state: &AppState, name: &str) -> bool {
    if state.options.unix.is_some() || name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    if let Ok(ip) = name.parse::<IpAddr>()
        && (ip.is_loopback() || (state.options.unix.is_none() && ip == state.options.addr.ip()))
    {
        return true;
    }
    state.options.allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// Whether `origin` is the daemon's own: `http://` followed by the request's `Host` (already checked
/// by [`host_allowed`]), so the page that sent it was served by this daemon at this address and port.
fn own_origin(origin: &str, host: &str) -> bool {
    origin
        .strip_prefix("http://")
        .is_some_and(|authority| !authority.is_empty() && authority.eq_ignore_ascii_case(host.trim()))
}

fn refuse(status: StatusCode, code: &'static str, message: String) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// The middleware: host, origin and content type, in that order.
pub(crate) async fn guard(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host_header = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let host = host_header.map(host_name);
    match host {
        Some(name) if host_allowed(&state, &name) => {}
        Some(name) => {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden_host",
                format!("host `{name}` is not served; add it to `serve.allowed_hosts` to allow it"),
            );
        }
        None => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "missing_host",
                "the request has no `Host` header".into(),
            );
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default().trim_end_matches('/');
        let listed = state
            .options
            .allowed_origins
            .iter()
            .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin));
        if !listed && (state.options.unix.is_some() || !own_origin(origin, host_header.unwrap_or_default())) {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                format!(
                    "requests from web origin `{origin}` are refused; add it to `serve.allowed_origins` to allow it"
                ),
            );
        }
    }
    if req.method() == Method::POST {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "request bodies must be JSON, sent with `Content-Type: application/json`".into(),
            );
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::{host_name, own_origin};

    #[test]
    fn host_names_lose_their_port_and_brackets() {
        for (value, name) in [
            ("127.0.0.1:7411", "127.0.0.1"),
            ("localhost", "localhost"),
            ("LOCALHOST:80", "localhost"),
            ("[::1]:7411", "::1"),
            ("evil.example:7411", "evil.example"),
            ("evil.example.", "evil.example"),
        ] {
            assert_eq!(host_name(value), name, "{value}");
        }
    }

    #[test]
    fn only_the_daemons_own_origin_passes() {
        for (origin, host, own) in [
            ("http://127.0.0.1:7411", "127.0.0.1:7411", true),
            ("http://localhost:7411", "localhost:7411", true),
            ("HTTP://LOCALHOST:7411", "localhost:7411", false),
            ("http://LOCALHOST:7411", "localhost:7411", true),
            ("http://[::1]:7411", "[::1]:7411", true),
            ("http://127.0.0.1:3000", "127.0.0.1:7411", false),
            ("http://localhost:7411", "127.0.0.1:7411", false),
            ("https://127.0.0.1:7411", "127.0.0.1:7411", false),
            ("http://evil.example", "127.0.0.1:7411", false),
            ("null", "127.0.0.1:7411", false),
            ("http://", "", false),
        ] {
            assert_eq!(own_origin(origin, host), own, "{origin} on {host}");
        }
    }
}
