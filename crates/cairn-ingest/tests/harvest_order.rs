//! The same files give the same store whatever the harvest history: a workspace harvested in several
//! runs (folders one at a time, files appearing, changing their tags and going away between runs)
//! ends with the items, tags, audiences and dates one harvest of its final files gives. Inferred tags
//! depend on the tag vocabulary (every explicit tag in the store), so a run that changes it must
//! re-infer the stored files it does not read again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use cairn_core::Audience;
use cairn_ingest::{HarvestReport, HarvestRequest, HarvestSettings, NoProgress, Progress, harvest};
use cairn_store::{SqliteStore, Store};
use proptest::prelude::*;

const PATHS: &[&str] = &[
    "MEMORY.md",
    "memory/a/1.md",
    "memory/a/2.md",
    "memory/b/3.md",
    "memory/b/sub/4.md",
    "memory/c/5.md",
    "memory/c/2026-03-12.md",
];

/// What a path argument may name: the scopes that together cover every path.
const SCOPES: &[&str] = &["MEMORY.md", "memory/a", "memory/b", "memory/c"];

/// Tags, and how a text may mention them (a hyphenated tag also matches with a space).
const TAGS: &[(&str, &str)] = &[
    ("kestrel", "Kestrel"),
    ("heron", "heron"),
    ("osprey-plan", "osprey plan"),
    ("wren", "wren"),
    ("gull", "gull"),
];

/// One version of a file: its explicit tags, audience, the tags its text mentions, and whether its
/// frontmatter has a date.
#[derive(Debug, Clone, PartialEq)]
struct Note {
    tags: Vec<usize>,
    public: bool,
    mentions: Vec<usize>,
    dated: bool,
}

impl Note {
    fn render(&self, rel: &str) -> String {
        let mut fm = Vec::new();
        if !self.tags.is_empty() {
            let tags: Vec<&str> = self.tags.iter().map(|&t| TAGS[t].0).collect();
            fm.push(format!("tags: [{}]", tags.join(", ")));
        }
        if self.public {
            fm.push("audience: public".into());
        }
        if self.dated {
            fm.push("date: 2025-06-01".into());
        }
        let head = if fm.is_empty() { String::new() } else { format!("---\n{}\n---\n", fm.join("\n")) };
        let words: Vec<&str> = self.mentions.iter().map(|&t| TAGS[t].1).collect();
        format!("{head}# Note {rel}\n\nAbout {} and the weather.\n", words.join(", "))
    }
}

fn note() -> impl Strategy<Value = Note> {
    let subset = || prop::collection::btree_set(0..TAGS.len(), 0..3).prop_map(|s| s.into_iter().collect());
    (subset(), any::<bool>(), subset(), prop::bool::weighted(0.2))
        .prop_map(|(tags, public, mentions, dated)| Note { tags, public, mentions, dated })
}

/// A workspace: each path holds a note or nothing.
type Files = Vec<Option<Note>>;

fn files() -> impl Strategy<Value = Files> {
    prop::collection::vec(prop::option::weighted(0.75, note()), PATHS.len())
}

/// An earlier run: what the workspace held then, and what the run harvested (`None`: everything).
#[derive(Debug, Clone)]
struct Run {
    files: Files,
    scopes: Option<Vec<usize>>,
}

fn run() -> impl Strategy<Value = Run> {
    let scopes = prop::option::weighted(0.6, prop::collection::btree_set(0..SCOPES.len(), 1..3));
    (files(), scopes)
        .prop_map(|(files, scopes)| Run { files, scopes: scopes.map(|s| s.into_iter().collect()) })
}

/// A stored item as harvest made it: id, tags, explicit tags, audience, date, text.
type Stored = (String, Vec<String>, Vec<String>, Audience, i64, String);

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    store: SqliteStore,
    /// Modification times only grow: a file rewritten with the same size is never taken as unchanged.
    clock: u64,
    /// Files per transaction: small batches take the two-pass path of big runs.
    batch_size: usize,
}

