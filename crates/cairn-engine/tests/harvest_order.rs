//! The same files give the same graph and the same recall whatever the harvest history: a workspace
//! harvested folder by folder (the graph synced after each run, as a daemon does) exports the
//! `graph.json` one harvest of the same files gives, and its index holds the same tags, also after a
//! tag leaves the vocabulary and after a note brings a new one.

use std::path::{Path, PathBuf};

use cairn_core::{NoProgress, Scope};
use cairn_engine::{Engine, EngineConfig, HarvestRequest, IngestNote, RecallQuery};

/// `memory/b/3.md` (public) tags `heron`; `memory/b/sub/4.md` (private) tags `gull`; the other notes
/// only mention them.
const FILES: &[(&str, &str)] = &[
    ("memory/a/1.md", "# Field notes\n\nA heron and a gull on the pier; a wren nearby.\n"),
    ("memory/b/3.md", "---\ntags: [heron]\naudience: public\n---\n# Herons\n\nWading birds.\n"),
    ("memory/b/sub/4.md", "---\ntags: [gull]\n---\n# Gulls\n\nLoud.\n"),
    ("memory/c/5.md", "---\naudience: public\n---\n# Pier walk\n\nSaw a heron, then a gull, then a wren.\n"),
];

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    engine: Engine,
}

impl Ws {
    fn new(files: &[(&str, &str)]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        for (rel, text) in files {
            write(&root, rel, text);
        }
        let mut cfg = EngineConfig::new(tmp.path().join("data"));
        cfg.embed.provider = cairn_embed::EmbedProvider::None;
        let engine = Engine::open(cfg).unwrap();
        Ws { _tmp: tmp, root, engine }
    }

    /// Harvests `paths` (everything when empty), then catches the derived parts up as a daemon does
    /// every second: the graph synced incrementally from the ingest log and reloaded.
    fn harvest(&self, paths: &[&str]) {
        let req = HarvestRequest {
            root: self.root.clone(),
            paths: paths.iter().map(PathBuf::from).collect(),
            dry_run: false,
            force: false,
        };
        self.engine.harvest(&req, &NoProgress, &NoProgress).unwrap();
        self.refresh();
    }

    fn refresh(&self) {
        let r = self.engine.refresh_derived();
        assert!(r.errors.is_empty() && r.graph_reloaded, "{r:?}");
    }

    fn export(&self) -> String {
        self.engine.graph_export(&Scope::owner(None)).unwrap().to_json()
    }

    /// The tags recall's index holds for `rel`'s item.
    fn indexed_tags(&self, rel: &str, query: &str) -> Vec<String> {
        let q = RecallQuery::new(query, Scope::owner(None), 20, 1_800_000_000_000);
        let r = self.engine.recall(&q).unwrap();
        let id = format!("memory-file:{rel}");
        let hit = r.hits.iter().find(|h| h.item_id == id).unwrap_or_else(|| panic!("no hit for {id}"));
        hit.tags.clone()
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn tagged(export: &str, item: &str, tag: &str) -> bool {
    let e: serde_json::Value = serde_json::from_str(export).unwrap();
    e["edges"].as_array().unwrap().iter().any(|x| {
        x["type"] == "tagged"
            && x["src"] == format!("item:memory-file:{item}")
            && x["dst"] == format!("tag:default/{tag}")
    })
}

#[test]
fn folder_by_folder_exports_the_graph_one_harvest_gives() {
    let one = Ws::new(FILES);
    one.harvest(&[]);
    let by_folder = Ws::new(FILES);
    for folder in ["memory/a", "memory/c", "memory/b"] {
        by_folder.harvest(&[folder]);
    }
    let export = by_folder.export();
    assert_eq!(export, one.export());
    assert!(tagged(&export, "memory/a/1.md", "heron"), "{export}");
    assert!(tagged(&export, "memory/a/1.md", "gull"), "{export}");
    assert!(tagged(&export, "memory/c/5.md", "heron"), "{export}");
    assert!(!tagged(&export, "memory/c/5.md", "gull"), "a private note's tag stays off a public one");
    assert_eq!(by_folder.indexed_tags("memory/a/1.md", "heron pier"), ["gull", "heron"]);

    // `heron` leaves the vocabulary: its only note now tags `wren`.
    let retagged = "---\ntags: [wren]\naudience: public\n---\n# Herons\n\nWading birds.\n";
    write(&by_folder.root, "memory/b/3.md", retagged);
    by_folder.harvest(&["memory/b"]);
    let mut files = FILES.to_vec();
    files[1].1 = retagged;
    let again = Ws::new(&files);
    again.harvest(&[]);
    let export = by_folder.export();
    assert_eq!(export, again.export());
    assert!(!tagged(&export, "memory/a/1.md", "heron") && tagged(&export, "memory/a/1.md", "wren"));
    assert_eq!(by_folder.indexed_tags("memory/a/1.md", "heron pier"), ["gull", "wren"]);
}

#[test]
fn a_note_with_a_new_tag_tags_the_files_that_mention_it() {
    let ws = Ws::new(FILES);
    ws.harvest(&[]);
    assert_eq!(ws.indexed_tags("memory/a/1.md", "heron pier"), ["gull", "heron"]);
    let note = IngestNote {
        text: "Piers are where the birds gather.".into(),
        tags: vec!["pier".into()],
        ..Default::default()
    };
    ws.engine.ingest(&note).unwrap();
    ws.refresh();
    assert_eq!(ws.indexed_tags("memory/a/1.md", "heron pier"), ["gull", "heron", "pier"]);
    assert!(tagged(&ws.export(), "memory/a/1.md", "pier"));
}
