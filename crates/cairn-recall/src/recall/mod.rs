//! The read side: [`Recaller`] answers a [`RecallQuery`] from the index. This module holds the public
//! types (query, result, settings, lane names) and [`Recaller::recall`], which runs the steps of a
//! recall in order; each step lives with its concept:
//!
//! - [`lanes`]: the lexical, vector, tag, recency and date lanes, each finding candidates in scope
//!   (the date lane with a birthday the prompt names read as its day: [`birthday`]);
//! - [`topn`]: the candidates' order and the bounded pools the lanes fill;
//! - [`read_ahead`]: hits read from the doc store, ahead on the helper thread when a recall runs alone;
//! - [`fusion`]: the lanes' candidates fused into one ranked list (calibrated, min-max or RRF,
//!   neighbour lending, MMR), and each candidate's relevance;
//! - [`floor`]: the relevance floor, below which nothing is a hit;
//! - [`ties`]: the cut to `k`, ties broken by chunk id;
//! - [`hits`]: the hits read and explained (`why`).

mod birthday;
mod external;
mod floor;
mod fusion;
mod hits;
mod lanes;
mod person;
mod personal;
mod profile;
mod read_ahead;
mod relations;
mod ties;
mod topn;
mod world;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cairn_core::helper;
use cairn_core::{Hit, LaneReport, Millis, Relevance, Scope};
use serde::{Deserialize, Serialize};
use tantivy::{DocAddress, IndexReader, ReloadPolicy, Searcher};

pub use external::{COVERAGE_PART, ExternalScored, QueryWeights, score_external};
use lanes::Found;
pub(crate) use lanes::SegmentScope;
use lanes::date::QueryDates;
use lanes::recency::{ByDate, Decay};
use lanes::tags::TagShares;
pub use lanes::vector::VectorLane;
use lanes::vector::{PendingQuery, embed_query};
pub use person::PERSON_PART;
use profile::FileChunks;
pub use profile::PROFILE_PART;
use read_ahead::{HitReader, Stores};
use ties::IdRanks;

use crate::error::{Error, Result};
use crate::index::{F_PREVIOUS_KEY, RecallIndex};
use crate::stats::ScopeCounts;

/// Lane names, as they appear in [`Hit::parts`], [`cairn_core::Why::lanes`] and [`LaneReport::name`].
pub mod lane {
    /// BM25 over title and body.
    pub const LEXICAL: &str = "lexical";
    /// Cosine similarity of the query's embedding to the chunks' embeddings.
    pub const VECTOR: &str = "vector";
    /// Tags inferred from the query.
    pub const TAGS: &str = "tags";
    /// Exponential decay by age.
    pub const RECENCY: &str = "recency";
    /// Items dated within (or near) a date expression of the query ("mid-March", "last week").
    pub const DATE: &str = "date";
    /// Score lent by the turn just before or after in the same session (not a lane of its own: it
    /// only moves candidates the lanes found).
    pub const NEIGHBOUR: &str = "neighbour";
}

/// `x` rounded to 5 decimals (scores are compared and printed at this precision).
fn quantize(x: f32) -> f32 {
    ((f64::from(x) * 1e5).round() / 1e5) as f32
}

/// How lane scores become one score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Fusion {
    /// `Σ weight × part`, each part on an absolute scale that means the same in every query
    /// ([`Calibration`]): BM25 relative to the query's own full-match score, the raw cosine
    /// similarity, the date lane's fit. A weak lane stays weak, so a strong match in one lane wins
    /// with no support from the others: it ranks the paraphrased questions of a notes workspace
    /// better than min-max, LoCoMo's conversations worse (BENCHMARKS.md, "Relevance").
    Calibrated,
    /// `Σ weight × part`, each part normalised to `[0, 1]`: lexical and vector scores min-max over the
    /// candidates (every candidate gets its cosine similarity, whichever lane found it). The default,
    /// chosen on LoCoMo's conversations 1–5. Whether anything is relevant at all is the relevance
    /// floor's call, on an absolute scale whatever the fusion.
    Weighted,
    /// Reciprocal rank fusion: `Σ weight / (k + rank in lane)`, for lanes whose scores do not compare.
    Rrf {
        /// The RRF constant (60 in the original paper).
        k: f32,
    },
}

