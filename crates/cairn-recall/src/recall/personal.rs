//! Questions about the asker: "what does *my* sister do?", "which antibiotic *am I* allergic to?",
//! "what should *you* call *me*?", "how long *did I* wait?", "who gives *me* Polish lessons?", "who
//! minded the animals while *we were* away?". Memory is the asker's own, so such a question is presumed to be
//! about it, and the relevance floor is lower for it ([`RecallSettings::personal_floor`]). A request
//! or a how-to in the first person ("how do I reset my router?", "tell me a joke", "should I learn
//! Rust?") asks for general help instead, and is not one. English only: in other languages every
//! question meets the ordinary floor.
//!
//! [`RecallSettings::personal_floor`]: super::RecallSettings::personal_floor

/// Words that open a request or an instruction, besides the verbs that ask for something new
/// (`world.rs`: "draft", "translate", "write" …): the asker wants something done, not something
/// remembered.
const REQUEST_OPENERS: &[&str] =
    &["can", "could", "describe", "help", "list", "make", "please", "show", "tell", "will", "would"];

/// Whether `words` (lower case) open a request or an instruction ("tell me a joke", "draft a tweet
/// announcing our launch"): the asker wants something done, whatever it names of theirs.
pub(super) fn opens_a_request(words: &[&str]) -> bool {
    words.first().is_some_and(|w| REQUEST_OPENERS.contains(w) || super::world::asks_for_something(w))
}

/// Words that open a question asking who, what, which, where, when or why ("what's" as "what").
const WH: &[&str] = &["what", "when", "where", "which", "who", "whom", "whose", "why"];

/// Modal verbs: "can I", "I could" ask what anyone could do, not what the asker does.
const MODALS: &[&str] = &["can", "could", "may", "might", "must", "shall", "should", "will", "would"];

/// Verbs of thinking and wanting after `I`: "…, I wonder?", "what I need to know about ISAs".
const THINKING: &[&str] =
    &["believe", "guess", "know", "mean", "need", "reckon", "suppose", "think", "want", "wonder"];

/// Verbs that inform or help whoever uses a thing: "the app that *tells* me the time".
const INFORMING: &[&str] = &[
    "gives", "helps", "lets", "makes", "reminds", "sends", "shows", "tells", "wakes", "warns", "give",
    "help", "let", "make", "remind", "send", "show", "tell",
];

/// Verbs that, followed by `I` or `we`, ask what the asker did, was, has or does ("did I", "am I").
const ASKER_AUXILIARIES: &[&str] = &["am", "did", "do", "does", "had", "have", "was", "were"];

/// The words of a prompt, apostrophes kept inside them ("what's", "i'm").
pub(super) fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')).filter(|w| !w.is_empty()).collect()
}

