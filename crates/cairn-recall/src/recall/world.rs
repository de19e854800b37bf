//! Prompts that ask of the world, not of memory: questions about how things are ("how does a heat
//! pump's efficiency change in the cold?", "why does sourdough go stale slowly?", "what's the
//! relationship between Kafka consumer groups and partitions?", "when was the town hall built?";
//! not "how does Melanie feel about surfing?", whose subject is a name memory may know)
//! and requests for general help ("draft a polite email declining a meeting", "recommend a podcast
//! about history"). Asked of a person who runs a heat pump, bakes sourdough or writes emails, such
//! a prompt is near their notes in meaning, but it asks how things are or for something new, not
//! what the notes hold: its meaning must not make it relevant, only its words
//! ([`RecallSettings::world_needs_words`]). A prompt that names what memory holds ("how does Tally
//! convert the Monzo exports?", "show me everything tagged travel") still gets its block, through
//! its coverage and tags.
//!
//! Some forms ask of the world whatever their subject: general how-to with an anyone "you" ("how do you
//! stop a puppy biting?"), first-person advice on a general task with nothing of the asker's own ("how
//! long should I roast a leg of lamb?"), a word asked for, who first did something, a figure on
//! average, the price or size of any one thing, the best time or way to do something.
//!
//! Only English prompts in these forms are read as such, and only when no word points at the asker
//! (`I`, `my`, `we`, `our`, …; in a question also `you` and `me`): "why does my nephew keep a
//! lizard?", "how do we heat the house?" and "draft an email to our landlord" are about the asker's
//! own life.
//!
//! [`RecallSettings::world_needs_words`]: super::RecallSettings::world_needs_words

use super::personal::words;

/// How a prompt asks of the world, as relevance reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum World {
    /// It asks of memory.
    No,
    /// It asks of the world in a form whose subject memory may know ("how does a heat pump work?",
    /// read so when memory lacks some of its words): its words count only from a chunk holding most
    /// of them, its meaning not at all.
    Words,
    /// It asks of the world in a form that does so whatever memory knows of its words ("what is a
    /// Roth IRA?", "how many miles is a marathon?", [`in_a_general_form`]): neither its words nor its
    /// meaning make a note relevant, only a tag it names as one.
    Form,
}

/// The share of a query's idf weight on words memory lacks from which a prompt in a general form is
/// read as asking of the world.
const WORLD_UNKNOWN: f32 = 0.2;

impl World {
    /// How `text`, not about the asker, asks of the world, `unknown` the share of its idf weight on
    /// words memory lacks: in a form that does so whatever memory knows ([`in_a_general_form`]),
    /// else in a general form ([`about_the_world`]) only when memory lacks some of its words (a
    /// question every word of which memory uses, "how does Melanie feel about surfing?", may well
    /// ask what memory holds about someone).
    pub(super) fn of(text: &str, unknown: f32) -> World {
        if in_a_general_form(text) {
            World::Form
        } else if unknown >= WORLD_UNKNOWN && about_the_world(text) {
            World::Words
        } else {
            World::No
        }
    }
}

/// Words that point at the asker: a prompt holding one is about their own life.
const ASKER: &[&str] = &[
    "i",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "mine",
    "my",
    "myself",
    "our",
    "ours",
    "ourselves",
    "us",
    "we",
    "we'd",
    "we'll",
    "we're",
    "we've",
];

/// Words that address the assistant or name the asker as its object: in a question ("what should you
/// call me?") they make it about the asker; in a request ("recommend me a podcast") they do not.
const ADDRESS: &[&str] = &["me", "you", "you'd", "you'll", "you're", "you've", "your", "yours"];

/// Verbs that open a request for something new, or for general knowledge ("draft …", "explain …").
/// Not "tell", "show", "summarise" or "remind": "tell me about the trip", "remind me what the vet
/// said" ask for what memory holds.
const REQUESTS: &[&str] = &[
    "calculate",
    "compose",
    "convert",
    "define",
    "draft",
    "explain",
    "give",
    "paraphrase",
    "proofread",
    "recommend",
    "rephrase",
    "rewrite",
    "suggest",
    "translate",
    "write",
];

