//! Captured turns as `cairn capture` (JSON on stdin) and `POST /v1/capture` read them: JSON →
//! `TurnInput` → `validate_turn` (what the daemon checks before it answers 202) → the queue payload
//! (JSON again, which the capture worker parses back) → `capture` into a real SQLite store.
//!
//! Checks: no panic; linear time for parsing and validation; what validates survives the queue
//! round trip and is stored (`capture` never refuses a turn `validate_turn` accepted: what is
//! acknowledged is stored); what does not validate is refused by `capture` as well.
#![no_main]

use std::path::PathBuf;
use std::sync::Mutex;

use cairn_ingest::{CaptureOutcome, CaptureSettings, TurnInput, capture, validate_turn};
use cairn_store::{SqliteStore, Store};
use libfuzzer_sys::fuzz_target;

cairn_fuzz::asan_defaults!();

/// Captures stored into one store before it is replaced by an empty one (bounds its size).
const STORE_TURNS: usize = 512;

/// The store of this process: a temp dir, its store, turns stored so far.
static STORE: Mutex<Option<(PathBuf, SqliteStore, usize)>> = Mutex::new(None);

fn with_store<T>(f: impl FnOnce(&mut SqliteStore) -> T) -> T {
    let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
    if guard.as_ref().is_some_and(|(_, _, n)| *n >= STORE_TURNS) {
        let (dir, store, _) = guard.take().expect("checked");
        drop(store);
        let _ = std::fs::remove_dir_all(dir);
    }
    let (_, store, n) = guard.get_or_insert_with(|| {
        // scripts/fuzz.sh points TMPDIR at a scratch dir it removes afterwards.
        let dir = std::env::temp_dir().join(format!("cairn-fuzz-capture-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = SqliteStore::open(&dir.join("cairn.sqlite")).expect("opening the fuzz store");
        (dir, store, 0)
    });
    *n += 1;
    f(store)
}

fuzz_target!(|data: &[u8]| {
    let parsed = cairn_fuzz::linear("parse + validate", data.len(), || {
        serde_json::from_slice::<TurnInput>(data).map(|t| {
            let valid = validate_turn(&t).is_ok();
            (t, valid)
        })
    });
    let Ok((turn, valid)) = parsed else { return };
    // The daemon queues the turn as JSON and its worker parses it back: the round trip must keep it
    // valid (or invalid).
    let payload = serde_json::to_string(&turn).expect("a parsed turn serialises");
    let queued: TurnInput = serde_json::from_str(&payload).expect("the queue payload parses back");
    assert_eq!(validate_turn(&queued).is_ok(), valid, "validity changed through the queue: {payload}");

    let settings = CaptureSettings::default();
    let now = 1_767_225_600_000; // 2026-01-01, fixed: the outcome depends only on the input
    // Captured and read back on the same store (it is replaced every `STORE_TURNS` captures).
    let outcome = with_store(|store| {
        capture(store, &settings, &queued, now).map(|o| {
            let item = match &o {
                CaptureOutcome::Stored { item_id, .. } => Some(
                    store.get_item(item_id).expect("reading back").expect("a stored turn is in the store"),
                ),
                _ => None,
            };
            (o, item)
        })
    });
    match (valid, outcome) {
        (true, Ok((_, Some(item)))) => {
            let budget = 2 * settings.max_message_bytes + 64;
            assert!(item.text.len() <= budget, "a stored turn of {} bytes", item.text.len());
        }
        (true, Ok(_)) => {}
        (true, Err(e)) => panic!("validated, then refused by capture: {e}\n{payload}"),
        (false, Ok((CaptureOutcome::Skipped { .. }, _))) if queued.success == Some(false) => {}
        (false, Ok((o, _))) => panic!("not valid, yet captured: {o:?}\n{payload}"),
        (false, Err(_)) => {}
    }
});
