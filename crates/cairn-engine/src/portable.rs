//! A portable copy of the store: [`Engine::export_store`] writes it as JSON Lines, one record per line
//! (items with their chunks, explicit tags and file states; captured turns; explicit links; session
//! state; sub-agent spawns), in a fixed order, so the same store always gives the same bytes;
//! [`Engine::import_store`] reads it back into any store, idempotently. Derived parts (the full-text
//! index, vectors, the graph's extracted rows) are not in it: the importing side derives them again.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use cairn_core::{Chunk, Item, ItemKind, Provenance};
use cairn_store::{
    FileState, GraphEdgeRow, LINK_OWNER, Store, SubagentLink, TurnOutcome, TurnRecord, Write as StoreWrite,
};
use serde::{Deserialize, Serialize};

use crate::open::Engine;
use crate::{Error, Result};

/// The first line of an export.
pub const EXPORT_FORMAT: &str = "cairn-export";
/// The version of the record shapes below.
pub const EXPORT_VERSION: u32 = 1;

/// Items written per store transaction on import.
const BATCH: usize = 512;

/// One line of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Record {
    /// The first line: what this is.
    Header {
        /// Always [`EXPORT_FORMAT`].
        format: String,
        /// [`EXPORT_VERSION`].
        version: u32,
    },
    /// A stored item that is not a captured turn (a memory file, a note, a fact).
    Item {
        /// The item.
        item: Item,
        /// Its chunks, in order.
        chunks: Vec<Chunk>,
        /// The tags that came from the source (the rest are inferred).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        explicit_tags: Vec<String>,
        /// For a harvested file: what the store remembers of it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<FileState>,
    },
    /// A captured turn.
    Turn {
        /// The host's session key.
        session_key: String,
        /// The turn id.
        turn_id: String,
        /// The turn's item (its time is the turn's).
        item: Item,
        /// Its chunks.
        chunks: Vec<Chunk>,
    },
    /// An explicit typed link (`cairn link`).
    Link {
        /// The edge.
        edge: GraphEdgeRow,
    },
    /// A session's serving state (sticky pack, turns served).
    SessionState {
        /// The session key.
        session_key: String,
        /// The state.
        state: serde_json::Value,
    },
    /// A sub-agent spawn.
    Subagent {
        /// The spawn record.
        link: SubagentLink,
    },
}

