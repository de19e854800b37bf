//! Retrieval evaluation on a labelled corpus in the LoCoMo JSONL format.
//!
//! Documents: `{"id", "text", "conversation", "timestamp"?, "speaker"?, "title"?, "tags"?}` per line.
//! Queries: `{"id", "conversation", "question", "evidence": [doc ids], "category"}` per line.
//! Each document becomes one item (project = its conversation) in an in-memory index; each question is
//! scoped to its conversation. Hits are deduplicated by item, so `k` counts items.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance, Scope, content_hash};
use cairn_embed::{EmbedKind, Embedder};
use cairn_vector::{VectorIndex, VectorSettings};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::index::RecallIndex;
use crate::recall::{RecallQuery, RecallSettings, Recaller, VectorLane};

/// One corpus document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalDoc {
    /// Unique id; evidence refers to it.
    pub id: String,
    /// The text.
    pub text: String,
    /// The conversation (becomes the item's project; questions are scoped to it).
    pub conversation: String,
    /// ISO 8601 date-time (`2023-05-08T13:56:00`), optional.
    #[serde(default)]
    pub timestamp: Option<String>,
    /// Who said it, optional.
    #[serde(default)]
    pub speaker: Option<String>,
    /// A title, optional.
    #[serde(default)]
    pub title: Option<String>,
    /// Tags, optional.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The date as written in the source (`1:56 pm on 8 May, 2023`), optional.
    #[serde(default)]
    pub date: Option<String>,
    /// The session within the conversation, optional.
    #[serde(default)]
    pub session: Option<serde_json::Value>,
}

/// What text a corpus document is embedded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocText {
    /// The text alone.
    Plain,
    /// The date, then the text.
    Dated,
    /// The previous turn of the same session, then the text.
    #[default]
    PreviousTurn,
    /// The date, the previous turn of the same session, then the text.
    DatedPreviousTurn,
}

impl DocText {
    /// The embedding text of `docs[i]`.
    pub fn render(self, docs: &[EvalDoc], i: usize) -> String {
        let d = &docs[i];
        let prev = (i > 0)
            .then(|| &docs[i - 1])
            .filter(|p| p.conversation == d.conversation && p.session == d.session);
        let date = d.date.as_deref().or(d.timestamp.as_deref()).unwrap_or("");
        let with_prev = |t: String| match prev {
            Some(p) => format!("{}\n{t}", p.text),
            None => t,
        };
        match self {
            DocText::Plain => d.text.clone(),
            DocText::Dated => format!("[{date}] {}", d.text),
            DocText::PreviousTurn => with_prev(d.text.clone()),
            DocText::DatedPreviousTurn => format!("[{date}] {}", with_prev(d.text.clone())),
        }
    }
}

/// One labelled question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalQuery {
    /// Unique id.
    pub id: String,
    /// The conversation it is about (its scope).
    pub conversation: String,
    /// The question text.
    pub question: String,
    /// Ids of the documents that answer it.
    pub evidence: Vec<String>,
    /// Category label (a number or a string); reported per category.
    #[serde(default)]
    pub category: serde_json::Value,
}

/// How the evaluation runs.
#[derive(Clone)]
pub struct EvalOptions {
    /// Cut-offs for Recall@k and Hit@k (NDCG is always @10).
    pub ks: Vec<usize>,
    /// Recall settings (lexical-only by default: see [`EvalOptions::lexical`]).
    pub settings: RecallSettings,
    /// The embedder for the vector lane; `None`: no vector lane.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// What each document is embedded as.
    pub doc_text: DocText,
    /// Vector index settings.
    pub vector: VectorSettings,
}

impl std::fmt::Debug for EvalOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalOptions")
            .field("ks", &self.ks)
            .field("settings", &self.settings)
            .field("embedder", &self.embedder.as_ref().map(|e| e.model_id().to_owned()))
            .field("doc_text", &self.doc_text)
            .finish()
    }
}

impl EvalOptions {
    /// Lexical lane only, cut-offs `ks`.
    pub fn lexical(ks: Vec<usize>) -> Self {
        let settings = RecallSettings::default().only_lanes(&[crate::lane::LEXICAL]);
        EvalOptions {
            ks,
            settings,
            embedder: None,
            doc_text: DocText::default(),
            vector: VectorSettings::default(),
        }
    }
}

