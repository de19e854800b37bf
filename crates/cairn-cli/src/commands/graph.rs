//! `cairn graph index|pack|export|diff|view|sync`, `cairn link`, and the graph switches of `cairn context`.
//! Every command but `diff` (two files compared) is served by the engine.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_core::Scope;
use cairn_engine::{Export, LinkRequest, PackMode};
use clap::{Args, Subcommand};

use crate::settings::Settings;

/// `cairn graph ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum GraphCommand {
    /// L0 index pack: the best candidates for a query and what to expand next, under a token cap.
    Index(IndexArgs),
    /// L1/L2 context pack for chosen nodes: summaries with provenance and the path of each inclusion.
    Pack(PackArgs),
    /// Write the graph as `graph.json` (stable ordering: same inputs, same bytes).
    Export(ExportArgs),
    /// Added, removed and changed nodes and edges between two exports.
    Diff(DiffArgs),
    /// Write the graph viewer as one self-contained HTML file (works from `file://`, no daemon).
    View(crate::commands::view::ViewArgs),
    /// Bring the graph up to the store (`--rebuild`: from scratch).
    Sync(SyncArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ScopeArgs {
    /// Only this project's graph
    #[arg(long)]
    pub project: Option<String>,
    /// Public nodes only (what a shared audience may see)
    #[arg(long)]
    pub public_only: bool,
    /// Follow cross-project edges of the configured types (`graph.cross_project_edge_types`)
    #[arg(long)]
    pub cross_project: bool,
}

impl ScopeArgs {
    fn scope(&self) -> Scope {
        Scope { project: self.project.clone(), allow_private: !self.public_only }
    }
}

#[derive(Debug, Args)]
pub(crate) struct IndexArgs {
    /// The query
    pub query: String,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Most candidates listed
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// Token cap of the pack (default: `graph.index_cap`)
    #[arg(long)]
    pub cap: Option<usize>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct PackArgs {
    /// Node ids (`item:...`, `person:...`), item ids or workspace paths, comma or space separated
    #[arg(required = true, num_args = 1..)]
    pub ids: Vec<String>,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Hops expanded from the given nodes
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    /// Token budget of the pack (default: `graph.pack_budget`)
    #[arg(long)]
    pub budget: Option<usize>,
    /// `safe` (L1 summaries only, never raw text) or `raw` (plus capped L2 snippets)
    #[arg(long, default_value = "safe")]
    pub mode: PackMode,
}

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// Write here instead of stdout
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only this project
    #[arg(long)]
    pub project: Option<String>,
    /// Public nodes only
    #[arg(long)]
    pub public_only: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The older export
    pub a: PathBuf,
    /// The newer export
    pub b: PathBuf,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// Rebuild every derived row
    #[arg(long)]
    pub rebuild: bool,
}

/// `cairn link A B --type T --reason R`.
#[derive(Debug, Args)]
pub(crate) struct LinkArgs {
    /// From: a node id, an item id or a workspace path
    pub from: String,
    /// To: a node id, an item id or a workspace path
    pub to: String,
    /// Edge type, snake_case (cross-project links are followed only for `graph.cross_project_edge_types`)
    #[arg(long = "type", default_value = "related")]
    pub kind: String,
    /// Why the two are related (required: every edge carries a reason)
    #[arg(long)]
    pub reason: String,
    /// Weight in (0, 1]
    #[arg(long, default_value_t = 1.0)]
    pub weight: f32,
    /// Print the link as JSON
    #[arg(long)]
    pub json: bool,
}

/// The graph lane switches of `cairn context`.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ContextGraphArgs {
    /// Expand the recalled items' neighbourhood in the link graph (default: `graph.use_in_context`)
    #[arg(long, conflicts_with = "no_graph")]
    pub use_graph: bool,
    /// Turn the graph lane off for this call
    #[arg(long)]
    pub no_graph: bool,
    /// Let the graph lane follow cross-project edges of the configured types
    #[arg(long)]
    pub cross_project: bool,
}