/// Relative weight of each lane in the fused score; 0 turns a lane off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LaneWeights {
    /// BM25 lane.
    pub lexical: f32,
    /// Vector lane (used when an embedding model is configured).
    pub vector: f32,
    /// Tag lane.
    pub tags: f32,
    /// Recency lane.
    pub recency: f32,
    /// Date lane.
    pub date: f32,
}

impl Default for LaneWeights {
    fn default() -> Self {
        LaneWeights { lexical: 1.0, vector: 1.0, tags: 0.3, recency: 0.1, date: 1.0 }
    }
}

impl LaneWeights {
    /// Lexical only.
    pub fn lexical_only() -> Self {
        LaneWeights { lexical: 1.0, vector: 0.0, tags: 0.0, recency: 0.0, date: 0.0 }
    }

    /// Vector only.
    pub fn vector_only() -> Self {
        LaneWeights { lexical: 0.0, vector: 1.0, tags: 0.0, recency: 0.0, date: 0.0 }
    }

    /// The weight of a lane by name (0 for an unknown name).
    pub fn get(&self, lane: &str) -> f32 {
        match lane {
            lane::LEXICAL => self.lexical,
            lane::VECTOR => self.vector,
            lane::TAGS => self.tags,
            lane::RECENCY => self.recency,
            lane::DATE => self.date,
            _ => 0.0,
        }
    }
}

/// Every lane name, in report order.
pub const ALL_LANES: [&str; 5] = [lane::LEXICAL, lane::VECTOR, lane::TAGS, lane::RECENCY, lane::DATE];

/// How [`Fusion::Calibrated`] puts the lexical and vector lanes on an absolute scale, where 0.5 is
/// "about as relevant as a match needs to be" in both.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Calibration {
    /// The lexical part is `x / (x + lexical_half)`, where `x` is the chunk's BM25 score over the
    /// query's full-match score (`Σ idf` of its terms: what a chunk of average length holding every
    /// query word once scores in its body). A chunk matching half the query's information scores
    /// 0.5 with the default 0.5.
    pub lexical_half: f32,
    /// Cosine similarity mapped to 0 (and below): unrelated text scores about this with the model.
    pub cosine_zero: f32,
    /// Cosine similarity mapped to 1; the mapping is linear in between (and goes on above).
    pub cosine_one: f32,
    /// A query's affinity to memory (the mean cosine of its nearest chunks minus that of its nearest
    /// general prompts) mapped to 0 (and below) in its meaning part of relevance.
    pub affinity_zero: f32,
    /// Affinity mapped to 1; linear in between (and above).
    pub affinity_one: f32,
    /// Below this meaning part, the query reads as a general question: its words' coverage and tags
    /// count only when they reach `strong_words` in a chunk whose calibrated cosine reaches this too.
    pub words_need_meaning: f32,
    /// Coverage or tags that count whatever the query's meaning.
    pub strong_words: f32,
    /// How far a chunk's similarity moves from its own vector's cosine toward its best line's when
    /// that is higher (0: lines are not used; 1: the best of the two).
    pub line_weight: f32,
    /// With [`Fusion::Weighted`], in a chunk of several lines (one with line vectors), the min-max
    /// lexical part is multiplied by the chunk's calibrated cosine (at most 1) to this power, or by
    /// its coverage of the query when that is more: a word of the question found in a note about
    /// something else ("home" in a note on home energy, for "who can let themselves into our home?")
    /// counts only as far as the note is near the question, while a note holding what the question
    /// names (an error code whose meaning the model does not know) keeps its part. 0: off. One-line
    /// chunks (conversation turns) keep their min-max part.
    pub lined_lexical_gate: f32,
    /// With [`Fusion::Weighted`] and a model, the coverage of the query by the lexical lane's best
    /// match in a chunk of several lines at which the lane has its whole weight; below it, the lane's
    /// weight falls as the square root of that coverage's share of this: a paraphrase shares only
    /// incidental words with any note, and min-max normalisation would give a match of one of them a
    /// full lexical part. 0: off.
    pub lexical_full_coverage: f32,
    /// A query whose nearest line of memory leads the general prompts by more than this margin is
    /// about memory as far as that lead, less the margin, says on the affinity scale: a question
    /// about one fact of a long note ("which antibiotic am I allergic to?" for a line saying
    /// "Penicillin: hives") whose note as a whole is no nearer it than general questions are. 0: off.
    pub line_lead_margin: f32,
    /// The margin of `line_lead_margin` for a question about the asker (which meets
    /// `personal_floor`): a question about one's own life whose nearest line comes nearer it than the
    /// general prompts do, by this much, is about memory ("why does my nephew keep a lizard?" against
    /// a line on the nephew's bearded dragon). At most `line_lead_margin`.
    pub personal_line_margin: f32,
    /// How much a query's form counts in its affinity: its lead over the general prompts is
    /// memory's lead plus this times the memory questions' lead ("what did we decide about the
    /// heat pump?" reads like a question about one's notes; "how does a heat pump work?" like a
    /// general one, however near the notes its topic is). 0: off.
    pub form_weight: f32,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration {
            lexical_half: 0.5,
            cosine_zero: 0.1,
            cosine_one: 0.5,
            affinity_zero: -0.08,
            affinity_one: 0.12,
            words_need_meaning: 0.25,
            strong_words: 0.75,
            line_weight: 1.0,
            lined_lexical_gate: 1.0,
            lexical_full_coverage: 0.5,
            line_lead_margin: 0.2,
            personal_line_margin: 0.1,
            form_weight: 0.5,
        }
    }
}

