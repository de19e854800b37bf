//! Read-side commands: `recall`, `eval retrieval`.
//! (Placeholder signatures; the recall crate fills them in.)

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct RecallArgs {
    /// What to look for
    pub query: String,
    /// Only this project
    #[arg(long)]
    pub project: Option<String>,
    /// Number of hits
    #[arg(long, short = 'k', default_value_t = 10)]
    pub k: usize,
    /// Public items only (what a shared audience may see)
    #[arg(long)]
    pub public_only: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EvalRetrievalArgs {
    /// JSONL corpus (one document per line)
    #[arg(long)]
    pub corpus: PathBuf,
    /// JSONL questions with evidence ids
    #[arg(long)]
    pub queries: PathBuf,
    /// Cut-offs, comma-separated
    #[arg(long, default_value = "1,5,10", value_delimiter = ',')]
    pub k: Vec<usize>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn recall(_args: RecallArgs, _settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}

pub(crate) fn eval_retrieval(_args: EvalRetrievalArgs, _settings: &Settings) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not implemented yet")
}
