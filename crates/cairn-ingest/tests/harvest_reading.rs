//! Reading memory files as they are found: an item's date comes only from what the file says (never
//! its modification time), frontmatter that is never closed leaves the note readable, and files in a
//! legacy encoding or UTF-16 are decoded instead of refused. Each with the warning that says so.

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use cairn_core::{Item, UNDATED, content_hash};
use cairn_ingest::{FileProblem, HarvestReport, HarvestRequest, HarvestSettings, NoProgress, harvest};
use cairn_store::{SqliteStore, Store};

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    store: SqliteStore,
}

impl Ws {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("w");
        std::fs::create_dir_all(root.join("memory")).unwrap();
        let store = SqliteStore::open(&tmp.path().join("s.sqlite")).unwrap();
        Ws { _tmp: tmp, root, store }
    }

    /// Writes `rel` with a modification time years away from any date in these tests.
    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(UNIX_EPOCH + Duration::from_secs(1_500_000_000)).unwrap();
    }

    fn harvest(&mut self) -> HarvestReport {
        let req = HarvestRequest { root: self.root.clone(), ..Default::default() };
        harvest(&mut self.store, &HarvestSettings::default(), &req, &NoProgress).unwrap()
    }

    fn item(&self, rel: &str) -> Item {
        self.store
            .get_item(&format!("memory-file:{rel}"))
            .unwrap()
            .unwrap_or_else(|| panic!("`{rel}` is not stored"))
    }
}

fn day(date: &str) -> i64 {
    cairn_ingest::harvest::parse_date(date).unwrap()
}

fn warnings_of<'a>(r: &'a HarvestReport, rel: &str) -> Vec<&'a FileProblem> {
    r.warnings.iter().filter(|w| w.path == rel).collect()
}

#[test]
fn dates_come_only_from_what_the_file_says() {
    let mut ws = Ws::new();
    ws.write("memory/undated.md", "# Undated\n\nNo date anywhere.\n");
    ws.write("memory/2026-03-12-empty.md", "# Named\n\nThe name starts with a date.\n");
    ws.write("memory/journal/2026/03/14.md", "# Journal\n\nA day in a year/month folder.\n");
    ws.write("memory/daily/2026-03/15.md", "# Daily\n\nA day in a year-month folder.\n");
    ws.write("memory/2026-03-16/notes.md", "# Notes\n\nA dated folder.\n");
    ws.write("memory/2026-03-17.md", "---\ndate: 2025-12-24\n---\n# Frontmatter wins\n");
    ws.write("memory/2026-03-18.md", "---\ntitle: Bad date\ndate: someday\n---\nThe name's date is used.\n");
    ws.write("memory/bad-date.md", "---\ntitle: Bad date, no other\ndate: someday\n---\nUndated.\n");
    let r = ws.harvest();
    assert_eq!((r.new, r.failed), (8, 0), "{r:#?}");
    assert_eq!(ws.item("memory/undated.md").created_at, UNDATED, "never the modification time");
    assert_eq!(ws.item("memory/2026-03-12-empty.md").created_at, day("2026-03-12"));
    assert_eq!(ws.item("memory/journal/2026/03/14.md").created_at, day("2026-03-14"));
    assert_eq!(ws.item("memory/daily/2026-03/15.md").created_at, day("2026-03-15"));
    assert_eq!(ws.item("memory/2026-03-16/notes.md").created_at, day("2026-03-16"));
    assert_eq!(ws.item("memory/2026-03-17.md").created_at, day("2025-12-24"));
    assert_eq!(ws.item("memory/2026-03-18.md").created_at, day("2026-03-18"));
    assert_eq!(ws.item("memory/bad-date.md").created_at, UNDATED);
    for rel in ["memory/2026-03-18.md", "memory/bad-date.md"] {
        let w = warnings_of(&r, rel);
        assert_eq!(w.len(), 1, "{:#?}", r.warnings);
        assert_eq!(w[0].line, Some(3), "{w:?}");
        assert!(w[0].reason.contains("`someday` is not a date"), "{w:?}");
        assert!(!w[0].reason.contains("modification time"), "{w:?}");
    }
}

