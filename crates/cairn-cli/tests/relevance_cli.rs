//! Relevance as a user meets it, with the real embedding model: a prompt about nothing in memory
//! gets an empty block from every surface (the CLI, the daemon's context, turn and search, the MCP
//! tools), a prompt about a note gets it; and `cairn eval retrieval --workspace` on the labelled
//! workspace in `tests/data/relevance` holds its figures, with and without the model.
//!
//! The model comes from `cairn_embed::testing::real_model_dir` (`CAIRN_TEST_MODEL_DIR`, else the default
//! data dir); without one these tests fail, unless `CAIRN_ALLOW_NO_MODEL=1`.

mod common;

use std::path::{Path, PathBuf};

use common::{Env, ROUTE_DIR};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/relevance");

/// The real model, or `None` when its absence is allowed (see `cairn_embed::testing::real_model_dir`).
fn model() -> Option<PathBuf> {
    cairn_embed::testing::real_model_dir()
}

/// Words that occur nowhere in the workspace (nor in any English text).
const ABSENT: &str = "zorblax quindle frumious vextrodyne plimsoth";

/// The labelled workspace harvested into a fresh data dir, with the model.
fn harvested(model: &Path) -> Env {
    let env = Env::new(&[]);
    cairn_test::copy_dir(&Path::new(DATA).join("workspace"), &env.ws);
    let (code, _, err) =
        common::output(&env.cmd().env("CAIRN_EMBED__MODEL", model).args(["harvest"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    env
}

fn json_of(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

/// `cairn context <question> --format json` on `env` with the model and the settings `settings`
/// (`CAIRN_*` variables).
fn context_with(env: &Env, model: &Path, question: &str, settings: &[(&str, &str)]) -> Value {
    let mut cmd = env.cmd();
    cmd.env("CAIRN_EMBED__MODEL", model).envs(settings.iter().copied());
    let (code, out, err) =
        common::output(&cmd.args(["context", question, "--format", "json"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    json_of(&out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_about_nothing_in_memory_gets_nothing_from_every_surface() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    let cmd = || {
        let mut c = env.cmd();
        c.env("CAIRN_EMBED__MODEL", &model).arg("--route-config").arg(ROUTE_DIR);
        c
    };

    // The CLI: an empty block, and a receipt that says why.
    let (code, out, err) =
        common::output(&cmd().args(["context", ABSENT, "--format", "json"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["empty"], true, "{v}");
    let rel = &v["receipt"]["relevance"];
    assert!(rel["best"].as_f64().unwrap() < rel["floor"].as_f64().unwrap(), "{rel}");
    // A general question, about the world rather than the user, gets nothing either: the receipt
    // shows its meaning nearer the general prompts than memory.
    let (_, out, _) = common::output(
        &cmd().args(["context", "How many legs does a spider have?", "--format", "json"]).output().unwrap(),
    );
    let v = json_of(&out);
    assert_eq!(v["empty"], true, "{v}");
    let rel = &v["receipt"]["relevance"];
    assert!(rel["general"].as_f64().unwrap() > rel["memory"].as_f64().unwrap(), "{rel}");
    // A prompt about a note gets it.
    let (_, out, _) = common::output(
        &cmd()
            .args(["context", "Which animal clinic does Moss go to?", "--format", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(json_of(&out)["empty"], false, "{out}");
    // A question about the asker meets the lower personal floor: it gets the note, and the receipt
    // says why; a first-person how-to does not, and made-up words stay empty however they are asked.
    let context = |q: &str| {
        let (_, out, _) = common::output(&cmd().args(["context", q, "--format", "json"]).output().unwrap());
        json_of(&out)
    };
    let v = context("What flowers am I putting in to attract insects?");
    assert_eq!(v["empty"], false, "{v}");
    let rel = &v["receipt"]["relevance"];
    assert_eq!(rel["personal"], true, "{rel}");
    assert!(rel["floor"].as_f64().unwrap() < 0.5, "{rel}");
    assert!(v["receipt"]["included"].to_string().contains("garden-plan.md"), "{v}");
    let v = context("How do I reset my router to factory settings?");
    assert_eq!(v["empty"], true, "{v}");
    assert!(v["receipt"]["relevance"].get("personal").is_none(), "{v}");
    let v = context(&format!("what is my {ABSENT}?"));
    assert_eq!(v["empty"], true, "{v}");
    let (_, out, _) = common::output(&cmd().args(["recall", ABSENT, "--json"]).output().unwrap());
    assert_eq!(json_of(&out)["hits"], json!([]), "{out}");

    // The daemon: context, turn and search.
    let (mut child, url) = common::serve(cmd());
    let token = std::fs::read_to_string(env.data.join("serve.token")).unwrap();
    let client = common::client(&token);
    let post = |path: &str, body: Value| {
        let (client, url) = (client.clone(), format!("{url}{path}"));
        async move { client.post(url).json(&body).send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let r = post("/v1/context", json!({"query": ABSENT, "session_key": "agent:main:main", "format": "json"}))
        .await;
    assert_eq!(r["empty"], true, "{r}");
    let r = post("/v1/turn", json!({"session_key": "agent:main:main", "prompt": ABSENT})).await;
    assert!(!r["prepend_context"].as_str().unwrap().contains("<cairn-context"), "{r}");
    let r = post("/v1/search", json!({"query": ABSENT, "session_key": "agent:main:main"})).await;
    assert_eq!(r["hits"], json!([]), "{r}");
    let _ = child.kill();
    let _ = child.wait();

    // The MCP tools.
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(env!("CARGO_BIN_EXE_cairn")).configure(|c| {
            c.current_dir(env.tmp.path())
                .env_remove("CAIRN_CONFIG")
                .env("CAIRN_EMBED__MODEL", &model)
                .arg("--data-dir")
                .arg(&env.data)
                .arg("mcp");
        }))
        .unwrap();
    let mcp = ().serve(transport).await.unwrap();
    let call = |name: &'static str, args: Value| {
        let Value::Object(map) = args else { unreachable!() };
        mcp.call_tool(CallToolRequestParams::new(name).with_arguments(map))
    };
    let text = |r: rmcp::model::CallToolResult| {
        r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<String>()
    };
    let r = text(call("search", json!({"query": ABSENT, "session_key": "agent:main:main"})).await.unwrap());
    assert_eq!(json_of(&r)["hits"], json!([]), "{r}");
    let r = text(
        call("context", json!({"query": ABSENT, "session_key": "agent:main:main", "format": "json"}))
            .await
            .unwrap(),
    );
    assert_eq!(json_of(&r)["empty"], true, "{r}");
    mcp.cancel().await.unwrap();
}

/// Runs `cairn eval retrieval --workspace` on a labelled set (`tests/data/<set>`); the runs' figures
/// by kind.
fn eval(set: &str, model: Option<&Path>) -> Value {
    eval_questions(set, &Path::new(DATA).join("..").join(set).join("queries.jsonl"), model)
}

/// Runs `cairn eval retrieval --workspace` on a labelled set's workspace with the questions in
/// `queries`; the runs' figures by kind.
fn eval_questions(set: &str, queries: &Path, model: Option<&Path>) -> Value {
    let env = Env::new(&[]);
    let mut cmd = common::cairn_in(env.tmp.path());
    match model {
        Some(m) => cmd.env("CAIRN_EMBED__MODEL", m),
        None => cmd.env("CAIRN_EMBED__PROVIDER", "none"),
    };
    let data = Path::new(DATA).join("..").join(set);
    let out = cmd
        .args(["eval", "retrieval", "--workspace"])
        .arg(data.join("workspace"))
        .arg("--queries")
        .arg(queries)
        .args(["--k", "5,10", "--json"])
        .output()
        .unwrap();
    let (code, out, err) = common::output(&out);
    assert_eq!(code, 0, "{err}");
    json_of(&out)
}

/// A run's figure: `kinds.<kind>.<field>[.<k>]`.
fn figure(runs: &Value, run: &str, kind: &str, field: &str) -> f64 {
    let r = runs.as_array().unwrap().iter().find(|r| r["name"] == run).unwrap();
    let f = &r["kinds"][kind][field];
    f.as_f64().or_else(|| f["5"].as_f64()).unwrap_or_else(|| panic!("{run}.{kind}.{field} in {r}"))
}

/// What a set must show: hit@5 at least, by kind; off-topic empty at least; paraphrases with an
/// empty block at most; with the model, and without it (off-topic empty, hit@5 by kind).
struct Floors {
    set: &'static str,
    hit: &'static [(&'static str, f64)],
    offtopic: f64,
    paraphrase_empty: f64,
    no_model_offtopic: f64,
    no_model_hit: &'static [(&'static str, f64)],
}

/// The figures of BENCHMARKS.md ("Relevance"), with some room: a change that loses relevance fails
/// here. The second to sixth sets were written after the defaults were chosen, as held-out checks.
const FLOORS: &[Floors] = &[
    Floors {
        set: "relevance",
        hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.9), ("multi", 0.9), ("paraphrase", 0.9)],
        offtopic: 0.98,
        paraphrase_empty: 0.02,
        no_model_offtopic: 0.95,
        no_model_hit: &[("lexical", 0.95), ("temporal", 0.9)],
    },
    Floors {
        set: "relevance-2",
        hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.95), ("multi", 0.95), ("paraphrase", 0.8)],
        offtopic: 0.97,
        paraphrase_empty: 0.1,
        no_model_offtopic: 0.97,
        no_model_hit: &[("lexical", 0.85), ("temporal", 0.95)],
    },
    Floors {
        set: "relevance-3",
        hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.95), ("multi", 0.95), ("paraphrase", 0.9)],
        offtopic: 0.95,
        paraphrase_empty: 0.02,
        no_model_offtopic: 0.96,
        no_model_hit: &[("lexical", 0.75), ("temporal", 0.9)],
    },
    Floors {
        set: "relevance-4",
        hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.95), ("multi", 0.95), ("paraphrase", 0.75)],
        offtopic: 0.97,
        paraphrase_empty: 0.2,
        no_model_offtopic: 0.94,
        no_model_hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.92)],
    },
    Floors {
        set: "relevance-5",
        hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.95), ("multi", 0.95), ("paraphrase", 0.73)],
        offtopic: 0.95,
        paraphrase_empty: 0.1,
        no_model_offtopic: 0.95,
        no_model_hit: &[("lexical", 0.95), ("temporal", 0.95)],
    },
    Floors {
        set: "relevance-6",
        hit: &[("lexical", 0.95), ("tag", 0.95), ("temporal", 0.95), ("multi", 0.95), ("paraphrase", 0.83)],
        offtopic: 0.96,
        paraphrase_empty: 0.04,
        no_model_offtopic: 0.95,
        no_model_hit: &[("lexical", 0.85), ("tag", 0.95), ("temporal", 0.95)],
    },
];

