//! Integration tests: real index directories in temp dirs.

use std::path::Path;

use cairn_core::{Audience, Chunk, Item, ItemKind, LaneStatus, Provenance, Scope};
use cairn_recall::{
    ChunkWriter, ErrorKind, Fusion, LaneWeights, RecallIndex, RecallQuery, RecallResult, RecallSettings,
    Recaller, lane,
};
use proptest::prelude::*;

const DAY: i64 = 86_400_000;
const NOW: i64 = 1_700_000_000_000;

fn item(
    id: &str,
    project: &str,
    audience: Audience,
    title: &str,
    text: &str,
    tags: &[&str],
    age_days: i64,
) -> Item {
    cairn_test::item(id)
        .project(project)
        .kind(ItemKind::File)
        .title(title)
        .text(text)
        .tags(tags)
        .audience(audience)
        .file(format!("memory/{id}.md"), 1, 9)
        .created_at(NOW - age_days * DAY)
        .observed_at(NOW)
        .build()
}

/// One chunk per paragraph (blank-line separated).
fn chunks(item: &Item) -> Vec<Chunk> {
    item.text
        .split("\n\n")
        .enumerate()
        .map(|(i, t)| Chunk {
            id: Chunk::make_id(&item.id, i as u32),
            item_id: item.id.clone(),
            ordinal: i as u32,
            heading: if i == 0 { String::new() } else { format!("Part {i}") },
            text: t.to_owned(),
            provenance: item.provenance.clone(),
            content_hash: cairn_core::content_hash(t.as_bytes()),
        })
        .collect()
}

fn put(w: &mut ChunkWriter, items: &[Item]) {
    for it in items {
        w.upsert(it, &chunks(it)).unwrap();
    }
}

fn build(dir: &Path, items: &[Item]) -> Recaller {
    let index = RecallIndex::open_or_create(dir).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, items);
    w.commit(items.len() as u64).unwrap();
    Recaller::new(&index, RecallSettings::default()).unwrap()
}

fn ask(r: &Recaller, text: &str, scope: Scope, k: usize) -> RecallResult {
    let res = r.recall(&RecallQuery::new(text, scope, k, NOW));
    for l in &res.lanes {
        assert_ne!(l.status, LaneStatus::Failed, "lane {l:?}");
    }
    res
}

fn ids(res: &RecallResult) -> Vec<&str> {
    res.hits.iter().map(|h| h.item_id.as_str()).collect()
}

fn corpus() -> Vec<Item> {
    use Audience::*;
    vec![
        item(
            "grib",
            "weather",
            Public,
            "GRIB parser",
            "The GRIB parser crashed on a truncated weather file from the model run.",
            &["weather", "bugs"],
            3,
        ),
        item(
            "grib-old",
            "weather",
            Public,
            "Old notes",
            "We talked about weather once. Parsing is hard.",
            &["weather"],
            200,
        ),
        item(
            "cooking",
            "home",
            Public,
            "Recipes",
            "A slow-cooked ragù needs three hours and good tomatoes.",
            &["cooking"],
            10,
        ),
        item(
            "secret",
            "home",
            Private,
            "Diary",
            "The parser of my feelings crashed today. Private weather inside.",
            &["diary", "weather"],
            1,
        ),
        item(
            "tokyo",
            "travel",
            Public,
            "東京旅行",
            "東京大学の近くで美味しいラーメンを食べました。",
            &["旅行"],
            5,
        ),
        item(
            "beijing",
            "travel",
            Public,
            "北京",
            "我们在北京参观了故宫和长城。数据库课程很有意思。",
            &["travel"],
            6,
        ),
        item(
            "seoul",
            "travel",
            Public,
            "서울",
            "서울에서 친구를 만나서 한국 음식을 먹었어요.",
            &["travel"],
            7,
        ),
        item(
            "vec",
            "eng",
            Public,
            "Vector search",
            "Vector DB benchmarks: HNSW recall against exact search.\n\nWe chose tantivy for BM25 lexical search.",
            &["vector-db", "benchmarks"],
            2,
        ),
    ]
}

#[test]
fn bm25_ranks_the_matching_document_first() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), &corpus());
    let res = ask(&r, "why did the GRIB parser crash on the weather file?", Scope::public_only(None), 5);
    assert_eq!(ids(&res)[0], "grib");
    // A document with fewer of the terms ranks lower.
    let pos_old = ids(&res).iter().position(|i| *i == "grib-old");
    assert!(pos_old.is_none_or(|p| p > 0));
    let top = &res.hits[0];
    assert!(top.why.terms.contains(&"grib".to_string()), "{:?}", top.why);
    assert!(top.why.terms.contains(&"crash".to_string()), "{:?}", top.why);
    assert!(top.why.lanes.contains(&lane::LEXICAL.to_string()));
    // Its lexical part is the best of the hits (on the calibrated scale, not stretched to 1).
    assert!(
        res.hits.iter().all(|h| h.parts.get(lane::LEXICAL).is_none_or(|l| *l <= top.parts[lane::LEXICAL]))
    );
    assert_eq!(top.provenance.display(), "memory/grib.md:1-9");
    assert_eq!(top.title, "GRIB parser");
    // Scores descend.
    assert!(res.hits.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn stemming_matches_inflections() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), &corpus());
    let res = ask(&r, "benchmarking vectors", Scope::public_only(None), 3);
    assert_eq!(ids(&res)[0], "vec");
}

#[test]
fn cjk_is_searchable() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), &corpus());
    for (q, want) in [
        ("北京的故宫", "beijing"),
        ("数据库", "beijing"),
        ("東京でラーメン", "tokyo"),
        ("ラーメン", "tokyo"),
        ("서울 음식", "seoul"),
        ("친구", "seoul"),
    ] {
        let res = ask(&r, q, Scope::public_only(None), 3);
        assert_eq!(ids(&res).first().copied(), Some(want), "query {q}: {:?}", ids(&res));
    }
    // A CJK tag is inferred too.
    let res = ask(&r, "旅行 ラーメン", Scope::public_only(None), 3);
    assert_eq!(res.query_tags, ["旅行"]);
}

