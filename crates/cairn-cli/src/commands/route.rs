//! Routing commands: `intent-test`, `rules audit`, `bootstrap`, `eval intents`.
//! (Placeholder signatures; the routing crate fills them in.)

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct IntentTestArgs {
    /// The prompt to classify
    pub prompt: String,
    /// Session key the prompt arrives on
    #[arg(long)]
    pub session_key: Option<String>,
    /// JSON file with recall results (entity summaries, facts) for entity boosts
    #[arg(long)]
    pub entities: Option<PathBuf>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RulesCommand {
    /// Fail on overlapping keywords, bad regexes, missing profiles/packs/paths
    Audit,
}

#[derive(Debug, Args)]
pub(crate) struct BootstrapArgs {
    /// Session key to classify
    #[arg(long)]
    pub session_key: String,
    /// Workspace whose bootstrap files are counted (default: settings)
    #[arg(long = "in-workspace")]
    pub workspace: Option<PathBuf>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EvalIntentsArgs {
    /// JSON file of cases
    pub cases: PathBuf,
    /// Minimum accuracy (0..1) for exit code 0
    #[arg(long, default_value_t = 0.9)]
    pub threshold: f64,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn intent_test(_args: IntentTestArgs, _settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}

pub(crate) fn rules(_cmd: RulesCommand, _settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}

pub(crate) fn bootstrap(_args: BootstrapArgs, _settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}

pub(crate) fn eval_intents(_args: EvalIntentsArgs, _settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}