#[test]
fn the_labelled_workspaces_keep_their_figures() {
    let Some(model) = model() else { return };
    for f in FLOORS {
        let set = f.set;
        let runs = eval(set, Some(&model));
        let d = |kind, field| figure(&runs, "default", kind, field);
        for &(kind, least) in f.hit {
            assert!(d(kind, "hit") >= least, "{set}: {kind} hit@5 {} < {least}", d(kind, "hit"));
        }
        assert!(d("offtopic", "empty") >= f.offtopic, "{set}: off-topic empty {}", d("offtopic", "empty"));
        assert!(d("offtopic", "tokens") <= 350.0, "{set}: off-topic tokens {}", d("offtopic", "tokens"));
        assert!(
            d("paraphrase", "empty") <= f.paraphrase_empty,
            "{set}: paraphrases with an empty block {}",
            d("paraphrase", "empty")
        );
        let runs = eval(set, None);
        let d = |kind, field| figure(&runs, "default", kind, field);
        let empty = d("offtopic", "empty");
        assert!(empty >= f.no_model_offtopic, "{set} without a model: off-topic empty {empty}");
        for &(kind, least) in f.no_model_hit {
            assert!(
                d(kind, "hit") >= least,
                "{set} without a model: {kind} hit@5 {} < {least}",
                d(kind, "hit")
            );
        }
    }
}

