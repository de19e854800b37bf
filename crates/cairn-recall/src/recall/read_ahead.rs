//! Reading hits from the index's doc store: [`read_hit`] (through the fast decoder of the stored
//! bytes, one doc-store reader per segment cached per index generation, [`Stores`]), and
//! [`ReadAhead`], which reads the hits a recall will likely need (the recent list, the lexical pool)
//! on the helper thread while this thread runs the other lanes and fusion. [`HitReader`] is what a
//! recall reads its hits through, whether or not some were read ahead.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

use cairn_core::Hit;
use cairn_core::helper::{self, Helper};
use tantivy::store::StoreReader;
use tantivy::{DocAddress, Searcher};

use crate::error::{Error, Result};
use crate::index::StoredHit;
use crate::recall::Recaller;

/// One doc-store reader per segment, shared per index generation.
pub(super) type Stores = Arc<Vec<StoreReader>>;

/// Decompressed doc-store blocks each segment's reader keeps (tantivy's own default).
const STORE_CACHE_BLOCKS: usize = 100;

/// The hit at `addr`: through the fast decoder of its doc-store bytes, else through tantivy's.
fn read_hit(searcher: &Searcher, stores: Option<&[StoreReader]>, addr: DocAddress) -> Result<Hit> {
    if let Some(store) = stores.and_then(|s| s.get(addr.segment_ord as usize))
        && let Ok(bytes) = store.get_document_bytes(addr.doc_id)
        && let Some(hit) = crate::index::hit_from_stored_bytes(bytes.as_slice())
    {
        return Ok(hit);
    }
    let StoredHit(hit) = searcher.doc(addr).map_err(Error::engine("read stored document"))?;
    Ok(hit)
}

/// Hits read ahead on the helper thread (the recent list, then the lexical pool by rank) while this
/// thread runs the other lanes and fusion. Each hit is read once, by whichever thread claims it
/// first: the helper goes front to back, and this thread, once it knows which hits it needs, back to
/// front, so the two meet in the middle.
struct ReadAhead {
    searcher: Searcher,
    stores: Option<Stores>,
    addrs: Vec<DocAddress>,
    slots: Vec<Slot>,
    /// Set once this thread has taken what it needs: the helper reads no further.
    done: AtomicBool,
}

/// One read-ahead hit: its state (free, claimed, read) and, once read, the hit.
#[derive(Default)]
struct Slot {
    state: AtomicU8,
    hit: Mutex<Option<Result<Hit>>>,
}

const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const READ: u8 = 2;

/// How long the calling thread waits for a hit the helper is reading.
const READ_PATIENCE: std::time::Duration = std::time::Duration::from_micros(40);

impl ReadAhead {
    fn new(searcher: &Searcher, stores: Option<Stores>, addrs: Vec<DocAddress>) -> Self {
        let slots = addrs.iter().map(|_| Slot::default()).collect();
        ReadAhead { searcher: searcher.clone(), stores, addrs, slots, done: AtomicBool::new(false) }
    }

    /// The helper's side: every hit, front to back, until this thread is done.
    fn run(&self) {
        for i in 0..self.addrs.len() {
            if self.done.load(AtomicOrdering::Relaxed) {
                break;
            }
            self.read(i);
        }
    }

    /// Reads hit `i` unless the other thread has claimed it.
    fn read(&self, i: usize) {
        let slot = &self.slots[i];
        if slot
            .state
            .compare_exchange(FREE, CLAIMED, AtomicOrdering::Acquire, AtomicOrdering::Relaxed)
            .is_err()
        {
            return;
        }
        // Marks the slot read even if reading panics (the slot is then empty and `take` reads again).
        struct Release<'s>(&'s AtomicU8);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(READ, AtomicOrdering::Release);
            }
        }
        let _release = Release(&slot.state);
        let hit = read_hit(&self.searcher, self.stores.as_ref().map(|s| s.as_slice()), self.addrs[i]);
        *slot.hit.lock().unwrap_or_else(|e| e.into_inner()) = Some(hit);
    }

    /// Hit `i`, read here unless the helper has claimed it (then waited for a little: it reads a hit
    /// in microseconds, unless it lost its core; then read here too).
    fn take(&self, i: usize) -> Result<Hit> {
        self.read(i);
        let slot = &self.slots[i];
        let read = helper::wait_until(|| slot.state.load(AtomicOrdering::Acquire) == READ, READ_PATIENCE);
        let hit = if read { slot.hit.lock().unwrap_or_else(|e| e.into_inner()).take() } else { None };
        hit.unwrap_or_else(|| {
            read_hit(&self.searcher, self.stores.as_ref().map(|s| s.as_slice()), self.addrs[i])
        })
    }
}

