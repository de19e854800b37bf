//! Keeping the graph tables in step with the store's ingest log (a derived step, like the full-text
//! index): incremental per changed item, a full rebuild when the entity vocabulary changed.

use std::collections::{BTreeMap, BTreeSet};

use cairn_core::{Item, Provenance};
use cairn_store::{GraphRows, SqliteStore, Store};
use serde::Serialize;

use crate::Result;
use crate::extract::{VocabEntry, Vocabulary, extract, session_rows, vocab_entries};

const SEQ_KEY: &str = "seq";
const VOCAB_KEY: &str = "vocab";

/// What [`sync_graph`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GraphSyncReport {
    /// Items whose rows were (re)written.
    pub upserted: usize,
    /// Items whose rows were removed.
    pub deleted: usize,
    /// Whether every row was rebuilt.
    pub rebuilt: bool,
    /// The store sequence the graph now follows.
    pub seq: u64,
}

type VocabByOwner = BTreeMap<String, Vec<VocabEntry>>;
type ItemWithChunks = (Item, Vec<cairn_core::Chunk>);

fn flatten(v: &VocabByOwner) -> Vocabulary {
    Vocabulary::new(v.values().flatten().cloned().collect())
}

fn session_of(item: &Item) -> Option<&str> {
    match &item.provenance {
        Provenance::Turn { session_key, .. } => Some(session_key),
        _ => None,
    }
}

/// Whether the graph tables lag behind the store.
pub fn graph_is_stale(store: &SqliteStore) -> Result<bool> {
    let seq = store.graph_state(SEQ_KEY)?.and_then(|s| s.parse::<u64>().ok());
    Ok(seq != Some(store.last_seq()?))
}

/// Bring the graph tables up to `store`'s ingest log.
pub fn sync_graph(store: &mut SqliteStore) -> Result<GraphSyncReport> {
    let last = store.last_seq()?;
    let synced = store.graph_state(SEQ_KEY)?.and_then(|s| s.parse::<u64>().ok());
    let vocab: Option<VocabByOwner> =
        store.graph_state(VOCAB_KEY)?.and_then(|s| serde_json::from_str(&s).ok());
    let (synced, mut vocab) = match (synced, vocab) {
        (Some(s), Some(v)) if s <= last => (s, v),
        _ => return rebuild_graph(store),
    };
    if synced == last {
        return Ok(GraphSyncReport { seq: last, ..Default::default() });
    }
    let before = flatten(&vocab).fingerprint();
    let mut changed: Vec<(String, Option<ItemWithChunks>)> = Vec::new();
    for c in store.changes_since(synced)? {
        let item = if c.deleted { None } else { store.get_item(&c.item_id)? };
        match item {
            Some(item) => {
                let chunks = store.chunks(&item.id)?;
                let entries = vocab_entries(&item);
                if entries.is_empty() {
                    vocab.remove(&item.id);
                } else {
                    vocab.insert(item.id.clone(), entries);
                }
                changed.push((c.item_id, Some((item, chunks))));
            }
            None => {
                vocab.remove(&c.item_id);
                changed.push((c.item_id, None));
            }
        }
    }
    let voc = flatten(&vocab);
    if voc.fingerprint() != before {
        // New names: items written before may mention them; read everything again.
        return rebuild_graph(store);
    }
    let mut report = GraphSyncReport { seq: last, ..Default::default() };
    let mut replace = Vec::new();
    let mut sessions = BTreeMap::new();
    for (id, item) in changed {
        match item {
            Some((item, chunks)) => {
                if let Some(s) = session_of(&item) {
                    sessions.insert(s.to_owned(), item.audience);
                }
                replace.push((id, extract(&item, &chunks, &voc)));
                report.upserted += 1;
            }
            None => {
                replace.push((id, GraphRows::default()));
                report.deleted += 1;
            }
        }
    }
    for (key, audience) in sessions {
        let turns = store.session_turns(&key)?;
        replace.push((format!("session:{key}"), session_rows(&key, &turns, audience)));
    }
    let state = [(SEQ_KEY, last.to_string()), (VOCAB_KEY, serde_json::to_string(&vocab).unwrap_or_default())];
    store.graph_apply(false, &replace, &state)?;
    Ok(report)
}

/// Rebuild every derived graph row from the store (explicit links are kept).
pub fn rebuild_graph(store: &mut SqliteStore) -> Result<GraphSyncReport> {
    let last = store.last_seq()?;
    let mut vocab: VocabByOwner = BTreeMap::new();
    store.for_each_item(&mut |item, _| {
        let entries = vocab_entries(&item);
        if !entries.is_empty() {
            vocab.insert(item.id.clone(), entries);
        }
        Ok(())
    })?;
    let voc = flatten(&vocab);
    let mut replace = Vec::new();
    let mut sessions: BTreeMap<String, cairn_core::Audience> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    store.for_each_item(&mut |item, chunks| {
        if let Some(s) = session_of(&item) {
            sessions.entry(s.to_owned()).or_insert(item.audience);
        }
        seen.insert(item.id.clone());
        replace.push((item.id.clone(), extract(&item, &chunks, &voc)));
        Ok(())
    })?;
    for (key, audience) in sessions {
        let turns = store.session_turns(&key)?;
        replace.push((format!("session:{key}"), session_rows(&key, &turns, audience)));
    }
    let report = GraphSyncReport { upserted: seen.len(), deleted: 0, rebuilt: true, seq: last };
    let state = [(SEQ_KEY, last.to_string()), (VOCAB_KEY, serde_json::to_string(&vocab).unwrap_or_default())];
    store.graph_apply(true, &replace, &state)?;
    Ok(report)
}
