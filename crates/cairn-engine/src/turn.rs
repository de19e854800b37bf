//! One agent turn: classify the session from its key → recall scoped to the session's audience and
//! project (every lane and source) → intent detection with entity boosts from the recalled hits → pack
//! composition → the graph step and assembly of the memory block under what the pack left of the turn
//! budget → the text to prepend, plus a trace. A recall or routing failure gives a short
//! `<cairn-fallback>` note in place of the failed part (fail-open); the turn always gets an answer.

use std::time::Instant;

use cairn_assemble::Assembly;
use cairn_core::{Hit, Millis, now_ms, prefix, prefix_words};
use cairn_route::{EntitySummary, Outcome, SessionType};

use crate::Result;
use crate::api::{IntentView, RouteTrace, SessionView, TurnRequest, TurnResponse, TurnTrace, fallback_note};
use crate::open::Engine;
use crate::session::{OneSession, SessionEntry};

impl Engine {
    /// Entity summaries of the best hits, for the router's entity boosts: the best five, and up to
    /// five more from remote sources (a Graphiti fact's relation and text are what the boosts key
    /// off, more entities only ever add boosts).
    fn entities(hits: &[Hit]) -> Vec<EntitySummary> {
        let remote = |h: &&Hit| h.why.lanes.iter().any(|l| l.starts_with(crate::remote::REMOTE_LANE));
        hits.iter()
            .take(5)
            .chain(hits.iter().skip(5).filter(remote).take(5))
            .map(|h| EntitySummary {
                summary: h.title.clone(),
                facts: h
                    .tags
                    .iter()
                    .cloned()
                    .chain(std::iter::once(prefix(&h.text, 400).to_owned()))
                    .collect(),
            })
            .collect()
    }

