//! Shadow evaluation: run labelled cases through the router and compare pack types.

use std::collections::BTreeMap;
use std::path::Path;

use cairn_core::Millis;
use serde::{Deserialize, Serialize};

use crate::config::parse_str;
use crate::error::{Error, Result};
use crate::router::{EntitySummary, Outcome, Router, TurnInput};
use crate::sticky::SessionState;

/// The label for "no pack".
pub const NONE_LABEL: &str = "none";

/// One labelled case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    /// Optional name shown in misses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The prompt.
    pub prompt: String,
    /// The session key (default: none, i.e. the owner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    /// Recall entities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<EntitySummary>,
    /// The intent the previous turn injected (for sticky cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_intent: Option<String>,
    /// Expected pack type; `null` or `"none"` for no pack.
    pub expected: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CasesFile {
    schema_version: u32,
    cases: Vec<EvalCase>,
}

/// Reads a cases file (`{"schema_version": 1, "cases": [...]}`, JSON or YAML).
pub fn load_eval_cases(path: impl AsRef<Path>) -> Result<Vec<EvalCase>> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_owned(), source })?;
    let file: CasesFile = parse_str(path, &text).map_err(|(message, line)| Error::Parse {
        path: path.to_owned(),
        line,
        message,
    })?;
    if file.schema_version != 1 {
        return Err(Error::Input {
            path: path.to_owned(),
            message: format!("unsupported schema_version {} (expected 1)", file.schema_version),
        });
    }
    Ok(file.cases)
}

/// A case the router got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalMiss {
    /// Position in the file (0-based).
    pub index: usize,
    /// The case's id.
    pub id: Option<String>,
    /// The prompt.
    pub prompt: String,
    /// Expected label.
    pub expected: String,
    /// Actual label.
    pub actual: String,
    /// Why the router decided so.
    pub outcome: Outcome,
    /// The decision trace.
    pub trace: Vec<String>,
}

/// Accuracy, confusion and misses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    /// Number of cases.
    pub total: usize,
    /// Cases where the actual pack type equals the expected one.
    pub correct: usize,
    /// `correct / total` (1 when there are no cases).
    pub accuracy: f64,
    /// Expected label → actual label → count.
    pub confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// The wrong cases, in file order.
    pub misses: Vec<EvalMiss>,
}

fn label(p: Option<&str>) -> String {
    match p {
        None => NONE_LABEL.to_owned(),
        Some(s) if s.eq_ignore_ascii_case(NONE_LABEL) => NONE_LABEL.to_owned(),
        Some(s) => s.to_owned(),
    }
}

/// Runs every case (each with fresh session state, at time `now`) and compares pack types.
pub fn evaluate(router: &Router, cases: &[EvalCase], now: Millis) -> EvalReport {
    let mut confusion: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut correct = 0;
    for (index, c) in cases.iter().enumerate() {
        let mut state = SessionState::default();
        let input = TurnInput {
            prompt: &c.prompt,
            session_key: c.session_key.as_deref(),
            entities: &c.entities,
            previous_intent: c.previous_intent.as_deref(),
            now,
            shared: false,
        };
        let d = router.decide(&input, &mut state);
        let expected = label(c.expected.as_deref());
        let actual = label(d.pack_type.as_deref().filter(|_| d.injected()));
        *confusion.entry(expected.clone()).or_default().entry(actual.clone()).or_default() += 1;
        if expected == actual {
            correct += 1;
        } else {
            misses.push(EvalMiss {
                index,
                id: c.id.clone(),
                prompt: c.prompt.clone(),
                expected,
                actual,
                outcome: d.outcome,
                trace: d.trace,
            });
        }
    }
    let total = cases.len();
    EvalReport {
        total,
        correct,
        accuracy: if total == 0 { 1.0 } else { correct as f64 / total as f64 },
        confusion,
        misses,
    }
}
