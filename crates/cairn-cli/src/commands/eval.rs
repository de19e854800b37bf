//! `eval retrieval --workspace DIR --queries FILE`: relevance on a workspace of memory files. The
//! workspace is harvested into a temporary data directory (the user's store is never touched), then
//! every labelled question is asked through the engine, once per run (the configured lanes, and each
//! lane alone); see `cairn_engine::eval`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use cairn_core::NoProgress;
use cairn_engine::eval::{EvalRun, KindFigures, OFF_TOPIC, evaluate, load_questions, reference_time};
use cairn_engine::{Engine, EngineConfig, HarvestRequest};
use cairn_recall::{RecallSettings, lane};

use super::recall::{EvalRetrievalArgs, configured_embedder};
use crate::settings::Settings;

/// One row set: a name and the recall settings it runs with.
struct Run {
    name: String,
    settings: RecallSettings,
}

pub(crate) fn eval_workspace(
    args: &EvalRetrievalArgs,
    workspace: &Path,
    settings: &Settings,
) -> anyhow::Result<ExitCode> {
    let mut questions = load_questions(&args.queries)?;
    if let Some(half) = args.half {
        let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
        questions.retain(|q| {
            let n = seen.entry(q.kind.clone()).or_default();
            *n += 1;
            (*n % 2 == 1) == (half == 1)
        });
    }
    anyhow::ensure!(!questions.is_empty(), "`{}` holds no question", args.queries.display());
    anyhow::ensure!(!args.k.is_empty() && args.k.iter().all(|&k| k > 0), "`--k` needs positive cut-offs");
    anyhow::ensure!(workspace.is_dir(), "workspace `{}` is not a directory", workspace.display());
    let embedder = if args.no_model { None } else { configured_embedder(settings) };
    let base = settings.recall.clone();
    let mut runs = vec![Run { name: "default".into(), settings: base.clone() }];
    let wanted: Vec<String> = if args.lanes.is_empty() {
        let mut v = vec!["lexical".to_owned()];
        if embedder.is_some() {
            v.push("vector".into());
        }
        v
    } else {
        args.lanes.clone()
    };
    for name in wanted.iter().filter(|n| *n != "default") {
        let lanes: Vec<&str> = match name.as_str() {
            "hybrid" => vec![lane::LEXICAL, lane::VECTOR],
            "all" => base.lanes.iter().map(String::as_str).collect(),
            other => super::recall::parse_lanes(other)?,
        };
        if lanes.contains(&lane::VECTOR) && embedder.is_none() {
            anyhow::bail!("`--lanes {name}` needs an embedding model\n\nhint: run `cairn models install`");
        }
        runs.push(Run { name: name.clone(), settings: base.clone().only_lanes(&lanes) });
    }

    let dir = tempfile::tempdir().context("creating a temporary data directory")?;
    let config = |recall: RecallSettings| {
        let mut cfg = EngineConfig::from(settings);
        cfg.data_dir = dir.path().to_path_buf();
        cfg.workspace = Some(workspace.to_path_buf());
        cfg.recall = recall;
        cfg.embedder = embedder.clone();
        if embedder.is_none() {
            cfg.embed.provider = cairn_embed::EmbedProvider::None;
        }
        cfg.graph.use_in_context = false;
        cfg
    };
    let harvested = Engine::open_lazy(config(base.clone()))
        .harvest(
            &HarvestRequest {
                root: workspace.to_path_buf(),
                paths: Vec::new(),
                dry_run: false,
                force: false,
            },
            &NoProgress,
            &NoProgress,
        )
        .with_context(|| format!("harvesting `{}`", workspace.display()))?;
    let report = &harvested.report;
    for p in report.problems.iter().chain(&report.warnings) {
        eprintln!("warning: {p}");
    }
    let first = Engine::open_lazy(config(base.clone()));
    let now = match args.now.as_deref() {
        Some(day) => day_noon(day)?,
        None => reference_time(&first)?.unwrap_or_else(cairn_core::now_ms),
    };
    drop(first);
    let mut results: Vec<EvalRun> = Vec::new();
    for run in &runs {
        let engine = Engine::open_lazy(config(run.settings.clone()));
        results.push(evaluate(&engine, &run.name, &questions, &args.k, now));
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&results)?);
        return Ok(ExitCode::SUCCESS);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "{} files harvested ({} with problems), {} questions; reference day {}; model {}",
        report.scanned,
        report.problems.len(),
        questions.len(),
        results.first().map_or("", |r| r.reference_day.as_str()),
        embedder.as_ref().map_or_else(|| "none".to_owned(), |e| e.model_id().to_owned()),
    )?;
    for r in &results {
        writeln!(out, "\n== {} ==", r.name)?;
        print_table(&mut out, &r.kinds, &args.k)?;
        if !r.on_topic_empty.is_empty() {
            writeln!(out, "on-topic questions with an empty block: {}", r.on_topic_empty.join(", "))?;
        }
        if args.details {
            for a in &r.answers {
                let rank = a.first_target.map_or_else(|| "-".to_owned(), |r| r.to_string());
                writeln!(
                    out,
                    "  {:<12} {:<11} rel {:.2} target@{rank:<2} {} {}",
                    a.id,
                    a.kind,
                    a.relevance,
                    if a.empty {
                        "empty   "
                    } else if a.in_block {
                        "block+t "
                    } else {
                        "block   "
                    },
                    a.files.first().map_or("", String::as_str)
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_table(
    out: &mut impl Write,
    kinds: &std::collections::BTreeMap<String, KindFigures>,
    ks: &[usize],
) -> anyhow::Result<()> {
    write!(out, "{:<12} {:>4}", "kind", "n")?;
    for k in ks {
        write!(out, " {:>7}", format!("hit@{k}"))?;
    }
    for k in ks {
        write!(out, " {:>6}", format!("R@{k}"))?;
    }
    writeln!(out, " {:>6} {:>6} {:>7}", "block", "empty", "tokens")?;
    for (kind, f) in kinds {
        write!(out, "{kind:<12} {:>4}", f.n)?;
        for k in ks {
            match f.hit.get(k) {
                Some(v) if kind != OFF_TOPIC => write!(out, " {v:>7.3}")?,
                _ => write!(out, " {:>7}", "")?,
            }
        }
        for k in ks {
            match f.recall.get(k) {
                Some(v) if kind != OFF_TOPIC => write!(out, " {v:>6.3}")?,
                _ => write!(out, " {:>6}", "")?,
            }
        }
        if kind == OFF_TOPIC {
            write!(out, " {:>6}", "")?;
        } else {
            write!(out, " {:>6.3}", f.block)?;
        }
        writeln!(out, " {:>6.3} {:>7.0}", f.empty, f.tokens)?;
    }
    Ok(())
}

/// Noon (UTC) of `day` (`YYYY-MM-DD`), in milliseconds.
fn day_noon(day: &str) -> anyhow::Result<i64> {
    let date: jiff::civil::Date =
        day.parse().with_context(|| format!("`--now {day}`: expected YYYY-MM-DD"))?;
    let ts = date.at(12, 0, 0, 0).to_zoned(jiff::tz::TimeZone::UTC)?.timestamp();
    Ok(ts.as_millisecond())
}
