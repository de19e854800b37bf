//! Vector search: exact search against brute force, scope isolation, HNSW and int8 recall floors,
//! deletes and compaction.

use cairn_core::{Audience, Scope};
use cairn_vector::kernel::dot;
use cairn_vector::synthetic::{Rng, near_queries, normalised, topic_vectors};
use cairn_vector::{SearchMethod, VectorIndex, VectorSettings};
use proptest::prelude::*;

/// Clustered unit vectors (like sentence embeddings: neighbourhoods, not uniform noise).
fn clustered(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed | 1);
    let centres: Vec<Vec<f32>> =
        (0..clusters).map(|_| normalised((0..dim).map(|_| rng.unit()).collect())).collect();
    (0..n)
        .map(|i| {
            let c = &centres[i % clusters];
            normalised(c.iter().map(|x| x + 0.6 * rng.unit()).collect())
        })
        .collect()
}

fn exact_settings() -> VectorSettings {
    VectorSettings { quantize: false, ann_threshold: usize::MAX, ..Default::default() }
}

fn brute_force(
    rows: &[(String, String, bool, Vec<f32>)],
    q: &[f32],
    scope: &Scope,
    k: usize,
) -> Vec<(String, f32)> {
    let mut all: Vec<(String, f32)> = rows
        .iter()
        .filter(|(_, p, public, _)| {
            scope.contains(p, if *public { Audience::Public } else { Audience::Private })
        })
        .map(|(id, _, _, v)| (id.clone(), dot(q, v)))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    all.truncate(k);
    all
}

fn arb_rows() -> impl Strategy<Value = Vec<(String, bool, Vec<f32>)>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["alpha", "beta", "gamma"]),
            any::<bool>(),
            prop::collection::vec(-1.0f32..1.0, 8),
        ),
        0..60,
    )
    .prop_map(|v| v.into_iter().map(|(p, public, vec)| (p.to_owned(), public, normalised(vec))).collect())
}

fn arb_scope() -> impl Strategy<Value = Scope> {
    (prop::option::of(prop::sample::select(vec!["alpha", "beta", "delta"])), any::<bool>())
        .prop_map(|(p, allow_private)| Scope { project: p.map(str::to_owned), allow_private })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Exact f32 search returns the brute-force top k, same scores, same order (up to ties).
    #[test]
    fn exact_search_is_brute_force(rows in arb_rows(), q in prop::collection::vec(-1.0f32..1.0, 8),
                                   scope in arb_scope(), k in 1usize..12) {
        let q = normalised(q);
        let mut index = VectorIndex::new("m", 8, exact_settings());
        let mut table = Vec::new();
        for (i, (p, public, v)) in rows.iter().enumerate() {
            let id = format!("item{i}#0");
            let audience = if *public { Audience::Public } else { Audience::Private };
            index.upsert(&id, &format!("item{i}"), p, audience, v).unwrap();
            table.push((id, p.clone(), *public, v.clone()));
        }
        let (hits, method) = index.search(&q, &scope, k);
        prop_assert_eq!(method, SearchMethod::Exact);
        let want = brute_force(&table, &q, &scope, k);
        prop_assert_eq!(hits.len(), want.len());
        for (h, (_, s)) in hits.iter().zip(&want) {
            prop_assert!((h.score - s).abs() < 1e-4, "{} vs {}", h.score, s);
        }
    }

    /// Whatever the search path (exact, int8, HNSW), a scope never sees what it must not: no private
    /// chunk for a public-only caller, no chunk of another project, and never more hits than admitted.
    #[test]
    fn scope_isolation(rows in arb_rows(), q in prop::collection::vec(-1.0f32..1.0, 8),
                       scope in arb_scope(), k in 1usize..80, path in 0usize..3) {
        let settings = match path {
            0 => exact_settings(),
            1 => VectorSettings { quantize: true, ann_threshold: usize::MAX, ..Default::default() },
            _ => VectorSettings { ann_threshold: 1, hnsw_min_selectivity: 0.0, ..Default::default() },
        };
        let mut index = VectorIndex::new("m", 8, settings);
        let mut admitted = 0;
        for (i, (p, public, v)) in rows.iter().enumerate() {
            let audience = if *public { Audience::Public } else { Audience::Private };
            index.upsert(&format!("{p}/{}/{i}#0", audience.as_str()), &format!("{p}/{i}"), p, audience, v).unwrap();
            admitted += usize::from(scope.contains(p, audience));
        }
        index.maintain();
        let (hits, _) = index.search(&normalised(q), &scope, k);
        prop_assert!(hits.len() <= admitted.min(k));
        for h in &hits {
            let mut parts = h.chunk_id.split('/');
            let (p, audience) = (parts.next().unwrap(), parts.next().unwrap());
            if !scope.allow_private {
                prop_assert_eq!(audience, "public");
            }
            if let Some(want) = &scope.project {
                prop_assert_eq!(p, want.as_str());
            }
        }
    }
}

