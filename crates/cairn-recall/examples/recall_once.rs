//! What `cairn recall --json` does, as a standalone process, for cold-start measurements:
//! `recall_once INDEX_DIR "QUERY"` opens the index, runs every lane and prints the result as JSON.
use std::io::Write;

use cairn_core::Scope;
use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let index = RecallIndex::open(std::path::Path::new(&args[0]))?;
    let recaller = Recaller::new(&index, RecallSettings::default())?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as i64;
    let result = recaller.recall(&RecallQuery::new(args[1].as_str(), Scope::owner(None), 10, now));
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &result)?;
    writeln!(out)?;
    Ok(())
}
