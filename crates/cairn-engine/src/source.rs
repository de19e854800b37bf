//! Extra sources of hits (remote memory services, ...) that the engine consults on every turn and
//! context request beside its own recall lanes.

use cairn_core::{Hit, Scope};

/// A source of hits the [`crate::Engine`] consults beside its full-text index and vector lane.
///
/// A source returns hits already filtered to `scope` (the engine drops any that are not, as defence
/// in depth). An `Err` is reported under the source's name in the receipt's lanes as failed; the
/// request goes on with the rest.
pub trait Source: Send + Sync {
    /// Short name for receipts and metrics.
    fn name(&self) -> &str;
    /// Up to `k` hits for `query` in `scope`, best first.
    fn recall(&self, query: &str, scope: &Scope, k: usize) -> Result<Vec<Hit>, String>;
}