/// Tunables of recall, resolved once (from config) and passed to [`Recaller`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecallSettings {
    /// Lane weights.
    pub weights: LaneWeights,
    /// How lanes are fused.
    pub fusion: Fusion,
    /// Half-life of the recency decay, in days.
    pub half_life_days: f64,
    /// Multiplier of BM25 on the title field relative to the body (0: the title is not searched).
    pub title_boost: f32,
    /// Multiplier of BM25 on an item's context (a turn's previous turn) relative to the body (0: the
    /// context is not searched).
    pub context_boost: f32,
    /// Candidates each lane contributes before fusion (at least `k`).
    pub pool: usize,
    /// At most this many distinct query terms are used (the rarest ones, for very long prompts).
    pub max_query_terms: usize,
    /// Lanes that run (`lexical`, `vector`, `tags`, `recency`); a lane also needs a weight above 0, and
    /// the vector lane an embedding model.
    pub lanes: Vec<String>,
    /// The absolute scales of [`Fusion::Calibrated`].
    pub calibration: Calibration,
    /// The relevance floor: when no candidate's relevance (on one absolute scale whatever the fusion:
    /// its best of coverage of the query, calibrated cosine, tags' share of the query, date fit)
    /// reaches it, recall has no hits, so a query about nothing in memory gets none. 0 turns it off.
    pub floor: f32,
    /// The floor for a question about the asker's own life, things or wishes ("what does my sister
    /// do?", "which antibiotic am I allergic to?"; not requests or how-tos: `personal.rs`), which a
    /// personal memory is presumed to hold: the lower of this and `floor`. It applies only when some
    /// word of the question occurs in scope.
    pub personal_floor: f32,
    /// The lexical lane's weight in fusion for a question about the asker ([`personal_floor`]'s
    /// questions), relative to `weights.lexical`: asked in the asker's own words of notes written in
    /// other words, such a question shares incidental words ("pay", "big") with notes about something
    /// else, while its meaning finds the note it paraphrases. 1: as for any query. Only with a query
    /// vector: without meaning, the words are all there is.
    ///
    /// [`personal_floor`]: RecallSettings::personal_floor
    pub personal_lexical: f32,
    /// Whether a question about the world in a general form with no word about the asker ("how does
    /// a heat pump's efficiency change in the cold?", "why does sourdough go stale slowly?": `world.rs`)
    /// is relevant by its words alone (coverage, tags, dates), not by its meaning: near a person's
    /// notes on heat pumps or sourdough, it asks how things are, not what the notes hold.
    pub world_needs_words: bool,
    /// Files about the asker, workspace-relative (OpenClaw's `USER.md`): their chunks are candidates
    /// only for a prompt about the asker, and relevant (modestly) to one that asks how the assistant
    /// should treat them ("what nickname should you use for me?"; `profile.rs`). Empty: no such rule.
    pub profile_files: Vec<String>,
    /// Whether the people a question names by their relation to the asker ("my other half's mum",
    /// "our kid", "my nephew") are looked up in memory and their names added to the query beside it
    /// (`relations.rs`).
    pub relations: bool,
    /// Public holidays recognised by name in date expressions (`us`, `uk`).
    pub holidays: Vec<String>,
    /// Candidates the lexical lane contributes when something can lift a lexical runner-up (at least
    /// `pool`): the vector lane, or neighbour lending when the index holds linked turns. Otherwise the
    /// lexical lane contributes `pool`.
    pub lexical_pool: usize,
    /// Candidates the vector lane contributes (at least `pool`).
    pub vector_pool: usize,
    /// Semantic fallback: when the lexical lane finds fewer than this many candidates, the vector lane
    /// runs even if it is not among `lanes` (0: never).
    pub semantic_fallback: usize,
    /// Maximal marginal relevance re-ranking of the fused list: `λ·relevance − (1−λ)·max similarity to
    /// the hits above` (needs vectors). 1.0 (or no model) leaves the order alone.
    pub mmr_lambda: f32,
    /// BM25 statistics (document frequencies) counted over the documents in the query's scope, not the
    /// whole index, whenever the scope restricts the project or hides private items (see `stats.rs`).
    pub scoped_statistics: bool,
    /// Consecutive conversation turns lend each other score: a candidate gains this share of the best
    /// fused score of the turn just before or after it in its session, when that turn is a candidate
    /// too (an answer sits next to the question that names its subject). 0: off.
    pub neighbour_boost: f32,
    /// On an index of 20,000 chunks or more, a recall that runs alone in its process (no other recall,
    /// no query embedding) shares its work with a helper thread (see `cairn_core::helper`): block-max
    /// WAND over half the segments, and reading hits ahead while the other lanes run. The hits are the
    /// same on one thread or two; `false` keeps every recall on the calling thread.
    pub parallel: bool,
}