/// Words for an account of what happened: a request for one ("give me a rundown of last week") asks
/// for what memory holds.
const RECAPS: &[&str] = &["overview", "recap", "roundup", "round-up", "rundown", "summary"];

/// Whether `verb` (lower case) asks for something new or for general knowledge ([`REQUESTS`]).
pub(super) fn asks_for_something(verb: &str) -> bool {
    REQUESTS.contains(&verb)
}

/// Verbs of a thing's origin: "when was the bridge *built*?" asks for history, not for a note.
const ORIGINS: &[&str] = &[
    "built",
    "completed",
    "composed",
    "constructed",
    "designed",
    "discovered",
    "erected",
    "established",
    "founded",
    "invented",
    "opened",
    "painted",
    "published",
    "written",
];

/// Words after "the current" that ask how something of the asker's stands.
const STANDING: &[&str] = &["plan", "plans", "position", "progress", "situation", "state", "status"];

/// Whether `text` asks of the world (how things are, or for something new), in a general form, with
/// no word about the asker (see the module docs).
pub(crate) fn about_the_world(text: &str) -> bool {
    let lower = text.to_lowercase().replace('’', "'");
    let words = words(&lower);
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    if words.iter().any(|w| ASKER.contains(w)) {
        return general_advice(&words, text);
    }
    // "draft a polite email …", "can you recommend a podcast …", "please translate …"
    let verb = match (at(0), at(1)) {
        ("can" | "could" | "would" | "will", "you") => at(2),
        ("please", _) => at(1),
        _ => at(0),
    };
    // "give me a rundown of the second half of November" asks for what memory holds.
    if REQUESTS.contains(&verb) && !words.iter().any(|w| RECAPS.contains(w)) {
        return true;
    }
    if now(&words, text) || any_of_a_kind(&words, text) {
        return true;
    }
    // "how do you stop a puppy biting?", "how can you tell real oak from veneer?": "you" is anyone.
    let modal =
        at(0) == "how" && matches!(at(1), "do" | "can" | "could" | "would" | "should") && at(2) == "you";
    if (modal || how_should(&words) == Some("you"))
        && !words.iter().any(|w| matches!(*w, "me" | "your" | "yours"))
    {
        return true;
    }
    if words.iter().any(|w| ADDRESS.contains(w)) {
        return false;
    }
    if general_form(&words, text) || of_a_place(&words, text) {
        return true;
    }
    // The subject as written: a name ("how does Melanie feel about surfing?", "why is Joanna baking
    // without dairy?") makes a question about someone or something memory may know.
    let named = || super::personal::words(text).get(2).is_some_and(|w| w.starts_with(char::is_uppercase));
    match (at(0), at(1)) {
        // "how does a heat pump work?", "how do owls turn their heads?", "how can bees see ultraviolet?"
        ("how", "does" | "do" | "can") => !named(),
        // "why does bread go stale?", "why is the sky blue?"; not "why did …", which asks what happened.
        ("why", "does" | "do" | "is" | "are") => !named(),
        // "what's the difference between …", "what is the relationship between …"
        ("what's", "the") | ("what", "is") => {
            let rest = if at(0) == "what" { 2 } else { 1 };
            at(rest) == "the"
                && matches!(at(rest + 1), "difference" | "relationship")
                && at(rest + 2) == "between"
        }
        // "when was Leeds Town Hall built?"
        ("when", "was" | "were") => words.iter().skip(2).any(|w| ORIGINS.contains(w)),
        _ => false,
    }
}

