//! The assembler: candidates → deduplicated, budgeted, rendered block plus receipt.

use std::cell::RefCell;
use std::fmt::Write as _;

use cairn_core::{Hit, LaneStatus, content_hash};
use cairn_tokens::Tokenizer;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::cache::CountCache;
use crate::options::{AssembleRequest, Format, Layer, Level};
use crate::receipt::{
    Candidates, ExcludeReason, Excluded, Included, LayerTokens, RECEIPT_VERSION, Receipt, TokenAccounting,
};
use crate::text::{self, Cut};

/// No entry costs fewer tokens than this: its date alone is six pre-tokenizer pieces.
const MIN_ENTRY_TOKENS: usize = 8;
/// Display caps (in chars) for the short fields.
const TITLE_CHARS: usize = 100;
const TAG_CHARS: usize = 40;
const MAX_TAGS: usize = 12;
const MAX_QUERY_TAGS: usize = 16;
const SOURCE_CHARS: usize = 160;
/// How many chars of raw text to look at per token of cap: English runs at about 4.5 chars per
/// token, so the first count usually fits the cap and no cut is needed; CJK gets cut once.
const CHARS_PER_CAP_TOKEN: usize = 4;
/// A level is not even tried when its estimate exceeds the room by this factor (estimates are
/// rough; a skipped level that would have fitted only costs richness, never the budget).
const SKIP_FACTOR_NUM: usize = 5;
const SKIP_FACTOR_DEN: usize = 4;

fn clearly_over(estimate: usize, room: usize) -> bool {
    estimate * SKIP_FACTOR_DEN > room * SKIP_FACTOR_NUM
}

/// One entry of the block, as the JSON output lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssembledItem {
    /// Chunk id.
    pub id: String,
    /// Item id.
    pub item_id: String,
    /// Title as shown.
    pub title: String,
    /// `YYYY-MM-DD` (UTC) of the item's creation.
    pub date: String,
    /// Tags as shown.
    pub tags: Vec<String>,
    /// Provenance as shown (`path:12-40`, `session#turn`, a source name).
    pub source: String,
    /// Layer.
    pub layer: Layer,
    /// Level it was rendered at.
    pub level: Level,
    /// Tokens the entry costs in the block.
    pub tokens: usize,
    /// Fused recall score.
    pub score: f32,
}

/// The result of [`assemble`]: the block, its entries and the receipt.
///
/// Serialises to the JSON output shape: `context_block`, `tokens`, `items`, `tags`, `source`,
/// `empty`, `format`, `receipt`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assembly {
    /// The block to inject: markdown (also for [`Format::Json`]) or xml, wrapped in
    /// `<cairn-context>` tags; `""` when empty.
    #[serde(rename = "context_block")]
    pub block: String,
    /// Tokens of `block`, as counted by the request's tokenizer; never above the budget.
    pub tokens: usize,
    /// The entries, in block order.
    pub items: Vec<AssembledItem>,
    /// The query tags.
    pub tags: Vec<String>,
    /// Always `"cairn"`.
    pub source: &'static str,
    /// Whether nothing was included: the caller should fall back.
    pub empty: bool,
    /// The requested format.
    pub format: Format,
    /// The trace receipt.
    pub receipt: Receipt,
}

impl Assembly {
    /// The text to print for the requested format: the block itself for markdown and xml, the
    /// pretty JSON object for json.
    pub fn output(&self) -> String {
        match self.format {
            Format::Markdown | Format::Xml => self.block.clone(),
            Format::Json => self.to_json(),
        }
    }

    /// The pretty-printed JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("an assembly always serialises")
    }
}

/// Block syntax (json output carries a markdown block).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Markdown,
    Xml,
}

#[derive(Clone, Debug)]
enum State {
    Pending,
    Included(Level),
    Excluded(ExcludeReason, Option<usize>),
}

/// The display fields and the rendered meta segment of a candidate.
struct View {
    title: String,
    date: String,
    tags: Vec<String>,
    source: String,
    meta: String,
    meta_tokens: usize,
}

/// A rendered text segment and the whole entry's tokens with it.
#[derive(Clone)]
struct Seg {
    text: String,
    entry_tokens: usize,
}

