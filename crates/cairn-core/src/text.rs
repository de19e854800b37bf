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

/// `s` cut to at most `max` bytes like [`prefix`], and back to the end of its last whole word when the
/// cut fell inside one (a prompt cut mid-word would search for a word nobody wrote). Whitespace-free
/// text keeps the plain cut.
pub fn prefix_words(s: &str, max: usize) -> &str {
    let cut = prefix(s, max);
    if cut.len() == s.len() || s[cut.len()..].starts_with(char::is_whitespace) {
        return cut;
    }
    match cut.rfind(char::is_whitespace) {
        Some(at) => cut[..at].trim_end(),
        None => cut,
    }
}

/// Milliseconds since the Unix epoch by the system clock (0 before the epoch).
pub fn now_ms() -> Millis {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as Millis)
}

#[cfg(test)]
mod prefix_tests {
    use super::*;

    #[test]
    fn cuts_keep_whole_words() {
        assert_eq!(prefix_words("alert queue", 8), "alert");
        assert_eq!(prefix_words("alert queue", 5), "alert");
        assert_eq!(prefix_words("alert queue", 6), "alert");
        assert_eq!(prefix_words("alert queue", 50), "alert queue");
        assert_eq!(prefix_words("abcdef", 3), "abc");
        assert_eq!(prefix_words("été bientôt", 9), "été");
    }
}
