//! `cairn`: the command-line front end. Only this crate prints.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;
mod settings;

use commands::route;
use settings::{GlobalArgs, Settings};

/// Cairn: the right context for an agent on every turn.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Dry-run intent detection for a prompt: scores, winner, trace.
    IntentTest(route::IntentTestArgs),
    /// Check the routing rules for overlaps, bad regexes and broken references.
    Rules {
        #[command(subcommand)]
        command: route::RulesCommand,
    },
    /// The bootstrap file set for a session key, with token counts.
    Bootstrap(route::BootstrapArgs),
    /// Evaluate retrieval or intent detection against labelled cases.
    Eval {
        #[command(subcommand)]
        command: EvalCommand,
    },
}

#[derive(Debug, Subcommand)]
enum EvalCommand {
    /// Shadow-compare intent detection against expected packs.
    Intents(route::EvalIntentsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let settings = Settings::resolve(&cli.global)?;
    match cli.command {
        Command::IntentTest(args) => route::intent_test(args, &settings),
        Command::Rules { command } => route::rules(command, &settings),
        Command::Bootstrap(args) => route::bootstrap(args, &settings),
        Command::Eval { command } => match command {
            EvalCommand::Intents(args) => route::eval_intents(args, &settings),
        },
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
