//! `cairn completions <shell>`: the shell completion script of the command tree, on stdout.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in
    pub shell: clap_complete::Shell,
}

/// Writes the script for `command` (the whole `cairn` command tree).
pub(crate) fn completions(args: &CompletionsArgs, mut command: clap::Command) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "cairn", &mut script);
    std::io::stdout().lock().write_all(&script)?;
    Ok(ExitCode::SUCCESS)
}
