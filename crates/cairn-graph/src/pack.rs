//! L0 index packs and L1/L2 context packs, each under a hard token cap counted with the real BPE.

use cairn_core::Scope;
use cairn_tokens::{Encoding, Tokenizer};
use serde::{Deserialize, Serialize};

use crate::expand::{ExpandOptions, Reached};
use crate::graph::Graph;
use crate::{Error, Result};

/// Default cap of an index pack, in tokens.
pub const INDEX_CAP: usize = 1000;
/// Ceiling of all raw (L2) snippets of one context pack, in tokens.
pub const L2_CEILING: usize = 3000;
/// Default cap of one raw snippet, in tokens.
pub const SNIPPET_CAP: usize = 400;
const TITLE_CHARS: usize = 100;
const WHY_CHARS: usize = 200;

/// A token cap and what was used of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Hard cap.
    pub cap: usize,
    /// Tokens of the serialised pack (compact JSON), counted with the pack's tokenizer.
    pub used: usize,
}

/// One step of the path that justified an inclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathStep {
    /// Node the step starts from.
    pub from: String,
    /// Node it reaches.
    pub to: String,
    /// Edge type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Why the edge exists.
    pub reason: String,
    /// Where the edge was read (`path:line`, `session#turn`).
    pub provenance: String,
    /// Whether the edge crosses projects.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cross_project: bool,
}

impl Graph {
    /// The path of `r` as steps from its seed.
    pub fn path_steps(&self, r: &Reached) -> Vec<PathStep> {
        let mut at = r.seed;
        r.path
            .iter()
            .map(|&ei| {
                let e = self.edge(ei);
                let to = if e.src == at { e.dst } else { e.src };
                let step = PathStep {
                    from: self.node(at).id.clone(),
                    to: self.node(to).id.clone(),
                    kind: e.kind.to_string(),
                    reason: e.reason.to_string(),
                    provenance: e.provenance.display(),
                    cross_project: e.cross_project,
                };
                at = to;
                step
            })
            .collect()
    }
}

/// A seed for an index pack: a node found by recall, with its score and why it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Seed {
    /// Node id (`item:<item id>`).
    pub id: String,
    /// Recall score.
    pub score: f32,
    /// Why it matched (query terms, tags).
    pub why: String,
}

/// One candidate of an index pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Node id.
    pub id: String,
    /// Title (capped).
    pub title: String,
    /// Node type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Project.
    pub project: String,
    /// Score (recall score for seeds; propagated along edges for neighbours).
    pub score: f32,
    /// Why it is relevant: the recall match or the first edge of its path.
    pub why_relevant: String,
}

/// A node worth expanding next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Node id.
    pub id: String,
    /// Why.
    pub reason: String,
}

/// The L0 index pack: what related context exists, in about a thousand tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexPack {
    /// Project scope (`null`: every project).
    pub project: Option<String>,
    /// Whether cross-project edges were followed.
    pub cross_project: bool,
    /// Best candidates first.
    pub top_candidates: Vec<Candidate>,
    /// Nodes to expand next.
    pub suggested_next_expansions: Vec<Suggestion>,
    /// Cap and tokens used.
    pub budget: Budget,
}

fn cap_chars(s: &str, n: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= n { one } else { format!("{}…", one.chars().take(n - 1).collect::<String>()) }
}

/// Shrink `items` from the end until `count(render(items))` fits `cap`; returns the final count.
fn fit<T>(items: &mut Vec<T>, cap: usize, count: &mut dyn FnMut(&[T]) -> usize) -> usize {
    loop {
        let used = count(items);
        if used <= cap || items.is_empty() {
            return used;
        }
        items.pop();
    }
}

