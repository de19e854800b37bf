//! Hits from outside the index (a remote source's facts, memories, chunks) on recall's own scale, so
//! that they rank among the local hits and face the same relevance floor.
//!
//! A remote hit has no BM25 score and no stored vector: its relevance is its **coverage** of the
//! query, the share of the query's idf weight (as the floor weighs it: framing words weigh nothing,
//! per clause) that its title and text contain, the same measure [`floor`](super::floor) computes for
//! the head of the local candidates. Its score follows the fusion in use: under
//! [`Fusion::Calibrated`] the lexical part is `coverage / (coverage + lexical_half)` (what a chunk of
//! average length holding those words once scores), under [`Fusion::Weighted`] the coverage itself
//! (the best local lexical candidate scores 1), under [`Fusion::Rrf`] its rank in its source; the
//! recency part is the same decay as the local lanes', from the hit's date. The service's own rank or
//! score is never taken as relevance: each service scores on its own scale.

use std::collections::BTreeMap;

use cairn_core::{Hit, Millis, UNDATED};

use super::lanes::recency::Decay;
use super::{Fusion, RecallSettings, lane, quantize};
use crate::analyzer::{for_each_term, framing};

/// The part holding a remote hit's coverage (the same name the floor gives local candidates').
pub const COVERAGE_PART: &str = super::fusion::COVERAGE;

/// One analysed query term with the weight the floor gives it.
#[derive(Debug, Clone, PartialEq)]
struct Weighted {
    term: String,
    surface: String,
    idf: f32,
    clause: usize,
}

/// The query's terms and the weight each carries in the relevance floor's coverage (idf in the
/// caller's scope; words that frame a question weigh nothing). Comes with every
/// [`RecallResult`](super::RecallResult); [`QueryWeights::uniform`] weighs a query without an index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryWeights {
    terms: Vec<Weighted>,
}

impl QueryWeights {
    pub(super) fn push(&mut self, term: &str, surface: &str, idf: f32, clause: usize) {
        self.terms.push(Weighted { term: term.to_owned(), surface: surface.to_owned(), idf, clause });
    }

    /// Every analysed term of `text` weighing 1 (framing words 0), one clause: for a recall that
    /// could not weigh the query (no index, the lexical lane off).
    pub fn uniform(text: &str) -> QueryWeights {
        let framing = framing();
        let mut out = QueryWeights::default();
        for_each_term(text, |t, from, to| {
            if !out.terms.iter().any(|w| w.term == t) {
                let idf = if framing.binary_search_by(|f| f.as_str().cmp(t)).is_ok() { 0.0 } else { 1.0 };
                out.push(t, &text[from..to].to_lowercase(), idf, 0);
            }
        });
        out
    }

    /// Whether some term carries weight (a query of framing words only has nothing to cover).
    pub fn has_weight(&self) -> bool {
        self.terms.iter().any(|t| t.idf > 0.0)
    }

    /// The share of the query's weight `text` covers (its best clause's), and the query words found
    /// in it (as the query wrote them), in query order.
    pub fn coverage(&self, text: &str) -> (f32, Vec<String>) {
        let mut present: std::collections::HashSet<String> = std::collections::HashSet::new();
        for_each_term(text, |t, _, _| {
            present.insert(t.to_owned());
        });
        let mut total: BTreeMap<usize, f32> = BTreeMap::new();
        let mut covered: BTreeMap<usize, f32> = BTreeMap::new();
        let mut found = Vec::new();
        for w in &self.terms {
            *total.entry(w.clause).or_default() += w.idf;
            if present.contains(&w.term) {
                *covered.entry(w.clause).or_default() += w.idf;
                found.push(w.surface.clone());
            }
        }
        let best =
            covered.iter().map(|(c, w)| w / total[c].max(f32::MIN_POSITIVE)).fold(0.0f32, f32::max).min(1.0);
        (quantize(best), found)
    }
}

/// What scoring a source's hits left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExternalScored {
    /// The hits that reach the floor, scored, in the source's order.
    pub hits: Vec<Hit>,
    /// Hits left out because their relevance is below the floor.
    pub below: usize,
    /// The best relevance among them (0 without hits).
    pub best: f32,
}

