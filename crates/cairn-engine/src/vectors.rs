//! Embedding at ingest: chunks lacking a current vector are embedded in batches and stored; the
//! in-memory vector index is loaded from the store and kept in step with it.

use std::sync::{Arc, RwLock};

use cairn_core::Progress;
use cairn_embed::{ChunkText, Embedder};
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
    /// Vectors dropped because they were stored by an older way of embedding with this model (once
    /// every chunk has its vector under the current one, [`vector_key`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub retired: usize,
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

/// What vectors are stored under for `embedder`: its model id and the recipe that turned its
/// embeddings into chunk vectors (each chunk's whole text blended with its lines, with its lines'
/// own vectors kept beside, [`cairn_embed::embed_chunks`]). A store embedded by an older recipe is
/// re-embedded under the new key, and the old vectors are dropped once every chunk has a new one.
pub fn vector_key(embedder: &dyn Embedder) -> String {
    format!("{}{RECIPE}", embedder.model_id())
}

/// The suffix of [`vector_key`] for the current recipe.
const RECIPE: &str = "+lines2";

/// The suffixes of the recipes before [`RECIPE`]: the whole text only, then blended with the lines
/// without keeping them.
const OLDER_RECIPES: [&str; 2] = ["", "+lines"];

/// Embeds every chunk of `store` without a current vector under `embedder`'s model, `batch` texts per
/// call, storing each batch as it completes. An embedder failure stops the run with the error in the
/// report (vectors already stored stay; the rest stay pending); only store failures are errors.
/// Once every chunk has its vector under [`vector_key`], the vectors stored by the way of embedding
/// before it (under the bare model id) are dropped.
pub fn embed_pending(
    store: &mut dyn Store,
    embedder: &dyn Embedder,
    batch: usize,
    progress: &dyn Progress,
) -> Result<EmbedReport> {
    let mut report = embed_some(store, embedder, batch, u64::MAX, progress)?;
    if report.pending == 0 && report.error.is_none() {
        for recipe in OLDER_RECIPES {
            report.retired += store.drop_vectors(&format!("{}{recipe}", embedder.model_id()))?;
        }
    }
    Ok(report)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    let model = vector_key(embedder);
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
        let wholes: Vec<String> = chunks.iter().map(embed_text).collect();
        let texts: Vec<ChunkText<'_>> = chunks
            .iter()
            .zip(&wholes)
            .map(|(c, whole)| ChunkText { whole, title: &c.title, text: &c.text })
            .collect();
        let vectors = match cairn_embed::embed_chunks(embedder, &texts) {
            Ok(v) => v,
            Err(e) => {
                report.error = Some(e.to_string());
                break;
            }
        };
        if let Some(bad) = vectors.iter().find(|v| v.vector.len() != dim) {
            report.error =
                Some(format!("the embedder returned a vector of {} dimensions, not {dim}", bad.vector.len()));
            break;
        }
        let new: Vec<NewVector> = chunks
            .into_iter()
            .zip(vectors)
            .map(|(c, v)| NewVector {
                chunk_id: c.chunk_id,
                item_id: c.item_id,
                content_hash: c.content_hash,
                vector: v.vector,
                lines: v.lines,
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
    let index = VectorIndex::load(store, &vector_key(embedder), embedder.dim(), settings)?;
    Ok(Arc::new(RwLock::new(index)))
}

/// Brings a shared vector index up to `store` (incremental: changed items and new vectors only).
pub fn sync_vectors(store: &dyn Store, index: &RwLock<VectorIndex>) -> Result<cairn_vector::VectorSync> {
    let mut guard = index.write().unwrap_or_else(|e| e.into_inner());
    Ok(guard.sync(store)?)
}