fn recall_at(k: usize, got: &[cairn_vector::VectorHit], want: &[cairn_vector::VectorHit]) -> f64 {
    let want: Vec<&str> = want.iter().take(k).map(|h| &*h.chunk_id).collect();
    got.iter().take(k).filter(|h| want.contains(&&*h.chunk_id)).count() as f64 / want.len().max(1) as f64
}

/// HNSW and the int8 scan both keep recall@10 against exact f32 search above a floor.
#[test]
fn approximate_paths_keep_recall() {
    let dim = 64;
    let data = clustered(4000, dim, 40, 42);
    let queries = clustered(40, dim, 40, 7);
    let mut exact = VectorIndex::new("m", dim, exact_settings());
    let mut int8 = VectorIndex::new(
        "m",
        dim,
        VectorSettings { quantize: true, ann_threshold: usize::MAX, ..Default::default() },
    );
    let mut ann = VectorIndex::new("m", dim, VectorSettings { ann_threshold: 1000, ..Default::default() });
    for (i, v) in data.iter().enumerate() {
        let (id, item) = (format!("i{i}#0"), format!("i{i}"));
        for index in [&mut exact, &mut int8, &mut ann] {
            index.upsert(&id, &item, "p", Audience::Public, v).unwrap();
        }
    }
    ann.maintain();
    assert!(ann.has_ann());
    let scope = Scope::public_only(None);
    let (mut r_int8, mut r_ann) = (0.0, 0.0);
    for q in &queries {
        let want = exact.search_exact(q, &scope, 10);
        r_int8 += recall_at(10, &int8.search_exact(q, &scope, 10), &want);
        let (got, method) = ann.search(q, &scope, 10);
        assert_eq!(method, SearchMethod::Hnsw);
        r_ann += recall_at(10, &got, &want);
    }
    let n = queries.len() as f64;
    assert!(r_int8 / n >= 0.97, "int8 recall@10 {}", r_int8 / n);
    assert!(r_ann / n >= 0.90, "hnsw recall@10 {}", r_ann / n);
}

/// The same rows (`i<n>`, every third private, four projects) in an f32-only index and an int8 one.
fn exact_and_int8(data: &[Vec<f32>], dim: usize) -> (VectorIndex, VectorIndex) {
    let mut exact = VectorIndex::new("m", dim, exact_settings());
    let mut int8 = VectorIndex::new(
        "m",
        dim,
        VectorSettings { quantize: true, ann_threshold: usize::MAX, ..Default::default() },
    );
    for (i, v) in data.iter().enumerate() {
        let audience = if i % 3 == 0 { Audience::Private } else { Audience::Public };
        let (id, item, project) = (format!("i{i}#0"), format!("i{i}"), format!("p{}", i % 4));
        for index in [&mut exact, &mut int8] {
            index.upsert(&id, &item, &project, audience, v).unwrap();
        }
    }
    (exact, int8)
}