/// Whether `text` asks of the world in one of the forms that do whatever memory knows of its words
/// ([`general_form`], [`of_a_place`]), with no word about the asker: "what is the annual ISA
/// allowance in the UK?" asked of a person whose notes hold an ISA decision.
pub(crate) fn in_a_general_form(text: &str) -> bool {
    let lower = text.to_lowercase().replace('’', "'");
    let words = words(&lower);
    !words.iter().any(|w| ASKER.contains(w) || ADDRESS.contains(w))
        && (general_form(&words, text) || of_a_place(&words, text))
}

/// Advice on a general task asked in the first person, with nothing of the asker's own and no name
/// in it: "how long should I roast a 2 kg leg of lamb?", "how often should we water a cactus?", "what
/// should I pack for a week in Iceland?" (a place it happens in aside); not "how long should I leave
/// my bike?", "how often should I feed Barty?" or "what should I bring to Dev's party?".
fn general_advice(words: &[&str], text: &str) -> bool {
    let own = words.iter().any(|w| matches!(*w, "my" | "our" | "mine" | "ours" | "myself" | "ourselves"));
    if own {
        return false;
    }
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    // "what should I wear to a job interview?", "what should we take on a long hike?", "how should I
    // taper before a half marathon?": for any one occasion ("a", "an"), not a particular one ("the
    // party", "Dev's party").
    let for_any = matches!(at(0), "what" | "how")
        && at(1) == "should"
        && matches!(at(2), "i" | "we")
        && words.windows(2).skip(3).any(|p| {
            matches!(p[0], "for" | "to" | "on" | "at" | "before" | "after" | "during")
                && matches!(p[1], "a" | "an")
        });
    (matches!(how_should(words), Some("i" | "we")) && !names_anything(text))
        || (for_any && !names_anything(before_place(text)))
}

/// `text` before its first " in ": a place named after it ("… a first-time buyer pay in England?",
/// "… for a week in Iceland?") is where a general question is asked of, not a name memory may know.
fn before_place(text: &str) -> &str {
    text.split(" in ").next().unwrap_or(text)
}

/// How things stand in the world now, asked in the present: "who is the current Prime Minister of
/// the UK?", "what is the current world record for the half marathon?", "what is the exchange rate
/// right now?", "what's the latest news on the election?"; not "what's the current status of
/// Halyard?" ([`STANDING`]).
fn now(words: &[&str], text: &str) -> bool {
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let head = match (at(0), at(1)) {
        ("who" | "what", "is" | "are") => 2,
        ("who's" | "what's", _) => 1,
        _ => return false,
    };
    let current = at(head) == "the"
        && match at(head + 1) {
            "current" => !STANDING.contains(&at(head + 2)),
            "latest" => at(head + 2) == "news",
            _ => false,
        };
    // "what is the base rate right now?"; not "what is John currently doing?", which asks of someone
    // memory may know.
    let named = super::personal::words(text).get(head).is_some_and(|w| w.starts_with(char::is_uppercase));
    current || !named && (words.windows(2).any(|p| p == ["right", "now"]) || words.contains(&"currently"))
}

/// A question about any one of a kind of things, or about things of that kind, asked yes or no:
/// "can dogs eat grapes?", "do cats see in colour?", "are tomatoes a fruit?"; not "do the kids have
/// school on Monday?" or "can Pickle have chicken bones?".
fn any_of_a_kind(words: &[&str], text: &str) -> bool {
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    matches!(at(0), "can" | "do" | "are")
        && at(1).len() > 3
        && at(1).ends_with('s')
        && !at(1).ends_with("ss")
        && !PARTICULAR.contains(&at(1))
        && !ADDRESS.contains(&at(1))
        && !names_anything(text)
}

/// Who a "how long / much / often / many should …" question is about: the word after "should" ("I",
/// "you", "a" in "how often should a cat see a vet?").
fn how_should<'w>(words: &[&'w str]) -> Option<&'w str> {
    let measure = matches!(words.get(1).copied(), Some("long" | "much" | "often" | "many"));
    (words.first() == Some(&"how") && measure && words.get(2) == Some(&"should"))
        .then(|| words.get(3).copied())?
}

