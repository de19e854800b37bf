//! Write-through: captured turns forwarded to the remote sources configured with `write_through`
//! (Graphiti `POST /messages`, mem0 `POST /memories`), in the background, with retries, and no effect on
//! the capture or the turn. One thread per such source takes the turns from a bounded queue (started on
//! the first turn to forward); a full queue drops the turn with a warning rather than hold a capture up.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_core::{Audience, CapturedTurn, Item, Source};

use crate::open::Engine;

/// Turns waiting to be forwarded at most; more are dropped (with a warning).
const QUEUE: usize = 1024;
/// Attempts per turn and source, and the pause before each retry.
const BACKOFF: [Duration; 2] = [Duration::from_millis(500), Duration::from_secs(3)];

/// One turn for one source.
pub(crate) struct Job {
    source: Arc<dyn Source>,
    turn: Arc<CapturedTurn>,
}

/// One queue and thread per source that writes through (started on its first turn), so that a slow
/// or failing service never holds up the others.
#[derive(Default)]
pub(crate) struct Forwarder(Mutex<HashMap<String, SyncSender<Job>>>);

impl Forwarder {
    fn send(&self, job: Job) {
        let mut queues = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let name = job.source.name().to_owned();
        let tx = queues.entry(name.clone()).or_insert_with(|| {
            let (tx, rx) = sync_channel(QUEUE);
            let spawned =
                std::thread::Builder::new().name(format!("cairn-write-{name}")).spawn(move || work(rx));
            if let Err(e) = spawned {
                tracing::warn!("write-through to `{name}` not started: {e}");
            }
            tx
        });
        match tx.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                tracing::warn!("write-through to `{name}`: {QUEUE} turns waiting, one dropped");
            }
            Err(TrySendError::Disconnected(_)) => {
                queues.remove(&name);
            }
        }
    }
}

fn work(rx: Receiver<Job>) {
    for job in rx {
        let name = job.source.name().to_owned();
        let mut attempt = 0;
        loop {
            match job.source.forward(&job.turn) {
                Ok(()) => break,
                Err(e) if attempt < BACKOFF.len() => {
                    tracing::debug!("write-through to `{name}` failed ({e}), retrying");
                    std::thread::sleep(BACKOFF[attempt]);
                    attempt += 1;
                }
                Err(e) => {
                    tracing::warn!("write-through to `{name}` failed after {} attempts: {e}", attempt + 1);
                    break;
                }
            }
        }
    }
}

/// A captured turn's item back as the turn: its stored text is `User: …\n\nAssistant: …`.
fn turn_of(item: &Item) -> Option<CapturedTurn> {
    let cairn_core::Provenance::Turn { session_key, .. } = &item.provenance else { return None };
    let text = item.text.as_str();
    let (user, assistant) = match text.split_once("\n\nAssistant: ") {
        Some((u, a)) => (u.strip_prefix("User: ").unwrap_or(u), a),
        None => match text.strip_prefix("Assistant: ") {
            Some(a) => ("", a),
            None => (text.strip_prefix("User: ").unwrap_or(text), ""),
        },
    };
    Some(CapturedTurn {
        session_key: session_key.clone(),
        project: item.project.clone(),
        audience: item.audience,
        user: user.to_owned(),
        assistant: assistant.to_owned(),
        at: item.created_at,
    })
}

impl Engine {
    /// Queues the captured turns `items` for every source that writes through and may hold them (a
    /// private turn never goes to a public source).
    pub(crate) fn forward_captured(&self, items: &[Item]) {
        let targets: Vec<&Arc<dyn Source>> = self.sources.iter().filter(|s| s.writes_through()).collect();
        if targets.is_empty() {
            return;
        }
        for turn in items.iter().filter_map(turn_of) {
            let turn = Arc::new(turn);
            for source in &targets {
                if source.audience() == Audience::Public && turn.audience == Audience::Private {
                    continue;
                }
                self.forwarder.send(Job { source: (*source).clone(), turn: turn.clone() });
            }
        }
    }

    /// Whether any source writes captured turns through.
    pub(crate) fn writes_through(&self) -> bool {
        self.sources.iter().any(|s| s.writes_through())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(session_key: &str, turn_id: &str) -> cairn_core::Provenance {
        cairn_core::Provenance::Turn { session_key: session_key.into(), turn_id: turn_id.into() }
    }

    #[test]
    fn a_stored_turn_splits_back() {
        let item = cairn_test::item("turn:s:1")
            .text("User: where is Alice?\n\nAssistant: In Berlin.")
            .provenance(turn("agent:main:main", "1"))
            .build();
        let t = turn_of(&item).unwrap();
        assert_eq!((t.user.as_str(), t.assistant.as_str()), ("where is Alice?", "In Berlin."));
        assert_eq!(t.session_key, "agent:main:main");
        let only = cairn_test::item("turn:s:2").text("Assistant: Done.").provenance(turn("k", "2")).build();
        assert_eq!(turn_of(&only).unwrap().user, "");
        assert!(turn_of(&cairn_test::item("fact:x").text("User: x").build()).is_none());
    }
}
