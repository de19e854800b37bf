//! Checks the labelled relevance sets in `tests/data/relevance` and `-2` to `-6` (a memory
//! workspace each and the questions `cairn eval retrieval` asks of it): the questions parse and meet the
//! per-kind minimums, every target exists and is readable, paraphrase questions share no analysed term
//! with their targets, and the temporal questions cover every date form. No model, no store: plain
//! file checks.
//!
//! The paraphrase check uses the recall analyzer ([`cairn_recall::analyze`]: lowercasing, stop words,
//! English stemming) on the question and on the target's whole text (frontmatter included) plus the words
//! of its path. A file that is not UTF-8 counts with the terms of both its lossy UTF-8 decoding and its
//! Latin-1 decoding (what the harvester reads), so its accented words count too. Terms of a single
//! character are left out of the comparison on both sides: they carry no topic (a list letter, a stray
//! initial). Numbers are kept: a year or a price shared with the target is a real lexical clue.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The date forms temporal questions must cover, each at least once.
const FORMS: &[&str] = &[
    "absolute",       // "on 12 March 2026"
    "absolute-iso",   // "on 2026-03-12"
    "partial-day",    // "on March 12th"
    "partial-month",  // "in February"
    "weekday-date",   // "on Tuesday 3 March"
    "month-part",     // "early / mid / late April"
    "week-of-month",  // "the first / last week of May"
    "month-half",     // "the second half of February"
    "month-last-day", // "the last day of January"
    "yesterday",      // relative to the reference day
    "days-ago",       // "three days ago"
    "last-week",      // Monday..Sunday before the reference day's week
    "last-weekday",   // "last Tuesday"
    "last-month",     // the month before the reference day's
    "holiday-us",     // "on Memorial Day", "on MLK day"
    "holiday-uk",     // "over the Easter weekend", "on the early May bank holiday"
    "event-relative", // "the day after I got back from Lisbon"
];

/// One labelled set: where it is, and what its shape must be.
struct Set {
    /// Under `tests/data`.
    dir: &'static str,
    /// Question kinds and the least number of questions of each.
    kinds: &'static [(&'static str, usize)],
    /// Files that are damaged on purpose and answer nothing.
    unanswerable: &'static [&'static str],
    /// Notes (answerable `.md` files), at least and at most.
    notes: (usize, usize),
    /// Daily notes, at least and at most.
    dailies: (usize, usize),
    /// The first daily note's day.
    first_day: &'static str,
    /// The reference day relative questions count from: the date of the last daily note.
    reference_day: &'static str,
    /// The damaged files the workspace holds, if any: a binary `memory/scan.md`, a Latin-1 contact,
    /// and the two named here, (an empty daily note, a note whose frontmatter never closes).
    damaged: Option<(&'static str, &'static str)>,
}