/// One named configuration of an [`evaluate_runs`] call.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalRun {
    /// Row label (`lexical`, `vector`, `hybrid`, ...).
    pub name: String,
    /// Recall settings of this run.
    pub settings: RecallSettings,
}

/// Averages over a set of questions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Number of questions.
    pub n: usize,
    /// Recall@k: fraction of evidence documents in the top k, averaged.
    pub recall: BTreeMap<usize, f64>,
    /// Hit@k: fraction of questions with at least one evidence document in the top k.
    pub hit: BTreeMap<usize, f64>,
    /// NDCG@10 with binary relevance.
    pub ndcg10: f64,
}

/// The outcome of [`evaluate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Documents indexed.
    pub documents: usize,
    /// Questions asked.
    pub questions: usize,
    /// Cut-offs.
    pub ks: Vec<usize>,
    /// All questions.
    pub overall: Metrics,
    /// Per category label.
    pub by_category: BTreeMap<String, Metrics>,
    /// Time to build the index, milliseconds.
    pub index_ms: f64,
    /// Median time per question (recall only), microseconds.
    pub query_p50_us: f64,
    /// The settings used.
    pub settings: RecallSettings,
    /// Run label (see [`evaluate_runs`]).
    #[serde(default)]
    pub name: String,
    /// The embedding model, when the vector lane was available.
    #[serde(default)]
    pub model_id: Option<String>,
    /// Time to embed the corpus, milliseconds (shared by every run of one call).
    #[serde(default)]
    pub embed_ms: f64,
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(line).map_err(|e| Error::BadLine {
            path: path.to_owned(),
            line: i + 1,
            message: e.to_string(),
        })?);
    }
    Ok(out)
}

/// Reads a corpus file.
pub fn load_corpus(path: &Path) -> Result<Vec<EvalDoc>> {
    read_jsonl(path)
}

/// Reads a questions file.
pub fn load_queries(path: &Path) -> Result<Vec<EvalQuery>> {
    read_jsonl(path)
}

/// Parses `YYYY-MM-DD[THH:MM[:SS]]` (UTC assumed) into milliseconds since the epoch.
pub fn parse_timestamp(s: &str) -> Option<Millis> {
    let s = s.trim();
    let (date, time) = s.split_once(['T', ' ']).unwrap_or((s, ""));
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut t = time
        .trim_end_matches('Z')
        .splitn(3, ':')
        .map(|p| p.split('.').next().and_then(|x| x.parse::<i64>().ok()));
    let hh = t.next().flatten().unwrap_or(0);
    let mm = t.next().flatten().unwrap_or(0);
    let ss = t.next().flatten().unwrap_or(0);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000)
}

/// The item and single chunk a corpus document becomes.
pub fn doc_to_item(doc: &EvalDoc) -> (Item, Chunk) {
    let created_at = doc.timestamp.as_deref().and_then(parse_timestamp).unwrap_or(0);
    let hash = content_hash(doc.text.as_bytes());
    let provenance = Provenance::External { source: format!("eval:{}", doc.id) };
    let item = Item {
        id: doc.id.clone(),
        project: doc.conversation.clone(),
        kind: ItemKind::Doc,
        title: doc.title.clone().unwrap_or_default(),
        text: doc.text.clone(),
        tags: doc.tags.clone(),
        audience: Audience::Private,
        provenance: provenance.clone(),
        content_hash: hash.clone(),
        created_at,
        observed_at: created_at,
        metadata: Default::default(),
    };
    let chunk = Chunk {
        id: Chunk::make_id(&doc.id, 0),
        item_id: doc.id.clone(),
        ordinal: 0,
        heading: String::new(),
        text: doc.text.clone(),
        provenance,
        content_hash: hash,
    };
    (item, chunk)
}

