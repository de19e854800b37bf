//! The hits of one recall, built from the fused list cut to `k`: each read from the index (through
//! the [`HitReader`], so the hits read ahead are not read twice) and explained (`why`: the lanes that
//! found it, its rank in each, the query tags it carries, the query words it contains).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use cairn_core::Hit;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet, Searcher, Term};

use super::fusion::Fused;
use super::lanes::lexical::QueryTerm;
use super::lanes::{Candidate, Found};
use super::read_ahead::HitReader;
use super::{Recaller, lane};

/// The query terms (indices) found in the title or body of chunks, by address.
pub(super) type Matched = HashMap<DocAddress, BTreeSet<usize>>;
use crate::error::{Error, Result};

impl Recaller {
    /// The hits of `fused` (cut to `k`), each read and its `why` set but for the query words it
    /// contains. A hit that cannot be read is left out with a warning.
    pub(super) fn read_hits(
        &self,
        found: &mut Found,
        fused: Vec<Fused>,
        reader: &HitReader,
        query_tags: &[String],
        recent: &[Hit],
    ) -> Vec<(DocAddress, Hit)> {
        // Read the hits the helper has not reached, from the last: the two threads meet halfway.
        reader.read_from_the_back(fused.iter().map(|f| f.1));
        let recent_ids: BTreeSet<String> = recent.iter().map(|h| h.chunk_id.clone()).collect();
        let mut hits = Vec::with_capacity(fused.len());
        for (score, addr, parts) in fused {
            match reader.read(addr) {
                Ok(mut hit) => {
                    hit.score = score;
                    hit.parts = parts;
                    explain_lanes(&mut hit, &found.cands[&addr], query_tags, &recent_ids);
                    hits.push((addr, hit));
                }
                Err(e) => found.warnings.push(format!("reading a hit failed: {e}")),
            }
        }
        reader.done();
        hits
    }

    /// The best `k` of `hits` (ties by chunk id), each with the query words it contains.
    pub(super) fn best_explained(
        &self,
        searcher: &Searcher,
        mut hits: Vec<(DocAddress, Hit)>,
        terms: &[QueryTerm],
        k: usize,
        known: &Matched,
        warnings: &mut Vec<String>,
    ) -> Vec<Hit> {
        hits.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.1.chunk_id.cmp(&b.1.chunk_id)));
        hits.truncate(k);
        if let Err(e) = self.explain_terms(searcher, terms, &mut hits, known) {
            warnings.push(format!("finding matched terms failed: {e}"));
        }
        hits.into_iter().map(|(_, h)| h).collect()
    }

    /// Sets `why.terms`: the query words whose terms occur in each hit's title or body (read from
    /// `known` where the relevance floor already found them).
    fn explain_terms(
        &self,
        searcher: &Searcher,
        terms: &[QueryTerm],
        hits: &mut [(DocAddress, Hit)],
        known: &Matched,
    ) -> Result<()> {
        let unknown: Vec<DocAddress> =
            hits.iter().map(|(a, _)| *a).filter(|a| !known.contains_key(a)).collect();
        let mut found = self.matched_terms(searcher, terms, &unknown)?.into_iter();
        for (addr, hit) in hits.iter_mut() {
            let set = match known.get(addr) {
                Some(set) => set.clone(),
                None => found.next().unwrap_or_default(),
            };
            let mut words: Vec<String> = Vec::new();
            for ti in set {
                let w = &terms[ti].surface;
                if !words.contains(w) {
                    words.push(w.clone());
                }
            }
            hit.why.terms = words;
        }
        Ok(())
    }

    /// For each chunk at `addrs`, the indices of the query `terms` that occur in its title or body.
    pub(super) fn matched_terms(
        &self,
        searcher: &Searcher,
        terms: &[QueryTerm],
        addrs: &[DocAddress],
    ) -> Result<Vec<BTreeSet<usize>>> {
        let f = &self.index.fields;
        let mut found: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); addrs.len()];
        let mut per_segment: BTreeMap<u32, Vec<(DocId, usize)>> = BTreeMap::new();
        for (i, addr) in addrs.iter().enumerate() {
            per_segment.entry(addr.segment_ord).or_default().push((addr.doc_id, i));
        }
        for (ord, mut docs) in per_segment {
            docs.sort_unstable();
            let reader = searcher.segment_reader(ord);
            for field in [f.body, f.title] {
                let inv = reader.inverted_index(field).map_err(Error::engine("search"))?;
                for (ti, t) in terms.iter().enumerate() {
                    let term = Term::from_field_text(field, &t.term);
                    let Some(mut postings) = inv
                        .read_postings(&term, IndexRecordOption::Basic)
                        .map_err(|e| Error::Engine { action: "search", source: e.into() })?
                    else {
                        continue;
                    };
                    for &(doc, hi) in &docs {
                        if postings.doc() > doc {
                            continue;
                        }
                        if postings.seek(doc) == doc {
                            found[hi].insert(ti);
                        }
                    }
                }
            }
        }
        Ok(found)
    }

    /// Sets `why.focus` of each hit whose nearest line to the query (`query_vec`, when the vector
    /// lane ran) is not its first: where that line starts in its text, for a block that shows part
    /// of it.
    pub(super) fn focus(&self, hits: &mut [Hit], query_vec: Option<&[f32]>) {
        let (Some(qv), Some(v)) = (query_vec, &self.vectors) else { return };
        let Ok(index) = v.index.read() else { return };
        for hit in hits {
            let Some((line, _)) = index.nearest_line(&hit.chunk_id, qv) else { continue };
            let offsets = cairn_embed::line_offsets(&hit.text);
            hit.why.focus = offsets.get(line).copied().filter(|&at| at > 0);
        }
    }
}

/// Sets the lanes of `why` that found `hit` (candidate `c`), its rank in each, and the query tags it
/// carries.
fn explain_lanes(hit: &mut Hit, c: &Candidate, query_tags: &[String], recent_ids: &BTreeSet<String>) {
    if let Some((_, r)) = c.lexical {
        hit.why.lanes.push(lane::LEXICAL.into());
        hit.why.ranks.insert(lane::LEXICAL.into(), r + 1);
    }
    if let Some((_, r)) = c.vector {
        hit.why.lanes.push(lane::VECTOR.into());
        hit.why.ranks.insert(lane::VECTOR.into(), r + 1);
    }
    if let Some((_, r)) = c.tags {
        hit.why.ranks.insert(lane::TAGS.into(), r + 1);
    }
    if !c.matched_tags.is_empty() {
        hit.why.lanes.push(lane::TAGS.into());
        hit.why.tags = c.matched_tags.iter().map(|&i| query_tags[i].clone()).collect();
    }
    if let Some((_, r)) = c.date {
        hit.why.ranks.insert(lane::DATE.into(), r + 1);
    }
    if let Some((_, why)) = c.date_fit.as_ref().filter(|_| hit.parts.contains_key(lane::DATE)) {
        hit.why.lanes.push(lane::DATE.into());
        hit.why.date = Some(why.clone());
    }
    if recent_ids.contains(&hit.chunk_id) {
        hit.why.lanes.push(lane::RECENCY.into());
    }
    if hit.parts.contains_key(lane::NEIGHBOUR) {
        hit.why.lanes.push(lane::NEIGHBOUR.into());
    }
    if c.profile {
        hit.why.lanes.push(super::profile::PROFILE_PART.into());
    }
    if c.person {
        hit.why.lanes.push(super::person::PERSON_PART.into());
    }
}
