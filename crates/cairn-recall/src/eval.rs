//! Retrieval evaluation on a labelled corpus in the LoCoMo JSONL format.
//!
//! Documents: `{"id", "text", "conversation", "timestamp"?, "speaker"?, "title"?, "tags"?}` per line.
//! Queries: `{"id", "conversation", "question", "evidence": [doc ids], "category"}` per line.
//! Each document becomes one item (project = its conversation) in an in-memory index: a conversation turn
//! when it has a session (its context is the turn before it, as for captured turns), else a note. Each
//! question is scoped to its conversation. Hits are deduplicated by item, so `k` counts items.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use cairn_core::{Audience, Chunk, Item, ItemKind, Millis, Provenance, Scope, content_hash, embed_text};
use cairn_embed::{ChunkText, EmbedKind, Embedder};
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
    /// Documents with a session become conversation turns whose context is the turn before them (as
    /// captured turns are); `false`: every document stands alone.
    pub turn_context: bool,
    /// Vector index settings.
    pub vector: VectorSettings,
    /// Directory of the embedding cache (see [`EmbedCache`]); `None`: embed everything.
    pub embed_cache: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for EvalOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalOptions")
            .field("ks", &self.ks)
            .field("settings", &self.settings)
            .field("embedder", &self.embedder.as_ref().map(|e| e.model_id().to_owned()))
            .field("turn_context", &self.turn_context)
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
            turn_context: true,
            vector: VectorSettings::default(),
            embed_cache: None,
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
    /// Each question's ranked item ids (top `max(k)`), in question order, for error analysis.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rankings: Vec<(String, Vec<String>)>,
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

/// The item and single chunk a corpus document becomes: a note (kind `doc`), or with a session a
/// conversation turn (kind `turn`, session key `<conversation>:S<session>`).
pub fn doc_to_item(doc: &EvalDoc) -> (Item, Chunk) {
    let created_at = doc.timestamp.as_deref().and_then(parse_timestamp).unwrap_or(0);
    let provenance = match session_key(doc) {
        Some(session_key) => {
            Provenance::Turn { session_key, turn_id: doc.id.rsplit(':').next().unwrap_or(&doc.id).to_owned() }
        }
        None => Provenance::External { source: format!("eval:{}", doc.id) },
    };
    let kind = if session_key(doc).is_some() { ItemKind::Turn } else { ItemKind::Doc };
    let item = Item {
        id: doc.id.clone(),
        project: doc.conversation.clone(),
        kind,
        title: doc.title.clone().unwrap_or_default(),
        text: doc.text.clone(),
        tags: doc.tags.clone(),
        audience: Audience::Private,
        provenance,
        content_hash: content_hash(doc.text.as_bytes()),
        created_at,
        observed_at: created_at,
        metadata: Default::default(),
    };
    let chunk = Chunk::whole(&item);
    (item, chunk)
}

/// The session key of a document that is a conversation turn.
fn session_key(doc: &EvalDoc) -> Option<String> {
    let session = match doc.session.as_ref()? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => return None,
        other => other.to_string(),
    };
    Some(format!("{}:S{session}", doc.conversation))
}

