//! The audit itself: every file's path against the two lists, then its content against every
//! content rule.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::files;
use crate::finding::{Finding, Hit, Rule};
use crate::lists::{AllowList, DenyList, PathVerdict, verdict};
use crate::overlay::Overlay;
use crate::report::{Exempted, Report, Skipped};
use crate::terms::TermMatcher;
use crate::text::LineIndex;
use crate::{contacts, packs, secrets};

/// Files larger than this are path-checked only.
pub const MAX_CONTENT_BYTES: u64 = 16 << 20;
/// A NUL byte within this many leading bytes marks a binary file.
const BINARY_SNIFF: usize = 8000;

/// A configured audit: the lists, an optional private overlay, strictness. Run it on any number of
/// trees.
#[derive(Debug, Clone)]
pub struct Audit {
    allow: AllowList,
    deny: DenyList,
    overlay_dir: Option<PathBuf>,
    terms: Option<TermMatcher>,
    strict: bool,
}

impl Audit {
    /// An audit with these lists, no overlay, not strict.
    pub fn new(allow: AllowList, deny: DenyList) -> Audit {
        Audit { allow, deny, overlay_dir: None, terms: None, strict: false }
    }

    /// Also looks for the overlay's words and pack text, less the allowlist's `terms`, and flags
    /// files of the overlay directory found in the tree.
    pub fn overlay(mut self, overlay: &Overlay) -> Audit {
        self.terms =
            Some(TermMatcher::build(overlay.vocabulary(), self.allow.terms())).filter(|t| !t.is_empty());
        self.overlay_dir = Some(overlay.dir().to_owned());
        self
    }

    /// Under `strict`, files on neither list are violations rather than warnings.
    pub fn strict(mut self, strict: bool) -> Audit {
        self.strict = strict;
        self
    }

    /// Audits the tree at `root`: the files git tracks there, or every file when it is not a git
    /// work tree.
    pub fn run(&self, root: impl AsRef<Path>) -> Result<Report> {
        let root = root.as_ref();
        let (source, files) = files::list(root)?;
        let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        let mut report = Report {
            root: root.to_owned(),
            source,
            strict: self.strict,
            files: files.len(),
            content_checked: 0,
            passed: false,
            violations: Vec::new(),
            warnings: Vec::new(),
            exempted: Vec::new(),
            skipped: Vec::new(),
        };
        for rel in &files {
            let full = root.join(rel);
            if let Some(dir) = &self.overlay_dir {
                let abs = full.canonicalize().unwrap_or_else(|_| canonical_root.join(rel));
                if abs.starts_with(dir) {
                    let message = format!("a file of the private overlay `{}`", dir.display());
                    report.violations.push(path_finding(rel, Rule::PrivateFile, message));
                    continue;
                }
            }
            match verdict(&self.allow, &self.deny, rel) {
                PathVerdict::Denied(pattern) => {
                    let message = format!("matches the denylist pattern `{pattern}`");
                    report.violations.push(path_finding(rel, Rule::Denied, message));
                    continue;
                }
                PathVerdict::Unlisted => {
                    let finding = path_finding(rel, Rule::Unlisted, "not on the allowlist".into());
                    if self.strict { &mut report.violations } else { &mut report.warnings }.push(finding);
                }
                PathVerdict::Allowed => {}
            }
            let text = match read_text(&full) {
                Ok(text) => text,
                Err(reason) => {
                    report.skipped.push(Skipped { path: rel.clone(), reason });
                    continue;
                }
            };
            report.content_checked += 1;
            for hit in self.content_hits(rel, &text) {
                let finding =
                    Finding { path: rel.clone(), line: Some(hit.line), rule: hit.rule, message: hit.message };
                match self.allow.exemption(rel, hit.rule) {
                    Some(reason) => report.exempted.push(Exempted { finding, reason: reason.to_owned() }),
                    None => report.violations.push(finding),
                }
            }
        }
        report.violations.sort();
        report.warnings.sort();
        report.exempted.sort();
        report.passed = report.violations.is_empty();
        Ok(report)
    }

    /// Every content rule's hits in one file's text, sorted by line, before exemptions.
    pub(crate) fn content_hits(&self, path: &str, text: &str) -> Vec<Hit> {
        let lines = LineIndex::new(text);
        let mut hits = Vec::new();
        if let Some(terms) = &self.terms {
            terms.scan(text, &mut hits);
        }
        packs::scan(path, text, &mut hits);
        secrets::scan(text, &lines, &mut hits);
        contacts::scan(text, &lines, &mut hits);
        hits.sort_by(|a, b| (a.line, a.rule, &a.message).cmp(&(b.line, b.rule, &b.message)));
        hits.dedup();
        hits
    }
}

