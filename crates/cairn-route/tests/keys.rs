//! Session keys from any host, in any shape: classification never panics, is deterministic, and a key it
//! cannot place never gets the owner's audience (F10: fail closed).

use cairn_route::{SessionType, SessionsConfig, classify_session};
use proptest::prelude::*;

fn keys() -> impl Strategy<Value = String> {
    let seg = prop_oneof![
        Just("agent".to_owned()),
        Just("main".to_owned()),
        Just("group".to_owned()),
        Just("direct".to_owned()),
        Just("topic".to_owned()),
        Just("subagent".to_owned()),
        Just("cron".to_owned()),
        "[a-z0-9@._|/+-]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(seg, 0..8).prop_map(|v| v.join(":"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn any_key_is_classified_deterministically_and_fails_closed(key in keys()) {
        let sessions = SessionsConfig::default().with_owner("1001");
        let a = classify_session(&key, &sessions);
        let b = classify_session(&key, &sessions);
        prop_assert_eq!(&a, &b);
        if a.session_type == SessionType::Fallback {
            prop_assert!(a.audience_shared, "an unplaced key is a shared audience: {key:?}");
            prop_assert!(!a.files.iter().any(|f| f == "USER.md"), "{key:?}: {:?}", a.files);
        }
        if a.session_type == SessionType::GroupChat || a.session_type == SessionType::ForumTopic {
            prop_assert!(a.audience_shared);
        }
    }
}
