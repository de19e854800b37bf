//! `cairn graph index|pack|export|diff|sync`, `cairn link`, and the graph lane of `cairn context`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_assemble::Assembly;
use cairn_core::{Audience, Provenance, Scope};
use cairn_engine::{ContextRequest, GraphLane, GraphLaneOptions};
use cairn_graph::{ExpandOptions, Export, Graph, PackMode, PackOptions};
use cairn_recall::Recaller;
use cairn_store::{GraphEdgeRow, SqliteStore, Store};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};

use crate::commands::context::open_recaller;
use crate::commands::ingest::{now_ms, open_store};
use crate::settings::Settings;

/// The `[graph]` settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct GraphSettings {
    /// Master switch: `false` turns the graph lane off everywhere.
    pub enabled: bool,
    /// Use the graph lane in `cairn context` without `--use-graph`.
    pub use_in_context: bool,
    /// Use the graph lane in every turn `cairn serve` and `cairn mcp` answer.
    pub use_in_turns: bool,
    /// Follow cross-project edges (only of `cross_project_edge_types`).
    pub cross_project: bool,
    /// Edge types that may cross projects.
    pub cross_project_edge_types: Vec<String>,
    /// Hops expanded from the seeds.
    pub depth: usize,
    /// Best recalled items that seed the expansion in `cairn context`.
    pub seeds: usize,
    /// Most graph items offered to the assembler in `cairn context`.
    pub max_added: usize,
    /// Nodes with more edges than this are not expanded (hubs).
    pub max_fanout: usize,
    /// Token cap of an index pack.
    pub index_cap: usize,
    /// Default token budget of a context pack.
    pub pack_budget: usize,
    /// Token cap of one raw snippet in a context pack.
    pub snippet_cap: usize,
}

impl Default for GraphSettings {
    fn default() -> Self {
        let e = ExpandOptions::default();
        let l = GraphLaneOptions::default();
        Self {
            enabled: true,
            use_in_context: false,
            use_in_turns: true,
            cross_project: e.allow_cross_project,
            cross_project_edge_types: e.cross_project_edge_types,
            depth: e.depth,
            seeds: l.seeds,
            max_added: l.max_added,
            max_fanout: e.max_fanout,
            index_cap: cairn_graph::INDEX_CAP,
            pack_budget: 2000,
            snippet_cap: cairn_graph::SNIPPET_CAP,
        }
    }
}

impl GraphSettings {
    /// The graph lane of served turns, when it is on.
    pub(crate) fn turn_lane(&self) -> Option<GraphLaneOptions> {
        (self.enabled && self.use_in_turns).then(|| GraphLaneOptions {
            expand: self.expand(false, None),
            seeds: self.seeds,
            max_added: self.max_added,
        })
    }

    fn expand(&self, cross_project: bool, depth: Option<usize>) -> ExpandOptions {
        ExpandOptions {
            depth: depth.unwrap_or(self.depth),
            allow_cross_project: cross_project || self.cross_project,
            cross_project_edge_types: self.cross_project_edge_types.clone(),
            max_fanout: self.max_fanout,
            ..ExpandOptions::default()
        }
    }
}

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

/// Open the store and bring the graph up to it.
fn open_graph(settings: &Settings) -> anyhow::Result<(SqliteStore, Graph)> {
    let store_path = settings.store_path();
    if !store_path.exists() {
        anyhow::bail!(
            "no store at `{}`\n\nhint: run `cairn harvest` first, or pass `--data-dir`",
            store_path.display()
        );
    }
    let mut store = open_store(settings)?;
    let graph = cairn_engine::open_graph(&mut store).context("loading the graph")?;
    Ok((store, graph))
}

/// `cairn context` with or without the graph lane, fail-open.
pub(crate) fn context_assembly(
    args: &ContextGraphArgs,
    settings: &Settings,
    recaller: Result<&Recaller, &dyn std::fmt::Display>,
    req: &ContextRequest,
) -> Assembly {
    let g = &settings.graph;
    let wanted = !args.no_graph && (args.use_graph || g.use_in_context);
    if !wanted {
        return cairn_engine::context(recaller, req);
    }
    if !g.enabled {
        eprintln!("warning: the graph lane is disabled by `graph.enabled = false`");
        return cairn_engine::context(recaller, req);
    }
    let options = GraphLaneOptions {
        expand: g.expand(args.cross_project, None),
        seeds: g.seeds,
        max_added: g.max_added,
    };
    match open_graph(settings) {
        Ok((store, graph)) => {
            let lane = GraphLane { graph: Ok((&graph, &store)), options: &options };
            cairn_engine::graph_context(recaller, Some(lane), req)
        }
        Err(e) => {
            let msg = format!("{e:#}");
            eprintln!("warning: graph lane failed, context without it: {msg}");
            let lane = GraphLane { graph: Err(&msg), options: &options };
            cairn_engine::graph_context(recaller, Some(lane), req)
        }
    }
}

