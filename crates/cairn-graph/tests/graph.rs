//! The graph against real stores filled by a real harvest.

use std::path::Path;

use cairn_core::{Audience, ItemKind, Provenance, Scope};
use cairn_graph::{ExpandOptions, Graph, PackMode, PackOptions, Seed, diff, rebuild_graph, sync_graph};
use cairn_ingest::{HarvestRequest, HarvestSettings, NoProgress, harvest};
use cairn_store::{SqliteStore, Store, TurnRecord, Write};
use cairn_tokens::{Encoding, Tokenizer};

/// A small workspace: two projects, links, wiki links, people, a contact note, a private note.
const FILES: &[(&str, &str)] = &[
    (
        "memory/alpha/plan.md",
        "---\ntitle: Alpha launch plan\nproject: alpha\ntags: [launch]\npeople: [Ana Lima]\n---\n# Alpha launch plan\n\nWe ship the alpha in May.\nDetails live in [the checklist](checklist.md).\nSee also [[Beta Retro]].\n",
    ),
    (
        "memory/alpha/checklist.md",
        "---\ntitle: Launch checklist\nproject: alpha\ntags: [launch]\n---\n# Launch checklist\n\nThe rollback switch is the flag `ship_alpha`.\n",
    ),
    (
        "memory/beta/retro.md",
        "---\ntitle: Beta Retro\nproject: beta\naudience: public\n---\n# Beta Retro\n\nWhat went well: canary deploys. Bo Chen ran them.\n",
    ),
    (
        "memory/people/bo-chen.md",
        "---\ntitle: Bo Chen\nproject: beta\ntype: person\naudience: public\n---\n# Bo Chen\n\nSRE on the beta team.\n",
    ),
    (
        "memory/alpha/secret.md",
        "---\ntitle: Salary notes\nproject: alpha\n---\n# Salary notes\n\nAna Lima earns a lot.\n",
    ),
    (
        "memory/alpha/public.md",
        "---\ntitle: Alpha public page\nproject: alpha\naudience: public\n---\n# Alpha public page\n\nPublic summary. Private details in [salary](secret.md).\n",
    ),
];

fn write_workspace(root: &Path, order: &[usize]) {
    for &i in order {
        let (rel, text) = FILES[i];
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
}

fn harvested(order: &[usize]) -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write_workspace(&ws, order);
    let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
    let req = HarvestRequest { root: ws, paths: vec![], dry_run: false, force: false };
    harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress).unwrap();
    sync_graph(&mut store).unwrap();
    (dir, store)
}

fn owner_all() -> Scope {
    Scope::owner(None)
}

fn id(path: &str) -> String {
    format!("item:memory-file:{path}")
}

#[test]
fn export_is_byte_identical_across_file_orders_and_incremental_syncs() {
    let (_d1, s1) = harvested(&[0, 1, 2, 3, 4, 5]);
    let (_d2, s2) = harvested(&[5, 3, 1, 4, 2, 0]);
    let a = Graph::load(&s1).unwrap().export(&owner_all()).to_json();
    let b = Graph::load(&s2).unwrap().export(&owner_all()).to_json();
    assert_eq!(a, b);
    assert!(a.contains("\"links_to\""), "{a}");

    // Built in two harvests (incremental sync in between) gives the same bytes too.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
    let req = HarvestRequest { root: ws.clone(), paths: vec![], dry_run: false, force: false };
    write_workspace(&ws, &[1, 2]);
    harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress).unwrap();
    sync_graph(&mut store).unwrap();
    write_workspace(&ws, &[0, 3, 4, 5]);
    harvest(&mut store, &HarvestSettings::default(), &req, &NoProgress).unwrap();
    sync_graph(&mut store).unwrap();
    assert_eq!(Graph::load(&store).unwrap().export(&owner_all()).to_json(), a);

    // A rebuild from scratch agrees with the incremental result.
    rebuild_graph(&mut store).unwrap();
    assert_eq!(Graph::load(&store).unwrap().export(&owner_all()).to_json(), a);
}