/// The int8 scan + f32 re-scoring returns exactly the f32 top 10 (same chunks, same scores, same order)
/// on 384-dimensional clustered data, for every scope shape.
#[test]
fn int8_scan_returns_the_f32_top10() {
    let dim = 384;
    let data = topic_vectors(6000, dim, 11);
    let (exact, int8) = exact_and_int8(&data, dim);
    let scopes = [Scope::owner(None), Scope::public_only(None), Scope::public_only(Some("p2".into()))];
    for (qi, q) in near_queries(&data, 60, 5).iter().enumerate() {
        for scope in &scopes {
            let want = exact.search_exact(q, scope, 10);
            let got = int8.search_exact(q, scope, 10);
            assert_eq!(got, want, "query {qi}, scope {scope:?}");
        }
    }
}

/// Past 32,768 rows the int8 scan runs on two threads (one half of the rows each); the merged result is
/// still exactly the f32 top 10, rows on both sides of the split included.
#[test]
fn two_thread_int8_scan_returns_the_f32_top10() {
    let dim = 64;
    let data = topic_vectors(40_000, dim, 13);
    let (exact, int8) = exact_and_int8(&data, dim);
    let scopes = [Scope::owner(None), Scope::public_only(Some("p2".into()))];
    let mut halves = [false, false];
    for (qi, q) in near_queries(&data, 30, 9).iter().enumerate() {
        for scope in &scopes {
            let want = exact.search_exact(q, scope, 10);
            let got = int8.search_exact(q, scope, 10);
            assert_eq!(got, want, "query {qi}, scope {scope:?}");
            for h in &got {
                let row: usize = h.item_id[1..].parse().unwrap();
                halves[usize::from(row >= data.len() / 2)] = true;
            }
        }
    }
    assert_eq!(halves, [true, true], "hits came from both halves of the scan");
}

/// HNSW under narrowing scopes: recall@10 stays high against the exact scan and no hit is ever outside
/// the scope (public-only callers never see a private chunk).
#[test]
fn hnsw_keeps_recall_and_scope_under_filters() {
    let dim = 48;
    let data = topic_vectors(6000, dim, 21);
    let mut exact = VectorIndex::new("m", dim, exact_settings());
    let mut ann = VectorIndex::new("m", dim, VectorSettings { ann_threshold: 1000, ..Default::default() });
    let mut rows = Vec::new();
    for (i, v) in data.iter().enumerate() {
        let public = i % 3 != 0;
        let audience = if public { Audience::Public } else { Audience::Private };
        let (id, item, project) = (format!("i{i}#0"), format!("i{i}"), format!("p{}", i % 4));
        for index in [&mut exact, &mut ann] {
            index.upsert(&id, &item, &project, audience, v).unwrap();
        }
        rows.push((project, public));
    }
    ann.maintain();
    assert!(ann.has_ann());
    let scopes = [
        Scope::owner(None),
        Scope::public_only(None),
        Scope::owner(Some("p1".into())),
        Scope::public_only(Some("p2".into())),
    ];
    let queries = near_queries(&data, 50, 9);
    for scope in &scopes {
        let mut recall = 0.0;
        for q in &queries {
            let want = exact.search_exact(q, scope, 10);
            let (got, method) = ann.search(q, scope, 10);
            assert_eq!(method, SearchMethod::Hnsw, "{scope:?}");
            for h in &got {
                let i: usize = h.chunk_id[1..h.chunk_id.len() - 2].parse().unwrap();
                let (project, public) = &rows[i];
                let audience = if *public { Audience::Public } else { Audience::Private };
                assert!(scope.contains(project, audience), "{scope:?} got {}", h.chunk_id);
            }
            recall += recall_at(10, &got, &want);
        }
        let recall = recall / queries.len() as f64;
        assert!(recall >= 0.95, "{scope:?}: hnsw recall@10 {recall}");
    }
}

