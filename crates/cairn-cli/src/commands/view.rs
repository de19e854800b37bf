//! `cairn graph view --out FILE`: the graph viewer as one self-contained HTML file. It holds the page
//! (Cytoscape.js included) and the export of the store in the given scope, the same bytes `cairn graph
//! export` writes with the same flags, plus a diff against an older export and a trace receipt when
//! given; it opens from `file://` with no daemon.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_core::Scope;
use cairn_serve::viewer::{Inlined, standalone_page};
use clap::Args;

use crate::commands::graph::read_export;

#[derive(Debug, Args)]
pub(crate) struct ViewArgs {
    /// The HTML file to write
    #[arg(long)]
    pub out: PathBuf,
    /// Only this project
    #[arg(long)]
    pub project: Option<String>,
    /// Public nodes only
    #[arg(long)]
    pub public_only: bool,
    /// An older export: the diff view shows what changed from it to the current graph
    #[arg(long, value_name = "OLD.json")]
    pub diff: Option<PathBuf>,
    /// A trace receipt (`cairn context --trace FILE`) for the turn inspector
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

pub(crate) fn view(args: ViewArgs, engine: &cairn_engine::Engine) -> anyhow::Result<ExitCode> {
    let scope = Scope { project: args.project, allow_private: !args.public_only };
    let current = engine.graph_export(&scope)?;
    let export = current.to_json();
    let diff = match &args.diff {
        Some(path) => {
            let old = read_export(path)?;
            let diff = serde_json::to_string(&cairn_engine::graph_diff(&old, &current))?;
            Some((old.to_json(), diff))
        }
        None => None,
    };
    let trace = match &args.trace {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the trace `{}`", path.display()))?;
            let value: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("`{}` is not a JSON trace receipt", path.display()))?;
            Some(serde_json::to_string(&value)?)
        }
        None => None,
    };
    let page = standalone_page(&Inlined {
        export: &export,
        diff: diff.as_ref().map(|(old, d)| (old.as_str(), d.as_str())),
        trace: trace.as_deref(),
    });
    std::fs::write(&args.out, page).with_context(|| format!("writing `{}`", args.out.display()))?;
    eprintln!(
        "wrote `{}` ({} nodes, {} edges); open it in a browser",
        args.out.display(),
        current.nodes.len(),
        current.edges.len()
    );
    Ok(ExitCode::SUCCESS)
}
