//! Relevance on a workspace, measured through the engine's own paths: labelled questions
//! ([`Question`]: a kind, the text, the files that answer it) asked of a harvested workspace, each
//! through [`Engine::recall`] (the ranking) and [`Engine::context`] (whether a block would be
//! injected at all). [`evaluate`] reports hit@k and Recall@k per kind over distinct files, the share
//! of off-topic questions that got an empty block, on-topic questions that got one, and the
//! relevance of the best candidate per question (the distributions a relevance floor is chosen
//! from).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use cairn_core::{Millis, Provenance, Scope, UNDATED};
use cairn_recall::RecallQuery;
use serde::{Deserialize, Serialize};

use crate::api::ContextQuery;
use crate::open::Engine;
use crate::{Error, Result};

/// The kind of question that must get nothing: its block must be empty.
pub const OFF_TOPIC: &str = "offtopic";

/// One labelled question (a line of a queries file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Unique id.
    pub id: String,
    /// Its kind (`paraphrase`, `temporal`, `lexical`, `tag`, `multi`, [`OFF_TOPIC`], ...): figures
    /// are reported per kind.
    pub kind: String,
    /// The question, as a user would type it.
    pub question: String,
    /// Workspace-relative paths of the files that answer it (none for an off-topic question).
    #[serde(default)]
    pub targets: Vec<String>,
    /// Anything else the file says (a temporal question's `form`, ...), kept for reports.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Question {
    /// Whether the question must get an empty block.
    pub fn off_topic(&self) -> bool {
        self.kind == OFF_TOPIC || self.targets.is_empty()
    }
}

/// Reads a queries file: one JSON [`Question`] per line (blank lines and `#` comments skipped).
/// Errors name the file and line.
pub fn load_questions(path: &Path) -> Result<Vec<Question>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::BadInput(format!("reading `{}`: {e}", path.display())))?;
    let mut out = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let q: Question = serde_json::from_str(line)
            .map_err(|e| Error::BadInput(format!("{}:{}: {e}", path.display(), i + 1)))?;
        if !ids.insert(q.id.clone()) {
            return Err(Error::BadInput(format!("{}:{}: duplicate id `{}`", path.display(), i + 1, q.id)));
        }
        out.push(q);
    }
    Ok(out)
}

/// Figures of one kind of question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KindFigures {
    /// Questions of this kind.
    pub n: usize,
    /// Share with at least one target among the first k files, per k.
    pub hit: BTreeMap<usize, f64>,
    /// Mean share of targets among the first k files, per k.
    pub recall: BTreeMap<usize, f64>,
    /// Share that got an empty block (for off-topic questions, the higher the better; for the
    /// others, every one is a miss).
    pub empty: f64,
    /// Mean tokens of the context block.
    pub tokens: f64,
    /// Share whose context block holds a target (what the agent is actually given; 0 for
    /// off-topic questions).
    #[serde(default)]
    pub block: f64,
}

/// What one question got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The question's id.
    pub id: String,
    /// Its kind.
    pub kind: String,
    /// The distinct files recall ranked, best first (at most the largest k).
    pub files: Vec<String>,
    /// Rank (1-based) of the first target among `files`, when one is there.
    pub first_target: Option<usize>,
    /// Whether the context block was empty.
    pub empty: bool,
    /// Tokens of the context block.
    pub tokens: usize,
    /// Whether the context block holds a target.
    #[serde(default)]
    pub in_block: bool,
    /// The best candidate's relevance (what the floor compares).
    pub relevance: f32,
}

/// One run over every question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalRun {
    /// The run's name (its lanes).
    pub name: String,
    /// The reference day relative dates were resolved against (`YYYY-MM-DD`).
    pub reference_day: String,
    /// Figures per kind, and `all` over the on-topic questions.
    pub kinds: BTreeMap<String, KindFigures>,
    /// On-topic questions that got an empty block (ids).
    pub on_topic_empty: Vec<String>,
    /// Per question.
    pub answers: Vec<Answer>,
}

/// The file a block entry comes from: its shown source without the line range (`path:12-40`).
fn source_file(source: &str) -> &str {
    match source.rsplit_once(':') {
        Some((path, lines))
            if !lines.is_empty() && lines.bytes().all(|b| b.is_ascii_digit() || b == b'-') =>
        {
            path
        }
        _ => source,
    }
}