/// A xorshift generator: the same prompts from the same seed, on every machine.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn letter(&mut self, from: &str) -> char {
        from.as_bytes()[self.below(from.len())] as char
    }

    /// A word of made-up syllables ("vubwu", "tefcuzum"), or a keyboard mash ("qfxgl").
    fn word(&mut self, mash: bool) -> String {
        const CONSONANTS: &str = "bcdfghjklmnpqrstvwxyz";
        if mash {
            let len = 4 + self.below(7);
            return (0..len).map(|_| self.letter("qwertyuiopasdfghjklzxcvbnm")).collect();
        }
        let mut w = String::new();
        for _ in 0..2 + self.below(2) {
            w.push(self.letter(CONSONANTS));
            w.push(self.letter("aeiou"));
            if self.below(10) < 4 {
                w.push(self.letter(CONSONANTS));
            }
        }
        w
    }

    fn words(&mut self, mash: bool) -> String {
        let n = 1 + self.below(3);
        (0..n).map(|_| self.word(mash)).collect::<Vec<_>>().join(" ")
    }
}

/// `n` prompts of made-up words drawn from `seed`: syllables of no language, keyboard mashes, and
/// both framed as questions, some of them about the asker ("where did the vubwu go kexa?", "what is my
/// zaxvu?").
fn made_up_prompts(seed: u64, n: usize) -> Vec<String> {
    const FRAMES: &[&str] = &[
        "what is the {} of {}?",
        "tell me about {} and {}",
        "where did the {} go {}?",
        "why is {} so {}?",
        "how many {} in a {}?",
        "what is my {} {}?",
        "who is my {} at the {}?",
        "when did I last {} the {}?",
    ];
    let mut draw = Draw(seed);
    (0..n)
        .map(|i| match i % 3 {
            0 => draw.words(false),
            1 => draw.words(true),
            _ => {
                let frame = FRAMES[draw.below(FRAMES.len())];
                let (a, b) = (draw.word(false), draw.word(false));
                frame.replacen("{}", &a, 1).replacen("{}", &b, 1)
            }
        })
        .collect()
}