/// Whether a word after the first is capitalised (a name), "I" aside.
pub(super) fn names_anything(text: &str) -> bool {
    super::personal::words(text).iter().skip(1).any(|w| {
        w.starts_with(char::is_uppercase)
            && !matches!(w.to_lowercase().as_str(), "i" | "i'm" | "i've" | "i'd" | "i'll")
    })
}

/// Past auxiliaries: "how many people were in a taxi?" asks what happened.
const PAST: &[&str] = &["did", "had", "was", "were"];

/// Words that ask whether a kind of thing is good or bad for someone: "is honey *safe* for babies?".
const SAFE: &[&str] =
    &["bad", "dangerous", "good", "harmful", "healthy", "okay", "ok", "poisonous", "safe", "toxic"];

/// Verbs of a kind of thing's beginning: "how did change ringing *start*?".
const BEGAN: &[&str] = &["arise", "begin", "develop", "emerge", "evolve", "originate", "start"];

/// Months and weekdays: "in March" names a time, not a place.
const TIMES: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// What something is in a place, now: "what's the VAT registration threshold in Ireland?", "what is
/// the minimum wage in the UK?". The place, one to three capitalised words, ends the question, and
/// nothing between names one particular thing ("what's the rent on *the flat* in Leeds?" asks of the
/// asker's flat); not a month ("what's the plan in March?") nor the past ("what was the hotel in
/// Porto?").
fn of_a_place(words: &[&str], text: &str) -> bool {
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let head = match (at(0), at(1), at(2)) {
        ("what", "is" | "are", "the") => 3,
        ("what's", "the", _) => 2,
        _ => return false,
    };
    let Some(i) = words.iter().rposition(|w| *w == "in") else { return false };
    if i <= head || words[head..i].contains(&"the") {
        return false;
    }
    let written = super::personal::words(text);
    let place = written.get(i + 1..).unwrap_or_default();
    let place = place.strip_prefix(&["the"]).unwrap_or(place);
    (1..=3).contains(&place.len())
        && place
            .iter()
            .all(|w| w.starts_with(char::is_uppercase) && !TIMES.contains(&w.to_lowercase().as_str()))
}

/// Words that open a noun phrase about particular things, or name someone: "why do *the* bees …",
/// "why do *mum* and dad …" ask of things or people memory may know; "why do bees …" of any.
const PARTICULAR: &[&str] = &[
    "a", "all", "an", "any", "both", "dad", "dads", "each", "grandma", "grandad", "he", "her", "his", "it",
    "its", "kids'", "mom", "mum", "nan", "our", "people's", "she", "some", "that", "the", "their", "these",
    "they", "this", "those",
];

/// Words that make "what is a …?" ask for one of something, not for a definition: "what's a good
/// time to call?", "what is a hobby of Caroline's?".
const NOT_A_DEFINITION: &[&str] = &[
    "about", "at", "better", "by", "cheap", "decent", "easy", "for", "from", "good", "great", "in", "nice",
    "of", "on", "quick", "that", "to", "which", "who", "with",
];

