//! Extra recall lanes (vector, graph, ...) that plug into the turn pipeline next to the lexical index.

use cairn_core::{Hit, Scope};

/// A recall lane the [`crate::Engine`] consults on every turn besides its full-text index.
///
/// A lane returns hits already filtered to `scope` (the engine drops any that are not, as defence in
/// depth). An `Err` is reported as a failed lane in the trace; the turn goes on with the other lanes.
pub trait Lane: Send + Sync {
    /// Short lane name for traces and metrics (`vector`, `graph`).
    fn name(&self) -> &str;
    /// Up to `k` hits for `query` in `scope`, best first.
    fn recall(&self, query: &str, scope: &Scope, k: usize) -> Result<Vec<Hit>, String>;
}
