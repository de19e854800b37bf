//! Loading, validating and compiling a routing config directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use cairn_core::Audience;
use regex::RegexBuilder;
use serde::de::DeserializeOwned;

use crate::error::{Error, Issue, Result};
use crate::matcher::{BoostSets, KeywordMatcher};
use crate::render;
use crate::schema::{
    CompositionFile, IntentRulesFile, MatchMode, MonitorDef, PackFile, ProfilesFile, RegistryFile,
    SessionsFile, StickyDef,
};
use crate::session::{SessionType, SessionsConfig};
use crate::text::fold;

/// File stems looked up in the config directory (`.yaml`, then `.yml`, then `.json`).
pub(crate) const INTENT_RULES: &str = "intent_rules";
pub(crate) const PROFILES: &str = "consumer_profiles";
pub(crate) const REGISTRY: &str = "pack_registry";
pub(crate) const COMPOSITION: &str = "pack_composition_rules";
pub(crate) const SESSIONS: &str = "sessions";

/// A compiled intent rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub id: String,
    pub consumer_profile: String,
    pub pack_type: String,
    pub scope: Audience,
    /// Keywords as written, one per distinct folded form.
    pub keywords: Vec<String>,
    pub folded: Vec<String>,
    pub keyword_weight: f64,
    pub min_confidence: f64,
    pub mode: MatchMode,
    pub boosts: Vec<Boost>,
}

/// A compiled entity boost.
#[derive(Debug, Clone)]
pub(crate) struct Boost {
    pub summary_pattern: String,
    pub fact_pattern: Option<String>,
    pub weight: f64,
    /// Rule indices.
    pub suppresses: Vec<usize>,
    pub summary_id: usize,
    pub fact_id: Option<usize>,
}

/// A registry entry with its loaded, pre-rendered pack file.
#[derive(Debug, Clone)]
pub(crate) struct Pack {
    pub id: String,
    pub pack_type: String,
    pub mode: Option<String>,
    /// Private if the registry entry or the pack file says private.
    pub scope: Audience,
    pub enabled: bool,
    /// Rendered as the primary pack (description, context, compliance, steps).
    pub primary_md: String,
    /// Rendered as a composed section.
    pub composed_md: String,
    /// The pack file (resolved inside the config directory).
    pub path: PathBuf,
    /// The pack's prose as written, one entry per non-empty line: title, description, domain context,
    /// compliance rules, step descriptions (empty for a disabled pack).
    pub text: Vec<String>,
}

/// One `inject_additional` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Additional {
    pub pack_type: String,
    pub mode: Option<String>,
    pub required: bool,
}

/// Sticky follow-up settings (resolved).
#[derive(Debug, Clone)]
pub(crate) struct Sticky {
    pub enabled: bool,
    pub max_words: usize,
    pub ttl_ms: i64,
    pub max_consecutive: u32,
    /// Folded.
    pub phrases: Vec<String>,
}

/// A validated, compiled routing config: rules with their keyword automaton and boost regex
/// sets, profiles, the pack registry with every enabled pack file loaded, composition rules
/// and session settings. Immutable; share it behind an `Arc` (see [`crate::Router`]).
#[derive(Debug, Clone)]
pub struct RouteConfig {
    pub(crate) dir: PathBuf,
    pub(crate) rules: Vec<Rule>,
    pub(crate) rule_index: BTreeMap<String, usize>,
    /// Profile id → primary pack id.
    pub(crate) profiles: BTreeMap<String, String>,
    pub(crate) packs: Vec<Pack>,
    pub(crate) pack_index: BTreeMap<String, usize>,
    /// Rule id → additional packs, in file order.
    pub(crate) composition: BTreeMap<String, Vec<Additional>>,
    pub(crate) sessions: SessionsConfig,
    pub(crate) sticky: Sticky,
    pub(crate) monitor: MonitorDef,
    pub(crate) keywords: KeywordMatcher,
    pub(crate) boost_sets: BoostSets,
}

