//! `cairn-bench`: Cairn's macro benchmarks. Every measurement runs in a fresh child process so peak
//! memory (VmHWM) is per run; results are medians over `--runs`.
//!
//! ```text
//! python3 ../shared/bench/peers/gen_corpus.py --n 10000 --out /tmp/corpus/n10k/workspace --seed 1
//! cargo run --release -p cairn-bench -- harvest --workspace /tmp/corpus/n10k/workspace --runs 5
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use cairn_ingest::{HarvestOptions, HarvestRequest, NoProgress};
use cairn_store::SqliteStore;
use clap::{Parser, Subcommand};
use serde::{Deserialize, Serialize};

#[derive(Debug, Parser)]
#[command(name = "cairn-bench")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// First harvest and no-change re-harvest of a workspace, median over runs.
    Harvest {
        /// Workspace to harvest (e.g. from the peers' `gen_corpus.py`)
        #[arg(long)]
        workspace: PathBuf,
        /// Number of runs
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// (internal) one harvest in this process, printing a JSON sample.
    #[command(hide = true)]
    HarvestOnce {
        #[arg(long)]
        workspace: PathBuf,
        #[arg(long)]
        data: PathBuf,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct Sample {
    files: usize,
    bytes: u64,
    seconds: f64,
    peak_rss_mb: f64,
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn harvest_once(workspace: &Path, data: &Path) -> anyhow::Result<Sample> {
    let start = Instant::now();
    let mut store = SqliteStore::open(&data.join("cairn.sqlite"))?;
    let req = HarvestRequest { root: workspace.to_owned(), ..Default::default() };
    let report = cairn_ingest::harvest(&mut store, &HarvestOptions::default(), &req, &NoProgress)?;
    let seconds = start.elapsed().as_secs_f64();
    anyhow::ensure!(report.failed == 0, "{} files failed: {:?}", report.failed, report.problems.first());
    let bytes = walk_bytes(workspace);
    Ok(Sample { files: report.scanned, bytes, seconds, peak_rss_mb: peak_rss_mb() })
}

fn walk_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                total += walk_bytes(&e.path());
            } else if t.is_file() {
                total += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    total
}

fn child(workspace: &Path, data: &Path) -> anyhow::Result<Sample> {
    let out = Command::new(std::env::current_exe()?)
        .args(["harvest-once", "--workspace"])
        .arg(workspace)
        .arg("--data")
        .arg(data)
        .output()?;
    anyhow::ensure!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).context("child output")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::HarvestOnce { workspace, data } => {
            println!("{}", serde_json::to_string(&harvest_once(&workspace, &data)?)?);
        }
        Cmd::Harvest { workspace, runs } => {
            let (mut first, mut again, mut rss_first, mut rss_again) = (vec![], vec![], vec![], vec![]);
            let mut files = 0;
            let mut bytes = 0;
            for run in 0..runs {
                let dir = tempfile::tempdir()?;
                let a = child(&workspace, dir.path())?;
                let b = child(&workspace, dir.path())?;
                eprintln!(
                    "run {run}: first {:.3} s ({:.0} files/s, {:.0} MB peak), re-harvest {:.3} s ({:.0} MB peak)",
                    a.seconds,
                    a.files as f64 / a.seconds,
                    a.peak_rss_mb,
                    b.seconds,
                    b.peak_rss_mb
                );
                files = a.files;
                bytes = a.bytes;
                first.push(a.seconds);
                again.push(b.seconds);
                rss_first.push(a.peak_rss_mb);
                rss_again.push(b.peak_rss_mb);
            }
            let first_s = median(first);
            let result = serde_json::json!({
                "bench": "harvest",
                "files": files,
                "megabytes": bytes as f64 / 1e6,
                "runs": runs,
                "first_harvest_s_median": first_s,
                "first_harvest_files_per_s": files as f64 / first_s,
                "reharvest_s_median": median(again),
                "first_harvest_peak_rss_mb_median": median(rss_first),
                "reharvest_peak_rss_mb_median": median(rss_again),
            });
            println!("{}", serde_json::to_string_pretty(&result)?);
        }
    }
    Ok(())
}
