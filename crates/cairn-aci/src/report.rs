//! The ACI report: per session type, the tokens of the tiered bootstrap set against bulk injection of
//! every bootstrap file, and the acceptance criteria that can be measured on a workspace (AC-1, AC-2,
//! AC-4, AC-5, AC-6, AC-7, AC-8), each PASS or FAIL with its evidence. AC-3 and AC-9 are about the
//! agent's behaviour in live sessions and are not measured here.

use std::collections::BTreeSet;
use std::path::Path;

use cairn_route::{SessionType, SessionsConfig, classify_session};
use serde::Serialize;

use crate::wisdom::{self, CheckInput, WisdomSection};
use crate::{AciSettings, backup, tools};

/// One bootstrap file and its tokens (none: missing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileTokens {
    /// Workspace-relative name.
    pub file: String,
    /// Its tokens, none when it does not exist.
    pub tokens: Option<usize>,
}

/// One session type's numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRow {
    /// The type.
    pub session_type: SessionType,
    /// Its bootstrap set (the bulk list when the tiered bootstrap is off).
    pub files: Vec<FileTokens>,
    /// The set's tokens.
    pub tokens: usize,
    /// Bulk injection's tokens.
    pub baseline: usize,
    /// The reduction, in percent of the baseline.
    pub reduction_pct: f64,
}

/// One acceptance criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Criterion {
    /// `AC-1` ...
    pub id: &'static str,
    /// What it asks.
    pub name: &'static str,
    /// Whether it passes.
    pub pass: bool,
    /// The evidence, or why it fails.
    pub detail: Vec<String>,
}

/// The report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Whether the tiered bootstrap is on.
    pub tiered: bool,
    /// Bulk injection: every bootstrap file and its tokens.
    pub baseline: Vec<FileTokens>,
    /// Their sum.
    pub baseline_tokens: usize,
    /// Per session type.
    pub sessions: Vec<SessionRow>,
    /// Whether MEMORY.md is in some session's bootstrap set.
    pub memory_bulk_injected: bool,
    /// The criteria.
    pub criteria: Vec<Criterion>,
}

impl Report {
    /// Whether every criterion passes.
    pub fn pass(&self) -> bool {
        self.criteria.iter().all(|c| c.pass)
    }
}

/// A session key of each kind a host sends (main, topic, group, sub-agent, cron), with its type.
const SAMPLE_KEYS: [(&str, SessionType); 5] = [
    ("agent:main:main", SessionType::MainSession),
    ("agent:main:telegram:group:-1001:topic:14", SessionType::ForumTopic),
    ("agent:main:telegram:group:-1001", SessionType::GroupChat),
    ("agent:main:subagent:0f0e0d0c", SessionType::Subagent),
    ("cron:nightly-review", SessionType::HeartbeatCron),
];

