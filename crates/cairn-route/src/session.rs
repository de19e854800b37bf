//! Session classification from the host's session key, and the bootstrap file set per session type.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

/// What kind of conversation a session key denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SessionType {
    /// `agent:<id>:main`: the owner's main session.
    MainSession,
    /// A direct message from a configured owner.
    PrivateDm,
    /// A direct message from anybody else (shared audience).
    ExternalDm,
    /// A forum topic or thread (shared audience).
    ForumTopic,
    /// A group or channel (shared audience).
    GroupChat,
    /// A spawned subagent.
    Subagent,
    /// A cron job or heartbeat run.
    HeartbeatCron,
    /// A key in no known format: full file set, plus a warning.
    Fallback,
}

impl SessionType {
    /// Every session type, in declaration order.
    pub const ALL: [SessionType; 8] = [
        SessionType::MainSession,
        SessionType::PrivateDm,
        SessionType::ExternalDm,
        SessionType::ForumTopic,
        SessionType::GroupChat,
        SessionType::Subagent,
        SessionType::HeartbeatCron,
        SessionType::Fallback,
    ];

    /// The upper-case name (`GROUP_CHAT`).
    pub fn as_str(self) -> &'static str {
        match self {
            SessionType::MainSession => "MAIN_SESSION",
            SessionType::PrivateDm => "PRIVATE_DM",
            SessionType::ExternalDm => "EXTERNAL_DM",
            SessionType::ForumTopic => "FORUM_TOPIC",
            SessionType::GroupChat => "GROUP_CHAT",
            SessionType::Subagent => "SUBAGENT",
            SessionType::HeartbeatCron => "HEARTBEAT_CRON",
            SessionType::Fallback => "FALLBACK",
        }
    }

    /// Whether people other than the owner read this session (groups, topics, external DMs).
    pub fn is_shared_audience(self) -> bool {
        matches!(self, SessionType::GroupChat | SessionType::ForumTopic | SessionType::ExternalDm)
    }

    /// The seed's default bootstrap file set.
    pub fn default_files(self) -> &'static [&'static str] {
        match self {
            SessionType::MainSession | SessionType::PrivateDm => &["SOUL.md", "USER.md", "TOOLS_COMPACT.md"],
            SessionType::ExternalDm | SessionType::ForumTopic | SessionType::GroupChat => {
                &["SOUL.md", "TOOLS_COMPACT.md"]
            }
            SessionType::Subagent => &["SOUL.md"],
            SessionType::HeartbeatCron => &["SOUL.md", "HEARTBEAT.md"],
            SessionType::Fallback => &["SOUL.md", "USER.md", "AGENTS.md", "TOOLS_COMPACT.md"],
        }
    }
}

impl fmt::Display for SessionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The resolved `sessions.yaml`: owner ids, file set per session type, topic extras.
///
/// [`SessionsConfig::default`] is the seed's table with no owners configured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionsConfig {
    pub(crate) owner_ids: BTreeSet<String>,
    pub(crate) file_sets: BTreeMap<SessionType, Vec<String>>,
    pub(crate) topic_extras: BTreeMap<String, Vec<String>>,
    pub(crate) token_target: Option<usize>,
    /// Whether a key in no known format is a shared audience (`unknown: shared`, the default) rather
    /// than the owner's (`unknown: owner`).
    pub(crate) unknown_shared: bool,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            owner_ids: BTreeSet::new(),
            file_sets: SessionType::ALL
                .iter()
                .map(|t| (*t, t.default_files().iter().map(|s| (*s).to_owned()).collect()))
                .collect(),
            topic_extras: BTreeMap::new(),
            token_target: None,
            unknown_shared: true,
        }
    }
}

impl SessionsConfig {
    /// Adds an owner sender id (a bare peer id, or `<channel>:<peer>`).
    pub fn with_owner(mut self, id: impl Into<String>) -> Self {
        self.owner_ids.insert(id.into());
        self
    }

    /// Treat keys in no known format as the owner's (`unknown: owner`) instead of a shared audience.
    pub fn with_unknown_as_owner(mut self) -> Self {
        self.unknown_shared = false;
        self
    }