/// Every document as an item and chunk (see [`doc_to_item`]); with `turn_context`, each turn's context
/// (and previous item) is the turn before it in the corpus when both are of the same session, as capture
/// does with the previous recorded turn.
pub fn docs_to_items(docs: &[EvalDoc], turn_context: bool) -> Vec<(Item, Chunk)> {
    let mut out: Vec<(Item, Chunk)> = Vec::with_capacity(docs.len());
    for (i, doc) in docs.iter().enumerate() {
        let (mut item, chunk) = doc_to_item(doc);
        if turn_context
            && i > 0
            && let Some(key) = session_key(doc)
            && session_key(&docs[i - 1]).as_deref() == Some(key.as_str())
        {
            item.set_context(&docs[i - 1].text);
            item.set_previous(&docs[i - 1].id);
        }
        out.push((item, chunk));
    }
    out
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
/// every document is embedded (with its context when [`EvalOptions::turn_context`] is on) and each
/// run's vector lane reads those vectors; `opts.settings` is ignored in favour of each run's.
pub fn evaluate_runs(
    docs: &[EvalDoc],
    queries: &[EvalQuery],
    opts: &EvalOptions,
    runs: &[EvalRun],
) -> Result<Vec<EvalReport>> {
    let started = Instant::now();
    let index = RecallIndex::in_memory();
    let mut writer = index.writer()?;
    let items = docs_to_items(docs, opts.turn_context);
    for (item, chunk) in &items {
        writer.upsert(item, std::slice::from_ref(chunk))?;
    }
    writer.commit(docs.len() as u64)?;
    writer.finish()?;
    let index_ms = started.elapsed().as_secs_f64() * 1000.0;

    let started = Instant::now();
    let cache = match &opts.embedder {
        Some(e) => Some(Arc::new(EmbedCache::new(e.clone(), opts.embed_cache.as_deref())?)),
        None => None,
    };
    let lane = match &cache {
        Some(cache) => {
            let e = cache.clone();
            let mut vindex = VectorIndex::new(e.model_id(), e.dim(), opts.vector.clone());
            let wholes: Vec<String> = items
                .iter()
                .map(|(item, c)| embed_text(&item.title, &c.heading, &c.text, item.context().unwrap_or("")))
                .collect();
            let texts: Vec<ChunkText<'_>> = items
                .iter()
                .zip(&wholes)
                .map(|((item, c), whole)| ChunkText { whole, title: &item.title, text: &c.text })
                .collect();
            for (batch_no, batch) in texts.chunks(64).enumerate() {
                let vecs = cairn_embed::embed_chunks(e.as_ref(), batch)
                    .map_err(|err| Error::Embed(err.to_string()))?;
                for (j, v) in vecs.iter().enumerate() {
                    let (item, chunk) = &items[batch_no * 64 + j];
                    vindex
                        .upsert_with_lines(
                            &chunk.id,
                            &item.id,
                            &item.project,
                            item.audience,
                            &v.vector,
                            &v.lines,
                        )
                        .map_err(|err| Error::Embed(err.to_string()))?;
                }
            }
            vindex.maintain();
            cache.save()?;
            {
                let lane = VectorLane::new(cache.clone(), Arc::new(RwLock::new(vindex)));
                Some(match &opts.embed_cache {
                    Some(dir) => lane.keeping_general_in(dir),
                    None => lane,
                })
            }
        }
        None => None,
    };
    let embed_ms = started.elapsed().as_secs_f64() * 1000.0;
    let reports = runs
        .iter()
        .map(|run| {
            let recaller = Recaller::new(&index, run.settings.clone())?.with_vectors(lane.clone());
            let mut report = ask(&recaller, docs, queries, &opts.ks, &run.settings)?;
            report.index_ms = index_ms;
            report.embed_ms = embed_ms;
            report.name = run.name.clone();
            report.model_id = opts.embedder.as_ref().map(|e| e.model_id().to_owned());
            Ok(report)
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(cache) = &cache {
        cache.save()?;
    }
    Ok(reports)
}

/// Vectors of texts embedded before, keyed by model, kind and text, and optionally kept in a file: runs
/// after the first embed only the texts they have not seen (questions once per call, documents once per
/// cache file as long as their embedded text does not change).
pub struct EmbedCache {
    inner: Arc<dyn Embedder>,
    file: Option<std::path::PathBuf>,
    map: std::sync::Mutex<HashMap<String, Vec<f32>>>,
    fresh: std::sync::Mutex<Vec<(String, Vec<f32>)>>,
}

impl EmbedCache {
    /// A cache in front of `inner`; with `dir`, vectors are read from and appended to
    /// `dir/<model id>.vectors` (the directory is created on [`EmbedCache::save`]).
    pub fn new(inner: Arc<dyn Embedder>, dir: Option<&Path>) -> Result<Self> {
        let file = dir.map(|d| {
            let name: String = inner
                .model_id()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
                .collect();
            d.join(format!("{name}.vectors"))
        });
        let mut map = HashMap::new();
        if let Some(path) = &file {
            match std::fs::read(path) {
                Ok(bytes) => read_vectors(&bytes, inner.dim(), &mut map),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(Error::Io { action: "read", path: path.clone(), source }),
            }
        }
        Ok(EmbedCache { inner, file, map: std::sync::Mutex::new(map), fresh: Default::default() })
    }

    /// Number of cached vectors.
    pub fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the vectors embedded since the last save to the cache file (if there is one).
    pub fn save(&self) -> Result<()> {
        let Some(path) = &self.file else { return Ok(()) };
        let fresh = std::mem::take(&mut *self.fresh.lock().unwrap_or_else(|e| e.into_inner()));
        if fresh.is_empty() {
            return Ok(());
        }
        let io = |action: &'static str| {
            let path = path.clone();
            move |source| Error::Io { action, path, source }
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io("create directory"))?;
        }
        let mut out = Vec::with_capacity(fresh.len() * (36 + 4 * self.inner.dim()));
        for (key, v) in &fresh {
            out.extend_from_slice(key.as_bytes());
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io("open"))?;
        f.write_all(&out).map_err(io("write"))
    }

    fn key(kind: EmbedKind, text: &str) -> String {
        let tag = match kind {
            EmbedKind::Query => "q",
            EmbedKind::Document => "d",
        };
        content_hash(format!("{tag}\u{0}{text}").as_bytes())
    }
}

/// Cache file records: a 32-byte hex key, then `dim` little-endian f32s. A cut-off tail is ignored.
fn read_vectors(bytes: &[u8], dim: usize, map: &mut HashMap<String, Vec<f32>>) {
    let record = 32 + 4 * dim;
    for rec in bytes.chunks_exact(record) {
        let Ok(key) = std::str::from_utf8(&rec[..32]) else { continue };
        let v = rec[32..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        map.insert(key.to_owned(), v);
    }
}

impl Embedder for EmbedCache {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn embed(&self, texts: &[&str], kind: EmbedKind) -> cairn_embed::Result<Vec<Vec<f32>>> {
        let keys: Vec<String> = texts.iter().map(|t| Self::key(kind, t)).collect();
        let mut out: Vec<Option<Vec<f32>>> = {
            let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter().map(|k| map.get(k).cloned()).collect()
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let vecs = self.inner.embed(&batch, kind)?;
            let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
            let mut fresh = self.fresh.lock().unwrap_or_else(|e| e.into_inner());
            for (&i, v) in missing.iter().zip(vecs) {
                map.insert(keys[i].clone(), v.clone());
                if v.len() == self.inner.dim() {
                    fresh.push((keys[i].clone(), v.clone()));
                }
                out[i] = Some(v);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
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
    let mut rankings = Vec::with_capacity(queries.len());
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
        ranked.truncate(max_k);
        rankings.push((q.id.clone(), ranked.clone()));
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
        rankings,
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

    fn doc(id: &str, session: Option<u32>, text: &str) -> EvalDoc {
        serde_json::from_value(serde_json::json!({
            "id": id, "text": text, "conversation": "c", "session": session,
        }))
        .unwrap()
    }

    #[test]
    fn turns_get_the_previous_turn_of_their_session_as_context() {
        let docs = [
            doc("c:D1:1", Some(1), "A: hi"),
            doc("c:D1:2", Some(1), "B: hello"),
            doc("c:D2:1", Some(2), "A: new day"),
            doc("c:n", None, "a note"),
        ];
        let items = docs_to_items(&docs, true);
        let ctx: Vec<Option<&str>> = items.iter().map(|(i, _)| i.context()).collect();
        assert_eq!(ctx, [None, Some("A: hi"), None, None]);
        let previous: Vec<Option<&str>> = items.iter().map(|(i, _)| i.previous()).collect();
        assert_eq!(previous, [None, Some("c:D1:1"), None, None]);
        assert_eq!(items[1].0.kind, ItemKind::Turn);
        assert_eq!(
            items[1].0.provenance,
            Provenance::Turn { session_key: "c:S1".into(), turn_id: "2".into() }
        );
        assert_eq!(items[3].0.kind, ItemKind::Doc);
        assert!(docs_to_items(&docs, false).iter().all(|(i, _)| i.context().is_none()));
    }

    /// Counts the texts it embeds.
    struct Counting(std::sync::atomic::AtomicUsize);

    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            "m/1"
        }
        fn dim(&self) -> usize {
            2
        }
        fn embed(&self, texts: &[&str], _: EmbedKind) -> cairn_embed::Result<Vec<Vec<f32>>> {
            self.0.fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect())
        }
    }

    #[test]
    fn embed_cache_reuses_vectors_across_runs() {
        let dir = tempfile::tempdir().unwrap();
        let inner = Arc::new(Counting(Default::default()));
        let cache = EmbedCache::new(inner.clone(), Some(dir.path())).unwrap();
        let first = cache.embed(&["ab", "abc"], EmbedKind::Document).unwrap();
        cache.save().unwrap();
        let cache = EmbedCache::new(inner.clone(), Some(dir.path())).unwrap();
        assert_eq!(cache.len(), 2);
        assert_eq!(
            cache.embed(&["abc", "ab"], EmbedKind::Document).unwrap(),
            [first[1].clone(), first[0].clone()]
        );
        // A query of the same text is another entry.
        cache.embed(&["ab"], EmbedKind::Query).unwrap();
        assert_eq!(inner.0.load(std::sync::atomic::Ordering::SeqCst), 3);
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
