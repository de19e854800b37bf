//! Extraction: what an item's own content says about its links, written as graph rows.
//!
//! No guessing: markdown links and wiki links (with their line), frontmatter fields (`related`,
//! `links`, `people`, `places`), tags, the project, names from the entity vocabulary found in the text,
//! contact notes, and for turns their session.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use cairn_core::{Audience, Chunk, Item, ItemKind, Provenance};
use cairn_store::{GraphEdgeRow, GraphNodeRow, GraphRows};
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::model::{edge, entity_id, item_id, node, project_id, session_id, slug};

/// Target of a reference that is resolved when the graph is loaded (needs every item's path and
/// title): `ref:<target as written>`.
pub const REF_PREFIX: &str = "ref:";

/// Shortest name the mention matcher looks for (shorter names match too much by chance).
const MIN_NAME_CHARS: usize = 4;
/// Shortest note title the mention matcher looks for.
const MIN_TITLE_CHARS: usize = 8;
/// Cap of an L0 abstract, in chars.
const ABSTRACT_CHARS: usize = 160;

/// A name the mention matcher knows, and the node it stands for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VocabEntry {
    /// The name as written (matched case-insensitively, on word boundaries).
    pub name: String,
    /// Project of the node.
    pub project: String,
    /// The node id (`person:...`, `place:...`, `item:...`).
    pub target: String,
    /// The node's type.
    pub kind: String,
}

/// The entity vocabulary: every nameable node, matched in one pass with Aho-Corasick.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    entries: Vec<VocabEntry>,
    /// Pattern index → entries with that (lowercased) name.
    by_pattern: Vec<Vec<usize>>,
    matcher: Option<AhoCorasick>,
}

impl Vocabulary {
    /// A vocabulary over `entries` (order does not matter; they are sorted and deduplicated).
    pub fn new(mut entries: Vec<VocabEntry>) -> Self {
        entries.sort();
        entries.dedup();
        let mut patterns: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, e) in entries.iter().enumerate() {
            patterns.entry(e.name.to_lowercase()).or_default().push(i);
        }
        let (names, by_pattern): (Vec<String>, Vec<Vec<usize>>) = patterns.into_iter().unzip();
        let matcher = (!names.is_empty()).then(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&names)
                .expect("a few thousand literal names always build")
        });
        Self { entries, by_pattern, matcher }
    }

    /// The entries, sorted.
    pub fn entries(&self) -> &[VocabEntry] {
        &self.entries
    }

    /// A stable fingerprint: a changed vocabulary means every item must be re-read.
    pub fn fingerprint(&self) -> String {
        cairn_core::content_hash(serde_json::to_string(&self.entries).unwrap_or_default().as_bytes())
    }

    /// Every (byte offset, entry) of a known name in `text`, on word boundaries.
    fn find<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (usize, &'a VocabEntry)> + 'a {
        let lower = text.to_lowercase();
        // Lowercasing can change byte lengths outside ASCII; match on the original when it did not.
        let hay: String = if lower.len() == text.len() { lower } else { text.to_owned() };
        let matches: Vec<(usize, usize, usize)> = self
            .matcher
            .iter()
            .flat_map(|m| {
                m.find_iter(&hay).map(|x| (x.start(), x.end(), x.pattern().as_usize())).collect::<Vec<_>>()
            })
            .filter(|&(s, e, _)| boundary(text, s, e))
            .collect();
        matches
            .into_iter()
            .flat_map(move |(s, _, p)| self.by_pattern[p].iter().map(move |&i| (s, &self.entries[i])))
    }
}

fn boundary(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
    let after = text.get(end..).and_then(|t| t.chars().next()).is_none_or(|c| !c.is_alphanumeric());
    before && after
}

/// Strings of a frontmatter value: a string (comma-separated) or a list of strings.
fn strings(v: Option<&serde_json::Value>) -> Vec<String> {
    let mut out = Vec::new();
    match v {
        Some(serde_json::Value::String(s)) => {
            out.extend(s.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from))
        }
        Some(serde_json::Value::Array(a)) => {
            for x in a {
                if let serde_json::Value::String(s) = x {
                    let s = s.trim();
                    if !s.is_empty() {
                        out.push(s.to_owned());
                    }
                }
            }
        }
        _ => {}
    }
    out
}

