//! The vector lane: the query's embedding against the stored chunks' vectors ([`VectorLane`]), the
//! nearest in scope by cosine similarity. It also runs as the semantic fallback when the lexical lane
//! finds too little. The query is embedded on a second thread while the other lanes run
//! ([`PendingQuery`]).

use std::sync::{Arc, RwLock};
use std::time::Instant;

use cairn_core::LaneStatus;
use cairn_embed::{EmbedKind, Embedder};
use cairn_vector::VectorIndex;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Searcher, Term};

use super::general::{GeneralPrompts, top_mean};
use super::{Affinity, Found, SegmentScope};
use crate::error::{Error, Result};
use crate::recall::{RecallQuery, Recaller, lane};

/// The semantic side of recall: an embedder for queries and the vectors of the stored chunks (made by
/// the same model).
#[derive(Clone)]
pub struct VectorLane {
    /// Embeds the query.
    pub embedder: Arc<dyn Embedder>,
    /// Chunk vectors (kept in step with the store by the engine).
    pub index: Arc<RwLock<VectorIndex>>,
    /// The general prompts a query's affinity to memory is measured against.
    pub general: Arc<GeneralPrompts>,
}

impl VectorLane {
    /// A lane over `index`, queries embedded by `embedder`; the general prompts are embedded once per
    /// lane (see [`VectorLane::keeping_general_in`]).
    pub fn new(embedder: Arc<dyn Embedder>, index: Arc<RwLock<VectorIndex>>) -> Self {
        VectorLane { embedder, index, general: Arc::new(GeneralPrompts::new(None)) }
    }

    /// Keeps the general prompts' vectors in `dir`, so the next process reads them.
    pub fn keeping_general_in(mut self, dir: &std::path::Path) -> Self {
        self.general = Arc::new(GeneralPrompts::new(Some(dir.to_owned())));
        self
    }
}

impl std::fmt::Debug for VectorLane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorLane").field("model_id", &self.embedder.model_id()).finish_non_exhaustive()
    }
}

/// What the vector lane found (index addresses with their chunk's similarity and its
/// [`line_similarity`], best first by the latter) and the query vector.
type VectorFound = (Vec<(DocAddress, f32, f32)>, Vec<f32>);

/// A chunk's similarity to the query from its vector's cosine (`whole`) and its best line's
/// (`line`, when it has lines): the best line's where it is nearer, so a question about one fact of
/// a note of many is as near the note as the fact is.
pub(in crate::recall) fn line_similarity(whole: f32, line: Option<f32>, weight: f32) -> f32 {
    match line {
        Some(l) if l > whole => whole + weight * (l - whole),
        _ => whole,
    }
}

/// A query embedding started before the lanes ran: call it to wait for the vector.
pub(in crate::recall) type PendingQuery<'a> = Box<dyn FnOnce() -> std::result::Result<Vec<f32>, String> + 'a>;

/// The query's embedding.
pub(in crate::recall) fn embed_query(v: &VectorLane, text: &str) -> std::result::Result<Vec<f32>, String> {
    let mut vecs = v.embedder.embed(&[text], EmbedKind::Query).map_err(|e| e.to_string())?;
    vecs.pop().filter(|x| !x.is_empty()).ok_or_else(|| "the embedder returned no vector".to_owned())
}