struct Cand<'a> {
    hit: &'a Hit,
    layer: Layer,
    state: State,
    view: Option<View>,
    tidied: Option<String>,
    levels: [Option<Seg>; 3],
}

struct Assembler<'a> {
    req: &'a AssembleRequest,
    tok: Tokenizer,
    syntax: Syntax,
    cands: Vec<Cand<'a>>,
    /// Indices of included candidates, in the order they were placed.
    picks: Vec<usize>,
    /// Lowest ratio of real to estimated meta tokens seen so far.
    meta_ratio: Option<f64>,
    cache: RefCell<&'a mut CountCache>,
}

/// Whether `count(a + b) == count(a) + count(b)` is guaranteed for the o200k and cl100k
/// pre-tokenizers, given that `a` ends with `\n`: `b` must not start with whitespace (which would
/// join `a`'s trailing newline run) or `/` (which o200k lets trail punctuation and newlines).
fn joins_cleanly(b: &str) -> bool {
    b.chars().next().is_none_or(|c| !c.is_whitespace() && c != '/')
}

fn sanitize_tags<'t>(tags: impl Iterator<Item = &'t String>, max: usize) -> Vec<String> {
    tags.map(|t| text::one_line(t, TAG_CHARS)).filter(|t| !t.is_empty()).take(max).collect()
}

/// Assemble the context block for `req`.
///
/// Infallible and deterministic: the same request gives byte-identical output. The block's
/// tokens, counted by the real BPE, never exceed `req.budget`.
pub fn assemble(req: &AssembleRequest) -> Assembly {
    assemble_with(req, &mut CountCache::new(0))
}

/// [`assemble`], memoising token counts in `cache` across calls (same output, less counting).
pub fn assemble_with(req: &AssembleRequest, cache: &mut CountCache) -> Assembly {
    let syntax = if req.options.format == Format::Xml { Syntax::Xml } else { Syntax::Markdown };
    let mut a = Assembler {
        req,
        tok: Tokenizer::new(req.options.encoding),
        syntax,
        cands: Vec::new(),
        picks: Vec::new(),
        meta_ratio: None,
        cache: RefCell::new(cache),
    };
    a.gather();
    a.dedupe();
    let (recent_allot, topic_allot) = a.pack();
    a.finish(recent_allot, topic_allot)
}

impl<'a> Assembler<'a> {
    fn count(&self, s: &str) -> usize {
        self.cache.borrow_mut().count(self.tok, s)
    }

