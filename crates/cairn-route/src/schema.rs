//! The on-disk schema of the config files (YAML or JSON, `schema_version: 1`, unknown keys rejected).
//!
//! These types are the serde view of the files; [`crate::RouteConfig`] is the validated, compiled form.

use std::collections::BTreeMap;

use cairn_core::Audience;
use serde::{Deserialize, Serialize};

/// `intent_rules.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IntentRulesFile {
    pub schema_version: u32,
    #[serde(default)]
    pub defaults: Defaults,
    #[serde(default)]
    pub sticky: StickyDef,
    #[serde(default)]
    pub monitor: MonitorDef,
    pub rules: Vec<RuleDef>,
}

/// Defaults applied to every rule that does not override them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Defaults {
    #[serde(default = "one")]
    pub keyword_weight: f64,
    #[serde(default = "point_three")]
    pub min_confidence: f64,
    #[serde(default, rename = "match")]
    pub match_mode: MatchMode,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults { keyword_weight: 1.0, min_confidence: 0.3, match_mode: MatchMode::Word }
    }
}

fn one() -> f64 {
    1.0
}
fn point_three() -> f64 {
    0.3
}

/// How a rule's keywords are matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MatchMode {
    /// On word boundaries (the default).
    #[default]
    Word,
    /// Anywhere, even inside a word.
    Substring,
}

/// Sticky follow-up settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StickyDef {
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default = "twenty")]
    pub max_words: usize,
    #[serde(default = "default_ttl")]
    pub ttl_secs: u64,
    #[serde(default = "five")]
    pub max_consecutive: u32,
    #[serde(default = "default_phrases")]
    pub continuation_phrases: Vec<String>,
}

impl Default for StickyDef {
    fn default() -> Self {
        StickyDef {
            enabled: true,
            max_words: 20,
            ttl_secs: default_ttl(),
            max_consecutive: 5,
            continuation_phrases: default_phrases(),
        }
    }
}

fn yes() -> bool {
    true
}
fn twenty() -> usize {
    20
}
fn five() -> u32 {
    5
}
fn default_ttl() -> u64 {
    1800
}
pub(crate) fn default_phrases() -> Vec<String> {
    ["also", "and what about", "what about", "continue", "go on", "and also", "follow up on"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

/// Post-deploy monitor settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MonitorDef {
    #[serde(default = "point_three")]
    pub max_rate: f64,
    #[serde(default = "default_window")]
    pub window_secs: u64,
    #[serde(default = "twenty")]
    pub min_turns: usize,
}

impl Default for MonitorDef {
    fn default() -> Self {
        MonitorDef { max_rate: 0.3, window_secs: default_window(), min_turns: 20 }
    }
}

fn default_window() -> u64 {
    7 * 24 * 3600
}

/// One intent rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RuleDef {
    pub id: String,
    pub consumer_profile: String,
    pub pack_type: String,
    pub scope: Audience,
    pub keywords: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword_weight: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_confidence: Option<f64>,
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_mode: Option<MatchMode>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entity_boosts: Vec<BoostDef>,
}

/// One entity boost.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BoostDef {
    pub summary_pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact_pattern: Option<String>,
    pub weight: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppresses: Vec<String>,
}

/// `consumer_profiles.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfilesFile {
    pub schema_version: u32,
    pub profiles: Vec<ProfileDef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfileDef {
    pub id: String,
    pub primary_pack: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `pack_registry.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegistryFile {
    pub schema_version: u32,
    pub packs: Vec<PackEntryDef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PackEntryDef {
    pub id: String,
    pub pack_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub path: String,
    pub scope: Audience,
    #[serde(default = "yes")]
    pub enabled: bool,
}

/// `pack_composition_rules.yaml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompositionFile {
    pub schema_version: u32,
    #[serde(default)]
    pub rules: Vec<CompositionRuleDef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompositionRuleDef {
    pub primary_intent: String,
    #[serde(default)]
    pub inject_additional: Vec<AdditionalDef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdditionalDef {
    pub pack_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub condition: Condition,
}

/// When an additional pack is injected. v1 knows only `always`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Condition {
    #[default]
    Always,
}

/// A `*.pack.yaml` file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PackFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<u32>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub workflow_id: String,
    pub description: String,
    pub domain_context: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance_rules: Option<String>,
    #[serde(default)]
    pub steps: Vec<StepDef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Audience>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepDef {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `sessions.yaml`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SessionsFile {
    pub schema_version: u32,
    #[serde(default)]
    pub owner_ids: Vec<String>,
    #[serde(default)]
    pub file_sets: FileSetsDef,
    #[serde(default)]
    pub topic_extras: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_target: Option<usize>,
    /// Who a key in no known format is: `shared` (default: fail closed) or `owner`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<UnknownKeys>,
}

/// How session keys in no known format are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum UnknownKeys {
    /// As a shared audience: public memory only, no private pack.
    Shared,
    /// As the owner's.
    Owner,
}

/// Per-session-type overrides of the bootstrap file set.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileSetsDef {
    pub main_session: Option<Vec<String>>,
    pub private_dm: Option<Vec<String>>,
    pub external_dm: Option<Vec<String>>,
    pub forum_topic: Option<Vec<String>>,
    pub group_chat: Option<Vec<String>>,
    pub subagent: Option<Vec<String>>,
    pub heartbeat_cron: Option<Vec<String>>,
    pub fallback: Option<Vec<String>>,
}
