//! The crate's error type.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong loading a model, embedding, or installing one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The model directory does not exist.
    #[error("model directory `{}` does not exist (run `cairn models install`)", dir.display())]
    ModelDirMissing {
        /// The directory looked for.
        dir: PathBuf,
    },
    /// A file the model needs is missing from its directory.
    #[error("model file `{}` is missing", path.display())]
    FileMissing {
        /// The missing file.
        path: PathBuf,
    },
    /// Reading or writing a file failed.
    #[error("`{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A JSON config file does not parse or lacks a field.
    #[error("`{}` is not a valid config: {reason}", path.display())]
    BadConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The weights file is truncated or not a valid safetensors file, or lacks a tensor.
    #[error("weights `{}` are truncated or corrupt: {reason}", path.display())]
    CorruptWeights {
        /// The weights file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The config does not match the weights, or describes an unsupported model.
    #[error("model `{}` does not match its config: {reason}", dir.display())]
    ConfigMismatch {
        /// The model directory.
        dir: PathBuf,
        /// What does not match.
        reason: String,
    },
    /// The tokenizer failed to load or to encode.
    #[error("tokenizer `{}`: {reason}", path.display())]
    Tokenizer {
        /// The tokenizer file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
    /// Running the model failed.
    #[error("model inference failed: {0}")]
    Inference(String),
    /// The HTTP request failed (connection refused, DNS, TLS, ...).
    #[error("embedding request to `{url}` failed: {reason}")]
    Http {
        /// The endpoint.
        url: String,
        /// What failed.
        reason: String,
    },
    /// The HTTP server did not answer in time.
    #[error("embedding request to `{url}` timed out after {:.1} s", timeout.as_secs_f64())]
    HttpTimeout {
        /// The endpoint.
        url: String,
        /// The timeout that elapsed.
        timeout: Duration,
    },
    /// The HTTP server answered with an error status.
    #[error("embedding request to `{url}` returned HTTP {status}: {body}")]
    HttpStatus {
        /// The endpoint.
        url: String,
        /// The status code.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The HTTP server answered 2xx with a body that is not an embeddings response.
    #[error("embedding response from `{url}` is malformed: {reason}")]
    BadResponse {
        /// The endpoint.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Installing a model failed.
    #[error("installing model `{name}`: {reason}")]
    Install {
        /// The model being installed.
        name: String,
        /// What failed.
        reason: String,
    },
    /// An unknown provider or model name in the settings.
    #[error("embedding settings: {0}")]
    Settings(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
