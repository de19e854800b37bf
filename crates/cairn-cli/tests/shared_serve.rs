//! Two `cairn serve` daemons on one shared PostgreSQL store (`[store] url`), each with its own data
//! dir and token, as two hosts of a team run them: a capture acknowledged by one is recalled by the
//! other within a second (woken by the store's notification, not by polling: the daemons here poll
//! once a minute; a third one with `serve.follow_notifications = false` follows by polling alone),
//! captures from both at once are all stored exactly once, and once caught up both answer the same
//! queries the same way.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const SESSION: &str = "agent:main:main";

/// One test at a time: the freshness figures are not to be taken while the other test loads the machine.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Polling so rare that only a notification can make a host see another's writes within the tests.
const SLOW_POLL_MS: &str = "60000";

struct Host {
    _daemon: common::Daemon,
    url: String,
    client: reqwest::Client,
    data: PathBuf,
}

impl Host {
    fn start(root: &Path, name: &str, store_url: &str) -> Host {
        Host::start_with(root, name, store_url, &[("CAIRN_SERVE__DERIVE_MS", SLOW_POLL_MS)])
    }

    fn start_with(root: &Path, name: &str, store_url: &str, env: &[(&str, &str)]) -> Host {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("data");
        let mut cmd = common::cairn();
        cmd.current_dir(&dir)
            .env("CAIRN_STORE__URL", store_url)
            .envs(env.iter().copied())
            .arg("--data-dir")
            .arg(&data)
            .arg("--route-config")
            .arg(common::ROUTE_DIR);
        let (child, url) = common::serve(cmd);
        let token = std::fs::read_to_string(data.join("serve.token")).expect("the daemon wrote its token");
        Host { _daemon: common::Daemon(child), url, client: common::client(token.trim()), data }
    }

