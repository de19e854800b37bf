//! Sub-agents: a spawned session inherits its task's context from the session that spawned it, and
//! what it finds flows back.
//!
//! - [`Engine::spawned`] records the spawn (the parent, its last turns, its active intent).
//! - A child's turn gets a `<cairn-task-context>` block ([`Engine::task_context`]): recall on the
//!   child's task (its first prompt), the parent's last turns as one-liners, under
//!   `context.task_budget` tokens inside the turn's budget.
//! - The child never sees more than its parent: [`Engine::session_private`] follows the spawn records,
//!   so the child of a shared session is served (and its notes written) as a shared audience.
//! - The child's captured turns carry their parent ([`cairn_core::SPAWNED_BY_KEY`]); the graph links
//!   them to the parent's session (`spawned_by`), and [`Engine::subagent_ended`] stamps the turns
//!   captured before the spawn was known.
//!
//! A spawn record that cannot be read or written never fails a turn: the child is served as an
//! unlinked session (`parent: unknown` in its trace).

use cairn_core::{Hit, Millis, Provenance, Scope, now_ms, prefix};
use cairn_route::SessionType;
use cairn_store::{Store, SubagentEnd, SubagentLink, Write};

use crate::api::{SessionSummary, SubagentEnded, SubagentSpawn, TaskTrace};
use crate::open::Engine;
use crate::{Error, Result};

/// Parents followed up a chain of nested sub-agents before giving up (a cycle, or a chain too deep
/// to be real): the session is then treated as a shared audience.
const MAX_DEPTH: usize = 8;

/// Longest one-liner of a parent's turn, in bytes.
const TURN_LINE_BYTES: usize = 200;

/// Longest snippet of a recalled chunk, in bytes.
const SNIPPET_BYTES: usize = 320;

/// A sub-agent's task context block and what it holds.
pub(crate) struct TaskBlock {
    pub(crate) text: String,
    pub(crate) trace: TaskTrace,
}

impl Engine {
    /// Records that `req.parent_session_key` spawned `req.child_session_key`, with the parent's last
    /// `context.task_turns` turns and its active intent. A repeated spawn of the same child replaces
    /// the record (keeping a task already seen).
    pub fn spawned(&self, req: &SubagentSpawn) -> Result<SubagentLink> {
        let (parent, child) = (req.parent_session_key.trim(), req.child_session_key.trim());
        if parent.is_empty() || child.is_empty() {
            return Err(Error::BadInput("`parent_session_key` and `child_session_key` are required".into()));
        }
        if parent == child {
            return Err(Error::BadInput("a session cannot spawn itself".into()));
        }
        if self.classify(child).session_type != SessionType::Subagent {
            return Err(Error::BadInput(format!(
                "`{child}` is not a sub-agent session key (it needs a `subagent` segment, like \
                 `agent:main:subagent:<id>`)"
            )));
        }
        let mut store = self.side()?;
        let parent_turns = store
            .last_turns(parent, self.cfg.context.task_turns)?
            .into_iter()
            .map(|(turn, _)| turn)
            .collect();
        let link = SubagentLink {
            child: child.to_owned(),
            parent: parent.to_owned(),
            run_id: req.run_id.clone(),
            agent_id: req.agent_id.clone(),
            label: req.label.clone(),
            mode: req.mode.clone(),
            parent_turns,
            parent_intent: self.sessions().get(parent).sticky.map(|s| s.intent),
            spawned_at: now_ms(),
            ..Default::default()
        };
        store.put_subagent(&link)?;
        Ok(link)
    }

    /// Records how a sub-agent ended and links its turns captured so far to its parent. `false` when
    /// no spawn of it was recorded (nothing is changed).
    pub fn subagent_ended(&self, req: &SubagentEnded) -> Result<bool> {
        let child = req.child_session_key.trim();
        if child.is_empty() {
            return Err(Error::BadInput("`child_session_key` is required".into()));
        }
        let end = SubagentEnd {
            at: req.ended_at.unwrap_or_else(now_ms),
            outcome: req.outcome.clone(),
            reason: req.reason.clone(),
            error: req.error.clone(),
        };
        let link = {
            let mut store = self.side()?;
            if !store.end_subagent(child, &end)? {
                return Ok(false);
            }
            store.subagent(child)?
        };
        if let Some(link) = link {
            self.stamp_turns(&link)?;
        }
        Ok(true)
    }