impl RouteConfig {
    /// Loads and validates every file of a config directory.
    ///
    /// Syntax and schema errors (unknown keys, wrong types) fail at the first one with the file
    /// and line; semantic problems (bad regexes, dangling references, missing pack files, paths
    /// escaping `dir`) are all collected into one [`Error::Invalid`].
    pub fn load(dir: impl AsRef<Path>) -> Result<RouteConfig> {
        let raw = RawConfig::read(dir.as_ref())?;
        let (config, issues) = raw.compile();
        match config {
            Some(c) if issues.is_empty() => Ok(c),
            _ => Err(Error::Invalid { issues }),
        }
    }

    /// The directory it was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Session classification settings.
    pub fn sessions(&self) -> &SessionsConfig {
        &self.sessions
    }

    /// Rule ids, in file order.
    pub fn rule_ids(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|r| r.id.as_str())
    }

    /// The pack type a rule injects.
    pub fn pack_type_of(&self, rule_id: &str) -> Option<&str> {
        self.rule_index.get(rule_id).map(|&i| self.rules[i].pack_type.as_str())
    }

    pub(crate) fn pack(&self, id: &str) -> Option<&Pack> {
        self.pack_index.get(id).map(|&i| &self.packs[i])
    }
}

impl SessionsConfig {
    /// Loads only `sessions.yaml` (or `.yml`/`.json`) from a config directory; the seed's
    /// defaults when the file is absent. For tools that need no intent rules (`cairn bootstrap`).
    pub fn load(dir: impl AsRef<Path>) -> Result<SessionsConfig> {
        let doc = read_doc::<SessionsFile>(dir.as_ref(), SESSIONS, false)?;
        let mut v = Validator::default();
        if let Some(d) = &doc {
            v.schema(d, d.value.schema_version);
        }
        let sessions = compile_sessions(doc.as_ref(), &mut v);
        if v.issues.is_empty() { Ok(sessions) } else { Err(Error::Invalid { issues: v.issues }) }
    }
}

/// A parsed file with its text (for locating lines).
#[derive(Debug, Clone)]
pub(crate) struct Doc<T> {
    pub path: PathBuf,
    pub text: String,
    pub value: T,
}

/// The parsed, not yet validated files of a config directory.
#[derive(Debug, Clone)]
pub(crate) struct RawConfig {
    pub dir: PathBuf,
    pub intent: Doc<IntentRulesFile>,
    pub profiles: Doc<ProfilesFile>,
    pub registry: Doc<RegistryFile>,
    pub composition: Option<Doc<CompositionFile>>,
    pub sessions: Option<Doc<SessionsFile>>,
}

fn find_file(dir: &Path, stem: &str) -> Option<PathBuf> {
    ["yaml", "yml", "json"].iter().map(|ext| dir.join(format!("{stem}.{ext}"))).find(|p| p.is_file())
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_owned(), source })
}

/// Parses YAML (or JSON for `.json`), returning the error's message and line.
pub(crate) fn parse_str<T: DeserializeOwned>(
    path: &Path,
    text: &str,
) -> std::result::Result<T, (String, Option<usize>)> {
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(text).map_err(|e| (e.to_string(), Some(e.line()).filter(|l| *l > 0)))
    } else {
        serde_yaml_ng::from_str(text).map_err(|e| (e.to_string(), e.location().map(|l| l.line())))
    }
}

fn read_doc<T: DeserializeOwned>(dir: &Path, stem: &str, required: bool) -> Result<Option<Doc<T>>> {
    let Some(path) = find_file(dir, stem) else {
        return if required {
            Err(Error::MissingFile { path: dir.join(format!("{stem}.yaml")) })
        } else {
            Ok(None)
        };
    };
    let text = read_text(&path)?;
    let value = parse_str(&path, &text).map_err(|(message, line)| Error::Parse {
        path: path.clone(),
        line,
        message,
    })?;
    Ok(Some(Doc { path, text, value }))
}