fn meta_type(item: &Item) -> String {
    strings(item.metadata.get("type")).first().map(|s| s.to_lowercase()).unwrap_or_default()
}

fn path_of(item: &Item) -> Option<&str> {
    match &item.provenance {
        Provenance::File { path, .. } => Some(path),
        _ => None,
    }
}

fn in_dir(item: &Item, dirs: &[&str]) -> bool {
    path_of(item).is_some_and(|p| p.split('/').rev().skip(1).any(|seg| dirs.contains(&seg)))
}

/// Whether the item is a contact note (frontmatter `type: person|contact`, or under `people/` or
/// `contacts/`).
fn is_contact(item: &Item) -> bool {
    matches!(meta_type(item).as_str(), "person" | "contact" | "people")
        || in_dir(item, &["people", "contacts"])
}

fn is_place_note(item: &Item) -> bool {
    matches!(meta_type(item).as_str(), "place" | "location") || in_dir(item, &["places"])
}

fn people_of(item: &Item) -> Vec<String> {
    let mut v = strings(item.metadata.get("people"));
    v.extend(strings(item.metadata.get("person")));
    v
}

fn places_of(item: &Item) -> Vec<String> {
    let mut v = strings(item.metadata.get("places"));
    v.extend(strings(item.metadata.get("place")));
    v.extend(strings(item.metadata.get("location")));
    v
}

/// What `item` adds to the entity vocabulary.
pub fn vocab_entries(item: &Item) -> Vec<VocabEntry> {
    let mut out = Vec::new();
    let p = &item.project;
    let mut push = |name: &str, kind: &str, target: String| {
        if name.chars().count() >= MIN_NAME_CHARS {
            out.push(VocabEntry { name: name.to_owned(), project: p.clone(), target, kind: kind.to_owned() });
        }
    };
    if is_contact(item) || is_place_note(item) {
        let kind = if is_contact(item) { node::PERSON } else { node::PLACE };
        let target = entity_id(kind, p, &item.title);
        push(&item.title, kind, target.clone());
        for alias in strings(item.metadata.get("aliases")) {
            push(&alias, kind, target.clone());
        }
    }
    for name in people_of(item) {
        push(&name, node::PERSON, entity_id(node::PERSON, p, &name));
    }
    for name in places_of(item) {
        push(&name, node::PLACE, entity_id(node::PLACE, p, &name));
    }
    if item.kind == ItemKind::File
        && item.title.chars().count() >= MIN_TITLE_CHARS
        && item.title.contains(' ')
    {
        out.push(VocabEntry {
            name: item.title.clone(),
            project: p.clone(),
            target: item_id(&item.id),
            kind: item.kind.as_str().to_owned(),
        });
    }
    out
}