/// The sets: the first, and five written after the defaults were chosen (held-out checks).
const SETS: &[Set] = &[
    Set {
        dir: "relevance",
        kinds: &[
            ("paraphrase", 45),
            ("temporal", 30),
            ("offtopic", 35),
            ("lexical", 15),
            ("tag", 10),
            ("multi", 10),
        ],
        unanswerable: &["memory/scan.md", "memory/daily/2026-02-29-empty.md"],
        notes: (90, 110),
        dailies: (60, 70),
        first_day: "2026-01-05",
        reference_day: "2026-06-30",
        damaged: Some(("memory/daily/2026-02-29-empty.md", "memory/projects/garden-plan.md")),
    },
    Set {
        dir: "relevance-2",
        kinds: &[
            ("paraphrase", 30),
            ("temporal", 25),
            ("offtopic", 35),
            ("lexical", 10),
            ("tag", 6),
            ("multi", 6),
        ],
        unanswerable: &[],
        notes: (55, 70),
        dailies: (30, 40),
        first_day: "2025-08-25",
        reference_day: "2025-12-31",
        damaged: None,
    },
    Set {
        dir: "relevance-3",
        kinds: &[
            ("paraphrase", 30),
            ("temporal", 25),
            ("offtopic", 50),
            ("lexical", 10),
            ("tag", 6),
            ("multi", 6),
        ],
        unanswerable: &[],
        notes: (60, 70),
        dailies: (30, 40),
        first_day: "2024-02-12",
        reference_day: "2024-06-28",
        damaged: None,
    },
    Set {
        dir: "relevance-4",
        kinds: &[
            ("paraphrase", 30),
            ("temporal", 25),
            ("offtopic", 50),
            ("lexical", 10),
            ("tag", 6),
            ("multi", 6),
        ],
        unanswerable: &[],
        notes: (60, 70),
        dailies: (30, 40),
        first_day: "2023-08-14",
        reference_day: "2023-12-29",
        damaged: None,
    },
    Set {
        dir: "relevance-5",
        kinds: &[
            ("paraphrase", 30),
            ("temporal", 25),
            ("offtopic", 50),
            ("lexical", 10),
            ("tag", 6),
            ("multi", 6),
        ],
        unanswerable: &["memory/scan.md", "memory/daily/2025-02-30-empty.md"],
        notes: (60, 70),
        dailies: (30, 40),
        first_day: "2025-01-06",
        reference_day: "2025-05-30",
        damaged: Some(("memory/daily/2025-02-30-empty.md", "memory/hobbies.md")),
    },
    Set {
        dir: "relevance-6",
        kinds: &[
            ("paraphrase", 30),
            ("temporal", 25),
            ("offtopic", 50),
            ("lexical", 10),
            ("tag", 6),
            ("multi", 6),
        ],
        unanswerable: &[],
        notes: (60, 70),
        dailies: (30, 40),
        first_day: "2024-09-02",
        reference_day: "2025-01-31",
        damaged: None,
    },
];

impl Set {
    fn data_dir(&self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(self.dir)
    }

    fn workspace(&self) -> PathBuf {
        self.data_dir().join("workspace")
    }
}

#[derive(Debug)]
struct Query {
    id: String,
    kind: String,
    question: String,
    targets: Vec<String>,
    form: Option<String>,
}

fn load_queries(set: &Set) -> Vec<Query> {
    let path = set.data_dir().join("queries.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("queries.jsonl:{n}: {e}"));
        let field = |k: &str| -> String {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("queries.jsonl:{n}: `{k}` is missing or not a string"))
                .to_owned()
        };
        let targets = v
            .get("targets")
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("queries.jsonl:{n}: `targets` is missing or not an array"))
            .iter()
            .map(|t| {
                t.as_str().unwrap_or_else(|| panic!("queries.jsonl:{n}: a target is not a string")).to_owned()
            })
            .collect();
        let form = v.get("form").map(|f| {
            f.as_str().unwrap_or_else(|| panic!("queries.jsonl:{n}: `form` is not a string")).to_owned()
        });
        out.push(Query { id: field("id"), kind: field("kind"), question: field("question"), targets, form });
    }
    out
}

/// Every file under the workspace, as workspace-relative paths with `/`.
fn workspace_files(set: &Set) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                out.push(
                    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
                );
            }
        }
    }
    let root = set.workspace();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// A file's text, decoded lossily (the Latin-1 note keeps its ASCII words).
fn read_lossy(set: &Set, rel: &str) -> String {
    let bytes = std::fs::read(set.workspace().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The analysed terms of `text` that count for the paraphrase check (single characters left out).
fn terms(text: &str) -> BTreeSet<String> {
    cairn_recall::analyze(text).into_iter().filter(|t| t.chars().count() > 1).collect()
}

/// The frontmatter tags of a note (`tags: [a, b]`, `tags: a, b` or a `- a` list), lowercased.
fn frontmatter_tags(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Vec::new();
    }
    let mut tags = Vec::new();
    let mut in_list = false;
    for line in lines {
        if line.trim_end() == "---" {
            break;
        }
        if in_list {
            if let Some(item) = line.trim_start().strip_prefix("- ") {
                tags.push(item.trim().trim_matches(['"', '\'']).to_lowercase());
                continue;
            }
            in_list = false;
        }
        if let Some(rest) = line.strip_prefix("tags:") {
            let rest = rest.trim();
            if rest.is_empty() {
                in_list = true;
            } else {
                let inner = rest.trim_start_matches('[').trim_end_matches(']');
                tags.extend(
                    inner
                        .split(',')
                        .map(|t| t.trim().trim_matches(['"', '\'']).to_lowercase())
                        .filter(|t| !t.is_empty()),
                );
            }
        }
    }
    tags
}

fn frontmatter_has(text: &str, key: &str) -> bool {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return false;
    }
    lines.take_while(|l| l.trim_end() != "---").any(|l| l.starts_with(&format!("{key}:")))
}

