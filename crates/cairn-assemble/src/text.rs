//! Pure text helpers: sanitising, tidying markdown, sentence cuts, escaping, dates.

use std::borrow::Cow;

/// Characters that may not reach the block: controls other than newline and tab, and the two
/// non-characters XML 1.0 forbids.
fn is_banned(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{FFFE}' || c == '\u{FFFF}'
}

/// A cheap token estimate (no tokenizer): ASCII at about four bytes per token, anything else
/// about one token per char. Only used to skip work that clearly cannot fit, never to bound.
pub(crate) fn estimate_tokens(s: &str) -> usize {
    let ascii = s.bytes().filter(u8::is_ascii).count();
    let other = s.chars().count() - ascii;
    ascii / 4 + other
}

/// The prefix of `s` holding at most `n` chars.
pub(crate) fn prefix_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// One line of display text: banned characters dropped, whitespace runs collapsed to one space,
/// trimmed, at most `max_chars` chars (an ellipsis marks a cut). Reads no further than it needs.
pub(crate) fn one_line(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0usize;
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if is_banned(c) {
            continue;
        }
        if chars + usize::from(space) >= max_chars {
            out.push('…');
            return out;
        }
        if space {
            out.push(' ');
            chars += 1;
            space = false;
        }
        out.push(c);
        chars += 1;
    }
    out
}

/// Raw text for an L2 snippet: line endings normalised, banned characters dropped, trimmed.
pub(crate) fn clean_raw(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() != Some(&'\n') {
                out.push('\n');
            }
        } else if !is_banned(c) {
            out.push(c);
        }
    }
    let trimmed = out.trim();
    if trimmed.len() == out.len() { out } else { trimmed.to_owned() }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Plain,
    Heading,
    Bullet,
}

fn is_rule(line: &str) -> bool {
    let mut n = 0;
    for c in line.chars() {
        match c {
            '-' | '*' | '_' | '=' | '|' | ':' | '+' => n += 1,
            ' ' | '\t' => {}
            _ => return false,
        }
    }
    n >= 3
}

fn strip_marker(line: &str) -> (&str, LineKind) {
    if line.starts_with('#') {
        let rest = line.trim_start_matches('#');
        if rest.is_empty() || rest.starts_with(char::is_whitespace) {
            return (rest.trim_start(), LineKind::Heading);
        }
        return (line, LineKind::Plain);
    }
    if line.starts_with('>') {
        return (line.trim_start_matches(|c: char| c == '>' || c.is_whitespace()), LineKind::Plain);
    }
    for bullet in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            let rest = rest.trim_start();
            let rest = ["[ ] ", "[x] ", "[X] "].iter().find_map(|b| rest.strip_prefix(b)).unwrap_or(rest);
            return (rest.trim_start(), LineKind::Bullet);
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 3 {
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return (rest.trim_start(), LineKind::Bullet);
        }
    }
    (line, LineKind::Plain)
}

fn ends_terminal(s: &str) -> bool {
    s.ends_with(['.', '!', '?', ':', ';', '…', '。', '！', '？', '：', '；'])
}

