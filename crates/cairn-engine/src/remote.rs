//! The remote lanes of a request: every configured [`Source`] consulted side by side with local recall,
//! under one deadline.
//!
//! [`Engine::remote_start`] decides without the network which sources to call (a private source is
//! never called for a shared audience; a down source, or one the request is not for, costs no call)
//! and starts each call on its own thread; local recall then runs on the calling thread;
//! [`Engine::remote_finish`] waits for the calls until each source's deadline (all measured from the
//! same start, so the request waits at most for its slowest source's time limit, never the sum),
//! scores what came back on recall's scale, drops what falls below the relevance floor or repeats a
//! local hit, and merges the rest into the hits by score. A call that fails or is late is reported
//! as lane `remote:<name>` failed (`timeout 800 ms`) and adds nothing: the block is byte-identical to
//! the one without the source. A late call is abandoned, not waited for; it ends by its own time
//! limit on its thread.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Instant;

use cairn_core::{Admission, Hit, LaneReport, LaneStatus, Scope, Source, SourceQuery};

use crate::context::{ContextRequest, Recalled};
use crate::open::Engine;

/// The prefix of a remote lane's name (`remote:graphiti`), in lane reports and hits' `why.lanes`.
pub const REMOTE_LANE: &str = "remote:";

/// One source's part of a request: a call under way, or what was decided without one.
enum Call {
    Running { source: Arc<dyn Source>, deadline: Instant, answer: Receiver<Result<Vec<Hit>, String>> },
    Decided(LaneReport),
}

/// The remote calls of one request, started before local recall.
pub(crate) struct Pending {
    started: Instant,
    calls: Vec<Call>,
}

fn lane(source: &dyn Source) -> String {
    format!("{REMOTE_LANE}{}", source.name())
}

fn report(
    name: String,
    status: LaneStatus,
    candidates: usize,
    micros: u64,
    error: Option<String>,
) -> LaneReport {
    LaneReport { name, status, candidates, micros, error }
}

/// Text reduced to lowercase words, for telling whether two hits say the same thing.
fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Below this many characters a normalised text is too short to call another that contains it a
/// repeat ("yes" is in many notes).
const MIN_REPEAT_CHARS: usize = 24;

/// Whether `a` and `b` say the same thing: equal, or one holding the other whole.
fn repeats(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= MIN_REPEAT_CHARS && long.contains(short))
}

impl Engine {
    /// Decides which sources `req` calls and starts those calls (each on its own thread).
    pub(crate) fn remote_start(&self, req: &ContextRequest) -> Pending {
        let started = Instant::now();
        if self.sources.is_empty() {
            return Pending { started, calls: Vec::new() };
        }
        let keywords = cairn_recall::content_words(&req.query);
        let calls = self
            .sources
            .iter()
            .map(|source| {
                let name = lane(&**source);
                if !req.scope.allows(source.audience()) {
                    let why = "private source, shared audience".to_owned();
                    return Call::Decided(report(name, LaneStatus::Skipped, 0, 0, Some(why)));
                }
                let q = SourceQuery {
                    text: &req.query,
                    keywords: &keywords,
                    scope: &req.scope,
                    k: req.candidates,
                    mode: None,
                };
                match source.admit(&q) {
                    Admission::Skip(why) => Call::Decided(report(name, LaneStatus::Skipped, 0, 0, Some(why))),
                    Admission::Down(why) => Call::Decided(report(name, LaneStatus::Failed, 0, 0, Some(why))),
                    Admission::Call => self.call(source, req, &keywords, started),
                }
            })
            .collect();
        Pending { started, calls }
    }

    fn call(
        &self,
        source: &Arc<dyn Source>,
        req: &ContextRequest,
        keywords: &[String],
        started: Instant,
    ) -> Call {
        let (tx, answer) = channel();
        let deadline = started + source.timeout();
        let (s, text, words, scope, k) =
            (source.clone(), req.query.clone(), keywords.to_vec(), req.scope.clone(), req.candidates);
        let spawned =
            std::thread::Builder::new().name(format!("cairn-{}", lane(&**source))).spawn(move || {
                let q = SourceQuery { text: &text, keywords: &words, scope: &scope, k, mode: None };
                let _ = tx.send(s.recall(&q));
            });
        match spawned {
            Ok(_) => Call::Running { source: source.clone(), deadline, answer },
            Err(e) => Call::Decided(report(
                lane(&**source),
                LaneStatus::Failed,
                0,
                0,
                Some(format!("could not start the call: {e}")),
            )),
        }
    }

