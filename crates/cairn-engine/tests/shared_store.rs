//! Several hosts on one shared store (`[store] url`), on a real PostgreSQL server: what one host
//! captures, ingests or forgets, another serves after catching up (`refresh_derived`, what the daemon
//! runs every `serve.derive_ms`), each with its own data dir for indexes and serving state.

use std::path::Path;

use cairn_engine::{Caller, Engine, EngineConfig, Forget, IngestNote, LinkRequest, SubagentSpawn};
use cairn_ingest::{CaptureOutcome, HarvestRequest, NoProgress, TurnInput};

fn config(data: &Path, url: &str) -> EngineConfig {
    let mut cfg = EngineConfig::new(data);
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    cfg.store.url = Some(url.to_owned());
    cfg
}

fn found(engine: &Engine, query: &str) -> Vec<String> {
    let scope = engine.scope_for(Caller::Owner, None);
    engine.search(query, scope, 10).into_iter().map(|h| h.item_id).collect()
}

fn turn(user: &str, assistant: &str) -> TurnInput {
    TurnInput {
        session_key: "agent:main:main".into(),
        turn_id: Some("t1".into()),
        user: Some(user.into()),
        assistant: Some(assistant.into()),
        ..Default::default()
    }
}

fn local_items(data: &Path) -> i64 {
    let conn = rusqlite::Connection::open(data.join("cairn.sqlite")).unwrap();
    conn.query_row("SELECT count(*) FROM items", [], |r| r.get(0)).unwrap()
}

#[test]
fn hosts_share_one_memory() {
    let Some(server) = cairn_test::postgres::server("hosts_share_one_memory") else { return };
    let url = server.create_db();
    let dir = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    let a = Engine::open(config(&a_dir, &url)).unwrap();
    let b = Engine::open(config(&b_dir, &url)).unwrap();

    // Host A harvests a memory file, captures a turn and ingests a note.
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    std::fs::write(ws.join("memory/heron.md"), "# Heron\n\nThe grey heron nests by the north lake.\n")
        .unwrap();
    let req = HarvestRequest { root: ws, paths: vec![], dry_run: false, force: false };
    a.harvest(&req, &NoProgress, &NoProgress).unwrap();
    let captured =
        a.capture(&turn("Where is the sailing boat moored?", "At pier nine, by the lighthouse.")).unwrap();
    let CaptureOutcome::Stored { item_id: turn_id, .. } = captured else { panic!("{captured:?}") };
    let note = a
        .ingest(&IngestNote { text: "The kayak is stored in the red shed.".into(), ..Default::default() })
        .unwrap();
    assert!(found(&a, "lighthouse pier").contains(&turn_id));

    // Host B serves all of it once it caught up with the shared log; nothing of it is in B's file.
    let report = b.refresh_derived();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(found(&b, "lighthouse pier").contains(&turn_id), "a turn captured on A is recalled on B");
    assert!(found(&b, "kayak shed").contains(&note));
    assert!(!found(&b, "grey heron").is_empty(), "a file harvested on A is recalled on B");
    assert_eq!(local_items(&b_dir), 0, "the memory is on the server, not in B's file");
    assert_eq!(local_items(&a_dir), 0);

    // The same turn captured again through B is a duplicate: captures are idempotent across hosts.
    let again =
        b.capture(&turn("Where is the sailing boat moored?", "At pier nine, by the lighthouse.")).unwrap();
    assert!(matches!(again, CaptureOutcome::Duplicate { .. }), "{again:?}");

    // Forgetting on B removes the rows for every host.
    let scope = b.scope_for(Caller::Owner, None);
    let forgot = b.forget(&Forget { ids: vec![note.clone()], ..Default::default() }, &scope).unwrap();
    assert_eq!(forgot.items, [note.as_str()]);
    assert!(!found(&b, "kayak shed").contains(&note));
    a.refresh_derived();
    assert!(!found(&a, "kayak shed").contains(&note), "A follows the deletion");

    // A third host, a one-shot command on a new data dir, reads the shared memory at once.
    let c = Engine::open_lazy(config(&dir.path().join("c"), &url));
    assert!(found(&c, "lighthouse pier").contains(&turn_id));
}

#[test]
fn an_unreachable_shared_store_is_an_error_not_an_empty_memory() {
    let dir = tempfile::tempdir().unwrap();
    // A socket directory with no server in it.
    let url = format!("postgres://cairn@{}/cairn", dir.path().display().to_string().replace('/', "%2F"));
    let Err(err) = Engine::open(config(&dir.path().join("a"), &url)) else { panic!("no server: no engine") };
    assert!(err.to_string().contains("cannot connect"), "{err}");
}

#[test]
fn a_data_dir_follows_one_store() {
    let Some(server) = cairn_test::postgres::server("a_data_dir_follows_one_store") else { return };
    let (first, second) = (server.create_db(), server.create_db());
    let dir = tempfile::tempdir().unwrap();
    // A data dir of a single-host store: its index follows its own log, not the server's.
    let single = dir.path().join("single");
    let mut cfg = EngineConfig::new(&single);
    cfg.embed.provider = cairn_embed::EmbedProvider::None;
    let e = Engine::open(cfg).unwrap();
    e.ingest(&IngestNote { text: "A note kept on this host only.".into(), ..Default::default() }).unwrap();
    drop(e);
    let Err(err) = Engine::open(config(&single, &first)) else {
        panic!("a single-host data dir was attached")
    };
    assert!(err.to_string().contains("single-host store"), "{err}");

    // A data dir that followed one shared store does not follow another.
    let host = dir.path().join("host");
    drop(Engine::open(config(&host, &first)).unwrap());
    drop(Engine::open(config(&host, &first)).unwrap());
    let Err(err) = Engine::open(config(&host, &second)) else { panic!("a data dir switched shared stores") };
    assert!(err.to_string().contains("another shared store"), "{err}");
}