#[test]
fn tags_are_inferred_from_the_vocabulary() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), &corpus());
    let res = ask(&r, "what about vector db benchmark results?", Scope::public_only(None), 5);
    assert_eq!(res.query_tags, ["vector-db", "benchmarks"]);
    let top = &res.hits[0];
    assert_eq!(top.item_id, "vec");
    assert_eq!(top.why.tags, ["vector-db", "benchmarks"]);
    assert!(top.why.lanes.contains(&lane::TAGS.to_string()));
    // Its tags stand for three of the query's four terms (vector, db, benchmark; not result): their
    // share of the query's idf weight.
    let share = top.parts[lane::TAGS];
    assert!(share > 0.5 && share < 1.0, "{share}");
    // A tag-only query finds items through the tag lane alone.
    let res = ask(&r, "cooking", Scope::public_only(None), 5);
    assert_eq!(ids(&res), ["cooking"]);
    // Tags carried only by private items are not inferred for a public caller.
    let res = ask(&r, "diary", Scope::public_only(None), 5);
    assert!(res.query_tags.is_empty());
    assert!(res.hits.is_empty());
    let res = ask(&r, "diary", Scope::owner(None), 5);
    assert_eq!(res.query_tags, ["diary"]);
}

#[test]
fn recency_orders_equal_matches_and_the_recent_list() {
    use Audience::Public;
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<Item> = (0..5)
        .map(|i| {
            item(&format!("n{i}"), "p", Public, "Standup", "Standup notes: deploy went fine.", &[], i * 10)
        })
        .collect();
    let r = build(dir.path(), &items);
    let mut q = RecallQuery::new("standup deploy", Scope::owner(None), 5, NOW);
    q.recent_k = 3;
    let res = r.recall(&q);
    assert_eq!(ids(&res), ["n0", "n1", "n2", "n3", "n4"]);
    let recency: Vec<f32> = res.hits.iter().map(|h| h.parts[lane::RECENCY]).collect();
    assert!((recency[0] - 1.0).abs() < 1e-6);
    // 30-day half-life: 30 days old = 0.5.
    assert!((recency[3] - 0.5).abs() < 1e-4, "{recency:?}");
    let recent: Vec<&str> = res.recent.iter().map(|h| h.item_id.as_str()).collect();
    assert_eq!(recent, ["n0", "n1", "n2"]);
    assert!(res.hits[0].why.lanes.contains(&lane::RECENCY.to_string()));
    // A shorter half-life is stronger; `now` in the past clamps ages at zero.
    let settings = RecallSettings { half_life_days: 10.0, ..Default::default() };
    let r2 = Recaller::new(&RecallIndex::open(dir.path()).unwrap(), settings).unwrap();
    let res = r2.recall(&RecallQuery::new("standup", Scope::owner(None), 5, NOW));
    assert!((res.hits[1].parts[lane::RECENCY] - 0.5).abs() < 1e-4);
    let res = r2.recall(&RecallQuery::new("standup", Scope::owner(None), 5, NOW - 1000 * DAY));
    assert!(res.hits.iter().all(|h| h.parts[lane::RECENCY] == 1.0));
}

#[test]
fn project_and_audience_scope() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), &corpus());
    let q = "parser crashed weather";
    let all = ask(&r, q, Scope::owner(None), 10);
    assert!(ids(&all).contains(&"secret"));
    let public = ask(&r, q, Scope::public_only(None), 10);
    assert!(!ids(&public).contains(&"secret"));
    let home = ask(&r, q, Scope::owner(Some("home".into())), 10);
    assert!(ids(&home).iter().all(|i| ["secret", "cooking"].contains(i)), "{:?}", ids(&home));
    assert_eq!(ids(&home)[0], "secret");
    let home_public = ask(&r, q, Scope::public_only(Some("home".into())), 10);
    assert!(home_public.hits.is_empty(), "{:?}", ids(&home_public));
    assert!(home_public.lanes.iter().all(|l| l.candidates == 0));
    let nowhere = ask(&r, q, Scope::owner(Some("no-such-project".into())), 10);
    assert!(nowhere.hits.is_empty());
}

#[test]
fn upsert_replaces_and_delete_removes_all_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    assert_eq!(index.synced_seq().unwrap(), None);
    let mut w = index.writer().unwrap();
    let mut it =
        item("multi", "p", Audience::Public, "Multi", "alpha one\n\nalpha two\n\nalpha three", &[], 0);
    put(&mut w, std::slice::from_ref(&it));
    w.commit(7).unwrap();
    let r = Recaller::new(&index, RecallSettings::default()).unwrap();
    assert_eq!(ask(&r, "alpha", Scope::owner(None), 10).hits.len(), 3);
    // Upsert with fewer chunks replaces all of them.
    it.text = "beta only".into();
    put(&mut w, std::slice::from_ref(&it));
    w.commit(8).unwrap();
    r.reload().unwrap();
    assert!(ask(&r, "alpha", Scope::owner(None), 10).hits.is_empty());
    assert_eq!(ask(&r, "beta", Scope::owner(None), 10).hits.len(), 1);
    w.delete_item("multi").unwrap();
    w.commit(9).unwrap();
    r.reload().unwrap();
    assert!(ask(&r, "beta", Scope::owner(None), 10).hits.is_empty());
    assert_eq!(index.synced_seq().unwrap(), Some(9));
    // Reopen: the sequence persists.
    drop(w);
    assert_eq!(RecallIndex::open(dir.path()).unwrap().synced_seq().unwrap(), Some(9));
}

