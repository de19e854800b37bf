//! The per-turn decision: detection, sticky follow-up, scope, composition, rendering, trace.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Arc, RwLock};

use cairn_core::{Audience, Millis};
use serde::{Deserialize, Serialize};

use crate::config::{Additional, Pack, RouteConfig, Rule};
use crate::error::{Error, Result};
use crate::matcher::BoostSets;
use crate::render;
use crate::session::{SessionType, classify_session};
use crate::sticky::{StickyEntry, StickyStore};
use crate::text::{fold, starts_with_phrase, word_count};

/// Scores closer than this are a tie.
pub(crate) const TIE_EPSILON: f64 = 1e-9;

/// One entity from the recall results: its summary and the facts on its edges.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntitySummary {
    /// The entity's summary text.
    pub summary: String,
    /// Facts about it.
    #[serde(default)]
    pub facts: Vec<String>,
}

/// Everything one decision depends on (P2: same input and config, same decision).
#[derive(Debug, Clone, Copy)]
pub struct TurnInput<'a> {
    /// The user's prompt.
    pub prompt: &'a str,
    /// The host's session key; `None` is treated as the owner (not a shared audience).
    pub session_key: Option<&'a str>,
    /// Entities from recall, for entity boosts.
    pub entities: &'a [EntitySummary],
    /// The intent whose pack the previous turn injected, overriding the session state
    /// (dry runs and eval cases use it).
    pub previous_intent: Option<&'a str>,
    /// The current time (ms since the epoch), for sticky expiry.
    pub now: Millis,
    /// Serve the turn as a shared audience whatever its key says (a sub-agent of a shared session):
    /// only ever narrows.
    pub shared: bool,
}

impl<'a> TurnInput<'a> {
    /// A turn with only a prompt, at time 0.
    pub fn new(prompt: &'a str) -> Self {
        TurnInput { prompt, session_key: None, entities: &[], previous_intent: None, now: 0, shared: false }
    }

    /// Sets the session key.
    pub fn session_key(mut self, key: &'a str) -> Self {
        self.session_key = Some(key);
        self
    }

    /// Sets the recall entities.
    pub fn entities(mut self, entities: &'a [EntitySummary]) -> Self {
        self.entities = entities;
        self
    }

    /// Sets the previous turn's intent.
    pub fn previous_intent(mut self, intent: &'a str) -> Self {
        self.previous_intent = Some(intent);
        self
    }

    /// Sets the current time.
    pub fn at(mut self, now: Millis) -> Self {
        self.now = now;
        self
    }

    /// Serves the turn as a shared audience (see [`TurnInput::shared`]).
    pub fn shared(mut self, shared: bool) -> Self {
        self.shared = shared;
        self
    }
}

/// Why a decision came out as it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A unique top-scoring rule; its pack is injected.
    Injected,
    /// No keyword hit, but the previous turn's pack was re-injected as a follow-up.
    Sticky,
    /// No rule has a keyword hit (P1).
    NoMatch,
    /// Rules had hits but none reached its `min_confidence`.
    BelowThreshold,
    /// Every rule with hits was suppressed by an entity boost.
    Suppressed,
    /// Two or more rules share the top score: nothing is injected (P3).
    Tie {
        /// The tied rule ids.
        intents: Vec<String>,
    },
    /// The winner is private and the audience is shared (P5); the runner-up is not promoted.
    ScopeBlocked {
        /// The winning rule id.
        intent: String,
    },
    /// The winner's primary pack is disabled.
    PrimaryUnavailable {
        /// The winning rule id.
        intent: String,
        /// The pack id.
        pack: String,
    },
    /// A `required` additional pack is unavailable, so the whole injection is skipped.
    RequiredUnavailable {
        /// The winning rule id.
        intent: String,
        /// The missing pack type.
        pack_type: String,
        /// Why it is unavailable.
        reason: String,
    },
    /// Detection or composition failed or panicked; no pack (P6).
    Error {
        /// The error.
        message: String,
    },
}

/// How a rule with keyword hits fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CandidateStatus {
    /// Unique top score.
    Winner,
    /// Scored below the winner (or below the tied top).
    Lost,
    /// Shares the top score.
    Tied,
    /// Below its `min_confidence`.
    BelowThreshold,
    /// Removed by a matched boost of these rules.
    Suppressed {
        /// Rules whose boosts suppressed it.
        by: Vec<String>,
    },
}