impl RecallSettings {
    /// Whether a lane is configured to run (listed in `lanes` with a positive weight).
    pub fn lane_on(&self, name: &str) -> bool {
        self.weights.get(name) > 0.0 && self.lanes.iter().any(|l| l == name)
    }

    /// Keeps only `lanes` (by name) switched on; the others get weight 0, and without the vector lane
    /// the semantic fallback is off too (only the lanes asked for run).
    pub fn only_lanes(mut self, lanes: &[&str]) -> Self {
        self.lanes = lanes.iter().map(|l| (*l).to_owned()).collect();
        if !lanes.contains(&lane::VECTOR) {
            self.semantic_fallback = 0;
        }
        let w = &mut self.weights;
        for (name, weight) in [
            (lane::LEXICAL, &mut w.lexical),
            (lane::VECTOR, &mut w.vector),
            (lane::TAGS, &mut w.tags),
            (lane::RECENCY, &mut w.recency),
            (lane::DATE, &mut w.date),
        ] {
            if !lanes.contains(&name) {
                *weight = 0.0;
            } else if *weight == 0.0 {
                *weight = 1.0;
            }
        }
        self
    }
}

impl Default for RecallSettings {
    fn default() -> Self {
        RecallSettings {
            weights: LaneWeights::default(),
            fusion: Fusion::Weighted,
            half_life_days: 30.0,
            title_boost: 2.0,
            context_boost: 0.3,
            pool: 10,
            max_query_terms: 48,
            lanes: ALL_LANES.iter().map(|l| (*l).to_owned()).collect(),
            calibration: Calibration::default(),
            floor: DEFAULT_FLOOR,
            personal_floor: DEFAULT_PERSONAL_FLOOR,
            personal_lexical: DEFAULT_PERSONAL_LEXICAL,
            world_needs_words: true,
            profile_files: vec!["USER.md".into()],
            relations: true,
            holidays: vec!["us".to_owned(), "uk".to_owned()],
            lexical_pool: 50,
            vector_pool: 30,
            semantic_fallback: 3,
            mmr_lambda: 1.0,
            scoped_statistics: true,
            neighbour_boost: 0.3,
            parallel: true,
        }
    }
}

/// The default relevance floor ([`RecallSettings::floor`]); see `BENCHMARKS.md` for the score
/// distributions of on-topic and off-topic questions it was chosen from.
pub const DEFAULT_FLOOR: f32 = 0.5;

