//! Small text and clock helpers every stage needs the same way.

use crate::Millis;

/// The first `max` bytes of `s`, cut back to a char boundary.
///
/// ```
/// assert_eq!(cairn_core::prefix("héllo", 2), "h");
/// assert_eq!(cairn_core::prefix("hello", 10), "hello");
/// ```
pub fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Milliseconds since the Unix epoch by the system clock (0 before the epoch).
pub fn now_ms() -> Millis {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as Millis)
}
