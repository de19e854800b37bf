//! `cairn doctor`: one line per part (store, index, model, vectors, routing, sessions, permissions,
//! daemon, OpenClaw), each `ok`, `warn` or `fail` with a hint; exit code 1 when any part fails.

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_engine::{Check, CheckStatus};
use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Machine-readable output: `{"status": worst, "checks": [{name, status, detail, hint}]}`
    #[arg(long)]
    pub json: bool,
}

/// Every check: the engine's parts, then the daemon and the OpenClaw plugin.
fn checks(settings: &Settings) -> Vec<Check> {
    let token = cairn_serve::token_path(&settings.data_dir);
    let mut checks = settings.engine().doctor(&[token]);
    checks.push(cairn_serve::doctor::daemon(&settings.serve, &settings.data_dir));
    let var = |name: &str| std::env::var(name).ok();
    let home = std::env::var_os("OPENCLAW_HOME").or_else(|| std::env::var_os("HOME")).map(PathBuf::from);
    checks.push(match cairn_serve::doctor::openclaw_config_path(var) {
        Some(config) => cairn_serve::doctor::openclaw(&config, home.as_deref(), &settings.serve),
        None => Check::ok("openclaw", "not configured (no home directory to look in): skipped"),
    });
    checks
}

pub(crate) fn doctor(args: DoctorArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let checks = checks(settings);
    let worst = checks.iter().map(|c| c.status).max().unwrap_or(CheckStatus::Ok);
    if args.json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            status: CheckStatus,
            checks: &'a [Check],
        }
        outln!("{}", serde_json::to_string_pretty(&Report { status: worst, checks: &checks })?);
    } else {
        let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
        for c in &checks {
            let hint = c.hint.as_ref().map(|h| format!("  hint: {h}")).unwrap_or_default();
            outln!("{:<5} {:<width$}  {}{hint}", c.status.as_str(), c.name, c.detail);
        }
    }
    Ok(if worst == CheckStatus::Fail { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
