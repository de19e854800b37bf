//! An OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, llama.cpp, vLLM, TEI, LocalAI, ...).
//!
//! Request: `POST {base_url}/v1/embeddings` with `{"model": .., "input": [..]}`; response
//! `{"data": [{"embedding": [..], "index": i}, ..]}`. Inputs are sent `batch_size` at a time, results
//! are put back in input order by `index`, and every vector is L2-normalised here (servers differ on
//! whether they do). Asymmetric models (E5, BGE, nomic-embed-text) want queries and documents told
//! apart by a prefix the server does not add: `query_prefix` and `document_prefix` are put before each
//! text of their kind, and are part of the model id, so changing them re-makes the stored vectors.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bert::normalize;
use crate::{EmbedKind, Embedder, Error, Result};

/// How to reach an OpenAI-compatible embeddings server.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpEmbedderConfig {
    /// Server root, e.g. `http://127.0.0.1:11434` (`/v1/embeddings` is appended; a root already ending
    /// in `/v1` gets `/embeddings`).
    pub base_url: String,
    /// The `model` field sent with every request.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub api_key: Option<String>,
    /// Per-request timeout (connect, send and read together).
    pub timeout: Duration,
    /// Texts per request (at least 1).
    pub batch_size: usize,
    /// Expected vector length; probed with one request when `None`.
    pub dim: Option<usize>,
    /// Put before every query text ([`EmbedKind::Query`]), e.g. `"query: "` for E5 models.
    pub query_prefix: String,
    /// Put before every stored text ([`EmbedKind::Document`]), e.g. `"passage: "` for E5 models.
    pub document_prefix: String,
}

/// Embeds through an OpenAI-compatible HTTP endpoint.
pub struct HttpEmbedder {
    config: HttpEmbedderConfig,
    url: String,
    agent: ureq::Agent,
    id: String,
    dim: usize,
}

impl std::fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEmbedder").field("url", &self.url).field("id", &self.id).finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: &'a [&'a str],
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Datum>,
}

#[derive(Deserialize)]
struct Datum {
    embedding: Vec<f32>,
    index: usize,
}

/// Largest response body read (bytes).
const MAX_BODY: u64 = 256 << 20;
/// How much of an error body is quoted.
const EXCERPT: usize = 300;

impl HttpEmbedder {
    /// Builds the client; when `config.dim` is `None`, embeds one probe text to learn the dimension
    /// (so an unreachable server fails here, not at the first recall).
    pub fn new(config: HttpEmbedderConfig) -> Result<Self> {
        let base = config.base_url.trim_end_matches('/');
        if base.is_empty() {
            return Err(Error::Settings("`embed.http.base_url` is empty".into()));
        }
        if config.model.is_empty() {
            return Err(Error::Settings("`embed.http.model` is empty".into()));
        }
        let url = if base.ends_with("/v1") {
            format!("{base}/embeddings")
        } else {
            format!("{base}/v1/embeddings")
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let id = model_id(&config);
        let mut me = HttpEmbedder { dim: config.dim.unwrap_or(0), config, url, agent, id };
        if me.config.dim.is_none() {
            let probe = me.request(&["dimension probe"])?;
            me.dim = probe[0].len();
        }
        Ok(me)
    }

    /// The full endpoint URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn request(&self, input: &[&str]) -> Result<Vec<Vec<f32>>> {
        let url = &self.url;
        let bad = |reason: String| Error::BadResponse { url: url.clone(), reason };
        let mut req = self.agent.post(url).header("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let body = serde_json::to_vec(&Request { model: &self.config.model, input })
            .map_err(|e| Error::Http { url: url.clone(), reason: e.to_string() })?;
        let mut resp = req.send(&body[..]).map_err(|e| self.transport(e))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| self.transport(e))?;
        if !(200..300).contains(&status) {
            return Err(Error::HttpStatus { url: url.clone(), status, body: excerpt(&text) });
        }
        let parsed: Response = serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "{e} (expected {{\"data\": [{{\"embedding\": [..], \"index\": i}}]}}); body: {}",
                excerpt(&text)
            ))
        })?;
        if parsed.data.len() != input.len() {
            return Err(bad(format!("{} embeddings for {} inputs", parsed.data.len(), input.len())));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; input.len()];
        for d in parsed.data {
            let slot = out.get_mut(d.index).ok_or_else(|| bad(format!("index {} out of range", d.index)))?;
            if slot.is_some() {
                return Err(bad(format!("index {} appears twice", d.index)));
            }
            *slot = Some(d.embedding);
        }
        let mut vecs: Vec<Vec<f32>> = out.into_iter().map(|v| v.unwrap_or_default()).collect();
        let want = if self.dim > 0 { self.dim } else { vecs[0].len() };
        for (i, v) in vecs.iter_mut().enumerate() {
            if v.len() != want || want == 0 {
                return Err(bad(format!("embedding {i} has {} dimensions, expected {want}", v.len())));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(bad(format!("embedding {i} has a non-finite value")));
            }
            normalize(v);
        }
        Ok(vecs)
    }

    fn transport(&self, e: ureq::Error) -> Error {
        let url = self.url.clone();
        match e {
            ureq::Error::Timeout(_) => Error::HttpTimeout { url, timeout: self.config.timeout },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                Error::HttpTimeout { url, timeout: self.config.timeout }
            }
            other => Error::Http { url, reason: other.to_string() },
        }
    }
}

/// `http:<model>`, and the prefixes' hash when there are any: vectors made with other prefixes are
/// other vectors.
fn model_id(config: &HttpEmbedderConfig) -> String {
    if config.query_prefix.is_empty() && config.document_prefix.is_empty() {
        return format!("http:{}", config.model);
    }
    use sha2::Digest;
    let digest = sha2::Sha256::new()
        .chain_update(config.query_prefix.as_bytes())
        .chain_update([0])
        .chain_update(config.document_prefix.as_bytes())
        .finalize();
    format!("http:{}@{}", config.model, crate::install::hex(&digest[..4]))
}

fn excerpt(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(EXCERPT) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_owned(),
    }
}

impl Embedder for HttpEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[&str], kind: EmbedKind) -> Result<Vec<Vec<f32>>> {
        let prefix = match kind {
            EmbedKind::Query => &self.config.query_prefix,
            EmbedKind::Document => &self.config.document_prefix,
        };
        // A copy beside the request's own serialisation and round trip costs nothing worth a branch.
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let texts: Vec<&str> = prefixed.iter().map(String::as_str).collect();
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.config.batch_size.max(1)) {
            out.extend(self.request(chunk)?);
        }
        Ok(out)
    }
}