/// A sub-agent spawned from a group chat on one host is served on another with its parent's audience:
/// the spawn record is on the shared store. Without it the other host would take the child, whose key
/// alone says nothing of its parent, for the owner's, and give it private memory.
#[test]
fn a_sub_agent_keeps_its_parents_audience_on_every_host() {
    let Some(server) = cairn_test::postgres::server("a_sub_agent_keeps_its_parents_audience_on_every_host")
    else {
        return;
    };
    let url = server.create_db();
    let dir = tempfile::tempdir().unwrap();
    let a = Engine::open(config(&dir.path().join("a"), &url)).unwrap();
    let b = Engine::open(config(&dir.path().join("b"), &url)).unwrap();
    const GROUP: &str = "agent:main:telegram:group:-1001";
    const CHILD: &str = "agent:main:subagent:7f3a";
    a.ingest(&IngestNote { text: "The vendor contract renews at 41k.".into(), ..Default::default() })
        .unwrap();
    assert!(b.scope_for(Caller::Session(CHILD), None).allow_private, "unlinked, a child is the owner's");

    let req = SubagentSpawn {
        parent_session_key: GROUP.into(),
        child_session_key: CHILD.into(),
        run_id: Some("run-1".into()),
        ..Default::default()
    };
    a.spawned(&req).unwrap();
    for (host, engine) in [("A", &a), ("B", &b)] {
        assert!(
            !engine.scope_for(Caller::Session(CHILD), None).allow_private,
            "{host}: the child of a group"
        );
        assert_eq!(engine.subagent(CHILD).map(|l| l.parent).as_deref(), Some(GROUP), "{host}");
    }
    b.refresh_derived();
    let scope = b.scope_for(Caller::Session(CHILD), None);
    assert!(
        b.search("vendor contract renews", scope, 10).is_empty(),
        "private memory reached the child on B"
    );
    // Its end, recorded on B, is seen on A.
    let ended = cairn_engine::SubagentEnded {
        child_session_key: CHILD.into(),
        outcome: Some("ok".into()),
        ..Default::default()
    };
    b.subagent_ended(&ended).unwrap();
    assert_eq!(a.subagent(CHILD).unwrap().outcome.as_deref(), Some("ok"));

    // A host whose file kept a spawn record from before they were shared moves it to the server.
    const OLDER: &str = "agent:main:subagent:older";
    let c_dir = dir.path().join("c");
    std::fs::create_dir_all(&c_dir).unwrap();
    let mut local = cairn_store::SqliteStore::open(&c_dir.join("cairn.sqlite")).unwrap();
    let link = cairn_store::SubagentLink {
        child: OLDER.into(),
        parent: GROUP.into(),
        spawned_at: 1,
        ..Default::default()
    };
    local.put_subagent(&link).unwrap();
    drop(local);
    let c = Engine::open(config(&c_dir, &url)).unwrap();
    assert_eq!(c.subagent(OLDER).map(|l| l.parent).as_deref(), Some(GROUP));
    assert!(!b.scope_for(Caller::Session(OLDER), None).allow_private, "B knows it too");
}

/// A link made with `cairn link` on one host is followed by the others: a daemon's graph as it
/// follows the store, a new host's graph when it first loads it; each host holds it once.
#[test]
fn a_link_made_on_one_host_is_in_every_hosts_graph() {
    let Some(server) = cairn_test::postgres::server("a_link_made_on_one_host_is_in_every_hosts_graph") else {
        return;
    };
    let url = server.create_db();
    let dir = tempfile::tempdir().unwrap();
    let a = Engine::open(config(&dir.path().join("a"), &url)).unwrap();
    let b = Engine::open(config(&dir.path().join("b"), &url)).unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    std::fs::write(ws.join("memory/boat.md"), "# Boat\n\nThe sailing boat is moored at pier nine.\n")
        .unwrap();
    std::fs::write(ws.join("memory/crew.md"), "# Crew\n\nMira skippers on Saturdays.\n").unwrap();
    let req = HarvestRequest { root: ws, paths: vec![], dry_run: false, force: false };
    a.harvest(&req, &NoProgress, &NoProgress).unwrap();
    a.refresh_derived();
    b.refresh_derived();
    let owner = a.scope_for(Caller::Owner, None);
    let links = |e: &Engine| -> usize {
        let export = serde_json::to_string(&e.graph_export(&owner).unwrap()).unwrap();
        export.matches("Mira sails it").count()
    };
    assert_eq!(links(&b), 0, "B's graph is loaded, without the link");

    let link = LinkRequest {
        from: "memory-file:memory/crew.md".into(),
        to: "memory-file:memory/boat.md".into(),
        kind: "related".into(),
        reason: "Mira sails it".into(),
        weight: 1.0,
    };
    a.link(&link).unwrap();
    a.refresh_derived();
    assert_eq!(links(&a), 1);
    b.refresh_derived();
    assert_eq!(links(&b), 1, "B follows the link");
    let c = Engine::open(config(&dir.path().join("c"), &url)).unwrap();
    assert_eq!(links(&c), 1, "a new host has it from its first load");
    // Made again (a new reason), it is replaced everywhere, never doubled.
    a.link(&LinkRequest { reason: "Mira sails it on Saturdays".into(), ..link }).unwrap();
    a.refresh_derived();
    b.refresh_derived();
    assert_eq!((links(&a), links(&b)), (1, 1));
    let export = serde_json::to_string(&b.graph_export(&owner).unwrap()).unwrap();
    assert!(export.contains("Mira sails it on Saturdays"), "{export}");
}