#[test]
fn unterminated_frontmatter_is_indexed_as_text() {
    let mut ws = Ws::new();
    ws.write("memory/open.md", "---\ntitle: never closed\n\nThe kestrel note itself.\n");
    let r = ws.harvest();
    assert_eq!((r.new, r.failed), (1, 0), "{r:#?}");
    let item = ws.item("memory/open.md");
    assert_eq!(item.text, "title: never closed\n\nThe kestrel note itself.");
    assert_eq!(item.title, "open", "no frontmatter field is read");
    let w = warnings_of(&r, "memory/open.md");
    assert_eq!(w.len(), 1, "{:#?}", r.warnings);
    assert_eq!(
        w[0].to_string(),
        "memory/open.md:1: frontmatter opened at line 1 is never closed; indexed as text"
    );
    let chunks = ws.store.chunks(&item.id).unwrap();
    ws.write("memory/rule.md", "---\n\n");
    let r = ws.harvest();
    assert_eq!(r.problems[0].to_string(), "memory/rule.md: empty file (a `---` line and nothing else)");
    assert!(matches!(chunks[0].provenance, cairn_core::Provenance::File { line_start: 2, .. }), "{chunks:?}");
}

#[test]
fn legacy_encodings_and_utf16_are_decoded_with_a_warning() {
    let mut ws = Ws::new();
    let latin1: &[u8] = b"# Caf\xe9\n\nMet caf\xe9 Zo\xeb M\xfcller at the caf\xe9 on the corner.\n";
    ws.write("memory/latin1.md", latin1);
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend("# Notes\n\ncafé Zoë Müller\n".encode_utf16().flat_map(u16::to_le_bytes));
    ws.write("memory/utf16.md", &utf16);
    ws.write("memory/bom.md", b"\xEF\xBB\xBF# Bom\n\nbody\n");
    ws.write("memory/binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00");
    ws.write("memory/empty.md", "");
    ws.write("memory/bom-only.md", b"\xFF\xFE");
    let r = ws.harvest();
    assert_eq!((r.new, r.failed), (3, 3), "{r:#?}");

    let item = ws.item("memory/latin1.md");
    assert_eq!(item.title, "Café");
    assert!(item.text.contains("café Zoë Müller"), "{}", item.text);
    assert_eq!(item.content_hash, content_hash(latin1), "the hash of the bytes on disk");
    let w = warnings_of(&r, "memory/latin1.md");
    assert_eq!(w.len(), 1, "{:#?}", r.warnings);
    assert_eq!(w[0].to_string(), "memory/latin1.md:1: not UTF-8: decoded as windows-1252");

    let item = ws.item("memory/utf16.md");
    assert_eq!((item.title.as_str(), item.text.as_str()), ("Notes", "# Notes\n\ncafé Zoë Müller"));
    assert_eq!(item.content_hash, content_hash(&utf16));
    let w = warnings_of(&r, "memory/utf16.md");
    assert_eq!(w[0].to_string(), "memory/utf16.md: not UTF-8: decoded as UTF-16LE");

    let item = ws.item("memory/bom.md");
    assert_eq!((item.title.as_str(), item.text.as_str()), ("Bom", "# Bom\n\nbody"));
    assert!(warnings_of(&r, "memory/bom.md").is_empty(), "a UTF-8 byte order mark goes silently");

    let reason = |rel: &str| &r.problems.iter().find(|p| p.path == rel).unwrap().reason;
    assert_eq!(reason("memory/binary.md"), "binary file (contains NUL bytes)");
    assert_eq!(reason("memory/empty.md"), "empty file");
    assert_eq!(reason("memory/bom-only.md"), "empty file");

    // Unchanged bytes are still recognised by their hash: nothing is read twice.
    let again = ws.harvest();
    assert_eq!((again.new, again.updated, again.unchanged), (0, 0, 3), "{again:#?}");
}
