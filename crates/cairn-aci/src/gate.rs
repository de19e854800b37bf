//! The review gate: a draft reaches the workspace only through [`promote`], which takes the hash the
//! reviewer approved and refuses when the draft changed since, when its checks fail, or when no fresh
//! backup holds the file it would replace. Only then is the file replaced, atomically; for a wisdom
//! draft only SOUL.md's `## Wisdom` section changes.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::atomic::{self, CrashPoint};
use crate::draft::{Draft, Kind};
use crate::wisdom::{self, CheckInput, WisdomSection};
use crate::{AciSettings, Error, Result, backup, tools};

/// The file recording the last promoted wisdom draft (the lessons each entry covers), for the report.
pub fn promoted_record(data_dir: &Path) -> PathBuf {
    data_dir.join("aci").join("promoted-wisdom.md")
}

/// The checks of a draft, whichever its kind: the failures.
pub fn check(draft: &Draft, workspace: &Path, settings: &AciSettings) -> Vec<String> {
    match draft.kind {
        Kind::Wisdom => check_wisdom(draft, workspace, settings).failures,
        Kind::ToolsCompact => check_tools(draft, workspace, settings).failures,
    }
}

/// The checks of a wisdom draft.
pub fn check_wisdom(draft: &Draft, workspace: &Path, settings: &AciSettings) -> wisdom::CheckReport {
    let section = WisdomSection::find(&draft.body);
    let Some(section) = section else {
        return wisdom::CheckReport {
            failures: vec![format!("no `{}` section", wisdom::HEADING)],
            entries: 0,
            section_tokens: 0,
            soul_tokens: None,
        };
    };
    wisdom::check(
        &section,
        CheckInput { workspace, known_lessons: Some(&draft.lesson_ids), settings: &settings.wisdom },
    )
}

/// The checks of a compact tools draft.
pub fn check_tools(draft: &Draft, workspace: &Path, settings: &AciSettings) -> tools::CheckReport {
    let source = std::fs::read_to_string(workspace.join("TOOLS.md")).ok();
    tools::check(&draft.body, source.as_deref(), settings.tools_max_tokens)
}

/// What a promotion did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Promoted {
    /// The draft's kind.
    pub kind: Kind,
    /// The file replaced.
    pub target: PathBuf,
    /// The backup that holds its previous content.
    pub backup: String,
    /// The draft's hash.
    pub hash: String,
}

/// Everything [`promote`] needs.
#[derive(Debug, Clone, Copy)]
pub struct PromoteRequest<'a> {
    /// The workspace.
    pub workspace: &'a Path,
    /// Cairn's data directory (backups, the record of promoted wisdom).
    pub data_dir: &'a Path,
    /// The settings.
    pub settings: &'a AciSettings,
    /// The draft file.
    pub draft: &'a Path,
    /// The kind the caller means to promote.
    pub kind: Kind,
    /// The hash the reviewer approved (its first 8 hex digits at least).
    pub approve: &'a str,
    /// Now, ms since the epoch.
    pub now_ms: i64,
    /// A test's crash point.
    pub crash: CrashPoint,
}

/// Promotes a reviewed draft (see the module docs).
pub fn promote(req: PromoteRequest<'_>) -> Result<Promoted> {
    let draft = Draft::read(req.draft)?;
    if draft.kind != req.kind {
        return Err(Error::BadInput(format!(
            "`{}` is a {} draft, not a {} draft",
            req.draft.display(),
            draft.kind.as_str(),
            req.kind.as_str()
        )));
    }
    let approved = req.approve.trim().to_ascii_lowercase();
    if approved.len() < 8 || !(draft.hash.starts_with(&approved) || approved.starts_with(&draft.hash)) {
        return Err(Error::HashMismatch { approved, actual: draft.hash });
    }
    let failures = check(&draft, req.workspace, req.settings);
    if !failures.is_empty() {
        return Err(Error::CheckFailed(failures));
    }
    let target_rel = draft.kind.target();
    let backup = backup::require_fresh(
        req.data_dir,
        req.workspace,
        &[target_rel],
        req.settings.backup_max_age_hours,
        req.now_ms,
    )?;
    atomic::clean(req.workspace);
    let target = req.workspace.join(target_rel);
    let content = match draft.kind {
        Kind::Wisdom => {
            let section = WisdomSection::find(&draft.body).expect("checked");
            let soul = std::fs::read_to_string(&target).map_err(Error::io("read", &target))?;
            wisdom::replace_section(&soul, &section.render())
        }
        Kind::ToolsCompact => draft.body.clone(),
    };
    atomic::write(&target, content.as_bytes(), req.crash)?;
    if draft.kind == Kind::Wisdom {
        let bytes = std::fs::read(req.draft).map_err(Error::io("read", req.draft))?;
        atomic::write(&promoted_record(req.data_dir), &bytes, CrashPoint::Never)?;
    }
    crate::draft::dequeue(&req.workspace.join(&req.settings.queue_file), req.draft)?;
    Ok(Promoted { kind: draft.kind, target, backup, hash: draft.hash })
}
