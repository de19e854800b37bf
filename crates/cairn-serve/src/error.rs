//! Errors at the HTTP edge: every failure is `{"error": {"code", "message"}}` with a 4xx/5xx status.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// `snake_case` code.
    pub code: &'static str,
    /// What went wrong, naming the field when there is one.
    pub message: String,
}

impl ApiError {
    /// A new error.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    /// 400 `invalid_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", message)
    }

    /// 500 `internal`: the detail stays in the log, the client gets a generic message.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!("internal error: {detail}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "internal error; see the daemon's log")
    }

    /// 503 `timeout`.
    pub fn timeout(what: &str) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "timeout", format!("{what} did not finish in time"))
    }
}

impl From<cairn_engine::Error> for ApiError {
    fn from(e: cairn_engine::Error) -> Self {
        if e.is_bad_input() { ApiError::bad_request(e.to_string()) } else { ApiError::internal(e) }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({"error": {"code": self.code, "message": self.message}}))).into_response()
    }
}
