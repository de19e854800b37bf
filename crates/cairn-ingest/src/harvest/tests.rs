//! Harvest runs against a real workspace and store: walk errors, symlinks, skipped entries, the
//! mass-deletion guard and path resolution, end to end through [`harvest`](super::harvest).

use std::path::Path;

use super::*;

mod unix {
    use super::*;

    struct Ws {
        tmp: tempfile::TempDir,
        root: PathBuf,
        store: cairn_store::SqliteStore,
    }

    impl Ws {
        fn new() -> Self {
            let tmp = tempfile::tempdir().unwrap();
            let root = tmp.path().join("w");
            std::fs::create_dir_all(root.join("memory")).unwrap();
            let store = cairn_store::SqliteStore::open(&tmp.path().join("s.sqlite")).unwrap();
            Ws { tmp, root, store }
        }

        fn write(&self, rel: &str) {
            let p = self.root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("# {rel}\n\nnotes about {rel}\n")).unwrap();
        }

        fn run(&mut self, opts: &HarvestSettings) -> Result<HarvestReport> {
            let req = HarvestRequest { root: self.root.clone(), ..Default::default() };
            harvest(&mut self.store, opts, &req, &NoProgress)
        }

        fn stored(&self) -> Vec<String> {
            self.store.file_states().unwrap().into_keys().collect()
        }
    }

    fn counts(r: &HarvestReport) -> [usize; 5] {
        [r.new, r.unchanged, r.deleted, r.failed, r.kept]
    }

    #[test]
    fn a_walk_error_keeps_the_stored_files_under_it() {
        // A folder the walk cannot read, made without privileges (root reads a `chmod 000` folder): its
        // path outgrows PATH_MAX once the workspace moves deeper, so reading it fails (ENAMETOOLONG).
        let mut ws = Ws::new();
        let opts = HarvestSettings::default();
        ws.write("memory/a.md");
        let long = "d".repeat(200);
        let deep: String = (0..18).map(|_| format!("{long}/")).collect();
        let deep_file = format!("memory/{deep}n.md");
        assert!(ws.root.join(&deep_file).as_os_str().len() < 4000);
        ws.write(&deep_file);
        assert_eq!(counts(&ws.run(&opts).unwrap()), [2, 0, 0, 0, 0]);

        let moved = ws.tmp.path().join("l".repeat(250)).join("m".repeat(250));
        std::fs::create_dir_all(&moved).unwrap();
        let old_root = std::mem::replace(&mut ws.root, moved.join("w"));
        std::fs::rename(&old_root, &ws.root).unwrap();
        assert!(ws.root.join(&deep_file).as_os_str().len() > 4096);
        let r = ws.run(&opts).unwrap();
        std::fs::rename(&ws.root, &old_root).unwrap();
        assert_eq!(counts(&r), [0, 1, 0, 0, 1], "{r:#?}");
        assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
        let p = &r.problems[0];
        assert!(p.path.starts_with(&format!("memory/{long}/")) && deep_file.starts_with(&p.path), "{p:?}");
        assert!(p.reason.starts_with("cannot read: ") && p.reason.contains("stored files"), "{p:?}");
        assert_eq!(r.files, [FileEntry { path: deep_file.clone(), action: FileAction::Kept }]);
        assert_eq!(ws.stored().len(), 2);
    }

    #[test]
    fn a_walk_base_behind_a_symlink_loop_is_a_problem_not_an_empty_folder() {
        let mut ws = Ws::new();
        let mut opts = HarvestSettings::default();
        opts.include.push("notes/inner/**/*.md".into());
        ws.write("memory/a.md");
        ws.write("notes/inner/x.md");
        assert_eq!(counts(&ws.run(&opts).unwrap()), [2, 0, 0, 0, 0]);
        std::fs::remove_dir_all(ws.root.join("notes")).unwrap();
        std::os::unix::fs::symlink("notes", ws.root.join("notes")).unwrap();
        let r = ws.run(&opts).unwrap();
        assert_eq!(counts(&r), [0, 1, 0, 0, 1], "{r:#?}");
        assert_eq!(r.problems[0].path, "notes/inner");
        assert!(r.problems[0].reason.contains("symbolic links"), "{:?}", r.problems);
        assert_eq!(ws.stored(), ["memory/a.md", "notes/inner/x.md"]);
    }

    #[test]
    fn skipped_entries_keep_their_stored_files() {
        let mut ws = Ws::new();
        let opts = HarvestSettings::default();
        for f in ["memory/a.md", "memory/b.md", "memory/sub/x.md", "memory/sub/y.md"] {
            ws.write(f);
        }
        assert_eq!(counts(&ws.run(&opts).unwrap()), [4, 0, 0, 0, 0]);
        // A folder replaced by a symlink leading out, a file by a symlink to another note.
        let outside = ws.tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::remove_dir_all(ws.root.join("memory/sub")).unwrap();
        std::os::unix::fs::symlink(&outside, ws.root.join("memory/sub")).unwrap();
        std::fs::remove_file(ws.root.join("memory/b.md")).unwrap();
        std::os::unix::fs::symlink("a.md", ws.root.join("memory/b.md")).unwrap();
        let r = ws.run(&opts).unwrap();
        assert_eq!(counts(&r), [0, 1, 0, 0, 3], "{r:#?}");
        assert_eq!(r.skipped, 2);
        let reason = |p: &str| &r.skipped_entries.iter().find(|s| s.path == p).unwrap().reason;
        assert!(reason("memory/sub").contains("outside the workspace"), "{:?}", r.skipped_entries);
        assert!(
            reason("memory/b.md").contains("`memory/a.md` inside the workspace"),
            "{:?}",
            r.skipped_entries
        );
        assert_eq!(ws.stored().len(), 4);
    }

    #[test]
    fn mass_deletion_is_refused_before_any_write() {
        let mut ws = Ws::new();
        let mut opts = HarvestSettings::default();
        for f in ["memory/a.md", "memory/b.md", "memory/c.md", "memory/d.md"] {
            ws.write(f);
        }
        ws.run(&opts).unwrap();
        for f in ["memory/a.md", "memory/b.md", "memory/c.md"] {
            std::fs::remove_file(ws.root.join(f)).unwrap();
        }
        ws.write("memory/new.md");
        let seq = ws.store.last_seq().unwrap();
        match ws.run(&opts) {
            Err(Error::TooManyDeletions { deleting: 3, total: 4, reason }) => {
                assert!(reason.contains("75%"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(ws.store.last_seq().unwrap(), seq, "nothing written, not even the new file");
        opts.max_delete_share = 1.5;
        assert!(matches!(ws.run(&opts), Err(Error::Config(_))));
        opts.max_delete_share = 0.75;
        assert_eq!(counts(&ws.run(&opts).unwrap()), [1, 1, 3, 0, 0]);

        // No memory file at all: refused whatever the share, unless allowed.
        std::fs::remove_dir_all(ws.root.join("memory")).unwrap();
        opts.max_delete_share = 1.0;
        let err = ws.run(&opts).unwrap_err();
        assert!(err.to_string().contains("holds no memory file"), "{err}");
        opts.allow_mass_delete = true;
        assert_eq!(counts(&ws.run(&opts).unwrap()), [0, 0, 2, 0, 0]);
    }

    #[test]
    fn paths_resolve_against_the_workspace_then_the_current_dir() {
        let ws = Ws::new();
        ws.write("memory/a.md");
        let cwd = ws.tmp.path();
        std::fs::write(cwd.join("outside.md"), "x").unwrap();
        std::os::unix::fs::symlink(cwd.join("outside.md"), ws.root.join("memory/link.md")).unwrap();
        let none = |_: &str| false;
        let resolve =
            |p: &str, stored: &dyn Fn(&str) -> bool| resolve_path(&ws.root, cwd, Path::new(p), stored);
        assert_eq!(resolve("memory/a.md", &none).unwrap(), "memory/a.md");
        assert_eq!(resolve("w/memory/a.md", &none).unwrap(), "memory/a.md");
        assert_eq!(resolve("w/memory/../memory/./a.md", &none).unwrap(), "memory/a.md");
        assert_eq!(resolve(".", &none).unwrap(), "");
        // A symlink names itself, not its target (harvest then reports it as skipped).
        assert_eq!(resolve("memory/link.md", &none).unwrap(), "memory/link.md");
        assert!(matches!(resolve("../outside.md", &none), Err(Error::OutsideWorkspace { .. })));
        assert!(matches!(resolve("outside.md", &none), Err(Error::OutsideWorkspace { .. })));
        // Gone from disk: fine while the store has it, an error otherwise.
        let stored = |rel: &str| rel == "memory/gone.md";
        assert_eq!(resolve("w/memory/gone.md", &stored).unwrap(), "memory/gone.md");
        let err = resolve("memory/typo.md", &none).unwrap_err();
        assert!(matches!(err, Error::NotInWorkspace { .. }), "{err}");
        assert!(err.to_string().contains(&ws.root.canonicalize().unwrap().display().to_string()), "{err}");
    }
}
