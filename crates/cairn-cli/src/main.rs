//! `cairn`: the command-line front end. Only this crate prints.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// `println!` that returns the write error (a closed pipe ends the command quietly) instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

mod commands;
mod log;
mod settings;

/// mimalloc instead of the system allocator: a context call allocates and frees a few hundred strings
/// (hits, rendered entries); see `docs/ARCHITECTURE.md` (dependencies) for the measurements.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use commands::{
    aci, boundary, completions, context, doctor, forget, graph, ingest, models, portable, recall, route,
    serve, sessions, sources, wisdom, workspace,
};
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
    /// Write a commented `cairn.toml` with every setting and its default.
    Init(ingest::InitArgs),
    /// Index memory files (MEMORY.md, memory/**) into the store; unchanged files are skipped.
    Harvest(ingest::HarvestArgs),
    /// Store one finished turn (JSON on stdin), with injected context blocks stripped.
    Capture(ingest::CaptureArgs),
    /// Harvest, then re-index memory files within about a second of every save.
    Watch(ingest::WatchArgs),
    /// Store path, schema, counts per kind and project, last harvest.
    Status(ingest::StatusArgs),
    /// The context block for a query, under a token budget, with a trace receipt.
    Context(context::ContextArgs),
    /// Rebuild the full-text index from the store.
    Reindex(context::ReindexArgs),
    /// Ranked hits for a query, with score parts, reasons and provenance.
    Recall(recall::RecallArgs),
    /// Dry-run intent detection for a prompt: scores, winner, trace.
    IntentTest(route::IntentTestArgs),
    /// Check the routing rules for overlaps, bad regexes and broken references.
    Rules {
        #[command(subcommand)]
        command: route::RulesCommand,
    },
    /// The bootstrap file set for a session key, with token counts.
    Bootstrap(route::BootstrapArgs),
    /// Embedding models: list what is installed, or `install` one.
    Models(models::ModelsArgs),
    /// The link graph: index and context packs, export, diff, sync.
    Graph {
        #[command(subcommand)]
        command: graph::GraphCommand,
    },
    /// Add an explicit typed link between two nodes, with a reason.
    Link(graph::LinkArgs),
    /// Run the HTTP daemon: turn, capture, bootstrap, search, ingest, intent, context, metrics.
    Serve(serve::ServeArgs),
    /// Run an MCP server over stdio (search, get, context, ingest, forget, intent, status), as the owner
    /// unless narrowed.
    Mcp(serve::McpArgs),
    /// Remote sources (Graphiti, LightRAG, mem0): `status`, up or down, since when and why.
    Sources {
        #[command(subcommand)]
        command: sources::SourcesCommand,
    },
    /// Forget captured turns and ingested notes: by id, session or date, from the store and every index.
    Forget(forget::ForgetArgs),
    /// Check every part: store, index, model, vectors, routing, sessions, permissions, remote sources,
    /// daemon, OpenClaw.
    Doctor(doctor::DoctorArgs),
    /// Sessions with captured turns or sub-agent spawns, each with its parent and children.
    Sessions(sessions::SessionsArgs),
    /// Write the whole store as JSON Lines (items, turns, links, session state): a portable backup.
    Export(portable::ExportArgs),
    /// Read an export into the store (idempotent); the index and graph follow.
    Import(portable::ImportArgs),
    /// The store itself: `migrate` it into a new one (a shared PostgreSQL store, or back to SQLite).
    Store {
        #[command(subcommand)]
        command: portable::StoreCommand,
    },
    /// Wisdom compression: gather lessons, draft a `## Wisdom` section, check it, promote it into
    /// SOUL.md after review.
    Wisdom {
        #[command(subcommand)]
        command: wisdom::WisdomCommand,
    },
    /// Derive TOOLS_COMPACT.md (lookup lines only) from TOOLS.md as a draft; `check` and `promote` it.
    ToolsCompact(aci::ToolsCompactArgs),
    /// Backups of the workspace files Cairn may change, rollback, and the tiered bootstrap switch.
    Workspace {
        #[command(subcommand)]
        command: workspace::WorkspaceCommand,
    },
    /// Adaptive context injection: `report` the tokens per session type and the acceptance criteria.
    Aci {
        #[command(subcommand)]
        command: aci::AciCommand,
    },
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(completions::CompletionsArgs),
    /// The public/private boundary: audit a tree before it is published.
    Boundary {
        #[command(subcommand)]
        command: boundary::BoundaryCommand,
    },
    /// Evaluate retrieval or intent detection against labelled cases.
    Eval {
        #[command(subcommand)]
        command: EvalCommand,
    },
}

#[derive(Debug, Subcommand)]
enum EvalCommand {
    /// Recall@k, Hit@k and NDCG@10 on a labelled corpus (LoCoMo format), or relevance per kind of
    /// question on a workspace of memory files (`--workspace`).
    Retrieval(Box<recall::EvalRetrievalArgs>),
    /// Shadow-compare intent detection against expected packs.
    Intents(route::EvalIntentsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    log::init();
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
    // Completions need no settings: a broken `cairn.toml` must not stop them.
    if let Command::Completions(args) = &cli.command {
        return completions::completions(args, Cli::command());
    }
    // Nor does an audit of a tree: it reads only the files it is given.
    if let Command::Boundary { command } = cli.command {
        return boundary::boundary(command);
    }
    let settings = Settings::resolve(&cli.global)?;
    match cli.command {
        Command::Init(args) => ingest::init(args),
        Command::Harvest(args) => ingest::harvest(args, &settings),
        Command::Capture(args) => ingest::capture(args, &settings),
        Command::Watch(args) => ingest::watch(args, &settings),
        Command::Status(args) => ingest::status(args, &settings),
        Command::Context(args) => context::context(args, &settings),
        Command::Reindex(args) => context::reindex(args, &settings),
        Command::Recall(args) => recall::recall(args, &settings),
        Command::IntentTest(args) => route::intent_test(args, &settings),
        Command::Rules { command } => route::rules(command, &settings),
        Command::Bootstrap(args) => route::bootstrap(args, &settings),
        Command::Models(args) => models::models(args, &settings),
        Command::Graph { command } => graph::graph(command, &settings),
        Command::Link(args) => graph::link(args, &settings),
        Command::Serve(args) => serve::serve(args, &settings),
        Command::Mcp(args) => serve::mcp(args, &settings),
        Command::Sources { command } => sources::sources(command, &settings),
        Command::Forget(args) => forget::forget(args, &settings),
        Command::Doctor(args) => doctor::doctor(args, &settings),
        Command::Sessions(args) => sessions::sessions(args, &settings),
        Command::Export(args) => portable::export(args, &settings),
        Command::Import(args) => portable::import(args, &settings),
        Command::Store { command } => portable::store(command, &settings),
        Command::Wisdom { command } => wisdom::wisdom(command, &settings),
        Command::ToolsCompact(args) => aci::tools_compact(args, &settings),
        Command::Workspace { command } => workspace::workspace(command, &settings),
        Command::Aci { command } => aci::aci(command, &settings),
        Command::Completions(_) | Command::Boundary { .. } => {
            unreachable!("answered before the settings are resolved")
        }
        Command::Eval { command } => match command {
            EvalCommand::Retrieval(args) => recall::eval_retrieval(*args, &settings),
            EvalCommand::Intents(args) => route::eval_intents(args, &settings),
        },
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
