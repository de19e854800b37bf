//! Property tests (P1–P6, composition) over generated configs, and internal fault injection.

mod faults;
mod props;

use std::path::Path;

use cairn_core::Audience;
use proptest::prelude::*;

use crate::schema::*;

pub(crate) const KEYWORDS: [&str; 10] =
    ["alpha", "bravo", "charlie", "delta", "echo", "fox trot", "golf", "hotel", "india", "juliet"];
pub(crate) const FILLER: [&str; 6] = ["the", "please", "with", "some", "today", "and"];
pub(crate) const ENTITIES: [&str; 4] = ["zulu", "yankee", "xray", "whiskey"];

/// A generated config, kept as a model so tests can compute expectations independently.
#[derive(Debug, Clone)]
pub(crate) struct Model {
    pub rules: Vec<ModelRule>,
    /// Additional packs: (pack type index, scope, enabled).
    pub extras: Vec<(Audience, bool)>,
}

#[derive(Debug, Clone)]
pub(crate) struct ModelRule {
    pub scope: Audience,
    pub pack_scope: Audience,
    pub keywords: Vec<usize>,
    pub weight: f64,
    pub min_confidence: f64,
    /// (entity index, weight, suppressed rule indices)
    pub boosts: Vec<(usize, f64, Vec<usize>)>,
    /// (extra pack index, or `n + rule index` for another rule's primary pack type, required)
    pub compose: Vec<(usize, bool)>,
}

fn audience() -> impl Strategy<Value = Audience> {
    prop_oneof![Just(Audience::Public), Just(Audience::Private)]
}

pub(crate) fn model() -> impl Strategy<Value = Model> {
    (2usize..6, prop::collection::vec((audience(), any::<bool>()), 1..4)).prop_flat_map(|(n, extras)| {
        let e = extras.len();
        let rule = (
            audience(),
            audience(),
            prop::collection::btree_set(0..KEYWORDS.len(), 1..4),
            prop_oneof![Just(0.5), Just(1.0), Just(2.0)],
            prop_oneof![3 => Just(0.3), 1 => Just(1.5)],
            prop::collection::vec(
                (
                    0..ENTITIES.len(),
                    prop_oneof![Just(0.0), Just(1.0), Just(2.5)],
                    prop::collection::vec(0..n, 0..2),
                ),
                0..3,
            ),
            prop::collection::vec((0..e + n, any::<bool>()), 0..4),
        )
            .prop_map(|(scope, pack_scope, kws, weight, min_confidence, boosts, compose)| {
                ModelRule {
                    scope,
                    pack_scope,
                    keywords: kws.into_iter().collect(),
                    weight,
                    min_confidence,
                    boosts,
                    compose,
                }
            });
        (prop::collection::vec(rule, n), Just(extras)).prop_map(|(rules, extras)| Model { rules, extras })
    })
}

impl Model {
    pub(crate) fn write(&self, dir: &Path) {
        let n = self.rules.len();
        let rules = self
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| RuleDef {
                id: format!("r{i}"),
                consumer_profile: format!("p{i}"),
                pack_type: format!("t{i}"),
                scope: r.scope,
                keywords: r.keywords.iter().map(|&k| KEYWORDS[k].to_owned()).collect(),
                keyword_weight: Some(r.weight),
                min_confidence: Some(r.min_confidence),
                match_mode: None,
                entity_boosts: r
                    .boosts
                    .iter()
                    .map(|(e, w, s)| BoostDef {
                        summary_pattern: format!(r"\b{}\b", ENTITIES[*e]),
                        fact_pattern: None,
                        weight: *w,
                        suppresses: s.iter().map(|s| format!("r{s}")).collect(),
                    })
                    .collect(),
            })
            .collect();
        let intent = IntentRulesFile {
            schema_version: 1,
            defaults: Defaults::default(),
            sticky: StickyDef::default(),
            monitor: MonitorDef::default(),
            rules,
        };
        let profiles = ProfilesFile {
            schema_version: 1,
            profiles: (0..n)
                .map(|i| ProfileDef { id: format!("p{i}"), primary_pack: format!("k{i}"), description: None })
                .collect(),
        };
        let mut packs: Vec<PackEntryDef> = self
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| PackEntryDef {
                id: format!("k{i}"),
                pack_type: format!("t{i}"),
                mode: None,
                path: format!("k{i}.pack.yaml"),
                scope: r.pack_scope,
                enabled: true,
            })
            .collect();
        for (j, (scope, enabled)) in self.extras.iter().enumerate() {
            packs.push(PackEntryDef {
                id: format!("a{j}"),
                pack_type: format!("x{j}"),
                mode: None,
                path: format!("a{j}.pack.yaml"),
                scope: *scope,
                enabled: *enabled,
            });
        }
        for p in &packs {
            let file = PackFile {
                schema_version: None,
                name: p.id.clone(),
                title: None,
                workflow_id: p.id.clone(),
                description: format!("pack {}", p.id),
                domain_context: format!("context of {}", p.id),
                compliance_rules: None,
                steps: vec![],
                scope: None,
            };
            std::fs::write(dir.join(&p.path), serde_yaml_ng::to_string(&file).unwrap()).unwrap();
        }
        let registry = RegistryFile { schema_version: 1, packs };
        let composition = CompositionFile {
            schema_version: 1,
            rules: self
                .rules
                .iter()
                .enumerate()
                .map(|(i, r)| CompositionRuleDef {
                    primary_intent: format!("r{i}"),
                    inject_additional: r
                        .compose
                        .iter()
                        .map(|(c, required)| AdditionalDef {
                            pack_type: self.compose_type(*c),
                            mode: None,
                            required: *required,
                            condition: Condition::Always,
                        })
                        .collect(),
                })
                .collect(),
        };
        let w = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
        w("intent_rules.yaml", serde_yaml_ng::to_string(&intent).unwrap());
        w("consumer_profiles.yaml", serde_yaml_ng::to_string(&profiles).unwrap());
        w("pack_registry.yaml", serde_yaml_ng::to_string(&registry).unwrap());
        w("pack_composition_rules.yaml", serde_yaml_ng::to_string(&composition).unwrap());
    }

    pub(crate) fn compose_type(&self, c: usize) -> String {
        if c < self.extras.len() { format!("x{c}") } else { format!("t{}", c - self.extras.len()) }
    }

    /// The expected composed pack ids for rule `r` (reference model), or `None` when a
    /// required pack is unavailable.
    pub(crate) fn expected_composition(&self, r: usize, shared: bool) -> Option<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        let primary = format!("k{r}");
        for (c, required) in &self.rules[r].compose {
            let (id, scope, enabled) = if *c < self.extras.len() {
                let (s, e) = self.extras[*c];
                (format!("a{c}"), s, e)
            } else {
                let o = c - self.extras.len();
                (format!("k{o}"), self.rules[o].pack_scope, true)
            };
            if !enabled {
                if *required {
                    return None;
                }
                continue;
            }
            if scope == Audience::Private && shared {
                continue;
            }
            if id != primary && !out.contains(&id) {
                out.push(id);
            }
        }
        Some(out)
    }
}