fn required<T: DeserializeOwned>(dir: &Path, stem: &str) -> Result<Doc<T>> {
    read_doc(dir, stem, true)?.ok_or_else(|| Error::MissingFile { path: dir.join(format!("{stem}.yaml")) })
}

impl RawConfig {
    pub(crate) fn read(dir: &Path) -> Result<RawConfig> {
        if !dir.is_dir() {
            return Err(Error::MissingDir { path: dir.to_owned() });
        }
        Ok(RawConfig {
            dir: dir.to_owned(),
            intent: required(dir, INTENT_RULES)?,
            profiles: required(dir, PROFILES)?,
            registry: required(dir, REGISTRY)?,
            composition: read_doc(dir, COMPOSITION, false)?,
            sessions: read_doc(dir, SESSIONS, false)?,
        })
    }

    /// Validates and compiles. Returns the config only when no issue was found.
    pub(crate) fn compile(&self) -> (Option<RouteConfig>, Vec<Issue>) {
        let mut v = Validator::default();
        let config = compile_inner(self, &mut v);
        (config.filter(|_| v.issues.is_empty()), v.issues)
    }
}

#[derive(Default)]
struct Validator {
    issues: Vec<Issue>,
}

impl Validator {
    fn push<T>(&mut self, doc: &Doc<T>, field: String, anchors: &[&[&str]], message: impl Into<String>) {
        self.issues.push(Issue {
            file: doc.path.clone(),
            field,
            line: locate(&doc.text, anchors),
            message: message.into(),
        });
    }

    fn schema<T>(&mut self, doc: &Doc<T>, version: u32) {
        if version != 1 {
            self.push(
                doc,
                "schema_version".into(),
                &[&["schema_version"]],
                format!("unsupported schema_version {version} (expected 1)"),
            );
        }
    }

    fn id<T>(&mut self, doc: &Doc<T>, field: String, value: &str) {
        if !valid_id(value) {
            self.push(
                doc,
                field,
                &[&[value]],
                format!("`{value}` is not a valid id (letters, digits, `_`, `-`, `.`; not empty)"),
            );
        }
    }
}

/// Finds the 1-based line where each anchor (all its strings on one line) is found in turn.
pub(crate) fn locate(text: &str, anchors: &[&[&str]]) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let mut from = 0;
    let mut found = None;
    for anchor in anchors {
        let hit = (from..lines.len()).find(|&i| anchor.iter().all(|a| lines[i].contains(a)))?;
        found = Some(hit + 1);
        from = hit;
    }
    found
}

pub(crate) fn valid_id(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// A relative path that stays inside `base` (lexically, and after resolving symlinks if it exists).
pub(crate) fn check_inside(base: &Path, rel: &str) -> std::result::Result<PathBuf, String> {
    let p = Path::new(rel);
    if rel.is_empty() {
        return Err("empty path".into());
    }
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(format!("path `{rel}` escapes the config directory (`..`)")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!("path `{rel}` must be relative to the config directory"));
            }
        }
    }
    let full = base.join(p);
    if full.exists() {
        let (Ok(canon_base), Ok(canon)) = (base.canonicalize(), full.canonicalize()) else {
            return Err(format!("cannot resolve `{rel}`"));
        };
        if !canon.starts_with(&canon_base) {
            return Err(format!("path `{rel}` resolves outside the config directory (symlink)"));
        }
    }
    Ok(full)
}

fn finite_at_least(x: f64, min: f64, strict: bool) -> bool {
    x.is_finite() && if strict { x > min } else { x >= min }
}

