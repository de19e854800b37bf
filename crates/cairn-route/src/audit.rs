//! `rules audit`: config errors plus lints that loading alone does not catch.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{RawConfig, locate};
use crate::error::Error;
use crate::text::fold;

/// Rules sharing more than this share of the smaller keyword set fail the audit.
pub const MAX_KEYWORD_OVERLAP: f64 = 0.5;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Fails the audit.
    Error,
    /// Worth a look; does not fail.
    Warning,
}

/// One audit finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// Which check: `load`, `config`, `overlap`, `composition`, `unused`, `keywords`.
    pub check: &'static str,
    /// The file concerned.
    pub file: PathBuf,
    /// The field concerned.
    pub field: String,
    /// The line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// The result of [`audit`].
#[derive(Debug, Clone, Serialize)]
pub struct AuditReport {
    /// The audited directory.
    pub dir: PathBuf,
    /// Number of intent rules (0 if the files did not parse).
    pub rules: usize,
    /// Number of registry packs.
    pub packs: usize,
    /// Findings, errors first, then by file and field.
    pub findings: Vec<Finding>,
}

impl AuditReport {
    /// No error-level finding.
    pub fn passed(&self) -> bool {
        !self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Audits a config directory: everything [`crate::RouteConfig::load`] rejects (syntax,
/// unknown keys, bad regexes, missing profiles/packs/files, paths escaping the directory),
/// plus keyword overlap > 50 % between two rules and composition rules naming a pack type
/// the registry does not have.
pub fn audit(dir: impl AsRef<Path>) -> AuditReport {
    let dir = dir.as_ref().to_owned();
    let mut report = AuditReport { dir: dir.clone(), rules: 0, packs: 0, findings: Vec::new() };
    let raw = match RawConfig::read(&dir) {
        Ok(raw) => raw,
        Err(e) => {
            let (file, line) = match &e {
                Error::Parse { path, line, .. } => (path.clone(), *line),
                Error::MissingFile { path } | Error::Io { path, .. } => (path.clone(), None),
                _ => (dir.clone(), None),
            };
            report.findings.push(Finding {
                severity: Severity::Error,
                check: "load",
                file,
                field: String::new(),
                line,
                message: e.to_string(),
            });
            return report;
        }
    };
    report.rules = raw.intent.value.rules.len();
    report.packs = raw.registry.value.packs.len();
    let (_, issues) = raw.compile();
    for i in issues {
        report.findings.push(Finding {
            severity: Severity::Error,
            check: "config",
            file: i.file,
            field: i.field,
            line: i.line,
            message: i.message,
        });
    }
    lint(&raw, &mut report.findings);
    report.findings.sort_by(|a, b| {
        (a.severity, &a.file, a.line, &a.field, &a.message)
            .cmp(&(b.severity, &b.file, b.line, &b.field, &b.message))
    });
    report
}

fn lint(raw: &RawConfig, out: &mut Vec<Finding>) {
    let intent = &raw.intent;
    let rules = &intent.value.rules;
    let mut push = |severity,
                    check,
                    doc_path: &Path,
                    text: &str,
                    field: String,
                    anchors: &[&[&str]],
                    message: String| {
        out.push(Finding {
            severity,
            check,
            file: doc_path.to_owned(),
            field,
            line: locate(text, anchors),
            message,
        });
    };
    // Keyword sets (folded) and duplicates.
    let sets: Vec<BTreeSet<String>> = rules
        .iter()
        .map(|r| {
            let mut set = BTreeSet::new();
            for k in &r.keywords {
                let f = fold(k);
                if !f.is_empty() && !set.insert(f) {
                    push(
                        Severity::Warning,
                        "keywords",
                        &intent.path,
                        &intent.text,
                        format!("rules[{}].keywords", r.id),
                        &[&["id:", &r.id], &[k]],
                        format!("keyword `{k}` is listed twice (after case folding)"),
                    );
                }
            }
            set
        })
        .collect();
    for a in 0..rules.len() {
        for b in a + 1..rules.len() {
            let smaller = sets[a].len().min(sets[b].len());
            if smaller == 0 {
                continue;
            }
            let shared: Vec<&String> = sets[a].intersection(&sets[b]).collect();
            let ratio = shared.len() as f64 / smaller as f64;
            if ratio > MAX_KEYWORD_OVERLAP {
                push(
                    Severity::Error,
                    "overlap",
                    &intent.path,
                    &intent.text,
                    format!("rules[{}].keywords", rules[b].id),
                    &[&["id:", &rules[b].id]],
                    format!(
                        "rules `{}` and `{}` share {} of {} keywords ({:.0} % of the smaller set, limit {:.0} %): {}",
                        rules[a].id,
                        rules[b].id,
                        shared.len(),
                        smaller,
                        ratio * 100.0,
                        MAX_KEYWORD_OVERLAP * 100.0,
                        shared.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
                    ),
                );
            }
        }
    }
    for r in rules {
        for (i, b) in r.entity_boosts.iter().enumerate() {
            if b.weight == 0.0 {
                push(
                    Severity::Warning,
                    "keywords",
                    &intent.path,
                    &intent.text,
                    format!("rules[{}].entity_boosts[{i}].weight", r.id),
                    &[&["id:", &r.id], &["weight"]],
                    "weight 0: the boost only suppresses".into(),
                );
            }
        }
    }
    // Composition references.
    let packs = &raw.registry.value.packs;
    if let Some(doc) = &raw.composition {
        for c in &doc.value.rules {
            for (i, a) in c.inject_additional.iter().enumerate() {
                let field = format!("rules[{}].inject_additional[{i}]", c.primary_intent);
                let anchors: &[&[&str]] =
                    &[&["primary_intent", &c.primary_intent], &["pack_type", &a.pack_type]];
                let of_type: Vec<_> = packs.iter().filter(|p| p.pack_type == a.pack_type).collect();
                if of_type.is_empty() {
                    push(
                        Severity::Error,
                        "composition",
                        &doc.path,
                        &doc.text,
                        format!("{field}.pack_type"),
                        anchors,
                        format!(
                            "unknown pack type `{}` (no pack of that type in pack_registry)",
                            a.pack_type
                        ),
                    );
                    continue;
                }
                let with_mode: Vec<_> =
                    of_type.iter().filter(|p| a.mode.is_none() || p.mode == a.mode).collect();
                if with_mode.is_empty() {
                    push(
                        Severity::Warning,
                        "composition",
                        &doc.path,
                        &doc.text,
                        format!("{field}.mode"),
                        anchors,
                        format!(
                            "no `{}` pack with mode `{}`: it is always unavailable{}",
                            a.pack_type,
                            a.mode.as_deref().unwrap_or_default(),
                            if a.required { ", and it is required, so the intent never injects" } else { "" }
                        ),
                    );
                } else if with_mode.iter().all(|p| !p.enabled) {
                    push(
                        Severity::Warning,
                        "composition",
                        &doc.path,
                        &doc.text,
                        field,
                        anchors,
                        format!(
                            "every `{}` pack{} is disabled{}",
                            a.pack_type,
                            a.mode.as_deref().map(|m| format!(" with mode `{m}`")).unwrap_or_default(),
                            if a.required { "; it is required, so the intent never injects" } else { "" }
                        ),
                    );
                }
            }
        }
    }
    // Unused profiles and packs.
    let used_profiles: BTreeSet<&str> = rules.iter().map(|r| r.consumer_profile.as_str()).collect();
    for p in &raw.profiles.value.profiles {
        if !used_profiles.contains(p.id.as_str()) {
            push(
                Severity::Warning,
                "unused",
                &raw.profiles.path,
                &raw.profiles.text,
                format!("profiles[{}]", p.id),
                &[&["id:", &p.id]],
                "no rule uses this profile".into(),
            );
        }
    }
    let primary: BTreeSet<&str> =
        raw.profiles.value.profiles.iter().map(|p| p.primary_pack.as_str()).collect();
    let composed: BTreeSet<&str> = raw
        .composition
        .iter()
        .flat_map(|d| {
            d.value.rules.iter().flat_map(|c| c.inject_additional.iter().map(|a| a.pack_type.as_str()))
        })
        .collect();
    for p in packs {
        if !primary.contains(p.id.as_str()) && !composed.contains(p.pack_type.as_str()) {
            push(
                Severity::Warning,
                "unused",
                &raw.registry.path,
                &raw.registry.text,
                format!("packs[{}]", p.id),
                &[&["id:", &p.id]],
                "no profile or composition rule can reach this pack".into(),
            );
        }
    }
}