/// The default floor for questions about the asker ([`RecallSettings::personal_floor`]).
pub const DEFAULT_PERSONAL_FLOOR: f32 = 0.2;

/// The default lexical weight for questions about the asker ([`RecallSettings::personal_lexical`]),
/// chosen on the first three labelled workspaces (`BENCHMARKS.md`).
pub const DEFAULT_PERSONAL_LEXICAL: f32 = 0.7;

/// One recall request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallQuery {
    /// The prompt or question, any length, any script.
    pub text: String,
    /// Who is asking, over which project. Applied inside every lane.
    pub scope: Scope,
    /// Number of hits.
    pub k: usize,
    /// Number of most recent chunks in scope to return in [`RecallResult::recent`] (0: none).
    pub recent_k: usize,
    /// The time recency is measured from (pass it in: tests stay deterministic).
    pub now: Millis,
    /// Memory files the asker's host injects whole (a session's bootstrap files, such as `USER.md`),
    /// workspace-relative: their chunks are no candidates, so what is relevant is judged without them.
    pub bootstrapped: Vec<String>,
}

impl RecallQuery {
    /// A query for `k` hits in `scope`, no recent list, measured from `now`.
    pub fn new(text: impl Into<String>, scope: Scope, k: usize, now: Millis) -> Self {
        RecallQuery { text: text.into(), scope, k, recent_k: 0, now, bootstrapped: Vec::new() }
    }
}

/// What recall found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallResult {
    /// Ranked hits, best first; ties broken by chunk id (exact within the lanes' candidate pools).
    pub hits: Vec<Hit>,
    /// The most recent chunks in scope, newest first (for the assembler's recency layer).
    pub recent: Vec<Hit>,
    /// Tags inferred from the query (only tags that some chunk in scope carries).
    pub query_tags: Vec<String>,
    /// Analysed query terms that were searched (stems and CJK bigrams).
    pub query_terms: Vec<String>,
    /// One report per lane, in the order lexical, vector, tags, recency, date.
    pub lanes: Vec<LaneReport>,
    /// Date expressions of the query and the days they cover (`mid-March: 2026-03-11..2026-03-20`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_dates: Vec<String>,
    /// Relations to the asker the query names and the people memory says hold them, whose names were
    /// added to the query (`my nephew: Abena, Kojo`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_people: Vec<String>,
    /// The best candidate's relevance against the floor, and how many candidates fell below it.
    pub relevance: Relevance,
    /// Problems that did not stop recall (a hit that could not be read, ...). No item text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The query's terms with the weight each carries in the relevance floor: what hits from outside
    /// the index are scored with ([`score_external`]).
    #[serde(skip)]
    pub weights: QueryWeights,
}

/// What an index generation holds, for the lanes to skip work that cannot matter.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// A chunk links to a previous turn (some segment's previous-key column is above 0): neighbour
    /// lending can lift a lexical runner-up.
    turn_links: bool,
    /// A chunk has a context (the context field holds tokens): its BM25 clauses can match.
    contexts: bool,
}

/// Documents from which a recall uses the helper thread (for block-max WAND over part of the
/// segments, and to read hits ahead): below, handing work over costs about what it saves.
const PARALLEL_FROM: u64 = 20_000;

/// Answers [`RecallQuery`]s from a [`RecallIndex`] (and a [`VectorLane`], when a model is configured)
/// without touching the store.
///
/// Cheap to share (`&self` everywhere); call [`Recaller::reload`] after a writer commits.
pub struct Recaller {
    index: RecallIndex,
    reader: IndexReader,
    settings: RecallSettings,
    recent_cache: Mutex<Option<(u64, Option<ByDate>)>>,
    stores: Mutex<Option<(u64, Stores)>>,
    shape: Mutex<Option<(u64, Shape)>>,
    /// The chunks of memory files by path, for the profile step; one index generation's.
    file_chunks: Mutex<(u64, HashMap<String, Arc<FileChunks>>)>,
    id_ranks: Mutex<Option<(u64, Option<IdRanks>)>>,
    vectors: Option<VectorLane>,
    scope_counts: Arc<ScopeCounts>,
}

impl std::fmt::Debug for Recaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recaller").field("index", &self.index).field("settings", &self.settings).finish()
    }
}

