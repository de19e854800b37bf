//! Writes and what follows them: every write (harvest, capture, ingest, reindex) goes through the
//! store, then the derived parts catch up: the full-text index at once (the next request recalls the
//! write), vectors and the graph at once in a one-shot process and every second in a daemon
//! ([`Engine::refresh_derived`]).

use std::sync::atomic::Ordering;

use cairn_core::{ItemKind, NoProgress, Progress, Provenance, content_hash, now_ms};
use cairn_ingest::{CaptureOutcome, HarvestReport, HarvestRequest, TurnInput};
use cairn_store::{SqliteStore, Store, Write};
use serde::Serialize;

use crate::api::IngestNote;
use crate::open::Engine;
use crate::{EmbedReport, Error, Result, SyncReport};

/// What [`Engine::refresh_derived`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DerivedReport {
    /// Whether the store had changed since the last refresh (nothing is done otherwise).
    pub changed: bool,
    /// Chunks embedded (captured turns, ingested notes).
    pub embedded: usize,
    /// Whether the graph was synced and reloaded.
    pub graph_reloaded: bool,
    /// Session states pulled from a shared store that replaced this host's.
    #[serde(skip_serializing_if = "is_zero")]
    pub sessions: usize,
    /// Whether some part is still behind the store (its index writer was busy, chunks are left to
    /// embed, something failed): the next call goes on.
    pub behind: bool,
    /// What failed (the previous vectors and graph stay in use).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// The store could not be reached (a shared server down): what this host serves is as of its
    /// last refresh.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unreachable: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What [`Engine::harvest`] did: the harvest's report, then the index sync and the embedding run that
/// followed it.
#[derive(Debug, Clone, Serialize)]
pub struct HarvestOutcome {
    /// Files seen and what happened to each.
    pub report: HarvestReport,
    /// The full-text index sync.
    pub sync: SyncReport,
    /// Embedding of the new chunks (`None`: no model, or a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedded: Option<EmbedReport>,
}

impl Engine {
    /// Harvests the workspace (or `req.paths` in it) into the store, then brings the index and the
    /// vectors up to it. `files` reports harvest progress, `chunks` embedding progress.
    pub fn harvest(
        &self,
        req: &HarvestRequest,
        files: &dyn Progress,
        chunks: &dyn Progress,
    ) -> Result<HarvestOutcome> {
        let mut writer = self.writer()?;
        let started = now_ms();
        let report = cairn_ingest::harvest(&mut *writer, &self.cfg.harvest, req, files)?;
        if req.dry_run {
            return Ok(HarvestOutcome { report, sync: SyncReport::default(), embedded: None });
        }
        // Recorded once it ran: a refused run (a mass deletion, a missing root) leaves no record.
        let run = writer.begin_harvest(&req.root.display().to_string(), started)?;
        let mut summary = serde_json::to_value(&report).unwrap_or_default();
        if let Some(o) = summary.as_object_mut() {
            o.remove("files");
            o.remove("problems");
        }
        writer.finish_harvest(run, now_ms(), &summary)?;
        let sync = self.sync_locked(&writer)?;
        let embedded = self.embed_locked(&mut writer, chunks)?;
        Ok(HarvestOutcome { report, sync, embedded })
    }

    /// Captures one finished turn and makes it recallable at once by its words (the full-text index):
    /// the one-shot `cairn capture`. It never loads a model nor waits for chunks without vectors: the
    /// turn's vector comes from whoever follows the store next (a daemon's
    /// [`Engine::refresh_derived`], the next harvest or reindex). A daemon captures through
    /// [`Engine::capture_batch`].
    pub fn capture(&self, turn: &TurnInput) -> Result<CaptureOutcome> {
        let linked = self.for_capture(turn);
        let turn = linked.as_ref().unwrap_or(turn);
        let mut writer = self.writer()?;
        let outcome = cairn_ingest::capture(&mut *writer, &self.cfg.capture, turn, now_ms())?;
        if let CaptureOutcome::Stored { item_id, .. } = &outcome {
            self.sync_locked(&writer)?;
            self.forward_stored(&writer, std::slice::from_ref(item_id));
        }
        Ok(outcome)
    }

    /// Rebuilds the full-text index from the store, then embeds what lacks a vector.
    pub fn reindex(&self, chunks: &dyn Progress) -> Result<(SyncReport, Option<EmbedReport>)> {
        let mut writer = self.writer()?;
        let index = self.fresh_index()?;
        let report = crate::rebuild_index(&*writer, index)?;
        self.reload_recaller()?;
        let embedded = self.embed_locked(&mut writer, chunks)?;
        Ok((report, embedded))
    }

