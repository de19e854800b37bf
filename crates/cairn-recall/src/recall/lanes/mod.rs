//! The five lanes, one file each: [`lexical`] (BM25, term at a time or block-max WAND), [`vector`]
//! (cosine similarity of the query's embedding), [`tags`] (tags inferred from the query),
//! [`recency`] (decay by age, and the recent list) and [`date`] (items dated within the query's date
//! expressions).
//!
//! Every lane checks the query's scope itself, so out-of-scope chunks are never candidates; this
//! module holds what the lanes share: that per-segment scope check ([`SegmentScope`]), what they
//! found for fusion ([`Found`], one [`Candidate`] per chunk) and the report each lane gives.

pub(super) mod clauses;
pub(super) mod date;
pub(super) mod general;
pub(super) mod lexical;
pub(super) mod recency;
pub(super) mod tags;
pub(super) mod vector;

use std::collections::HashMap;
use std::time::Instant;

use cairn_core::{LaneReport, LaneStatus, Scope};
use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocAddress, DocId, SegmentReader};

use crate::error::{Error, Result};
use crate::index::{F_AUDIENCE, F_PROJECT};

/// Per-segment scope check through fast fields: project and audience ordinals of that segment.
pub(crate) struct SegmentScope<'a> {
    reader: &'a SegmentReader,
    project: Option<(Column<u64>, Option<u64>)>,
    public: Option<(Column<u64>, Option<u64>)>,
}

impl<'a> SegmentScope<'a> {
    pub(crate) fn new(reader: &'a SegmentReader, scope: &Scope) -> Result<Self> {
        let ff = reader.fast_fields();
        let str_col = |name: &str| -> Result<Option<StrColumn>> {
            ff.str(name).map_err(|e| Error::Engine { action: "read fast field", source: e })
        };
        let ord_of = |col: &Option<StrColumn>, key: &str| -> Result<(Column<u64>, Option<u64>)> {
            match col {
                Some(c) => {
                    let ord = c
                        .dictionary()
                        .term_ord(key)
                        .map_err(|e| Error::Engine { action: "read fast field", source: e.into() })?;
                    Ok((c.ords().clone(), ord))
                }
                None => Ok((Column::build_empty_column(reader.max_doc()), None)),
            }
        };
        let project = match &scope.project {
            Some(p) => Some(ord_of(&str_col(F_PROJECT)?, p)?),
            None => None,
        };
        let public = if scope.allow_private { None } else { Some(ord_of(&str_col(F_AUDIENCE)?, "public")?) };
        Ok(SegmentScope { reader, project, public })
    }

    /// Whether nothing in this segment can be in scope.
    pub(crate) fn excludes_all(&self) -> bool {
        matches!(&self.project, Some((_, None))) || matches!(&self.public, Some((_, None)))
    }

    /// Whether the (alive) document is in scope.
    #[inline]
    fn admits(&self, doc: DocId) -> bool {
        !self.reader.is_deleted(doc) && self.in_scope(doc)
    }

    /// Whether the document, deleted or not, is in scope.
    #[inline]
    pub(crate) fn in_scope(&self, doc: DocId) -> bool {
        for check in [&self.project, &self.public].into_iter().flatten() {
            match check {
                (col, Some(ord)) => {
                    if col.first(doc) != Some(*ord) {
                        return false;
                    }
                }
                (_, None) => return false,
            }
        }
        true
    }
}

/// Everything fusion knows about one candidate: its score and rank in each lane that found it, its
/// recency and which query tags it carries (both filled in for every candidate, whichever lane found
/// it).
#[derive(Debug, Default, Clone)]
pub(super) struct Candidate {
    pub(super) lexical: Option<(f32, usize)>,
    pub(super) vector: Option<(f32, usize)>,
    pub(super) tags: Option<(f32, usize)>,
    pub(super) date: Option<(f32, usize)>,
    pub(super) recency: f32,
    pub(super) matched_tags: Vec<usize>,
    /// How well its date fits the query's date ranges, and why (`2026-03-12 in 'mid-March'`).
    pub(super) date_fit: Option<(f32, String)>,
    /// A chunk of the asker's profile, for a prompt about how to treat them (`profile.rs`).
    pub(super) profile: bool,
    /// A person's own note nearest in meaning to a question that asks for a person (`person.rs`).
    pub(super) person: bool,
}

