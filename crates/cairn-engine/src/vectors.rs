//! Embedding at ingest: chunks lacking a current vector are embedded in batches and stored; the
//! in-memory vector index is loaded from the store and kept in step with it.

use std::sync::{Arc, RwLock};

use cairn_core::Progress;
use cairn_embed::{EmbedKind, Embedder};
use cairn_store::{NewVector, PendingChunk, Store};
use cairn_vector::{VectorIndex, VectorSettings};
use serde::Serialize;

use crate::Result;

/// What [`embed_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EmbedReport {
    /// The model.
    pub model_id: String,
    /// Chunks embedded and stored in this run.
    pub embedded: usize,
    /// Chunks still lacking a vector afterwards (retried next run).
    pub pending: u64,
    /// Why the run stopped early (the embedder failed); the items themselves are stored regardless.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The text a chunk is embedded as: the item's context (a turn's previous turn), then its title (with
/// the section heading) on a line, then the text. Titles carry much of a note's meaning ("GRIB parser"
/// over a body about a crash); see [`cairn_core::embed_text`].
pub fn embed_text(p: &PendingChunk) -> String {
    cairn_core::embed_text(&p.title, &p.heading, &p.text, &p.context)
}

/// Embeds every chunk of `store` without a current vector under `embedder`'s model, `batch` texts per
/// call, storing each batch as it completes. An embedder failure stops the run with the error in the
/// report (vectors already stored stay; the rest stay pending); only store failures are errors.
pub fn embed_pending(
    store: &mut dyn Store,
    embedder: &dyn Embedder,
    batch: usize,
    progress: &dyn Progress,
) -> Result<EmbedReport> {
    embed_some(store, embedder, batch, u64::MAX, progress)
}

/// [`embed_pending`], stopping after about `most` chunks (whole batches): a daemon embeds a backlog a
/// slice at a time, so that following the store never waits for the whole backlog.
pub fn embed_some(
    store: &mut dyn Store,
    embedder: &dyn Embedder,
    batch: usize,
    most: u64,
    progress: &dyn Progress,
) -> Result<EmbedReport> {
    let model = embedder.model_id().to_owned();
    let dim = embedder.dim();
    let batch = batch.max(1);
    let mut report = EmbedReport { model_id: model.clone(), ..Default::default() };
    let total = store.vector_status(&model, dim)?.pending;
    let mut budget = total.min(most);
    progress.start(budget);
    while budget > 0 {
        let chunks = store.pending_vectors(&model, dim, batch)?;
        if chunks.is_empty() {
            break;
        }
        let texts: Vec<String> = chunks.iter().map(embed_text).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = match embedder.embed(&refs, EmbedKind::Document) {
            Ok(v) if v.len() != chunks.len() => {
                report.error =
                    Some(format!("the embedder returned {} vectors for {} texts", v.len(), chunks.len()));
                break;
            }
            Ok(v) => v,
            Err(e) => {
                report.error = Some(e.to_string());
                break;
            }
        };
        if let Some(bad) = vectors.iter().find(|v| v.len() != dim) {
            report.error =
                Some(format!("the embedder returned a vector of {} dimensions, not {dim}", bad.len()));
            break;
        }
        let new: Vec<NewVector> = chunks
            .into_iter()
            .zip(vectors)
            .map(|(c, vector)| NewVector {
                chunk_id: c.chunk_id,
                item_id: c.item_id,
                content_hash: c.content_hash,
                vector,
            })
            .collect();
        let n = new.len();
        let written = store.put_vectors(&model, &new)?;
        report.embedded += written;
        progress.inc(n as u64);
        // Each round retires at least one pending chunk or stops: no endless loop on a store that
        // keeps changing underneath.
        if written == 0 {
            break;
        }
        budget = budget.saturating_sub(n as u64);
    }
    progress.finish();
    report.pending = store.vector_status(&model, dim)?.pending;
    Ok(report)
}

/// The vector index of `embedder`'s model, loaded from `store`, shareable with a recaller.
pub fn load_vectors(
    store: &dyn Store,
    embedder: &dyn Embedder,
    settings: VectorSettings,
) -> Result<Arc<RwLock<VectorIndex>>> {
    let index = VectorIndex::load(store, embedder.model_id(), embedder.dim(), settings)?;
    Ok(Arc::new(RwLock::new(index)))
}

/// Brings a shared vector index up to `store` (incremental: changed items and new vectors only).
pub fn sync_vectors(store: &dyn Store, index: &RwLock<VectorIndex>) -> Result<cairn_vector::VectorSync> {
    let mut guard = index.write().unwrap_or_else(|e| e.into_inner());
    Ok(guard.sync(store)?)
}
