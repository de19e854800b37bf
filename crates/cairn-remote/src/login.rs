//! LightRAG's password login (`POST /login`, an OAuth2 password form, `lightrag/api/lightrag_server.py`):
//! a bearer token for one of the server's `AUTH_ACCOUNTS`, kept until a minute before the `exp` its
//! JWT carries (LightRAG's default life is 48 hours) and fetched again after a 401.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::Value;

use crate::http::CallError;
use crate::settings::Secret;

/// A token is renewed this long before its `exp`.
const RENEW_BEFORE_SECS: u64 = 60;

/// An account to log in with, and the token it last got.
pub(crate) struct Login {
    /// The account's name (`AUTH_ACCOUNTS` of the server).
    pub(crate) user: String,
    /// Its password (from `secret_env`).
    pub(crate) password: Secret,
    /// The bearer token and when it expires (seconds since the epoch; none: not known).
    token: Mutex<Option<(Secret, Option<u64>)>>,
}

impl Login {
    pub(crate) fn new(user: &str, password: Secret) -> Login {
        Login { user: user.to_owned(), password, token: Mutex::new(None) }
    }

    /// The token held, when it is not about to expire.
    pub(crate) fn current(&self) -> Option<Secret> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs();
        match &*self.token.lock().unwrap_or_else(|e| e.into_inner()) {
            Some((token, exp)) if exp.is_none_or(|e| now + RENEW_BEFORE_SECS < e) => Some(token.clone()),
            _ => None,
        }
    }

    /// Keeps the token of a `/login` answer (`{"access_token", "token_type": "bearer", ..}`).
    pub(crate) fn accept(&self, answer: &Value) -> Result<Secret, CallError> {
        let token = answer
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| CallError::Malformed("`/login` answered no `access_token`".into()))?;
        let token = Secret::new(token);
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = Some((token.clone(), expiry(token.expose())));
        Ok(token)
    }

    /// Forgets the token (the service refused it).
    pub(crate) fn forget(&self) {
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// The `exp` claim of a JWT (seconds since the epoch), read without checking its signature: only to
/// know when to ask for a new one.
fn expiry(jwt: &str) -> Option<u64> {
    let payload = jwt.split('.').nth(1)?;
    let bytes =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims.get("exp").and_then(|e| e.as_u64().or_else(|| e.as_f64().map(|f| f as u64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(exp: u64) -> String {
        let enc = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!("{}.{}.sig", enc(r#"{"alg":"HS256"}"#), enc(&format!(r#"{{"sub":"cairn","exp":{exp}}}"#)))
    }

    #[test]
    fn a_token_is_kept_until_a_minute_before_it_expires() {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let login = Login::new("cairn", Secret::new("pw"));
        assert!(login.current().is_none());
        login.accept(&serde_json::json!({"access_token": jwt(now + 3600), "token_type": "bearer"})).unwrap();
        assert!(login.current().is_some());
        login.accept(&serde_json::json!({"access_token": jwt(now + 30)})).unwrap();
        assert!(login.current().is_none(), "expires within the minute: renewed");
        login.accept(&serde_json::json!({"access_token": "opaque"})).unwrap();
        assert!(login.current().is_some(), "no readable exp: kept until refused");
        login.forget();
        assert!(login.current().is_none());
        assert!(login.accept(&serde_json::json!({"token_type": "bearer"})).is_err());
    }

    #[test]
    fn expiry_reads_the_claim() {
        assert_eq!(expiry(&jwt(1_900_000_000)), Some(1_900_000_000));
        assert_eq!(expiry("not a jwt"), None);
    }
}
