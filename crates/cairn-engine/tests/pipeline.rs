//! The whole read path over a real store and index: budgets, determinism, audience isolation.

use cairn_assemble::Format;
use cairn_core::{Audience, Chunk, Item, ItemKind, Scope};
use cairn_engine::{ContextRequest, context, rebuild_index, sync_index};
use cairn_recall::{RecallIndex, RecallSettings, Recaller};
use cairn_store::{SqliteStore, Store, Write};
use cairn_tokens::Tokenizer;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "apollo",
    "harbor",
    "backup",
    "restic",
    "weather",
    "grib",
    "parser",
    "crash",
    "alert",
    "queue",
    "sqlite",
    "deploy",
    "friday",
    "storm",
    "quiet",
    "hours",
    "certificate",
    "proxy",
    "天气",
    "备份",
    "バックアップ",
    "날씨",
];

fn item(i: usize, words: &[usize], private: bool, project: usize) -> (Item, Vec<Chunk>) {
    let text: String = words.iter().map(|w| WORDS[*w % WORDS.len()]).collect::<Vec<_>>().join(" ");
    cairn_test::item(format!("fact:{i}"))
        .project(format!("p{project}"))
        .kind(ItemKind::Fact)
        .title(format!("Note {i} {}", WORDS[words[0] % WORDS.len()]))
        .text(format!("{text}. SECRET-{i}"))
        .tags([WORDS[words[0] % WORDS.len()]])
        .audience(if private { Audience::Private } else { Audience::Public })
        .external(format!("test:{i}"))
        .created_at(1_700_000_000_000 + i as i64 * 86_400_000)
        .with_chunk()
}

fn corpus() -> impl Strategy<Value = Vec<(Vec<usize>, bool, usize)>> {
    prop::collection::vec((prop::collection::vec(0usize..100, 1..12), any::<bool>(), 0usize..2), 1..30)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn pipeline_invariants(
        docs in corpus(),
        query in prop::collection::vec(0usize..100, 1..8),
        budget in 0usize..1500,
        fmt in prop::sample::select(vec![Format::Markdown, Format::Xml, Format::Json]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
        let writes: Vec<Write> = docs
            .iter()
            .enumerate()
            .map(|(i, (w, private, p))| {
                let (it, ch) = item(i, w, *private, *p);
                Write::upsert(it, ch)
            })
            .collect();
        // Two batches, so the second sync is incremental.
        let half = writes.len() / 2;
        store.apply(&writes[..half], "t").unwrap();
        let index = RecallIndex::open_or_create(&dir.path().join("index")).unwrap();
        sync_index(&store, &index).unwrap();
        store.apply(&writes[half..], "t").unwrap();
        let report = sync_index(&store, &index).unwrap();
        prop_assert!(!report.rebuilt);

        let q: String = query.iter().map(|w| WORDS[*w % WORDS.len()]).collect::<Vec<_>>().join(" ");
        let run_with = |index: &RecallIndex, scope: Scope, settings: RecallSettings| {
            let recaller = Recaller::new(index, settings).unwrap();
            let mut req = ContextRequest::new(q.clone(), scope, budget, 1_800_000_000_000);
            req.options.format = fmt;
            context(Ok(&recaller), &req)
        };
        let run = |index: &RecallIndex, scope: Scope| run_with(index, scope, RecallSettings::default());
        let public = run(&index, Scope::public_only(None));
        // Budget, counted by the real tokenizer on the block.
        prop_assert!(Tokenizer::default().count(&public.block) <= budget);
        prop_assert!(public.tokens <= budget);
        // No private item reaches a public-only caller: not in the block, items or receipt.
        let out = serde_json::to_string(&public).unwrap();
        for (i, (_, private, _)) in docs.iter().enumerate() {
            if *private {
                let marker = format!("SECRET-{i}.");
                prop_assert!(!out.contains(&marker), "private text {marker} leaked");
                for id in [format!("\"fact:{i}\""), format!("\"fact:{i}#")] {
                    prop_assert!(!out.contains(&id), "private id {id} leaked in {out}");
                }
            }
        }
        // Deterministic: same store and query, byte-identical; and a rebuilt index agrees with the
        // incrementally synced one.
        let again = run(&index, Scope::public_only(None));
        prop_assert_eq!(serde_json::to_string(&again).unwrap(), out.clone());
        let dir2 = tempfile::tempdir().unwrap();
        let rebuilt = RecallIndex::open_or_create(dir2.path()).unwrap();
        prop_assert!(rebuild_index(&store, &rebuilt).unwrap().rebuilt);
        let from_rebuilt = run(&rebuilt, Scope::public_only(None));
        prop_assert_eq!(from_rebuilt.block, public.block);
        // The owner's view is a superset of the public one in candidates (without the relevance
        // floor, which weighs the query's words by each caller's own statistics).
        let unfloored = || RecallSettings { floor: 0.0, ..RecallSettings::default() };
        let owner = run_with(&index, Scope::owner(None), unfloored());
        let public = run_with(&index, Scope::public_only(None), unfloored());
        prop_assert!(owner.receipt.candidates.total >= public.receipt.candidates.total);
    }
}

#[test]
fn deletes_and_store_swaps_resync() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("a.sqlite")).unwrap();
    let (a, ca) = item(1, &[0, 1], false, 0);
    let (b, cb) = item(2, &[4, 5], false, 0);
    store.apply(&[Write::upsert(a, ca), Write::upsert(b, cb)], "t").unwrap();
    let index = RecallIndex::open_or_create(&dir.path().join("index")).unwrap();
    assert!(sync_index(&store, &index).unwrap().rebuilt, "first sync builds");
    store.apply(&[Write::Delete { item_id: "fact:1".into() }], "t").unwrap();
    let r = sync_index(&store, &index).unwrap();
    assert_eq!((r.deleted, r.upserted, r.rebuilt), (1, 0, false));
    let recaller = Recaller::new(&index, RecallSettings::default()).unwrap();
    let res = recaller.recall(&cairn_recall::RecallQuery::new("apollo harbor", Scope::owner(None), 5, 0));
    assert!(res.hits.iter().all(|h| h.item_id != "fact:1"));
    // An index that claims a sequence the store never reached (a different store) is rebuilt.
    let other = SqliteStore::open(&dir.path().join("b.sqlite")).unwrap();
    let r = sync_index(&other, &index).unwrap();
    assert!(r.rebuilt);
    assert_eq!(r.upserted, 0);
    recaller.reload().unwrap();
    assert_eq!(recaller.num_chunks(), 0);
}

#[test]
fn recall_failure_fails_open() {
    let req = ContextRequest::new("anything", Scope::owner(None), 200, 0);
    let a = context(Err(&"index is damaged"), &req);
    assert!(a.empty);
    assert_eq!(a.block, "");
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["receipt"]["lanes"][0]["status"], "failed");
    assert!(json["receipt"]["lanes"][0]["error"].as_str().unwrap().contains("damaged"));
}
