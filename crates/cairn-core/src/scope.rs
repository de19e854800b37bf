use serde::{Deserialize, Serialize};

use crate::Audience;

/// Who is asking, and over which project: every read goes through one.
///
/// A caller that is not allowed private items never sees one: not in hits, counts or traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    /// Restrict to this project; `None` means every project.
    pub project: Option<String>,
    /// Whether private items may be returned.
    pub allow_private: bool,
}

impl Scope {
    /// A scope that sees everything in `project` (or every project), private items included.
    pub fn owner(project: Option<String>) -> Self {
        Self { project, allow_private: true }
    }

    /// A scope for a shared audience: public items only.
    pub fn public_only(project: Option<String>) -> Self {
        Self { project, allow_private: false }
    }

    /// Whether an item with this audience may be shown.
    pub fn allows(&self, audience: Audience) -> bool {
        self.allow_private || audience == Audience::Public
    }

    /// Whether an item of this project and audience is inside the scope.
    pub fn contains(&self, project: &str, audience: Audience) -> bool {
        self.allows(audience) && self.project.as_deref().is_none_or(|p| p == project)
    }
}