/// `memory/daily/YYYY-MM-DD.md` → `YYYY-MM-DD`.
/// Whether the file name opens with a `YYYY-MM-DD` date (`2024-06-11-mungo-tablets.md`).
fn named_with_a_date(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.len() > 10
        && name
            .bytes()
            .take(10)
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() })
}

fn daily_date(rel: &str) -> Option<&str> {
    let name = rel.strip_prefix("memory/daily/")?.strip_suffix(".md")?;
    let ok = name.len() == 10
        && name
            .bytes()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    ok.then_some(name)
}

#[test]
fn queries_parse_and_meet_the_minimums() {
    for set in SETS {
        queries_of_a_set_parse_and_meet_the_minimums(set);
    }
}

fn queries_of_a_set_parse_and_meet_the_minimums(set: &Set) {
    let queries = load_queries(set);
    let files: HashSet<String> = workspace_files(set).into_iter().collect();
    let mut ids = HashSet::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for q in &queries {
        if !ids.insert(q.id.as_str()) {
            problems.push(format!("{}: duplicate id", q.id));
        }
        let Some(&(kind, _)) = set.kinds.iter().find(|(k, _)| *k == q.kind) else {
            problems.push(format!("{}: unknown kind `{}`", q.id, q.kind));
            continue;
        };
        *counts.entry(kind).or_default() += 1;
        if q.question.trim().is_empty() {
            problems.push(format!("{}: empty question", q.id));
        }
        let distinct: HashSet<&String> = q.targets.iter().collect();
        if distinct.len() != q.targets.len() {
            problems.push(format!("{}: a target is listed twice", q.id));
        }
        for t in &q.targets {
            if !files.contains(t) {
                problems.push(format!("{}: target {t} does not exist", q.id));
            }
            if set.unanswerable.contains(&t.as_str()) {
                problems.push(format!("{}: target {t} is a damaged file that answers nothing", q.id));
            }
        }
        match kind {
            "offtopic" if !q.targets.is_empty() => problems.push(format!("{}: offtopic with targets", q.id)),
            "multi" if q.targets.len() != 2 => problems.push(format!("{}: multi needs two targets", q.id)),
            k if k != "offtopic" && q.targets.is_empty() => problems.push(format!("{}: no targets", q.id)),
            _ => {}
        }
        if kind == "temporal" {
            match &q.form {
                Some(f) if FORMS.contains(&f.as_str()) => {}
                Some(f) => problems.push(format!("{}: unknown form `{f}`", q.id)),
                None => problems.push(format!("{}: temporal question without a form", q.id)),
            }
            for t in &q.targets {
                // Dated by its frontmatter, or by a date its file name opens with (as harvest dates it).
                let dated_decision = t.starts_with("memory/decisions/")
                    && files.contains(t)
                    && (frontmatter_has(&read_lossy(set, t), "date") || named_with_a_date(t));
                if daily_date(t).is_none() && !dated_decision {
                    problems.push(format!(
                        "{}: temporal target {t} is neither a daily note nor a dated decision",
                        q.id
                    ));
                }
            }
        } else if q.form.is_some() {
            problems.push(format!("{}: `form` on a {kind} question", q.id));
        }
    }
    for (kind, min) in set.kinds {
        let n = counts.get(kind).copied().unwrap_or(0);
        if n < *min {
            problems.push(format!("{kind}: {n} questions, at least {min} needed"));
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn paraphrase_questions_share_no_term_with_their_targets() {
    let mut problems = Vec::new();
    for set in SETS {
        paraphrases_of_a_set(set, &mut problems);
    }
    assert!(
        problems.is_empty(),
        "{} paraphrase question(s) share terms:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn paraphrases_of_a_set(set: &Set, problems: &mut Vec<String>) {
    for q in load_queries(set).iter().filter(|q| q.kind == "paraphrase") {
        let asked = terms(&q.question);
        assert!(!asked.is_empty(), "{}: the question has no content terms", q.id);
        for t in &q.targets {
            let bytes = std::fs::read(set.workspace().join(t)).unwrap_or_else(|e| panic!("{t}: {e}"));
            let mut target = terms(&String::from_utf8_lossy(&bytes));
            if std::str::from_utf8(&bytes).is_err() {
                target.extend(terms(&bytes.iter().map(|&b| char::from(b)).collect::<String>()));
            }
            target.extend(terms(t));
            let shared: Vec<&String> = asked.intersection(&target).collect();
            if !shared.is_empty() {
                problems.push(format!("{}: {} → {t}: shares {shared:?}", set.dir, q.id));
            }
        }
    }
}

#[test]
fn temporal_questions_cover_every_form() {
    for set in SETS {
        let queries = load_queries(set);
        let seen: HashSet<&str> =
            queries.iter().filter(|q| q.kind == "temporal").filter_map(|q| q.form.as_deref()).collect();
        let missing: Vec<&&str> = FORMS.iter().filter(|f| !seen.contains(**f)).collect();
        assert!(missing.is_empty(), "{}: temporal forms without a question: {missing:?}", set.dir);
    }
}

#[test]
fn tag_questions_name_a_tag_of_each_target() {
    let mut problems = Vec::new();
    for set in SETS {
        for q in load_queries(set).iter().filter(|q| q.kind == "tag") {
            let asked = terms(&q.question);
            for t in &q.targets {
                let tags = frontmatter_tags(&read_lossy(set, t));
                if !tags.iter().any(|tag| terms(tag).iter().any(|term| asked.contains(term))) {
                    problems.push(format!(
                        "{}: {}: no tag of {t} ({tags:?}) is named in the question",
                        set.dir, q.id
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn workspace_has_its_shape_and_damaged_files() {
    for set in SETS {
        workspace_of_a_set_has_its_shape(set);
    }
}

fn workspace_of_a_set_has_its_shape(set: &Set) {
    let dir = set.dir;
    let files = workspace_files(set);
    let notes =
        files.iter().filter(|f| f.ends_with(".md") && !set.unanswerable.contains(&f.as_str())).count();
    let (least, most) = set.notes;
    assert!((least..=most).contains(&notes), "{dir}: {notes} notes, {least} to {most} expected");
    assert!(files.iter().any(|f| f == "MEMORY.md"), "{dir}: MEMORY.md is missing");

    // Daily notes: dated by their file name only, the last one on the reference day.
    let dailies: Vec<&str> = files.iter().filter_map(|f| daily_date(f)).collect();
    let (least, most) = set.dailies;
    assert!(
        (least..=most).contains(&dailies.len()),
        "{dir}: {} daily notes, {least} to {most} expected",
        dailies.len()
    );
    assert_eq!(dailies.first().copied(), Some(set.first_day), "{dir}: first daily note");
    assert_eq!(
        dailies.last().copied(),
        Some(set.reference_day),
        "{dir}: the last daily note is the reference day"
    );
    for f in files.iter().filter(|f| daily_date(f).is_some()) {
        assert!(
            !frontmatter_has(&read_lossy(set, f), "date"),
            "{dir}: {f}: daily notes carry no frontmatter date"
        );
    }
    let Some((empty, unclosed)) = set.damaged else { return };

    // The damaged files are there and damaged the way they should be.
    let raw = |rel: &str| std::fs::read(set.workspace().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert!(raw("memory/scan.md").contains(&0), "memory/scan.md holds binary bytes");
    assert!(raw(empty).is_empty(), "{dir}: {empty} is empty");
    let open = read_lossy(set, unclosed);
    assert!(open.starts_with("---\n"), "{dir}: {unclosed} opens a frontmatter block");
    assert!(!open.lines().skip(1).any(|l| l.trim_end() == "---"), "{dir}: {unclosed} never closes it");
    let latin1: Vec<&String> = files
        .iter()
        .filter(|f| f.starts_with("memory/contacts/") && std::str::from_utf8(&raw(f)).is_err())
        .collect();
    assert_eq!(latin1.len(), 1, "one contact saved in Latin-1: {latin1:?}");
}