/// How one recall reads its hits: those read ahead (when the recall shares its work with the helper
/// thread) through the [`ReadAhead`], the others here.
pub(super) struct HitReader<'s> {
    searcher: &'s Searcher,
    stores: Option<Stores>,
    /// The read-ahead, and where each of its addresses stands in it.
    ahead: Option<(Arc<ReadAhead>, HashMap<DocAddress, usize>)>,
}

impl<'s> HitReader<'s> {
    /// A reader of `searcher`'s hits; with `ahead` (addresses, most wanted first), the helper thread
    /// starts reading those.
    pub(super) fn new(
        searcher: &'s Searcher,
        stores: Option<Stores>,
        ahead: Option<Vec<DocAddress>>,
    ) -> Self {
        let ahead = ahead.map(|mut ahead_addrs| {
            // Each address once, at its first place.
            let mut at: HashMap<DocAddress, usize> = HashMap::with_capacity(ahead_addrs.len());
            ahead_addrs.retain(|a| {
                let next = at.len();
                *at.entry(*a).or_insert(next) == next
            });
            let ra = Arc::new(ReadAhead::new(searcher, stores.clone(), ahead_addrs));
            let theirs = Arc::clone(&ra);
            let _ = Helper::shared().try_run(move || theirs.run());
            (ra, at)
        });
        HitReader { searcher, stores, ahead }
    }

    /// The doc-store readers, when they could be opened.
    pub(super) fn stores(&self) -> Option<&[StoreReader]> {
        self.stores.as_ref().map(|s| s.as_slice())
    }

    /// The hit at `addr`: from the read-ahead when it holds `addr`, else read here.
    pub(super) fn read(&self, addr: DocAddress) -> Result<Hit> {
        match self.ahead.as_ref().and_then(|(ra, at)| Some((ra, *at.get(&addr)?))) {
            Some((ra, i)) => ra.take(i),
            None => read_hit(self.searcher, self.stores(), addr),
        }
    }

    /// Reads those of `addrs` (the hits needed, best first) the helper has not reached, from the
    /// last: the two threads meet halfway.
    pub(super) fn read_from_the_back(&self, addrs: impl DoubleEndedIterator<Item = DocAddress>) {
        if let Some((ra, at)) = &self.ahead {
            for addr in addrs.rev() {
                if let Some(&i) = at.get(&addr) {
                    ra.read(i);
                }
            }
        }
    }

    /// Tells the helper that this thread has taken what it needs: it reads no further.
    pub(super) fn done(&self) {
        if let Some((ra, _)) = &self.ahead {
            ra.done.store(true, AtomicOrdering::Relaxed);
        }
    }
}

impl Recaller {
    /// The doc-store readers of this index generation, opened on its first query (`None` when one
    /// cannot be opened: hits are then read through the searcher).
    pub(super) fn stores(&self, searcher: &Searcher) -> Option<Stores> {
        let generation = searcher.generation().generation_id();
        let mut cache = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, stores)) = cache.as_ref()
            && *g == generation
        {
            return Some(stores.clone());
        }
        let stores: Stores = Arc::new(
            searcher
                .segment_readers()
                .iter()
                .map(|r| r.get_store_reader(STORE_CACHE_BLOCKS))
                .collect::<std::io::Result<_>>()
                .ok()?,
        );
        *cache = Some((generation, stores.clone()));
        Some(stores)
    }
}
