//! Routing: which workflow pack a turn gets and which bootstrap files its session loads.
//!
//! Pure, deterministic and fast: no store, no network, no clock (the caller passes `now`).
//! The contract is documented in `docs/routing.md`; in short:
//!
//! - [`RouteConfig::load`] reads a config directory (`intent_rules`, `consumer_profiles`,
//!   `pack_registry`, `pack_composition_rules`, `sessions`, `*.pack.yaml`; YAML or JSON,
//!   `schema_version: 1`, unknown keys rejected) and precompiles every keyword into one
//!   Aho-Corasick automaton and every boost pattern into a `RegexSet`.
//! - [`classify_session`] turns a host session key into a [`SessionInfo`]: session type,
//!   shared audience or not, topic id, bootstrap file set.
//! - [`Router::decide`] runs once per turn: keyword hits, entity boosts and suppression,
//!   threshold, tie → nothing (P3), private pack in a shared audience → nothing (P5), sticky
//!   follow-up, one-level composition, the `<pack-context ...>` block and a trace. It never
//!   fails: errors and panics give "no pack" and the error in the trace (P6).
//! - [`audit`], [`evaluate`] and [`InjectionMonitor`] are the offline tools behind
//!   `cairn rules audit`, `cairn eval intents` and `cairn rules monitor`;
//!   [`RouteConfig::vocabulary`] lists what a config would give away if published, for
//!   `cairn boundary audit`.
//!
//! ```
//! use cairn_route::{EntitySummary, Router, SessionState, TurnInput};
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/config");
//! let router = Router::load(dir)?;
//! let mut state = SessionState::default();
//!
//! let turn = TurnInput::new("Can you book a table for dinner on Friday?")
//!     .session_key("agent:main:main")
//!     .at(1_000);
//! let decision = router.decide(&turn, &mut state);
//! assert_eq!(decision.intent.as_deref(), Some("dining"));
//! assert!(decision.pack_block.unwrap().starts_with("<pack-context intent=\"dining\""));
//!
//! // A short follow-up keeps the pack (sticky) ...
//! let follow_up = TurnInput::new("and for six people?").session_key("agent:main:main").at(2_000);
//! assert!(router.decide(&follow_up, &mut state).sticky);
//!
//! // ... and a private pack never reaches a group (P5).
//! let group = TurnInput::new("book a table for dinner").session_key("agent:main:telegram:group:-100");
//! assert!(router.decide(&group, &mut SessionState::default()).pack_block.is_none());
//! # let _ = EntitySummary::default();
//! # Ok::<(), cairn_route::Error>(())
//! ```
#![warn(missing_docs)]

mod audit;
mod config;
mod error;
mod eval;
mod matcher;
mod monitor;
mod render;
mod router;
mod schema;
mod session;
mod sticky;
mod text;
mod vocabulary;

#[cfg(test)]
mod tests;

pub use audit::{AuditReport, Finding, MAX_KEYWORD_OVERLAP, Severity, audit};
pub use config::RouteConfig;
pub use error::{Error, Issue, Result};
pub use eval::{EvalCase, EvalMiss, EvalReport, NONE_LABEL, evaluate, load_eval_cases};
pub use monitor::{DecisionRecord, InjectionMonitor, MonitorReport, PackRate};
pub use router::{
    BoostMatch, CandidateStatus, Decision, EntitySummary, Outcome, Router, RuleScore, SkippedPack, TurnInput,
};
pub use session::{SessionInfo, SessionType, SessionsConfig, classify_session};
pub use sticky::{SessionState, StickyEntry, StickyStore};
pub use vocabulary::{PackText, Vocabulary};