/// General forms whatever the subject: a word asked for ("what is the Polish word for …?"), who
/// first did something ("who first worked out …", "who invented …"), how a kind of thing began
/// ("how did change ringing start in England?"), a figure on average, a
/// quantity or price of any one thing ("how many changes are in a full extent?", "how much does a
/// lurcher weigh?"), the best way or time to do something ("what's the best way to learn to play
/// guitar?"), a definition ("what is a Roth IRA?"), and how or why any one thing, or a kind of
/// things, is as it is ("how does an offset mortgage work?", "why do bees make honey?": a bare
/// plural is any bees, not the asker's).
fn general_form(words: &[&str], text: &str) -> bool {
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let definition = {
        let article = match (at(0), at(1)) {
            ("what", "is") => Some(2),
            ("what's", _) => Some(1),
            _ => None,
        };
        article.is_some_and(|i| {
            let rest = words.get(i + 1..).unwrap_or_default();
            matches!(at(i), "a" | "an")
                && (1..=4).contains(&rest.len())
                && !rest.iter().any(|w| NOT_A_DEFINITION.contains(w))
        })
    };
    let any_one = matches!(at(0), "how" | "why")
        && matches!(at(1), "does" | "do" | "is" | "can")
        && matches!(at(2), "a" | "an");
    let kind = at(0) == "why"
        && matches!(at(1), "do" | "are")
        && !at(2).is_empty()
        && !PARTICULAR.contains(&at(2))
        && !names_anything(text);
    let word_for =
        |i: usize| at(i) == "the" && matches!(at(i + 2), "word" | "term" | "phrase") && at(i + 3) == "for";
    let asked_word = (at(0) == "what" && at(1) == "is" && word_for(2)) || (at(0) == "what's" && word_for(1));
    // "what does a gobo do?": what any one thing does, not what someone memory knows does.
    let what_any = at(0) == "what" && matches!(at(1), "does" | "do") && matches!(at(2), "a" | "an");
    let origin = at(0) == "who" && matches!(at(1), "first" | "invented" | "discovered" | "founded");
    let average = words.windows(2).any(|p| p == ["on", "average"]);
    // "how often should a cat see a vet?"
    let how_anyone = matches!(how_should(words), Some("a" | "an" | "one"));
    // "how much does a lurcher weigh?", "how much stamp duty does a first-time buyer pay?": the verb
    // within a few words, then any one thing.
    let how_much = at(0) == "how"
        && at(1) == "much"
        && !names_anything(before_place(text))
        && (2..=5).any(|i| {
            matches!(at(i), "does" | "do" | "is" | "are" | "should" | "can")
                && matches!(at(i + 1), "a" | "an")
        });
    // "how many changes are in a full extent?", "how many miles is a marathon?", "how many players
    // are on a rugby team?", "how many teaspoons in a tablespoon?"; in the present only.
    let how_many = at(0) == "how"
        && at(1) == "many"
        && !words.iter().any(|w| PAST.contains(w))
        && !names_anything(before_place(text))
        && words.windows(2).skip(2).any(|p| {
            matches!(p[0], "is" | "are" | "does" | "do" | "has" | "have" | "in" | "on")
                && matches!(p[1], "a" | "an")
        });
    let best_at = |i: usize| {
        at(i) == "the"
            && at(i + 1) == "best"
            && matches!(at(i + 2), "time" | "way" | "place" | "month" | "season" | "day" | "age")
            && words[i..].contains(&"to")
    };
    // "how long does a deck oven last?", "how long do bees live?", "how long does basement
    // waterproofing take?": how long any one thing, or a kind of things, lasts or takes, in the
    // present; not "how long does the drive take?" or "how long does Pickle sleep?".
    let how_long = at(0) == "how"
        && at(1) == "long"
        && matches!(at(2), "does" | "do")
        && !at(3).is_empty()
        && (matches!(at(3), "a" | "an") || !PARTICULAR.contains(&at(3)))
        && !names_anything(before_place(text));
    // "is honey safe for babies?", "are grapes bad for dogs?": whether a kind of thing is good or bad
    // for any; not "is the boiler safe to use?" or "is Pickle okay with cats?".
    let safe = matches!(at(0), "is" | "are")
        && !at(1).is_empty()
        && !PARTICULAR.contains(&at(1))
        && words.iter().skip(2).take(3).any(|w| SAFE.contains(w))
        && !names_anything(text);
    let best = (matches!(at(0), "when" | "what" | "where" | "which") && at(1) == "is" && best_at(2))
        || (matches!(at(0), "when's" | "what's" | "where's") && best_at(1));
    // "how did change ringing start in England?", "how did jazz begin?": how a kind of thing came to
    // be, the verb last (a place it happened in aside); not "how did the fire start?", "how did it
    // begin?", "how did Sam's talk start?" or "how did physio start this week?".
    let began = at(0) == "how" && at(1) == "did" && !at(2).is_empty() && !PARTICULAR.contains(&at(2)) && {
        let head = before_place(text);
        let written = super::personal::words(head);
        let last = written.last().map(|w| w.to_lowercase()).unwrap_or_default();
        (4..=7).contains(&written.len()) && BEGAN.contains(&last.as_str()) && !names_anything(head)
    };
    asked_word
        || began
        || how_long
        || safe
        || what_any
        || origin
        || average
        || how_anyone
        || how_much
        || how_many
        || best
        || definition
        || any_one
        || kind
}

