//! `cairn workspace`: backups of the files Cairn may change, rollback, and the tiered bootstrap switch.

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use crate::settings::Settings;

#[derive(Debug, Subcommand)]
pub(crate) enum WorkspaceCommand {
    /// Snapshot the files Cairn may change (SOUL.md, TOOLS_COMPACT.md, the review queue, ...) and the
    /// bootstrap mode, with a manifest of hashes; changes need one
    Backup(JsonArgs),
    /// List the backups, oldest first
    Backups(JsonArgs),
    /// Restore a backup (default: the newest), verifying its hashes first
    Rollback(RollbackArgs),
    /// Switch the tiered bootstrap on, or off (the host's files are then injected unchanged)
    Tiered(TieredArgs),
}

#[derive(Debug, Args)]
pub(crate) struct JsonArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RollbackArgs {
    /// The backup to restore (see `cairn workspace backups`)
    #[arg(long)]
    pub to: Option<String>,
    /// Also switch the tiered bootstrap off: bulk injection, as before Cairn chose the files
    #[arg(long)]
    pub bulk: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum OnOff {
    On,
    Off,
}

#[derive(Debug, Args)]
pub(crate) struct TieredArgs {
    /// `on` or `off`
    pub state: OnOff,
}

/// The files a backup holds: the configured ones and the review queue.
pub(crate) fn backup_files(settings: &Settings) -> Vec<String> {
    let mut files = settings.aci.backup_files.clone();
    if !files.contains(&settings.aci.queue_file) {
        files.push(settings.aci.queue_file.clone());
    }
    files
}

pub(crate) fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

pub(crate) fn workspace(command: WorkspaceCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    let (data, ws) = (&settings.data_dir, &settings.workspace);
    match command {
        WorkspaceCommand::Backup(args) => {
            if !ws.is_dir() {
                anyhow::bail!("no workspace at `{}`", ws.display());
            }
            let m = cairn_aci::backup::create(data, ws, &backup_files(settings), now_ms())?;
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&m)?);
            } else {
                let held = m.files.iter().filter(|f| f.sha256.is_some()).count();
                outln!(
                    "backup {}: {held} files (of {}), tiered bootstrap {}",
                    m.id,
                    m.files.len(),
                    on_off(m.tiered)
                );
            }
        }
        WorkspaceCommand::Backups(args) => {
            let list = cairn_aci::backup::list(data)?;
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                outln!("no backups (take one with `cairn workspace backup`)");
            } else {
                let mut s = String::new();
                for m in &list {
                    let when = jiff::Timestamp::from_millisecond(m.created_ms)
                        .map_or_else(|_| "?".to_owned(), |t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string());
                    let files: Vec<&str> =
                        m.files.iter().filter(|f| f.sha256.is_some()).map(|f| f.path.as_str()).collect();
                    let _ =
                        writeln!(s, "{}  {when}  tiered {}  {}", m.id, on_off(m.tiered), files.join(", "));
                }
                outln!("{}", s.trim_end());
            }
        }
        WorkspaceCommand::Rollback(args) => {
            let r = cairn_aci::backup::rollback(data, ws, args.to.as_deref(), args.bulk, now_ms())?;
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                outln!(
                    "rolled back to {}: {} restored, {} removed; tiered bootstrap {} (the state before is backup {})",
                    r.id,
                    if r.restored.is_empty() { "nothing".to_owned() } else { r.restored.join(", ") },
                    if r.removed.is_empty() { "nothing".to_owned() } else { r.removed.join(", ") },
                    on_off(r.tiered),
                    r.before
                );
            }
        }
        WorkspaceCommand::Tiered(args) => {
            let on = matches!(args.state, OnOff::On);
            cairn_aci::backup::set_tiered(data, on)?;
            outln!(
                "tiered bootstrap {}{}",
                on_off(on),
                if on { "" } else { ": the host's bootstrap files are injected unchanged" }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}