fn compile_inner(raw: &RawConfig, v: &mut Validator) -> Option<RouteConfig> {
    let intent = &raw.intent;
    let defaults = &intent.value.defaults;
    v.schema(intent, intent.value.schema_version);
    v.schema(&raw.profiles, raw.profiles.value.schema_version);
    v.schema(&raw.registry, raw.registry.value.schema_version);
    if let Some(c) = &raw.composition {
        v.schema(c, c.value.schema_version);
    }
    if let Some(s) = &raw.sessions {
        v.schema(s, s.value.schema_version);
    }
    if !finite_at_least(defaults.keyword_weight, 0.0, true) {
        v.push(
            intent,
            "defaults.keyword_weight".into(),
            &[&["keyword_weight"]],
            "must be a finite number > 0",
        );
    }
    if !finite_at_least(defaults.min_confidence, 0.0, false) {
        v.push(
            intent,
            "defaults.min_confidence".into(),
            &[&["min_confidence"]],
            "must be a finite number >= 0",
        );
    }
    let sticky = compile_sticky(intent, &intent.value.sticky, v);
    let monitor = intent.value.monitor.clone();
    if !(monitor.max_rate.is_finite() && (0.0..=1.0).contains(&monitor.max_rate)) {
        v.push(intent, "monitor.max_rate".into(), &[&["max_rate"]], "must be between 0 and 1");
    }

    // Rule ids first, so that `suppresses` can refer forward.
    let mut rule_index = BTreeMap::new();
    for (i, r) in intent.value.rules.iter().enumerate() {
        v.id(intent, format!("rules[{i}].id"), &r.id);
        if rule_index.insert(r.id.clone(), i).is_some() {
            v.push(
                intent,
                format!("rules[{i}].id"),
                &[&["id:", &r.id]],
                format!("duplicate rule id `{}`", r.id),
            );
        }
    }
    if intent.value.rules.is_empty() {
        v.push(intent, "rules".into(), &[&["rules"]], "no rules: nothing can ever be injected");
    }

    // Profiles and registry.
    let mut profiles = BTreeMap::new();
    for (i, p) in raw.profiles.value.profiles.iter().enumerate() {
        v.id(&raw.profiles, format!("profiles[{i}].id"), &p.id);
        if profiles.insert(p.id.clone(), p.primary_pack.clone()).is_some() {
            v.push(&raw.profiles, format!("profiles[{i}].id"), &[&["id:", &p.id]], "duplicate profile id");
        }
    }
    let packs = compile_packs(raw, v);
    let pack_index: BTreeMap<String, usize> =
        packs.iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
    for (i, p) in raw.profiles.value.profiles.iter().enumerate() {
        if !pack_index.contains_key(&p.primary_pack) {
            v.push(
                &raw.profiles,
                format!("profiles[{}].primary_pack", p.id),
                &[&["id:", &p.id], &["primary_pack"]],
                format!("unknown pack `{}` (not in pack_registry)", p.primary_pack),
            );
        }
        let _ = i;
    }

    // Rules.
    let mut rules = Vec::with_capacity(intent.value.rules.len());
    let mut summary_patterns: Vec<&str> = Vec::new();
    let mut fact_patterns: Vec<&str> = Vec::new();
    for r in &intent.value.rules {
        let at = |extra: &[&str]| -> Vec<Vec<String>> {
            let mut a = vec![vec!["id:".to_owned(), r.id.clone()]];
            if !extra.is_empty() {
                a.push(extra.iter().map(|s| (*s).to_owned()).collect());
            }
            a
        };
        let push = |v: &mut Validator, field: &str, extra: &[&str], msg: String| {
            let anchors = at(extra);
            let refs: Vec<Vec<&str>> =
                anchors.iter().map(|a| a.iter().map(String::as_str).collect()).collect();
            let refs: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
            v.push(intent, format!("rules[{}].{field}", r.id), &refs, msg);
        };
        if !profiles.contains_key(&r.consumer_profile) {
            push(
                v,
                "consumer_profile",
                &["consumer_profile"],
                format!("unknown consumer profile `{}` (not in consumer_profiles)", r.consumer_profile),
            );
        }
        if !valid_id(&r.pack_type) {
            push(v, "pack_type", &["pack_type"], format!("`{}` is not a valid pack type", r.pack_type));
        }
        let keyword_weight = r.keyword_weight.unwrap_or(defaults.keyword_weight);
        if !finite_at_least(keyword_weight, 0.0, true) {
            push(v, "keyword_weight", &["keyword_weight"], "must be a finite number > 0".into());
        }
        let min_confidence = r.min_confidence.unwrap_or(defaults.min_confidence);
        if !finite_at_least(min_confidence, 0.0, false) {
            push(v, "min_confidence", &["min_confidence"], "must be a finite number >= 0".into());
        }
        let mut keywords = Vec::new();
        let mut folded = Vec::new();
        for (k, kw) in r.keywords.iter().enumerate() {
            let f = fold(kw);
            if f.is_empty() {
                push(v, &format!("keywords[{k}]"), &["keywords"], "empty keyword".into());
            } else if !folded.contains(&f) {
                folded.push(f);
                keywords.push(kw.clone());
            }
        }
        if r.keywords.is_empty() {
            push(
                v,
                "keywords",
                &["keywords"],
                "a rule needs at least one keyword (P1: boosts alone never match)".into(),
            );
        }
        let mut boosts = Vec::new();
        for (b, boost) in r.entity_boosts.iter().enumerate() {
            let field = format!("entity_boosts[{b}]");
            if let Err(e) = RegexBuilder::new(&boost.summary_pattern).case_insensitive(true).build() {
                push(
                    v,
                    &format!("{field}.summary_pattern"),
                    &["summary_pattern", &boost.summary_pattern],
                    format!("invalid regex: {}", one_line(&e.to_string())),
                );
            }
            if let Some(fp) = &boost.fact_pattern
                && let Err(e) = RegexBuilder::new(fp).case_insensitive(true).build()
            {
                push(
                    v,
                    &format!("{field}.fact_pattern"),
                    &["fact_pattern", fp],
                    format!("invalid regex: {}", one_line(&e.to_string())),
                );
            }
            if !finite_at_least(boost.weight, 0.0, false) {
                push(
                    v,
                    &format!("{field}.weight"),
                    &["weight"],
                    "must be a finite number >= 0 (boosts only add, P4)".into(),
                );
            }
            let mut suppresses = Vec::new();
            for s in &boost.suppresses {
                match rule_index.get(s) {
                    Some(&i) => suppresses.push(i),
                    None => push(
                        v,
                        &format!("{field}.suppresses"),
                        &["suppresses"],
                        format!("unknown rule id `{s}`"),
                    ),
                }
            }
            suppresses.sort_unstable();
            suppresses.dedup();
            summary_patterns.push(&boost.summary_pattern);
            let fact_id = boost.fact_pattern.as_deref().map(|fp| {
                fact_patterns.push(fp);
                fact_patterns.len() - 1
            });
            boosts.push(Boost {
                summary_pattern: boost.summary_pattern.clone(),
                fact_pattern: boost.fact_pattern.clone(),
                weight: boost.weight,
                suppresses,
                summary_id: summary_patterns.len() - 1,
                fact_id,
            });
        }
        rules.push(Rule {
            id: r.id.clone(),
            consumer_profile: r.consumer_profile.clone(),
            pack_type: r.pack_type.clone(),
            scope: r.scope,
            keywords,
            folded,
            keyword_weight,
            min_confidence,
            mode: r.match_mode.unwrap_or(defaults.match_mode),
            boosts,
        });
    }

    // Composition.
    let mut composition: BTreeMap<String, Vec<Additional>> = BTreeMap::new();
    if let Some(doc) = &raw.composition {
        for (i, c) in doc.value.rules.iter().enumerate() {
            if !rule_index.contains_key(&c.primary_intent) {
                v.push(
                    doc,
                    format!("rules[{}].primary_intent", c.primary_intent),
                    &[&["primary_intent", &c.primary_intent]],
                    format!("unknown intent rule `{}`", c.primary_intent),
                );
            }
            if composition.contains_key(&c.primary_intent) {
                v.push(
                    doc,
                    format!("rules[{i}].primary_intent"),
                    &[&["primary_intent", &c.primary_intent]],
                    format!("duplicate composition rule for `{}`", c.primary_intent),
                );
            }
            let list: Vec<Additional> = c
                .inject_additional
                .iter()
                .map(|a| Additional {
                    pack_type: a.pack_type.clone(),
                    mode: a.mode.clone(),
                    required: a.required,
                })
                .collect();
            composition.insert(c.primary_intent.clone(), list);
        }
    }

    let sessions = compile_sessions(raw.sessions.as_ref(), v);

    let folded: Vec<(Vec<String>, bool)> =
        rules.iter().map(|r| (r.folded.clone(), r.mode == MatchMode::Word)).collect();
    let keywords = match KeywordMatcher::build(folded.iter().map(|(k, w)| (k.as_slice(), *w))) {
        Ok(k) => k,
        Err(e) => {
            v.push(intent, "rules".into(), &[], e);
            return None;
        }
    };
    let boost_sets = match BoostSets::build(&summary_patterns, &fact_patterns) {
        Ok(b) => b,
        Err(e) => {
            // Individual patterns were reported above; this catches set-level limits.
            if v.issues.is_empty() {
                v.push(intent, "rules[*].entity_boosts".into(), &[], one_line(&e));
            }
            return None;
        }
    };
    Some(RouteConfig {
        dir: raw.dir.clone(),
        rules,
        rule_index,
        profiles,
        packs,
        pack_index,
        composition,
        sessions,
        sticky,
        monitor,
        keywords,
        boost_sets,
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn compile_sticky(doc: &Doc<IntentRulesFile>, s: &StickyDef, v: &mut Validator) -> Sticky {
    let phrases: Vec<String> =
        s.continuation_phrases.iter().map(|p| fold(p)).filter(|p| !p.is_empty()).collect();
    if s.ttl_secs > (i64::MAX / 1000) as u64 {
        v.push(doc, "sticky.ttl_secs".into(), &[&["ttl_secs"]], "too large");
    }
    Sticky {
        enabled: s.enabled,
        max_words: s.max_words,
        ttl_ms: (s.ttl_secs.min((i64::MAX / 1000) as u64) as i64) * 1000,
        max_consecutive: s.max_consecutive,
        phrases,
    }
}

fn compile_packs(raw: &RawConfig, v: &mut Validator) -> Vec<Pack> {
    let reg = &raw.registry;
    let mut seen = BTreeSet::new();
    let mut packs = Vec::new();
    for (i, e) in reg.value.packs.iter().enumerate() {
        v.id(reg, format!("packs[{i}].id"), &e.id);
        if !seen.insert(e.id.clone()) {
            v.push(
                reg,
                format!("packs[{i}].id"),
                &[&["id:", &e.id]],
                format!("duplicate pack id `{}`", e.id),
            );
            continue;
        }
        if !valid_id(&e.pack_type) {
            v.push(reg, format!("packs[{}].pack_type", e.id), &[&["id:", &e.id]], "not a valid pack type");
        }
        if let Some(m) = &e.mode
            && !valid_id(m)
        {
            v.push(reg, format!("packs[{}].mode", e.id), &[&["id:", &e.id]], "not a valid mode");
        }
        let field = format!("packs[{}].path", e.id);
        let anchors: &[&[&str]] = &[&["id:", &e.id], &["path:", &e.path]];
        let full = match check_inside(&raw.dir, &e.path) {
            Ok(full) => full,
            Err(msg) => {
                v.push(reg, field, anchors, msg);
                continue;
            }
        };
        let mut pack = Pack {
            id: e.id.clone(),
            pack_type: e.pack_type.clone(),
            mode: e.mode.clone(),
            scope: e.scope,
            enabled: e.enabled,
            primary_md: String::new(),
            composed_md: String::new(),
            path: full.clone(),
            text: Vec::new(),
        };
        if e.enabled {
            if !full.is_file() {
                v.push(reg, field, anchors, format!("pack file `{}` not found", e.path));
                continue;
            }
            let text = match read_text(&full) {
                Ok(t) => t,
                Err(err) => {
                    v.push(reg, field, anchors, err.to_string());
                    continue;
                }
            };
            match parse_str::<PackFile>(&full, &text) {
                Ok(file) => {
                    let doc = Doc { path: full.clone(), text, value: () };
                    if let Some(ver) = file.schema_version {
                        v.schema(&doc, ver);
                    }
                    if file.scope == Some(Audience::Private) {
                        pack.scope = Audience::Private;
                    }
                    if file.name.trim().is_empty() {
                        v.push(&doc, "name".into(), &[&["name:"]], "empty name");
                    }
                    pack.primary_md = render::primary_section(&file);
                    pack.composed_md = render::composed_section(&file, e.mode.as_deref());
                    pack.text = prose_lines(&file);
                }
                Err((message, line)) => {
                    v.issues.push(Issue { file: full, field: "(pack file)".into(), line, message });
                    continue;
                }
            }
        }
        packs.push(pack);
    }
    packs
}

/// The prose of a pack file, line by line, trimmed, empty lines dropped.
fn prose_lines(file: &PackFile) -> Vec<String> {
    let steps = file.steps.iter().filter_map(|s| s.description.as_deref());
    [file.title.as_deref(), Some(file.description.as_str()), Some(file.domain_context.as_str())]
        .into_iter()
        .chain([file.compliance_rules.as_deref()])
        .flatten()
        .chain(steps)
        .flat_map(str::lines)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn compile_sessions(doc: Option<&Doc<SessionsFile>>, v: &mut Validator) -> SessionsConfig {
    let mut out = SessionsConfig::default();
    let Some(doc) = doc else { return out };
    let s = &doc.value;
    out.owner_ids = s.owner_ids.iter().cloned().collect();
    out.token_target = s.token_target;
    out.unknown_shared = s.unknown != Some(crate::schema::UnknownKeys::Owner);
    let sets = [
        (SessionType::MainSession, "main_session", &s.file_sets.main_session),
        (SessionType::PrivateDm, "private_dm", &s.file_sets.private_dm),
        (SessionType::ExternalDm, "external_dm", &s.file_sets.external_dm),
        (SessionType::ForumTopic, "forum_topic", &s.file_sets.forum_topic),
        (SessionType::GroupChat, "group_chat", &s.file_sets.group_chat),
        (SessionType::Subagent, "subagent", &s.file_sets.subagent),
        (SessionType::HeartbeatCron, "heartbeat_cron", &s.file_sets.heartbeat_cron),
        (SessionType::Fallback, "fallback", &s.file_sets.fallback),
    ];
    let check = |v: &mut Validator, field: String, f: &str| {
        let p = Path::new(f);
        let bad =
            f.is_empty() || p.components().any(|c| !matches!(c, Component::Normal(_))) || f.contains('\\');
        if bad {
            v.push(doc, field, &[&[f]], format!("`{f}` must be a workspace-relative file path without `..`"));
        }
    };
    for (t, name, set) in sets {
        if let Some(files) = set {
            for (i, f) in files.iter().enumerate() {
                check(v, format!("file_sets.{name}[{i}]"), f);
            }
            out.file_sets.insert(t, files.clone());
        }
    }
    for (topic, files) in &s.topic_extras {
        for (i, f) in files.iter().enumerate() {
            check(v, format!("topic_extras.{topic}[{i}]"), f);
        }
        out.topic_extras.insert(topic.clone(), files.clone());
    }
    out
}