/// Whether `text` asks about the asker's own life, things or wishes (see the module docs).
pub(crate) fn about_the_asker(text: &str) -> bool {
    // One apostrophe: "we’ve" is read as "we've".
    let lower = text.to_lowercase().replace('’', "'");
    let written = words(text);
    let words = words(&lower);
    let first = |w: &str| words.first() == Some(&w);
    let asker = |w: &str| w == "i" || w == "we";
    if opens_a_request(&words) {
        return false;
    }
    // "how do I …", "how long should we …", "what should I …", "should I …": advice, not memory;
    // but "how long did I …", "how much have we …" ask what the asker did.
    let past = |w: &str| matches!(w, "did" | "had" | "have" | "has" | "was" | "were");
    let how_advice = first("how")
        && words.iter().take(4).enumerate().any(|(i, w)| asker(w) && !(i > 0 && past(words[i - 1])));
    let advice = words.windows(2).any(|p| p[0] == "should" && asker(p[1])) || how_advice;
    if advice {
        return false;
    }
    // "mine" and "ours" as pronouns ("a friend of mine", "which one is ours?"), not "the salt mine".
    let possessive = words.iter().enumerate().any(|(i, w)| match *w {
        "my" | "our" => true,
        "mine" | "ours" => i > 0 && matches!(words[i - 1], "of" | "is" | "are" | "was" | "were"),
        _ => false,
    });
    // "who conducts the choir I'm in?", "which of the plans we've made …": the asker as the subject
    // of a clause in a question.
    let wh = words.first().is_some_and(|w| WH.contains(&w.strip_suffix("'s").unwrap_or(w)));
    let contracted =
        wh && words.iter().any(|w| matches!(*w, "i'm" | "i've" | "i'd" | "we're" | "we've" | "we'd"));
    let asked = words.windows(2).any(|p| ASKER_AUXILIARIES.contains(&p[0]) && asker(p[1]));
    // "who minded the animals while we were away?", "what was the hotel we stayed in?": the asker as
    // the subject of a past clause in a question.
    let did = wh && words.windows(2).any(|p| asker(p[0]) && is_past(p[1]));
    // "what's the mobile of the man I deal with?", "which plumber do the neighbours say we use?": the
    // asker as the subject of a clause in the present, after what it qualifies; not after a modal
    // ("where can I buy …", asked of anyone), nor before one or a verb of thinking ("the best laptop
    // I could buy", "the capital of Peru, I think"), nor in a question of what happens to anyone
    // when or if they do something ("the name for the feeling I get when I remember …").
    let anyone = words.windows(2).any(|p| matches!(p[0], "when" | "whenever" | "if") && asker(p[1]));
    let does = wh
        && !anyone
        && words.windows(3).any(|p| {
            asker(p[1]) && !MODALS.contains(&p[0]) && !MODALS.contains(&p[2]) && !THINKING.contains(&p[2])
        });
    let you_me = words.contains(&"you") && words.iter().any(|w| matches!(*w, "me" | "us"));
    // "who gives me …", "who fixed the tap for us?": a question about someone in the asker's life.
    let about_me = matches!(words.first(), Some(&("who" | "whom")))
        && words.iter().skip(1).any(|w| matches!(*w, "me" | "us"));
    // "what does a single match set me back?", "what did the tooth doctor charge me?", "how much is
    // coming back to me?", "which team does the man who sells me flour support?": the asker as the
    // object of a question or of a clause in it; not "which alarm clock wakes me gently?" or "the app
    // that tells me the time" (a verb that informs or helps), "the best way for me to learn Spanish"
    // (what anyone could do) or "the US presidential race".
    let object = (wh || first("how"))
        && (1..words.len()).any(|i| {
            matches!(words[i], "me" | "us")
                && written.get(i).is_some_and(|w| *w != "US")
                && !INFORMING.contains(&words[i - 1])
                && words[i - 1] != "let"
                && !(words[i - 1] == "for" && words.get(i + 1) == Some(&"to"))
        });
    possessive
        || object
        || asked
        || you_me
        || about_me
        || contracted
        || did
        || does
        || household(&words, text)
}

/// Superlatives that make a question about a particular thing ask of the world: "where's the
/// *nearest* beach?", "where is the *oldest* tree in England?".
const SUPERLATIVES: &[&str] = &[
    "best", "biggest", "cheapest", "closest", "deepest", "fastest", "highest", "largest", "longest", "most",
    "nearest", "oldest", "smallest", "tallest",
];

/// A thing of the asker's household, named only by what it is: "where's the water shut-off valve?",
/// "where are the spare keys for the shed?". Asked of the world, such a question names the place
/// ("where is the Louvre?") or asks for the best of something ("where's the nearest beach?").
/// (Its counterpart about people, "who treats the dog?", is not read so: "who cleans the streets at
/// night?" and "who speaks first at a wedding?" ask of the world in the same words.)
fn household(words: &[&str], text: &str) -> bool {
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let where_the = match (at(0), at(1)) {
        ("where's", _) => at(1) == "the",
        ("where", "is" | "are") => at(2) == "the",
        _ => false,
    };
    where_the && !words.iter().any(|w| SUPERLATIVES.contains(w)) && !super::world::names_anything(text)
}

