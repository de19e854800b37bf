//! What a config directory would give away if it were published: the words and prose that make it
//! someone's own (their intents, keywords, profile and pack names, pack text, owner ids).
//!
//! The routing config itself never needs this view; it exists for tools that check that none of it
//! reaches a public tree (`cairn boundary audit --private-dir`).

use std::path::PathBuf;

use cairn_core::Audience;

use crate::config::RouteConfig;

/// The identifying words and text of a loaded [`RouteConfig`], as written in its files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vocabulary {
    /// Intent rule ids, in file order.
    pub intents: Vec<String>,
    /// Every rule's keywords, as written (one per distinct folded form within a rule), in file order.
    pub keywords: Vec<String>,
    /// Consumer profile ids.
    pub profiles: Vec<String>,
    /// Session owner ids (`sessions.owner_ids`).
    pub owner_ids: Vec<String>,
    /// Every registry pack, enabled or not, in registry order.
    pub packs: Vec<PackText>,
}

/// One pack of a [`Vocabulary`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackText {
    /// The registry id.
    pub id: String,
    /// The pack file (it need not exist for a disabled pack).
    pub path: PathBuf,
    /// The pack's scope (private if the registry entry or the file says so).
    pub scope: Audience,
    /// Whether the registry enables it; a disabled pack's file is not read, so it has no text.
    pub enabled: bool,
    /// The pack's prose, one entry per non-empty line (trimmed): title, description, domain
    /// context, compliance rules and step descriptions.
    pub text: Vec<String>,
}

impl RouteConfig {
    /// The config's identifying words and pack text.
    pub fn vocabulary(&self) -> Vocabulary {
        Vocabulary {
            intents: self.rules.iter().map(|r| r.id.clone()).collect(),
            keywords: self.rules.iter().flat_map(|r| r.keywords.iter().cloned()).collect(),
            profiles: self.profiles.keys().cloned().collect(),
            owner_ids: self.sessions.owner_ids.iter().cloned().collect(),
            packs: self
                .packs
                .iter()
                .map(|p| PackText {
                    id: p.id.clone(),
                    path: p.path.clone(),
                    scope: p.scope,
                    enabled: p.enabled,
                    text: p.text.clone(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Vocabulary {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/config");
        RouteConfig::load(dir).unwrap().vocabulary()
    }

    #[test]
    fn names_every_rule_profile_and_pack() {
        let v = example();
        assert_eq!(v.intents, ["dining", "deal_review", "investment_memo", "social_post", "travel"]);
        assert!(v.keywords.iter().any(|k| k == "book a table"));
        assert!(v.keywords.iter().any(|k| k == "jet lag"));
        assert!(v.profiles.iter().any(|p| p == "deal_analyst"));
        let ids: Vec<&str> = v.packs.iter().map(|p| p.id.as_str()).collect();
        assert!(ids.contains(&"writing_samples_formal"), "disabled packs are named too: {ids:?}");
    }

    #[test]
    fn pack_text_is_its_prose_line_by_line() {
        let v = example();
        let dining = v.packs.iter().find(|p| p.id == "dining_recs").unwrap();
        assert_eq!(dining.scope, Audience::Private);
        assert!(dining.path.ends_with("packs/dining_recs.pack.yaml"));
        assert_eq!(dining.text.first().map(String::as_str), Some("Dining Recommendations"));
        for line in [
            "Prefer places already rated well in memory. Check opening hours, dietary needs and",
            "Never book or pay without explicit confirmation.",
            "Book only after a yes",
        ] {
            assert!(dining.text.iter().any(|l| l == line), "{line:?} missing from {:?}", dining.text);
        }
        let disabled = v.packs.iter().find(|p| p.id == "writing_samples_formal").unwrap();
        assert!(!disabled.enabled && disabled.text.is_empty());
    }
}