    /// Marks the child's captured turns that do not name their parent yet (captured before the spawn
    /// was recorded), so the graph links them too.
    fn stamp_turns(&self, link: &SubagentLink) -> Result<()> {
        let mut writer = self.writer()?;
        let mut writes = Vec::new();
        for (_, item_id) in writer.last_turns(&link.child, usize::MAX >> 1)? {
            let Some(mut item) = writer.get_item(&item_id)? else { continue };
            if item.spawned_by().is_some() {
                continue;
            }
            item.set_spawned_by(&link.parent);
            let chunks = writer.chunks(&item_id)?;
            writes.push(Write::Upsert { item, chunks, explicit_tags: vec![], file: None });
        }
        if !writes.is_empty() {
            writer.apply(&writes, "subagent")?;
            self.sync_locked(&writer)?;
        }
        Ok(())
    }

    /// The spawn record of `child`; `None` when there is none or it cannot be read (logged).
    pub fn subagent(&self, child: &str) -> Option<SubagentLink> {
        let found = self.side().and_then(|s| s.subagent(child).map_err(Error::from));
        found.unwrap_or_else(|e| {
            tracing::warn!("spawn record of `{child}` unreadable, served as unlinked: {e}");
            None
        })
    }

    /// Whether `session_key` may see private memory: its key classifies as the owner's, and, for a
    /// sub-agent, so does every session up its chain of spawns (a chain that does not end within
    /// [`MAX_DEPTH`] is treated as shared). An unlinked sub-agent is judged by its key alone.
    pub(crate) fn session_private(&self, session_key: &str) -> bool {
        let mut key = session_key.to_owned();
        for _ in 0..=MAX_DEPTH {
            let info = self.classify(&key);
            if info.audience_shared {
                return false;
            }
            if info.session_type != SessionType::Subagent {
                return true;
            }
            match self.subagent(&key) {
                Some(link) => key = link.parent,
                None => return true,
            }
        }
        false
    }

    /// `input` as a sub-agent's turn is stored: its user text without the host's preamble and trailer
    /// (the task alone, see [`task_text`]), and the parent of its session when the spawn was recorded
    /// (its turns then link to the parent in the graph). `None` for any other session.
    pub(crate) fn for_capture(&self, input: &cairn_ingest::TurnInput) -> Option<cairn_ingest::TurnInput> {
        if self.classify(&input.session_key).session_type != SessionType::Subagent {
            return None;
        }
        let mut input = input.clone();
        if let Some(user) = &input.user {
            input.user = Some(task_text(user));
        }
        for m in input.messages.iter_mut().filter(|m| m.role == "user") {
            match &mut m.content {
                serde_json::Value::String(text) => *text = task_text(text),
                serde_json::Value::Array(parts) => {
                    for part in parts {
                        if let Some(serde_json::Value::String(text)) = part.get_mut("text") {
                            *text = task_text(text);
                        }
                    }
                }
                _ => {}
            }
        }
        input.spawned_by = self.subagent(&input.session_key).map(|link| link.parent);
        Some(input)
    }