impl Recaller {
    /// The vector lane of one recall (its report, and its nearest chunks as candidates); also the
    /// semantic fallback when the lexical lane found fewer than `semantic_fallback` candidates (its
    /// candidates are all `found` holds so far). Returns the query vector, when the lane ran, and the
    /// lane's weight in fusion.
    pub(in crate::recall) fn vector_step(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        found: &mut Found,
        pool: usize,
        pending: Option<PendingQuery<'_>>,
    ) -> (Option<Vec<f32>>, f32) {
        let s = &self.settings;
        let started = Instant::now();
        let lexical_found = found.cands.len();
        let fallback = s.semantic_fallback > 0 && lexical_found < s.semantic_fallback;
        let mut vector_weight = s.weights.vector;
        let mut query_vec: Option<Vec<f32>> = None;
        match &self.vectors {
            Some(v) if s.lane_on(lane::VECTOR) || fallback => {
                if !s.lane_on(lane::VECTOR) {
                    vector_weight = s.weights.lexical.max(1.0);
                }
                match self.vector_lane(v, searcher, q, s.vector_pool.max(pool), pending) {
                    Ok((top, qv)) => {
                        // Affinity is measured on the chunks' own vectors, as its scale was chosen
                        // (measured on lines, every question comes nearer memory, off-topic ones too).
                        match v.general.similarity(&*v.embedder, &qv) {
                            Ok(near) => {
                                let (general, questions, nonsense) =
                                    (near.general, near.questions, near.nonsense);
                                let memory = top_mean(top.iter().map(|(_, c, _)| *c));
                                let nearest = top.iter().map(|(_, c, _)| *c).fold(0.0, f32::max);
                                let line = top.iter().map(|(_, _, l)| *l).fold(0.0, f32::max);
                                found.affinity =
                                    Some(Affinity { memory, nearest, general, questions, nonsense, line });
                            }
                            Err(e) => found.warnings.push(e),
                        }
                        found.ran(lane::VECTOR, LaneStatus::Ok, top.len(), started);
                        found.enter(top.into_iter().map(|(a, _, l)| (a, l)), |c| &mut c.vector);
                        query_vec = Some(qv);
                    }
                    Err(e) => found.failed(lane::VECTOR, started, e),
                }
            }
            _ => found.skipped(lane::VECTOR, started),
        }
        (query_vec, vector_weight)
    }

    /// Embeds the query and searches the vectors in scope; returns index addresses with their cosine
    /// similarity, best first, and the query vector.
    fn vector_lane(
        &self,
        v: &VectorLane,
        searcher: &Searcher,
        q: &RecallQuery,
        pool: usize,
        pending: Option<PendingQuery<'_>>,
    ) -> std::result::Result<VectorFound, String> {
        let qv = match pending {
            Some(join) => join()?,
            None => embed_query(v, &q.text)?,
        };
        let index = v.index.read().map_err(|_| "the vector index is poisoned".to_owned())?;
        if index.dim() != qv.len() {
            return Err(format!(
                "query vector has {} dimensions, stored vectors {} (model `{}`)",
                qv.len(),
                index.dim(),
                index.model_id()
            ));
        }
        let (hits, _) = index.search(&qv, &q.scope, pool);
        let weight = self.settings.calibration.line_weight;
        let lines: Vec<f32> = hits
            .iter()
            .map(|h| line_similarity(h.score, index.best_line(&h.chunk_id, &qv), weight))
            .collect();
        drop(index);
        let scopes: Vec<SegmentScope<'_>> = searcher
            .segment_readers()
            .iter()
            .map(|r| SegmentScope::new(r, &q.scope))
            .collect::<Result<_>>()
            .map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(hits.len());
        for (h, line) in hits.into_iter().zip(lines) {
            // Vectors of chunks the full-text index does not hold (yet) are skipped; the scope is
            // checked again on the index's own fields.
            if let Some(addr) = self.address_of(searcher, &h.chunk_id).map_err(|e| e.to_string())?
                && scopes[addr.segment_ord as usize].admits(addr.doc_id)
            {
                out.push((addr, h.score, line));
            }
        }
        out.sort_by(|a, b| b.2.total_cmp(&a.2));
        Ok((out, qv))
    }

    /// The index address of a live chunk.
    fn address_of(&self, searcher: &Searcher, chunk_id: &str) -> Result<Option<DocAddress>> {
        let term = Term::from_field_text(self.index.fields.chunk_id, chunk_id);
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let inv = reader.inverted_index(term.field()).map_err(Error::engine("search"))?;
            let Some(mut postings) = inv
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| Error::Engine { action: "search", source: e.into() })?
            else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != tantivy::TERMINATED {
                if !reader.is_deleted(doc) {
                    return Ok(Some(DocAddress::new(ord as u32, doc)));
                }
                doc = postings.advance();
            }
        }
        Ok(None)
    }
}