#[test]
fn clear_empties_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &corpus());
    w.commit(1).unwrap();
    w.clear().unwrap();
    w.commit(2).unwrap();
    let r = Recaller::new(&index, RecallSettings::default()).unwrap();
    assert_eq!(r.num_chunks(), 0);
}

#[test]
fn chunk_of_another_item_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    let a = item("a", "p", Audience::Public, "A", "text", &[], 0);
    let b = item("b", "p", Audience::Public, "B", "text", &[], 0);
    let err = w.upsert(&a, &chunks(&b)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
}

#[test]
fn missing_mismatched_and_corrupt_indexes_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none");
    let err = RecallIndex::open(&missing).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(err.to_string().contains("no recall index"), "{err}");

    // A marker from another schema version.
    let idx = dir.path().join("old");
    build(&idx, &corpus());
    std::fs::write(idx.join("cairn-recall.json"), r#"{"format":"cairn-recall","schema_version":0}"#).unwrap();
    let err = RecallIndex::open(&idx).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NeedsRebuild);
    assert!(err.to_string().contains("rebuild"), "{err}");
    assert!(RecallIndex::open_or_create(&idx).is_err());
    // `recreate` fixes it.
    let fresh = RecallIndex::recreate(&idx).unwrap();
    assert_eq!(fresh.synced_seq().unwrap(), None);

    // Garbled tantivy metadata.
    let bad = dir.path().join("bad");
    build(&bad, &corpus());
    std::fs::write(bad.join("meta.json"), b"{ not json").unwrap();
    let err = RecallIndex::open(&bad).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NeedsRebuild);
    assert!(err.to_string().contains("corrupt"), "{err}");

    // A tantivy index that is not ours.
    let foreign = dir.path().join("foreign");
    build(&foreign, &corpus());
    std::fs::remove_file(foreign.join("cairn-recall.json")).unwrap();
    assert_eq!(RecallIndex::open(&foreign).unwrap_err().kind(), ErrorKind::NeedsRebuild);
}

#[test]
fn deleted_segment_files_are_reported_not_panicked() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &corpus());
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "idx" || x == "store") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let res = RecallIndex::open(dir.path()).and_then(|i| Recaller::new(&i, RecallSettings::default()));
    let err = res.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::NeedsRebuild | ErrorKind::Internal), "{err}");
}

#[test]
fn rrf_fusion_and_lexical_only_weights() {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &corpus());
    w.commit(1).unwrap();
    let rrf = RecallSettings { fusion: Fusion::Rrf { k: 60.0 }, ..Default::default() };
    let r = Recaller::new(&index, rrf).unwrap();
    let res = ask(&r, "GRIB parser crash weather", Scope::public_only(None), 3);
    assert_eq!(ids(&res)[0], "grib");
    let lex = RecallSettings { weights: LaneWeights::lexical_only(), ..Default::default() };
    let r = Recaller::new(&index, lex).unwrap();
    let res = ask(&r, "weather", Scope::public_only(None), 3);
    assert!(res.query_tags.is_empty());
    assert!(res.lanes.iter().any(|l| l.name == lane::TAGS && l.status == LaneStatus::Skipped));
    assert!(res.hits.iter().all(|h| !h.parts.contains_key(lane::RECENCY)));
}

/// Three turns of one session, each with the turn before it as context (as capture records them).
fn session() -> Vec<Item> {
    session_items(&[
        "Caroline: I went to the LGBTQ support group yesterday.",
        "Melanie: Wow, that sounds so powerful! How did it feel?",
        "Melanie: I painted a lake sunrise last year.",
    ])
}

#[test]
fn a_turn_is_found_through_the_turn_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &session());
    w.commit(1).unwrap();
    let lexical = RecallSettings::default().only_lanes(&[lane::LEXICAL]);
    let r = Recaller::new(&index, lexical.clone()).unwrap();
    // The reply names no support group; its context does. The turn that does still ranks first.
    let res = ask(&r, "Caroline's support group", Scope::owner(None), 5);
    assert_eq!(ids(&res), ["t1", "t2"]);
    assert!(res.hits[1].score < res.hits[0].score);
    // The hit shows the turn's own text, not its context.
    assert_eq!(res.hits[1].text, "Melanie: Wow, that sounds so powerful! How did it feel?");
    // Without the context field, the answer turn is out of reach.
    let r = Recaller::new(&index, RecallSettings { context_boost: 0.0, ..lexical }).unwrap();
    let res = ask(&r, "Caroline's support group", Scope::owner(None), 5);
    assert_eq!(ids(&res), ["t1"]);
}

#[test]
fn document_frequencies_are_counted_in_the_query_scope() {
    // In project `mine` every note names Alice, and one of them the zebra; the other project is full
    // of zebras and has no Alice. Counted over the whole index, "alice" is the rare word (high IDF) and
    // the note that repeats it wins; counted in scope, "zebra" is what tells `mine`'s notes apart.
    use Audience::Public;
    let mut items = vec![
        item("alice-a", "mine", Public, "", "Alice Alice Alice met the team.", &[], 0),
        item("alice-zebra", "mine", Public, "", "Alice saw a zebra at the zoo with the team.", &[], 0),
        item("alice-b", "mine", Public, "", "Alice wrote the plan.", &[], 0),
        item("alice-c", "mine", Public, "", "Alice fixed the build.", &[], 0),
    ];
    for i in 0..30 {
        items.push(item(&format!("z{i}"), "other", Public, "", &format!("zebra herd number {i}"), &[], 0));
    }
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &items);
    w.commit(1).unwrap();
    let lexical = RecallSettings::default().only_lanes(&[lane::LEXICAL]);
    let scope = Scope::owner(Some("mine".into()));
    let r = Recaller::new(&index, lexical.clone()).unwrap();
    assert_eq!(ids(&ask(&r, "alice zebra", scope.clone(), 2))[0], "alice-zebra");
    // The control: index-wide statistics put the repeated rare word first.
    let r = Recaller::new(&index, RecallSettings { scoped_statistics: false, ..lexical }).unwrap();
    assert_eq!(ids(&ask(&r, "alice zebra", scope, 2))[0], "alice-a");
}