/// An extractive summary source: markdown headings, bullets, quotes, rules, code fences and
/// emphasis markers tidied away, lines joined into running text (headings end with `:`, bullet
/// items with `;` between items; an indented line continues the item above it). Headings that only
/// repeat `title` (or one of its ` > ` parts) are dropped. Falls back to the collapsed raw text when
/// nothing else is left.
pub(crate) fn tidy(window: &str, title: &str) -> String {
    let title = title.trim();
    let restates = |h: &str| {
        let h = h.trim().trim_end_matches(':');
        !h.is_empty()
            && (h.eq_ignore_ascii_case(title) || title.split(" > ").any(|p| h.eq_ignore_ascii_case(p.trim())))
    };
    let mut out = String::with_capacity(window.len());
    let mut fence = false;
    // The kind of the segment written last, whose terminator is added only once we know it ended.
    let mut open: Option<LineKind> = None;
    let close = |out: &mut String, kind: Option<LineKind>| {
        if let Some(kind) = kind
            && !ends_terminal(out)
        {
            match kind {
                LineKind::Heading => out.push(':'),
                LineKind::Bullet => out.push(';'),
                LineKind::Plain => {}
            }
        }
    };
    for raw in window.lines() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence || line.is_empty() || is_rule(line) {
            continue;
        }
        let (body, mut kind) = strip_marker(line);
        if kind == LineKind::Heading && restates(body) {
            continue;
        }
        let continues =
            kind == LineKind::Plain && open == Some(LineKind::Bullet) && raw.starts_with([' ', '\t']);
        if continues {
            kind = LineKind::Bullet;
        } else {
            close(&mut out, open.take());
        }
        let before = out.len();
        if before > 0 {
            out.push(' ');
        }
        let (mut space, mut started) = (false, false);
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            if (c == '*' || c == '_') && chars.peek() == Some(&c) {
                chars.next();
                continue;
            }
            if c.is_whitespace() {
                space = true;
                continue;
            }
            if c == '`' || is_banned(c) {
                continue;
            }
            if space && started {
                out.push(' ');
            }
            space = false;
            started = true;
            out.push(c);
        }
        if !started {
            out.truncate(before);
            if continues {
                open = Some(LineKind::Bullet);
            }
            continue;
        }
        open = Some(kind);
    }
    // The last heading still gets its `:`; a trailing item needs no separator.
    if open == Some(LineKind::Heading) {
        close(&mut out, open);
    }
    if out.trim().is_empty() {
        return one_line(window, usize::MAX);
    }
    out
}

fn is_sentence_end(c: char, next: Option<char>) -> bool {
    match c {
        '。' | '！' | '？' => true,
        '.' | '!' | '?' | '…' => next.is_none_or(char::is_whitespace),
        _ => false,
    }
}

/// The first sentence of running text (at least a few words long), or all of it.
pub(crate) fn first_sentence(s: &str) -> &str {
    const MIN_CHARS: usize = 16;
    let mut chars = s.char_indices().peekable();
    let mut count = 0usize;
    while let Some((i, c)) = chars.next() {
        count += 1;
        let next = chars.peek().map(|&(_, n)| n);
        if count >= MIN_CHARS && is_sentence_end(c, next) {
            return &s[..i + c.len_utf8()];
        }
    }
    s
}

/// Where to cut an over-long text, looking back from `prefix`'s end.
#[derive(Clone, Copy)]
pub(crate) enum Cut {
    /// At a sentence end, else a space.
    Sentence,
    /// At a line end, else a space.
    Line,
}

/// `prefix` shortened to a natural boundary in its second half, right-trimmed.
pub(crate) fn back_off(prefix: &str, cut: Cut) -> &str {
    let half = prefix.len() / 2;
    let boundary = match cut {
        Cut::Sentence => {
            let mut best = None;
            let mut it = prefix.char_indices().peekable();
            while let Some((i, c)) = it.next() {
                if i >= half && is_sentence_end(c, it.peek().map(|&(_, n)| n)) {
                    best = Some(i + c.len_utf8());
                }
            }
            best
        }
        Cut::Line => prefix.rfind('\n').filter(|&i| i >= half),
    };
    let boundary = boundary.or_else(|| prefix.rfind(char::is_whitespace).filter(|&i| i >= half));
    match boundary {
        Some(i) => prefix[..i].trim_end(),
        None => prefix.trim_end(),
    }
}

/// How much of a text the near-duplicate key reads; longer texts add their length to the key.
const NEAR_KEY_BYTES: usize = 4 * 1024;

/// ASCII alphanumerics lowercased; everything else 0.
const ASCII_KEY: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};

/// Two independent 64-bit FNV-1a streams: a 128-bit key without storing the normalised text. Hashes
/// at most `room` bytes of the stream (the rest is ignored).
struct KeyHasher {
    a: u64,
    b: u64,
    empty: bool,
    room: usize,
}