/// A matched entity boost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoostMatch {
    /// Index in the rule's `entity_boosts`.
    pub index: usize,
    /// The pattern that matched.
    pub pattern: String,
    /// `summary` or `fact`.
    pub via: &'static str,
    /// The weight added.
    pub weight: f64,
    /// Rules it suppresses.
    pub suppresses: Vec<String>,
}

/// The score of one rule that had at least one keyword hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleScore {
    /// Rule id.
    pub rule: String,
    /// Its pack type.
    pub pack_type: String,
    /// Distinct keywords found (as written in the config).
    pub keywords: Vec<String>,
    /// `hits × keyword_weight`.
    pub keyword_score: f64,
    /// Boosts that matched.
    pub boosts: Vec<BoostMatch>,
    /// Total score.
    pub score: f64,
    /// The rule's threshold.
    pub min_confidence: f64,
    /// Outcome for this rule.
    pub status: CandidateStatus,
}

/// A pack left out of the composition, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedPack {
    /// The pack type asked for.
    pub pack_type: String,
    /// The mode asked for.
    pub mode: Option<String>,
    /// Whether it was `required`.
    pub required: bool,
    /// Why it was skipped.
    pub reason: String,
}

/// The result of one turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// Why.
    pub outcome: Outcome,
    /// The `<pack-context ...>` block to prepend, if a pack is injected.
    pub pack_block: Option<String>,
    /// The injected intent (rule id).
    pub intent: Option<String>,
    /// The injected rule's pack type.
    pub pack_type: Option<String>,
    /// The injected primary pack id.
    pub primary_pack: Option<String>,
    /// Composed pack ids, in injection order.
    pub composed: Vec<String>,
    /// Additional packs left out.
    pub skipped: Vec<SkippedPack>,
    /// `private` if any injected pack is private.
    pub scope: Option<Audience>,
    /// Whether the pack was re-injected as a follow-up.
    pub sticky: bool,
    /// The session type, when a session key was given.
    pub session_type: Option<SessionType>,
    /// Whether the audience is shared.
    pub audience_shared: bool,
    /// Every rule with keyword hits, best first.
    pub scores: Vec<RuleScore>,
    /// Human-readable explanation, in order.
    pub trace: Vec<String>,
}

impl Decision {
    fn empty(outcome: Outcome) -> Decision {
        Decision {
            outcome,
            pack_block: None,
            intent: None,
            pack_type: None,
            primary_pack: None,
            composed: Vec::new(),
            skipped: Vec::new(),
            scope: None,
            sticky: false,
            session_type: None,
            audience_shared: false,
            scores: Vec::new(),
            trace: Vec::new(),
        }
    }

    /// Whether a pack is injected.
    pub fn injected(&self) -> bool {
        self.pack_block.is_some()
    }
}

/// Where a test fault fires.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    PanicIn(&'static str),
    ErrorIn(&'static str),
}

/// Holds the current config and makes decisions. `Send + Sync`; a reload swaps the config
/// atomically and a failed reload keeps the last good one.
#[derive(Debug)]
pub struct Router {
    current: RwLock<Arc<RouteConfig>>,
    #[cfg(test)]
    pub(crate) fault: Option<Fault>,
}

impl Router {
    /// A router over a loaded config.
    pub fn new(config: RouteConfig) -> Router {
        Router {
            current: RwLock::new(Arc::new(config)),
            #[cfg(test)]
            fault: None,
        }
    }

    /// Loads `dir` and builds a router over it.
    pub fn load(dir: impl AsRef<Path>) -> Result<Router> {
        Ok(Router::new(RouteConfig::load(dir)?))
    }

    /// The current config.
    pub fn config(&self) -> Arc<RouteConfig> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Reloads the current config's directory. On error the last good config stays in place.
    pub fn reload(&self) -> Result<()> {
        let dir = self.config().dir.clone();
        self.reload_from(dir)
    }

    /// Loads `dir` and, if it is valid, makes it the current config.
    pub fn reload_from(&self, dir: impl AsRef<Path>) -> Result<()> {
        let fresh = Arc::new(RouteConfig::load(dir)?);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(())
    }