    /// Stores one piece of text as a note and makes it recallable; returns its item id.
    pub fn ingest(&self, note: &IngestNote) -> Result<String> {
        if note.text.trim().is_empty() {
            return Err(Error::BadInput("`text` is empty".into()));
        }
        let hash = content_hash(note.text.as_bytes());
        let id = format!("note:{}", &hash[..16]);
        let title = note.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| {
            let first = note.text.trim().lines().next().unwrap_or_default();
            first.chars().take(80).collect()
        });
        let now = now_ms();
        let item = cairn_core::Item {
            id: id.clone(),
            project: note.project.clone().unwrap_or_else(|| self.cfg.capture.default_project.clone()),
            kind: ItemKind::Doc,
            title,
            text: note.text.clone(),
            tags: note.tags.clone(),
            audience: note.audience.unwrap_or(self.cfg.capture.default_audience),
            provenance: Provenance::External { source: note.source.clone().unwrap_or_else(|| "api".into()) },
            content_hash: hash,
            created_at: now,
            observed_at: now,
            metadata: Default::default(),
        };
        let tags = item.tags.clone();
        let mut writer = self.writer()?;
        // A note's tags are explicit: they join the tag vocabulary harvested files are tagged from.
        let vocabulary = |s: &SqliteStore| -> Result<[Vec<String>; 2]> {
            let names = |v: Vec<(String, u64)>| v.into_iter().map(|(t, _)| t).collect();
            Ok([names(s.tag_vocabulary()?), names(s.public_tag_vocabulary()?)])
        };
        // Replacing a tagged note (same text) can take tags out of it too.
        let may_change = !tags.is_empty() || !writer.explicit_tags(&id)?.is_empty();
        let before = if may_change { Some(vocabulary(&writer)?) } else { None };
        writer.apply(&[Write::Upsert { item, chunks: vec![], explicit_tags: tags, file: None }], "ingest")?;
        if let Some(before) = before
            && before != vocabulary(&writer)?
        {
            // Harvested files are tagged from the vocabulary: bring them up to the new one.
            cairn_ingest::harvest::retag_files(&mut *writer, self.cfg.harvest.batch_size)?;
        }
        self.sync_locked(&writer)?;
        Ok(id)
    }

    /// Captures finished turns (stripping injected blocks) in one go, then syncs the index once so
    /// the next turn can recall them. Returns each turn's outcome.
    pub fn capture_batch(
        &self,
        turns: &[cairn_ingest::TurnInput],
    ) -> (Vec<std::result::Result<CaptureOutcome, Error>>, Result<SyncReport>) {
        // A sub-agent's turns are stored as its task and name the session that spawned it (read before
        // the writer is taken).
        let linked: Vec<Option<cairn_ingest::TurnInput>> =
            turns.iter().map(|t| self.for_capture(t)).collect();
        let mut writer = match self.writer() {
            Ok(w) => w,
            Err(e) => {
                let msg = e.to_string();
                let outcomes = turns.iter().map(|_| Err(Error::Unavailable(msg.clone()))).collect();
                return (outcomes, Err(e));
            }
        };
        let now = now_ms();
        let outcomes: Vec<_> = turns
            .iter()
            .zip(&linked)
            .map(|(t, l)| {
                let t = l.as_ref().unwrap_or(t);
                cairn_ingest::capture(&mut *writer, &self.cfg.capture, t, now).map_err(Error::from)
            })
            .collect();
        let sync = self.sync_locked(&writer);
        let stored: Vec<String> = outcomes
            .iter()
            .filter_map(|o| match o {
                Ok(CaptureOutcome::Stored { item_id, .. }) => Some(item_id.clone()),
                _ => None,
            })
            .collect();
        self.forward_stored(&writer, &stored);
        (outcomes, sync)
    }

    /// Queues the stored turns `ids` for write-through (when a source writes through).
    fn forward_stored(&self, writer: &SqliteStore, ids: &[String]) {
        if ids.is_empty() || !self.writes_through() {
            return;
        }
        let items: Vec<cairn_core::Item> =
            ids.iter().filter_map(|id| writer.get_item(id).ok().flatten()).collect();
        self.forward_captured(&items);
    }

    /// Brings the index up to the store and makes the reader see it.
    pub fn sync(&self) -> Result<SyncReport> {
        let writer = self.writer()?;
        self.sync_locked(&writer)
    }

    pub(crate) fn sync_locked(&self, writer: &SqliteStore) -> Result<SyncReport> {
        let index = self.index()?;
        let report = self.sync_index_with(writer, index)?;
        self.reload_recaller()?;
        Ok(report)
    }

    /// Embeds the chunks lacking a vector (no model: nothing, `None`) and brings a loaded vector index
    /// up to them. An embedder failure is a warning: the chunks stay pending for the next run.
    pub(crate) fn embed_locked(
        &self,
        writer: &mut SqliteStore,
        progress: &dyn Progress,
    ) -> Result<Option<EmbedReport>> {
        if !self.cfg.wants_vectors() {
            return Ok(None);
        }
        let Some(embedder) = self.embedder() else {
            return Ok(None);
        };
        let report = crate::embed_pending(writer, &**embedder, self.cfg.vector.embed_batch, progress)?;
        if let Some(e) = &report.error {
            tracing::warn!(
                "embedding stopped: {e}; {} chunks stay without vectors and are retried next run",
                report.pending
            );
        }
        if let Some(lane) = self.loaded_vectors() {
            crate::sync_vectors(&*writer, &lane.index)?;
        }
        Ok(Some(report))
    }

    /// Catches the daemon's derived parts up with the store, whatever process wrote it (its own
    /// captures and ingests, a separate `cairn harvest`, a watcher): the full-text index is synced
    /// (or, when another process holds its writer, re-read once that process committed) and the
    /// recall side reloaded, so edits, deletions and audience changes are served at once; then chunks
    /// that lack a vector are embedded, a slice of [`EMBED_SLICE`] per call, into the live vector index,
    /// and the graph is synced and reloaded (when it is loaded). Cheap when nothing changed. Failures
    /// leave the previous parts in use and are reported; the next call retries.
    pub fn refresh_derived(&self) -> DerivedReport {
        let mut report = DerivedReport::default();
        let mut store = match self.deriver() {
            Ok(s) => s,
            Err(e) => {
                report.unreachable = e.is_unavailable();
                report.errors.push(format!("store: {e}"));
                return report;
            }
        };
        let seq = match store.last_seq() {
            Ok(s) => s,
            Err(e) => {
                report.unreachable = e.kind() == cairn_store::ErrorKind::Unavailable;
                report.errors.push(format!("store: {e}"));
                return report;
            }
        };
        // Session states other hosts of a shared store saved (sticky packs).
        match self.pull_sessions(&store) {
            Ok(n) => report.sessions = n,
            Err(e) => report.errors.push(format!("session state: {e}")),
        }
        if seq == self.derived_seq.load(Ordering::Acquire) {
            // The graph tables may still have been written without a new sequence (an explicit link
            // by `cairn graph link`): one cheap read of their generation says so.
            match self.refresh_graph(&mut store) {
                Ok(reloaded) => report.graph_reloaded = reloaded,
                Err(e) => report.errors.push(format!("graph: {e}")),
            }
            return report;
        }
        report.changed = true;
        // Whether every part caught up with `seq` (else the next call goes on).
        let mut done = true;
        match self.follow_index(&store, seq) {
            Ok(caught_up) => done &= caught_up,
            Err(e) => {
                report.errors.push(format!("index: {e}"));
                done = false;
            }
        }
        if let Some(lane) = self.loaded_vectors() {
            match crate::embed_some(&mut *store, &*lane.embedder, 32, EMBED_SLICE, &NoProgress) {
                Ok(r) => {
                    report.embedded = r.embedded;
                    done &= r.pending == 0 || r.embedded == 0;
                    if let Some(e) = r.error {
                        report.errors.push(format!("embedding: {e}"));
                        done = false;
                    }
                }
                Err(e) => {
                    report.errors.push(format!("embedding: {e}"));
                    done = false;
                }
            }
            if let Err(e) = crate::sync_vectors(&*store, &lane.index) {
                report.errors.push(format!("vector index: {e}"));
                done = false;
            }
        }
        match self.refresh_graph(&mut store) {
            Ok(reloaded) => report.graph_reloaded = reloaded,
            Err(e) => {
                // Keep serving the last good graph; report the failure.
                report.errors.push(format!("graph: {e}"));
                done = false;
            }
        }
        if done {
            self.derived_seq.store(seq, Ordering::Release);
        }
        report.behind = !done;
        report
    }

    /// Brings the full-text index to `seq` through `store` and reloads the recall side; whether the
    /// index now follows `seq`. An index whose writer another process holds is left to it and re-read
    /// on a later call. Nothing to do before the recall side was first opened (it opens synced).
    fn follow_index(&self, store: &SqliteStore, seq: u64) -> Result<bool> {
        if !self.recaller_opened() {
            return Ok(true);
        }
        let index = self.index()?;
        if index.synced_seq()? != Some(seq) {
            match crate::sync_index(store, index) {
                // Another writer (a harvest in this process or another) is syncing it: re-read later.
                Err(Error::Index(e)) if e.kind() == cairn_recall::ErrorKind::Unavailable => {}
                other => {
                    other?;
                }
            }
        }
        self.reload_recaller()?;
        Ok(index.synced_seq()? == Some(seq))
    }
}

/// Chunks a daemon embeds per [`Engine::refresh_derived`] call, at most (about a second of work on
/// two cores with the default model): a backlog never holds back the following of the store.
pub(crate) const EMBED_SLICE: u64 = 256;