impl KeyHasher {
    fn new(room: usize) -> Self {
        Self { a: 0xcbf2_9ce4_8422_2325, b: 0x6c62_272e_07bb_0142, empty: true, room }
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        if self.room == 0 {
            return;
        }
        self.room -= 1;
        self.a = (self.a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        self.b = (self.b ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(5);
        self.empty = false;
    }

    fn extend(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    fn finish(&self) -> u128 {
        (u128::from(self.a) << 64) | u128::from(self.b)
    }
}

/// A key equal for texts that differ only in case, punctuation, markup or spacing: a 128-bit hash
/// of the normalised text (alphanumerics lowercased, one space between runs).
pub(crate) fn near_key(text: &str) -> Option<u128> {
    near_key_within(text, usize::MAX)
}

/// Normalised bytes hashed by [`near_key_prefix`].
pub(crate) const NEAR_PREFIX_BYTES: usize = 256;

/// The hash of the first [`NEAR_PREFIX_BYTES`] bytes of what [`near_key`] hashes: texts with equal
/// near keys have equal prefix keys, so a text whose prefix key is unique among the candidates needs
/// no full key (which reads up to 4 KiB).
pub(crate) fn near_key_prefix(text: &str) -> Option<u128> {
    near_key_within(text, NEAR_PREFIX_BYTES)
}

/// [`near_key`] over the first `room` bytes of the normalised stream.
fn near_key_within(text: &str, room: usize) -> Option<u128> {
    let mut end = text.len().min(NEAR_KEY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let bytes = head.as_bytes();
    let mut key = KeyHasher::new(room);
    let mut gap = false;
    let mut i = 0;
    while i < bytes.len() && key.room > 0 {
        let b = bytes[i];
        if b < 128 {
            i += 1;
            let k = ASCII_KEY[b as usize];
            if k == 0 {
                gap = true;
                continue;
            }
            if gap && !key.empty {
                key.push(b' ');
            }
            gap = false;
            key.push(k);
            continue;
        }
        let c = head[i..].chars().next().expect("i is a char boundary");
        i += c.len_utf8();
        if c.is_alphanumeric() {
            if gap && !key.empty {
                key.push(b' ');
            }
            gap = false;
            let mut tmp = [0u8; 4];
            for l in c.to_lowercase() {
                key.extend(l.encode_utf8(&mut tmp).as_bytes());
            }
        } else {
            gap = true;
        }
    }
    if key.empty {
        // Nothing alphanumeric (emoji, symbols): only exact equality counts.
        let trimmed = head.trim();
        if trimmed.is_empty() {
            return None;
        }
        key.push(0);
        key.extend(trimmed.as_bytes());
    }
    if end < text.len() {
        key.push(0);
        key.extend(text.len().to_string().as_bytes());
    }
    Some(key.finish())
}

/// For markdown: stop text from opening or closing Cairn's own wrapper tag, so the capture side's
/// stripping cannot be fooled. `<cairn-context` becomes `&lt;cairn-context` (any case).
pub(crate) fn defuse(s: &str) -> Cow<'_, str> {
    const TAG: &[u8] = b"cairn-context";
    let bytes = s.as_bytes();
    let hit = |i: usize| {
        let mut j = i + 1;
        if bytes.get(j) == Some(&b'/') {
            j += 1;
        }
        bytes.len() >= j + TAG.len() && bytes[j..j + TAG.len()].eq_ignore_ascii_case(TAG)
    };
    if !s.bytes().enumerate().any(|(i, b)| b == b'<' && hit(i)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        if b == b'<' && hit(i) {
            out.push_str(&s[last..i]);
            out.push_str("&lt;");
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

/// Escape XML character data.
pub(crate) fn xml_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// Escape an XML attribute value (double-quoted).
pub(crate) fn xml_attr(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
}

/// Markdown-escape `*` so a value cannot end the italic line it sits in.
pub(crate) fn md_italic_safe(s: &str) -> Cow<'_, str> {
    if s.contains('*') { Cow::Owned(s.replace('*', "\\*")) } else { Cow::Borrowed(s) }
}

/// `YYYY-MM-DD` (UTC) of a millisecond timestamp.
pub(crate) fn date_utc(ms: i64) -> String {
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let check = |ms: i64, want: &str| assert_eq!(date_utc(ms), want, "{ms}");
        check(0, "1970-01-01");
        check(-1, "1969-12-31");
        check(86_400_000 - 1, "1970-01-01");
        check(951_782_400_000, "2000-02-29");
        check(1_773_792_000_000, "2026-03-18");
        check(1_709_164_800_000, "2024-02-29");
        check(4_102_444_800_000, "2100-01-01");
        // Extremes do not panic.
        let _ = date_utc(i64::MAX);
        let _ = date_utc(i64::MIN);
    }

    #[test]
    fn tidies_markdown() {
        let check = |input: &str, want: &str| assert_eq!(tidy(input, "Doc > Part"), want, "{input:?}");
        check("# Doc\n## part\nBody.", "Body.");
        check("# Status\nCurrent equity is **high**.", "Status: Current equity is high.");
        check("- one\n- two.\n1. three", "one; two. three");
        check("- first item\n  wrapped on\n- second", "first item wrapped on; second");
        check("> quoted\n---\n```\ncode()\n```\ntail", "quoted tail");
        check("plain line\nwrapped here", "plain line wrapped here");
        check("```\nonly code\n```", "``` only code ```");
        check("- [x] done item", "done item");
        check("#hashtag text", "#hashtag text");
    }

    #[test]
    fn first_sentences() {
        let check = |input: &str, want: &str| assert_eq!(first_sentence(input), want, "{input:?}");
        check("Short. This is the second sentence. Third.", "Short. This is the second sentence.");
        check("No terminator at all here", "No terminator at all here");
        check("記憶システムの設計について話しましょう。次の文。", "記憶システムの設計について話しましょう。");
        check("Price was $3.88 today and rising. Next.", "Price was $3.88 today and rising.");
    }

    #[test]
    fn one_line_caps_and_collapses() {
        assert_eq!(one_line("  a \n\t b\u{0} ", 10), "a b");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("", 3), "");
    }

    #[test]
    fn defuses_wrapper_tags() {
        assert_eq!(
            defuse("x </cairn-context> y <CAIRN-CONTEXT a>"),
            "x &lt;/cairn-context> y &lt;CAIRN-CONTEXT a>"
        );
        assert!(matches!(defuse("a < b </other>"), Cow::Borrowed(_)));
    }

    #[test]
    fn near_keys() {
        let key = near_key;
        assert_eq!(key("Hello,  World!"), key("hello world"));
        assert_eq!(key("Émile: ÇA va"), key("émile ça va"));
        assert_ne!(key("hello world"), key("hello there"));
        assert_eq!(key("  "), None);
        assert_ne!(key("🙂"), key("🙃"));
        let long = "word ".repeat(5000);
        assert_ne!(key(&long), key(&format!("{long}more")));
    }

    proptest::proptest! {
        /// Equal near keys imply equal prefix keys (the dedupe skips full keys on that basis), and a
        /// text whose normalised form fits the prefix gets a prefix key that tells it apart as well.
        #[test]
        fn prefix_keys_are_implied(a in "[a-cA-C ,.\n]{0,300}", b in "[a-cA-C ,.\n]{0,300}", e in "[ ,.!]{0,4}") {
            let spaced = format!("{e}{}{e}", a.to_uppercase().replace(' ', "  "));
            if near_key(&a) == near_key(&spaced) {
                proptest::prop_assert_eq!(near_key_prefix(&a), near_key_prefix(&spaced));
            }
            if near_key(&a) == near_key(&b) {
                proptest::prop_assert_eq!(near_key_prefix(&a), near_key_prefix(&b));
            }
            if a.len() < NEAR_PREFIX_BYTES / 2 {
                proptest::prop_assert_eq!(near_key_prefix(&a) == near_key_prefix(&b), near_key(&a) == near_key(&b));
            }
        }
    }

    #[test]
    fn back_off_prefers_boundaries() {
        assert_eq!(
            back_off("One sentence here, quite long. Another is cut", Cut::Sentence),
            "One sentence here, quite long."
        );
        assert_eq!(
            back_off("Short. Then a long run without end", Cut::Sentence),
            "Short. Then a long run without"
        );
        assert_eq!(back_off("line one\nline two is long", Cut::Line), "line one\nline two is");
        assert_eq!(back_off("abcdefgh", Cut::Line), "abcdefgh");
    }
}