    /// Decides for one turn and updates the sticky state. Never fails: any error or panic in
    /// detection or composition gives "no pack" with the error in the trace (P6).
    ///
    /// A panic still goes through the process's panic hook (which prints by default).
    pub fn decide(&self, input: &TurnInput<'_>, state: &mut dyn StickyStore) -> Decision {
        let config = self.config();
        let stage = Cell::new("detection");
        let result =
            catch_unwind(AssertUnwindSafe(|| self.decide_inner(&config, input, &mut *state, &stage)));
        let err = match result {
            Ok(Ok(d)) => return d,
            Ok(Err(e)) => e,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_owned());
                Error::Internal { stage: stage.get(), message: format!("panic: {message}") }
            }
        };
        let mut d = Decision::empty(Outcome::Error { message: err.to_string() });
        d.trace.push(format!("error: {err}; no pack injected (P6)"));
        if let Some(key) = input.session_key {
            let cleared = catch_unwind(AssertUnwindSafe(|| state.remove(key)));
            if !matches!(cleared, Ok(Ok(()))) {
                d.trace.push("warning: could not clear the sticky state".to_owned());
            }
        }
        d
    }

    #[cfg(test)]
    fn checkpoint(&self, stage: &'static str) -> Result<()> {
        match self.fault {
            Some(Fault::PanicIn(s)) if s == stage => panic!("injected fault in {stage}"),
            Some(Fault::ErrorIn(s)) if s == stage => {
                Err(Error::Internal { stage, message: "injected fault".to_owned() })
            }
            _ => Ok(()),
        }
    }

    #[cfg(not(test))]
    #[inline]
    fn checkpoint(&self, _stage: &'static str) -> Result<()> {
        Ok(())
    }

    fn decide_inner(
        &self,
        cfg: &RouteConfig,
        input: &TurnInput<'_>,
        state: &mut dyn StickyStore,
        stage: &Cell<&'static str>,
    ) -> Result<Decision> {
        let mut trace = Vec::new();
        let (session_type, shared) = match input.session_key {
            Some(key) => {
                let info = classify_session(key, &cfg.sessions);
                trace.push(format!(
                    "session: {} ({}); {}",
                    info.session_type,
                    info.reason,
                    if info.audience_shared {
                        "shared audience: private packs are never injected"
                    } else {
                        "owner audience"
                    }
                ));
                trace.extend(info.warnings.iter().map(|w| format!("warning: {w}")));
                (Some(info.session_type), info.audience_shared)
            }
            None => {
                trace.push("session: none given; owner audience".to_owned());
                (None, false)
            }
        };
        let shared = if input.shared && !shared {
            trace.push(
                "served as a shared audience (spawned by a shared session): private packs are never injected"
                    .to_owned(),
            );
            true
        } else {
            shared
        };

        stage.set("detection");
        self.checkpoint("detection")?;
        let folded = fold(input.prompt);
        let (scores, result) = detect(cfg, &folded, input.entities, &mut trace);

        stage.set("composition");
        let mut decision = match result {
            Detected::Winner(i) => self.route(cfg, i, shared, false, &mut trace)?,
            Detected::Tie(ids) => {
                trace.push(format!("tie at the top between {}: no pack (P3)", quoted(&ids)));
                Decision::empty(Outcome::Tie { intents: ids })
            }
            Detected::BelowThreshold => {
                trace.push("no rule reached its min_confidence: no pack".to_owned());
                Decision::empty(Outcome::BelowThreshold)
            }
            Detected::Suppressed => {
                trace.push("every rule with hits was suppressed by an entity boost: no pack".to_owned());
                Decision::empty(Outcome::Suppressed)
            }
            Detected::NoHits => match self.sticky_previous(cfg, input, &*state, &mut trace) {
                Some(i) => self.route(cfg, i, shared, true, &mut trace)?,
                None => {
                    trace.push("no keyword of any rule found: no pack (P1)".to_owned());
                    Decision::empty(Outcome::NoMatch)
                }
            },
        };
        decision.session_type = session_type;
        decision.audience_shared = shared;
        decision.scores = scores;

        stage.set("state");
        if let Some(key) = input.session_key {
            let written = match (&decision.intent, &decision.primary_pack) {
                (Some(intent), Some(pack)) if decision.injected() => {
                    let consecutive = if decision.sticky {
                        state.get(key).ok().flatten().map_or(0, |e| e.consecutive).saturating_add(1)
                    } else {
                        0
                    };
                    state.put(
                        key,
                        StickyEntry {
                            intent: intent.clone(),
                            primary_pack: pack.clone(),
                            at: input.now,
                            consecutive,
                        },
                    )
                }
                _ => state.remove(key),
            };
            if let Err(e) = written {
                trace.push(format!("warning: sticky state not saved: {e}"));
            }
        }
        decision.trace = trace;
        Ok(decision)
    }

    /// The rule to re-inject as a follow-up, if the sticky conditions hold.
    fn sticky_previous(
        &self,
        cfg: &RouteConfig,
        input: &TurnInput<'_>,
        state: &dyn StickyStore,
        trace: &mut Vec<String>,
    ) -> Option<usize> {
        let sticky = &cfg.sticky;
        if !sticky.enabled {
            return None;
        }
        let previous = match (input.previous_intent, input.session_key) {
            (Some(intent), _) => Some(StickyEntry {
                intent: intent.to_owned(),
                primary_pack: String::new(),
                at: input.now,
                consecutive: 0,
            }),
            (None, Some(key)) => match state.get(key) {
                Ok(e) => e,
                Err(e) => {
                    trace.push(format!("warning: sticky state unreadable, not sticky: {e}"));
                    None
                }
            },
            (None, None) => None,
        }?;
        if input.now.saturating_sub(previous.at) > sticky.ttl_ms {
            trace.push(format!("sticky: previous pack for `{}` expired", previous.intent));
            return None;
        }
        if previous.consecutive >= sticky.max_consecutive {
            trace.push(format!("sticky: already re-injected {} times in a row", previous.consecutive));
            return None;
        }
        let words = word_count(input.prompt);
        let folded = fold(input.prompt);
        let phrase = sticky.phrases.iter().find(|p| starts_with_phrase(&folded, p));
        if words >= sticky.max_words && phrase.is_none() {
            trace.push(format!(
                "sticky: prompt has {words} words (>= {}) and no continuation phrase: not a follow-up",
                sticky.max_words
            ));
            return None;
        }
        let Some(&i) = cfg.rule_index.get(&previous.intent) else {
            trace.push(format!("sticky: previous intent `{}` is no longer a rule", previous.intent));
            return None;
        };
        trace.push(match phrase {
            Some(p) => {
                format!("sticky: follow-up (starts with `{p}`) to `{}`: re-injecting", previous.intent)
            }
            None => format!("sticky: short follow-up ({words} words) to `{}`: re-injecting", previous.intent),
        });
        Some(i)
    }

    /// Scope check and composition for a chosen rule.
    fn route(
        &self,
        cfg: &RouteConfig,
        rule_idx: usize,
        shared: bool,
        sticky: bool,
        trace: &mut Vec<String>,
    ) -> Result<Decision> {
        self.checkpoint("composition")?;
        let rule = &cfg.rules[rule_idx];
        let pack_id = cfg.profiles.get(&rule.consumer_profile).ok_or_else(|| Error::Internal {
            stage: "composition",
            message: format!("profile `{}` vanished", rule.consumer_profile),
        })?;
        let primary = cfg.pack(pack_id).ok_or_else(|| Error::Internal {
            stage: "composition",
            message: format!("pack `{pack_id}` vanished"),
        })?;
        let private = rule.scope == Audience::Private || primary.scope == Audience::Private;
        if private && shared {
            trace.push(format!(
                "`{}` is private and the audience is shared: no pack, the runner-up is not promoted (P5)",
                rule.id
            ));
            return Ok(Decision::empty(Outcome::ScopeBlocked { intent: rule.id.clone() }));
        }
        if !primary.enabled {
            trace.push(format!("primary pack `{}` is disabled: no pack", primary.id));
            return Ok(Decision::empty(Outcome::PrimaryUnavailable {
                intent: rule.id.clone(),
                pack: primary.id.clone(),
            }));
        }
        trace.push(format!("primary pack `{}` (profile `{}`)", primary.id, rule.consumer_profile));
        let (composed, skipped) = match compose(cfg, rule, primary, shared, trace) {
            Ok(c) => c,
            Err(outcome) => return Ok(Decision::empty(outcome)),
        };
        self.checkpoint("render")?;
        let any_private = private || composed.iter().any(|p| p.scope == Audience::Private);
        let scope = if any_private { Audience::Private } else { Audience::Public };
        let sections: Vec<&str> = composed.iter().map(|p| p.composed_md.as_str()).collect();
        let block = render::block(&rule.id, &primary.id, scope.as_str(), &primary.primary_md, &sections);
        let mut d = Decision::empty(if sticky { Outcome::Sticky } else { Outcome::Injected });
        d.pack_block = Some(block);
        d.intent = Some(rule.id.clone());
        d.pack_type = Some(rule.pack_type.clone());
        d.primary_pack = Some(primary.id.clone());
        d.composed = composed.iter().map(|p| p.id.clone()).collect();
        d.skipped = skipped;
        d.scope = Some(scope);
        d.sticky = sticky;
        Ok(d)
    }
}