/// Made-up words get nothing on either workspace. A small model reads strange letters as near a note
/// full of names from another language (the second workspace's Polish ones): before such a prompt was
/// also measured against made-up prompts, a third of these got a block there.
#[test]
fn made_up_words_get_nothing_on_any_workspace() {
    let Some(model) = model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("made-up.jsonl");
    let lines: Vec<String> = made_up_prompts(0x5eed_cafe, 48)
        .iter()
        .enumerate()
        .map(|(i, q)| json!({"id": format!("made-up-{i}"), "kind": "offtopic", "question": q}).to_string())
        .collect();
    std::fs::write(&queries, lines.join("\n")).unwrap();
    for set in ["relevance", "relevance-2", "relevance-3", "relevance-4", "relevance-5", "relevance-6"] {
        let runs = eval_questions(set, &queries, Some(&model));
        let empty = figure(&runs, "default", "offtopic", "empty");
        assert!(empty >= 0.95, "{set}: made-up prompts with an empty block {empty}");
    }
}

/// The files of the first `n` hits for `query`, through `cairn recall --json`.
fn top(env: &Env, model: &Path, query: &str, n: usize) -> Vec<String> {
    let (code, out, err) = common::output(
        &env.cmd().env("CAIRN_EMBED__MODEL", model).args(["recall", query, "--json"]).output().unwrap(),
    );
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .take(n)
        .filter_map(|h| h["provenance"]["path"].as_str().map(str::to_owned))
        .collect()
}