    /// Serves one turn. Never fails: a recall or routing failure gives a fallback note in its place.
    pub fn turn(&self, req: &TurnRequest) -> TurnResponse {
        let started = Instant::now();
        let now = req.now_ms.unwrap_or_else(now_ms);
        let budget = req.budget.unwrap_or(self.cfg.context.budget);
        let info = self.classify(&req.session_key);
        let mut session = SessionView::of(&info, req.project.clone());
        let prompt = prefix_words(&req.prompt, self.cfg.max_prompt_bytes);
        // A sub-agent sees no more than the session that spawned it; the host's markers in its prompt
        // (`[Subagent Task]`) are not what it is about.
        let subagent = info.session_type == SessionType::Subagent;
        let stripped;
        let prompt = if subagent {
            stripped = crate::subagents::task_text(prompt);
            stripped.as_str()
        } else {
            prompt
        };
        let link = if subagent { self.subagent(&req.session_key) } else { None };
        let narrowed = link.is_some() && !self.session_private(&req.session_key);
        if narrowed {
            session.audience = cairn_core::Audience::Public;
        }
        let mut trace = TurnTrace {
            turn_id: req.turn_id.clone(),
            session_reason: info.reason.clone(),
            warnings: info.warnings.clone(),
            budget,
            prompt_truncated: prompt.len() < req.prompt.len(),
            ..Default::default()
        };

        // A sub-agent's task context, first: it comes out of the turn's budget.
        let task = match &link {
            Some(link) => {
                let task = match &link.task {
                    Some(t) => t.clone(),
                    None => {
                        // The child's first prompt is its task (the host sends it as `[Subagent Task]`).
                        if let Err(e) = self.side().and_then(|mut s| {
                            s.set_subagent_task(&req.session_key, prompt).map_err(crate::Error::from)
                        }) {
                            trace.warnings.push(format!("task of the sub-agent not recorded: {e}"));
                        }
                        prompt.to_owned()
                    }
                };
                let room = self.cfg.context.task_budget.min(budget / 2);
                let block = self.task_context(link, &task, &session.scope(), room, now);
                let mut t = block.trace;
                t.narrowed = narrowed;
                trace.subagent = Some(t);
                block.text
            }
            None => {
                if subagent {
                    trace.subagent =
                        Some(crate::api::TaskTrace { parent: "unknown".into(), ..Default::default() });
                }
                String::new()
            }
        };
        let task_tokens = if task.is_empty() { 0 } else { self.tokenizer.count(&task) + 1 };

        // Recall.
        let t = Instant::now();
        let mut creq = self.context_request(prompt, session.scope(), budget, now);
        creq.timings = true;
        // What the host bootstraps whole in this session (USER.md in a private one) is not repeated.
        creq.bootstrapped = info.files.clone();
        let mut recalled = self.gather(&creq);
        self.cfg.context.modest(&mut recalled);
        trace.micros.recall = t.elapsed().as_micros() as u64;
        let recall_failed = match self.recaller() {
            Err(_) => Some("the memory index is unavailable".to_owned()),
            Ok(_) if recalled.all_failed() => Some("every recall lane failed".to_owned()),
            Ok(_) => None,
        };

        // Routing, with entity boosts from the recalled hits; the turn counter moves either way.
        let t = Instant::now();
        let entities = Self::entities(&recalled.hits);
        // One routing config for the whole turn, even if a reload swaps it meanwhile.
        let routing = self.routing();
        let decision = self.sessions().update(&req.session_key, |entry| {
            entry.turns += 1;
            trace.turn = entry.turns;
            routing.router.as_ref().map(|router| {
                let mut input = cairn_route::TurnInput::new(prompt)
                    .session_key(&req.session_key)
                    .entities(&entities)
                    .at(now)
                    .shared(narrowed);
                // A sub-agent's first turns follow its parent's active pack (the router still checks
                // the pack's scope against the child's audience).
                let parent_intent = link.as_ref().and_then(|l| l.parent_intent.as_deref());
                if entry.sticky.is_none()
                    && let Some(intent) = parent_intent
                {
                    input = input.previous_intent(intent);
                }
                router.decide(&input, &mut OneSession { key: &req.session_key, entry })
            })
        });
        trace.micros.route = t.elapsed().as_micros() as u64;
        let intent = decision.as_ref().map(IntentView::of).unwrap_or_else(|| IntentView {
            reason: match &routing.error {
                Some(_) => "routing config unavailable: no pack".to_owned(),
                None => "no routing config: no pack".to_owned(),
            },
            ..Default::default()
        });
        let route_failed = matches!(decision.as_ref().map(|d| &d.outcome), Some(Outcome::Error { .. }));
        let mut pack_block = decision.as_ref().and_then(|d| d.pack_block.clone()).unwrap_or_default();
        let mut intent = intent;
        let mut pack_tokens = self.tokenizer.count(&pack_block);
        let budget = budget.saturating_sub(task_tokens);
        if pack_tokens > budget {
            intent.reason =
                format!("{}; pack of {pack_tokens} tokens exceeds the budget of {budget}", intent.reason);
            intent.pack = None;
            intent.packs.clear();
            pack_block.clear();
            pack_tokens = 0;
        }
        trace.route = decision.map(|d| RouteTrace { outcome: d.outcome, intent: d.intent, trace: d.trace });

        // Memory under what the pack left (one token for the separator).
        let t = Instant::now();
        let room = budget.saturating_sub(pack_tokens + usize::from(pack_tokens > 0));
        trace.lanes = recalled.lanes.clone();
        let mut memory = String::new();
        let mut fallback_reason = recall_failed.or_else(|| route_failed.then(|| "routing failed".to_owned()));
        if let Some(reason) = &fallback_reason {
            let note = fallback_note(reason);
            if self.tokenizer.count(&note) <= room {
                memory = note;
            }
        } else if room > 0 {
            let mut mreq = creq;
            mreq.budget = room;
            let step = self.cfg.graph.enabled && self.cfg.graph.use_in_turns;
            let step = step.then(|| self.cfg.graph.expansion(false));
            let assembly: Assembly = self.assemble(&mreq, recalled, step.as_ref());
            if let Some(g) = assembly.receipt.lanes.iter().find(|l| l.name == "graph") {
                trace.lanes.push(g.clone());
            }
            memory = assembly.block;
            trace.receipt = Some(assembly.receipt);
        }
        trace.micros.assemble = t.elapsed().as_micros() as u64;

        let mut prepend = memory;
        if !pack_block.is_empty() {
            if !prepend.is_empty() {
                prepend.push_str("\n\n");
            }
            prepend.push_str(&pack_block);
        }
        let mut tokens = self.tokenizer.count(&prepend);
        if tokens > budget {
            // Joining two blocks never adds more than a token or two; keep the pack if anything.
            prepend = pack_block;
            tokens = pack_tokens;
            trace.receipt = None;
            fallback_reason.get_or_insert_with(|| "memory block dropped to keep the budget".to_owned());
        }
        trace.pack_tokens = pack_tokens;
        trace.memory_tokens = tokens.saturating_sub(pack_tokens);
        if !task.is_empty() {
            let joined = if prepend.is_empty() { task.clone() } else { format!("{task}\n\n{prepend}") };
            let n = self.tokenizer.count(&joined);
            if n <= budget + task_tokens {
                prepend = joined;
                tokens = n;
            } else if let Some(t) = trace.subagent.as_mut() {
                t.tokens = 0;
                t.hits.clear();
                t.turns = 0;
            }
        }
        let fallback = fallback_reason.is_some() && prepend.contains("<cairn-fallback>");
        trace.fallback_reason = fallback_reason;
        trace.micros.total = started.elapsed().as_micros() as u64;
        TurnResponse { prepend_context: prepend, fallback, session, intent, tokens, trace }
    }