pub(crate) fn graph(cmd: GraphCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    match cmd {
        GraphCommand::Index(a) => index(a, settings),
        GraphCommand::Pack(a) => pack(a, settings),
        GraphCommand::Export(a) => export(a, settings),
        GraphCommand::Diff(a) => diff(a),
        GraphCommand::View(a) => crate::commands::view::view(a, &open(settings)?),
        GraphCommand::Sync(a) => sync(a, settings),
    }
}

fn index(args: IndexArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = open(settings)?;
    let pack =
        engine.graph_index(&args.query, &args.scope.scope(), args.k, args.cap, args.scope.cross_project)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&pack)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("budget: {} of {} tokens", pack.budget.used, pack.budget.cap);
    for c in &pack.top_candidates {
        outln!("{:.4}  {}  [{}, {}]  {}", c.score, c.id, c.kind, c.project, c.title);
        outln!("        why: {}", c.why_relevant);
    }
    if !pack.suggested_next_expansions.is_empty() {
        outln!("next:");
        for s in &pack.suggested_next_expansions {
            outln!("  {}  {}", s.id, s.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn pack(args: PackArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = open(settings)?;
    let ids: Vec<String> = args
        .ids
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let pack = engine.graph_pack(
        &ids,
        &args.scope.scope(),
        args.depth,
        args.budget,
        args.mode,
        args.scope.cross_project,
    )?;
    outln!("{}", serde_json::to_string_pretty(&pack)?);
    Ok(ExitCode::SUCCESS)
}

fn export(args: ExportArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = open(settings)?;
    let scope = Scope { project: args.project, allow_private: !args.public_only };
    let json = engine.graph_export(&scope)?.to_json();
    match &args.out {
        Some(path) => {
            std::fs::write(path, &json).with_context(|| format!("writing `{}`", path.display()))?;
            eprintln!("wrote `{}`", path.display());
        }
        None => {
            use std::io::Write as _;
            std::io::stdout().lock().write_all(json.as_bytes())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn read_export(path: &PathBuf) -> anyhow::Result<Export> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading `{}`", path.display()))?;
    Ok(Export::parse(&text, &path.display().to_string())?)
}

fn diff(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let d = cairn_graph::diff(&read_export(&args.a)?, &read_export(&args.b)?);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&d)?);
    } else {
        for n in &d.added_nodes {
            outln!("+ node {n}");
        }
        for n in &d.removed_nodes {
            outln!("- node {n}");
        }
        for c in &d.changed_nodes {
            outln!("~ node {} ({})", c.key, c.fields.join(", "));
        }
        for e in &d.added_edges {
            outln!("+ edge {e}");
        }
        for e in &d.removed_edges {
            outln!("- edge {e}");
        }
        for c in &d.changed_edges {
            outln!("~ edge {} ({})", c.key, c.fields.join(", "));
        }
        if d.is_empty() {
            outln!("no differences");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn sync(args: SyncArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let report = open(settings)?.graph_sync(args.rebuild)?;
    outln!("{}", serde_json::to_string(&report)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn link(args: LinkArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let req = LinkRequest {
        from: args.from,
        to: args.to,
        kind: args.kind.clone(),
        reason: args.reason,
        weight: args.weight,
    };
    let linked = open(settings)?.link(&req)?;
    if args.json {
        let mut v = serde_json::to_value(&linked)?;
        v["type"] = serde_json::Value::String(args.kind);
        outln!("{}", serde_json::to_string(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "linked {} -[{}]-> {}{}",
        linked.src,
        args.kind,
        linked.dst,
        if linked.cross_project {
            " (cross-project: followed only with `--cross-project` for configured types)"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// The engine over an existing store (`graph` commands never create one).
pub(crate) fn open(settings: &Settings) -> anyhow::Result<cairn_engine::Engine> {
    let store_path = settings.store_path();
    if !settings.has_store() {
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            store_path.display()
        );
    }
    Ok(settings.engine())
}
