//! The derived full-text index follows the store: [`sync_index`] replays the ingest log since the
//! index's sequence, [`rebuild_index`] starts over.

use cairn_core::Chunk;
use cairn_recall::RecallIndex;
use cairn_store::Store;
use serde::Serialize;

use crate::Result;

/// What [`sync_index`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// Items (re)written to the index.
    pub upserted: usize,
    /// Items removed from the index.
    pub deleted: usize,
    /// Whether the whole index was rebuilt.
    pub rebuilt: bool,
    /// The store sequence the index now follows.
    pub seq: u64,
}

/// The chunks to index for an item: its stored chunks, or the whole text as one chunk.
fn chunks_or_whole(item: &cairn_core::Item, chunks: Vec<Chunk>) -> Vec<Chunk> {
    if !chunks.is_empty() {
        return chunks;
    }
    vec![Chunk::whole(item)]
}

/// Bring `index` up to date with `store`'s ingest log.
///
/// Incremental when the index already follows this store; a full rebuild when the index has never been
/// synced or claims a sequence the store does not have (a different or restored store).
pub fn sync_index(store: &dyn Store, index: &RecallIndex) -> Result<SyncReport> {
    let last = store.last_seq()?;
    let synced = index.synced_seq()?;
    match synced {
        Some(s) if s == last => Ok(SyncReport { seq: last, ..Default::default() }),
        Some(s) if s < last => {
            let mut writer = index.writer()?;
            let mut report = SyncReport { seq: last, ..Default::default() };
            for change in store.changes_since(s)? {
                if change.deleted {
                    writer.delete_item(&change.item_id)?;
                    report.deleted += 1;
                    continue;
                }
                match store.get_item(&change.item_id)? {
                    Some(item) => {
                        let chunks = chunks_or_whole(&item, store.chunks(&item.id)?);
                        writer.upsert(&item, &chunks)?;
                        report.upserted += 1;
                    }
                    None => {
                        writer.delete_item(&change.item_id)?;
                        report.deleted += 1;
                    }
                }
            }
            writer.commit(last)?;
            writer.finish()?;
            Ok(report)
        }
        _ => rebuild_index(store, index),
    }
}

/// Rebuild `index` from scratch from every item in `store`.
pub fn rebuild_index(store: &dyn Store, index: &RecallIndex) -> Result<SyncReport> {
    // The sequence is read first: writes that land during the rebuild are picked up by the next sync.
    let last = store.last_seq()?;
    // A rebuild indexes everything at once: use every core and a larger indexing heap.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let mut writer = index.writer_with(threads, 128 * 1024 * 1024 * threads)?;
    writer.clear()?;
    let mut report = SyncReport { rebuilt: true, seq: last, ..Default::default() };
    let mut index_err: Option<cairn_recall::Error> = None;
    store.for_each_item(&mut |item, chunks| {
        let chunks = chunks_or_whole(&item, chunks);
        if let Err(e) = writer.upsert(&item, &chunks) {
            index_err.get_or_insert(e);
        }
        report.upserted += 1;
        Ok(())
    })?;
    if let Some(e) = index_err {
        writer.rollback()?;
        return Err(e.into());
    }
    writer.commit(last)?;
    writer.finish()?;
    Ok(report)
}