    /// The configured per-session token target for bootstrap files (`token_target`), if any.
    pub fn token_target(&self) -> Option<usize> {
        self.token_target
    }

    /// The file set of a session type (without topic extras).
    pub fn files_for(&self, session_type: SessionType) -> &[String] {
        self.file_sets.get(&session_type).map(Vec::as_slice).unwrap_or_default()
    }
}

/// The classification of one session key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// The session type.
    pub session_type: SessionType,
    /// Whether anybody besides the owner reads it; private packs are never injected then (P5).
    pub audience_shared: bool,
    /// The forum topic or thread id, for `FORUM_TOPIC`.
    pub topic_id: Option<String>,
    /// The DM peer, for `PRIVATE_DM` / `EXTERNAL_DM`.
    pub peer: Option<String>,
    /// Bootstrap files (basenames or workspace-relative paths), type set then topic extras, deduplicated.
    pub files: Vec<String>,
    /// Which classification rule fired.
    pub reason: String,
    /// Problems worth logging (an unrecognised key format).
    pub warnings: Vec<String>,
}

/// Classifies a session key; first match wins (see `docs/routing.md`).
///
/// ```
/// use cairn_route::{classify_session, SessionType, SessionsConfig};
/// let sessions = SessionsConfig::default().with_owner("1001");
/// let dm = classify_session("agent:main:telegram:direct:1001", &sessions);
/// assert_eq!(dm.session_type, SessionType::PrivateDm);
/// let topic = classify_session("agent:main:telegram:group:-100:topic:14", &sessions);
/// assert_eq!(topic.session_type, SessionType::ForumTopic);
/// assert!(topic.audience_shared);
/// assert_eq!(topic.topic_id.as_deref(), Some("14"));
/// ```
pub fn classify_session(key: &str, sessions: &SessionsConfig) -> SessionInfo {
    let segs: Vec<&str> = key.split(':').collect();
    let is = |i: usize, name: &str| segs.get(i).is_some_and(|s| s.eq_ignore_ascii_case(name));
    let position = |name: &str| segs.iter().position(|s| s.eq_ignore_ascii_case(name));
    let after = |i: usize| segs.get(i + 1).filter(|s| !s.is_empty()).map(|s| (*s).to_owned());
    let agent_prefixed = is(0, "agent") && segs.len() >= 3;

    let mut topic_id = None;
    let mut peer = None;
    let mut warnings = Vec::new();
    let (session_type, reason) = if position("subagent").is_some() {
        (SessionType::Subagent, "key has a `subagent` segment".to_owned())
    } else if is(0, "cron") || is(0, "heartbeat") || (agent_prefixed && (is(2, "cron") || is(2, "heartbeat")))
    {
        (SessionType::HeartbeatCron, "key is a `cron:`/`heartbeat` key".to_owned())
    } else if let Some(i) = position("direct") {
        peer = after(i);
        let channel = (i >= 1 && !(agent_prefixed && i == 2)).then(|| segs[i - 1]);
        let owner = peer.as_deref().is_some_and(|p| {
            sessions.owner_ids.contains(p)
                || channel.is_some_and(|c| sessions.owner_ids.contains(&format!("{c}:{p}")))
        });
        if peer.is_none() {
            warnings.push("`direct` key without a peer id; treated as an external DM".to_owned());
        }
        if owner {
            (SessionType::PrivateDm, "`:direct:` key from a configured owner".to_owned())
        } else {
            (
                SessionType::ExternalDm,
                "`:direct:` key from a sender that is not a configured owner".to_owned(),
            )
        }
    } else if let Some(i) =
        segs.iter().rposition(|s| s.eq_ignore_ascii_case("topic") || s.eq_ignore_ascii_case("thread"))
    {
        topic_id = after(i);
        (SessionType::ForumTopic, format!("key has a `:{}:` segment", segs[i].to_ascii_lowercase()))
    } else if let Some(i) =
        segs.iter().position(|s| s.eq_ignore_ascii_case("group") || s.eq_ignore_ascii_case("channel"))
    {
        (SessionType::GroupChat, format!("key has a `:{}:` segment", segs[i].to_ascii_lowercase()))
    } else if segs.len() >= 2 && is(segs.len() - 1, "main") {
        (SessionType::MainSession, "key ends with `:main`".to_owned())
    } else {
        warnings.push(if sessions.unknown_shared {
            format!(
                "session key `{key}` is in no recognised format; treated as a shared audience (no private \
                 memory or packs; `unknown: owner` in sessions.yaml treats such keys as the owner's)"
            )
        } else {
            format!(
                "session key `{key}` is in no recognised format; treated as the owner's (`unknown: owner`)"
            )
        });
        (SessionType::Fallback, "no rule matched".to_owned())
    };

    let mut files: Vec<String> = Vec::new();
    let extras = topic_id.as_ref().and_then(|t| sessions.topic_extras.get(t));
    // A key treated as a shared audience gets a shared audience's files (the group chat set), never the
    // owner's full fallback set (USER.md and the like).
    let set_of = if session_type == SessionType::Fallback && sessions.unknown_shared {
        SessionType::GroupChat
    } else {
        session_type
    };
    for f in sessions.files_for(set_of).iter().chain(extras.into_iter().flatten()) {
        if !files.contains(f) {
            files.push(f.clone());
        }
    }
    SessionInfo {
        session_type,
        audience_shared: session_type.is_shared_audience()
            || (session_type == SessionType::Fallback && sessions.unknown_shared),
        topic_id,
        peer,
        files,
        reason,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(key: &str, expect: SessionType) {
        let s = SessionsConfig::default().with_owner("1001").with_owner("slack:U42");
        assert_eq!(classify_session(key, &s).session_type, expect, "{key}");
    }

    #[test]
    fn classification_table() {
        check("agent:main:main", SessionType::MainSession);
        check("agent:ops:main", SessionType::MainSession);
        check("agent:main:direct:1001", SessionType::PrivateDm);
        check("agent:main:telegram:direct:1001", SessionType::PrivateDm);
        check("agent:main:telegram:acct1:direct:1001", SessionType::PrivateDm);
        check("agent:main:slack:direct:U42", SessionType::PrivateDm);
        check("agent:main:discord:direct:U42", SessionType::ExternalDm);
        check("agent:main:telegram:direct:2002", SessionType::ExternalDm);
        check("agent:main:telegram:direct:1001:thread:9", SessionType::PrivateDm);
        check("agent:main:telegram:group:-100123:topic:14", SessionType::ForumTopic);
        check("agent:main:slack:channel:C1:thread:1700.1", SessionType::ForumTopic);
        check("agent:main:telegram:group:-100123", SessionType::GroupChat);
        check("agent:main:discord:channel:abc", SessionType::GroupChat);
        check("agent:main:subagent:0b7e-11", SessionType::Subagent);
        check("cron:nightly", SessionType::HeartbeatCron);
        check("cron:nightly:run:42", SessionType::HeartbeatCron);
        check("agent:main:cron:nightly:run:42", SessionType::HeartbeatCron);
        check("heartbeat", SessionType::HeartbeatCron);
        check("something-else", SessionType::Fallback);
        check("", SessionType::Fallback);
        check("main", SessionType::Fallback);
    }

    #[test]
    fn fallback_fails_closed_unless_configured() {
        let info = classify_session("weird/key", &SessionsConfig::default());
        assert_eq!(info.warnings.len(), 1);
        assert!(info.audience_shared, "an unknown key is a shared audience by default");
        assert_eq!(info.files, ["SOUL.md", "TOOLS_COMPACT.md"], "and gets a shared audience's files");
        let owner = SessionsConfig::default().with_unknown_as_owner();
        let info = classify_session("weird/key", &owner);
        assert!(!info.audience_shared);
        assert_eq!(info.files, ["SOUL.md", "USER.md", "AGENTS.md", "TOOLS_COMPACT.md"]);
    }
}