fn category_label(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "none".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[derive(Default)]
struct Acc {
    n: usize,
    recall: BTreeMap<usize, f64>,
    hit: BTreeMap<usize, f64>,
    ndcg: f64,
}

impl Acc {
    fn add(&mut self, ks: &[usize], ranked: &[String], evidence: &HashSet<&str>) {
        self.n += 1;
        for &k in ks {
            let found = ranked.iter().take(k).filter(|id| evidence.contains(id.as_str())).count();
            *self.recall.entry(k).or_default() += found as f64 / evidence.len().max(1) as f64;
            *self.hit.entry(k).or_default() += f64::from(u8::from(found > 0));
        }
        let dcg: f64 = ranked
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, id)| evidence.contains(id.as_str()))
            .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        let idcg: f64 = (0..evidence.len().min(10)).map(|i| 1.0 / (i as f64 + 2.0).log2()).sum();
        if idcg > 0.0 {
            self.ndcg += dcg / idcg;
        }
    }

    fn finish(self) -> Metrics {
        let n = self.n.max(1) as f64;
        Metrics {
            n: self.n,
            recall: self.recall.into_iter().map(|(k, v)| (k, v / n)).collect(),
            hit: self.hit.into_iter().map(|(k, v)| (k, v / n)).collect(),
            ndcg10: self.ndcg / n,
        }
    }
}

/// Indexes `docs` in memory, asks every question in its conversation's scope, and scores the ranking.
pub fn evaluate(docs: &[EvalDoc], queries: &[EvalQuery], opts: &EvalOptions) -> Result<EvalReport> {
    let run = EvalRun { name: "run".into(), settings: opts.settings.clone() };
    let mut reports = evaluate_runs(docs, queries, opts, std::slice::from_ref(&run))?;
    Ok(reports.remove(0))
}

/// Like [`evaluate`], once per run, indexing (and embedding) the corpus only once. With an embedder,
/// every document is embedded (as [`EvalOptions::doc_text`] says) and each run's vector lane reads
/// those vectors; `opts.settings` is ignored in favour of each run's.
pub fn evaluate_runs(
    docs: &[EvalDoc],
    queries: &[EvalQuery],
    opts: &EvalOptions,
    runs: &[EvalRun],
) -> Result<Vec<EvalReport>> {
    let started = Instant::now();
    let index = RecallIndex::in_memory();
    let mut writer = index.writer()?;
    for doc in docs {
        let (item, chunk) = doc_to_item(doc);
        writer.upsert(&item, &[chunk])?;
    }
    writer.commit(docs.len() as u64)?;
    writer.finish()?;
    let index_ms = started.elapsed().as_secs_f64() * 1000.0;

    let started = Instant::now();
    let lane = match &opts.embedder {
        Some(e) => {
            let mut vindex = VectorIndex::new(e.model_id(), e.dim(), opts.vector.clone());
            let texts: Vec<String> = (0..docs.len()).map(|i| opts.doc_text.render(docs, i)).collect();
            for (batch_no, batch) in texts.chunks(64).enumerate() {
                let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
                let vecs =
                    e.embed(&refs, EmbedKind::Document).map_err(|err| Error::Embed(err.to_string()))?;
                for (j, v) in vecs.iter().enumerate() {
                    let (item, chunk) = doc_to_item(&docs[batch_no * 64 + j]);
                    vindex
                        .upsert(&chunk.id, &item.id, &item.project, item.audience, v)
                        .map_err(|err| Error::Embed(err.to_string()))?;
                }
            }
            vindex.maintain();
            let cached: Arc<dyn Embedder> =
                Arc::new(QueryCache { inner: e.clone(), cache: Default::default() });
            Some(VectorLane { embedder: cached, index: Arc::new(RwLock::new(vindex)) })
        }
        None => None,
    };
    let embed_ms = started.elapsed().as_secs_f64() * 1000.0;
    runs.iter()
        .map(|run| {
            let recaller = Recaller::new(&index, run.settings.clone())?.with_vectors(lane.clone());
            let mut report = ask(&recaller, docs, queries, &opts.ks, &run.settings)?;
            report.index_ms = index_ms;
            report.embed_ms = embed_ms;
            report.name = run.name.clone();
            report.model_id = opts.embedder.as_ref().map(|e| e.model_id().to_owned());
            Ok(report)
        })
        .collect()
}

/// Remembers query vectors, so runs after the first one do not embed the same questions again.
struct QueryCache {
    inner: Arc<dyn Embedder>,
    cache: std::sync::Mutex<std::collections::HashMap<String, Vec<f32>>>,
}

impl Embedder for QueryCache {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn embed(&self, texts: &[&str], kind: EmbedKind) -> cairn_embed::Result<Vec<Vec<f32>>> {
        if let [text] = texts {
            if let Some(v) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(*text) {
                return Ok(vec![v.clone()]);
            }
            let v = self.inner.embed(texts, kind)?;
            if let Some(first) = v.first() {
                self.cache
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert((*text).to_owned(), first.clone());
            }
            return Ok(v);
        }
        self.inner.embed(texts, kind)
    }
}