/// Resolves an additional pack: `Ok(pack)` or `Err(reason it is unavailable)`.
fn resolve<'c>(cfg: &'c RouteConfig, add: &Additional) -> std::result::Result<&'c Pack, String> {
    let matches: Vec<&Pack> = cfg
        .packs
        .iter()
        .filter(|p| p.pack_type == add.pack_type && (add.mode.is_none() || p.mode == add.mode))
        .collect();
    let enabled: Vec<&Pack> = matches.iter().copied().filter(|p| p.enabled).collect();
    let pick = if add.mode.is_none() {
        enabled.iter().find(|p| p.mode.is_none()).or(enabled.first())
    } else {
        enabled.first()
    };
    match (pick, matches.first()) {
        (Some(p), _) => Ok(p),
        (None, Some(p)) => Err(format!("pack `{}` is disabled", p.id)),
        (None, None) => Err(match &add.mode {
            Some(m) => format!("no pack of type `{}` with mode `{m}` in the registry", add.pack_type),
            None => format!("no pack of type `{}` in the registry", add.pack_type),
        }),
    }
}

/// One level deep: only the winner's own composition rule is read; additional packs never
/// trigger more. Deduplicated, in rule order.
fn compose<'c>(
    cfg: &'c RouteConfig,
    rule: &Rule,
    primary: &'c Pack,
    shared: bool,
    trace: &mut Vec<String>,
) -> std::result::Result<(Vec<&'c Pack>, Vec<SkippedPack>), Outcome> {
    let mut composed: Vec<&Pack> = Vec::new();
    let mut skipped = Vec::new();
    let Some(list) = cfg.composition.get(&rule.id) else { return Ok((composed, skipped)) };
    for add in list {
        let label = match &add.mode {
            Some(m) => format!("`{}` ({m})", add.pack_type),
            None => format!("`{}`", add.pack_type),
        };
        let skip = |reason: String| SkippedPack {
            pack_type: add.pack_type.clone(),
            mode: add.mode.clone(),
            required: add.required,
            reason,
        };
        match resolve(cfg, add) {
            Err(reason) if add.required => {
                trace.push(format!("required additional pack {label} unavailable ({reason}): no pack"));
                return Err(Outcome::RequiredUnavailable {
                    intent: rule.id.clone(),
                    pack_type: add.pack_type.clone(),
                    reason,
                });
            }
            Err(reason) => {
                trace.push(format!("optional additional pack {label} unavailable ({reason}): skipped"));
                skipped.push(skip(reason));
            }
            Ok(p) if p.scope == Audience::Private && shared => {
                let reason = format!("pack `{}` is private and the audience is shared", p.id);
                trace.push(format!("additional pack {label} skipped: {reason} (scope wins over required)"));
                skipped.push(skip(reason));
            }
            Ok(p) if p.id == primary.id || composed.iter().any(|c| c.id == p.id) => {
                trace.push(format!("additional pack {label} → `{}` already included", p.id));
            }
            Ok(p) => {
                trace.push(format!("composed {label} → `{}`", p.id));
                composed.push(p);
            }
        }
    }
    Ok((composed, skipped))
}