/// In notes of several lines, a word of the question found in a note about something else does not
/// bury the note that answers it by meaning (both were below the fifth hit before the meaning gate);
/// and a note holding what the question names (an error code, a test's name: words whose meaning the
/// model barely knows) still comes first.
#[test]
fn a_stray_word_loses_to_meaning_and_an_exact_code_still_wins() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    std::fs::write(
        env.ws.join("memory/projects/ci-runbook.md"),
        "# CI runbook\n\n\
         - The nightly build runs on the old Dell in the spare room; logs go to /var/log/builds.\n\
         - Build agent fails with EACCES 0x5e1f when the cache volume is mounted read-only: remount it rw.\n\
         - Flaky test `ledger_rollover_spec` times out under load; rerun once before digging in.\n\
         - Artifacts older than 30 days are pruned every Sunday at 03:00.\n",
    )
    .unwrap();
    let (code, _, err) =
        common::output(&env.cmd().env("CAIRN_EMBED__MODEL", &model).args(["harvest"]).output().unwrap());
    assert_eq!(code, 0, "{err}");
    // "home" is in the home-energy note and "team" in many; the neighbour with the spare key and
    // the database expert are in contact notes that share no word with the questions.
    for (question, answer) in [
        ("Who can let themselves into our home if we are locked out?", "memory/contacts/deb-kowalski.md"),
        ("Who on the team knows the database inside out?", "memory/contacts/jonty-fraser.md"),
    ] {
        let hits = top(&env, &model, question, 5);
        assert!(hits.iter().any(|h| h == answer), "{question}: {hits:?}");
    }
    for code in ["0x5e1f", "EACCES 0x5e1f", "what does EACCES 0x5e1f mean", "ledger_rollover_spec"] {
        assert_eq!(top(&env, &model, code, 1), ["memory/projects/ci-runbook.md"], "{code}");
    }
}

/// A question about one fact of a long note, in words the note does not use: the note as a whole is
/// no nearer the question than general questions are, but its line is far nearer, and that is enough
/// to pass the floor (with `line_lead_margin = 0` the block is empty, as it was before).
#[test]
fn a_question_about_one_line_of_a_long_note_passes_the_floor() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    let question = "Which antibiotic am I allergic to?";
    let context = |margin: &str| {
        context_with(&env, &model, question, &[("CAIRN_RECALL__CALIBRATION__LINE_LEAD_MARGIN", margin)])
    };
    let off = context("0");
    assert_eq!(off["empty"], true, "{off}");
    let on = context("0.2");
    assert_eq!(on["empty"], false, "{on}");
    let rel = &on["receipt"]["relevance"];
    assert!(rel["line"].as_f64().unwrap() > rel["general"].as_f64().unwrap() + 0.2, "{rel}");
    assert!(on["context_block"].as_str().unwrap_or_default().contains("Penicillin"), "{on}");
    // The same lead is not found for a general question.
    let general = context_with(&env, &model, "What is the capital of Mongolia?", &[]);
    assert_eq!(general["empty"], true, "{general}");
}

/// A question about the asker whose nearest line leads the general prompts by less than the ordinary
/// margin (the dentist's note says "Bruxism: recommends a custom mouthguard for overnight wear") passes
/// the floor by the personal margin; at the ordinary margin it got an empty block. Made-up words asked
/// about the asker stay empty.
#[test]
fn a_question_about_the_asker_passes_the_floor_by_a_smaller_lead() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    let question = "What was suggested to stop me grinding my teeth while asleep?";
    let margin = |m: &str| {
        context_with(&env, &model, question, &[("CAIRN_RECALL__CALIBRATION__PERSONAL_LINE_MARGIN", m)])
    };
    let v = margin("0.1");
    assert_eq!(v["empty"], false, "{}", v["receipt"]["relevance"]);
    assert_eq!(v["receipt"]["relevance"]["personal"], true, "{}", v["receipt"]["relevance"]);
    assert!(v["receipt"]["included"].to_string().contains("glen-whitaker.md"), "{v}");
    let old = margin("0.2");
    assert_eq!(old["empty"], true, "{}", old["receipt"]["relevance"]);
    for made_up in ["who is my wededu?", "what is my frublix?", "where did I put my nohen dupuw?"] {
        let v = context_with(&env, &model, made_up, &[]);
        assert_eq!(v["empty"], true, "{made_up}: {}", v["receipt"]["relevance"]);
    }
}

/// A question that asks for a person ranks the person's own note nearest in meaning first (the
/// contact notes were second to fourth before, behind notes that tell of the role's subject), says
/// so in `why`, and changes no relevance: a question about someone in the world still gets nothing.
#[test]
fn a_question_asking_for_a_person_finds_their_own_note_first() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    for (question, answer) in [
        ("Who on the team knows the database inside out?", "memory/contacts/jonty-fraser.md"),
        ("Who can let themselves into our home if we are locked out?", "memory/contacts/deb-kowalski.md"),
        ("Who did we hire as the builder?", "memory/contacts/luis-ortega.md"),
    ] {
        let (code, out, err) = common::output(
            &env.cmd()
                .env("CAIRN_EMBED__MODEL", &model)
                .args(["recall", question, "--json"])
                .output()
                .unwrap(),
        );
        assert_eq!(code, 0, "{err}");
        let first = &json_of(&out)["hits"][0];
        assert_eq!(first["provenance"]["path"], answer, "{question}: {first}");
        assert!(first["why"]["lanes"].to_string().contains("\"person\""), "{question}: {first}");
    }
    for world in ["Who painted the Mona Lisa?", "Who is the current Prime Minister of Canada?"] {
        let v = context_with(&env, &model, world, &[]);
        assert_eq!(v["empty"], true, "{world}: {}", v["receipt"]["relevance"]);
    }
}

