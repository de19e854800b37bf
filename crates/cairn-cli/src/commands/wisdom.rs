//! `cairn wisdom`: gather lessons, draft a wisdom section (by a chat endpoint, or a worksheet for a
//! person), check a draft, and promote a reviewed draft into SOUL.md.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use cairn_aci::draft::{self, Draft, Kind};
use cairn_aci::wisdom::WisdomSection;
use cairn_aci::{Date, lessons, llm};
use clap::{Args, Subcommand};

use super::aci::{PromoteArgs, promote};
use crate::settings::Settings;

#[derive(Debug, Subcommand)]
pub(crate) enum WisdomCommand {
    /// Gather the lessons (AGENTS.md, LESSONS_LEARNED.md, MEMORY.md, recent daily notes) and say
    /// whether a compression is due
    Collect(CollectArgs),
    /// Draft a `## Wisdom` section from the lessons (by the `[aci.llm]` endpoint; without one, a
    /// worksheet for a person) and list it in the review queue
    Draft(DraftArgs),
    /// Check a draft: entries, words, lessons per entry, nothing specific, tokens, the required entry,
    /// no WISDOM.md; prints its content hash
    Check(CheckArgs),
    /// Replace SOUL.md's `## Wisdom` section with a reviewed draft (needs its hash and a fresh backup)
    Promote(PromoteArgs),
}