/// A session of turns linked as capture links them: each has the turn before it as context and as
/// its previous item.
fn linked_session(texts: &[&str]) -> Vec<Item> {
    let mut out = session_items(texts);
    for i in 1..out.len() {
        let prev = out[i - 1].id.clone();
        out[i].set_previous(&prev);
    }
    out
}

/// Turns `t1`, `t2`, ... of session `s`, each with the turn before it as context (not linked).
fn session_items(texts: &[&str]) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let mut it = item(&format!("t{}", i + 1), "p", Audience::Private, "", text, &[], 0);
        it.kind = ItemKind::Turn;
        it.provenance = Provenance::Turn { session_key: "s".into(), turn_id: format!("{}", i + 1) };
        if i > 0 {
            it.set_context(texts[i - 1]);
        }
        out.push(it);
    }
    out
}

#[test]
fn consecutive_turns_lend_each_other_score() {
    let texts = [
        "Caroline: What did you paint for the art show?",
        "Melanie: A lake at sunrise, all orange and pink.",
        "Caroline: The kids loved the museum trip.",
        "Melanie: We should paint the fence before the show.",
    ];
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &linked_session(&texts));
    w.commit(1).unwrap();
    let lexical = RecallSettings::default().only_lanes(&[lane::LEXICAL]);
    let plain = Recaller::new(&index, RecallSettings { neighbour_boost: 0.0, ..lexical.clone() }).unwrap();
    let lent = Recaller::new(&index, RecallSettings { neighbour_boost: 0.3, ..lexical }).unwrap();
    let q = "what did Melanie paint for the art show";
    let before = ask(&plain, q, Scope::owner(None), 4);
    let after = ask(&lent, q, Scope::owner(None), 4);
    let score = |res: &RecallResult, id: &str| res.hits.iter().find(|h| h.item_id == id).map(|h| h.score);
    // The answer (t2) matches only through its context; the fence turn (t4) shares more words.
    assert!(score(&before, "t4").unwrap() > score(&before, "t2").unwrap(), "{:?}", ids(&before));
    // Lent 0.3 of the question's score, the answer moves above it.
    let pos = |res: &RecallResult, id: &str| res.hits.iter().position(|h| h.item_id == id).unwrap();
    assert!(pos(&after, "t2") < pos(&after, "t4"), "{:?}", ids(&after));
    let t2 = &after.hits[pos(&after, "t2")];
    let best_neighbour = score(&before, "t1").unwrap().max(score(&before, "t3").unwrap_or(0.0));
    assert!((t2.parts[lane::NEIGHBOUR] - 0.3 * best_neighbour).abs() < 1e-4, "{:?}", t2.parts);
    assert!((t2.score - score(&before, "t2").unwrap() - t2.parts[lane::NEIGHBOUR]).abs() < 1e-4);
    assert!(t2.why.lanes.iter().any(|l| l == lane::NEIGHBOUR));
    // Lending goes both ways: the question gains from its answer.
    assert!(after.hits[pos(&after, "t1")].parts.contains_key(lane::NEIGHBOUR));
    // Without links (turns as standalone notes) nothing is lent.
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &session_items(&texts));
    w.commit(1).unwrap();
    let r = Recaller::new(&index, RecallSettings::default().only_lanes(&[lane::LEXICAL])).unwrap();
    assert!(ask(&r, q, Scope::owner(None), 4).hits.iter().all(|h| !h.parts.contains_key(lane::NEIGHBOUR)));
}

