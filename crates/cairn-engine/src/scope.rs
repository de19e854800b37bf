//! Who may see what: the one policy that turns a caller into a recall [`Scope`], used by every surface
//! (HTTP, MCP, the CLI, the OpenClaw plugin through HTTP).

use cairn_core::{Audience, Scope};
use cairn_route::SessionInfo;

use crate::api::Caller;
use crate::open::Engine;

impl Engine {
    /// The scope of `caller`, restricted to `project` when given: a session sees private memory only
    /// when its key classifies as the owner's (an unshared audience); the owner always does; anyone
    /// else sees public memory only.
    pub fn scope_for(&self, caller: Caller<'_>, project: Option<String>) -> Scope {
        let allow_private = match caller {
            Caller::Session(key) => !self.classify(key).audience_shared,
            Caller::Owner => true,
            Caller::Public => false,
        };
        Scope { project, allow_private }
    }

    /// The audience a note written by `caller` gets when it names none: public from a shared
    /// session, else the configured default.
    pub fn audience_for(&self, caller: Caller<'_>) -> Option<Audience> {
        match caller {
            Caller::Session(key) if self.classify(key).audience_shared => Some(Audience::Public),
            _ => None,
        }
    }

    /// Classifies a session key (unknown formats give the `fallback` kind, never an error).
    pub fn classify(&self, session_key: &str) -> SessionInfo {
        cairn_route::classify_session(session_key, &self.routing().sessions)
    }
}