#[derive(Debug, Args)]
pub(crate) struct CollectArgs {
    /// The day the last 30 days of daily notes end on (default: today, UTC)
    #[arg(long)]
    pub today: Option<Date>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DraftArgs {
    /// Where to write the draft (default: `<data dir>/aci/drafts/wisdom-<date>.md`)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The day the last 30 days of daily notes end on, and the draft's date (default: today, UTC)
    #[arg(long)]
    pub today: Option<Date>,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The draft
    pub file: PathBuf,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn wisdom(command: WisdomCommand, settings: &Settings) -> anyhow::Result<ExitCode> {
    match command {
        WisdomCommand::Collect(args) => collect(args, settings),
        WisdomCommand::Draft(args) => draft(args, settings),
        WisdomCommand::Check(args) => check(args, settings),
        WisdomCommand::Promote(args) => promote(args, Kind::Wisdom, settings),
    }
}

fn today(arg: Option<Date>) -> Date {
    arg.unwrap_or_else(|| jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date())
}

fn collect(args: CollectArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let c = lessons::collect(&settings.workspace, &settings.aci.wisdom, today(args.today));
    for s in &c.sources {
        if let Some(w) = &s.warning {
            eprintln!("warning: `{}`: {w}", s.path);
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&c)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut s = String::new();
    let mut group = "";
    for l in &c.lessons {
        if l.group != group {
            group = &l.group;
            let _ = writeln!(s, "\n{group}");
        }
        let _ = writeln!(s, "  {:<4} {}", l.id, l.text);
    }
    let _ = writeln!(
        s,
        "\n{} lessons from {} sources",
        c.lessons.len(),
        c.sources.iter().filter(|s| s.lessons > 0).count()
    );
    match (c.last_compressed, c.last_source_lessons) {
        (Some(d), Some(n)) => {
            let _ = writeln!(s, "last compressed: {d} from {n} lessons; {} new", c.new_lessons);
        }
        _ => {
            let _ = writeln!(s, "last compressed: never");
        }
    }
    let _ = writeln!(s, "compression {}: {}", if c.due { "due" } else { "not due" }, c.due_reason);
    outln!("{}", s.trim_start());
    Ok(ExitCode::SUCCESS)
}

fn draft(args: DraftArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let aci = &settings.aci;
    let date = today(args.today);
    let c = lessons::collect(&settings.workspace, &aci.wisdom, date);
    for s in &c.sources {
        if let Some(w) = &s.warning {
            eprintln!("warning: `{}`: {w}", s.path);
        }
    }
    if c.lessons.is_empty() {
        anyhow::bail!("no lessons found in `{}`; nothing to draft", settings.workspace.display());
    }
    let mut section = WisdomSection {
        last_compressed: Some(date),
        source_lessons: Some(c.lessons.len()),
        entries: Vec::new(),
    };
    let model = match aci.llm.endpoint.as_deref() {
        Some(endpoint) => {
            let key =
                match &aci.llm.api_key_env {
                    Some(var) => Some(std::env::var(var).with_context(|| {
                        format!("`[aci.llm] api_key_env` names `{var}`, which is not set")
                    })?),
                    None => None,
                };
            let answer = llm::complete(&aci.llm, key.as_deref(), &llm::prompt(&c.lessons, &aci.wisdom))?;
            let entries = llm::parse_answer(&answer);
            if entries.is_empty() {
                anyhow::bail!(
                    "the chat endpoint `{endpoint}` answered without any `**<Pattern.>** <wisdom> [L1, L2, L3]` line; no draft written"
                );
            }
            section.entries = entries;
            // The memory trigger survives every compression, verbatim.
            if let Some(required) =
                WisdomSection::find(&format!("## Wisdom\n{}\n", aci.wisdom.required_entry))
            {
                let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
                if !section.entries.iter().any(|e| norm(&e.line()) == norm(&aci.wisdom.required_entry)) {
                    section.entries.extend(required.entries);
                }
            }
            Some(aci.llm.model.as_str())
        }
        None => {
            eprintln!("no `[aci.llm] endpoint` configured: writing a worksheet for a person to fill in");
            None
        }
    };
    let text = draft::render_wisdom(&section, &c.lessons, model);
    let out = match args.out {
        Some(p) => p,
        None => settings.data_dir.join("aci").join("drafts").join(format!("wisdom-{date}.md")),
    };
    cairn_aci::atomic::write(&out, text.as_bytes(), cairn_aci::atomic::CrashPoint::Never)?;
    let out = out.canonicalize().unwrap_or(out);
    let hash = cairn_aci::short_hash(text.as_bytes());
    draft::enqueue(&settings.workspace.join(&aci.queue_file), Kind::Wisdom, &out, &hash)?;
    eprintln!(
        "wrote `{}` ({} entries from {} lessons), listed in `{}` for review",
        out.display(),
        section.entries.len(),
        c.lessons.len(),
        aci.queue_file
    );
    outln!("{}", out.display());
    // What the reviewer runs next, with the draft's own check.
    if let Ok(d) = Draft::read(&out) {
        let r = cairn_aci::gate::check_wisdom(&d, &settings.workspace, aci);
        outln!(
            "check: {}{}\nhash: {}",
            if r.ok() { "PASS" } else { "FAIL" },
            if r.ok() {
                String::new()
            } else {
                format!(" ({} failures; `cairn wisdom check` lists them)", r.failures.len())
            },
            d.hash
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let d = Draft::read(&args.file)?;
    if d.kind != Kind::Wisdom {
        anyhow::bail!(
            "`{}` is a {} draft; check it with `cairn tools-compact check`",
            args.file.display(),
            d.kind.as_str()
        );
    }
    let r = cairn_aci::gate::check_wisdom(&d, &settings.workspace, &settings.aci);
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "file": args.file, "hash": d.hash, "ok": r.ok(), "failures": r.failures,
                "entries": r.entries, "section_tokens": r.section_tokens, "soul_tokens": r.soul_tokens,
            }))?
        );
    } else {
        let w = &settings.aci.wisdom;
        let mut s = format!(
            "{} entries; wisdom section {} tokens (at most {}); SOUL.md with it {} tokens (at most {})\n",
            r.entries,
            r.section_tokens,
            w.max_tokens,
            r.soul_tokens.map_or_else(|| "?".to_owned(), |t| t.to_string()),
            w.soul_max_tokens
        );
        for f in &r.failures {
            let _ = writeln!(s, "FAIL {f}");
        }
        let _ = writeln!(s, "{}", if r.ok() { "check: PASS" } else { "check: FAIL" });
        let _ = writeln!(s, "hash: {}", d.hash);
        outln!("{}", s.trim_end());
    }
    Ok(if r.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