/// Verbs in the past tense an asker tells of themselves with: regular ones ("stayed", "booked") and
/// the common irregular ones.
fn is_past(word: &str) -> bool {
    const IRREGULAR: &[&str] = &[
        "was",
        "were",
        "had",
        "did",
        "got",
        "went",
        "saw",
        "met",
        "made",
        "bought",
        "took",
        "left",
        "came",
        "ate",
        "drank",
        "paid",
        "sent",
        "told",
        "said",
        "gave",
        "wore",
        "ran",
        "kept",
        "sold",
        "spent",
        "found",
        "chose",
        "flew",
        "drove",
        "rode",
        "swam",
        "sang",
        "wrote",
        "read",
        "heard",
        "felt",
        "lost",
        "won",
        "began",
        "broke",
        "built",
        "caught",
        "fell",
        "forgot",
        "grew",
        "hung",
        "knew",
        "lent",
        "put",
        "set",
        "sat",
        "slept",
        "spoke",
        "stood",
        "taught",
        "thought",
        "threw",
        "understood",
        "woke",
    ];
    (word.len() > 4 && word.ends_with("ed") && !word.ends_with("eed")) || IRREGULAR.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::about_the_asker;

    #[test]
    fn questions_about_the_asker() {
        for q in [
            "What does my sibling do for a living?",
            "Which antibiotic am I allergic to?",
            "What flowers am I putting in to attract insects?",
            "What nickname should you use for me?",
            "Where did we go for our anniversary?",
            "What was suggested to stop me grinding my teeth while asleep?",
            "Did I ever pay the plumber?",
            "How long did I talk to her mum on the phone?",
            "How many hours have we spent on the shed?",
            "Who gives me Polish lessons?",
            "Who fixed the leaking tap for us?",
            "Who conducts the choir I'm in?",
            "Which of the gardens we’ve visited had a maze?",
            "Which of these bikes is ours?",
            "Who minded the animals while we were away?",
            "What was the name of the hotel we stayed in?",
            "Where's the water shut-off valve?",
            "What's the mobile of the man I deal with at the stately pile?",
            "Which plumber do the neighbours say we use?",
            "Where are the spare keys for the shed?",
            "Where’s the stopcock?",
            "What’s the hotel we stayed in called?",
            "Which football team is the man who sells me flour a fan of?",
            "What does the lady who sells us eggs charge?",
            "What does a single match set me back?",
            "What did the tooth doctor charge me?",
            "How much money is coming back to me from the IRS this year?",
            "What would putting panels on the roof set us back?",
        ] {
            assert!(about_the_asker(q), "{q}");
        }
    }

    #[test]
    fn requests_how_tos_and_general_questions_are_not() {
        for q in [
            "How do I reset my router to factory settings?",
            "What's the app that tells me the time in other cities?",
            "Which alarm clock wakes me gently?",
            "How long should I boil an egg for a runny yolk?",
            "Tell me a joke.",
            "Give me a SQL query that finds duplicate rows in a table.",
            "Can you check my essay for typos?",
            "Should I learn Rust or Go?",
            "What is the capital of Mongolia?",
            "hi, how are you today?",
            "Write me a short poem about the ocean.",
            "Draft a tweet announcing our new product launch.",
            "Translate my out-of-office message into French.",
            "What is the best way for me to learn Spanish?",
            "How old is the Wieliczka salt mine?",
            "How do I know if I'm dehydrated?",
            "Where is the Louvre?",
            "Where's the nearest beach?",
            "Where is the oldest tree in England?",
            "Where can I buy a cheap television?",
            "What's the best laptop I could buy for coding?",
            "What is the capital of Peru, I wonder?",
            "What's the name for the feeling I get when I remember something that never happened?",
            "Who cleans the streets at night?",
            "Who speaks first at a wedding?",
            "What's the latest news from the US presidential race?",
            "How do I let us both into the gym?",
            "",
        ] {
            assert!(!about_the_asker(q), "{q}");
        }
    }
}
