//! `cairn export`, `cairn import` and `cairn store migrate`: the store as JSON Lines, to back it up or
//! move it.

use std::io::{BufReader, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand};

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

#[derive(Debug, Subcommand)]
pub(crate) enum StoreCommand {
    /// Copy this store into a new, empty one and verify the copy (counts, and the hash of both
    /// exports); this store is only read.
    Migrate(MigrateArgs),
}

#[derive(Debug, Args)]
pub(crate) struct MigrateArgs {
    /// Where to: a PostgreSQL database (`postgres://user@host:port/db`, or `host=… dbname=…`), or
    /// `sqlite` for a single-host store in `--into`
    #[arg(long)]
    pub to: String,
    /// The data dir of the copy (created; it must hold no store yet). With a shared store it holds this
    /// host's own parts: point `data_dir` at it once you switch
    #[arg(long)]
    pub into: PathBuf,
    /// Print what was copied as JSON
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn store(command: StoreCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    match command {
        StoreCommand::Migrate(args) => migrate(args, settings),
    }
}

fn migrate(args: MigrateArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let url = match args.to.as_str() {
        "sqlite" => None,
        url if url.starts_with("postgres://") || url.starts_with("postgresql://") || url.contains('=') => {
            Some(url.to_owned())
        }
        other => anyhow::bail!(
            "`--to {other}`: give a PostgreSQL URL (`postgres://user@host:port/db`, or `host=… dbname=…`) \
             or `sqlite`"
        ),
    };
    let same_dir = std::fs::canonicalize(&args.into).ok() == std::fs::canonicalize(&settings.data_dir).ok();
    if args.into.exists() && same_dir {
        anyhow::bail!("`--into {}` is this store's own data dir: copy into a new one", args.into.display());
    }
    std::fs::create_dir_all(&args.into)
        .with_context(|| format!("cannot create `{}`", args.into.display()))?;
    let mut target = settings.clone();
    target.data_dir = args.into.clone();
    target.store.url = url.clone();
    let report = settings.engine().copy_store_to(&target.engine(), &args.into)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let r = &report.copied;
        outln!(
            "copied {} items, {} turns, {} links, {} session states, {} sub-agent spawns into {}",
            r.items,
            r.turns,
            r.links,
            r.session_states,
            r.subagents,
            match &url {
                Some(_) =>
                    format!("the shared store, with `{}` as this host's data dir", args.into.display()),
                None => format!("`{}`", args.into.join("cairn.sqlite").display()),
            }
        );
        outln!("verified: both exports are {} bytes with BLAKE3 {}", report.bytes, report.hash);
        outln!(
            "to use it: set `data_dir = \"{}\"`{}; this store is unchanged",
            args.into.display(),
            if url.is_some() { " and `[store] url`" } else { " and remove `[store] url`" }
        );
    }
    Ok(ExitCode::SUCCESS)
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