/// The first sentence of `text`, on one line, at most [`ABSTRACT_CHARS`] chars.
pub fn abstract_of(text: &str) -> String {
    let body: String = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join(" ");
    let end = body.find(". ").map_or(body.len(), |i| i + 1);
    let s = &body[..end];
    if s.chars().count() <= ABSTRACT_CHARS {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(ABSTRACT_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

static MD_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#).expect("valid"));
static WIKI_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\[([^\]\|#\n]+)(?:#[^\]\|\n]*)?(?:\|[^\]\n]*)?\]\]").expect("valid"));

/// A link target worth following: local (no scheme, not an anchor, not an image data URI).
fn local_target(t: &str) -> Option<String> {
    let t = t.split('#').next()?.trim();
    if t.is_empty() || t.contains("://") || t.starts_with("mailto:") || t.starts_with("data:") {
        return None;
    }
    Some(t.to_owned())
}

struct Builder<'a> {
    item: &'a Item,
    src: String,
    rows: GraphRows,
}

impl Builder<'_> {
    fn entity(&mut self, id: String, kind: &str, title: &str) {
        self.rows.nodes.push(GraphNodeRow {
            id,
            kind: kind.to_owned(),
            title: title.to_owned(),
            project: self.item.project.clone(),
            audience: self.item.audience,
            item_id: None,
            l0: String::new(),
            provenance: self.item.provenance.clone(),
            tags: vec![],
        });
    }

    fn edge(&mut self, dst: String, kind: &str, weight: f32, reason: String, provenance: Provenance) {
        self.rows.edges.push(GraphEdgeRow {
            src: self.src.clone(),
            dst,
            kind: kind.to_owned(),
            weight,
            reason,
            provenance,
            audience: self.item.audience,
        });
    }

    fn line(&self, line: u32) -> Provenance {
        match &self.item.provenance {
            Provenance::File { path, .. } => {
                Provenance::File { path: path.clone(), line_start: line, line_end: line }
            }
            other => other.clone(),
        }
    }
}

/// The frontmatter's line range, from the first chunk's first line (frontmatter ends just before it).
fn frontmatter_provenance(item: &Item, chunks: &[Chunk]) -> Provenance {
    match (&item.provenance, chunks.first().map(|c| &c.provenance)) {
        (Provenance::File { path, .. }, Some(Provenance::File { line_start, .. })) => Provenance::File {
            path: path.clone(),
            line_start: 1,
            line_end: line_start.saturating_sub(1).max(1),
        },
        (p, _) => p.clone(),
    }
}

/// The graph rows `item` owns: its node, its entities and its edges.
pub fn extract(item: &Item, chunks: &[Chunk], vocab: &Vocabulary) -> GraphRows {
    let src = item_id(&item.id);
    let mut b = Builder { item, src: src.clone(), rows: GraphRows::default() };
    b.rows.nodes.push(GraphNodeRow {
        id: src.clone(),
        kind: item.kind.as_str().to_owned(),
        title: item.title.clone(),
        project: item.project.clone(),
        audience: item.audience,
        item_id: Some(item.id.clone()),
        l0: abstract_of(&item.text),
        provenance: item.provenance.clone(),
        tags: item.tags.clone(),
    });
    let p = item.project.clone();
    let fm = frontmatter_provenance(item, chunks);

    b.entity(project_id(&p), node::PROJECT, &p);
    b.edge(
        project_id(&p),
        edge::IN_PROJECT,
        0.2,
        format!("belongs to project `{p}`"),
        item.provenance.clone(),
    );
    for tag in &item.tags {
        let id = entity_id(node::TAG, &p, tag);
        b.entity(id.clone(), node::TAG, tag);
        b.edge(id, edge::TAGGED, 0.4, format!("tagged `{tag}`"), fm.clone());
    }
    if is_contact(item) || is_place_note(item) {
        let kind = if is_contact(item) { node::PERSON } else { node::PLACE };
        let id = entity_id(kind, &p, &item.title);
        b.entity(id.clone(), kind, &item.title);
        b.edge(id, edge::DESCRIBES, 1.0, format!("{kind} note for `{}`", item.title), fm.clone());
    }
    for (key, kind, weight) in [("related", edge::RELATED, 0.9), ("links", edge::LINKS_TO, 0.9)] {
        for target in strings(item.metadata.get(key)) {
            if let Some(t) = local_target(&target) {
                b.edge(
                    format!("{REF_PREFIX}{t}"),
                    kind,
                    weight,
                    format!("frontmatter `{key}`: {t}"),
                    fm.clone(),
                );
            }
        }
    }
    for name in people_of(item) {
        let id = entity_id(node::PERSON, &p, &name);
        b.entity(id.clone(), node::PERSON, &name);
        b.edge(id, edge::MENTIONS, 0.6, format!("frontmatter `people`: {name}"), fm.clone());
    }
    for name in places_of(item) {
        let id = entity_id(node::PLACE, &p, &name);
        b.entity(id.clone(), node::PLACE, &name);
        b.edge(id, edge::MENTIONS, 0.6, format!("frontmatter `places`: {name}"), fm.clone());
    }
    if let Provenance::Turn { session_key, .. } = &item.provenance {
        let id = session_id(session_key);
        b.entity(id.clone(), node::SESSION, session_key);
        b.edge(
            id,
            edge::SAME_SESSION,
            0.3,
            format!("turn of session `{session_key}`"),
            item.provenance.clone(),
        );
        if let Some(parent) = item.spawned_by() {
            let id = session_id(parent);
            b.entity(id.clone(), node::SESSION, parent);
            b.edge(
                id,
                edge::SPAWNED_BY,
                0.8,
                format!("turn of sub-agent session `{session_key}`, spawned by `{parent}`"),
                item.provenance.clone(),
            );
        }
    }

    // Body: links and mentions, line by line.
    let whole;
    let sections: Vec<(&str, u32)> = if chunks.is_empty() {
        whole = item.text.clone();
        vec![(whole.as_str(), 1)]
    } else {
        chunks
            .iter()
            .map(|c| {
                let start = match c.provenance {
                    Provenance::File { line_start, .. } => line_start,
                    _ => 1,
                };
                (c.text.as_str(), start)
            })
            .collect()
    };
    let mut seen_mentions: BTreeMap<String, ()> = BTreeMap::new();
    for (text, first) in sections {
        for (i, line) in text.lines().enumerate() {
            let ln = first + i as u32;
            for cap in MD_LINK.captures_iter(line) {
                if let Some(t) = local_target(&cap[1]) {
                    b.edge(
                        format!("{REF_PREFIX}{t}"),
                        edge::LINKS_TO,
                        1.0,
                        format!("links to `{t}`"),
                        b.line(ln),
                    );
                }
            }
            for cap in WIKI_LINK.captures_iter(line) {
                let t = cap[1].trim().to_owned();
                if !t.is_empty() {
                    b.edge(
                        format!("{REF_PREFIX}{t}"),
                        edge::LINKS_TO,
                        1.0,
                        format!("wiki link [[{t}]]"),
                        b.line(ln),
                    );
                }
            }
            // One edge per named node (its first mention), preferring the item's own project.
            let mut found: BTreeMap<&str, Vec<&VocabEntry>> = BTreeMap::new();
            for (_, e) in vocab.find(line) {
                if e.target != src {
                    found.entry(e.name.as_str()).or_default().push(e);
                }
            }
            for (name, entries) in found {
                let e = entries.iter().find(|e| e.project == p).or(entries.first()).expect("non-empty");
                if seen_mentions.insert(e.target.clone(), ()).is_some() {
                    continue;
                }
                if e.kind == node::PERSON || e.kind == node::PLACE {
                    let id = e.target.clone();
                    let mut n = GraphNodeRow {
                        id: id.clone(),
                        kind: e.kind.clone(),
                        title: name.to_owned(),
                        project: e.project.clone(),
                        audience: item.audience,
                        item_id: None,
                        l0: String::new(),
                        provenance: b.line(ln),
                        tags: vec![],
                    };
                    n.title = e.name.clone();
                    b.rows.nodes.push(n);
                }
                let w = if e.kind == node::PERSON || e.kind == node::PLACE { 0.6 } else { 0.5 };
                b.edge(e.target.clone(), edge::MENTIONS, w, format!("mentions `{}`", e.name), b.line(ln));
            }
        }
    }
    dedupe(&mut b.rows);
    b.rows
}

fn dedupe(rows: &mut GraphRows) {
    rows.nodes.sort_by(|a, b| a.id.cmp(&b.id));
    rows.nodes.dedup_by(|a, b| a.id == b.id);
    let key = |e: &GraphEdgeRow| {
        (
            e.src.clone(),
            e.dst.clone(),
            e.kind.clone(),
            serde_json::to_string(&e.provenance).unwrap_or_default(),
        )
    };
    rows.edges.sort_by_key(key);
    rows.edges.dedup_by(|a, b| key(a) == key(b));
}

/// The `follows` edges of one session, owned by `session:<key>`: each turn follows the one before it
/// (turns ordered by time, then turn id).
pub fn session_rows(session_key: &str, turns: &[(String, String, i64)], audience: Audience) -> GraphRows {
    let mut rows = GraphRows::default();
    for pair in turns.windows(2) {
        let (prev, next) = (&pair[0], &pair[1]);
        rows.edges.push(GraphEdgeRow {
            src: item_id(&next.1),
            dst: item_id(&prev.1),
            kind: edge::FOLLOWS.to_owned(),
            weight: 0.7,
            reason: format!("turn `{}` follows `{}` in session `{session_key}`", next.0, prev.0),
            provenance: Provenance::Turn { session_key: session_key.to_owned(), turn_id: next.0.clone() },
            audience,
        });
    }
    rows
}

/// The slug of a link target, for matching wiki links against titles and file stems.
pub(crate) fn ref_key(s: &str) -> String {
    let s = s.trim().trim_end_matches(".md");
    slug(s.rsplit('/').next().unwrap_or(s))
}