fn ask(
    recaller: &Recaller,
    docs: &[EvalDoc],
    queries: &[EvalQuery],
    ks: &[usize],
    settings: &RecallSettings,
) -> Result<EvalReport> {
    let max_k = ks.iter().copied().max().unwrap_or(10).max(10);
    let now = docs.iter().filter_map(|d| d.timestamp.as_deref().and_then(parse_timestamp)).max().unwrap_or(0);
    let mut overall = Acc::default();
    let mut by_cat: BTreeMap<String, Acc> = BTreeMap::new();
    let mut times = Vec::with_capacity(queries.len());
    for q in queries {
        let scope = Scope::owner(Some(q.conversation.clone()));
        let rq = RecallQuery::new(q.question.clone(), scope, max_k * 2, now);
        let t = Instant::now();
        let result = recaller.recall(&rq);
        times.push(t.elapsed().as_secs_f64() * 1e6);
        let mut ranked: Vec<String> = Vec::with_capacity(max_k);
        for h in result.hits {
            if !ranked.contains(&h.item_id) {
                ranked.push(h.item_id);
            }
        }
        let evidence: HashSet<&str> = q.evidence.iter().map(String::as_str).collect();
        overall.add(ks, &ranked, &evidence);
        by_cat.entry(category_label(&q.category)).or_default().add(ks, &ranked, &evidence);
    }
    times.sort_by(f64::total_cmp);
    let query_p50_us = times.get(times.len() / 2).copied().unwrap_or(0.0);
    Ok(EvalReport {
        documents: docs.len(),
        questions: queries.len(),
        ks: ks.to_vec(),
        overall: overall.finish(),
        by_category: by_cat.into_iter().map(|(k, v)| (k, v.finish())).collect(),
        index_ms: 0.0,
        query_p50_us,
        settings: settings.clone(),
        name: String::new(),
        model_id: None,
        embed_ms: 0.0,
    })
}

impl EvalReport {
    /// A plain-text table: one row per category and one for all questions.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let mut header = format!("{:<10} {:>6}", "category", "n");
        for k in &self.ks {
            header.push_str(&format!(" {:>9}", format!("Recall@{k}")));
        }
        for k in &self.ks {
            header.push_str(&format!(" {:>7}", format!("Hit@{k}")));
        }
        header.push_str(&format!(" {:>8}", "NDCG@10"));
        out.push_str(&header);
        out.push('\n');
        let row = |name: &str, m: &Metrics| {
            let mut line = format!("{name:<10} {:>6}", m.n);
            for k in &self.ks {
                line.push_str(&format!(" {:>9.3}", m.recall.get(k).copied().unwrap_or(0.0)));
            }
            for k in &self.ks {
                line.push_str(&format!(" {:>7.3}", m.hit.get(k).copied().unwrap_or(0.0)));
            }
            line.push_str(&format!(" {:>8.3}\n", m.ndcg10));
            line
        };
        for (cat, m) in &self.by_category {
            out.push_str(&row(cat, m));
        }
        out.push_str(&row("overall", &self.overall));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01"), Some(0));
        assert_eq!(parse_timestamp("1970-01-02T00:00:01"), Some(86_401_000));
        assert_eq!(parse_timestamp("2023-05-08T13:56:00"), Some(1_683_554_160_000));
        assert_eq!(parse_timestamp("2000-02-29T00:00:00Z"), Some(951_782_400_000));
        assert_eq!(parse_timestamp("nope"), None);
        assert_eq!(parse_timestamp("2023-13-01"), None);
    }

    #[test]
    fn metrics() {
        let mut acc = Acc::default();
        let ranked: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        acc.add(&[1, 2], &ranked, &HashSet::from(["b", "z"]));
        let m = acc.finish();
        assert_eq!(m.recall[&1], 0.0);
        assert_eq!(m.recall[&2], 0.5);
        assert_eq!(m.hit[&2], 1.0);
        let idcg = 1.0 + 1.0 / 3f64.log2();
        assert!((m.ndcg10 - (1.0 / 3f64.log2()) / idcg).abs() < 1e-9);
    }
}
