//! Forgetting: captured turns and ingested notes removed from the store, and through its ingest log
//! from every derived part (full text, vectors, graph). Memory files are not forgotten here: deleting
//! or editing the file is how they leave (a forgotten file would come back with the next harvest).

use cairn_core::{Millis, Provenance, Scope, now_ms};
use cairn_store::{SqliteStore, Store, Write};
use serde::Serialize;

use crate::open::Engine;
use crate::{Error, Result};

/// What to forget: the items named, the turns of a session, what was written before a time; any
/// combination (their union).
#[derive(Debug, Clone, Default)]
pub struct Forget {
    /// Item ids (`turn:…`, `note:…`).
    pub ids: Vec<String>,
    /// Every captured turn of this session key.
    pub session: Option<String>,
    /// Every captured turn and ingested note written before this time (ms since the epoch).
    pub before: Option<Millis>,
    /// Only say what would be forgotten.
    pub dry_run: bool,
}

impl Forget {
    /// Whether nothing was named (forgetting that would be a mistake, not "everything").
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.session.is_none() && self.before.is_none()
    }
}

/// What [`Engine::forget`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Forgotten {
    /// Items removed (or, in a dry run, that would be), in id order.
    pub items: Vec<String>,
    /// Ids named that were not removed, each with why (no such item in scope, a memory file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

impl Engine {
    /// Removes what `req` names from the store, then from the full-text index, the vectors and the
    /// graph, so that no surface recalls it any more. Only a caller who sees private memory (the
    /// owner) may forget, and only within `scope`'s project; an id it cannot see is refused as
    /// unknown, whatever the reason, so that forgetting reveals nothing.
    pub fn forget(&self, req: &Forget, scope: &Scope) -> Result<Forgotten> {
        if !scope.allow_private {
            return Err(Error::BadInput("only the owner may forget memory".into()));
        }
        if req.is_empty() {
            return Err(Error::BadInput("name what to forget: item ids, a session, or a time".into()));
        }
        let mut writer = self.writer()?;
        let in_scope = |project: &str| scope.project.as_deref().is_none_or(|p| p == project);
        let mut out = Forgotten { dry_run: req.dry_run, ..Default::default() };
        for id in &req.ids {
            match writer.get_item(id)? {
                Some(item) if !in_scope(&item.project) => out.refused.push(format!("{id}: no such item")),
                Some(item) => match item.provenance {
                    Provenance::File { path, .. } => out.refused.push(format!(
                        "{id}: a memory file; delete or edit `{path}` instead (the next harvest brings it back)"
                    )),
                    _ => out.items.push(item.id),
                },
                None => out.refused.push(format!("{id}: no such item")),
            }
        }
        if req.session.is_some() || req.before.is_some() {
            for id in writer.forgettable(req.session.as_deref(), req.before)? {
                if scope.project.is_some() {
                    match writer.get_item(&id)? {
                        Some(item) if in_scope(&item.project) => {}
                        _ => continue,
                    }
                }
                out.items.push(id);
            }
        }
        out.items.sort();
        out.items.dedup();
        if !req.dry_run {
            self.remove(&mut writer, &out.items, "forget")?;
            // A sub-agent's spawn record holds its task: it goes with the session.
            if let Some(session) = &req.session {
                writer.remove_subagent(session)?;
            }
        }
        Ok(out)
    }

    /// Forgets the captured turns older than `capture.retention_days` (none when it is 0); what was
    /// forgotten. Run by the daemon at start and every hour, and by `cairn forget --expired`.
    pub fn prune_expired(&self) -> Result<Forgotten> {
        let days = self.cfg.capture.retention_days;
        if days == 0 {
            return Ok(Forgotten::default());
        }
        let before = now_ms() - i64::from(days) * 86_400_000;
        let mut writer = self.writer()?;
        // Captured turns only: ingested notes are kept until forgotten by name.
        let items: Vec<String> = writer
            .forgettable(None, Some(before))?
            .into_iter()
            .filter(|id| id.starts_with("turn:"))
            .collect();
        self.remove(&mut writer, &items, "retention")?;
        Ok(Forgotten { items, ..Default::default() })
    }

    /// Deletes `ids` in one write, then brings the index, a loaded vector index and the graph up to
    /// it (vectors go with their items in the store).
    fn remove(&self, writer: &mut SqliteStore, ids: &[String], source: &str) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let writes: Vec<Write> = ids.iter().map(|id| Write::Delete { item_id: id.clone() }).collect();
        writer.apply(&writes, source)?;
        self.sync_locked(writer)?;
        if let Some(lane) = self.loaded_vectors() {
            crate::sync_vectors(&*writer, &lane.index)?;
        }
        if self.graph_wanted() {
            cairn_graph::sync_graph(writer)?;
            self.refresh_graph(writer)?;
        }
        Ok(())
    }
}