#[cfg(test)]
mod tests {
    use super::{about_the_world, in_a_general_form};

    #[test]
    fn general_questions_about_how_things_are() {
        for q in [
            "How does a heat pump's efficiency change as the outside temperature drops?",
            "How do owls turn their heads so far round?",
            "Why does sourdough go stale more slowly than ordinary yeasted bread?",
            "Why is the sky blue?",
            "What's the relationship between Kafka consumer groups and partitions?",
            "What is the difference between a virus and a bacterium?",
            "What’s the difference between TCP and UDP?",
            "When was the town hall built?",
            "When was Duke University founded, and who is it named after?",
            "Draft a polite email turning down a sales demo from a software vendor.",
            "Can you recommend a good podcast about history?",
            "Please translate 'good evening' into Italian.",
            "Give me a regex that validates an IPv4 address.",
            "How long should we boil an egg?",
            "How do you say good night in Welsh?",
            "How can you tell a rook from a crow?",
            "What is the Welsh word for 'cheers'?",
            "What's the Italian term for a sourdough starter?",
            "Who first climbed Everest?",
            "Who invented the bicycle?",
            "What does a train driver earn on average?",
            "How much does an electric bike cost?",
            "How many players are in a rugby team?",
            "What's the best way to store apples over winter?",
            "When is the best time to prune roses?",
            "How often should a dog have its claws clipped?",
            "How long should you rest a steak?",
            "What does a torque wrench do?",
            "What's the VAT registration threshold in Ireland?",
            "What is the minimum wage in the UK?",
            "What are the school holidays in Northern Ireland?",
            "What is a Roth IRA?",
            "What's an offset mortgage?",
            "How does a mortgage offset account work?",
            "Why is a heat pump less efficient in the cold?",
            "Why do bees make honey?",
            "Why do racing greyhounds retire so young?",
            "Why are cats afraid of cucumbers?",
            "Can you proofread this sentence: their going to the park tomorrow",
            "Convert 30 miles to kilometres.",
            "How many miles is a marathon?",
            "How many teaspoons in a tablespoon?",
            "How many players are on a basketball team?",
            "How much stamp duty does a first-time buyer pay in England?",
            "How much water should an adult drink a day?",
            "What should I pack for a week in Iceland in winter?",
            "What should we take on a long hike?",
            "Who is the current Prime Minister of the UK?",
            "What is the current world record for the women's half marathon?",
            "What's the latest news on the election?",
            "What is the Bank of England base rate right now?",
            "When was the Clifton Suspension Bridge completed?",
            "When was Pride and Prejudice written?",
            "Can dogs eat grapes?",
            "Do cats see in colour?",
            "Are whippets good with cats?",
            "How did change ringing start in England?",
            "How did jazz begin?",
            "How did bell ringing originate?",
            "How long does a commercial deck oven last?",
            "How long does basement waterproofing last?",
            "How long do honey bees live?",
            "Is honey safe for babies?",
            "Are grapes bad for dogs?",
            "How should I taper before a half marathon?",
            "How should we prepare for a job interview?",
        ] {
            assert!(about_the_world(q), "{q}");
        }
    }