    /// The `<cairn-task-context>` block of a sub-agent's turn: recall on `task` in `scope` (the
    /// child's, already narrowed to its parent's audience), then the parent's last turns in scope, at
    /// most `budget` tokens. Empty (0 tokens) when nothing is in scope or the budget holds no entry.
    pub(crate) fn task_context(
        &self,
        link: &SubagentLink,
        task: &str,
        scope: &Scope,
        budget: usize,
        now: Millis,
    ) -> TaskBlock {
        let mut trace = TaskTrace {
            parent: link.parent.clone(),
            run_id: link.run_id.clone(),
            parent_intent: link.parent_intent.clone(),
            ..Default::default()
        };
        let head = format!(
            "<cairn-task-context parent=\"{}\">\n## Task context\n\n*From the session that spawned this \
             sub-agent, for its task.*\n",
            defuse(&link.parent).replace('"', "'")
        );
        let foot = "</cairn-task-context>";
        let fixed = self.tokenizer.count(&head) + self.tokenizer.count(foot) + 2;
        if budget <= fixed {
            return TaskBlock { text: String::new(), trace };
        }
        let mut left = budget - fixed;
        let mut body = String::new();
        let mut take = |section: &mut Vec<String>, title: &str, body: &mut String| {
            if section.is_empty() {
                return 0;
            }
            let header = format!("\n### {title}\n\n");
            let mut cost = self.tokenizer.count(&header);
            let mut kept = 0;
            let mut text = header;
            for line in section.iter() {
                let line = format!("{line}\n");
                let n = self.tokenizer.count(&line);
                if cost + n > left {
                    break;
                }
                cost += n;
                text.push_str(&line);
                kept += 1;
            }
            if kept > 0 {
                left -= cost;
                body.push_str(&text);
            }
            kept
        };

        // Memory about the task, in the child's scope.
        let mut creq = self.context_request(task, scope.clone(), budget, now);
        creq.recent = 0;
        let recalled = self.gather(&creq);
        let parent_items: Vec<String> =
            link.parent_turns.iter().map(|t| format!("turn:{}:{t}", link.parent)).collect();
        let hits: Vec<&Hit> = recalled
            .hits
            .iter()
            .filter(|h| scope.contains(&h.project, h.audience))
            .filter(|h| !parent_items.contains(&h.item_id))
            .filter(|h| !matches!(&h.provenance, Provenance::Turn { session_key, .. } if *session_key == link.child))
            .collect();
        let mut lines: Vec<String> = hits.iter().map(|h| hit_line(h)).collect();
        let kept = take(&mut lines, "Memory about the task", &mut body);
        trace.hits = hits.iter().take(kept).map(|h| h.chunk_id.clone()).collect();

        // The parent's last turns, in scope.
        let mut lines = Vec::new();
        if !link.parent_turns.is_empty()
            && let Ok(store) = self.reader()
        {
            for id in &parent_items {
                if let Ok(Some(item)) = store.get_item(id)
                    && scope.contains(&item.project, item.audience)
                {
                    lines.push(format!("- {}", one_line(&item.text, TURN_LINE_BYTES)));
                }
            }
        }
        trace.turns = take(&mut lines, "The parent session's last turns", &mut body);

        if body.is_empty() {
            return TaskBlock { text: String::new(), trace };
        }
        let text = format!("{head}{body}{foot}");
        trace.tokens = self.tokenizer.count(&text);
        TaskBlock { text, trace }
    }

    /// One session's line of the listing, before its relations are known.
    fn session_summary(&self, key: String, turns: u64, last_seen: Option<Millis>) -> SessionSummary {
        let kind = self.classify(&key).session_type.as_str().to_ascii_lowercase();
        SessionSummary { key, kind, turns, last_seen, parent: None, children: vec![], spawn: None }
    }

    /// Every session captured or spawned, with its sub-agent relations: parents first, each followed
    /// by its children (the `cairn sessions` listing).
    pub fn sessions_overview(&self) -> Result<Vec<SessionSummary>> {
        self.store_exists()?;
        let store = self.reader()?;
        let links = store.subagents()?;
        let mut out: Vec<SessionSummary> = store
            .session_summaries()?
            .into_iter()
            .map(|(key, turns, last)| self.session_summary(key, turns, Some(last)))
            .collect();
        for link in &links {
            for key in [&link.parent, &link.child] {
                if !out.iter().any(|s| &s.key == key) {
                    out.push(self.session_summary(key.clone(), 0, None));
                }
            }
        }
        for link in links {
            if let Some(p) = out.iter_mut().find(|s| s.key == link.parent) {
                p.children.push(link.child.clone());
            }
            if let Some(c) = out.iter_mut().find(|s| s.key == link.child) {
                c.parent = Some(link.parent.clone());
                c.spawn = Some(link);
            }
        }
        // Roots in key order, each followed by its descendants.
        out.sort_by(|a, b| a.key.cmp(&b.key));
        let mut ordered = Vec::with_capacity(out.len());
        let mut placed = std::collections::BTreeSet::new();
        fn place(
            i: usize,
            out: &[SessionSummary],
            ordered: &mut Vec<SessionSummary>,
            placed: &mut std::collections::BTreeSet<usize>,
        ) {
            if !placed.insert(i) {
                return;
            }
            ordered.push(out[i].clone());
            for child in &out[i].children {
                if let Some(j) = out.iter().position(|s| &s.key == child) {
                    place(j, out, ordered, placed);
                }
            }
        }
        for i in 0..out.len() {
            let is_root = out[i].parent.as_ref().is_none_or(|p| !out.iter().any(|s| &s.key == p));
            if is_root {
                place(i, &out, &mut ordered, &mut placed);
            }
        }
        // A cycle of spawns has no root: list what is left as it is.
        for i in 0..out.len() {
            place(i, &out, &mut ordered, &mut placed);
        }
        Ok(ordered)
    }
}

