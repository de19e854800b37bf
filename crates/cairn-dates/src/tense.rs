//! Whether a prompt asks about the future, so that a date without a year names its next occurrence:
//! "what will we do in August?" in June means this August, not last year's. A word that looks ahead
//! ("will", "we'll", "going to", "should", "planned", "upcoming") makes a prompt about the future, unless it
//! also speaks in the past ("did", "was", "were", "had": "what did I say I'd do in March?"), which
//! asks about what was said. English only.

/// Words that look ahead.
const AHEAD: &[&str] = &[
    "gonna",
    "planned",
    "planning",
    "plans",
    "scheduled",
    "shall",
    "should",
    "upcoming",
    "will",
    "won't",
    "wont",
];

/// Past auxiliaries: with one, a prompt asks about the past whatever else it says.
const PAST: &[&str] = &["did", "didn't", "had", "hadn't", "was", "wasn't", "were", "weren't"];

/// Words that ask about habits rather than one occasion.
const HABITUAL: &[&str] = &["always", "generally", "normally", "often", "typically", "usually"];

/// Whether `text` asks about the future (see the module docs).
pub(crate) fn ahead(text: &str) -> bool {
    let lower = lower(text);
    let words = words(&lower);
    if words.iter().any(|w| PAST.contains(w)) {
        return false;
    }
    words.iter().any(|w| AHEAD.contains(w) || w.ends_with("'ll"))
        || words.windows(2).any(|p| p[0] == "going" && p[1] == "to")
}

/// Whether `text` speaks in the past: it holds a past auxiliary ("did", "was", "had" …).
pub(crate) fn past(text: &str) -> bool {
    words(&lower(text)).iter().any(|w| PAST.contains(w))
}

/// Whether `text` asks about habits ("what do I usually do at the weekend?").
pub(crate) fn habitual(text: &str) -> bool {
    words(&lower(text)).iter().any(|w| HABITUAL.contains(w))
}

fn lower(text: &str) -> String {
    text.to_lowercase().replace('’', "'")
}

fn words(lower: &str) -> Vec<&str> {
    lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::ahead;

    #[test]
    fn prompts_about_the_future() {
        for p in [
            "What will we do in August?",
            "We'll see them at Christmas",
            "what’s planned for the winter?",
            "Are we going to Lisbon in May?",
            "any upcoming deadlines in March?",
            "What should I pack for Iceland in winter?",
        ] {
            assert!(ahead(p), "{p}");
        }
    }

    #[test]
    fn prompts_about_the_past_or_timeless() {
        for p in [
            "What did I say I'd do in March?",
            "What did we do in August?",
            "what happened in the summer?",
            "When is the dentist in August?",
            "I was going to call him in May",
            "",
        ] {
            assert!(!ahead(p), "{p}");
        }
    }
}
