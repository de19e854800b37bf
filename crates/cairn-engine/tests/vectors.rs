//! Embedding at ingest and the vector lane over a real store, a real index and a real (tiny, generated)
//! BERT model: re-embedding only on change, failures that lose nothing, hybrid hits that explain their
//! lanes, fail-open recall, lexical-only without a model.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use cairn_core::NoProgress;
use cairn_core::{Audience, Chunk, Item, ItemKind, LaneStatus, Scope};
use cairn_embed::{EmbedKind, Embedder, LocalEmbedder};
use cairn_engine::{embed_pending, load_vectors, sync_index, sync_vectors, vector_key};
use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller, VectorLane, lane};
use cairn_store::{SqliteStore, Store, Write};
use cairn_vector::VectorSettings;

/// Counts the texts it embeds, and fails on demand, around a real embedder.
struct Counting {
    inner: LocalEmbedder,
    texts: AtomicUsize,
    fail: AtomicBool,
}

impl Embedder for Counting {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn embed(&self, texts: &[&str], kind: EmbedKind) -> cairn_embed::Result<Vec<Vec<f32>>> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(cairn_embed::Error::Inference("the model server went away".into()));
        }
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed(texts, kind)
    }
}

fn tiny_embedder(dir: &std::path::Path) -> Arc<Counting> {
    let model = dir.join("tiny-model");
    cairn_embed::testing::TinyModel::default().write(&model).unwrap();
    Arc::new(Counting {
        inner: LocalEmbedder::load(&model).unwrap(),
        texts: AtomicUsize::new(0),
        fail: AtomicBool::new(false),
    })
}

fn item(id: &str, title: &str, text: &str, audience: Audience) -> (Item, Vec<Chunk>) {
    cairn_test::item(id)
        .project("p")
        .kind(ItemKind::Fact)
        .title(title)
        .text(text)
        .audience(audience)
        .external(id)
        .with_chunk()
}

fn put(store: &mut SqliteStore, id: &str, title: &str, text: &str, audience: Audience) {
    let (it, chunks) = item(id, title, text, audience);
    store.apply(&[Write::upsert(it, chunks)], "test").unwrap();
}

#[test]
fn embeds_once_and_again_only_on_change() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    let mut store = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    for i in 0..7 {
        put(&mut store, &format!("n{i}"), "Note", &format!("the cat sat on the mat {i}"), Audience::Public);
    }
    let r = embed_pending(&mut store, &*e, 3, &NoProgress).unwrap();
    assert_eq!((r.embedded, r.pending, r.error.as_deref()), (7, 0, None));
    // One-line notes: their whole text only.
    assert_eq!(e.texts.load(Ordering::SeqCst), 7);
    let vectors = load_vectors(&store, &*e, VectorSettings::default()).unwrap();
    assert_eq!(vectors.read().unwrap().len(), 7);

    // Nothing changed: nothing is embedded.
    let r = embed_pending(&mut store, &*e, 3, &NoProgress).unwrap();
    assert_eq!(r.embedded, 0);
    assert_eq!(e.texts.load(Ordering::SeqCst), 7);

    // Same text re-written: still nothing. One text changed: exactly one embedding.
    put(&mut store, "n1", "Note", "the cat sat on the mat 1", Audience::Public);
    put(&mut store, "n2", "Note", "the dog ate pizza yesterday", Audience::Public);
    let r = embed_pending(&mut store, &*e, 3, &NoProgress).unwrap();
    assert_eq!(r.embedded, 1);
    assert_eq!(e.texts.load(Ordering::SeqCst), 8);

    // Deleting an item removes its vector from the store and, after sync, from the index.
    store.apply(&[Write::Delete { item_id: "n3".into() }], "test").unwrap();
    let report = sync_vectors(&store, &vectors).unwrap();
    assert!(report.items_reloaded >= 1);
    let v = vectors.read().unwrap();
    assert_eq!(v.len(), 6);
    assert!(v.vector("n3#0").is_none());
    assert!(v.vector("n2#0").is_some());
}

