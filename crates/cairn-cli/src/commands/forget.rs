//! `cairn forget`: captured turns and ingested notes removed from the store and every derived part.

use std::io::Write as _;
use std::process::ExitCode;

use cairn_engine::{Caller, Forget};
use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct ForgetArgs {
    /// Item ids to forget (`turn:…`, `note:…`, as `cairn recall` shows them)
    pub ids: Vec<String>,
    /// Every captured turn of this session key
    #[arg(long)]
    pub session: Option<String>,
    /// Every captured turn and ingested note written before this date (`2026-06-01`, or an RFC 3339 time)
    #[arg(long)]
    pub before: Option<String>,
    /// The captured turns past `capture.retention_days`
    #[arg(long, conflicts_with_all = ["ids", "session", "before"])]
    pub expired: bool,
    /// Only within this project
    #[arg(long)]
    pub project: Option<String>,
    /// List what would be forgotten; remove nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn forget(args: ForgetArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = settings.engine();
    let forgotten = if args.expired {
        if settings.capture.retention_days == 0 {
            anyhow::bail!("`capture.retention_days` is 0: no captured turn expires");
        }
        engine.prune_expired()?
    } else {
        let before = match &args.before {
            Some(s) => Some(cairn_engine::parse_date(s).ok_or_else(|| {
                anyhow::anyhow!("`--before {s}` is not a date (`2026-06-01` or `2026-06-01T12:00:00Z`)")
            })?),
            None => None,
        };
        let req = Forget { ids: args.ids, session: args.session, before, dry_run: args.dry_run };
        if req.is_empty() {
            anyhow::bail!(
                "name what to forget\n\nhint: `cairn forget ID…`, `--session KEY`, `--before DATE` or `--expired`"
            );
        }
        engine.forget(&req, &engine.scope_for(Caller::Owner, args.project))?
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&forgotten)?);
    } else {
        let mut out = std::io::stdout().lock();
        let verb = if forgotten.dry_run { "would forget" } else { "forgot" };
        for id in &forgotten.items {
            writeln!(out, "{verb}  {id}")?;
        }
        writeln!(out, "{verb} {} items", forgotten.items.len())?;
    }
    for r in &forgotten.refused {
        eprintln!("not forgotten: {r}");
    }
    Ok(if forgotten.refused.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
