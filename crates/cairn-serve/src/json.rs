//! A JSON body extractor whose rejections are JSON errors with clear messages: 413 for a body over
//! the limit, 400 for malformed JSON (with line and column) or a missing/mistyped field (named).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// The request body as `T`. Any content type is accepted; the body must be JSON.
#[derive(Debug, Clone)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    "request body exceeds the daemon's limit (`serve.max_body_bytes`)",
                )
            } else {
                ApiError::bad_request(format!("could not read the request body: {rejection}"))
            }
        })?;
        parse(&bytes).map(ApiJson)
    }
}

/// Parses a JSON body with the error mapping of [`ApiJson`].
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de);
    if value.is_ok()
        && let Err(e) = de.end()
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            format!("request body is not valid JSON: {e}"),
        ));
    }
    value.map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_json",
                format!("request body is not valid JSON: {inner}"),
            ),
            _ if path.is_empty() || path == "." => {
                ApiError::bad_request(format!("invalid request body: {inner}"))
            }
            _ => ApiError::bad_request(format!("invalid field `{path}`: {inner}")),
        }
    })
}