#[test]
fn a_chunk_of_several_lines_is_embedded_whole_and_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    let mut store = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    let text = "- Eno River Animal Hospital, Durham.\n- ok\n- Open Monday to Friday 7:30 to 18:00.";
    put(&mut store, "vet", "Dr. Raman", text, Audience::Public);
    put(&mut store, "one", "Note", "the cat sat on the mat", Audience::Public);
    let r = embed_pending(&mut store, &*e, 8, &NoProgress).unwrap();
    assert_eq!((r.embedded, r.pending), (2, 0));
    // One text for the one-line note; three for the other (whole, and its two lines of substance).
    assert_eq!(e.texts.load(Ordering::SeqCst), 4);
    let key = vector_key(&*e);
    assert_eq!(key, format!("{}+lines2", e.model_id()));
    let stored = store.item_vectors(&key, e.dim(), "vet").unwrap();
    let whole = e
        .inner
        .embed(
            &["Dr. Raman\n".to_owned() + text].iter().map(String::as_str).collect::<Vec<_>>(),
            EmbedKind::Document,
        )
        .unwrap();
    let lines = e
        .inner
        .embed(
            &[
                "Dr. Raman: Eno River Animal Hospital, Durham.",
                "Dr. Raman: Open Monday to Friday 7:30 to 18:00.",
            ],
            EmbedKind::Document,
        )
        .unwrap();
    let want = cairn_embed::blend_lines(&whole[0], &lines);
    assert_eq!(stored.len(), 1);
    let cos: f32 = stored[0].vector.iter().zip(&want).map(|(a, b)| a * b).sum();
    assert!(cos > 0.9999, "stored vector is the blend (cosine {cos})");
    assert!(stored[0].vector.iter().zip(&whole[0]).map(|(a, b)| a * b).sum::<f32>() < 0.9999);
    // The lines' own vectors are stored after it, in order; the one-line note has none.
    assert_eq!(stored[0].lines, lines.concat());
    assert!(store.item_vectors(&key, e.dim(), "one").unwrap()[0].lines.is_empty());
    // The index re-scores by them: the nearest line of the note is the line itself.
    let index = load_vectors(&store, &*e, VectorSettings::default()).unwrap();
    let index = index.read().unwrap();
    let chunk = &stored[0].chunk_id;
    for line in &lines {
        let best = index.best_line(chunk, line).unwrap();
        assert!((best - 1.0).abs() < 0.02, "a line is nearest itself ({best})");
    }
    assert_eq!(
        index.best_line(&store.item_vectors(&key, e.dim(), "one").unwrap()[0].chunk_id, &lines[0]),
        None
    );
}

#[test]
fn vectors_of_the_way_of_embedding_before_are_dropped_once_every_chunk_has_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    let mut store = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    for i in 0..3 {
        put(&mut store, &format!("n{i}"), "Note", &format!("the cat sat on the mat {i}"), Audience::Public);
    }
    // Vectors stored under the bare model id, as before chunks were blended with their lines, under
    // the blend without its lines, and another model's, which stay.
    for (model, dim) in [
        (e.model_id().to_owned(), e.dim()),
        (format!("{}+lines", e.model_id()), e.dim()),
        ("other-model".to_owned(), 3),
    ] {
        let old: Vec<cairn_store::NewVector> = store
            .pending_vectors(&model, dim, 10)
            .unwrap()
            .into_iter()
            .map(|c| cairn_store::NewVector {
                chunk_id: c.chunk_id,
                item_id: c.item_id,
                content_hash: c.content_hash,
                vector: vec![1.0; dim],
                lines: Vec::new(),
            })
            .collect();
        assert_eq!(store.put_vectors(&model, &old).unwrap(), 3);
    }
    // Stopped early: the old vectors stay (a half-embedded store still has them to serve).
    e.fail.store(true, Ordering::SeqCst);
    let r = embed_pending(&mut store, &*e, 2, &NoProgress).unwrap();
    assert_eq!((r.embedded, r.retired), (0, 0));
    assert_eq!(store.vector_status(e.model_id(), e.dim()).unwrap().current, 3);
    e.fail.store(false, Ordering::SeqCst);
    let r = embed_pending(&mut store, &*e, 2, &NoProgress).unwrap();
    assert_eq!((r.embedded, r.pending, r.retired), (3, 0, 6));
    assert_eq!(store.vector_status(e.model_id(), e.dim()).unwrap().current, 0);
    assert_eq!(store.vector_status(&format!("{}+lines", e.model_id()), e.dim()).unwrap().current, 0);
    assert_eq!(store.vector_status(&vector_key(&*e), e.dim()).unwrap().current, 3);
    assert_eq!(store.vector_status("other-model", 3).unwrap().current, 3, "another model's vectors stay");
}

