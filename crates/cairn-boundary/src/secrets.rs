//! Credentials: API keys and tokens in the formats their issuers document, private key blocks, and
//! long random-looking values assigned to a credential-named key.
//!
//! Messages show only the first characters of what matched: the report must not spread the secret
//! further than the file already did.

use std::sync::LazyLock;

use regex::Regex;

use crate::finding::{Hit, Rule};
use crate::text::LineIndex;

/// What a candidate must look like to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The format alone is specific enough.
    Any,
    /// Letters and digits both, and at least [`MIN_ENTROPY`] bits per character: a random value,
    /// not a word or a placeholder.
    Random,
}

/// Shannon entropy (bits per character) a generic credential value needs.
const MIN_ENTROPY: f64 = 3.5;

struct Pattern {
    name: &'static str,
    regex: Regex,
    /// The capture group holding the value (0: the whole match).
    group: usize,
    shape: Shape,
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |name, re: &str, group, shape| Pattern {
        name,
        regex: Regex::new(re).expect("secret patterns compile"),
        group,
        shape,
    };
    vec![
        p("private key block", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----", 0, Shape::Any),
        p("AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", 0, Shape::Any),
        p(
            "AWS secret access key",
            r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
            1,
            Shape::Random,
        ),
        p("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})", 0, Shape::Any),
        p("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}", 0, Shape::Any),
        p("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0, Shape::Any),
        p(
            "Slack webhook",
            r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
            0,
            Shape::Any,
        ),
        p("Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b", 0, Shape::Any),
        p("Stripe key", r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}", 0, Shape::Any),
        p("npm token", r"\bnpm_[A-Za-z0-9]{36}\b", 0, Shape::Any),
        p("Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}\b", 0, Shape::Any),
        p(
            "OpenAI or Anthropic API key",
            r"\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{32,}",
            0,
            Shape::Random,
        ),
        p(
            "JSON Web Token",
            r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            0,
            Shape::Any,
        ),
        p(
            "credential assignment",
            r#"(?i)\b[a-z0-9_.-]*(?:api_?key|apikey|secret|token|passwd|password|access_?key|auth)["']?\s*[:=]\s*["']([A-Za-z0-9+/_.=-]{20,})["']"#,
            1,
            Shape::Random,
        ),
        p("bearer token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{24,})", 1, Shape::Random),
    ]
});

/// Bits per character of `s`'s character distribution.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts.values().map(|&c| c as f64 / n).map(|p| -p * p.log2()).sum()
}

fn looks_random(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
        && entropy(value) >= MIN_ENTROPY
}

/// The first characters of a secret, enough to find it again.
fn masked(value: &str) -> String {
    let head: String = value.chars().take(6).collect();
    format!("{head}…")
}

/// Every secret in `text`.
pub(crate) fn scan(text: &str, lines: &LineIndex, hits: &mut Vec<Hit>) {
    for pattern in PATTERNS.iter() {
        for caps in pattern.regex.captures_iter(text) {
            let Some(value) = caps.get(pattern.group) else { continue };
            if pattern.shape == Shape::Random && !looks_random(value.as_str()) {
                continue;
            }
            let shown = if pattern.group == 0 && pattern.name == "private key block" {
                value.as_str().to_owned()
            } else {
                format!("`{}`", masked(value.as_str()))
            };
            hits.push(Hit::new(
                lines.line_of(value.start()),
                Rule::Secret,
                format!("{}: {shown}", pattern.name),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test secrets are assembled at run time, so that this file never holds one (the repository is
    /// audited with the same patterns).
    fn join(parts: &[&str]) -> String {
        parts.concat()
    }

    fn names(text: &str) -> Vec<String> {
        let mut hits = Vec::new();
        scan(text, &LineIndex::new(text), &mut hits);
        hits.into_iter().map(|h| h.message.split(':').next().unwrap().to_owned()).collect()
    }

    #[test]
    fn each_format_is_found() {
        let cases = [
            (join(&["-----BEGIN ", "RSA PRIVATE KEY-----\nMIIB"]), "private key block"),
            (join(&["-----BEGIN ", "OPENSSH PRIVATE KEY-----"]), "private key block"),
            (join(&["-----BEGIN ", "PRIVATE KEY-----"]), "private key block"),
            (join(&["-----BEGIN PGP ", "PRIVATE KEY BLOCK-----"]), "private key block"),
            (join(&["key = AK", "IAQ3X7Z2L9M4N8P1R6"]), "AWS access key id"),
            (
                join(&["aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY9k2q8zT3vB"]),
                "AWS secret access key",
            ),
            (join(&["gh", "p_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"]), "GitHub token"),
            (join(&["glp", "at-", "x8Yb2Kq9Lm3Np4Rs5Tu6"]), "GitLab token"),
            (join(&["xo", "xb-", "1234567890-abcdefghij"]), "Slack token"),
            (
                join(&["https://hooks.slack.com/services/", "T0123ABCD/B0123ABCD/abcDEF123ghiJKL"]),
                "Slack webhook",
            ),
            (join(&["AI", "za", "SyD3k9mQ2xV7bN4cR8tW1yZ6hJ5gF0pL3sE"]), "Google API key"),
            (join(&["sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc"]), "Stripe key"),
            (join(&["np", "m_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"]), "npm token"),
            (join(&["h", "f_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"]), "Hugging Face token"),
            (join(&["s", "k-ant-", "api03-Xy7Qw2Er9Ty4Ui1Op6As3Df8Gh5Jk0Lz"]), "OpenAI or Anthropic API key"),
            (
                join(&[
                    "ey",
                    "JhbGciOiJIUzI1NiJ9.",
                    "eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
                    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                ]),
                "JSON Web Token",
            ),
            (join(&["api_key: \"", "Zx81Qm4Tr7Yb2Nc5Vd9Lp3Ks6\""]), "credential assignment"),
            (join(&["\"client_secret\": \"", "q7W2e9R4t1Y8u3I6o0P5a2S7d\""]), "credential assignment"),
            (join(&["Authorization: Bearer ", "Zx81Qm4Tr7Yb2Nc5Vd9Lp3Ks6Wq0"]), "bearer token"),
        ];
        for (text, name) in &cases {
            assert_eq!(names(text), [*name], "{text:?}");
        }
    }

    #[test]
    fn words_placeholders_and_short_values_are_not_secrets() {
        for text in [
            "token = \"your-api-token-goes-here\"",
            "password: \"correct horse battery staple\"",
            "api_key: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
            "secret = \"aaaaaaaaaaaaaaaaaaaa1\"",
            "token: \"short1\"",
            "Authorization: Bearer $(cat serve.token)",
            "sk-learn-preprocessing-and-model-selection-guide",
            "the AKIA prefix marks an access key id",
            "-----BEGIN PUBLIC KEY-----",
        ] {
            assert_eq!(names(text), Vec::<String>::new(), "{text:?}");
        }
    }

    #[test]
    fn messages_mask_the_value_and_name_the_line() {
        let text = join(&["line one\nkey: AK", "IAQ3X7Z2L9M4N8P1R6\n"]);
        let mut hits = Vec::new();
        scan(&text, &LineIndex::new(&text), &mut hits);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].line, 2);
        assert_eq!(hits[0].message, "AWS access key id: `AKIAQ3…`");
    }
}
