//! Rules and findings: what the audit can say about a file, and where.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Every check the audit makes. The names (kebab-case) are what reports print and what an
/// allowlist's `exempt[].rules` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Rule {
    /// The path matches the denylist (checked first: the allowlist cannot override it).
    Denied,
    /// The path matches no allowlist pattern (a warning, a violation under `--strict`).
    Unlisted,
    /// The file lies inside the private overlay directory.
    PrivateFile,
    /// An intent rule id of the private overlay.
    PrivateIntent,
    /// An intent keyword of the private overlay.
    PrivateKeyword,
    /// A consumer profile id of the private overlay.
    PrivateProfile,
    /// A pack id of the private overlay.
    PrivatePackId,
    /// A line of a private overlay pack's prose.
    PrivatePackText,
    /// A session owner id of the private overlay.
    PrivateOwnerId,
    /// A pack file (`*.pack.yaml`, `.yml`, `.json`) marked `scope: private`.
    PrivatePack,
    /// An API key, token or private key block.
    Secret,
    /// An e-mail address outside the reserved example domains.
    Email,
    /// A phone number outside the reserved 555-0100–0199 range.
    Phone,
}

impl Rule {
    /// Every rule, in report order.
    pub const ALL: [Rule; 13] = [
        Rule::Denied,
        Rule::Unlisted,
        Rule::PrivateFile,
        Rule::PrivateIntent,
        Rule::PrivateKeyword,
        Rule::PrivateProfile,
        Rule::PrivatePackId,
        Rule::PrivatePackText,
        Rule::PrivateOwnerId,
        Rule::PrivatePack,
        Rule::Secret,
        Rule::Email,
        Rule::Phone,
    ];

    /// The rule's name, as reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Denied => "denied",
            Rule::Unlisted => "unlisted",
            Rule::PrivateFile => "private-file",
            Rule::PrivateIntent => "private-intent",
            Rule::PrivateKeyword => "private-keyword",
            Rule::PrivateProfile => "private-profile",
            Rule::PrivatePackId => "private-pack-id",
            Rule::PrivatePackText => "private-pack-text",
            Rule::PrivateOwnerId => "private-owner-id",
            Rule::PrivatePack => "private-pack",
            Rule::Secret => "secret",
            Rule::Email => "email",
            Rule::Phone => "phone",
        }
    }

    /// Whether the rule is about a file's path (and so cannot be exempted: allow the path
    /// instead, or take it off the denylist) rather than its content.
    pub fn is_path_rule(self) -> bool {
        matches!(self, Rule::Denied | Rule::Unlisted | Rule::PrivateFile)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing found: a file (relative to the audited root, `/`-separated), the line for content
/// rules, the rule and a message saying what matched.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    /// The file, relative to the audited root.
    pub path: String,
    /// The 1-based line (content rules only).
    pub line: Option<usize>,
    /// The rule.
    pub rule: Rule,
    /// What matched.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}: {}", self.rule, self.message)
    }
}

/// A content finding at a line of the file being checked (its path is filled in by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub line: usize,
    pub rule: Rule,
    pub message: String,
}

impl Hit {
    pub(crate) fn new(line: usize, rule: Rule, message: String) -> Hit {
        Hit { line, rule, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_yaml() {
        for rule in Rule::ALL {
            let parsed: Rule = serde_yaml_ng::from_str(rule.as_str()).unwrap();
            assert_eq!(parsed, rule);
        }
        assert!(serde_yaml_ng::from_str::<Rule>("secrets").is_err());
    }

    #[test]
    fn a_finding_prints_as_path_line_rule_message() {
        let f = Finding { path: "a/b.md".into(), line: Some(3), rule: Rule::Email, message: "m".into() };
        assert_eq!(f.to_string(), "a/b.md:3: email: m");
        let f = Finding { line: None, rule: Rule::Unlisted, ..f };
        assert_eq!(f.to_string(), "a/b.md: unlisted: m");
    }
}