/// The reference day of a store for evaluation: noon (UTC) of its latest dated item's day, so that
/// "yesterday" in a question means the day before the last note. `None` when nothing is dated.
pub fn reference_time(engine: &Engine) -> Result<Option<Millis>> {
    let mut q = RecallQuery::new("", Scope::owner(None), 1, cairn_core::now_ms());
    q.recent_k = 1;
    let newest = engine.recall(&q)?.recent.first().map(|h| h.created_at);
    Ok(newest.filter(|&t| t != UNDATED).map(|t| t.div_euclid(86_400_000) * 86_400_000 + 43_200_000))
}

/// Asks every question of `engine` (owner scope, `now` as the reference time) and reports figures
/// at each cut-off in `ks` (files, not chunks: a note's sections count once).
pub fn evaluate(engine: &Engine, name: &str, questions: &[Question], ks: &[usize], now: Millis) -> EvalRun {
    let max_k = ks.iter().copied().max().unwrap_or(10).max(1);
    let mut answers = Vec::with_capacity(questions.len());
    for q in questions {
        let scope = Scope::owner(None);
        let mut rq = RecallQuery::new(q.question.clone(), scope.clone(), max_k * 4, now);
        rq.recent_k = 0;
        let (files, relevance) = match engine.recall(&rq) {
            Ok(r) => {
                let mut files: Vec<String> = Vec::new();
                for hit in &r.hits {
                    let path = match &hit.provenance {
                        Provenance::File { path, .. } => path.clone(),
                        other => other.display(),
                    };
                    if !files.contains(&path) {
                        files.push(path);
                    }
                }
                files.truncate(max_k);
                (files, r.relevance.best)
            }
            Err(_) => (Vec::new(), 0.0),
        };
        let mut cq = ContextQuery::new(q.question.clone(), scope);
        cq.now = Some(now);
        let block = engine.context(&cq);
        let (empty, tokens) = (block.empty, block.tokens);
        let in_block = block.items.iter().any(|i| q.targets.iter().any(|t| *t == source_file(&i.source)));
        let first_target = files.iter().position(|f| q.targets.contains(f)).map(|i| i + 1);
        answers.push(Answer {
            id: q.id.clone(),
            kind: q.kind.clone(),
            files,
            first_target,
            empty,
            tokens,
            in_block,
            relevance,
        });
    }
    let mut kinds: BTreeMap<String, KindFigures> = BTreeMap::new();
    type Sums = (usize, BTreeMap<usize, (f64, f64)>, usize, usize, usize);
    let mut sums: BTreeMap<String, Sums> = BTreeMap::new();
    for (q, a) in questions.iter().zip(&answers) {
        let groups: Vec<&str> =
            if q.off_topic() { vec![q.kind.as_str()] } else { vec![q.kind.as_str(), "all"] };
        for g in groups {
            let e = sums.entry(g.to_owned()).or_default();
            e.0 += 1;
            e.2 += usize::from(a.empty);
            e.3 += a.tokens;
            e.4 += usize::from(a.in_block);
            for &k in ks {
                let top: Vec<&String> = a.files.iter().take(k).collect();
                let found = q.targets.iter().filter(|t| top.contains(t)).count();
                let s = e.1.entry(k).or_default();
                s.0 += f64::from(u8::from(found > 0));
                if !q.targets.is_empty() {
                    s.1 += found as f64 / q.targets.len() as f64;
                }
            }
        }
    }
    for (kind, (n, per_k, empty, tokens, in_block)) in sums {
        let nf = n.max(1) as f64;
        kinds.insert(
            kind,
            KindFigures {
                n,
                hit: per_k.iter().map(|(k, s)| (*k, s.0 / nf)).collect(),
                recall: per_k.iter().map(|(k, s)| (*k, s.1 / nf)).collect(),
                empty: empty as f64 / nf,
                tokens: tokens as f64 / nf,
                block: in_block as f64 / nf,
            },
        );
    }
    let on_topic_empty = questions
        .iter()
        .zip(&answers)
        .filter(|(q, a)| !q.off_topic() && a.empty)
        .map(|(q, _)| q.id.clone())
        .collect();
    let reference_day = jiff::Timestamp::from_millisecond(now)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_default();
    EvalRun { name: name.to_owned(), reference_day, kinds, on_topic_empty, answers }
}

#[cfg(test)]
mod tests {
    use super::source_file;

    #[test]
    fn a_block_entry_names_its_file_without_its_lines() {
        assert_eq!(source_file("memory/contacts/dr-raman.md:4-9"), "memory/contacts/dr-raman.md");
        assert_eq!(source_file("MEMORY.md:3"), "MEMORY.md");
        assert_eq!(source_file("session-7#3"), "session-7#3");
        assert_eq!(source_file("notes/a:b.md"), "notes/a:b.md");
    }
}