    /// `POST path` with a JSON body.
    async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        self.client.post(format!("{}{path}", self.url)).json(&body).send().await.unwrap()
    }

    async fn capture(&self, turn_id: &str, user: &str) -> Value {
        let body = json!({"session_key": SESSION, "turn_id": turn_id, "user": user, "assistant": "noted"});
        let r = self.post("/v1/capture", body).await;
        assert_eq!(r.status().as_u16(), 202, "capture {turn_id}");
        r.json().await.unwrap()
    }

    /// `(id, score)` of the hits for `query`, best first.
    async fn search(&self, query: &str) -> Vec<(String, f64)> {
        self.search_hits(query)
            .await
            .iter()
            .map(|h| (h["id"].as_str().unwrap().to_owned(), h["score"].as_f64().unwrap()))
            .collect()
    }

    /// The hits for `query`, best first, as the daemon sends them.
    async fn search_hits(&self, query: &str) -> Vec<Value> {
        let body = json!({"query": query, "session_key": SESSION, "k": 100});
        let r: Value = self.post("/v1/search", body).await.json().await.unwrap();
        r["hits"].as_array().unwrap_or_else(|| panic!("search: {r}")).clone()
    }

    /// The trace of a turn for `prompt`.
    async fn turn_trace(&self, prompt: &str) -> Value {
        self.turn(prompt).await["trace"].clone()
    }

    /// The response to a turn for `prompt`.
    async fn turn(&self, prompt: &str) -> Value {
        let r = self.post("/v1/turn", json!({"session_key": SESSION, "prompt": prompt})).await;
        assert!(r.status().is_success(), "turn `{prompt}`: {}", r.status());
        r.json().await.unwrap()
    }

    /// The routing decision for `prompt`, as a dry run (the session's state is read, not written).
    async fn intent(&self, prompt: &str) -> Value {
        let body = json!({"session_key": SESSION, "prompt": prompt});
        let r: Value = self.post("/v1/intent", body).await.json().await.unwrap();
        r["intent"].clone()
    }

    async fn status(&self) -> Value {
        self.client.get(format!("{}/v1/status", self.url)).send().await.unwrap().json().await.unwrap()
    }

    /// Waits until the daemon listens to the store.
    async fn wait_listening(&self) {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let s = self.status().await;
            if s["follow"]["listening"] == true {
                return;
            }
            assert!(Instant::now() < until, "{}: not listening to the store: {s}", self.data.display());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// How long until `query` finds `id` here, polling every 5 ms; panics after `limit`.
    async fn time_to_find(&self, query: &str, id: &str, since: Instant, limit: Duration) -> Duration {
        loop {
            if self.search(query).await.iter().any(|(h, _)| h == id) {
                return since.elapsed();
            }
            assert!(since.elapsed() < limit, "`{id}` not found by `{query}` within {limit:?}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// One test's shared store: a database on a real server, a directory for the hosts' data dirs, and
/// the lock that keeps these tests from loading the machine at the same time.
struct Shared {
    server: cairn_test::postgres::PgServer,
    url: String,
    db: String,
    tmp: tempfile::TempDir,
    _serial: tokio::sync::MutexGuard<'static, ()>,
}

impl Shared {
    /// A fresh database for `test`, or `None` when PostgreSQL tests are skipped.
    async fn open(test: &str) -> Option<Shared> {
        let server = cairn_test::postgres::server(test)?;
        let _serial = SERIAL.lock().await;
        let url = server.create_db();
        let db = url.rsplit('/').next().unwrap().to_owned();
        Some(Shared { server, url, db, tmp: tempfile::tempdir().unwrap(), _serial })
    }

    /// A daemon on this store that follows it by notifications only (its polling is too rare to count).
    fn host(&self, name: &str) -> Host {
        Host::start(self.tmp.path(), name, &self.url)
    }

    /// A daemon on this store with `env` set.
    fn host_with(&self, name: &str, env: &[(&str, &str)]) -> Host {
        Host::start_with(self.tmp.path(), name, &self.url, env)
    }

    fn psql(&self, sql: &str) -> String {
        self.server.run_client("psql", &["-d", &self.db, "-Atc", sql]).trim().to_owned()
    }

    /// The item id of the captured turn `turn_id` (empty while not stored).
    fn item_of(&self, turn_id: &str) -> String {
        self.psql(&format!("SELECT item_id FROM turns WHERE turn_id = '{turn_id}'"))
    }

    /// Waits until the capture `turn_id` is in the store; its item id.
    async fn stored(&self, turn_id: &str) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let id = self.item_of(turn_id);
            if !id.is_empty() {
                return id;
            }
            assert!(Instant::now() < until, "{turn_id} never stored");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_on_one_host_is_recalled_on_the_other_within_a_second() {
    let Some(store) = Shared::open("a_capture_on_one_host_is_recalled_on_the_other_within_a_second").await
    else {
        return;
    };
    let a = store.host("a");
    let b = store.host("b");
    // C does not listen and follows by polling only (every 100 ms).
    let c = store
        .host_with("c", &[("CAIRN_SERVE__DERIVE_MS", "100"), ("CAIRN_SERVE__FOLLOW_NOTIFICATIONS", "false")]);
    a.wait_listening().await;
    b.wait_listening().await;
    // B and C serve before anything is captured (their recall sides are open and following).
    assert!(b.search("anything").await.is_empty());
    assert!(c.search("anything").await.is_empty());

    let mut delays = Vec::new();
    for i in 0..5 {
        let word = format!("zanzibarite{i}");
        let t0 = Instant::now();
        let ack = a.capture(&format!("fresh-{i}"), &format!("The {word} sample arrived today")).await;
        assert_eq!(ack["accepted"], true, "{ack}");
        let id = store.stored(&format!("fresh-{i}")).await;
        delays.push(b.time_to_find(&word, &id, t0, Duration::from_secs(1)).await);
    }
    println!("capture on A → recalled on B: {delays:?}");
    // C, polling every 100 ms, has it within a second too.
    let last = store.item_of("fresh-4");
    c.time_to_find("zanzibarite4", &last, Instant::now(), Duration::from_secs(1)).await;
    let sc = c.status().await;
    assert_eq!(
        (sc["follow"]["listening"].clone(), sc["follow"]["wakes"].clone()),
        (json!(false), json!(0)),
        "{sc}"
    );

    // A lost listening connection is opened again; meanwhile and after, B still follows.
    let killed = store.psql(&format!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '{}'",
        cairn_store::PG_LISTENER_NAME
    ));
    assert_eq!(killed, "2", "A's and B's listening connections (C has none)");
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (sa, sb) = (a.status().await, b.status().await);
        let back =
            |s: &Value| s["follow"]["listening"] == true && s["follow"]["reconnects"].as_u64() >= Some(1);
        if back(&sa) && back(&sb) {
            break;
        }
        assert!(Instant::now() < until, "not listening again: {sa} {sb}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let t0 = Instant::now();
    a.capture("after-reconnect", "The quillwort sample arrived late").await;
    let id = store.stored("after-reconnect").await;
    let d = b.time_to_find("quillwort", &id, t0, Duration::from_secs(1)).await;
    println!("after the listening connections were re-opened: {d:?}");
    // The daemons never stopped serving.
    assert_eq!(a.status().await["follow"]["listening"], true);
    let metrics = b.client.get(format!("{}/metrics", b.url)).send().await.unwrap().text().await.unwrap();
    for line in ["cairn_store_listening 1", "cairn_store_listen_reconnects_total 1"] {
        assert!(metrics.lines().any(|l| l == line), "no `{line}` in\n{metrics}");
    }
    assert!(metrics.contains("cairn_store_wakes_total "), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_captures_from_two_hosts_are_stored_once_and_recalled_alike() {
    let Some(store) =
        Shared::open("concurrent_captures_from_two_hosts_are_stored_once_and_recalled_alike").await
    else {
        return;
    };
    let hosts = std::sync::Arc::new([store.host("a"), store.host("b")]);
    for h in hosts.iter() {
        h.wait_listening().await;
    }
    // Per daemon: several client tasks, each capturing its own turns; plus turns sent to both at once.
    const CLIENTS: usize = 4;
    const PER_CLIENT: usize = 250;
    const BOTH: usize = 20;
    // Each batch word is in some 50 notes: fewer than a search returns (k = 100), so both hosts must
    // return every one of them.
    const BATCHES: usize = 41;
    let words = [
        "harbour", "lantern", "meadow", "granite", "orchard", "saffron", "tundra", "velvet", "quarry",
        "bramble", "cobalt", "falcon", "juniper", "marble", "nectar", "pebble", "quiver", "russet",
        "thistle", "walnut",
    ];
    let started = Instant::now();
    let mut tasks = Vec::new();
    for h in 0..2 {
        for c in 0..CLIENTS {
            let hosts = hosts.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0..PER_CLIENT {
                    let n = (h * CLIENTS + c) * PER_CLIENT + i;
                    let text = format!(
                        "Note {n} from host {h}: the {} report mentions the {} survey, batch b{}",
                        words[n % words.len()],
                        words[(n / words.len()) % words.len()],
                        n % BATCHES
                    );
                    let ack = hosts[h].capture(&format!("h{h}-c{c}-{i}"), &text).await;
                    assert_eq!(ack["accepted"], true, "{ack}");
                }
            }));
        }
    }
    for i in 0..BOTH {
        let hosts = hosts.clone();
        tasks.push(tokio::spawn(async move {
            let text = format!("Shared turn {i}: the {} plan for both hosts", words[i % words.len()]);
            let id = format!("both-{i}");
            let (ra, rb) = tokio::join!(hosts[0].capture(&id, &text), hosts[1].capture(&id, &text));
            assert_eq!((ra["accepted"].clone(), rb["accepted"].clone()), (json!(true), json!(true)));
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let acked = 2 * CLIENTS * PER_CLIENT + BOTH;
    // Every acknowledged capture ends up in the shared store once, the turns sent to both included.
    let until = Instant::now() + Duration::from_secs(60);
    let mut workers = Vec::new();
    loop {
        workers.clear();
        for h in hosts.iter() {
            let s = h.status().await;
            workers.push((s["queue"]["queued"].as_u64(), s["worker"].clone()));
        }
        if workers.iter().all(|(q, _)| *q == Some(0)) {
            break;
        }
        assert!(Instant::now() < until, "captures still queued: {workers:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    let count = |sql: &str| store.psql(sql).parse::<usize>().unwrap();
    assert_eq!(count("SELECT count(*) FROM turns"), acked);
    assert_eq!(count("SELECT count(DISTINCT item_id) FROM turns"), acked);
    assert_eq!(count("SELECT count(*) FROM items"), acked);
    assert_eq!(count("SELECT count(*) FROM ingest_log WHERE op = 'upsert'"), acked, "one log entry each");
    assert_eq!(count("SELECT count(*) FROM turns WHERE turn_id LIKE 'both-%'"), BOTH);
    for h in 0..2 {
        for c in 0..CLIENTS {
            let n = count(&format!("SELECT count(*) FROM turns WHERE turn_id LIKE 'h{h}-c{c}-%'"));
            assert_eq!(n, PER_CLIENT, "host {h} client {c}");
        }
    }
    let stat = |i: usize, k: &str| workers[i].1[k].as_u64().unwrap() as usize;
    assert_eq!(stat(0, "stored") + stat(1, "stored"), acked, "{workers:?}");
    assert_eq!(stat(0, "duplicate") + stat(1, "duplicate"), BOTH, "{workers:?}");
    assert_eq!(stat(0, "errors") + stat(1, "errors"), 0, "{workers:?}");
    println!("{acked} captures from two daemons stored in {elapsed:?}");

    // Once both caught up with the log, they recall alike.
    let last_seq = count("SELECT max(seq) FROM ingest_log");
    let until = Instant::now() + Duration::from_secs(20);
    let mut last = None;
    loop {
        let (sa, sb) = (hosts[0].status().await, hosts[1].status().await);
        assert_eq!(sa["store"]["last_seq"].as_u64(), Some(last_seq as u64));
        let chunks = (sa["index"]["chunks"].as_u64(), sb["index"]["chunks"].as_u64());
        if chunks.0 == chunks.1 && last == Some(chunks) {
            break;
        }
        last = Some(chunks);
        assert!(Instant::now() < until, "not caught up: {chunks:?} {sa} {sb}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The same hits, scored alike. Scores agree closely, not to the last digit: each host's full-text
    // statistics still count the documents its index replaced until it merges them away, and recency
    // moves with the clock. So hits of (nearly) equal score may come in another order. Queries that
    // match fewer notes than a search returns (a batch word: about 50 notes) must give both hosts the
    // same hits, each scored within 2 %; for queries that match hundreds, the hits at the cut-off
    // (k = 100) may differ.
    let close = |a: f64, b: f64| (a - b).abs() <= 0.02 * a.abs().max(b.abs());
    for q in ["b0", "b7", "b23", "b40"] {
        // The notes that say the word (the rest are their neighbours in the session, by the graph).
        let saying = |hits: Vec<Value>| -> std::collections::BTreeMap<String, f64> {
            let word = format!("batch {q}");
            hits.iter()
                .filter(|h| {
                    let text = h["snippet"].as_str().unwrap_or_default();
                    text.match_indices(&word)
                        .any(|(at, _)| !text[at + word.len()..].starts_with(|c: char| c.is_ascii_digit()))
                })
                .map(|h| (h["id"].as_str().unwrap().to_owned(), h["score"].as_f64().unwrap()))
                .collect()
        };
        let (a, b) = (saying(hosts[0].search_hits(q).await), saying(hosts[1].search_hits(q).await));
        let expected = (0..2 * CLIENTS * PER_CLIENT).filter(|n| format!("b{}", n % BATCHES) == q).count();
        assert_eq!(a.len(), expected, "{q}: every note that says it, on A");
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{q}: the same hits");
        for (id, s) in &a {
            assert!(close(*s, b[id]), "{q}: {id} scored {s} and {}", b[id]);
        }
    }
    for q in ["harbour", "meadow", "granite cobalt", "Shared turn plan", "saffron", "thistle walnut"] {
        let (ra, rb) = (hosts[0].search(q).await, hosts[1].search(q).await);
        assert_eq!(ra.len(), rb.len(), "{q}");
        // Hundreds of notes match: which come in at the cut-off, and the scores their neighbours in the
        // session lend them, may differ; each host's best hit is among the other's.
        for (one, other) in [(&ra, &rb), (&rb, &ra)] {
            let best = &one.first().unwrap_or_else(|| panic!("{q}: no hit")).0;
            assert!(other.iter().any(|(id, _)| id == best), "{q}: {best} found by one host only");
        }
    }
}

/// PostgreSQL killed while a daemon keeps accepting captures: each acknowledged capture waits in the
/// daemon's queue, however long the server is down (far longer than the attempts a failing capture
/// gets), and is stored exactly once after the server comes back; the daemon never stops answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn captures_acknowledged_while_the_server_is_down_are_stored_when_it_is_back() {
    let Some(store) =
        Shared::open("captures_acknowledged_while_the_server_is_down_are_stored_when_it_is_back").await
    else {
        return;
    };
    let a = store.host_with("a", &[("CAIRN_SERVE__DERIVE_MS", "100")]);
    a.wait_listening().await;
    a.capture("before", "Captured while the server was up").await;
    store.stored("before").await;
    // This host's own index holds it (it follows the store a derive tick later; under load, later).
    let until = Instant::now() + Duration::from_secs(10);
    while a.search("captured while the server was up").await.is_empty() {
        assert!(Instant::now() < until, "the capture never reached this host's index");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Killed mid-stream: captures keep being acknowledged (the queue is local).
    store.server.kill();
    for i in 0..20 {
        let ack =
            a.capture(&format!("down-{i}"), &format!("Captured while the server was down, number {i}")).await;
        assert_eq!(ack["accepted"], true, "{ack}");
    }
    // Longer than a failing capture's attempts (5, one every poll) would last.
    tokio::time::sleep(Duration::from_secs(4)).await;
    // Recall still answers, from this host's own index, and a turn says its memory is stale.
    let hits = a.search("captured while the server was up").await;
    assert!(!hits.is_empty(), "recall answers from the local index while the store is down");
    let trace = a.turn_trace("what was captured while the server was up?").await;
    assert_eq!(trace["stale"], true, "{trace}");
    assert!(trace["warnings"].to_string().contains("unreachable"), "{trace}");
    store.server.restart();

    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let n = store.psql("SELECT count(*) FROM turns WHERE turn_id LIKE 'down-%'");
        if n == "20" {
            break;
        }
        assert!(
            Instant::now() < until,
            "only {n} of 20 captures acknowledged while the server was down were stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(store.psql("SELECT count(DISTINCT turn_id) FROM turns"), "21", "each stored once");
    // None of them was given up on in the daemon's queue.
    let s = a.status().await;
    assert_eq!(s["queue"]["failed"].as_u64().unwrap_or(0), 0, "{s}");
    // Once the daemon reaches the store again, its turns are no longer stale.
    let until = Instant::now() + Duration::from_secs(10);
    while a.turn_trace("what was captured while the server was down?").await.get("stale").is_some() {
        assert!(Instant::now() < until, "turns still marked stale after the store came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A session served by two hosts keeps its sticky pack and its turn count: the state one host saves
/// is pulled by the other when the store's notification wakes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_keeps_its_sticky_pack_whichever_host_serves_the_next_turn() {
    let Some(store) =
        Shared::open("a_session_keeps_its_sticky_pack_whichever_host_serves_the_next_turn").await
    else {
        return;
    };
    let a = store.host("a");
    let b = store.host("b");
    a.wait_listening().await;
    b.wait_listening().await;
    const FOLLOW_UP: &str = "and for six people?";
    // Alone, the follow-up routes to no pack.
    assert_eq!(b.intent(FOLLOW_UP).await["sticky"], false);

    let first = a.turn("book a table for dinner on Friday").await;
    assert_eq!(first["intent"]["pack"], "dining_recs", "{first}");
    assert_eq!(first["trace"]["turn"], 1);
    // A saves the state (every 200 ms), the commit wakes B, B pulls it.
    let t0 = Instant::now();
    loop {
        let intent = b.intent(FOLLOW_UP).await;
        if intent["sticky"] == true {
            assert_eq!(intent["pack"], "dining_recs", "{intent}");
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(2), "B never saw A's sticky pack: {intent}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    println!("A's session state on B after {:?}", t0.elapsed());
    let second = b.turn(FOLLOW_UP).await;
    assert_eq!(second["intent"]["sticky"], true, "{second}");
    assert_eq!(second["trace"]["turn"], 2, "the turn count goes on from A's");
    // One row per session on the server, the state B saved last.
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let state = store.psql(&format!("SELECT state FROM session_state WHERE session_key = '{SESSION}'"));
        if state.contains("\"turns\":2") {
            break;
        }
        assert!(Instant::now() < until, "B's state never saved: {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(store.psql("SELECT count(*) FROM session_state"), "1");
}

/// A host killed (SIGKILL) while it catches up with a large harvest on another host is started again
/// on the same data dir and catches up: every note once, none missing, none twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_killed_while_catching_up_catches_up_when_started_again() {
    let Some(store) = Shared::open("a_host_killed_while_catching_up_catches_up_when_started_again").await
    else {
        return;
    };
    // More notes than one harvest batch (512 files), so the other host sees several commits.
    const NOTES: usize = 1100;
    let workspace = store.tmp.path().join("workspace");
    std::fs::create_dir_all(workspace.join("memory")).unwrap();
    for i in 0..NOTES {
        std::fs::write(
            workspace.join(format!("memory/survey-{i:04}.md")),
            format!("# Survey {i}\n\nThe kestrelwing survey at site {i} counted marker{i} nests.\n"),
        )
        .unwrap();
    }
    let b = store.host("b");
    b.wait_listening().await;
    let chunks = |s: &Value| s["index"]["chunks"].as_u64().unwrap_or(0) as usize;

    // A one-shot harvest on another host; B follows it commit by commit until it is killed.
    let mut harvest = common::cairn();
    harvest
        .env("CAIRN_STORE__URL", &store.url)
        .arg("--data-dir")
        .arg(store.tmp.path().join("harvester"))
        .arg("--workspace")
        .arg(&workspace)
        .arg("harvest")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let harvest = harvest.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(120);
    let seen = loop {
        let n = chunks(&b.status().await);
        if n > 0 {
            break n;
        }
        assert!(Instant::now() < until, "B never saw the harvest");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let data = b.data.clone();
    drop(b); // SIGKILL
    println!("B killed after indexing {seen} of {NOTES} notes");
    let out = harvest.wait_with_output().unwrap();
    assert!(out.status.success(), "harvest: {}", String::from_utf8_lossy(&out.stderr));

    // Started again on the same data dir (its index and graph as the kill left them).
    let b = store.host("b");
    assert_eq!(b.data, data);
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let s = b.status().await;
        if chunks(&s) == NOTES {
            break;
        }
        assert!(chunks(&s) <= NOTES, "a note indexed twice: {s}");
        assert!(Instant::now() < until, "B did not catch up: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for i in [0, NOTES / 2, NOTES - 1] {
        let hits = b.search(&format!("marker{i}")).await;
        assert_eq!(hits.len(), 1, "marker{i}: {hits:?}");
    }
    let hits = b.search("kestrelwing").await;
    let mut ids: Vec<&str> = hits.iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), hits.len(), "each note once");
    assert_eq!(hits.len(), 100, "as many hits as asked for");
}
