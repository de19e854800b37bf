//! The one call to an OpenAI-compatible chat endpoint (`POST {endpoint}/v1/chat/completions`) that turns
//! grouped lessons into draft wisdom entries, with a timeout per attempt and retries on timeouts,
//! refused connections and 5xx answers. Every error names the endpoint.

use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use crate::lessons::Lesson;
use crate::wisdom::Entry;
use crate::{Error, LlmSettings, Result, WisdomSettings};

/// The instruction, as the compression pipeline defines it.
pub const INSTRUCTION: &str = "Group these lessons by theme. For each theme, write one compressed wisdom pattern: \
                               broader applicability, no implementation-specific details, maximum 15 words.";

/// The user message: the instruction, the answer format, and the lessons grouped by source.
pub fn prompt(lessons: &[Lesson], settings: &WisdomSettings) -> String {
    let mut s = format!(
        "{INSTRUCTION}\n\nAnswer with one line per theme and nothing else, in this form:\n\
         **<Pattern name.>** <wisdom> [L1, L2, L3]\n\
         In the brackets, list the ids of the lessons the pattern covers; each pattern covers at least {} lessons. \
         Write {} to {} patterns. Never mention port numbers, model names, file paths or hostnames.\n\nLessons:\n",
        settings.min_lessons,
        settings.min_entries.saturating_sub(1).max(1),
        settings.max_entries.saturating_sub(1).max(1),
    );
    let mut group = "";
    for l in lessons {
        if l.group != group {
            group = &l.group;
            s.push_str(&format!("\n## {group}\n"));
        }
        s.push_str(&format!("{} {}\n", l.id, l.text));
    }
    s
}

/// Asks the endpoint; returns the model's answer text.
pub fn complete(llm: &LlmSettings, api_key: Option<&str>, user: &str) -> Result<String> {
    let Some(endpoint) = llm.endpoint.as_deref().map(|e| e.trim_end_matches('/').to_owned()) else {
        return Err(Error::Llm {
            endpoint: "(none)".into(),
            why: "is not configured (`[aci.llm] endpoint`)".into(),
        });
    };
    let fail = |why: String| Error::Llm { endpoint: endpoint.clone(), why };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let body = json!({
        "model": llm.model,
        "temperature": 0.2,
        "messages": [
            {"role": "system", "content": "You compress an agent's operational lessons into short, broadly applicable wisdom."},
            {"role": "user", "content": user},
        ],
    });
    let bytes = serde_json::to_vec(&body).map_err(|e| fail(format!("request: {e}")))?;
    let timeout = Duration::from_millis(llm.timeout_ms);
    let url = format!("{endpoint}/v1/chat/completions");
    let mut last = String::new();
    for attempt in 0..=llm.retries {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(250 * u64::from(attempt)));
        }
        let mut req = agent.post(&url).header("Content-Type", "application/json");
        if let Some(key) = api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let resp = req.config().timeout_global(Some(timeout)).build().send(&bytes[..]);
        let mut resp = match resp {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => {
                last = format!("did not answer within {} ms", llm.timeout_ms);
                continue;
            }
            Err(ureq::Error::Io(io)) if io.kind() == std::io::ErrorKind::TimedOut => {
                last = format!("did not answer within {} ms", llm.timeout_ms);
                continue;
            }
            Err(e) => {
                last = format!("is unreachable ({e})");
                continue;
            }
        };
        let status = resp.status().as_u16();
        let text = match resp.body_mut().with_config().limit(8 << 20).lossy_utf8(true).read_to_string() {
            Ok(t) => t,
            Err(ureq::Error::Timeout(_)) => {
                last = format!("did not answer within {} ms", llm.timeout_ms);
                continue;
            }
            Err(e) => {
                last = format!("broke off its answer ({e})");
                continue;
            }
        };
        if status >= 500 {
            last = format!("answered HTTP {status}");
            continue;
        }
        if !(200..300).contains(&status) {
            return Err(fail(format!(
                "answered HTTP {status} (not retried: check the model name and the API key)"
            )));
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|_| fail("answered with something that is not JSON".into()))?;
        return v["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| fail("answered without `choices[0].message.content`".into()));
    }
    Err(fail(format!("{last} ({} attempt(s))", llm.retries + 1)))
}

static IDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[\s*(L\d+(\s*,\s*L\d+)*)\s*\]\s*$").unwrap());

/// The entries of a model's answer: lines `**<Pattern.>** <wisdom> [L1, L2]` (list markers and
/// numbering tolerated); other lines are ignored.
pub fn parse_answer(answer: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for line in answer.lines() {
        let t = line
            .trim()
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ')' | '-' | ' '));
        let Some(rest) = t.strip_prefix("**") else { continue };
        let Some(end) = rest.find("**") else { continue };
        let name = rest[..end].trim().to_owned();
        let mut text = rest[end + 2..].trim().to_owned();
        let mut covers = Vec::new();
        if let Some(c) = IDS.captures(&text) {
            covers = c[1].split(',').map(|s| s.trim().to_owned()).collect();
            let at = c.get(0).map_or(text.len(), |m| m.start());
            text = text[..at].trim().to_owned();
        }
        if !name.is_empty() && !text.is_empty() {
            out.push(Entry { name, text, covers });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_lines_with_their_lessons() {
        let e = super::parse_answer(
            "Here you go:\n1. **Verify first.** Names drift. [L1, L3,L9]\n- **Small steps.** One change at a time. [L2]\nnoise\n",
        );
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "Verify first.");
        assert_eq!(e[0].text, "Names drift.");
        assert_eq!(e[0].covers, ["L1", "L3", "L9"]);
    }
}
