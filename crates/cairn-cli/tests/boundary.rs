//! The one wiring: the `cairn` command serves through `cairn-engine` (and `cairn-serve`, the daemon and
//! MCP adapters over it). Only the diagnostic commands listed in `docs/ARCHITECTURE.md` reach a stage
//! crate themselves; this test fails when any other code of the command names one, or when the
//! command's manifest depends on a stage it should reach through the engine.

use std::path::Path;

/// Stage crates (and the tools beside them), as Rust paths.
const STAGES: &[&str] = &[
    "cairn_assemble",
    "cairn_boundary",
    "cairn_embed",
    "cairn_graph",
    "cairn_ingest",
    "cairn_recall",
    "cairn_remote",
    "cairn_route",
    "cairn_store",
    "cairn_tokens",
    "cairn_vector",
];

/// (file under `src/`, stage) pairs allowed: the diagnostic commands of ARCHITECTURE.md.
const ALLOWED: &[(&str, &str)] = &[
    // `cairn recall` prints recall's own explanation types; `cairn eval retrieval` drives the eval
    // harness (and its embedder) over a labelled corpus.
    ("commands/recall.rs", "cairn_recall"),
    ("commands/recall.rs", "cairn_embed"),
    // `cairn eval retrieval --workspace`: each run's recall settings, and the user's embedder lent to
    // the engine over a temporary data dir.
    ("commands/eval.rs", "cairn_recall"),
    ("commands/eval.rs", "cairn_embed"),
    // `cairn intent-test`, `rules`, `eval intents`, `bootstrap`: the router and its config, dry runs.
    ("commands/route.rs", "cairn_route"),
    ("commands/route.rs", "cairn_tokens"),
    // `cairn graph diff`: two export files compared, no store.
    ("commands/graph.rs", "cairn_graph"),
    // `cairn models`: install and list embedding models.
    ("commands/models.rs", "cairn_embed"),
    // `cairn boundary audit`: a repository's files against the lists and a private overlay, no store.
    ("commands/boundary.rs", "cairn_boundary"),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_command_reaches_stages_only_through_the_engine() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut offences = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for stage in STAGES {
                let named = line.match_indices(stage).any(|(i, _)| {
                    let after = &line[i + stage.len()..];
                    let before = line[..i].chars().last();
                    (after.starts_with("::") || after.starts_with(" ") || after.starts_with(';'))
                        && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if named && !ALLOWED.contains(&(rel.as_str(), stage)) {
                    offences.push(format!("src/{rel}:{}: {stage}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "stage crates named outside the diagnostic commands:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_manifest_depends_on_no_stage_it_reaches_through_the_engine() {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deps = manifest.split("[dependencies]").nth(1).unwrap().split("\n[").next().unwrap();
    let allowed_stages: Vec<String> = ALLOWED.iter().map(|(_, s)| s.replace('_', "-")).collect();
    let mut offences = Vec::new();
    for line in deps.lines() {
        let name = line.split(['.', '=', ' ']).next().unwrap_or_default().trim();
        let as_path = name.replace('-', "_");
        if STAGES.contains(&as_path.as_str()) && !allowed_stages.iter().any(|a| a == name) {
            offences.push(name.to_owned());
        }
    }
    assert!(offences.is_empty(), "cairn-cli depends directly on stage crates: {offences:?}");
}