/// A general question about a subject the notes cover (a city the person visited, a tool they run)
/// is near the notes, but reads like a general question, not like one about one's own notes: with
/// the query's form counted it gets an empty block (without it, a block), and a paraphrased question
/// about the person's own records still gets its note.
#[test]
fn a_general_question_near_the_notes_gets_nothing_by_its_form() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    // The forms that ask of the world (`world.rs`, "what does a … do?") are off on both sides: this is
    // the query's form as the model reads it.
    let context = |question: &str, form: bool| {
        let world = ("CAIRN_RECALL__WORLD_NEEDS_WORDS", "false");
        let with: &[(&str, &str)] = &[world];
        let without: &[(&str, &str)] = &[
            ("CAIRN_RECALL__CALIBRATION__FORM_WEIGHT", "0"),
            ("CAIRN_RECALL__CALIBRATION__AFFINITY_ZERO", "-0.135"),
            ("CAIRN_RECALL__CALIBRATION__AFFINITY_ONE", "0.065"),
            world,
        ];
        context_with(&env, &model, question, if form { with } else { without })
    };
    for question in [
        "What does a kubernetes liveness probe do?",
        "What caused the 1755 Lisbon earthquake, and how many people died?",
    ] {
        let with = context(question, true);
        assert_eq!(with["empty"], true, "{question}: {}", with["receipt"]["relevance"]);
        let rel = &with["receipt"]["relevance"];
        assert!(rel["questions"].as_f64().is_some(), "{rel}");
        assert_eq!(context(question, false)["empty"], false, "{question}: a block without the form");
    }
    let own = context("Which painkiller was prescribed for the pup's sore leg?", true);
    assert_eq!(own["empty"], false, "{}", own["receipt"]["relevance"]);
    assert!(own["context_block"].as_str().unwrap_or_default().contains("carprofen"), "{own}");
}

/// A prompt that asks of the world in a general form ("how does a heat pump's efficiency change …",
/// "draft a polite email …") is near the notes of a person who has a heat pump or writes emails, yet
/// gets an empty block: only its words could make it relevant, and memory lacks most of them (with
/// `recall.world_needs_words` off, its meaning gives it a block). A question about the asker's own
/// records in the same words still gets its note.
#[test]
fn a_prompt_asking_of_the_world_is_relevant_by_its_words_alone() {
    let Some(model) = model() else { return };
    let env = harvested(&model);
    let context = |question: &str, world: bool| {
        context_with(
            &env,
            &model,
            question,
            &[("CAIRN_RECALL__WORLD_NEEDS_WORDS", if world { "true" } else { "false" })],
        )
    };
    for question in [
        "How does a heat pump's efficiency change as the outside temperature drops?",
        "Why does sourdough go stale more slowly than ordinary yeasted bread?",
        "What's the relationship between Kafka consumer groups and partitions?",
        "Draft a polite email turning down a sales demo from a software vendor.",
    ] {
        let with = context(question, true);
        assert_eq!(with["empty"], true, "{question}: {}", with["receipt"]["relevance"]);
        assert_eq!(
            with["receipt"]["relevance"]["world"], true,
            "{question}: {}",
            with["receipt"]["relevance"]
        );
        assert_eq!(context(question, false)["empty"], false, "{question}: a block by its meaning");
    }
    let own = context("Why did we choose a heat pump?", true);
    assert_eq!(own["empty"], false, "{}", own["receipt"]["relevance"]);
    assert!(own["receipt"]["relevance"].get("world").is_none(), "{}", own["receipt"]["relevance"]);
}