#[test]
fn extraction_reads_links_wiki_links_frontmatter_and_mentions_with_lines() {
    let (_d, store) = harvested(&[0, 1, 2, 3, 4, 5]);
    let g = Graph::load(&store).unwrap();
    let ex = g.export(&owner_all());
    let edge = |src: &str, dst: &str, kind: &str| {
        ex.edges.iter().find(|e| e.src == src && e.dst == dst && e.kind == kind).cloned()
    };
    let plan = id("memory/alpha/plan.md");
    // Markdown link on line 10 of the file (frontmatter is lines 1-6).
    let l = edge(&plan, &id("memory/alpha/checklist.md"), "links_to").expect("markdown link");
    assert_eq!(
        l.provenance,
        Provenance::File { path: "memory/alpha/plan.md".into(), line_start: 10, line_end: 10 }
    );
    // Wiki link resolved by title, across projects.
    let w = edge(&plan, &id("memory/beta/retro.md"), "links_to").expect("wiki link");
    assert!(w.cross_project);
    assert_eq!(w.reason, "wiki link [[Beta Retro]]");
    // Frontmatter `people` makes a person node.
    assert!(edge(&plan, "person:alpha/ana-lima", "mentions").is_some());
    // The contact note describes its person; the retro mentions that name in its text.
    assert!(edge(&id("memory/people/bo-chen.md"), "person:beta/bo-chen", "describes").is_some());
    let m = edge(&id("memory/beta/retro.md"), "person:beta/bo-chen", "mentions").expect("mention");
    assert!(matches!(m.provenance, Provenance::File { line_start: 8, .. }), "{:?}", m.provenance);
    // Tags and projects.
    assert!(edge(&plan, "tag:alpha/launch", "tagged").is_some());
    assert!(edge(&plan, "project:alpha", "in_project").is_some());
}

#[test]
fn cross_project_nodes_need_the_flag_and_always_carry_a_reason() {
    let (_d, store) = harvested(&[0, 1, 2, 3, 4, 5]);
    let g = Graph::load(&store).unwrap();
    let scope = Scope::owner(Some("alpha".into()));
    let seed = g.find(&id("memory/alpha/plan.md")).unwrap();
    let mut opts = ExpandOptions::default();
    let exp = g.expand(&[(seed, 1.0)], &scope, &opts);
    assert!(!exp.reached.is_empty());
    for r in &exp.reached {
        assert_eq!(g.node(r.node).project, "alpha", "{} leaked without the flag", g.node(r.node).id);
    }
    opts.allow_cross_project = true;
    let exp = g.expand(&[(seed, 1.0)], &scope, &opts);
    let crossed: Vec<_> = exp.reached.iter().filter(|r| g.node(r.node).project != "alpha").collect();
    assert!(crossed.iter().any(|r| g.node(r.node).id == id("memory/beta/retro.md")));
    for r in crossed {
        let steps = g.path_steps(r);
        let cross = steps.iter().find(|s| s.cross_project).expect("a cross-project step");
        assert!(!cross.reason.is_empty() && !cross.provenance.is_empty());
        assert!(opts.cross_project_edge_types.contains(&cross.kind));
    }
    // An edge type not configured for crossing is never followed across projects.
    opts.cross_project_edge_types = vec!["related".into()];
    let exp = g.expand(&[(seed, 1.0)], &scope, &opts);
    assert!(exp.reached.iter().all(|r| g.node(r.node).project == "alpha"));
}

#[test]
fn a_public_only_caller_never_sees_a_private_node() {
    let (_d, store) = harvested(&[0, 1, 2, 3, 4, 5]);
    let g = Graph::load(&store).unwrap();
    let public = Scope::public_only(Some("alpha".into()));
    let seed = g.find(&id("memory/alpha/public.md")).unwrap();
    let exp =
        g.expand(&[(seed, 1.0)], &public, &ExpandOptions { allow_cross_project: true, ..Default::default() });
    for r in &exp.reached {
        assert_eq!(g.node(r.node).audience, Audience::Public, "{}", g.node(r.node).id);
    }
    let ex = g.export(&Scope::public_only(None)).to_json();
    assert!(!ex.contains("secret.md") && !ex.contains("Salary"), "{ex}");
    // The owner does see the link to the private note.
    let exp = g.expand(&[(seed, 1.0)], &Scope::owner(Some("alpha".into())), &ExpandOptions::default());
    assert!(exp.reached.iter().any(|r| g.node(r.node).id == id("memory/alpha/secret.md")));
    // Asking for a private node by id looks exactly like asking for a missing one.
    let opts = PackOptions {
        expand: ExpandOptions::default(),
        budget: 1000,
        mode: PackMode::Safe,
        snippet_cap: 200,
        encoding: Encoding::O200k,
    };
    let err = g.context_pack(&[id("memory/alpha/secret.md")], &public, &opts, &mut |_| None).unwrap_err();
    let missing = g.context_pack(&[id("memory/alpha/nope.md")], &public, &opts, &mut |_| None).unwrap_err();
    assert_eq!(
        err.to_string().replace("secret", "X"),
        missing.to_string().replace("nope", "X"),
        "same error shape"
    );
    // Index packs from a public seed list no private node either.
    let pack = g.index_pack(
        &[Seed { id: id("memory/alpha/public.md"), score: 1.0, why: "query".into() }],
        &public,
        &ExpandOptions::default(),
        10,
        1000,
        Encoding::O200k,
    );
    let json = serde_json::to_string(&pack).unwrap();
    assert!(!json.contains("secret") && !json.contains("Salary") && !json.contains("ana-lima"), "{json}");
}