/// What one recall has found so far: every candidate by address, one report per lane (in the order
/// lexical, vector, tags, recency, date) and the problems that did not stop recall.
#[derive(Default)]
pub(super) struct Found {
    pub(super) cands: HashMap<DocAddress, Candidate>,
    /// The idf of each query term (in term order), when the lexical lane ran: their sum is the query's
    /// full-match score, and the share of it a chunk holds is its coverage.
    pub(super) term_idf: Option<lexical::TermWeights>,
    pub(super) lanes: Vec<LaneReport>,
    pub(super) warnings: Vec<String>,
    /// The query's affinity to memory, when the vector lane ran and the general prompts could be
    /// embedded (see [`general`]).
    pub(super) affinity: Option<Affinity>,
}

/// How close a query's meaning comes to memory, against how close it comes to general prompts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Affinity {
    /// Mean cosine similarity of the query to its nearest chunks in scope.
    pub(super) memory: f32,
    /// Cosine similarity of the query to its nearest chunk in scope.
    pub(super) nearest: f32,
    /// Mean cosine similarity of the query to its nearest general prompts.
    pub(super) general: f32,
    /// Mean cosine similarity of the query to its nearest memory questions (questions people ask of
    /// their own notes, in general words).
    pub(super) questions: f32,
    /// Mean cosine similarity of the query to its nearest made-up prompts ("asdf", "what is a
    /// glorpnik?").
    pub(super) nonsense: f32,
    /// Similarity of the query to its nearest chunk in scope counting lines (a chunk is as near as
    /// its nearest line).
    pub(super) line: f32,
}

impl Affinity {
    /// The same query measured as one most of whose words memory lacks: its nearest made-up prompts
    /// count as general prompts when they are nearer (nonsense sits far from every general prompt,
    /// and near notes full of names from another language).
    pub(super) fn with_unknown_words(self) -> Affinity {
        Affinity { general: self.general.max(self.nonsense), ..self }
    }

    /// Memory's lead over the general prompts.
    pub(super) fn lead(&self) -> f32 {
        self.memory - self.general
    }

    /// How much nearer the query comes to the memory questions than to the general prompts: how
    /// much it reads like a question about one's own notes.
    pub(super) fn form(&self) -> f32 {
        self.questions - self.general
    }

    /// The nearest line's lead over the general prompts.
    pub(super) fn line_lead(&self) -> f32 {
        self.line - self.general
    }
}

impl Found {
    /// Enters what a lane found (`top`: addresses with their scores, best first): each one's score and
    /// rank go to the lane's slot (`lane`) of its candidate.
    fn enter(
        &mut self,
        top: impl IntoIterator<Item = (DocAddress, f32)>,
        lane: fn(&mut Candidate) -> &mut Option<(f32, usize)>,
    ) {
        for (rank, (addr, score)) in top.into_iter().enumerate() {
            *lane(self.cands.entry(addr).or_default()) = Some((score, rank));
        }
    }

    /// Reports lane `name` as having run since `started` and found `candidates`.
    fn ran(&mut self, name: &str, status: LaneStatus, candidates: usize, started: Instant) {
        self.report(name, status, candidates, started, None);
    }

    /// Reports lane `name` as failed with `error`.
    fn failed(&mut self, name: &str, started: Instant, error: impl ToString) {
        self.report(name, LaneStatus::Failed, 0, started, Some(error.to_string()));
    }

    /// Reports lane `name` as skipped (switched off, or nothing to search for).
    fn skipped(&mut self, name: &str, started: Instant) {
        self.report(name, LaneStatus::Skipped, 0, started, None);
    }

    fn report(
        &mut self,
        name: &str,
        status: LaneStatus,
        candidates: usize,
        started: Instant,
        error: Option<String>,
    ) {
        self.lanes.push(LaneReport {
            name: name.to_owned(),
            status,
            candidates,
            micros: started.elapsed().as_micros() as u64,
            error,
        });
    }
}