pub(crate) fn graph(cmd: GraphCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    match cmd {
        GraphCommand::Index(a) => index(a, settings),
        GraphCommand::Pack(a) => pack(a, settings),
        GraphCommand::Export(a) => export(a, settings),
        GraphCommand::Diff(a) => diff(a),
        GraphCommand::Sync(a) => sync(a, settings),
    }
}

fn index(args: IndexArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let (_store, graph) = open_graph(settings)?;
    let recaller = open_recaller(settings)?;
    let g = &settings.graph;
    let pack = cairn_engine::graph_index(
        &recaller,
        &graph,
        &args.query,
        &args.scope.scope(),
        &g.expand(args.scope.cross_project, None),
        args.k,
        args.cap.unwrap_or(g.index_cap),
        settings.context.encoding,
        now_ms(),
    );
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

/// A node id from what the user typed: a node id, an item id, or a workspace path.
fn resolve(graph: &Graph, s: &str) -> String {
    let candidates =
        [s.to_owned(), format!("item:{s}"), format!("item:memory-file:{}", s.trim_start_matches("./"))];
    candidates.iter().find(|c| graph.find(c).is_some()).cloned().unwrap_or_else(|| s.to_owned())
}

fn pack(args: PackArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let (store, graph) = open_graph(settings)?;
    let g = &settings.graph;
    let ids: Vec<String> = args
        .ids
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| resolve(&graph, s))
        .collect();
    let opts = PackOptions {
        expand: g.expand(args.scope.cross_project, Some(args.depth)),
        budget: args.budget.unwrap_or(g.pack_budget),
        mode: args.mode,
        snippet_cap: g.snippet_cap,
        encoding: settings.context.encoding,
    };
    let mut raw = |item: &str| store.get_item(item).ok().flatten().map(|i| i.text);
    let pack = graph.context_pack(&ids, &args.scope.scope(), &opts, &mut raw)?;
    outln!("{}", serde_json::to_string_pretty(&pack)?);
    Ok(ExitCode::SUCCESS)
}

fn export(args: ExportArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let (_store, graph) = open_graph(settings)?;
    let scope = Scope { project: args.project, allow_private: !args.public_only };
    let json = graph.export(&scope).to_json();
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

fn read_export(path: &PathBuf) -> anyhow::Result<Export> {
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
    let mut store = open_store(settings)?;
    let report = if args.rebuild {
        cairn_graph::rebuild_graph(&mut store)?
    } else {
        cairn_graph::sync_graph(&mut store)?
    };
    outln!("{}", serde_json::to_string(&report)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn link(args: LinkArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    if !cairn_graph::model::valid_edge_kind(&args.kind) {
        anyhow::bail!("`--type {}` is not a snake_case edge type (like `inspired_by`)", args.kind);
    }
    if args.reason.trim().is_empty() {
        anyhow::bail!("`--reason` is empty: every edge carries a reason");
    }
    if !(args.weight > 0.0 && args.weight <= 1.0) {
        anyhow::bail!("`--weight {}` is outside (0, 1]", args.weight);
    }
    let (mut store, graph) = open_graph(settings)?;
    let mut ends = Vec::new();
    for s in [&args.from, &args.to] {
        let id = resolve(&graph, s);
        let i = graph.find(&id).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown node `{s}`\n\nhint: use a node id from `cairn graph export`, an item id or a path"
            )
        })?;
        ends.push(i);
    }
    let (a, b) = (graph.node(ends[0]), graph.node(ends[1]));
    if a.id == b.id {
        anyhow::bail!("a link needs two different nodes (both are `{}`)", a.id);
    }
    let audience = if a.audience == Audience::Public && b.audience == Audience::Public {
        Audience::Public
    } else {
        Audience::Private
    };
    store.graph_add_link(&GraphEdgeRow {
        src: a.id.clone(),
        dst: b.id.clone(),
        kind: args.kind.clone(),
        weight: args.weight,
        reason: args.reason.trim().to_owned(),
        provenance: Provenance::External { source: "cairn link".into() },
        audience,
    })?;
    let cross = a.project != b.project;
    outln!(
        "linked {} -[{}]-> {}{}",
        a.id,
        args.kind,
        b.id,
        if cross {
            " (cross-project: followed only with `--cross-project` for configured types)"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}
