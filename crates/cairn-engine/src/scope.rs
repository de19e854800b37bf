//! Who may see what: the one policy that turns a caller into a recall [`Scope`], used by every surface
//! (HTTP, MCP, the CLI, the OpenClaw plugin through HTTP).

use cairn_core::{Audience, Scope};
use cairn_route::SessionInfo;
use cairn_store::Store;

use crate::Result;
use crate::api::Caller;
use crate::open::Engine;

impl Engine {
    /// The scope of `caller`, restricted to `project` when given: a session sees private memory only
    /// when its key classifies as the owner's (an unshared audience) and, for a sub-agent, so does the
    /// session that spawned it; the owner always does; anyone else sees public memory only.
    pub fn scope_for(&self, caller: Caller<'_>, project: Option<String>) -> Scope {
        let allow_private = match caller {
            Caller::Session(key) => self.session_private(key),
            Caller::Owner => true,
            Caller::Public => false,
        };
        Scope { project, allow_private }
    }

    /// The scope of a request that names `session_key` (or none) on a surface that serves `surface`:
    /// the one session → scope policy of every surface (HTTP, MCP, CLI). A request's session key
    /// only ever narrows what the surface's caller sees, never widens it: a public surface stays
    /// public whatever key a request names, and an owner's surface asked for a group session's key
    /// answers with that group's view.
    pub fn scope_within(
        &self,
        surface: Caller<'_>,
        session_key: Option<&str>,
        project: Option<String>,
    ) -> Scope {
        let mut scope = self.scope_for(surface, project);
        if let Some(key) = session_key.filter(|k| !k.trim().is_empty()) {
            scope.allow_private &= self.scope_for(Caller::Session(key), None).allow_private;
        }
        scope
    }

    /// The item `id` with its chunks when `scope` may see it; `None` when there is no such item or
    /// `scope` may not see it (the two are not told apart).
    pub fn get(&self, id: &str, scope: &Scope) -> Result<Option<(cairn_core::Item, Vec<cairn_core::Chunk>)>> {
        let store = self.reader()?;
        let Some(item) = store.get_item(id)? else { return Ok(None) };
        if !scope.contains(&item.project, item.audience) {
            return Ok(None);
        }
        let chunks = store.chunks(id)?;
        Ok(Some((item, chunks)))
    }

    /// The audience a note written by `caller` gets when it names none: public from a shared
    /// session, else the configured default.
    pub fn audience_for(&self, caller: Caller<'_>) -> Option<Audience> {
        match caller {
            Caller::Session(key) if !self.session_private(key) => Some(Audience::Public),
            _ => None,
        }
    }

    /// Classifies a session key (unknown formats give the `fallback` kind, never an error).
    pub fn classify(&self, session_key: &str) -> SessionInfo {
        cairn_route::classify_session(session_key, &self.routing().sessions)
    }
}