    #[test]
    fn questions_about_the_asker_or_what_happened_are_not() {
        for q in [
            "How do I reset my router?",
            "How does my boss take his coffee?",
            "How does Melanie prioritize self-care?",
            "Why is Joanna experimenting with dairy-free desserts?",
            "Why does my nephew keep a lizard rather than a kitten?",
            "Why did the boiler stop last week?",
            "How did Halyard go in the second half of February?",
            "How is the woodworking coming along?",
            "What's the current status of Halyard?",
            "What is the capital of Mongolia?",
            "When was the boiler last serviced?",
            "When were we last at the coast?",
            "What's the difference between the two quotes you gave me?",
            "Draft an email to our landlord about the boiler.",
            "Can you write up what I decided about the car?",
            "Tell me about the trip to Portugal.",
            "Remind me what the vet said.",
            "Summarise my finances.",
            "How long should I leave my dough to prove?",
            "How often should we feed Barty?",
            "How do you know my sister?",
            "How much does the allotment cost a year?",
            "How many pupils are in the eco club?",
            "Who first told me about the choir?",
            "What does the plumber charge?",
            "What does Harriet do for work?",
            "What is the name of the word game we played?",
            "What was the hotel in Porto?",
            "What's the plan in March?",
            "What's the wifi password in the Lisbon flat?",
            "What's the rent on the flat in Leeds?",
            "What is the booking reference for the Hotel Sint-Jorishof?",
            "How many times has Nate taken his turtles on a walk?",
            "How many people were in a taxi?",
            "How much flour does a loaf take in my recipe?",
            "What should I bring to Dev's party on Saturday?",
            "What should I tell the plumber tomorrow?",
            "What is John currently doing as a volunteer?",
            "What's the latest with the boiler?",
            "Give me a rundown of the second half of November.",
            "How should I pay for the new boiler?",
            "How should we reply to Dev's email about a refund?",
            "Can Pickle have chicken bones?",
            "Do the kids have school on Monday?",
            "",
        ] {
            assert!(!about_the_world(q), "{q}");
        }
    }

    #[test]
    fn particular_things_and_people_are_not_in_a_general_form() {
        for q in [
            "What's a good time to call Mum?",
            "What is a hobby of Caroline's?",
            "Why do the bees keep swarming?",
            "Why do mum and dad argue about the garden?",
            "Why do Mel and Joanna run together?",
            "Why are flowers important to Melanie?",
            "Why are they moving house?",
            "Why did a fox get into the hen house?",
            "How does a typical Tuesday look for me?",
            "How did the fire start?",
            "How did it begin?",
            "How did Sam's talk start?",
            "How did physio start this week?",
            "How did things begin with Dev?",
            "How did Halyard start?",
            "How did Caroline's interest in painting start?",
            "How long does the drive to Leeds take?",
            "How long does Pickle sleep in the afternoon?",
            "How long did the repair take?",
            "Is the boiler safe to use?",
            "Is Pickle okay with cats?",
            "Are they good for a lift?",
        ] {
            assert!(!in_a_general_form(q), "{q}");
        }
    }

    /// The forms that need no unknown word ([`in_a_general_form`]) must not take a question about
    /// memory: none of the labelled workspaces' on-topic questions has one, while some of their
    /// off-topic ones do.
    #[test]
    fn no_labelled_question_about_memory_is_in_a_general_form() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let (mut on, mut off) = (0, 0);
        for set in ["relevance", "relevance-2", "relevance-3", "relevance-4", "relevance-5", "relevance-6"] {
            let path = data.join(set).join("queries.jsonl");
            let text = std::fs::read_to_string(&path).expect("labelled set readable");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let q: serde_json::Value = serde_json::from_str(line).expect("JSON line");
                let question = q["question"].as_str().expect("question");
                let general = in_a_general_form(question);
                if q["kind"] == "offtopic" {
                    off += usize::from(general);
                } else {
                    on += 1;
                    assert!(!general, "{set}: {question}");
                }
            }
        }
        assert!(on > 450, "{on} on-topic questions read");
        assert!(off >= 10, "only {off} off-topic questions in a general form");
    }
}