impl Ws {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("w");
        std::fs::create_dir_all(&root).unwrap();
        let store = SqliteStore::open(&tmp.path().join("s.sqlite")).unwrap();
        Ws { _tmp: tmp, root, store, clock: 1_600_000_000, batch_size: 512 }
    }

    /// Makes the workspace hold `files` (writing only what differs).
    fn lay_out(&mut self, files: &Files, on_disk: &mut BTreeMap<usize, Note>) {
        for (i, f) in files.iter().enumerate() {
            let p = self.root.join(PATHS[i]);
            match f {
                Some(n) if on_disk.get(&i) != Some(n) => {
                    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                    std::fs::write(&p, n.render(PATHS[i])).unwrap();
                    self.clock += 10;
                    let file = std::fs::File::options().write(true).open(&p).unwrap();
                    file.set_modified(UNIX_EPOCH + Duration::from_secs(self.clock)).unwrap();
                    on_disk.insert(i, n.clone());
                }
                Some(_) => {}
                None => {
                    if on_disk.remove(&i).is_some() {
                        std::fs::remove_file(&p).unwrap();
                    }
                }
            }
        }
    }

    fn harvest(&mut self, scopes: &[&str]) {
        self.harvest_with(scopes, &NoProgress);
    }

    fn harvest_with(&mut self, scopes: &[&str], progress: &dyn Progress) -> HarvestReport {
        let opts =
            HarvestSettings { allow_mass_delete: true, batch_size: self.batch_size, ..Default::default() };
        let req = HarvestRequest {
            root: self.root.clone(),
            paths: scopes.iter().map(PathBuf::from).collect(),
            ..Default::default()
        };
        harvest(&mut self.store, &opts, &req, progress).unwrap()
    }

    /// Writes `text` at `rel` with a new modification time.
    fn put(&mut self, rel: &str, text: &str) {
        self.clock += 10;
        put(&self.root, rel, text, self.clock);
    }

    /// Every stored item as harvest made it: id, tags (and which are explicit), audience, date, text.
    fn items(&self) -> Vec<Stored> {
        let mut out = Vec::new();
        self.store
            .for_each_item(&mut |item, _| {
                let explicit = self.store.explicit_tags(&item.id)?;
                out.push((item.id, item.tags, explicit, item.audience, item.created_at, item.text));
                Ok(())
            })
            .unwrap();
        out
    }
}

/// The store after `runs`, then the final files harvested scope by scope in `order` (or all at once).
fn history(runs: &[Run], last: &Files, order: Option<&[usize]>, batch_size: usize) -> Ws {
    let mut ws = Ws { batch_size, ..Ws::new() };
    let mut on_disk = BTreeMap::new();
    for r in runs {
        ws.lay_out(&r.files, &mut on_disk);
        let scopes: Vec<&str> = r.scopes.iter().flatten().map(|&s| SCOPES[s]).collect();
        ws.harvest(&scopes);
    }
    ws.lay_out(last, &mut on_disk);
    match order {
        Some(order) => {
            for &s in order {
                ws.harvest(&[SCOPES[s]]);
            }
        }
        None => ws.harvest(&[]),
    }
    ws
}

fn put(root: &Path, rel: &str, text: &str, clock: u64) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    let file = std::fs::File::options().write(true).open(&p).unwrap();
    file.set_modified(UNIX_EPOCH + Duration::from_secs(clock)).unwrap();
}

/// Runs `between` when a big run's second pass starts: after the files were probed, before they are
/// read again and written.
struct Between<F: Fn() + Sync> {
    starts: AtomicUsize,
    between: F,
}

impl<F: Fn() + Sync> Progress for Between<F> {
    fn start(&self, _: u64) {
        if self.starts.fetch_add(1, Ordering::SeqCst) == 1 {
            (self.between)();
        }
    }
}