#[test]
fn lending_reaches_lexical_runner_ups_without_the_vector_lane() {
    // The answer (t2) matches only through its context, below notes that repeat the query's words;
    // lent part of the question's score, it belongs among the hits, so the lexical lane must pool
    // deeper than the hits asked for even when no vector lane runs.
    let mut items = linked_session(&[
        "Caroline: What did you paint for the art show?",
        "Melanie: A lake at sunrise, all orange and pink.",
    ]);
    for i in 0..8 {
        items.push(item(
            &format!("n{i}"),
            "p",
            Audience::Private,
            "",
            &format!("art show paint {i}"),
            &[],
            0,
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &items);
    w.commit(1).unwrap();
    let lexical = RecallSettings { pool: 3, lexical_pool: 50, ..RecallSettings::default() }
        .only_lanes(&[lane::LEXICAL]);
    let q = "what did you paint for the art show";
    let shallow = Recaller::new(&index, RecallSettings { lexical_pool: 3, ..lexical.clone() }).unwrap();
    let res = ask(&shallow, q, Scope::owner(None), 3);
    assert!(!ids(&res).contains(&"t2"), "{:?}", ids(&res));
    let deep = Recaller::new(&index, lexical).unwrap();
    let res = ask(&deep, q, Scope::owner(None), 3);
    let t2 = res.hits.iter().find(|h| h.item_id == "t2").unwrap_or_else(|| panic!("{:?}", ids(&res)));
    assert!(t2.parts.contains_key(lane::NEIGHBOUR), "{:?}", t2.parts);
}

#[test]
fn ties_break_by_chunk_id_across_segments_on_every_query() {
    // Identical text and date in three segments, ids interleaved across them: every score ties. The
    // first query of an index generation reads the tied ids; later ones use the ids' ranks. Both
    // must pick the smallest ids.
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    for (commit, ids) in [["t5", "t1", "t7"], ["t3", "t8", "t0"], ["t6", "t2", "t4"]].iter().enumerate() {
        let items: Vec<Item> =
            ids.iter().map(|id| item(id, "p", Audience::Public, "", "same words here", &[], 1)).collect();
        put(&mut w, &items);
        w.commit(commit as u64 + 1).unwrap();
    }
    let r = Recaller::new(&index, RecallSettings::default()).unwrap();
    for k in [3, 5, 3, 8, 1] {
        let res = ask(&r, "same words", Scope::owner(None), k);
        let want: Vec<String> = (0..k).map(|i| format!("t{i}#0")).collect();
        let got: Vec<&str> = res.hits.iter().map(|h| h.chunk_id.as_str()).collect();
        assert_eq!(got, want.iter().map(String::as_str).collect::<Vec<_>>(), "k = {k}");
    }
}

/// The same items written in two layouts: in order in one commit, and reversed over three commits.
fn two_layouts(items: &[Item], settings: RecallSettings) -> [(tempfile::TempDir, Recaller); 2] {
    let layout = |order: Vec<&Item>, commits: usize| {
        let dir = tempfile::tempdir().unwrap();
        let index = RecallIndex::open_or_create(dir.path()).unwrap();
        let mut w = index.writer().unwrap();
        let per = order.len().div_ceil(commits);
        for (c, part) in order.chunks(per).enumerate() {
            let part: Vec<Item> = part.iter().map(|it| (*it).clone()).collect();
            put(&mut w, &part);
            w.commit(c as u64 + 1).unwrap();
        }
        let r = Recaller::new(&index, settings.clone()).unwrap();
        (dir, r)
    };
    [layout(items.iter().collect(), 1), layout(items.iter().rev().collect(), 3)]
}

/// A hit's chunk id, score and lane ranks.
type HitView = (String, f32, Vec<(String, usize)>);

#[test]
fn lane_pools_do_not_depend_on_the_index_layout() {
    // More chunks tie than a lane's pool holds: which of them fill the pool, and the lane ranks they
    // get, must not depend on the order the index holds them in.
    let mut items = Vec::new();
    for i in 0..14 {
        items.push(item(&format!("lex{i:02}"), "p", Audience::Public, "", "orchid bloom notes", &[], 3));
        items.push(item(&format!("tag{i:02}"), "p", Audience::Public, "", "unrelated words", &["orchid"], 3));
    }
    let settings = RecallSettings { pool: 4, ..RecallSettings::default() };
    let [(_a, first), (_b, second)] = two_layouts(&items, settings);
    for k in [2, 4, 6] {
        let (x, y) =
            (ask(&first, "orchid", Scope::owner(None), k), ask(&second, "orchid", Scope::owner(None), k));
        let view = |r: &RecallResult| -> Vec<HitView> {
            r.hits
                .iter()
                .map(|h| {
                    (h.chunk_id.clone(), h.score, h.why.ranks.iter().map(|(l, r)| (l.clone(), *r)).collect())
                })
                .collect()
        };
        assert_eq!(view(&x), view(&y), "k = {k}");
        assert_eq!(x.hits.len(), k);
        // A shared tag that more chunks carry than the pool holds adds no candidates of its own.
        assert!(x.hits.iter().all(|h| !h.why.ranks.contains_key(lane::TAGS)), "{:?}", view(&x));
    }
}

/// Embeds known texts as given unit vectors in the plane (cosine to the query = the given value).
struct Table(Vec<(&'static str, f32)>);

impl cairn_embed::Embedder for Table {
    fn model_id(&self) -> &str {
        "table"
    }
    fn dim(&self) -> usize {
        2
    }
    fn embed(&self, texts: &[&str], _: cairn_embed::EmbedKind) -> cairn_embed::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let cos = self.0.iter().find(|(k, _)| k == t).map_or(1.0, |(_, c)| *c);
                vec![cos, (1.0 - cos * cos).max(0.0).sqrt()]
            })
            .collect())
    }
}

/// An index of public notes `(id, text, cosine to every query)` and a vector lane over them whose
/// [`Table`] embeds each text at its cosine; with `lined`, each note also has one line vector, its own.
fn tabled(
    texts: &[(&'static str, &'static str, f32)],
    lined: bool,
) -> (tempfile::TempDir, RecallIndex, cairn_recall::VectorLane) {
    let items: Vec<Item> =
        texts.iter().map(|(id, text, _)| item(id, "p", Audience::Public, "", text, &[], 0)).collect();
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &items);
    w.commit(1).unwrap();
    let table = Table(texts.iter().map(|(_, text, cos)| (*text, *cos)).collect());
    let mut vectors = cairn_vector::VectorIndex::new("table", 2, Default::default());
    for it in &items {
        let v = cairn_embed::Embedder::embed(&table, &[it.text.as_str()], cairn_embed::EmbedKind::Document)
            .unwrap()
            .remove(0);
        let id = Chunk::make_id(&it.id, 0);
        if lined {
            vectors.upsert_with_lines(&id, &it.id, "p", Audience::Public, &v, &v).unwrap();
        } else {
            vectors.upsert(&id, &it.id, "p", Audience::Public, &v).unwrap();
        }
    }
    vectors.maintain();
    let lane = cairn_recall::VectorLane::new(
        std::sync::Arc::new(table),
        std::sync::Arc::new(std::sync::RwLock::new(vectors)),
    );
    (dir, index, lane)
}

#[test]
fn fusion_keeps_the_exact_lexical_match_first() {
    // A holds every query word and is close in meaning; B and D are closer paraphrases (B shares one
    // weak word); C shares a word and little meaning. The vector pool holds only B and D.
    let texts = [
        ("a", "The GRIB parser crash: a truncated weather file.", 0.85),
        ("b", "Why the data reader fell over, a short report.", 0.9),
        ("d", "What made the forecast loader stop working.", 0.88),
        ("c", "A report on the quarterly budget.", 0.3),
    ];
    let (_dir, index, lane) = tabled(&texts, false);
    let settings = RecallSettings { vector_pool: 2, pool: 2, ..Default::default() }
        .only_lanes(&[lane::LEXICAL, lane::VECTOR]);
    let r = Recaller::new(&index, settings).unwrap().with_vectors(Some(lane));
    let res = ask(&r, "GRIB parser crash report", Scope::owner(None), 2);
    assert_eq!(ids(&res)[0], "a", "{:?}", res.hits.iter().map(|h| (&h.item_id, h.score)).collect::<Vec<_>>());
    // A was not in the vector pool, yet its similarity counts.
    assert!((res.hits[0].parts[lane::VECTOR] - 0.85).abs() < 1e-3, "{:?}", res.hits[0].parts);
    assert_eq!(res.hits[0].why.ranks.get(lane::VECTOR), None);
}