#[test]
fn embedder_failure_keeps_items_and_retries_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    let mut store = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    for i in 0..4 {
        put(&mut store, &format!("n{i}"), "Note", &format!("weather data reader {i}"), Audience::Public);
    }
    e.fail.store(true, Ordering::SeqCst);
    let r = embed_pending(&mut store, &*e, 2, &NoProgress).unwrap();
    assert_eq!(r.embedded, 0);
    assert_eq!(r.pending, 4);
    assert!(r.error.as_deref().unwrap().contains("went away"));
    assert_eq!(store.status().unwrap().items, 4, "the items are stored regardless");
    e.fail.store(false, Ordering::SeqCst);
    let r = embed_pending(&mut store, &*e, 2, &NoProgress).unwrap();
    assert_eq!((r.embedded, r.pending), (4, 0));
}

fn setup() -> (tempfile::TempDir, Arc<Counting>, SqliteStore, RecallIndex) {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    let mut store = SqliteStore::open(&dir.path().join("s.sqlite")).unwrap();
    put(&mut store, "grib", "GRIB parser", "the grib parser crash on a truncated file", Audience::Public);
    put(&mut store, "cat", "Cat", "the cat sat on the mat", Audience::Public);
    put(&mut store, "pizza", "Pizza", "we ate pizza yesterday", Audience::Public);
    put(&mut store, "secret", "Weather", "weather data reader fell over", Audience::Private);
    embed_pending(&mut store, &*e, 8, &NoProgress).unwrap();
    let index = RecallIndex::open_or_create(&dir.path().join("index")).unwrap();
    sync_index(&store, &index).unwrap();
    (dir, e, store, index)
}

#[test]
fn hybrid_hits_explain_their_lanes_and_respect_scope() {
    let (_dir, e, store, index) = setup();
    let vectors = load_vectors(&store, &*e, VectorSettings::default()).unwrap();
    let lane = VectorLane::new(e.clone(), vectors);
    let recaller = Recaller::new(&index, RecallSettings::default()).unwrap().with_vectors(Some(lane));
    let q = RecallQuery::new("why did the grib parser crash", Scope::owner(None), 4, 0);
    let res = recaller.recall(&q);
    let vector_lane = res.lanes.iter().find(|l| l.name == lane::VECTOR).unwrap();
    assert_eq!(vector_lane.status, LaneStatus::Ok);
    let top = &res.hits[0];
    assert_eq!(top.item_id, "grib");
    assert!(top.why.lanes.contains(&lane::LEXICAL.to_string()));
    assert!(top.why.lanes.contains(&lane::VECTOR.to_string()));
    assert_eq!(top.why.ranks.get(lane::LEXICAL), Some(&1));
    assert!(top.why.ranks.contains_key(lane::VECTOR));
    assert!(top.parts.contains_key(lane::VECTOR));
    // Hits found only by the vector lane say so.
    let vector_only: Vec<_> =
        res.hits.iter().filter(|h| !h.why.lanes.contains(&lane::LEXICAL.to_string())).collect();
    assert!(vector_only.iter().all(|h| h.why.lanes.contains(&lane::VECTOR.to_string())));
    assert!(!vector_only.is_empty(), "every chunk is a vector candidate in a 4-chunk store");

    // Public-only: the private chunk is in no lane and in no count.
    let q = RecallQuery::new("weather data reader fell over", Scope::public_only(None), 10, 0);
    let res = recaller.recall(&q);
    assert!(res.hits.iter().all(|h| h.item_id != "secret"));
    assert!(res.lanes.iter().all(|l| l.candidates <= 3), "{:?}", res.lanes);
}

#[test]
fn failing_embedder_fails_the_lane_not_recall() {
    let (_dir, e, store, index) = setup();
    let vectors = load_vectors(&store, &*e, VectorSettings::default()).unwrap();
    e.fail.store(true, Ordering::SeqCst);
    let lane = VectorLane::new(e.clone(), vectors);
    let recaller = Recaller::new(&index, RecallSettings::default()).unwrap().with_vectors(Some(lane));
    let res = recaller.recall(&RecallQuery::new("grib parser crash", Scope::owner(None), 3, 0));
    let v = res.lanes.iter().find(|l| l.name == lane::VECTOR).unwrap();
    assert_eq!(v.status, LaneStatus::Failed);
    assert!(v.error.as_deref().unwrap().contains("went away"));
    assert_eq!(res.hits[0].item_id, "grib");
    assert!(res.hits.iter().all(|h| !h.why.lanes.contains(&lane::VECTOR.to_string())));
}