/// Measures `workspace`.
pub fn report(
    workspace: &Path,
    data_dir: &Path,
    settings: &AciSettings,
    sessions: &SessionsConfig,
) -> Report {
    let tokenizer = cairn_tokens::Tokenizer::default();
    let tokens_of = |f: &str| FileTokens {
        file: f.to_owned(),
        tokens: std::fs::read_to_string(workspace.join(f)).ok().map(|t| tokenizer.count(&t)),
    };
    let tiered = !backup::is_bulk(data_dir);
    let baseline: Vec<FileTokens> = settings.bulk_files.iter().map(|f| tokens_of(f)).collect();
    let baseline_tokens: usize = baseline.iter().filter_map(|f| f.tokens).sum();
    let set_of = |t: SessionType| -> Vec<String> {
        if tiered { sessions.files_for(t).to_vec() } else { settings.bulk_files.clone() }
    };
    let rows: Vec<SessionRow> = SessionType::ALL
        .iter()
        .map(|&t| {
            let files: Vec<FileTokens> = set_of(t).iter().map(|f| tokens_of(f)).collect();
            let tokens = files.iter().filter_map(|f| f.tokens).sum();
            let reduction_pct = if baseline_tokens == 0 {
                0.0
            } else {
                100.0 * (1.0 - tokens as f64 / baseline_tokens as f64)
            };
            SessionRow { session_type: t, files, tokens, baseline: baseline_tokens, reduction_pct }
        })
        .collect();
    let memory_bulk_injected = rows.iter().any(|r| r.files.iter().any(|f| f.file == "MEMORY.md"));
    let row = |t: SessionType| rows.iter().find(|r| r.session_type == t).expect("every type");
    let max = settings.session_max_tokens;
    let set_criterion = |id, name, types: &[SessionType], want: &[&str]| {
        let mut detail = Vec::new();
        let mut pass = true;
        for &t in types {
            let r = row(t);
            let names: BTreeSet<&str> = r.files.iter().map(|f| f.file.as_str()).collect();
            let wanted: BTreeSet<&str> = want.iter().copied().collect();
            let missing: Vec<&str> =
                r.files.iter().filter(|f| f.tokens.is_none()).map(|f| f.file.as_str()).collect();
            let ok = names == wanted && missing.is_empty() && r.tokens <= max && !names.contains("MEMORY.md");
            pass &= ok;
            detail.push(format!(
                "{t}: {} = {} tokens (at most {max}; {:.0} % less than bulk){}{}",
                r.files.iter().map(|f| f.file.as_str()).collect::<Vec<_>>().join(" + "),
                r.tokens,
                r.reduction_pct,
                if names == wanted {
                    String::new()
                } else {
                    format!("; the set should be {}", want.join(" + "))
                },
                if missing.is_empty() { String::new() } else { format!("; missing: {}", missing.join(", ")) },
            ));
        }
        Criterion { id, name, pass, detail }
    };
    let mut criteria = vec![
        set_criterion(
            "AC-1",
            "topic sessions: SOUL.md + TOOLS_COMPACT.md, at most the token cap",
            &[SessionType::ForumTopic],
            &["SOUL.md", "TOOLS_COMPACT.md"],
        ),
        set_criterion(
            "AC-2",
            "main DM: SOUL.md + USER.md + TOOLS_COMPACT.md, no MEMORY.md, at most the token cap",
            &[SessionType::MainSession, SessionType::PrivateDm],
            &["SOUL.md", "USER.md", "TOOLS_COMPACT.md"],
        ),
    ];
    criteria.push(set_criterion("AC-4", "sub-agents: SOUL.md only", &[SessionType::Subagent], &["SOUL.md"]));
    // AC-5: each kind of key classified right, and its set complete.
    let mut detail = Vec::new();
    let mut pass = true;
    for (key, want) in SAMPLE_KEYS {
        let got = classify_session(key, sessions).session_type;
        let missing: Vec<String> = set_of(got).into_iter().filter(|f| !workspace.join(f).is_file()).collect();
        let ok = got == want && missing.is_empty();
        pass &= ok;
        detail.push(format!(
            "`{key}` → {got}{}{}",
            if got == want { String::new() } else { format!(" (should be {want})") },
            if missing.is_empty() { String::new() } else { format!("; missing: {}", missing.join(", ")) }
        ));
    }
    criteria.push(Criterion {
        id: "AC-5",
        name: "every session type gets its set, no required file missing",
        pass,
        detail,
    });
    // AC-6: the compact tools file.
    let compact = std::fs::read_to_string(workspace.join(tools::COMPACT_FILE)).ok();
    let source = std::fs::read_to_string(workspace.join("TOOLS.md")).ok();
    let (pass, detail) = match &compact {
        None => (false, vec![format!("no {} (derive it with `cairn tools-compact`)", tools::COMPACT_FILE)]),
        Some(c) => {
            let r = tools::check(c, source.as_deref(), settings.tools_max_tokens);
            let mut d = vec![format!("{} tokens (at most {})", r.tokens, settings.tools_max_tokens)];
            if let Some((have, all)) = r.coverage {
                d.push(format!("{have} of {all} lookup values of TOOLS.md"));
            }
            d.extend(r.failures.iter().cloned());
            (r.failures.is_empty(), d)
        }
    };
    criteria.push(Criterion {
        id: "AC-6",
        name: "TOOLS_COMPACT.md: every lookup value, no prose, within its cap",
        pass,
        detail,
    });
    // AC-7: the wisdom section in SOUL.md, with the lessons each entry covers from the promoted draft.
    let soul = std::fs::read_to_string(workspace.join("SOUL.md")).unwrap_or_default();
    let (pass, detail) = match WisdomSection::find(&soul) {
        None => (false, vec!["SOUL.md has no `## Wisdom` section".to_owned()]),
        Some(live) => {
            let record = std::fs::read(crate::gate::promoted_record(data_dir))
                .ok()
                .and_then(|_| crate::draft::Draft::read(&crate::gate::promoted_record(data_dir)).ok());
            let recorded = record.as_ref().and_then(|d| {
                let s = WisdomSection::find(&d.body)?;
                (s.render() == live.render()).then_some((s, d.lesson_ids.clone()))
            });
            let r = match &recorded {
                Some((s, ids)) => wisdom::check(
                    s,
                    CheckInput { workspace, known_lessons: Some(ids), settings: &settings.wisdom },
                ),
                None => {
                    let mut r = wisdom::check(
                        &live,
                        CheckInput { workspace, known_lessons: Some(&[]), settings: &settings.wisdom },
                    );
                    r.failures.retain(|f| !f.contains("source lesson(s)"));
                    r.failures.push("no record of the lessons each entry covers: promote wisdom with `cairn wisdom promote`".into());
                    r
                }
            };
            let mut d = vec![format!(
                "{} entries; section {} tokens (at most {}); SOUL.md {} tokens (at most {})",
                r.entries,
                r.section_tokens,
                settings.wisdom.max_tokens,
                r.soul_tokens.unwrap_or(0),
                settings.wisdom.soul_max_tokens
            )];
            d.extend(r.failures.iter().cloned());
            (r.failures.is_empty(), d)
        }
    };
    criteria.push(Criterion {
        id: "AC-7",
        name: "the wisdom section: entries, coverage, nothing specific, tokens, required entry, no WISDOM.md",
        pass,
        detail,
    });
    // AC-8: a verified backup to roll back to, in one command.
    let backups = backup::list(data_dir).unwrap_or_default();
    let (pass, detail) = match backups.last() {
        None => (false, vec!["no backup: take one with `cairn workspace backup`".to_owned()]),
        Some(m) => {
            let problems = backup::verify(data_dir, m);
            let mut d = vec![format!(
                "newest backup `{}` ({} files); `cairn workspace rollback --bulk` restores it and bulk injection",
                m.id,
                m.files.len()
            )];
            d.extend(problems.iter().cloned());
            (problems.is_empty(), d)
        }
    };
    criteria.push(Criterion {
        id: "AC-8",
        name: "rollback: a verified backup, bulk injection one command away",
        pass,
        detail,
    });
    Report { tiered, baseline, baseline_tokens, sessions: rows, memory_bulk_injected, criteria }
}