#[test]
fn a_paraphrase_is_not_outranked_by_a_note_sharing_one_incidental_word() {
    // A answers the query in other words and is nearest in meaning; B shares one of its four words
    // and is fairly near; C, D and E each hold one other word and are far. Every match of the lexical
    // lane covers a quarter of the query, yet min-max normalisation gives the best of them (B) a full
    // lexical part.
    let texts = [
        ("a", "Priya takes Bess out, Monday to Friday at seven.", 0.6),
        ("b", "Sunrises are for coffee.", 0.36),
        ("c", "The greyhound track in town closed years ago, they say.", 0.2),
        ("d", "Our walker group meets at the church hall on Sundays.", 0.2),
        ("e", "Weekday parking near the office costs six pounds a day.", 0.2),
    ];
    // Each note has a line vector (as a note of several lines does), as near as the note.
    let (_dir, index, lane) = tabled(&texts, true);
    // The table's general prompts are as near every query as can be: no floor here.
    let settings = |full: f32| {
        let mut s =
            RecallSettings { floor: 0.0, ..Default::default() }.only_lanes(&[lane::LEXICAL, lane::VECTOR]);
        s.calibration.lexical_full_coverage = full;
        s
    };
    let query = "greyhound walker weekday sunrise";
    let first = |full: f32| {
        let r = Recaller::new(&index, settings(full)).unwrap().with_vectors(Some(lane.clone()));
        let res = ask(&r, query, Scope::owner(None), 3);
        (ids(&res)[0].to_owned(), res.hits.iter().map(|h| (h.item_id.clone(), h.score)).collect::<Vec<_>>())
    };
    let (best, hits) = first(RecallSettings::default().calibration.lexical_full_coverage);
    assert_eq!(best, "a", "{hits:?}");
    // With the lexical lane at its whole weight whatever it covers, the incidental word wins.
    let (best, hits) = first(0.0);
    assert_eq!(best, "b", "{hits:?}");
}

#[test]
fn a_note_holding_only_the_questions_framing_words_gets_no_lexical_part() {
    // A answers the query in other words and is nearest in meaning; B holds only "up", a word that
    // frames a question ("catch up", "fix up") and weighs nothing in its coverage, and is fairly near;
    // C and D each hold one word the question is about and are far.
    let texts = [
        ("a", "Dale the roofer clears and seals the drainpipes every spring.", 0.6),
        ("b", "Up early, the usual.", 0.45),
        ("c", "The patch of garden by the shed is overgrown again this year.", 0.2),
        ("d", "Gutter guards are on sale at the hardware shop in town, says Jo.", 0.2),
    ];
    let (_dir, index, lane) = tabled(&texts, true);
    let settings =
        RecallSettings { floor: 0.0, ..Default::default() }.only_lanes(&[lane::LEXICAL, lane::VECTOR]);
    let r = Recaller::new(&index, settings).unwrap().with_vectors(Some(lane.clone()));
    let res = ask(&r, "who can patch up the leaky gutter", Scope::owner(None), 3);
    let hits: Vec<_> = res.hits.iter().map(|h| (h.item_id.clone(), h.score, h.parts.clone())).collect();
    assert_eq!(ids(&res)[0], "a", "{hits:?}");
    let b = res.hits.iter().find(|h| h.item_id == "b").expect("b is a candidate");
    assert!(!b.parts.contains_key(lane::LEXICAL) || b.parts[lane::LEXICAL] == 0.0, "{hits:?}");
}

#[test]
fn empty_and_stop_word_queries_return_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), &corpus());
    assert!(ask(&r, "", Scope::owner(None), 5).hits.is_empty());
    assert!(ask(&r, "the of and what", Scope::owner(None), 5).hits.is_empty());
    assert!(ask(&r, "!!! ???", Scope::owner(None), 5).hits.is_empty());
}

// ---- properties ----

const WORDS: &[&str] =
    &["alpha", "beta", "gamma", "delta", "parser", "weather", "数据", "東京", "서울", "crash"];

fn arb_item() -> impl Strategy<Value = (usize, bool, Vec<usize>, u8, i64)> {
    (0usize..6, any::<bool>(), prop::collection::vec(0..WORDS.len(), 1..8), 0u8..3, 0i64..100)
}