impl Graph {
    /// Build an index pack from recall `seeds`: the seeds plus their expansion's items, best first,
    /// then suggested expansions, all under `cap` tokens (the serialised pack, counted with `encoding`).
    pub fn index_pack(
        &self,
        seeds: &[Seed],
        scope: &Scope,
        opts: &ExpandOptions,
        k: usize,
        cap: usize,
        encoding: Encoding,
    ) -> IndexPack {
        let seed_ix: Vec<(u32, f32, &Seed)> = seeds
            .iter()
            .filter_map(|s| self.find(&s.id).map(|i| (i, s.score, s)))
            .filter(|&(i, _, _)| {
                self.visible(i, scope) && scope.contains(&self.node(i).project, self.node(i).audience)
            })
            .collect();
        let exp = self.expand(&seed_ix.iter().map(|&(i, s, _)| (i, s)).collect::<Vec<_>>(), scope, opts);
        let mut cands: Vec<Candidate> = Vec::new();
        for &(i, score, s) in &seed_ix {
            let n = self.node(i);
            cands.push(Candidate {
                id: n.id.clone(),
                title: cap_chars(&n.title, TITLE_CHARS),
                kind: n.kind.clone(),
                project: n.project.clone(),
                score,
                why_relevant: cap_chars(&s.why, WHY_CHARS),
            });
        }
        let mut suggestions: Vec<Suggestion> = Vec::new();
        for r in &exp.reached {
            let n = self.node(r.node);
            let steps = self.path_steps(r);
            let last = steps.last().expect("reached nodes have a path");
            let why = format!(
                "{} hop(s) from `{}`: {} ({}){}",
                r.depth,
                self.node(r.seed).id,
                last.reason,
                last.provenance,
                if r.crossed { " [cross-project]" } else { "" }
            );
            if n.is_item() {
                cands.push(Candidate {
                    id: n.id.clone(),
                    title: cap_chars(&n.title, TITLE_CHARS),
                    kind: n.kind.clone(),
                    project: n.project.clone(),
                    score: r.score,
                    why_relevant: cap_chars(&why, WHY_CHARS),
                });
            } else {
                suggestions.push(Suggestion {
                    id: n.id.clone(),
                    reason: cap_chars(
                        &format!(
                            "{} `{}` links {} nodes; {why}",
                            n.kind,
                            n.title,
                            self.degree_in(r.node, scope)
                        ),
                        WHY_CHARS,
                    ),
                });
            }
        }
        cands.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        cands.dedup_by(|a, b| a.id == b.id);
        cands.truncate(k);
        // Candidates beyond k that are items become suggestions too (cheap to expand next).
        suggestions.truncate(k);
        let tok = Tokenizer::new(encoding);
        let mut pack = IndexPack {
            project: scope.project.clone(),
            cross_project: opts.allow_cross_project,
            top_candidates: cands,
            suggested_next_expansions: suggestions,
            budget: Budget { cap, used: 0 },
        };
        let count = |p: &IndexPack| tok.count(&serde_json::to_string(p).expect("plain data"));
        // Drop suggestions first, then candidates, until the pack (with its `used` figure) fits.
        loop {
            pack.budget.used = cap; // the widest figure it can hold
            let mut sugg = std::mem::take(&mut pack.suggested_next_expansions);
            let base = pack.clone();
            fit(&mut sugg, cap, &mut |s| {
                let mut p = base.clone();
                p.suggested_next_expansions = s.to_vec();
                count(&p)
            });
            pack.suggested_next_expansions = sugg;
            if count(&pack) > cap && !pack.top_candidates.is_empty() {
                pack.top_candidates.pop();
                continue;
            }
            break;
        }
        // Settle `used` at the real count (a smaller number never costs more tokens than `cap`'s digits;
        // re-check anyway).
        for _ in 0..4 {
            let used = count(&pack);
            if used == pack.budget.used {
                break;
            }
            pack.budget.used = used;
        }
        while count(&pack) > cap
            && (!pack.top_candidates.is_empty() || !pack.suggested_next_expansions.is_empty())
        {
            if pack.suggested_next_expansions.pop().is_none() {
                pack.top_candidates.pop();
            }
            pack.budget.used = count(&pack);
        }
        pack
    }
}

/// How much of each node a context pack shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PackMode {
    /// L1 summaries only: titles, abstracts, tags, provenance, paths; never raw text.
    #[default]
    Safe,
    /// L1 summaries plus L2 raw snippets (per-snippet cap, 3,000-token ceiling).
    Raw,
}

impl std::str::FromStr for PackMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "safe" => Ok(PackMode::Safe),
            "raw" => Ok(PackMode::Raw),
            other => Err(format!("unknown pack mode `{other}` (expected `safe` or `raw`)")),
        }
    }
}

/// One entry of a context pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackEntry {
    /// Node id.
    pub id: String,
    /// Node type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Title (capped).
    pub title: String,
    /// Project.
    pub project: String,
    /// `L1` or `L2`.
    pub level: String,
    /// L1 summary: the abstract, tags and link counts.
    pub summary: String,
    /// Where the node came from.
    pub provenance: String,
    /// Why it is in the pack: `requested`, or the path from a requested node.
    pub why_included: String,
    /// The path that justified inclusion (empty for requested nodes).
    pub path: Vec<PathStep>,
    /// L2 raw snippet (raw mode only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

/// A node left out of a context pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackExcluded {
    /// Node id.
    pub id: String,
    /// Why (`budget`).
    pub reason: String,
}

/// The L1/L2 context pack for chosen nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextPack {
    /// Safe or raw.
    pub mode: PackMode,
    /// Hops expanded from the requested nodes.
    pub depth: usize,
    /// Entries, requested nodes first, then by score.
    pub items: Vec<PackEntry>,
    /// Nodes left out.
    pub excluded: Vec<PackExcluded>,
    /// Tokens of raw snippets (≤ 3,000).
    pub l2_tokens: usize,
    /// Cap and tokens used.
    pub budget: Budget,
}

/// Options of [`Graph::context_pack`].
#[derive(Debug, Clone)]
pub struct PackOptions {
    /// Expansion.
    pub expand: ExpandOptions,
    /// Token cap of the whole pack.
    pub budget: usize,
    /// Safe or raw.
    pub mode: PackMode,
    /// Cap of one snippet.
    pub snippet_cap: usize,
    /// Tokenizer.
    pub encoding: Encoding,
}