    /// Visible candidates in a fixed order: topic by score (ties by chunk id), then recent by
    /// recency (ties by chunk id). Scope and score exclusions happen here.
    fn gather(&mut self) {
        let o = &self.req.options;
        let rank = |h: &Hit| if h.score.is_nan() { f32::NEG_INFINITY } else { h.score };
        let visible = |h: &&Hit| o.scope.as_ref().is_none_or(|s| s.allows(h.audience));
        let mut topic: Vec<&Hit> = self.req.topic.iter().filter(visible).collect();
        topic.sort_by(|a, b| rank(b).total_cmp(&rank(a)).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
        // The recent layer is about time: an undated item is not recent.
        let mut recent: Vec<&Hit> =
            self.req.recent.iter().filter(visible).filter(|h| h.created_at != cairn_core::UNDATED).collect();
        recent.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
        let layered = topic
            .into_iter()
            .map(|h| (h, Layer::Topic))
            .chain(recent.into_iter().map(|h| (h, Layer::Recent)));
        for (hit, layer) in layered {
            let state = if o.scope.as_ref().is_some_and(|s| !s.contains(&hit.project, hit.audience)) {
                State::Excluded(ExcludeReason::Scope, None)
            } else if layer == Layer::Topic
                && o.min_score.is_some_and(|m| hit.score.is_nan() || hit.score < m)
            {
                State::Excluded(ExcludeReason::Score, None)
            } else {
                State::Pending
            };
            self.cands.push(Cand { hit, layer, state, view: None, tidied: None, levels: [None, None, None] });
        }
    }

    /// Same chunk id, same content hash or near-identical text as an earlier candidate: duplicate.
    fn dedupe(&mut self) {
        let mut ids: FxHashMap<&str, usize> = FxHashMap::default();
        let mut hashes: FxHashMap<&str, usize> = FxHashMap::default();
        let mut texts: FxHashMap<u128, usize> = FxHashMap::default();
        // Texts with equal near keys have equal prefix keys: a candidate whose prefix key no other
        // candidate shares cannot be a near duplicate, and its full key (up to 4 KiB read) is skipped.
        let mut prefixes: FxHashMap<u128, usize> = FxHashMap::default();
        let prefix: Vec<Option<u128>> = self
            .cands
            .iter()
            .map(|c| {
                let p =
                    matches!(c.state, State::Pending).then(|| text::near_key_prefix(&c.hit.text)).flatten();
                if let Some(p) = p {
                    *prefixes.entry(p).or_default() += 1;
                }
                p
            })
            .collect();
        for (i, prefix) in prefix.iter().enumerate() {
            if !matches!(self.cands[i].state, State::Pending) {
                continue;
            }
            let hit = self.cands[i].hit;
            let mut key = None;
            let first = ids
                .get(hit.chunk_id.as_str())
                .or_else(|| {
                    (!hit.content_hash.is_empty()).then(|| hashes.get(hit.content_hash.as_str())).flatten()
                })
                .or_else(|| {
                    if prefix.is_some_and(|p| prefixes[&p] > 1) {
                        key = text::near_key(&hit.text);
                    }
                    key.as_ref().and_then(|k| texts.get(k))
                })
                .copied();
            if let Some(first) = first {
                self.cands[i].state = State::Excluded(ExcludeReason::Duplicate, Some(first));
                continue;
            }
            ids.insert(hit.chunk_id.as_str(), i);
            if !hit.content_hash.is_empty() {
                hashes.insert(hit.content_hash.as_str(), i);
            }
            if let Some(k) = key {
                texts.insert(k, i);
            }
        }
    }

    // ----- rendering -------------------------------------------------------------------------

    fn header(&self, items: usize, tokens: usize) -> String {
        let tags = sanitize_tags(self.req.query_tags.iter(), MAX_QUERY_TAGS).join(", ");
        let noun = if items == 1 { "item" } else { "items" };
        match self.syntax {
            Syntax::Markdown => format!(
                "<cairn-context>\n## Retrieved Context\n\n*Assembled by Cairn — {items} {noun}, ~{tokens} tokens*\n*Query tags: [{}]*\n\n",
                text::md_italic_safe(&text::defuse(&tags))
            ),
            Syntax::Xml => {
                let mut s = format!(
                    "<cairn-context source=\"cairn\" items=\"{items}\" tokens=\"{tokens}\" query-tags=\""
                );
                text::xml_attr(&tags, &mut s);
                s.push_str("\">\n");
                s
            }
        }
    }

    const FOOTER: &'static str = "</cairn-context>";

    fn view(&mut self, i: usize) -> &View {
        if self.cands[i].view.is_none() {
            let c = &self.cands[i];
            let hit = c.hit;
            let mut title = text::one_line(&hit.title, TITLE_CHARS);
            if title.is_empty() {
                title = "(untitled)".to_owned();
            }
            // An undated item shows no date (never a harvest day).
            let date = if hit.created_at == cairn_core::UNDATED {
                String::new()
            } else {
                text::date_utc(hit.created_at)
            };
            let tags = sanitize_tags(hit.tags.iter(), MAX_TAGS);
            let source = text::one_line(&hit.provenance.display(), SOURCE_CHARS);
            let mut meta = String::with_capacity(64 + title.len() + source.len());
            match self.syntax {
                Syntax::Markdown => {
                    if date.is_empty() {
                        let _ = writeln!(meta, "### {}", text::defuse(&title));
                    } else {
                        let _ = writeln!(meta, "### [{date}] {}", text::defuse(&title));
                    }
                    if !tags.is_empty() {
                        let joined = tags.join(", ");
                        let _ = writeln!(meta, "*Tags: {}*", text::md_italic_safe(&text::defuse(&joined)));
                    }
                    if !source.is_empty() {
                        let _ = writeln!(meta, "*Source: {}*", text::md_italic_safe(&text::defuse(&source)));
                    }
                    meta.push('\n');
                }
                Syntax::Xml => {
                    meta.push_str("<item id=\"");
                    text::xml_attr(&text::one_line(&hit.chunk_id, usize::MAX), &mut meta);
                    let layer = match c.layer {
                        Layer::Topic => "topic",
                        Layer::Recent => "recent",
                    };
                    let _ = write!(meta, "\" layer=\"{layer}\"");
                    if !date.is_empty() {
                        let _ = write!(meta, " date=\"{date}\"");
                    }
                    meta.push_str(" title=\"");
                    text::xml_attr(&title, &mut meta);
                    meta.push_str("\" source=\"");
                    text::xml_attr(&source, &mut meta);
                    meta.push_str("\" tags=\"");
                    text::xml_attr(&tags.join(", "), &mut meta);
                    meta.push_str("\">\n");
                }
            }
            let meta_tokens = self.count(&meta);
            self.cands[i].view = Some(View { title, date, tags, source, meta, meta_tokens });
        }
        self.cands[i].view.as_ref().expect("just set")
    }

    fn render_text(&self, shown: &str) -> String {
        match self.syntax {
            Syntax::Markdown if shown.is_empty() => String::new(),
            Syntax::Markdown => format!("{}\n\n", text::defuse(shown)),
            Syntax::Xml => {
                let mut s = String::with_capacity(shown.len() + 16);
                text::xml_text(shown, &mut s);
                if !shown.is_empty() {
                    s.push('\n');
                }
                s.push_str("</item>\n");
                s
            }
        }
    }

    /// The text segment for `text` holding at most about `cap` tokens: counted, then cut
    /// proportionally at a natural boundary and recounted, a few times at most.
    fn fit(&self, text: &str, cap: usize, cut: Cut) -> (String, usize) {
        let mut cur = text.trim();
        let mut truncated = false;
        if cap > 0 {
            for _ in 0..6 {
                if cur.is_empty() {
                    break;
                }
                let shown = if truncated { format!("{cur}…") } else { cur.to_owned() };
                let seg = self.render_text(&shown);
                let n = self.count(&seg);
                if n <= cap {
                    return (seg, n);
                }
                let chars = cur.chars().count();
                let target = (chars * cap / n * 9 / 10).min(chars.saturating_sub(1));
                cur = text::back_off(text::prefix_chars(cur, target), cut);
                truncated = true;
            }
        }
        let seg = self.render_text("");
        let n = self.count(&seg);
        (seg, n)
    }

    /// Candidate `i`'s text as an entry shows it: tidied, from its start, or from the line nearest
    /// the query (`why.focus`) when that line lies past the first half of what an L1 entry holds, so
    /// a long note shows the fact that answers rather than its opening ("… Flu jab done, 7 October").
    fn tidied(&mut self, i: usize) -> &str {
        if self.cands[i].tidied.is_none() {
            let hit = self.cands[i].hit;
            let room = self.req.options.l1_cap.saturating_mul(CHARS_PER_CAP_TOKEN) + 16;
            let from = hit.why.focus.filter(|&at| at >= room / 2 && hit.text.is_char_boundary(at));
            let tidied = match from {
                Some(at) => {
                    let rest = text::tidy(text::prefix_chars(&hit.text[at..], room), &hit.title);
                    if rest.is_empty() { rest } else { format!("… {rest}") }
                }
                None => text::tidy(text::prefix_chars(&hit.text, room), &hit.title),
            };
            self.cands[i].tidied = Some(tidied);
        }
        self.cands[i].tidied.as_deref().unwrap_or_default()
    }

    /// A rough token count of candidate `i`'s text segment at `level` (no tokenizer).
    fn text_estimate(&mut self, i: usize, level: Level) -> usize {
        let o = &self.req.options;
        let (l0_cap, l1_cap, snippet_cap) = (o.l0_cap, o.l1_cap, o.snippet_cap);
        match level {
            Level::L2 => {
                let hit = self.cands[i].hit;
                text::estimate_tokens(text::prefix_chars(
                    &hit.text,
                    snippet_cap.saturating_mul(CHARS_PER_CAP_TOKEN),
                ))
                .min(snippet_cap)
            }
            Level::L1 => text::estimate_tokens(self.tidied(i)).min(l1_cap),
            Level::L0 => text::estimate_tokens(text::first_sentence(self.tidied(i))).min(l0_cap),
        }
    }

    /// The text segment of candidate `i` at `level`, computed once.
    fn level_seg(&mut self, i: usize, level: Level) -> Seg {
        if let Some(seg) = &self.cands[i].levels[level.index()] {
            return seg.clone();
        }
        let o = &self.req.options;
        let hit = self.cands[i].hit;
        let (text, tokens) = match level {
            Level::L2 => {
                let window =
                    text::prefix_chars(&hit.text, o.snippet_cap.saturating_mul(CHARS_PER_CAP_TOKEN) + 16);
                self.fit(&text::clean_raw(window), o.snippet_cap, Cut::Line)
            }
            Level::L1 | Level::L0 => {
                let (l0_cap, l1_cap) = (o.l0_cap, o.l1_cap);
                self.tidied(i);
                let tidied = self.cands[i].tidied.as_deref().unwrap_or_default();
                if level == Level::L1 {
                    self.fit(tidied, l1_cap, Cut::Sentence)
                } else {
                    self.fit(text::first_sentence(tidied), l0_cap, Cut::Sentence)
                }
            }
        };
        let view = self.view(i);
        let entry_tokens = if joins_cleanly(&text) {
            view.meta_tokens + tokens
        } else {
            let whole = format!("{}{text}", view.meta);
            self.count(&whole)
        };
        let seg = Seg { text, entry_tokens };
        self.cands[i].levels[level.index()] = Some(seg.clone());
        seg
    }

    // ----- packing ---------------------------------------------------------------------------

    /// Place candidate `i` at the richest allowed level that fits in `room`; returns its tokens.
    fn place(&mut self, i: usize, room: usize) -> Option<usize> {
        if room < MIN_ENTRY_TOKENS {
            return None;
        }
        let hit = self.cands[i].hit;
        if self.cands[i].view.is_none() {
            // Date and markup, title, tags and source: estimated before rendering and counting.
            let tags: usize = hit.tags.iter().take(MAX_TAGS).map(|t| text::estimate_tokens(t) + 1).sum();
            let xml = match self.syntax {
                Syntax::Markdown => 0,
                Syntax::Xml => 24 + text::estimate_tokens(&hit.chunk_id),
            };
            let rough = 14
                + xml
                + text::estimate_tokens(text::prefix_chars(&hit.title, TITLE_CHARS))
                + tags
                + text::estimate_tokens(&hit.provenance.display());
            // Calibrated by the real counts seen so far in this request (the most optimistic ratio).
            // Nothing costs less than its meta plus its L0 text.
            let calibrated = self.meta_ratio.map_or(0, |r| (rough as f64 * r) as usize);
            let l0_cap = self.req.options.l0_cap;
            let first = text::first_sentence(text::prefix_chars(
                &hit.text,
                l0_cap.saturating_mul(CHARS_PER_CAP_TOKEN),
            ));
            let floor = text::estimate_tokens(first).min(l0_cap);
            if clearly_over(rough + floor, room) || calibrated + floor > room {
                return None;
            }
            let meta = self.view(i).meta_tokens;
            let ratio = meta as f64 / rough.max(1) as f64;
            self.meta_ratio = Some(self.meta_ratio.map_or(ratio, |r| r.min(ratio)));
        }
        let meta = self.view(i).meta_tokens;
        if meta > room {
            return None;
        }
        let max = self.req.options.max_level;
        for level in [Level::L2, Level::L1, Level::L0] {
            if level > max {
                continue;
            }
            if self.cands[i].levels[level.index()].is_none()
                && clearly_over(meta + self.text_estimate(i, level), room)
            {
                continue;
            }
            let seg = self.level_seg(i, level);
            if seg.entry_tokens <= room {
                self.cands[i].state = State::Included(level);
                self.picks.push(i);
                return Some(seg.entry_tokens);
            }
        }
        None
    }

    /// Fill `layer` with its candidates, in order, within `room`; returns the tokens used.
    fn fill(&mut self, layer: Layer, room: usize) -> usize {
        let mut used = 0;
        for i in 0..self.cands.len() {
            let c = &self.cands[i];
            let open = matches!(c.state, State::Pending | State::Excluded(ExcludeReason::Budget, _));
            if c.layer != layer || !open {
                continue;
            }
            match self.place(i, room - used) {
                Some(t) => used += t,
                None => self.cands[i].state = State::Excluded(ExcludeReason::Budget, None),
            }
        }
        used
    }

    fn entry_tokens(&self, i: usize) -> usize {
        match self.cands[i].state {
            State::Included(level) => {
                self.cands[i].levels[level.index()].as_ref().map_or(0, |s| s.entry_tokens)
            }
            _ => 0,
        }
    }

    /// Split the budget and fill: recency within its share, topic with the rest plus whatever
    /// recency left, then recency again with whatever topic left.
    fn pack(&mut self) -> (usize, usize) {
        let budget = self.req.budget;
        let candidates = self.cands.len();
        let reserved = self.count(&self.header(candidates, budget)) + self.count(Self::FOOTER);
        let avail = budget.saturating_sub(reserved);
        let share = self.req.options.recency_share;
        let share = if share.is_nan() { 0.25 } else { share.clamp(0.0, 1.0) };
        let recent_allot = ((avail as f64) * f64::from(share)).floor() as usize;
        let topic_allot = avail - recent_allot;
        let any_topic =
            self.cands.iter().any(|c| c.layer == Layer::Topic && matches!(c.state, State::Pending));
        if self.req.options.require_topic && !any_topic {
            for c in self.cands.iter_mut().filter(|c| matches!(c.state, State::Pending)) {
                c.state = State::Excluded(ExcludeReason::NoTopic, None);
            }
            return (recent_allot, topic_allot);
        }
        let used_recent = self.fill(Layer::Recent, recent_allot);
        let used_topic = self.fill(Layer::Topic, avail - used_recent);
        self.fill(Layer::Recent, avail - used_recent - used_topic);
        (recent_allot, topic_allot)
    }

    /// Drop the most recently placed entry (budget).
    fn unpick(&mut self) {
        if let Some(i) = self.picks.pop() {
            self.cands[i].state = State::Excluded(ExcludeReason::Budget, None);
        }
    }

    // ----- output ----------------------------------------------------------------------------

    fn finish(mut self, recent_allot: usize, topic_allot: usize) -> Assembly {
        let budget = self.req.budget;
        let footer_tokens = self.count(Self::FOOTER);
        let (block, total, header_tokens, verified) = loop {
            let order: Vec<usize> = (0..self.cands.len())
                .filter(|&i| matches!(self.cands[i].state, State::Included(_)))
                .collect();
            let has_topic = order.iter().any(|&i| self.cands[i].layer == Layer::Topic);
            if order.is_empty() || (self.req.options.require_topic && !has_topic) {
                for &i in &order {
                    self.cands[i].state = State::Excluded(ExcludeReason::NoTopic, None);
                }
                self.picks.clear();
                break (String::new(), 0, 0, false);
            }
            let body: usize = order.iter().map(|&i| self.entry_tokens(i)).sum::<usize>() + footer_tokens;
            // The header shows the total, which includes the header: find the fixed point.
            let mut total = body + self.count(&self.header(order.len(), body));
            let mut header = self.header(order.len(), total);
            let mut header_tokens = self.count(&header);
            for _ in 0..6 {
                if body + header_tokens == total {
                    break;
                }
                total = body + header_tokens;
                header = self.header(order.len(), total);
                header_tokens = self.count(&header);
            }
            let total = body + header_tokens;
            if total > budget {
                self.unpick();
                continue;
            }
            let mut block = header;
            for &i in &order {
                let c = &self.cands[i];
                let State::Included(level) = c.state else { unreachable!("filtered above") };
                block.push_str(&c.view.as_ref().expect("placed entries have a view").meta);
                block.push_str(&c.levels[level.index()].as_ref().expect("placed level is rendered").text);
            }
            block.push_str(Self::FOOTER);
            if !self.req.options.verify {
                break (block, total, header_tokens, false);
            }
            let real = self.tok.count(&block); // never cached: the point is an independent recount
            if real > budget {
                self.unpick();
                continue;
            }
            break (block, real, header_tokens, real == total);
        };
        self.output(
            block,
            total,
            header_tokens + if total > 0 { footer_tokens } else { 0 },
            verified,
            recent_allot,
            topic_allot,
        )
    }

    fn output(
        self,
        block: String,
        tokens: usize,
        header: usize,
        verified: bool,
        recent_allot: usize,
        topic_allot: usize,
    ) -> Assembly {
        let o = &self.req.options;
        let title = |c: &Cand<'_>| (!o.redact).then(|| text::one_line(&c.hit.title, TITLE_CHARS));
        let mut items = Vec::new();
        let mut included = Vec::new();
        let mut excluded = Vec::new();
        let (mut used_topic, mut used_recent) = (0, 0);
        for (i, c) in self.cands.iter().enumerate() {
            match &c.state {
                State::Included(level) => {
                    let t = self.entry_tokens(i);
                    match c.layer {
                        Layer::Topic => used_topic += t,
                        Layer::Recent => used_recent += t,
                    }
                    let v = c.view.as_ref().expect("placed entries have a view");
                    items.push(AssembledItem {
                        id: c.hit.chunk_id.clone(),
                        item_id: c.hit.item_id.clone(),
                        title: v.title.clone(),
                        date: v.date.clone(),
                        tags: v.tags.clone(),
                        source: v.source.clone(),
                        layer: c.layer,
                        level: *level,
                        tokens: t,
                        score: c.hit.score,
                    });
                    included.push(Included {
                        chunk_id: c.hit.chunk_id.clone(),
                        item_id: c.hit.item_id.clone(),
                        content_hash: c.hit.content_hash.clone(),
                        layer: c.layer,
                        level: *level,
                        tokens: t,
                        score: c.hit.score,
                        parts: c.hit.parts.clone(),
                        title: title(c),
                    });
                }
                State::Excluded(reason, first) => excluded.push(Excluded {
                    chunk_id: c.hit.chunk_id.clone(),
                    content_hash: c.hit.content_hash.clone(),
                    layer: c.layer,
                    reason: *reason,
                    duplicate_of: first.map(|f| self.cands[f].hit.chunk_id.clone()),
                    score: c.hit.score,
                    parts: c.hit.parts.clone(),
                    title: title(c),
                }),
                State::Pending => unreachable!("every candidate is placed or excluded"),
            }
        }
        let count = |layer| self.cands.iter().filter(|c| c.layer == layer).count();
        let candidates =
            Candidates { topic: count(Layer::Topic), recent: count(Layer::Recent), total: self.cands.len() };
        let receipt = Receipt {
            version: RECEIPT_VERSION,
            query_hash: content_hash(self.req.query.as_bytes()),
            redacted: o.redact,
            format: o.format,
            max_level: o.max_level,
            encoding: o.encoding,
            lanes: self.req.lanes.clone(),
            failed_lanes: self
                .req
                .lanes
                .iter()
                .filter(|l| l.status == LaneStatus::Failed)
                .map(|l| l.name.clone())
                .collect(),
            warnings: self.req.warnings.clone(),
            relevance: self.req.relevance.clone(),
            candidates,
            included,
            excluded,
            tokens: TokenAccounting {
                budget: self.req.budget,
                header,
                recent: LayerTokens { allotted: recent_allot, used: used_recent },
                topic: LayerTokens { allotted: topic_allot, used: used_topic },
                total: tokens,
                verified,
            },
            graph: None,
        };
        Assembly {
            empty: items.is_empty(),
            block,
            tokens,
            items,
            tags: self.req.query_tags.clone(),
            source: "cairn",
            format: o.format,
            receipt,
        }
    }
}