#[test]
fn safe_mode_has_no_raw_text_raw_mode_does() {
    let (_d, store) = harvested(&[0, 1, 2, 3, 4, 5]);
    let g = Graph::load(&store).unwrap();
    let scope = Scope::owner(Some("alpha".into()));
    let mut raw = |item: &str| store.get_item(item).ok().flatten().map(|i| i.text);
    let mut opts = PackOptions {
        expand: ExpandOptions { depth: 1, ..Default::default() },
        budget: 2000,
        mode: PackMode::Safe,
        snippet_cap: 200,
        encoding: Encoding::O200k,
    };
    let ids = [id("memory/alpha/plan.md")];
    let safe = serde_json::to_string(&g.context_pack(&ids, &scope, &opts, &mut raw).unwrap()).unwrap();
    // The checklist's body (past its first sentence's abstract) and the plan's later lines never appear.
    assert!(!safe.contains("Details live in"), "{safe}");
    assert!(!safe.contains("\"snippet\""));
    assert!(safe.contains("checklist.md"), "the linked note is summarised: {safe}");
    opts.mode = PackMode::Raw;
    let pack = g.context_pack(&ids, &scope, &opts, &mut raw).unwrap();
    let rawj = serde_json::to_string(&pack).unwrap();
    assert!(rawj.contains("Details live in"), "{rawj}");
    assert!(pack.items.iter().all(|e| e.why_included == "requested" || !e.path.is_empty()));
}

#[test]
fn explicit_links_survive_rebuilds_and_session_turns_follow_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("cairn.sqlite")).unwrap();
    for (i, t) in ["first", "second", "third"].iter().enumerate() {
        let item = cairn_test::item(format!("turn:s1:{i}"))
            .kind(ItemKind::Turn)
            .title(format!("turn {i}"))
            .text(format!("The {t} turn."))
            .audience(Audience::Private)
            .provenance(Provenance::Turn { session_key: "s1".into(), turn_id: i.to_string() })
            .content_hash(format!("h{i}"))
            .created_at(i as i64)
            .build();
        let rec = TurnRecord {
            session_key: "s1".into(),
            turn_id: i.to_string(),
            project: "default".into(),
            audience: Audience::Private,
            ts: i as i64,
            item,
        };
        store.record_turn(&rec, vec![]).unwrap();
        sync_graph(&mut store).unwrap();
    }
    let g = Graph::load(&store).unwrap();
    let ex = g.export(&owner_all());
    let follows: Vec<_> =
        ex.edges.iter().filter(|e| e.kind == "follows").map(|e| (&e.src[..], &e.dst[..])).collect();
    assert_eq!(follows, vec![("item:turn:s1:1", "item:turn:s1:0"), ("item:turn:s1:2", "item:turn:s1:1")]);
    assert_eq!(ex.edges.iter().filter(|e| e.kind == "same_session").count(), 3);

    store
        .graph_add_link(&cairn_store::GraphEdgeRow {
            src: "item:turn:s1:0".into(),
            dst: "item:turn:s1:2".into(),
            kind: "answers".into(),
            weight: 1.0,
            reason: "the third turn answers the first".into(),
            provenance: Provenance::External { source: "cairn link".into() },
            audience: Audience::Private,
        })
        .unwrap();
    rebuild_graph(&mut store).unwrap();
    let after = Graph::load(&store).unwrap().export(&owner_all());
    assert!(after.edges.iter().any(|e| e.kind == "answers"));
    let d = diff(&ex, &after);
    assert_eq!(d.added_edges.len(), 1, "{d:?}");
    assert!(d.removed_edges.is_empty() && d.added_nodes.is_empty());

    // Deleting a turn removes its rows on the next incremental sync.
    store.apply(&[Write::Delete { item_id: "turn:s1:2".into() }], "test").unwrap();
    sync_graph(&mut store).unwrap();
    let g = Graph::load(&store).unwrap();
    assert!(g.find("item:turn:s1:2").is_none());
}

#[test]
fn a_damaged_graph_row_is_an_error_not_a_panic() {
    let (dir, store) = harvested(&[0, 1]);
    drop(store);
    let path = dir.path().join("cairn.sqlite");
    let conn = rusqlite_conn(&path);
    conn.execute("UPDATE graph_edges SET provenance = 'not json' WHERE kind = 'links_to'", []).unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    let err = Graph::load(&store).unwrap_err();
    assert!(err.to_string().contains("graph_edges"), "{err}");
}

