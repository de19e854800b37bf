//! `cairn export` and `cairn import`: the store as JSON Lines, to back it up or move it.

use std::io::{BufReader, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// Write the export here (default: standard output); written to a temporary file and renamed
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The export to read (`-` for standard input)
    pub file: PathBuf,
    /// Print what was imported as JSON
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn export(args: ExportArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = settings.engine();
    let report = match &args.out {
        Some(path) => {
            let dir =
                path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            let mut tmp = tempfile::NamedTempFile::new_in(dir)
                .with_context(|| format!("cannot write in `{}`", dir.display()))?;
            let report = {
                let mut out = std::io::BufWriter::new(tmp.as_file_mut());
                let report = engine.export_store(&mut out)?;
                out.flush()?;
                report
            };
            tmp.as_file().sync_all()?;
            tmp.persist(path).with_context(|| format!("cannot write `{}`", path.display()))?;
            report
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            engine.export_store(&mut out)?
        }
    };
    eprintln!(
        "exported {} items, {} turns, {} links, {} session states, {} sub-agent spawns{}",
        report.items,
        report.turns,
        report.links,
        report.session_states,
        report.subagents,
        args.out.as_ref().map_or_else(String::new, |p| format!(" to `{}`", p.display()))
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn import(args: ImportArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let engine = settings.engine();
    let report = if args.file.as_os_str() == "-" {
        engine.import_store(&mut std::io::stdin().lock(), "<stdin>")?
    } else {
        let file = std::fs::File::open(&args.file)
            .with_context(|| format!("cannot read `{}`", args.file.display()))?;
        engine.import_store(&mut BufReader::new(file), &args.file.display().to_string())?
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "imported {} items, {} turns, {} links, {} session states, {} sub-agent spawns ({} already there as they are)",
            report.items,
            report.turns,
            report.links,
            report.session_states,
            report.subagents,
            report.unchanged
        );
    }
    Ok(ExitCode::SUCCESS)
}