    /// Waits for the calls of `pending` until their deadlines: each source's lane report and, when it
    /// answered in time, its hits inside `scope`, in configuration order. `timings`: lane timings kept.
    pub(crate) fn remote_collect(
        pending: Pending,
        scope: &Scope,
        timings: bool,
    ) -> Vec<(LaneReport, Vec<Hit>)> {
        let micros =
            |at: Instant| if timings { at.duration_since(pending.started).as_micros() as u64 } else { 0 };
        let mut out = Vec::with_capacity(pending.calls.len());
        for call in pending.calls {
            let (source, deadline, answer) = match call {
                Call::Decided(r) => {
                    out.push((r, Vec::new()));
                    continue;
                }
                Call::Running { source, deadline, answer } => (source, deadline, answer),
            };
            let name = lane(&*source);
            let got = answer.recv_timeout(deadline.saturating_duration_since(Instant::now()));
            let at = Instant::now();
            let failed =
                |e: String| (report(name.clone(), LaneStatus::Failed, 0, micros(at), Some(e)), Vec::new());
            out.push(match got {
                Ok(Ok(hits)) => {
                    // Defence in depth: a source scopes its own hits; anything outside the scope is dropped.
                    let hits: Vec<Hit> = hits.into_iter().filter(|h| in_scope(scope, h, &*source)).collect();
                    (report(name.clone(), LaneStatus::Ok, hits.len(), micros(at), None), hits)
                }
                Ok(Err(e)) => failed(e),
                Err(RecvTimeoutError::Timeout) => {
                    failed(format!("timeout {} ms", source.timeout().as_millis()))
                }
                Err(RecvTimeoutError::Disconnected) => failed("the call ended without an answer".to_owned()),
            });
        }
        out
    }

    /// Waits for the calls of `pending` until their deadlines and merges what they found into
    /// `recalled` (see the module documentation).
    pub(crate) fn remote_finish(&self, pending: Pending, req: &ContextRequest, recalled: &mut Recalled) {
        let mut kept: Vec<Hit> = Vec::new();
        let mut seen: Vec<String> =
            recalled.hits.iter().chain(&recalled.recent).map(|h| normalized(&h.text)).collect();
        for (lane_report, hits) in Self::remote_collect(pending, &req.scope, req.timings) {
            if lane_report.status == LaneStatus::Ok {
                let scored = cairn_recall::score_external(
                    hits,
                    &lane_report.name,
                    &recalled.weights,
                    &self.cfg.recall,
                    req.now,
                );
                for hit in scored.hits {
                    let norm = normalized(&hit.text);
                    if seen.iter().any(|s| repeats(s, &norm))
                        || kept.iter().any(|k| k.chunk_id == hit.chunk_id)
                    {
                        continue;
                    }
                    seen.push(norm);
                    kept.push(hit);
                }
            }
            recalled.lanes.push(lane_report);
        }
        merge(&mut recalled.hits, kept);
    }
}

/// Whether a source's hit may be shown in `scope`: its audience is one the scope sees and no more
/// open than the source's own, its project is the scope's.
fn in_scope(scope: &Scope, hit: &Hit, source: &dyn Source) -> bool {
    let audience_ok = hit.audience == source.audience() || hit.audience == cairn_core::Audience::Private;
    audience_ok && scope.contains(&hit.project, hit.audience)
}

/// Inserts `remote` hits among `hits` by score; a local hit stays before a remote one of the same
/// score, and the local hits keep their order.
fn merge(hits: &mut Vec<Hit>, remote: Vec<Hit>) {
    for r in remote {
        let at = hits.iter().position(|h| h.score < r.score).unwrap_or(hits.len());
        hits.insert(at, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_equal_or_contained_text() {
        let a = normalized("Alice works at Acme, since January.");
        assert_eq!(a, "alice works at acme since january");
        assert!(repeats(&a, &normalized("alice WORKS at acme since January")));
        assert!(repeats(&a, &normalized("# Work\nAlice works at Acme since January. She likes it.")));
        assert!(!repeats(&normalized("yes"), &normalized("yes, we did")));
        assert!(!repeats(&a, &normalized("Bob works at Acme")));
    }
}
