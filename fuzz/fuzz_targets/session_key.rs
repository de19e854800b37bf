//! Session-key classification (`cairn-route` `classify_session`), which decides who may see what for
//! every request that names a session key.
//!
//! Checks: no panic; linear time; deterministic; fails closed (a key in no known format is a shared
//! audience without the owner's files unless `unknown: owner` is configured; group chats and topics are
//! always shared); a private DM is only ever a configured owner's; the peer and topic ids it reports
//! are segments of the key.
#![no_main]

use cairn_route::{SessionType, SessionsConfig, classify_session};
use libfuzzer_sys::fuzz_target;

cairn_fuzz::asan_defaults!();

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let key = cairn_fuzz::text(rest);
    let key = key.as_ref();
    let (sessions, unknown_shared) = match pick % 3 {
        0 => (SessionsConfig::default(), true),
        1 => (SessionsConfig::default().with_owner("1001").with_owner("slack:U42"), true),
        _ => (SessionsConfig::default().with_owner("1001").with_unknown_as_owner(), false),
    };
    let a = cairn_fuzz::linear("classify_session", key.len(), || classify_session(key, &sessions));
    assert_eq!(a, classify_session(key, &sessions), "not deterministic: {key:?}");

    let segments: Vec<&str> = key.split(':').collect();
    match a.session_type {
        SessionType::Fallback if unknown_shared => {
            assert!(a.audience_shared, "an unplaced key is a shared audience: {key:?}");
            assert!(!a.files.iter().any(|f| f == "USER.md"), "{key:?}: {:?}", a.files);
        }
        SessionType::GroupChat | SessionType::ForumTopic => {
            assert!(a.audience_shared, "{key:?}: {a:?}")
        }
        SessionType::PrivateDm => {
            let peer = a.peer.as_deref().expect("a private DM names its peer");
            assert!(peer == "1001" || peer == "U42", "{key:?}: a DM from {peer:?} is not the owner's");
            assert!(!a.audience_shared);
        }
        _ => {}
    }
    if segments.iter().any(|s| s.eq_ignore_ascii_case("subagent")) {
        assert_eq!(a.session_type, SessionType::Subagent, "{key:?}");
    }
    for id in [&a.peer, &a.topic_id].into_iter().flatten() {
        assert!(segments.contains(&id.as_str()), "{id:?} is no segment of {key:?}");
    }
});
