//! `cairn sources status`: each remote source's health, checked now (or, with `--daemon`, as the
//! running daemon's prober last saw it, with its call statistics).

use std::process::ExitCode;

use cairn_engine::SourceStatus;
use clap::{Args, Subcommand};

use crate::settings::Settings;

#[derive(Debug, Subcommand)]
pub(crate) enum SourcesCommand {
    /// Each remote source: up or down, since when and why, its endpoint and audience.
    Status(StatusArgs),
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Machine-readable output: a JSON list, one object per source
    #[arg(long)]
    pub json: bool,
    /// Ask the running daemon (`GET /v1/sources`) instead of checking the sources from here: its
    /// prober's view, with call counts, errors, timeouts and latencies
    #[arg(long)]
    pub daemon: bool,
}

pub(crate) fn sources(command: SourcesCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    match command {
        SourcesCommand::Status(args) => status(args, settings),
    }
}

fn status(args: StatusArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let (statuses, problems) = if args.daemon {
        let body = cairn_serve::doctor::daemon_get(&settings.serve, &settings.data_dir, "/v1/sources")
            .map_err(|e| anyhow::anyhow!("the daemon did not answer: {e}\n\nhint: start it with `cairn serve`, or leave out `--daemon`"))?;
        #[derive(serde::Deserialize)]
        struct Answer {
            sources: Vec<SourceStatus>,
            #[serde(default)]
            problems: Vec<String>,
        }
        let a: Answer = serde_json::from_str(&body)?;
        (a.sources, a.problems)
    } else {
        let engine = settings.engine();
        (engine.probe_sources(), engine.source_problems().to_vec())
    };
    for p in &problems {
        eprintln!("warning: {p}");
    }
    let down = statuses.iter().any(|s| s.state == cairn_engine::SourceState::Down);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&statuses)?);
    } else if statuses.is_empty() {
        outln!("no remote sources configured (`[remote.<name>]` in cairn.toml; see docs/remote.md)");
    } else {
        let width = statuses.iter().map(|s| s.name.len()).max().unwrap_or(0);
        for s in &statuses {
            let since = s.since_ms.map(|ms| format!(" since {}", time(ms))).unwrap_or_default();
            let reason = s.reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default();
            let calls = if args.daemon {
                format!(", {} calls, {} errors, {} timeouts", s.calls, s.errors, s.timeouts)
            } else {
                String::new()
            };
            outln!(
                "{:<width$}  {:<7} {:<8} {} ({}, timeout {} ms{calls}){since}{reason}",
                s.name,
                s.state.as_str(),
                s.kind,
                s.endpoint,
                s.audience,
                s.timeout_ms
            );
        }
    }
    Ok(if down || !problems.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn time(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}