impl Graph {
    fn summary(&self, i: u32) -> String {
        let n = self.node(i);
        let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
        for a in self.neighbours(i) {
            *kinds.entry(self.edge(a.edge).kind.as_ref()).or_default() += 1;
        }
        let links: Vec<String> = kinds.iter().map(|(k, c)| format!("{c} {k}")).collect();
        let mut s = String::new();
        if !n.l0.is_empty() {
            s.push_str(&n.l0);
            s.push(' ');
        }
        if !n.tags.is_empty() {
            s.push_str(&format!("[tags: {}] ", n.tags.join(", ")));
        }
        s.push_str(&format!("[edges: {}]", links.join(", ")));
        cap_chars(&s, 400)
    }

    /// Build a context pack for `ids`: the requested nodes and their neighbourhood, L1 summaries with
    /// provenance and paths, plus raw snippets from `raw_text` in raw mode; within `opts.budget` tokens.
    ///
    /// An id the scope may not see is reported exactly like an unknown id.
    pub fn context_pack(
        &self,
        ids: &[String],
        scope: &Scope,
        opts: &PackOptions,
        raw_text: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<ContextPack> {
        let mut seeds = Vec::new();
        for id in ids {
            let i = self
                .find(id)
                .or_else(|| self.find(&crate::model::item_id(id)))
                .filter(|&i| self.visible(i, scope))
                .ok_or_else(|| Error::UnknownNode(id.clone()))?;
            seeds.push((i, 1.0f32));
        }
        let exp = self.expand(&seeds, scope, &opts.expand);
        let tok = Tokenizer::new(opts.encoding);
        let mut pack = ContextPack {
            mode: opts.mode,
            depth: opts.expand.depth,
            items: vec![],
            excluded: vec![],
            l2_tokens: 0,
            budget: Budget { cap: opts.budget, used: opts.budget },
        };
        let count = |p: &ContextPack| tok.count(&serde_json::to_string(p).expect("plain data"));
        let mut order: Vec<(u32, Option<&Reached>)> = seeds.iter().map(|&(i, _)| (i, None)).collect();
        order.dedup_by_key(|x| x.0);
        order.extend(exp.reached.iter().map(|r| (r.node, Some(r))));
        let mut budget_full = false;
        for (i, r) in order {
            let n = self.node(i);
            if budget_full {
                pack.excluded.push(PackExcluded { id: n.id.clone(), reason: "budget".into() });
                continue;
            }
            let path = r.map(|r| self.path_steps(r)).unwrap_or_default();
            let why = match (r, path.last()) {
                (Some(r), Some(last)) => format!(
                    "{} hop(s) from `{}` via {}: {}",
                    r.depth,
                    self.node(r.seed).id,
                    last.kind,
                    last.reason
                ),
                _ => "requested".to_owned(),
            };
            let mut entry = PackEntry {
                id: n.id.clone(),
                kind: n.kind.clone(),
                title: cap_chars(&n.title, TITLE_CHARS),
                project: n.project.clone(),
                level: "L1".into(),
                summary: self.summary(i),
                provenance: n.provenance.display(),
                why_included: cap_chars(&why, WHY_CHARS),
                path,
                snippet: None,
            };
            let mut snippet_tokens = 0;
            if opts.mode == PackMode::Raw
                && let Some(item) = &n.item_id
                && let Some(text) = raw_text(item)
            {
                let room = opts.snippet_cap.min(L2_CEILING.saturating_sub(pack.l2_tokens));
                if room > 0 {
                    let cut = tok.truncate(&text, room).to_owned();
                    snippet_tokens = tok.count(&cut);
                    if snippet_tokens > 0 && snippet_tokens <= room {
                        entry.level = "L2".into();
                        entry.snippet = Some(cut);
                    } else {
                        snippet_tokens = 0;
                    }
                }
            }
            pack.items.push(entry);
            pack.l2_tokens += snippet_tokens;
            if count(&pack) > opts.budget {
                // Try the entry without its snippet before giving up on it.
                let mut e = pack.items.pop().expect("just pushed");
                pack.l2_tokens -= snippet_tokens;
                if e.snippet.take().is_some() {
                    e.level = "L1".into();
                    pack.items.push(e);
                    if count(&pack) <= opts.budget {
                        continue;
                    }
                    e = pack.items.pop().expect("just pushed");
                }
                pack.excluded.push(PackExcluded { id: e.id, reason: "budget".into() });
                budget_full = true;
            }
        }
        // Excluded entries cost tokens too: drop them from the tail of the list if they overflow.
        while count(&pack) > opts.budget && !pack.excluded.is_empty() {
            pack.excluded.pop();
        }
        while count(&pack) > opts.budget && !pack.items.is_empty() {
            let e = pack.items.pop().expect("non-empty");
            if e.snippet.is_some() {
                pack.l2_tokens = pack.l2_tokens.saturating_sub(tok.count(e.snippet.as_deref().unwrap_or("")));
            }
        }
        for _ in 0..4 {
            let used = count(&pack);
            if used == pack.budget.used {
                break;
            }
            pack.budget.used = used;
        }
        Ok(pack)
    }
}