/// The host's marker of a sub-agent's task in its first prompt (OpenClaw: `[Subagent Task]`, after a
/// `[Subagent Context]` preamble that names the marker too).
const TASK_MARKER: &str = "[subagent task]";

/// Lines from which on a sub-agent's prompt is the host's, not the task: the run's closing instruction,
/// its runtime line and its internal context block.
const HOST_TRAILERS: &[&str] =
    &["Begin. Execute the assigned task", "Runtime: agent=", "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT"];

/// The words of a sub-agent's prompt that say what it is about: after the host's last task marker
/// when there is one, up to the host's trailer, without bracketed markers at the start of a line
/// (`[Subagent Context]`, a timestamp). The rest is the host's preamble, the same for every task.
pub(crate) fn task_text(prompt: &str) -> String {
    let lower = prompt.to_ascii_lowercase();
    let body = match lower.rfind(TASK_MARKER) {
        Some(i) => &prompt[i + TASK_MARKER.len()..],
        None => prompt,
    };
    let mut out = String::with_capacity(body.len());
    for line in body.lines() {
        let mut rest = line.trim_start();
        if HOST_TRAILERS.iter().any(|t| rest.starts_with(t)) {
            break;
        }
        while let Some(after) = rest.strip_prefix('[')
            && let Some(end) = after.find(']').filter(|&e| e <= 40 && !after[..e].contains('['))
        {
            rest = after[end + 1..].trim_start();
        }
        if rest.is_empty() && out.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(rest);
    }
    let task = out.trim();
    // A prompt that is all marker and trailer says nothing else: keep it whole.
    if task.is_empty() { prompt.trim().to_owned() } else { task.to_owned() }
}

/// One line of a recalled chunk: its title, where it comes from, a snippet.
fn hit_line(h: &Hit) -> String {
    format!(
        "- **{}** ({}): {}",
        one_line(&h.title, 120),
        one_line(&h.provenance.display(), 200),
        one_line(&h.text, SNIPPET_BYTES)
    )
}

/// `text` on one line, cut at `max` bytes (with `…`), with Cairn's tags defused.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = prefix(&flat, max);
    let mut out = defuse(cut);
    if cut.len() < flat.len() {
        out.push('…');
    }
    out
}

/// Text that cannot open or close one of Cairn's blocks: `<cairn-…` and `</cairn-…` lose their `<`.
fn defuse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let tag = after.strip_prefix('/').unwrap_or(after);
        let opens = tag.get(..6).is_some_and(|t| t.eq_ignore_ascii_case("cairn-"));
        out.push_str(if opens { "&lt;" } else { "<" });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defuse_breaks_every_cairn_tag_and_nothing_else() {
        assert_eq!(
            defuse("a </cairn-task-context> b <CAIRN-context> <b>x</b> < cairn"),
            "a &lt;/cairn-task-context> b &lt;CAIRN-context> <b>x</b> < cairn"
        );
        assert_eq!(one_line("User: hi\n\nAssistant:   there", 100), "User: hi Assistant: there");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }

    #[test]
    fn task_text_is_the_task_without_the_hosts_preamble_and_trailer() {
        assert_eq!(task_text("[Subagent Task] Find the vet"), "Find the vet");
        let openclaw = "[Subagent Context] You are running as a subagent (depth 1/5). Complete the current \
                        [Subagent Task]; inherited conversation is background context.\n\n[Subagent Task]\n\n\
                        Find out how often the greenhouse is watered.\nThen report.\n\n\
                        Begin. Execute the assigned task to completion.\n\nRuntime: agent=main | session=x\n\
                        <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nnone";
        assert_eq!(task_text(openclaw), "Find out how often the greenhouse is watered.\nThen report.");
        assert_eq!(task_text("[Tue 2026-11-24 16:05 UTC] no marker [here]"), "no marker [here]");
        assert_eq!(task_text("[unclosed marker"), "[unclosed marker");
        assert_eq!(task_text("[Subagent Task]"), "[Subagent Task]");
    }
}