#[test]
fn without_a_model_recall_is_lexical() {
    let (_dir, _e, _store, index) = setup();
    let recaller = Recaller::new(&index, RecallSettings::default()).unwrap();
    let res = recaller.recall(&RecallQuery::new("grib parser crash", Scope::owner(None), 3, 0));
    let v = res.lanes.iter().find(|l| l.name == lane::VECTOR).unwrap();
    assert_eq!(v.status, LaneStatus::Skipped);
    assert_eq!(res.hits[0].item_id, "grib");
    assert!(res.hits.iter().all(|h| h.why.lanes.contains(&lane::LEXICAL.to_string())));
}

#[test]
fn the_turn_pipeline_uses_the_vector_lane_when_configured() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    {
        let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
        put(&mut store, "grib", "GRIB parser", "the grib parser crash on a truncated file", Audience::Public);
        put(&mut store, "cat", "Cat", "the cat sat on the mat", Audience::Public);
        embed_pending(&mut store, &*e, 8, &NoProgress).unwrap();
    }
    let store = SqliteStore::open_read_only(&dir.path().join("cairn.sqlite")).unwrap();
    let vectors = load_vectors(&store, &*e, VectorSettings::default()).unwrap();
    drop(store);
    let turn = |vectors: Option<VectorLane>| {
        let mut cfg = cairn_engine::EngineConfig::new(dir.path());
        match vectors {
            Some(v) => cfg.embedder = Some(v.embedder),
            None => cfg.embed.provider = cairn_embed::EmbedProvider::None,
        }
        let engine = cairn_engine::Engine::open(cfg).unwrap();
        let req = cairn_engine::TurnRequest {
            session_key: "agent:main:main".into(),
            prompt: "why did the grib parser crash?".into(),
            turn_id: None,
            budget: None,
            project: None,
            now_ms: Some(0),
        };
        engine.turn(&req)
    };
    // The first turn in a data directory also embeds the general prompts, and keeps them there.
    turn(Some(VectorLane::new(e.clone(), vectors.clone())));
    assert!(
        dir.path()
            .read_dir()
            .unwrap()
            .flatten()
            .any(|f| f.file_name().to_string_lossy().starts_with("general-"))
    );
    let before = e.texts.load(Ordering::SeqCst);
    let with = turn(Some(VectorLane::new(e.clone(), vectors)));
    assert_eq!(e.texts.load(Ordering::SeqCst), before + 1, "the turn embeds its prompt once");
    let v = with.trace.lanes.iter().find(|l| l.name == lane::VECTOR).expect("a vector lane report");
    assert_eq!(v.status, LaneStatus::Ok);
    assert!(with.prepend_context.contains("GRIB parser"));
    let without = turn(None);
    assert!(without.trace.lanes.iter().all(|l| l.name != lane::VECTOR || l.status != LaneStatus::Ok));
}

#[test]
fn captured_turns_get_vectors_at_the_next_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let e = tiny_embedder(dir.path());
    {
        let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
        put(&mut store, "cat", "Cat", "the cat sat on the mat", Audience::Public);
        embed_pending(&mut store, &*e, 8, &NoProgress).unwrap();
    }
    let mut cfg = cairn_engine::EngineConfig::new(dir.path());
    cfg.embedder = Some(e.clone());
    let engine = cairn_engine::Engine::open(cfg).unwrap();
    let vectors = engine.vector_index().expect("the engine loaded the vectors");
    // The first refresh after open checks for work left behind, finds none.
    let first = engine.refresh_derived();
    assert_eq!(first.embedded, 0, "{first:?}");
    assert_eq!(vectors.read().unwrap().len(), 1);

    let turn = cairn_ingest::TurnInput {
        session_key: "agent:main:main".into(),
        turn_id: Some("t1".into()),
        user: Some("the weather reader fell over on a truncated grib file".into()),
        assistant: Some("the grib parser now checks the length first".into()),
        ..Default::default()
    };
    let (outcomes, sync) = engine.capture_batch(&[turn]);
    sync.unwrap();
    assert!(matches!(outcomes[0], Ok(cairn_ingest::CaptureOutcome::Stored { .. })), "{outcomes:?}");
    assert_eq!(vectors.read().unwrap().len(), 1, "capturing does not embed on the request path");

    let report = engine.refresh_derived();
    assert!(report.changed && report.errors.is_empty(), "{report:?}");
    assert!(report.embedded >= 1, "{report:?}");
    assert!(vectors.read().unwrap().len() >= 2, "the live vector index holds the captured turn");
    // Nothing changed since: the next refresh does nothing.
    let again = engine.refresh_derived();
    assert!(!again.changed && again.embedded == 0, "{again:?}");
}
