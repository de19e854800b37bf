//! `cairn sessions`: the sessions the store knows (captured turns, sub-agent spawns) with their parents
//! and children.

use std::io::Write as _;
use std::process::ExitCode;

use cairn_engine::SessionSummary;
use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct SessionsArgs {
    /// Print the sessions as JSON
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn sessions(args: SessionsArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = settings.engine();
    let sessions = engine.sessions_overview()?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&sessions)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    if sessions.is_empty() {
        writeln!(out, "no sessions yet: captured turns and sub-agent spawns show here")?;
        return Ok(ExitCode::SUCCESS);
    }
    let depth = |s: &SessionSummary| {
        let mut d = 0;
        let mut parent = s.parent.as_deref();
        while let Some(p) = parent {
            d += 1;
            parent = sessions.iter().find(|x| x.key == p).and_then(|x| x.parent.as_deref());
            if d > 8 {
                break;
            }
        }
        d
    };
    let names: Vec<String> = sessions
        .iter()
        .map(|s| match depth(s) {
            0 => s.key.clone(),
            d => format!("{}└ {}", "  ".repeat(d - 1), s.key),
        })
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(7).max(7);
    writeln!(out, "{:<width$}  {:<14} {:>5}  {:<20}  SUB-AGENT", "SESSION", "KIND", "TURNS", "LAST TURN")?;
    for (s, name) in sessions.iter().zip(&names) {
        let when = s
            .last_seen
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .map_or_else(|| "-".to_owned(), |t| t.strftime("%Y-%m-%d %H:%M UTC").to_string());
        let spawn = s.spawn.as_ref().map_or_else(String::new, |l| {
            let mut parts = Vec::new();
            if let Some(label) = &l.label {
                parts.push(label.clone());
            }
            if let Some(run) = &l.run_id {
                parts.push(format!("run {run}"));
            }
            parts.push(match (&l.ended_at, &l.outcome) {
                (None, _) => "running".to_owned(),
                (Some(_), Some(o)) => format!("ended: {o}"),
                (Some(_), None) => "ended".to_owned(),
            });
            if let Some(e) = &l.error {
                parts.push(format!("error: {e}"));
            }
            parts.join(" · ")
        });
        let pad = width - name.chars().count();
        writeln!(out, "{name}{:pad$}  {:<14} {:>5}  {:<20}  {spawn}", "", s.kind, s.turns, when)?;
    }
    Ok(ExitCode::SUCCESS)
}
