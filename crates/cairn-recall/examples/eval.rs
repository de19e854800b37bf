//! Runs the retrieval evaluation on a LoCoMo-format corpus: `cargo run --release -p cairn-recall --example eval -- CORPUS QUERIES [settings.json]`
use std::path::Path;

use cairn_recall::eval::{EvalOptions, evaluate, load_corpus, load_queries};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let docs = load_corpus(Path::new(&args[0]))?;
    let queries = load_queries(Path::new(&args[1]))?;
    let mut opts = EvalOptions::lexical(vec![1, 5, 10]);
    if let Some(s) = args.get(2) {
        opts.settings = serde_json::from_str(s)?;
    }
    let report = evaluate(&docs, &queries, &opts)?;
    print!("{}", report.table());
    eprintln!("index {:.0} ms, query p50 {:.0} us", report.index_ms, report.query_p50_us);
    Ok(())
}