    /// The answer for a turn that could not be served in time (or at all): the fallback note alone.
    pub fn fallback_turn(&self, req: &TurnRequest, reason: &str) -> TurnResponse {
        let info = self.classify(&req.session_key);
        let note = fallback_note(reason);
        TurnResponse {
            tokens: self.tokenizer.count(&note),
            prepend_context: note,
            fallback: true,
            session: SessionView::of(&info, req.project.clone()),
            intent: IntentView { reason: format!("not routed: {reason}"), ..Default::default() },
            trace: TurnTrace {
                turn_id: req.turn_id.clone(),
                session_reason: info.reason,
                budget: req.budget.unwrap_or(self.cfg.context.budget),
                fallback_reason: Some(reason.to_owned()),
                ..Default::default()
            },
        }
    }

    /// The routing decision for a prompt, as a dry run: the session's sticky state is read, never
    /// written, and the turn counter does not move.
    pub fn intent(&self, session_key: &str, prompt: &str, now: Option<Millis>) -> serde_json::Value {
        let now = now.unwrap_or_else(now_ms);
        let prompt = prefix_words(prompt, self.cfg.max_prompt_bytes);
        let info = self.classify(session_key);
        let session = SessionView::of(&info, None);
        let routing = self.routing();
        let Some(router) = &routing.router else {
            return serde_json::json!({
                "session": session,
                "intent": IntentView { reason: "no routing config: no pack".into(), ..Default::default() },
                "problems": routing.error.iter().collect::<Vec<_>>(),
            });
        };
        let creq = self.context_request(prompt, session.scope(), self.cfg.context.budget, now);
        let entities = Self::entities(&self.gather(&creq).hits);
        let mut entry: SessionEntry = self.sessions().get(session_key);
        let input = cairn_route::TurnInput::new(prompt).session_key(session_key).entities(&entities).at(now);
        let d = router.decide(&input, &mut OneSession { key: session_key, entry: &mut entry });
        serde_json::json!({
            "session": session,
            "intent": IntentView::of(&d),
            "decision": d,
        })
    }

    /// A session's saved state (sticky pack, turns served).
    pub fn session_state(&self, session_key: &str) -> SessionEntry {
        self.sessions().get(session_key)
    }

    /// Writes changed session states to the store; returns how many. Call it periodically and at
    /// shutdown.
    pub fn flush_sessions(&self) -> Result<usize> {
        let sessions = self.sessions();
        let _exchange = sessions.exchange();
        let dirty = sessions.take_dirty();
        if dirty.is_empty() {
            return Ok(0);
        }
        let saved = self.side().and_then(|mut side| Ok(side.put_session_states(&dirty, now_ms())?));
        if let Err(e) = saved {
            // Kept to be saved by the next call (a shared store may be unreachable for a while).
            sessions.mark_dirty(dirty.into_iter().map(|(key, _)| key));
            return Err(e);
        }
        Ok(dirty.len())
    }

    /// Merges the session states other hosts saved to the shared store since the last pull; how many
    /// replaced a state here. Nothing to do without a shared store, or before states were first loaded
    /// (they load current).
    pub(crate) fn pull_sessions(&self, store: &cairn_store::SqliteStore) -> Result<usize> {
        let (Some(shared), Some(sessions)) = (store.shared(), self.sessions_loaded()) else {
            return Ok(0);
        };
        let _exchange = sessions.exchange();
        let (pulled, upto) = shared.session_states_since(sessions.seen())?;
        Ok(sessions.merge(pulled, upto))
    }
}