/// A store holding just what is on disk in `ws`, harvested once.
fn fresh(ws: &Ws) -> Ws {
    let f = Ws::new();
    std::fs::remove_dir_all(&f.root).unwrap();
    copy_dir(&ws.root, &f.root);
    let mut f = f;
    f.harvest(&[]);
    f
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn files_changing_between_the_two_reads_of_a_big_run() {
    const HERON: &str = "---\ntags: [heron]\n---\n# Herons\n\nWading birds.\n";
    const NOTES: &str = "# Field notes\n\nA heron and a wren on the pier.\n";
    // A tag file re-tagged again after the probe: the vocabulary is not the one predicted.
    let mut ws = Ws { batch_size: 1, ..Ws::new() };
    ws.put("memory/a/1.md", NOTES);
    ws.put("memory/b/3.md", HERON);
    ws.harvest(&[]);
    ws.put("memory/b/3.md", "---\ntags: [gull]\n---\n# Herons\n\nWading birds.\n");
    ws.put("memory/c/5.md", "# Pier\n\nA gull.\n");
    let (root, clock) = (ws.root.clone(), ws.clock + 10);
    let again = "---\ntags: [wren]\n---\n# Herons\n\nWading birds, again.\n";
    let hook = Between { starts: AtomicUsize::new(0), between: || put(&root, "memory/b/3.md", again, clock) };
    let r = ws.harvest_with(&[], &hook);
    assert_eq!(hook.starts.load(Ordering::SeqCst), 2, "a two-pass run");
    assert!(r.retagged > 0, "{r:#?}");
    assert_eq!(ws.items(), fresh(&ws).items());

    // A changed note put back as it was before its second read: it keeps its stored version, whose tags
    // were inferred before this run's new tag.
    let mut ws = Ws { batch_size: 1, ..Ws::new() };
    ws.put("memory/a/1.md", NOTES);
    ws.put("memory/b/3.md", HERON);
    ws.harvest(&[]);
    ws.put("memory/a/1.md", "# Field notes\n\nEdited.\n");
    ws.put("memory/b/4.md", "---\ntags: [wren]\n---\n# Wrens\n");
    let (root, clock) = (ws.root.clone(), ws.clock + 10);
    let hook = Between { starts: AtomicUsize::new(0), between: || put(&root, "memory/a/1.md", NOTES, clock) };
    let r = ws.harvest_with(&[], &hook);
    assert_eq!((r.updated, r.new, r.retagged), (1, 1, 1), "{r:#?}");
    assert_eq!(ws.items(), fresh(&ws).items());
    let tags = ws.store.get_item("memory-file:memory/a/1.md").unwrap().unwrap().tags;
    assert_eq!(tags, ["heron", "wren"]);
}

fn once(last: &Files) -> Ws {
    history(&[], last, None, 512)
}

fn sample(tags: &[usize], public: bool, mentions: &[usize]) -> Option<Note> {
    Some(Note { tags: tags.to_vec(), public, mentions: mentions.to_vec(), dated: false })
}

#[test]
fn a_folder_harvested_later_tags_the_notes_harvested_before() {
    // `memory/a/1.md` names `heron`, which only `memory/b/3.md` tags; `memory/c/5.md`, public, names
    // `gull`, which only a private note tags.
    let mut last: Files = vec![None; PATHS.len()];
    last[1] = sample(&[], false, &[1, 3]);
    last[3] = sample(&[1], true, &[]);
    last[4] = sample(&[4], false, &[]);
    last[5] = sample(&[], true, &[1, 4]);
    let one = once(&last);
    let by_folder = history(&[], &last, Some(&[1, 2, 3, 0]), 512);
    assert_eq!(by_folder.items(), one.items());
    let tags = |ws: &Ws, rel: &str| ws.store.get_item(&format!("memory-file:{rel}")).unwrap().unwrap().tags;
    assert_eq!(tags(&by_folder, "memory/a/1.md"), ["heron"]);
    assert_eq!(tags(&by_folder, "memory/c/5.md"), ["heron"], "a private note's tag stays off a public one");

    // The tag leaves the vocabulary when its only note is re-tagged, and leaves the notes it was
    // inferred on with it, wherever they are.
    let mut retagged = last.clone();
    retagged[3] = sample(&[3], true, &[]);
    let mut ws = by_folder;
    let mut on_disk = BTreeMap::new();
    for (i, f) in last.iter().enumerate() {
        if let Some(n) = f {
            on_disk.insert(i, n.clone());
        }
    }
    ws.lay_out(&retagged, &mut on_disk);
    ws.harvest(&["memory/b"]);
    assert_eq!(tags(&ws, "memory/a/1.md"), ["wren"]);
    assert_eq!(ws.items(), once(&retagged).items());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_harvest_history_ends_like_one_harvest(
        runs in prop::collection::vec(run(), 0..3),
        last in files(),
        order in prop::option::of(Just((0..SCOPES.len()).collect::<Vec<_>>()).prop_shuffle()),
        batch_size in prop_oneof![Just(1usize), Just(2), Just(512)],
    ) {
        let one = once(&last);
        let many = history(&runs, &last, order.as_deref(), batch_size);
        prop_assert_eq!(many.items(), one.items());
        prop_assert_eq!(
            many.store.file_states().unwrap().into_keys().collect::<Vec<_>>(),
            one.store.file_states().unwrap().into_keys().collect::<Vec<_>>()
        );
    }
}