enum Detected {
    NoHits,
    Winner(usize),
    Tie(Vec<String>),
    BelowThreshold,
    Suppressed,
}

fn quoted(ids: &[String]) -> String {
    ids.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

/// Keyword hits, boosts, suppression, threshold and tie-breaking.
fn detect(
    cfg: &RouteConfig,
    folded: &str,
    entities: &[crate::EntitySummary],
    trace: &mut Vec<String>,
) -> (Vec<RuleScore>, Detected) {
    let found = cfg.keywords.find(folded);
    if found.is_empty() {
        return (Vec::new(), Detected::NoHits);
    }
    let (summary_hit, fact_hit) = if entities.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (
            BoostSets::matching(&cfg.boost_sets.summary, entities.iter().map(|e| e.summary.as_str())),
            BoostSets::matching(&cfg.boost_sets.fact, entities.iter().flat_map(|e| e.facts.iter())),
        )
    };
    // Group hits per rule (found is sorted by rule).
    let mut scores: Vec<(usize, RuleScore)> = Vec::new();
    let mut suppressed: Vec<(usize, usize)> = Vec::new(); // (victim, by)
    let mut i = 0;
    while i < found.len() {
        let r = found[i].0 as usize;
        let rule = &cfg.rules[r];
        let mut keywords = Vec::new();
        while i < found.len() && found[i].0 as usize == r {
            keywords.push(rule.keywords[found[i].1 as usize].clone());
            i += 1;
        }
        let keyword_score = keywords.len() as f64 * rule.keyword_weight;
        trace.push(format!(
            "rule `{}`: {} keyword hit(s) {:?} × {} = {}",
            rule.id,
            keywords.len(),
            keywords,
            rule.keyword_weight,
            keyword_score
        ));
        let mut score = keyword_score;
        let mut boosts = Vec::new();
        for (b, boost) in rule.boosts.iter().enumerate() {
            let via = if summary_hit.get(boost.summary_id).copied().unwrap_or(false) {
                Some(("summary", boost.summary_pattern.clone()))
            } else {
                boost
                    .fact_id
                    .filter(|&f| fact_hit.get(f).copied().unwrap_or(false))
                    .map(|_| ("fact", boost.fact_pattern.clone().unwrap_or_default()))
            };
            if let Some((via, pattern)) = via {
                score += boost.weight;
                let suppresses: Vec<String> =
                    boost.suppresses.iter().map(|&s| cfg.rules[s].id.clone()).collect();
                trace.push(format!(
                    "rule `{}`: boost #{b} /{pattern}/ matched an entity {via}: +{}{}",
                    rule.id,
                    boost.weight,
                    if suppresses.is_empty() {
                        String::new()
                    } else {
                        format!("; suppresses {}", quoted(&suppresses))
                    }
                ));
                suppressed.extend(boost.suppresses.iter().map(|&s| (s, r)));
                boosts.push(BoostMatch { index: b, pattern, via, weight: boost.weight, suppresses });
            }
        }
        scores.push((
            r,
            RuleScore {
                rule: rule.id.clone(),
                pack_type: rule.pack_type.clone(),
                keywords,
                keyword_score,
                boosts,
                score,
                min_confidence: rule.min_confidence,
                status: CandidateStatus::Lost,
            },
        ));
    }
    // Suppression, thresholds.
    let mut eligible: Vec<usize> = Vec::new(); // positions in `scores`
    for (pos, (r, s)) in scores.iter_mut().enumerate() {
        let mut by: Vec<usize> = suppressed.iter().filter(|(v, _)| v == r).map(|(_, b)| *b).collect();
        by.sort_unstable();
        by.dedup();
        if !by.is_empty() {
            let by: Vec<String> = by.iter().map(|&b| cfg.rules[b].id.clone()).collect();
            trace.push(format!("rule `{}`: suppressed by a boost of {}", s.rule, quoted(&by)));
            s.status = CandidateStatus::Suppressed { by };
        } else if s.score + TIE_EPSILON < s.min_confidence {
            trace.push(format!(
                "rule `{}`: score {} below min_confidence {}",
                s.rule, s.score, s.min_confidence
            ));
            s.status = CandidateStatus::BelowThreshold;
        } else {
            eligible.push(pos);
        }
    }
    let result = if eligible.is_empty() {
        if scores.iter().all(|(_, s)| matches!(s.status, CandidateStatus::Suppressed { .. })) {
            Detected::Suppressed
        } else {
            Detected::BelowThreshold
        }
    } else {
        let top = eligible.iter().map(|&p| scores[p].1.score).fold(f64::NEG_INFINITY, f64::max);
        let tied: Vec<usize> =
            eligible.iter().copied().filter(|&p| scores[p].1.score + TIE_EPSILON >= top).collect();
        if tied.len() > 1 {
            for &p in &tied {
                scores[p].1.status = CandidateStatus::Tied;
            }
            Detected::Tie(tied.iter().map(|&p| scores[p].1.rule.clone()).collect())
        } else {
            let w = tied[0];
            scores[w].1.status = CandidateStatus::Winner;
            let runner_up = eligible
                .iter()
                .filter(|&&p| p != w)
                .map(|&p| &scores[p].1)
                .max_by(|a, b| a.score.total_cmp(&b.score));
            trace.push(match runner_up {
                Some(ru) => format!(
                    "winner `{}` with {} (runner-up `{}` with {})",
                    scores[w].1.rule, scores[w].1.score, ru.rule, ru.score
                ),
                None => format!("winner `{}` with {}", scores[w].1.rule, scores[w].1.score),
            });
            Detected::Winner(scores[w].0)
        }
    };
    let mut out: Vec<RuleScore> = scores.into_iter().map(|(_, s)| s).collect();
    out.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then_with(|| cfg.rule_index[&a.rule].cmp(&cfg.rule_index[&b.rule]))
    });
    (out, result)
}