/// What an export or an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PortableReport {
    /// Items (not turns) written or read.
    pub items: u64,
    /// Captured turns.
    pub turns: u64,
    /// Explicit links.
    pub links: u64,
    /// Session states.
    pub session_states: u64,
    /// Sub-agent spawns.
    pub subagents: u64,
    /// On import: records already in the store as they are (nothing written for them).
    pub unchanged: u64,
    /// On import: chunks embedded afterwards (with a model configured), as a harvest embeds.
    #[serde(skip_serializing_if = "is_zero")]
    pub embedded: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Engine {
    /// Writes the whole store to `out` as JSON Lines (see [the module](self)); what it wrote.
    pub fn export_store(&self, out: &mut dyn Write) -> Result<PortableReport> {
        self.store_exists()?;
        let store = self.reader()?;
        let mut report = PortableReport::default();
        let line = |out: &mut dyn Write, r: &Record| -> Result<()> {
            serde_json::to_writer(&mut *out, r).map_err(|e| Error::BadInput(e.to_string()))?;
            out.write_all(b"\n").map_err(|e| Error::Unavailable(format!("writing the export: {e}")))
        };
        line(out, &Record::Header { format: EXPORT_FORMAT.into(), version: EXPORT_VERSION })?;
        let files: BTreeMap<String, FileState> =
            store.file_states()?.into_values().map(|f| (f.item_id.clone(), f)).collect();
        let mut failed = None;
        store.for_each_item(&mut |item, chunks| {
            let record = match (&item.kind, &item.provenance) {
                (ItemKind::Turn, Provenance::Turn { session_key, turn_id }) => {
                    report.turns += 1;
                    Record::Turn { session_key: session_key.clone(), turn_id: turn_id.clone(), item, chunks }
                }
                _ => {
                    report.items += 1;
                    let explicit_tags = store.explicit_tags(&item.id)?;
                    let file = files.get(&item.id).cloned();
                    Record::Item { item, chunks, explicit_tags, file }
                }
            };
            if let Err(e) = line(out, &record) {
                failed = Some(e);
            }
            Ok(())
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        let mut links: Vec<GraphEdgeRow> = store
            .graph_edges()?
            .into_iter()
            .filter(|(owner, _)| owner == LINK_OWNER)
            .map(|(_, e)| e)
            .collect();
        links.sort_by(|a, b| (&a.src, &a.dst, &a.kind).cmp(&(&b.src, &b.dst, &b.kind)));
        for edge in links {
            report.links += 1;
            line(out, &Record::Link { edge })?;
        }
        let mut states = store.session_states()?;
        states.sort();
        for (session_key, state) in states {
            report.session_states += 1;
            let state = serde_json::from_str(&state).unwrap_or(serde_json::Value::String(state));
            line(out, &Record::SessionState { session_key, state })?;
        }
        for link in store.subagents()? {
            report.subagents += 1;
            line(out, &Record::Subagent { link })?;
        }
        out.flush().map_err(|e| Error::Unavailable(format!("writing the export: {e}")))?;
        Ok(report)
    }

    /// Reads an export (see [the module](self)) into the store: items and turns not already there as
    /// they are, links, session states and spawns; then brings the index, the graph and (with a model)
    /// the vectors up to it.
    /// Idempotent: importing the same export twice changes nothing the second time. A bad line is an
    /// error naming its line number, and nothing after it is read.
    pub fn import_store(&self, input: &mut dyn BufRead, source: &str) -> Result<PortableReport> {
        let mut report = PortableReport::default();
        let mut writer = self.writer()?;
        let mut batch: Vec<StoreWrite> = Vec::new();
        let mut states = Vec::new();
        let mut lines = 0usize;
        let mut header = false;
        let mut text = String::new();
        loop {
            text.clear();
            let n = input
                .read_line(&mut text)
                .map_err(|e| Error::BadInput(format!("{source}:{}: unreadable: {e}", lines + 1)))?;
            if n == 0 {
                break;
            }
            lines += 1;
            if text.trim().is_empty() {
                continue;
            }
            let record: Record = serde_json::from_str(&text)
                .map_err(|e| Error::BadInput(format!("{source}:{lines}: not an export record: {e}")))?;
            if !header {
                match &record {
                    Record::Header { format, version }
                        if format == EXPORT_FORMAT && *version == EXPORT_VERSION =>
                    {
                        header = true;
                        continue;
                    }
                    Record::Header { format, version } => {
                        return Err(Error::BadInput(format!(
                            "{source}:{lines}: a `{format}` export of version {version}; this build reads \
                             `{EXPORT_FORMAT}` version {EXPORT_VERSION}"
                        )));
                    }
                    _ => {
                        return Err(Error::BadInput(format!(
                            "{source}:{lines}: no `{EXPORT_FORMAT}` header first: not a Cairn export"
                        )));
                    }
                }
            }
            match record {
                Record::Header { .. } => {
                    return Err(Error::BadInput(format!("{source}:{lines}: a second header")));
                }
                Record::Item { item, chunks, explicit_tags, file } => {
                    report.items += 1;
                    if writer.get_item(&item.id)?.as_ref() == Some(&item)
                        && writer.chunks(&item.id)? == chunks
                        && writer.explicit_tags(&item.id)? == explicit_tags
                    {
                        report.unchanged += 1;
                        continue;
                    }
                    batch.push(StoreWrite::Upsert { item, chunks, explicit_tags, file });
                    if batch.len() >= BATCH {
                        writer.apply(&std::mem::take(&mut batch), "import")?;
                    }
                }
                Record::Turn { session_key, turn_id, item, chunks } => {
                    report.turns += 1;
                    let record = TurnRecord {
                        session_key,
                        turn_id,
                        project: item.project.clone(),
                        audience: item.audience,
                        ts: item.created_at,
                        item,
                    };
                    if let TurnOutcome::Duplicate { .. } = writer.record_turn(&record, chunks)? {
                        report.unchanged += 1;
                    }
                }
                Record::Link { edge } => {
                    report.links += 1;
                    writer.graph_add_link(&edge)?;
                }
                Record::SessionState { session_key, state } => {
                    report.session_states += 1;
                    states.push((session_key, state.to_string()));
                }
                Record::Subagent { link } => {
                    report.subagents += 1;
                    writer.put_subagent(&link)?;
                }
            }
        }
        if !header {
            return Err(Error::BadInput(format!("{source}: empty: not a Cairn export")));
        }
        if !batch.is_empty() {
            writer.apply(&batch, "import")?;
        }
        if !states.is_empty() {
            writer.put_session_states(&states, cairn_core::now_ms())?;
            self.sessions().load(
                states.iter().filter_map(|(k, v)| serde_json::from_str(v).ok().map(|e| (k.clone(), e))),
            );
        }
        self.sync_locked(&writer)?;
        // A loaded graph is synced and reloaded (imported links included); an unloaded one syncs on first use.
        self.refresh_graph(&mut writer)?;
        // Vectors are not in an export: the imported chunks are embedded here, as a harvest's are.
        if let Some(embedded) = self.embed_locked(&mut writer, &cairn_core::NoProgress)? {
            report.embedded = embedded.embedded as u64;
        }
        Ok(report)
    }
}