fn path_finding(path: &str, rule: Rule, message: String) -> Finding {
    Finding { path: path.to_owned(), line: None, rule, message }
}

/// A file's text, or why its content cannot be checked.
fn read_text(path: &Path) -> std::result::Result<String, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("not readable: {e}"))?;
    if meta.file_type().is_symlink() {
        return Err("a symbolic link (not followed)".into());
    }
    if !meta.is_file() {
        return Err("not a regular file (a submodule?)".into());
    }
    if meta.len() > MAX_CONTENT_BYTES {
        return Err(format!("larger than {} MiB", MAX_CONTENT_BYTES >> 20));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("not readable: {e}"))?;
    if bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0) {
        return Err("binary".into());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use cairn_route::{PackText, Vocabulary};

    use super::*;

    fn audit(allow: &str) -> Audit {
        let allow = AllowList::parse(Path::new("allow.yaml"), allow).unwrap();
        let deny =
            DenyList::parse(Path::new("deny.yaml"), "schema_version: 1\ndeny: ['secret/**']\n").unwrap();
        let vocabulary = Vocabulary {
            keywords: vec!["hawk hood".into()],
            packs: vec![PackText {
                id: "raptor_care".into(),
                path: PathBuf::from("p.pack.yaml"),
                scope: cairn_core::Audience::Private,
                enabled: true,
                text: vec![],
            }],
            ..Vocabulary::default()
        };
        Audit::new(allow, deny).overlay(&Overlay::from_vocabulary("/nonexistent/overlay", vocabulary))
    }

    /// One line per content rule, in rule order. A `~` splits the address and the number so that
    /// this file is not itself a leak; it is dropped before use.
    const LEAKY: &str = "a hawk hood\nuse raptor_care\nscope: private\nbob@~corp.io\ncall (919) 867-~5309\n";

    fn leaky() -> String {
        LEAKY.replace('~', "")
    }

    #[test]
    fn every_content_rule_reports_its_line() {
        let hits = audit("schema_version: 1\nallow: []\n").content_hits("x.pack.yaml", &leaky());
        let got: Vec<(usize, Rule)> = hits.iter().map(|h| (h.line, h.rule)).collect();
        assert_eq!(
            got,
            [
                (1, Rule::PrivateKeyword),
                (2, Rule::PrivatePackId),
                (3, Rule::PrivatePack),
                (4, Rule::Email),
                (5, Rule::Phone)
            ]
        );
    }

    #[test]
    fn exemptions_move_findings_aside_and_denied_files_are_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("x.pack.yaml"), leaky()).unwrap();
        std::fs::create_dir(tmp.path().join("secret")).unwrap();
        std::fs::write(tmp.path().join("secret/a.md"), leaky()).unwrap();
        let a = audit(
            "schema_version: 1\nallow: ['**']\nexempt:\n  - {paths: ['*.pack.yaml'], rules: [email, private-pack], reason: fake}\n",
        );
        let report = a.run(tmp.path()).unwrap();
        let rules = |v: &[Finding]| v.iter().map(|f| (f.path.clone(), f.rule)).collect::<Vec<_>>();
        assert_eq!(
            rules(&report.violations),
            [
                ("secret/a.md".to_owned(), Rule::Denied),
                ("x.pack.yaml".to_owned(), Rule::PrivateKeyword),
                ("x.pack.yaml".to_owned(), Rule::PrivatePackId),
                ("x.pack.yaml".to_owned(), Rule::Phone),
            ]
        );
        let exempted: Vec<Rule> = report.exempted.iter().map(|e| e.finding.rule).collect();
        assert_eq!(exempted, [Rule::PrivatePack, Rule::Email]);
        assert!(report.exempted.iter().all(|e| e.reason == "fake"));
        assert_eq!((report.files, report.content_checked, report.passed), (2, 1, false));
    }

    #[test]
    fn binary_and_linked_files_are_skipped_with_a_reason() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("blob.bin"), leaky() + "\0\x01").unwrap();
        std::fs::write(tmp.path().join("ok.txt"), "fine").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/hostname", tmp.path().join("link")).unwrap();
        let report = audit("schema_version: 1\nallow: ['**']\n").run(tmp.path()).unwrap();
        assert!(report.passed, "{:?}", report.violations);
        let skipped: Vec<(&str, &str)> =
            report.skipped.iter().map(|s| (s.path.as_str(), s.reason.as_str())).collect();
        assert!(skipped.contains(&("blob.bin", "binary")), "{skipped:?}");
        #[cfg(unix)]
        assert!(skipped.contains(&("link", "a symbolic link (not followed)")), "{skipped:?}");
        assert_eq!(report.content_checked, 1);
    }
}