impl Recaller {
    /// A recaller over `index` with `settings`. Reads the last committed state; see [`Recaller::reload`].
    pub fn new(index: &RecallIndex, settings: RecallSettings) -> Result<Recaller> {
        let reader = index
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(Error::engine("open reader"))?;
        Ok(Recaller {
            index: index.clone(),
            reader,
            settings,
            recent_cache: Mutex::new(None),
            stores: Mutex::new(None),
            shape: Mutex::new(None),
            file_chunks: Mutex::new((u64::MAX, HashMap::new())),
            id_ranks: Mutex::new(None),
            vectors: None,
            scope_counts: Default::default(),
        })
    }

    /// Adds the vector lane (or removes it with `None`).
    pub fn with_vectors(mut self, lane: Option<VectorLane>) -> Self {
        self.vectors = lane;
        self
    }

    /// The vector lane, when one is attached.
    pub fn vectors(&self) -> Option<&VectorLane> {
        self.vectors.as_ref()
    }

    /// Picks up the writer's latest commit.
    pub fn reload(&self) -> Result<()> {
        self.reader.reload().map_err(Error::engine("reload reader"))
    }

    /// The settings in use.
    pub fn settings(&self) -> &RecallSettings {
        &self.settings
    }

    /// Number of chunks visible to this recaller (all scopes).
    pub fn num_chunks(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Runs every enabled lane and fuses them. Never fails: a failing lane is reported as
    /// [`LaneStatus::Failed`] in [`RecallResult::lanes`] and the others still contribute.
    ///
    /// [`LaneStatus::Failed`]: cairn_core::LaneStatus::Failed
    pub fn recall(&self, q: &RecallQuery) -> RecallResult {
        // The people the query names by relation, written in beside it, for every lane to see.
        let people = self.with_people(&self.reader.searcher(), q);
        let (q, said) = match &people {
            Some((named, said)) => (named, said.clone()),
            None => (q, Vec::new()),
        };
        let mut result = match &self.vectors {
            // The query embedding (milliseconds of model time) runs on a second thread while the
            // lexical, tag and recency lanes run on this one.
            Some(v) if self.settings.lane_on(lane::VECTOR) => std::thread::scope(|sc| {
                let pending = sc.spawn(|| embed_query(v, &q.text));
                let join: PendingQuery<'_> = Box::new(move || {
                    pending.join().unwrap_or_else(|_| Err("the embedder panicked".to_owned()))
                });
                self.recall_with(q, Some(join))
            }),
            _ => self.recall_with(q, None),
        };
        result.query_people = said;
        result
    }

    /// One recall: the lanes in order (lexical, vector, tags, recency; the query vector may be
    /// `pending` on another thread), fusion, the cut to `k`, the hits.
    fn recall_with(&self, q: &RecallQuery, pending: Option<PendingQuery<'_>>) -> RecallResult {
        let _running = helper::running();
        let searcher = self.reader.searcher();
        let s = &self.settings;
        // The helper thread takes part on a large index when nothing else runs: no other recall, and
        // no query embedding (its thread has the other core).
        let parallel =
            s.parallel && pending.is_none() && searcher.num_docs() >= PARALLEL_FROM && helper::alone();
        let pool = s.pool.max(q.k);
        // The deeper lexical pool serves what can lift a lexical runner-up: hybrid fusion, and lending
        // between linked turns. Without either, the smaller pool lets block-max WAND prune sooner.
        let hybrid = self.vectors.is_some() && s.lane_on(lane::VECTOR);
        let lending = s.neighbour_boost > 0.0 && self.shape(&searcher).turn_links;
        let lexical_pool = if hybrid || lending { s.lexical_pool.max(pool) } else { pool };
        let mut found = Found::default();
        let terms = self.query_terms(&searcher, &q.text);
        let stores = self.stores(&searcher);
        // The recent list (from a list sorted once per index generation): its hits are read ahead.
        let recent_list =
            if q.recent_k > 0 { Some(self.recent(&searcher, &q.scope, q.recent_k)) } else { None };
        let mut ahead: Vec<DocAddress> =
            recent_list.iter().flat_map(|r| r.iter().flatten().map(|(_, a)| *a)).collect();
        ahead.extend(self.lexical_step(&searcher, q, &mut found, &terms, lexical_pool, parallel));
        let lexical_found = found.cands.len();
        // The helper thread, free again, reads hits ahead while this one runs the other lanes.
        let reader = HitReader::new(&searcher, stores, parallel.then_some(ahead));
        let (query_vec, vector_weight) = self.vector_step(&searcher, q, &mut found, pool, pending);
        let query_tags = self.tag_step(&searcher, q, &mut found, pool);
        let dates = if s.lane_on(lane::DATE) {
            let locales = lanes::date::locales(&s.holidays);
            let mut dates = QueryDates::of(&q.text, q.now, &locales);
            if let Some(read) = self.birthday_dates(&searcher, q, &locales, &dates) {
                dates = read;
            }
            self.event_dates(&searcher, q, &locales, &mut dates);
            dates
        } else {
            QueryDates::default()
        };
        self.date_step(&searcher, q, &dates, &mut found, lexical_pool.max(pool));
        // The asker's profile: no candidate for a prompt about something else; relevant to one about
        // how the assistant should treat the asker.
        let personal = personal::about_the_asker(&q.text);
        self.profile_step(&searcher, q, &mut found, personal);
        // Tag matches, recency and date fit for every candidate, from fast fields.
        let decay = Decay::new(s.half_life_days, q.now);
        let need_tags = !query_tags.is_empty();
        if let Err(e) = self.annotate(&searcher, &mut found.cands, &query_tags, need_tags, &decay, &dates) {
            found.warnings.push(format!("reading tags and dates failed: {e}"));
        }
        let mut recent = self.recency_step(q, &mut found, recent_list, &reader, &decay);
        profile::without_bootstrapped(q, &mut recent);
        let sims = self.similarities(&searcher, &mut found, &terms, query_vec.as_deref());
        self.person_step(&searcher, &q.text, &mut found, &sims);
        let lexical_full = lexical_found >= lexical_pool;
        let tag_shares =
            TagShares::new(&query_tags, &terms, found.term_idf.as_ref().map(|w| w.idf.as_slice()))
                .named_in(&q.text, &query_tags);
        let mut fused = self.fuse(&found, &sims, lexical_full, &tag_shares, vector_weight, personal);
        self.order(&searcher, &mut fused, &mut found.warnings, lending, query_vec.is_some(), q.k);
        let Found { term_idf, warnings, affinity, .. } = &mut found;
        let (relevance, matched, weights) = self.apply_floor(
            &searcher,
            floor::Weighed {
                text: &q.text,
                personal,
                terms: &terms,
                weights: term_idf.as_ref(),
                affinity: *affinity,
                dates: &dates,
            },
            &mut fused,
            warnings,
        );
        let weights = weights.unwrap_or_else(|| QueryWeights::uniform(&q.text));
        let fused = self.cut_to_k(&searcher, fused, q.k, reader.stores());
        let hits = self.read_hits(&mut found, fused, &reader, &query_tags, &recent);
        let mut hits = self.best_explained(&searcher, hits, &terms, q.k, &matched, &mut found.warnings);
        self.focus(&mut hits, query_vec.as_deref());
        // Reports in the one documented order, whatever order the steps ran in.
        found.lanes.sort_by_key(|l| ALL_LANES.iter().position(|n| *n == l.name));
        RecallResult {
            hits,
            recent,
            query_tags,
            query_terms: terms.into_iter().map(|t| t.term).collect(),
            lanes: found.lanes,
            query_dates: dates.describe(),
            query_people: Vec::new(),
            relevance,
            warnings: found.warnings,
            weights,
        }
    }

    /// What this index generation holds ([`Shape`]); read once per generation.
    fn shape(&self, searcher: &Searcher) -> Shape {
        let generation = searcher.generation().generation_id();
        let mut cache = self.shape.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, shape)) = *cache
            && g == generation
        {
            return shape;
        }
        let readers = searcher.segment_readers();
        let shape = Shape {
            // Errors count as present: the caller then does the general thing.
            turn_links: readers
                .iter()
                .any(|r| r.fast_fields().u64(F_PREVIOUS_KEY).map_or(true, |c| c.max_value() > 0)),
            contexts: readers.iter().any(|r| {
                r.inverted_index(self.index.fields.context).map_or(true, |inv| inv.total_num_tokens() > 0)
            }),
        };
        *cache = Some((generation, shape));
        shape
    }
}
