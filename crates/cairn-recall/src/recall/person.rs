//! Questions that ask for a person: "who fixes my teeth?", "how do I reach the woman who does my
//! taxes?", "what's the cell for the guy renovating downstairs?", "what does the repair man charge
//! just to turn up?". Their answer is most often a person's own note (a contact: titled with the
//! person's name, "Colin Pask"), which describes the person by role in words of its own ("Retired
//! postman. Bee mentor."): the question's words are not there, and a small model's meaning puts the
//! notes that tell of the role's subject (the hives, the renovation) ahead of the person.
//!
//! So, for such a question, the person's own notes nearest in meaning among the candidates (the
//! nearest, and any within [`TIE`] of it) get a `person` part that adds [`PERSON_WEIGHT`] to their
//! score. It changes ranking only: relevance (the floor) never counts it, so "who painted the Mona
//! Lisa?" stays as empty as it was. Without a model nothing is near in meaning, and nothing changes.
//! English only, like the other forms.

use std::sync::LazyLock;

use regex::Regex;
use tantivy::{DocAddress, Searcher};

use super::Recaller;
use super::fusion::Similarities;
use super::lanes::Found;
use super::relations::person_of;
use crate::index::{StoredHit, item_title_of};

/// The part's name in a hit's `parts` and in the receipt.
pub const PERSON_PART: &str = "person";

/// What the `person` part adds to the score of the person's own notes nearest in meaning.
pub(super) const PERSON_WEIGHT: f32 = 0.3;

/// How far below the nearest person's note another may be in cosine similarity and still get the part.
const TIE: f32 = 0.01;

/// At most this many candidates (by cosine similarity) are read for their titles.
const READ: usize = 20;

/// The forms of a question asking for a person (lower case, one apostrophe).
static ASKS_FOR_A_PERSON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // "who fixes my teeth?", "whose café …", "who's the boss of …"
        r"^(?:who|whom|whose|who's)\b",
        // "how do I reach / get hold of / contact …"
        r"|\bhow (?:do|can|should|would|could) (?:i|we) (?:reach|contact|get hold of|get in touch with|call|ring|phone|text|email)\b",
        // "what's the number / cell / email for …"
        r"|\b(?:phone|telephone|cell|mobile|email|e-mail) (?:number )?(?:for|of)\b",
        r"|^(?:what's|what is) (?:the|his|her|their) (?:number|contact details) for\b",
        // "the man who …", "the repair man", "the lady with the posh showroom"
        r"|\bthe (?:[a-z-]+ )?(?:man|woman|guy|lady|chap|bloke|fellow|gentleman|person)(?:[^a-z'-]|$)",
    ))
    .expect("valid")
});

/// Whether `text` asks for a person (see the module docs).
pub(super) fn asks_for_a_person(text: &str) -> bool {
    let lower = text.trim().to_lowercase().replace('\u{2019}', "'");
    ASKS_FOR_A_PERSON.is_match(&lower)
}

/// Whose own note the chunk titled `title` is ("Colin Pask", "Colin Pask > Notes").
fn is_a_persons_note(title: &str) -> bool {
    person_of(item_title_of(title)).is_some()
}

impl Recaller {
    /// Marks the person's own notes nearest in meaning among the candidates of a question asking
    /// for a person (see the module docs).
    pub(super) fn person_step(
        &self,
        searcher: &Searcher,
        text: &str,
        found: &mut Found,
        sims: &Similarities,
    ) {
        if sims.cosine.is_empty() || !asks_for_a_person(text) {
            return;
        }
        let mut nearest: Vec<(f32, DocAddress)> = sims.cosine.iter().map(|(a, c)| (*c, *a)).collect();
        nearest.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let mut first: Option<f32> = None;
        for (cosine, addr) in nearest.into_iter().take(READ) {
            if first.is_some_and(|f| cosine < f - TIE) {
                break;
            }
            let Ok(StoredHit(hit)) = searcher.doc::<StoredHit>(addr) else { continue };
            if !is_a_persons_note(&hit.title) {
                continue;
            }
            first.get_or_insert(cosine);
            if let Some(c) = found.cands.get_mut(&addr) {
                c.person = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_that_ask_for_a_person() {
        for q in [
            "Who fixes my teeth?",
            "Whose coffee shop do we discuss novels in?",
            "Who's the boss of our belfry lot?",
            "How do I reach the woman who does my taxes?",
            "How can I get hold of the craftsman who does the stuffing and covers?",
            "What's the cell for the guy renovating downstairs?",
            "What's the email of the lady with the posh showroom who passes me pieces to mend?",
            "What does the repair man charge just to turn up?",
            "Which football team is the man who sells me flour a fan of?",
            "What's the phone number of the carpenter who built the workshop?",
        ] {
            assert!(asks_for_a_person(q), "{q}");
        }
        for q in [
            "What is the capital of Mongolia?",
            "How do I reset my router?",
            "What did the vet say about Moss's leg?",
            "What's the number of the bus to the station?",
            "What are the digits for the rear entry at the coffee shop?",
            "Is the manual for the oven any good?",
            "What's the best woman's bike for commuting?",
            "Which hotel did I stay at in London?",
        ] {
            assert!(!asks_for_a_person(q), "{q}");
        }
    }

    #[test]
    fn a_persons_own_note_by_its_title() {
        assert!(is_a_persons_note("Colin Pask"));
        assert!(is_a_persons_note("Colin Pask > Notes"));
        assert!(is_a_persons_note("Gillian Hale (Mum)"));
        assert!(!is_a_persons_note("Kitchen renovation"));
        assert!(!is_a_persons_note("Memory"));
        assert!(!is_a_persons_note("2026-03-12"));
    }
}
