//! Detection + composition for 200 rules × 50 keywords on a 2,000-character prompt.
//!
//! `cargo bench -p cairn-route --bench routing`

use std::fmt::Write;
use std::sync::OnceLock;

use cairn_route::{EntitySummary, Router, SessionState, TurnInput};

fn main() {
    divan::main();
    // Statics are never dropped: remove the generated config explicitly.
    if let Some(f) = FIXTURE.get() {
        let _ = std::fs::remove_dir_all(f._dir.path());
    }
}

const RULES: usize = 200;
const KEYWORDS: usize = 50;

/// A pronounceable synthetic word for (rule, keyword).
fn word(r: usize, k: usize) -> String {
    const SYL: [&str; 16] =
        ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "bi", "do", "fe", "gu", "ha"];
    let n = r * KEYWORDS + k;
    format!("{}{}{}{}", SYL[n % 16], SYL[(n / 16) % 16], SYL[(n / 256) % 16], SYL[(n / 4096) % 16])
}

struct Fixture {
    _dir: tempfile::TempDir,
    router: Router,
    prompt_hits: String,
    prompt_miss: String,
    entities: Vec<EntitySummary>,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

fn fixture() -> &'static Fixture {
    FIXTURE.get_or_init(build)
}

fn build() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join("packs")).unwrap();
    let mut rules = String::from("schema_version: 1\nrules:\n");
    let mut profiles = String::from("schema_version: 1\nprofiles:\n");
    let mut registry = String::from("schema_version: 1\npacks:\n");
    let mut composition = String::from("schema_version: 1\nrules:\n");
    for r in 0..RULES {
        let kws: Vec<String> = (0..KEYWORDS)
            .map(|k| if k % 5 == 0 { format!("{} {}", word(r, k), word(r, k + 1)) } else { word(r, k) })
            .collect();
        let _ = write!(
            rules,
            "  - id: r{r}\n    consumer_profile: p{r}\n    pack_type: t{r}\n    scope: public\n    keywords: [{}]\n    entity_boosts:\n      - summary_pattern: '\\bent{r}\\b'\n        fact_pattern: '\\bfact{r}\\b'\n        weight: 3.0\n",
            kws.join(", ")
        );
        let _ = writeln!(profiles, "  - id: p{r}\n    primary_pack: k{r}");
        let _ = writeln!(
            registry,
            "  - id: k{r}\n    pack_type: t{r}\n    path: packs/k{r}.pack.yaml\n    scope: public"
        );
        let _ = writeln!(
            composition,
            "  - primary_intent: r{r}\n    inject_additional:\n      - pack_type: t{}\n        required: false\n      - pack_type: t{}\n        required: true",
            (r + 1) % RULES,
            (r + 2) % RULES
        );
        std::fs::write(
            p.join(format!("packs/k{r}.pack.yaml")),
            format!(
                "name: k{r}\nworkflow_id: k{r}\ndescription: Pack {r}.\ndomain_context: |\n  {}\nsteps:\n  - id: one\n  - id: two\n",
                "Context sentence for this pack. ".repeat(10)
            ),
        )
        .unwrap();
    }
    std::fs::write(p.join("intent_rules.yaml"), rules).unwrap();
    std::fs::write(p.join("consumer_profiles.yaml"), profiles).unwrap();
    std::fs::write(p.join("pack_registry.yaml"), registry).unwrap();
    std::fs::write(p.join("pack_composition_rules.yaml"), composition).unwrap();
    let router = Router::load(p).unwrap();

    // ~2,000 characters of filler with 6 keyword hits: 4 for r17, 2 for r42.
    let filler = "please look into the situation and tell me what you think about it before tomorrow ";
    let mut prompt_hits = String::new();
    for (i, w) in
        [word(17, 1), word(42, 3), word(17, 2), word(17, 3), word(42, 4), word(17, 4)].iter().enumerate()
    {
        prompt_hits.push_str(&filler[..filler.len() - (i % 3) * 7]);
        prompt_hits.push(' ');
        prompt_hits.push_str(w);
        prompt_hits.push(' ');
    }
    while prompt_hits.len() < 2000 {
        prompt_hits.push_str(filler);
    }
    prompt_hits.truncate(2000);
    let mut prompt_miss = filler.repeat(2000 / filler.len() + 1);
    prompt_miss.truncate(2000);
    let entities = (0..10)
        .map(|i| EntitySummary {
            summary: format!(
                "Entity number {i} is mentioned in several notes; see ent{}",
                if i == 3 { 42 } else { 900 + i }
            ),
            facts: vec![format!("fact about thing {i}"), "another fact".into()],
        })
        .collect();
    Fixture { _dir: dir, router, prompt_hits, prompt_miss, entities }
}

#[divan::bench]
fn decide_hits(bencher: divan::Bencher) {
    let f = fixture();
    assert_eq!(f.prompt_hits.len(), 2000);
    let d = f
        .router
        .decide(&TurnInput::new(&f.prompt_hits).session_key("agent:main:main"), &mut SessionState::default());
    assert_eq!(d.intent.as_deref(), Some("r17"));
    assert_eq!(d.composed.len(), 2);
    bencher.bench_local(|| {
        let mut state = SessionState::default();
        f.router.decide(
            &TurnInput::new(divan::black_box(&f.prompt_hits)).session_key("agent:main:main"),
            &mut state,
        )
    });
}

#[divan::bench]
fn decide_hits_with_entities(bencher: divan::Bencher) {
    let f = fixture();
    let input = TurnInput::new(&f.prompt_hits).session_key("agent:main:main").entities(&f.entities);
    let d = f.router.decide(&input, &mut SessionState::default());
    assert_eq!(d.intent.as_deref(), Some("r42"), "{:?}", d.trace);
    bencher.bench_local(|| f.router.decide(divan::black_box(&input), &mut SessionState::default()));
}

#[divan::bench]
fn decide_no_match(bencher: divan::Bencher) {
    let f = fixture();
    let d = f
        .router
        .decide(&TurnInput::new(&f.prompt_miss).session_key("agent:main:main"), &mut SessionState::default());
    assert!(d.pack_block.is_none());
    bencher.bench_local(|| {
        f.router.decide(
            &TurnInput::new(divan::black_box(&f.prompt_miss)).session_key("agent:main:main"),
            &mut SessionState::default(),
        )
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn load_config() -> Router {
    Router::load(fixture().router.config().dir()).unwrap()
}