/// Replacing and deleting vectors (with compaction, and with an HNSW graph) leaves no stale hit.
#[test]
fn deletes_and_replacements_are_never_returned() {
    let dim = 16;
    let data = clustered(400, dim, 8, 3);
    for threshold in [usize::MAX, 100] {
        let mut index =
            VectorIndex::new("m", dim, VectorSettings { ann_threshold: threshold, ..Default::default() });
        for (i, v) in data.iter().enumerate() {
            index.upsert(&format!("i{i}#0"), &format!("i{i}"), "p", Audience::Public, v).unwrap();
        }
        index.maintain();
        // Delete every even item; move every odd one's vector to its neighbour's.
        for i in (0..400).step_by(2) {
            index.remove_item(&format!("i{i}"));
        }
        for i in (1..400).step_by(2) {
            index.upsert(&format!("i{i}#0"), &format!("i{i}"), "p", Audience::Public, &data[i - 1]).unwrap();
        }
        index.maintain();
        assert_eq!(index.len(), 200);
        for (i, q) in data.iter().enumerate().step_by(2).take(20) {
            let (hits, _) = index.search(q, &Scope::owner(None), 5);
            assert!(hits.iter().all(|h| {
                let n: usize = h.chunk_id[1..h.chunk_id.len() - 2].parse().unwrap();
                n % 2 == 1
            }));
            // The odd neighbour now holds exactly this vector.
            assert_eq!(&*hits[0].chunk_id, format!("i{}#0", i + 1), "threshold {threshold}");
            assert!((hits[0].score - 1.0).abs() < 1e-4);
        }
    }
}

#[test]
fn wrong_dimension_is_an_error_and_an_empty_result() {
    let mut index = VectorIndex::new("m", 4, VectorSettings::default());
    let err = index.upsert("a#0", "a", "p", Audience::Public, &[1.0, 0.0]).unwrap_err();
    assert!(err.to_string().contains("2 dimensions"), "{err}");
    index.upsert("a#0", "a", "p", Audience::Public, &[1.0, 0.0, 0.0, 0.0]).unwrap();
    assert!(index.search(&[1.0, 0.0], &Scope::owner(None), 3).0.is_empty());
    assert!(index.search(&[1.0, 0.0, 0.0, 0.0], &Scope::owner(Some("other".into())), 3).0.is_empty());
}

/// Line vectors re-score a chunk by its nearest line; they follow their chunk through replacement,
/// deletion and compaction, and a chunk without lines has no best line.
#[test]
fn best_line_follows_its_chunk_through_replacement_and_compaction() {
    let dim = 32;
    let rows = clustered(200, dim, 8, 11);
    let mut index = VectorIndex::new("m", dim, exact_settings());
    for (i, v) in rows.iter().enumerate() {
        // Chunk i's lines: rows i+1 and i+2 (wrapping), so its nearest line for those queries is known.
        let lines: Vec<f32> =
            [&rows[(i + 1) % 200], &rows[(i + 2) % 200]].into_iter().flatten().copied().collect();
        let lines = if i % 3 == 0 { Vec::new() } else { lines };
        index
            .upsert_with_lines(&format!("c{i}"), &format!("i{i}"), "p", Audience::Public, v, &lines)
            .unwrap();
    }
    let check = |index: &VectorIndex, i: usize| {
        let q = &rows[(i + 2) % 200];
        match index.best_line(&format!("c{i}"), q) {
            None => {
                assert_eq!(i % 3, 0, "chunk {i} has lines");
                assert!(!index.has_lines(&format!("c{i}")));
            }
            Some(best) => {
                assert_ne!(i % 3, 0, "chunk {i} has no lines");
                assert!(index.has_lines(&format!("c{i}")));
                // int8 codes: within 2% of the exact cosine of its nearest line (the query itself).
                assert!((best - 1.0).abs() < 0.02, "chunk {i}: {best}");
            }
        }
    };
    (0..200).for_each(|i| check(&index, i));
    // Lines of the wrong length are refused.
    assert!(index.upsert_with_lines("bad", "bad", "p", Audience::Public, &rows[0], &[1.0; 5]).is_err());
    // Replacing a chunk replaces its lines; deleting most rows compacts the arrays.
    index.upsert_with_lines("c1", "i1", "p", Audience::Public, &rows[1], &[]).unwrap();
    assert_eq!(index.best_line("c1", &rows[3]), None);
    for i in (0..200).filter(|i| i % 5 != 0) {
        index.remove_item(&format!("i{i}"));
    }
    index.maintain();
    assert_eq!(index.len(), 40);
    (0..200).filter(|i| i % 5 == 0).for_each(|i| check(&index, i));
    assert_eq!(index.best_line("c2", &rows[4]), None, "deleted");
}