fn make(i: usize, spec: &(usize, bool, Vec<usize>, u8, i64)) -> Item {
    let (pid, private, words, ntags, age) = spec;
    let text: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
    let tags: Vec<&str> = words.iter().take(*ntags as usize).map(|&w| WORDS[w]).collect();
    let mut text = text.join(" ");
    if words.len() > 4 {
        text.push_str("\n\n");
        text.push_str(WORDS[words[0]]);
    }
    item(
        &format!("i{i:02}-{}", spec.0),
        &format!("p{}", pid % 2),
        if *private { Audience::Private } else { Audience::Public },
        "",
        &text,
        &tags,
        *age,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// The tag lane gives the chunks (in scope) carrying at least `m` of the query tags for the
    /// smallest `m` for which they fit in its pool, and nothing when none does.
    #[test]
    fn the_tag_lane_keeps_the_chunks_with_the_most_tags_that_fit_its_pool(
        carried in prop::collection::vec((prop::collection::btree_set(0usize..5, 0..5), any::<bool>()), 1..60),
        asked in prop::collection::btree_set(0usize..5, 1..4),
        pool in 1usize..8,
        public in any::<bool>(),
    ) {
        let names = ["amber", "birch", "cedar", "delta", "ember"];
        let items: Vec<Item> = carried
            .iter()
            .enumerate()
            .map(|(i, (tags, private))| {
                let tags: Vec<&str> = tags.iter().map(|&t| names[t]).collect();
                let audience = if *private { Audience::Private } else { Audience::Public };
                item(&format!("i{i:02}"), "p", audience, "", "plain words", &tags, i as i64 % 7)
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let index = RecallIndex::open_or_create(dir.path()).unwrap();
        let mut w = index.writer().unwrap();
        // Two segments, so a count runs across both.
        let half = items.len() / 2;
        put(&mut w, &items[..half]);
        w.commit(1).unwrap();
        put(&mut w, &items[half..]);
        w.commit(2).unwrap();
        // The lane's mechanics, not the relevance floor (a tag among several query words is below it).
        let settings = RecallSettings { pool, floor: 0.0, ..RecallSettings::default() }.only_lanes(&["tags"]);
        let r = Recaller::new(&index, settings).unwrap();
        let scope = if public { Scope::public_only(None) } else { Scope::owner(None) };
        let text: Vec<&str> = asked.iter().map(|&t| names[t]).collect();
        let res = r.recall(&RecallQuery::new(text.join(" "), scope.clone(), pool, NOW));
        // Brute force over the items in scope, with the tags the query was found to carry.
        let counts: Vec<(usize, &Item)> = items
            .iter()
            .filter(|it| scope.allows(it.audience))
            .map(|it| (it.tags.iter().filter(|t| res.query_tags.contains(t)).count(), it))
            .filter(|(n, _)| *n > 0)
            .collect();
        let least = (1..=res.query_tags.len()).find(|&m| counts.iter().filter(|(n, _)| *n >= m).count() <= pool);
        let mut want: Vec<&str> = match least {
            Some(m) => counts.iter().filter(|(n, _)| *n >= m).map(|(_, it)| it.id.as_str()).collect(),
            None => Vec::new(),
        };
        want.sort_unstable();
        let mut got = ids(&res);
        got.sort_unstable();
        prop_assert_eq!(got, want, "tags {:?}", res.query_tags);
    }

    #[test]
    fn private_items_never_reach_public_callers(
        specs in prop::collection::vec(arb_item(), 1..25),
        query in prop::collection::vec(0..WORDS.len(), 1..5),
        project in prop::option::of(0usize..2),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let items: Vec<Item> = specs.iter().enumerate().map(|(i, s)| make(i, s)).collect();
        let r = build(dir.path(), &items);
        let text: Vec<&str> = query.iter().map(|&w| WORDS[w]).collect();
        let scope = Scope::public_only(project.map(|p| format!("p{p}")));
        let mut q = RecallQuery::new(text.join(" "), scope.clone(), 50, NOW);
        q.recent_k = 50;
        let res = r.recall(&q);
        let public_in_scope: Vec<&Item> = items.iter().filter(|i| scope.contains(&i.project, i.audience)).collect();
        for h in res.hits.iter().chain(&res.recent) {
            prop_assert_eq!(h.audience, Audience::Public);
            prop_assert!(scope.contains(&h.project, h.audience));
        }
        let public_chunks: usize = public_in_scope.iter().map(|i| chunks(i).len()).sum();
        for l in &res.lanes {
            prop_assert!(l.candidates <= public_chunks, "{:?} > {}", l, public_chunks);
        }
        prop_assert_eq!(res.recent.len(), public_chunks.min(50));
        // Query tags come only from items in scope.
        for t in &res.query_tags {
            prop_assert!(public_in_scope.iter().any(|i| i.tags.contains(t)), "tag {} leaked", t);
        }
        // Same query twice: same output, byte for byte.
        let again = r.recall(&q);
        let strip = |r: &RecallResult| {
            let mut r = r.clone();
            r.lanes.iter_mut().for_each(|l| l.micros = 0);
            serde_json::to_string(&r).unwrap()
        };
        prop_assert_eq!(strip(&res), strip(&again));
        // Without the relevance floor (which weighs terms by the caller's own statistics), the owner
        // sees a superset.
        let index = RecallIndex::open_or_create(dir.path()).unwrap();
        let unfloored = Recaller::new(&index, RecallSettings { floor: 0.0, ..RecallSettings::default() }).unwrap();
        let public = unfloored.recall(&RecallQuery::new(text.join(" "), scope.clone(), 50, NOW));
        let owner = unfloored.recall(&RecallQuery::new(text.join(" "), Scope::owner(scope.project.clone()), 50, NOW));
        prop_assert!(owner.hits.len() >= public.hits.len());
    }

    #[test]
    fn private_items_do_not_move_a_public_callers_scores(
        specs in prop::collection::vec(arb_item(), 1..20),
        private in prop::collection::vec(arb_item(), 1..20),
        query in prop::collection::vec(0..WORDS.len(), 1..5),
        project in prop::option::of(0usize..2),
    ) {
        // The same public items, alone and next to private ones: a public-only caller gets the same
        // hits with the same scores (BM25 statistics are counted in its scope).
        let public: Vec<Item> = specs.iter().enumerate().map(|(i, s)| make(i, &(s.0, false, s.2.clone(), s.3, s.4))).collect();
        let mut mixed = public.clone();
        mixed.extend(private.iter().enumerate().map(|(i, s)| make(100 + i, &(s.0, true, s.2.clone(), s.3, s.4))));
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (ra, rb) = (build(a.path(), &public), build(b.path(), &mixed));
        let text: Vec<&str> = query.iter().map(|&w| WORDS[w]).collect();
        let mut q = RecallQuery::new(text.join(" "), Scope::public_only(project.map(|p| format!("p{p}"))), 20, NOW);
        q.recent_k = 5;
        let strip = |r: RecallResult| {
            let mut r = r;
            r.lanes.iter_mut().for_each(|l| l.micros = 0);
            serde_json::to_string(&r).unwrap()
        };
        prop_assert_eq!(strip(ra.recall(&q)), strip(rb.recall(&q)));
    }

    #[test]
    fn delete_removes_every_chunk(
        specs in prop::collection::vec(arb_item(), 2..15),
        victim in 0usize..15,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let items: Vec<Item> = specs.iter().enumerate().map(|(i, s)| make(i, s)).collect();
        let victim = &items[victim % items.len()];
        let index = RecallIndex::open_or_create(dir.path()).unwrap();
        let mut w = index.writer().unwrap();
        put(&mut w, &items);
        w.commit(1).unwrap();
        w.delete_item(&victim.id).unwrap();
        w.commit(2).unwrap();
        let r = Recaller::new(&index, RecallSettings::default()).unwrap();
        let mut q = RecallQuery::new(WORDS.join(" "), Scope::owner(None), 100, NOW);
        q.recent_k = 100;
        let res = r.recall(&q);
        prop_assert!(res.hits.iter().chain(&res.recent).all(|h| h.item_id != victim.id));
        let remaining: usize = items.iter().filter(|i| i.id != victim.id).map(|i| chunks(i).len()).sum();
        prop_assert_eq!(res.recent.len(), remaining);
        prop_assert_eq!(r.num_chunks() as usize, remaining);
    }

    #[test]
    fn recent_list_is_the_same_selected_or_sorted(
        specs in prop::collection::vec(arb_item(), 1..30),
        k in 1usize..8,
        project in prop::option::of(0usize..2),
        public in any::<bool>(),
    ) {
        // The first query of an index generation selects the newest chunks; later ones read a sorted list.
        let dir = tempfile::tempdir().unwrap();
        let items: Vec<Item> = specs.iter().enumerate().map(|(i, s)| make(i, s)).collect();
        let r = build(dir.path(), &items);
        let project = project.map(|p| format!("p{p}"));
        let scope = if public { Scope::public_only(project) } else { Scope::owner(project) };
        let mut q = RecallQuery::new("", scope.clone(), 5, NOW);
        q.recent_k = k;
        let ids = |res: RecallResult| res.recent.into_iter().map(|h| (h.created_at, h.chunk_id)).collect::<Vec<_>>();
        let first = ids(r.recall(&q));
        let second = ids(r.recall(&q));
        let third = ids(r.recall(&q));
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(&first, &third);
        let in_scope = items.iter().filter(|i| scope.contains(&i.project, i.audience)).map(|i| chunks(i).len()).sum::<usize>();
        prop_assert_eq!(first.len(), in_scope.min(k));
        prop_assert!(first.windows(2).all(|w| w[0].0 >= w[1].0), "newest first: {:?}", first);
    }

    #[test]
    fn ties_break_by_chunk_id(n in 2usize..=10) {
        // Exact among each lane's candidate pool (`RecallSettings::pool`, default 10); beyond it the
        // lanes pick tied chunks by `order_key` (see `lane_pools_do_not_depend_on_the_index_layout`).
        let dir = tempfile::tempdir().unwrap();
        // Identical text and date: every score ties.
        let items: Vec<Item> = (0..n).rev().map(|i| item(&format!("t{i:02}"), "p", Audience::Public, "", "same words here", &[], 1)).collect();
        let r = build(dir.path(), &items);
        let res = ask(&r, "same words", Scope::owner(None), 3);
        let got: Vec<&str> = res.hits.iter().map(|h| h.chunk_id.as_str()).collect();
        let want: Vec<String> = (0..n.min(3)).map(|i| format!("t{i:02}#0")).collect();
        prop_assert_eq!(got, want.iter().map(String::as_str).collect::<Vec<_>>());
    }
}

#[test]
fn a_hit_says_where_its_line_nearest_the_query_starts() {
    let text = "- Allergic to penicillin, since childhood.\n- Dentist every six months at Kirkfield.\n- Flu jab done at the pharmacy, 7 October 2024.\n";
    let items = vec![item("health", "p", Audience::Public, "", text, &[], 0)];
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w = index.writer().unwrap();
    put(&mut w, &items);
    w.commit(1).unwrap();
    // The query (a text the table does not hold) is [1, 0]: each vector's first value is its cosine.
    let unit = |cos: f32| vec![cos, (1.0 - cos * cos).sqrt()];
    let lines: Vec<f32> = [0.2, 0.3, 0.9].into_iter().flat_map(unit).collect();
    let mut vectors = cairn_vector::VectorIndex::new("table", 2, Default::default());
    let id = Chunk::make_id("health", 0);
    vectors.upsert_with_lines(&id, "health", "p", Audience::Public, &unit(0.5), &lines).unwrap();
    vectors.maintain();
    let lane = cairn_recall::VectorLane::new(
        std::sync::Arc::new(Table(Vec::new())),
        std::sync::Arc::new(std::sync::RwLock::new(vectors)),
    );
    let settings = RecallSettings { floor: 0.0, ..Default::default() };
    let r = Recaller::new(&index, settings).unwrap().with_vectors(Some(lane));
    let res = ask(&r, "when was my influenza vaccination?", Scope::owner(None), 3);
    let hit = res.hits.iter().find(|h| h.item_id == "health").expect("found by meaning");
    assert_eq!(hit.why.focus, text.find("- Flu jab"), "{:?}", hit.why);
    // Without vectors there is no nearest line.
    let plain = Recaller::new(&index, RecallSettings { floor: 0.0, ..Default::default() }).unwrap();
    let res = ask(&plain, "pharmacy flu jab", Scope::owner(None), 3);
    assert_eq!(res.hits[0].why.focus, None);
}