fn rusqlite_conn(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

mod budgets {
    use super::*;
    use proptest::prelude::*;

    fn synthetic(n: usize, fan: usize, title_len: usize) -> Graph {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for i in 0..n {
            nodes.push(cairn_store::GraphNodeRow {
                id: format!("item:n{i}"),
                kind: "file".into(),
                title: format!("Note {i} {}", "word ".repeat(title_len)),
                project: "p".into(),
                audience: Audience::Private,
                item_id: Some(format!("n{i}")),
                l0: format!("Abstract of note {i}: {}", "text ".repeat(title_len * 2)),
                provenance: Provenance::File { path: format!("n{i}.md"), line_start: 1, line_end: 3 },
                tags: vec!["t".into()],
            });
            for j in 1..=fan {
                edges.push(cairn_store::GraphEdgeRow {
                    src: format!("item:n{i}"),
                    dst: format!("item:n{}", (i * 7 + j * 13) % n),
                    kind: "links_to".into(),
                    weight: 1.0,
                    reason: format!("links to n{}", (i * 7 + j * 13) % n),
                    provenance: Provenance::File {
                        path: format!("n{i}.md"),
                        line_start: j as u32,
                        line_end: j as u32,
                    },
                    audience: Audience::Private,
                });
            }
        }
        Graph::from_rows(nodes, edges)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn index_packs_never_exceed_their_cap(cap in 0usize..1500, n in 2usize..60, fan in 0usize..6, tl in 0usize..30, k in 1usize..40) {
            let g = synthetic(n, fan, tl);
            let seeds: Vec<Seed> = (0..n.min(5)).map(|i| Seed { id: format!("item:n{i}"), score: 1.0 - i as f32 * 0.1, why: "matched `note`".into() }).collect();
            let pack = g.index_pack(&seeds, &Scope::owner(Some("p".into())), &ExpandOptions::default(), k, cap, Encoding::O200k);
            let used = Tokenizer::new(Encoding::O200k).count(&serde_json::to_string(&pack).unwrap());
            prop_assert!(used <= cap || (pack.top_candidates.is_empty() && pack.suggested_next_expansions.is_empty()));
            if used <= cap { prop_assert_eq!(pack.budget.used, used); }
            prop_assert!(pack.top_candidates.len() <= k);
        }

        #[test]
        fn context_packs_never_exceed_budget_or_l2_ceiling(budget in 100usize..6000, n in 2usize..60, fan in 0usize..6, tl in 0usize..30, cap in 10usize..800, raw in any::<bool>()) {
            let g = synthetic(n, fan, tl);
            let opts = PackOptions {
                expand: ExpandOptions { depth: 2, ..Default::default() },
                budget,
                mode: if raw { PackMode::Raw } else { PackMode::Safe },
                snippet_cap: cap,
                encoding: Encoding::O200k,
            };
            let text = "Raw body sentence with several words. ".repeat(80);
            let pack = g.context_pack(&["item:n0".into()], &Scope::owner(None), &opts, &mut |_| Some(text.clone())).unwrap();
            let tok = Tokenizer::new(Encoding::O200k);
            let used = tok.count(&serde_json::to_string(&pack).unwrap());
            prop_assert!(used <= budget || pack.items.is_empty(), "used {used} > {budget}");
            prop_assert!(pack.l2_tokens <= cairn_graph::L2_CEILING);
            let mut l2 = 0;
            for e in &pack.items {
                if let Some(s) = &e.snippet {
                    prop_assert!(raw);
                    let t = tok.count(s);
                    prop_assert!(t <= cap);
                    l2 += t;
                }
            }
            prop_assert_eq!(l2, pack.l2_tokens);
        }
    }
}

#[test]
fn the_streaming_load_equals_building_from_rows_in_any_order() {
    let (_d, store) = harvested(&[0, 1, 2, 3, 4, 5]);
    let loaded = Graph::load(&store).unwrap();
    // Rows as the store lists them (by id, then owner), while the loader streams by owner: the same
    // rows win the merge either way.
    let nodes: Vec<_> = store.graph_nodes().unwrap().into_iter().map(|(_, n)| n).collect();
    let edges: Vec<_> = store.graph_edges().unwrap().into_iter().map(|(_, e)| e).collect();
    let built = Graph::from_rows(nodes, edges);
    assert_eq!(loaded.nodes(), built.nodes());
    assert_eq!(loaded.edges(), built.edges());
    assert!(loaded.edges().iter().any(|e| &*e.kind == "links_to"));
    // Edges of one type share one allocation.
    let tagged: Vec<_> = loaded.edges().iter().filter(|e| &*e.kind == "tagged").collect();
    assert!(tagged.len() >= 2);
    assert!(tagged.windows(2).all(|w| std::sync::Arc::ptr_eq(&w[0].kind, &w[1].kind)));
}