/// Scores `hits` of the source reported as lane `lane_name` against the query `weights`, with the
/// fusion, weights, calibration, half-life and floor of `settings`, recency measured from `now`. A hit
/// below the floor is dropped (each one on its own: a service returns its nearest matches whatever
/// the question). The hits keep the source's order.
pub fn score_external(
    hits: Vec<Hit>,
    lane_name: &str,
    weights: &QueryWeights,
    settings: &RecallSettings,
    now: Millis,
) -> ExternalScored {
    let floor = settings.floor.max(0.0);
    let w = &settings.weights;
    let recency_on = settings.lane_on(lane::RECENCY);
    let decay = Decay::new(settings.half_life_days, now);
    let mut out = ExternalScored::default();
    for (rank, mut hit) in hits.into_iter().enumerate() {
        let (coverage, terms) = weights.coverage(&format!("{}\n{}", hit.title, hit.text));
        out.best = out.best.max(coverage);
        if floor > 0.0 && coverage < floor {
            out.below += 1;
            continue;
        }
        let recency = (recency_on && hit.created_at != UNDATED).then(|| decay.of(hit.created_at));
        let lexical = match settings.fusion {
            Fusion::Calibrated => coverage / (coverage + settings.calibration.lexical_half.max(1e-6)),
            Fusion::Weighted => coverage,
            Fusion::Rrf { k } => 1.0 / (k + rank as f32 + 1.0),
        };
        let score = w.lexical * lexical + recency.map_or(0.0, |r| w.recency * r);
        let mut parts = BTreeMap::new();
        parts.insert(COVERAGE_PART.to_owned(), coverage);
        parts.insert(lane_name.to_owned(), quantize(lexical));
        if let Some(r) = recency {
            parts.insert(lane::RECENCY.to_owned(), quantize(r));
        }
        hit.score = quantize(score);
        hit.parts = parts;
        hit.why.terms = terms;
        hit.why.lanes = vec![lane_name.to_owned()];
        out.hits.push(hit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(title: &str, text: &str, created_at: Millis) -> Hit {
        Hit {
            chunk_id: format!("remote:t:{title}"),
            item_id: format!("remote:t:{title}"),
            project: "default".into(),
            kind: cairn_core::ItemKind::Fact,
            title: title.into(),
            text: text.into(),
            tags: vec![],
            audience: cairn_core::Audience::Private,
            provenance: cairn_core::Provenance::External { source: "remote:t".into() },
            content_hash: String::new(),
            created_at,
            score: 0.0,
            parts: BTreeMap::new(),
            why: Default::default(),
        }
    }

    #[test]
    fn coverage_is_the_share_of_the_query_weight() {
        let w = QueryWeights::uniform("Where does Alice work these days?");
        // "alic" and "work" carry weight ("days" frames the question, "where"/"does" are stop words).
        assert!(w.has_weight());
        assert_eq!(w.coverage("Alice works at Acme Corp").0, 1.0);
        assert_eq!(w.coverage("Alice likes tea").0, 0.5);
        assert_eq!(w.coverage("Bob likes tea").0, 0.0);
        assert_eq!(w.coverage("Alice works at Acme").1, ["alice", "work"]);
        assert!(!QueryWeights::uniform("what's new today?").has_weight());
    }

    #[test]
    fn hits_below_the_floor_are_dropped_each_on_its_own() {
        let w = QueryWeights::uniform("alice acme contract renewal");
        let settings = RecallSettings::default();
        let scored = score_external(
            vec![
                hit("a", "Alice signed the Acme contract renewal", 0),
                hit("b", "Bob went hiking", 0),
                hit("c", "Acme contract renewal is due", 0),
            ],
            "remote:t",
            &w,
            &settings,
            0,
        );
        let ids: Vec<&str> = scored.hits.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
        assert_eq!(scored.below, 1);
        assert_eq!(scored.best, 1.0);
        assert_eq!(scored.hits[0].parts[COVERAGE_PART], 1.0);
        assert_eq!(scored.hits[0].why.lanes, ["remote:t"]);
        assert!(scored.hits[0].score > scored.hits[1].score);
    }

    #[test]
    fn calibrated_scores_use_the_lexical_half() {
        let w = QueryWeights::uniform("alice acme");
        let settings = RecallSettings { fusion: Fusion::Calibrated, ..RecallSettings::default() };
        let scored = score_external(vec![hit("x", "alice acme", UNDATED)], "remote:t", &w, &settings, 0);
        // coverage 1 → 1 / (1 + 0.5); undated: no recency part.
        assert_eq!(scored.hits[0].score, quantize(1.0 / 1.5));
        assert!(!scored.hits[0].parts.contains_key(lane::RECENCY));
    }

    #[test]
    fn recency_adds_the_local_decay() {
        let w = QueryWeights::uniform("alice acme");
        let settings = RecallSettings::default();
        let day = 86_400_000;
        let now = 100 * day;
        let scored = score_external(
            vec![hit("old", "alice acme", now - 60 * day), hit("new", "alice acme", now)],
            "remote:t",
            &w,
            &settings,
            now,
        );
        assert_eq!(scored.hits[1].parts[lane::RECENCY], 1.0);
        assert_eq!(scored.hits[0].parts[lane::RECENCY], 0.25);
        assert!(scored.hits[1].score > scored.hits[0].score);
    }
}
