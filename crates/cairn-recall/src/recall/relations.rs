//! Who "my X" is. A question names the people in the asker's life by what they are to the asker
//! ("what does my other half's mum do on Sundays?", "which animal does our kid adore?", "why does my
//! nephew keep a gecko?"); memory names them by name ("Tomasz's mother", "Zofia", "Kojo"). Neither
//! words nor meaning lead from one to the other, so before the lanes run, each relation the query
//! names is resolved to the people memory says hold it, and their names are written into the query
//! beside it: "my nephew (Abena, Kojo)". Every lane, the floor and `why` then see the names as the
//! query's own words; [`RecallResult::query_people`] says what was resolved.
//!
//! Memory says who holds a relation in a few plain forms, found in the best lexical matches of the
//! relation's words, in the query's scope (a name from a note the asker may not read is never added):
//!
//! - "Tomasz Nowak, my partner", "Zofia, our daughter";
//! - "my husband Marcus", "our daughter Zofia";
//! - a line "Mum: Brenda" or "Brother Owen" outside a person's own note;
//! - a person's own note (titled with two or more names) saying what they are at the start of a line
//!   or sentence ("My younger sister, 34.", "; my line manager since 2023"), or titled "Gillian Hale
//!   (Mum)".
//!
//! A relation of a relation ("my other half's mum", "my nephew": a sibling's son) is resolved step by
//! step: "Tomasz's mother" in Halina's note, "Abena's son Kojo", or "Son Kojo" in Abena's own note.
//! A relation held by more than [`MAX_PEOPLE`] people ("my cousin" in a large family) names no one.
//! English only, like the other forms.
//!
//! [`RecallResult::query_people`]: super::RecallResult::query_people

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use tantivy::Searcher;

use super::lanes::lexical::Scoring;
use super::{RecallQuery, Recaller};
use crate::index::{StoredHit, item_title_of};

/// A relation: how questions name it and how notes write it.
#[derive(Debug)]
struct Relation {
    /// Its name, for the compiled forms.
    name: &'static str,
    /// What notes write ("husband", "wife", ...), lower case.
    written: &'static [&'static str],
    /// An animal of the household ("the dog", "our cat"), told of as "- Moss: lurcher, about five".
    animal: bool,
}

static PARTNER: Relation = Relation {
    name: "partner",
    written: &["partner", "husband", "wife", "spouse", "fiancé", "fiancée", "boyfriend", "girlfriend"],
    animal: false,
};
static MOTHER: Relation =
    Relation { name: "mother", written: &["mother", "mum", "mom", "mam"], animal: false };
static FATHER: Relation = Relation { name: "father", written: &["father", "dad"], animal: false };
static DAUGHTER: Relation = Relation { name: "daughter", written: &["daughter"], animal: false };
static SON: Relation = Relation { name: "son", written: &["son"], animal: false };
static CHILD: Relation =
    Relation { name: "child", written: &["daughter", "son", "child", "kid"], animal: false };
static SISTER: Relation = Relation { name: "sister", written: &["sister"], animal: false };
static BROTHER: Relation = Relation { name: "brother", written: &["brother"], animal: false };
static SIBLING: Relation =
    Relation { name: "sibling", written: &["sister", "brother", "sibling"], animal: false };
static GRANDMOTHER: Relation = Relation {
    name: "grandmother",
    written: &["grandmother", "gran", "granny", "grandma", "nan", "nana"],
    animal: false,
};
static GRANDFATHER: Relation = Relation {
    name: "grandfather",
    written: &["grandfather", "grandad", "granddad", "grandpa"],
    animal: false,
};
static AUNT: Relation = Relation { name: "aunt", written: &["aunt", "auntie", "aunty"], animal: false };
static UNCLE: Relation = Relation { name: "uncle", written: &["uncle"], animal: false };
static COUSIN: Relation = Relation { name: "cousin", written: &["cousin"], animal: false };
static BOSS: Relation = Relation { name: "boss", written: &["boss", "manager", "supervisor"], animal: false };

/// What notes call a dog.
const DOG_WORDS: &[&str] = &[
    "dog",
    "puppy",
    "pup",
    "hound",
    "bitch",
    "lurcher",
    "spaniel",
    "terrier",
    "collie",
    "labrador",
    "retriever",
    "greyhound",
    "whippet",
    "beagle",
    "poodle",
    "dachshund",
    "sheepdog",
    "husky",
    "corgi",
    "pug",
    "bulldog",
    "setter",
    "schnauzer",
    "labradoodle",
    "cockapoo",
    "cavapoo",
    "rottweiler",
    "doberman",
    "vizsla",
    "weimaraner",
    "mongrel",
    "mutt",
];
/// What notes call a cat.
const CAT_WORDS: &[&str] = &["cat", "kitten", "tom", "moggy", "tabby", "siamese", "ragdoll", "bengal"];
/// What notes call a reptile.
const REPTILE_WORDS: &[&str] =
    &["tortoise", "turtle", "terrapin", "lizard", "gecko", "snake", "iguana", "dragon"];
/// What notes call the other animals of a household.
const OTHER_PET_WORDS: &[&str] = &[
    "rabbit", "bunny", "hamster", "gerbil", "ferret", "parrot", "budgie", "canary", "horse", "pony",
    "goldfish", "axolotl",
];

static PET: Relation = Relation { name: "pet", written: &PET_WORDS, animal: true };

/// What notes call any animal of a household.
static PET_WORDS: [&str; DOG_WORDS.len() + CAT_WORDS.len() + REPTILE_WORDS.len() + OTHER_PET_WORDS.len()] = {
    let mut all = [""; DOG_WORDS.len() + CAT_WORDS.len() + REPTILE_WORDS.len() + OTHER_PET_WORDS.len()];
    let lists = [DOG_WORDS, CAT_WORDS, REPTILE_WORDS, OTHER_PET_WORDS];
    let (mut i, mut l) = (0, 0);
    while l < lists.len() {
        let list = lists[l];
        l += 1;
        let mut j = 0;
        while j < list.len() {
            all[i] = list[j];
            i += 1;
            j += 1;
        }
    }
    all
};

/// How questions name the animals of the household as a whole, after "the", "our" or "my" ("who
/// minded the animals?"). One kind of animal ("the dog", "the hound") is not resolved: the word says
/// enough for the model, and a dog's name is in half the notes, so adding it pulls every walk ahead of
/// the one asked about (on the first labelled workspace three such questions fell out of the top 5).
static ANIMALS: &[(&str, &[&Relation])] =
    &[("pet", &[&PET]), ("pets", &[&PET]), ("animal", &[&PET]), ("animals", &[&PET])];

/// How questions name a relation (lower case) and the steps it resolves in, from the asker.
static ASKED: &[(&str, &[&Relation])] = &[
    ("partner", &[&PARTNER]),
    ("husband", &[&PARTNER]),
    ("wife", &[&PARTNER]),
    ("spouse", &[&PARTNER]),
    ("other half", &[&PARTNER]),
    ("better half", &[&PARTNER]),
    ("fiancé", &[&PARTNER]),
    ("fiancée", &[&PARTNER]),
    ("fiance", &[&PARTNER]),
    ("fiancee", &[&PARTNER]),
    ("boyfriend", &[&PARTNER]),
    ("girlfriend", &[&PARTNER]),
    ("mother-in-law", &[&PARTNER, &MOTHER]),
    ("mum-in-law", &[&PARTNER, &MOTHER]),
    ("mom-in-law", &[&PARTNER, &MOTHER]),
    ("father-in-law", &[&PARTNER, &FATHER]),
    ("mother", &[&MOTHER]),
    ("mum", &[&MOTHER]),
    ("mom", &[&MOTHER]),
    ("mam", &[&MOTHER]),
    ("mummy", &[&MOTHER]),
    ("mommy", &[&MOTHER]),
    ("father", &[&FATHER]),
    ("dad", &[&FATHER]),
    ("daddy", &[&FATHER]),
    ("daughter", &[&DAUGHTER]),
    ("little girl", &[&DAUGHTER]),
    ("son", &[&SON]),
    ("little boy", &[&SON]),
    ("kid", &[&CHILD]),
    ("kids", &[&CHILD]),
    ("child", &[&CHILD]),
    ("children", &[&CHILD]),
    ("little one", &[&CHILD]),
    ("little ones", &[&CHILD]),
    ("sister", &[&SISTER]),
    ("brother", &[&BROTHER]),
    ("sibling", &[&SIBLING]),
    ("siblings", &[&SIBLING]),
    ("nephew", &[&SIBLING, &SON]),
    ("niece", &[&SIBLING, &DAUGHTER]),
    ("grandson", &[&CHILD, &SON]),
    ("granddaughter", &[&CHILD, &DAUGHTER]),
    ("grandmother", &[&GRANDMOTHER]),
    ("gran", &[&GRANDMOTHER]),
    ("granny", &[&GRANDMOTHER]),
    ("grandma", &[&GRANDMOTHER]),
    ("nan", &[&GRANDMOTHER]),
    ("nana", &[&GRANDMOTHER]),
    ("grandfather", &[&GRANDFATHER]),
    ("grandad", &[&GRANDFATHER]),
    ("granddad", &[&GRANDFATHER]),
    ("grandpa", &[&GRANDFATHER]),
    ("aunt", &[&AUNT]),
    ("auntie", &[&AUNT]),
    ("aunty", &[&AUNT]),
    ("uncle", &[&UNCLE]),
    ("cousin", &[&COUSIN]),
    ("boss", &[&BOSS]),
    ("line manager", &[&BOSS]),
    ("manager", &[&BOSS]),
    ("supervisor", &[&BOSS]),
];

/// Relations reached more than one way, each way its steps from the asker: a brother-in-law is a
/// sister's husband or a partner's brother. The people of every way that resolves are named.
static EITHER: &[(&str, &[&[&Relation]])] = &[
    ("parents", &[&[&MOTHER], &[&FATHER]]),
    ("folks", &[&[&MOTHER], &[&FATHER]]),
    ("grandparents", &[&[&GRANDMOTHER], &[&GRANDFATHER]]),
    ("in-laws", &[&[&PARTNER, &MOTHER], &[&PARTNER, &FATHER]]),
    ("parents-in-law", &[&[&PARTNER, &MOTHER], &[&PARTNER, &FATHER]]),
    ("brother-in-law", &[&[&SISTER, &PARTNER], &[&PARTNER, &BROTHER]]),
    ("sister-in-law", &[&[&BROTHER, &PARTNER], &[&PARTNER, &SISTER]]),
    ("son-in-law", &[&[&DAUGHTER, &PARTNER]]),
    ("daughter-in-law", &[&[&SON, &PARTNER]]),
];

/// A relation held by more people than this names no one in particular.
pub(super) const MAX_PEOPLE: usize = 3;

/// Chunks searched for the statements of one step: the best lexical matches of its words.
const STATEMENT_POOL: usize = 40;

/// A relation's words searched at once (an animal of the household has dozens: "lurcher", "tom").
const SEARCH_WORDS: usize = 12;

/// Words that may stand between "my" and the relation ("my younger sister", "my late father").
const BETWEEN: &str = r"(?:(?:younger|older|elder|big|baby|eldest|oldest|youngest|late|dear|twin|step|half|little|new|ex|current|former|old|line)[ -])?";

/// A name: a capitalised word ("Zofia", "McAllister", "O'Neil", "Jean-Luc"; not "ISA", "UK" or the
/// "'s" of "Tomasz's").
const NAME: &str = r"\p{Lu}\p{Ll}+(?:\p{Lu}\p{Ll}+)?(?:-\p{Lu}?\p{Ll}+|['’]\p{Lu}\p{Ll}+)*";

/// Capitalised words that are no one's name.
const NOT_NAMES: &[&str] = &[
    "A",
    "An",
    "And",
    "At",
    "But",
    "By",
    "For",
    "From",
    "He",
    "Her",
    "His",
    "In",
    "It",
    "My",
    "Of",
    "On",
    "Our",
    "She",
    "The",
    "Their",
    "They",
    "This",
    "To",
    "We",
    "With",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Christmas",
    "Easter",
];

/// One relation the query names: its words, and the ways to it from the asker, each its steps.
#[derive(Debug)]
struct Mention {
    /// Byte offset in the query just after the phrase (where the names go).
    end: usize,
    /// The phrase as written ("my other half's mum").
    phrase: String,
    ways: Vec<Vec<&'static Relation>>,
}

/// The phrases of [`ASKED`] and [`EITHER`] as one alternation, longest first ("line manager" before
/// "manager", "brother-in-law" before "brother").
fn asked_phrases() -> String {
    let mut phrases: Vec<&str> =
        ASKED.iter().map(|(p, _)| *p).chain(EITHER.iter().map(|(p, _)| *p)).collect();
    phrases.sort_by_key(|p| std::cmp::Reverse(p.len()));
    phrases.iter().map(|p| regex::escape(p)).collect::<Vec<_>>().join("|")
}

/// "my nephew", "our kid", "my younger sister".
static ASKED_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b(?:my|our)\s+{BETWEEN}({})\b", asked_phrases())).expect("valid")
});

/// "the animals", "our pets", "my pet"; not "the pet store" or "the animal shelter" (a singular after
/// "the" is usually the first word of a compound, or someone else's animal).
static ANIMALS_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(?:the|our|my)\s+(pets|animals)|(?:our|my)\s+(pet|animal))\b").expect("valid")
});

/// The "'s mum" of "my other half's mum", right after a relation.
static CHAINED_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"(?i)^['’]s\s+{BETWEEN}({})\b", asked_phrases())).expect("valid"));

/// The ways to the relation `phrase` names, from the asker: one for most, more for [`EITHER`]'s.
fn ways_of(phrase: &str) -> Vec<Vec<&'static Relation>> {
    let lower = phrase.to_lowercase();
    if let Some((_, ways)) = EITHER.iter().find(|(p, _)| *p == lower) {
        return ways.iter().map(|w| w.to_vec()).collect();
    }
    ASKED.iter().chain(ANIMALS).find(|(p, _)| *p == lower).map(|(_, s)| vec![s.to_vec()]).unwrap_or_default()
}

/// The relations `text` names from the asker ("my nephew", "our kid", "my other half's mum", "the
/// animals"), in the order they appear.
fn mentions(text: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    for m in ANIMALS_RE.captures_iter(text) {
        let whole = m.get(0).expect("match");
        let word = m.get(1).or(m.get(2)).map_or("", |w| w.as_str());
        out.push(Mention { end: whole.end(), phrase: whole.as_str().to_owned(), ways: ways_of(word) });
    }
    for m in ASKED_RE.captures_iter(text) {
        let whole = m.get(0).expect("match");
        let mut ways = ways_of(&m[1]);
        let mut end = whole.end();
        // "my other half's mum": every way to the first, then every way on from it.
        while let Some(c) = CHAINED_RE.captures(&text[end..]) {
            let next = ways_of(&c[1]);
            ways = ways
                .iter()
                .flat_map(|first| next.iter().map(move |then| [first.as_slice(), then].concat()))
                .collect();
            end += c.get(0).expect("match").end();
        }
        if !ways.is_empty() {
            out.push(Mention { end, phrase: text[whole.start()..end].to_owned(), ways });
        }
    }
    out.sort_by_key(|m| m.end);
    out
}

/// The statements of one relation's words, compiled once.
struct Forms {
    /// "Tomasz Nowak, my partner": the name in group 1.
    name_then_mine: Regex,
    /// "my husband Marcus": the name in group 1.
    mine_then_name: Regex,
    /// A line "Mum: Brenda" / "Brother Owen": the name in group 1 (outside a person's own note).
    line_then_name: Regex,
    /// What a person's own note says they are, at the start of a line or a sentence and followed by
    /// what qualifies it, not by a verb: "My younger sister, 34.", "; my line manager since 2024", a
    /// line "Younger brother." (not "like my mom always said", which tells of someone else).
    mine: Regex,
    /// A title "Gillian Hale (Mum)" or "Mum (Brenda Fairweather)": a name in group 1 or 2.
    title: Regex,
    /// "Son Kojo" at a sentence's start, "her son Kojo" (in a person's own note): the name in group 1.
    theirs_then_name: Regex,
    /// An animal told of on a line of its own: "- Moss: lurcher, about five", "- Barty (Bartholomew), a
    /// Hermann's tortoise": the name in group 1.
    name_then_kind: Regex,
}

impl Forms {
    fn of(relation: &Relation) -> Forms {
        let w = relation.written.iter().map(|w| regex::escape(w)).collect::<Vec<_>>().join("|");
        let re = |s: String| Regex::new(&s).expect("valid");
        Forms {
            name_then_mine: re(format!(r"({NAME})(?:\s+{NAME}){{0,2}},\s+(?i:my|our)\s+{BETWEEN}(?i:{w})\b")),
            mine_then_name: re(format!(r"\b(?i:my|our)\s+{BETWEEN}(?i:{w})\b[,:]?\s+({NAME})")),
            line_then_name: re(format!(r"(?m)^\s*(?:[-*+]\s+|#+\s+)?(?i:{w})\s*[:–-]?\s+({NAME})")),
            mine: re(format!(
                r"(?m)(?:^\s*(?:[-*+]\s+)?|[.;]\s+)(?:(?i:my|our)\s+)?(?i:{BETWEEN})((?i:{w}))(?:[,.;:)]|\s+(?i:since|for|from|of|at|in|until)\b|\s*$)"
            )),
            title: re(format!(
                r"^\s*(?:({NAME})(?:\s+{NAME})*\s*\(\s*(?i:{w})\s*\)|(?i:{w})\s*\(\s*({NAME}))"
            )),
            theirs_then_name: re(format!(
                r"(?m)(?:^\s*(?:[-*+]\s+)?|[.;]\s+|\b(?i:his|her|their)\s+{BETWEEN})(?i:{w})s?\b[,:]?\s+({NAME})"
            )),
            name_then_kind: re(format!(
                r"(?m)^\s*(?:[-*+]\s+)?({NAME})(?:\s*\([^)\n]*\))?\s*[:,]\s*(?:[\p{{L}}'’-]+\s+){{0,3}}?(?i:{w})\b"
            )),
        }
    }
}

static FORMS: LazyLock<HashMap<&'static str, Forms>> = LazyLock::new(|| {
    let either = EITHER.iter().flat_map(|(_, ways)| ways.iter().flat_map(|w| w.iter()));
    ASKED
        .iter()
        .chain(ANIMALS)
        .flat_map(|(_, steps)| steps.iter())
        .chain(either)
        .map(|r| (r.name, Forms::of(r)))
        .collect()
});

/// What may follow a relation's word when it names the relation's holder ("Son Kojo").
static FOLLOWS_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^[,:]?\s+{NAME}")).expect("valid"));

static NAME_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(NAME).expect("valid"));

/// "Married to Greg", "engaged to Sam" in a person's own note: their partner, in group 1.
static MARRIED_TO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\b(?i:married|engaged)\s+to\s+({NAME})")).expect("valid"));

fn is_name(word: &str) -> bool {
    NAME_RE.find(word).is_some_and(|m| m.start() == 0 && m.end() == word.len()) && !NOT_NAMES.contains(&word)
}

/// Whether `word` names a relation ("Mum" in "Gillian Hale (Mum)").
pub(super) fn is_relation(word: &str) -> bool {
    ASKED.iter().any(|(p, _)| p.eq_ignore_ascii_case(word))
}

/// Whose own note a chunk is: the first name of a title made of two to five names ("Abena Mensah",
/// "Gillian Hale (Mum)", "Mum (Brenda Fairweather)"), else `None` (one word, "Memory" or "Kestrel",
/// may name anything).
pub(super) fn person_of(title: &str) -> Option<String> {
    let plain: String = title.chars().map(|c| if c == '(' || c == ')' { ' ' } else { c }).collect();
    let words: Vec<&str> = plain.split_whitespace().collect();
    if !(2..=5).contains(&words.len()) {
        return None;
    }
    if !words.iter().all(|w| is_name(w) || is_relation(w)) {
        return None;
    }
    words.iter().find(|w| is_name(w) && !is_relation(w)).map(|w| (*w).to_owned())
}

/// Adds `name` to `people` once, if it is a name and not the one it is relative to.
fn add(people: &mut Vec<String>, name: &str, not: Option<&str>) {
    if is_name(name) && !is_relation(name) && Some(name) != not && !people.iter().any(|p| p == name) {
        people.push(name.to_owned());
    }
}

/// The people memory says hold `relation` to the asker, from one chunk (its title and text).
/// `title` is the chunk's ("Abena Mensah > Family": a section of her note is hers too).
fn from_the_asker(relation: &Relation, forms: &Forms, title: &str, text: &str, people: &mut Vec<String>) {
    let title = item_title_of(title);
    let owner = person_of(title);
    for c in forms.name_then_mine.captures_iter(text) {
        add(people, &c[1], None);
    }
    for c in forms.mine_then_name.captures_iter(text) {
        add(people, &c[1], None);
    }
    match &owner {
        None if relation.animal => {
            for c in forms.name_then_kind.captures_iter(text) {
                add(people, &c[1], None);
            }
        }
        None => {
            for c in forms.line_then_name.captures_iter(text) {
                add(people, &c[1], None);
            }
        }
        // A person's note tells of the person, not of the asker's animals.
        Some(_) if relation.animal => {}
        Some(person) => {
            if let Some(c) = forms.title.captures(title)
                && c.get(1).or(c.get(2)).is_some()
            {
                add(people, person, None);
            }
            // "my line manager since 2023" in Elaine's note; not "Son Kojo" (her son's name follows).
            let said = forms.mine.captures_iter(text).filter_map(|c| c.get(1));
            if said.into_iter().any(|w| !FOLLOWS_NAME.is_match(&text[w.end()..])) {
                add(people, person, None);
            }
        }
    }
}

/// The statements of one relation to one person, compiled once per step.
struct OfPerson<'a> {
    forms: &'a Forms,
    of: &'a str,
    /// "Abena's son Kojo": the name in group 1.
    named: Regex,
    /// "Tomasz's mother" (in Halina's note).
    theirs: Regex,
    /// Whether the relation is a partner's.
    partner: bool,
}

impl<'a> OfPerson<'a> {
    fn new(forms: &'a Forms, relation: &Relation, of: &'a str) -> OfPerson<'a> {
        let w = relation.written.iter().map(|w| regex::escape(w)).collect::<Vec<_>>().join("|");
        let of_re = regex::escape(of);
        OfPerson {
            forms,
            of,
            named: Regex::new(&format!(r"\b{of_re}['’]s\s+{BETWEEN}(?i:{w})\b[,:]?\s+({NAME})"))
                .expect("valid"),
            theirs: Regex::new(&format!(r"\b{of_re}['’]s\s+{BETWEEN}(?i:{w})\b")).expect("valid"),
            partner: relation.name == PARTNER.name,
        }
    }

    /// The people memory says hold the relation to `of`, from one chunk (`title` is the chunk's).
    fn find(&self, title: &str, text: &str, people: &mut Vec<String>) {
        let of = Some(self.of);
        for c in self.named.captures_iter(text) {
            add(people, &c[1], of);
        }
        let owner = person_of(item_title_of(title));
        if let Some(person) = &owner
            && person != self.of
            && self.theirs.is_match(text)
        {
            add(people, person, of);
        }
        // "Son Kojo" in Abena's own note; "Married to Greg" if a partner is asked for.
        if owner.as_deref() == of {
            for c in self.forms.theirs_then_name.captures_iter(text) {
                add(people, &c[1], of);
            }
            if self.partner {
                for c in MARRIED_TO.captures_iter(text) {
                    add(people, &c[1], of);
                }
            }
        }
    }
}

impl Recaller {
    /// `q` with the people its relations name written in beside them, and what was resolved
    /// ("my nephew: Abena, Kojo"); `None` when it names no relation or memory names no one.
    pub(super) fn with_people(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
    ) -> Option<(RecallQuery, Vec<String>)> {
        if !self.settings.relations {
            return None;
        }
        let found = mentions(&q.text);
        if found.is_empty() {
            return None;
        }
        let mut text = q.text.clone();
        let mut said = Vec::new();
        // From the last mention back, so each offset still holds.
        for m in found.iter().rev() {
            // The people of every way that reaches someone, each once, in order.
            let mut names: Vec<String> = Vec::new();
            for steps in &m.ways {
                let chain = self.resolve(searcher, q, steps);
                if chain.last().is_none_or(Vec::is_empty) {
                    continue;
                }
                for name in chain.into_iter().flatten() {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            if names.is_empty() {
                continue;
            }
            let list = names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ");
            text.insert_str(m.end, &format!(" ({list})"));
            said.push(format!("{}: {list}", m.phrase));
        }
        if said.is_empty() {
            return None;
        }
        said.reverse();
        Some((RecallQuery { text, ..q.clone() }, said))
    }

    /// The people of each step of a chain, from the asker: empty from the first step that names no
    /// one, or more than [`MAX_PEOPLE`].
    fn resolve(&self, searcher: &Searcher, q: &RecallQuery, steps: &[&'static Relation]) -> Vec<Vec<String>> {
        let mut chain: Vec<Vec<String>> = Vec::new();
        for (i, relation) in steps.iter().enumerate() {
            let Some(forms) = FORMS.get(relation.name) else { break };
            let mut people = Vec::new();
            let from: Vec<Option<&str>> =
                if i == 0 { vec![None] } else { chain[i - 1].iter().map(|p| Some(p.as_str())).collect() };
            for of in from {
                let relative = of.map(|p| OfPerson::new(forms, relation, p));
                // A few words per search: the lexical lane keeps a query's rarest words, and words
                // memory lacks are the rarest of all.
                for group in relation.written.chunks(SEARCH_WORDS) {
                    let words = match of {
                        None => group.join(" "),
                        Some(p) => format!("{p} {}", group.join(" ")),
                    };
                    let terms = self.query_terms(searcher, &words);
                    let Ok((top, _)) =
                        self.lexical(searcher, &terms, &q.scope, STATEMENT_POOL, false, Scoring::Auto)
                    else {
                        continue;
                    };
                    for c in &top {
                        let Ok(StoredHit(hit)) = searcher.doc::<StoredHit>(c.addr) else { continue };
                        match &relative {
                            None => from_the_asker(relation, forms, &hit.title, &hit.text, &mut people),
                            Some(r) => r.find(&hit.title, &hit.text, &mut people),
                        }
                    }
                }
            }
            if people.is_empty() || people.len() > MAX_PEOPLE {
                return Vec::new();
            }
            chain.push(people);
        }
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrases(text: &str) -> Vec<(String, usize)> {
        mentions(text).into_iter().map(|m| (m.phrase, m.ways.iter().map(Vec::len).sum())).collect()
    }

    #[test]
    fn questions_name_relations_from_the_asker() {
        let cases: &[(&str, &[(&str, usize)])] = &[
            ("What does my other half's mum do at Mass?", &[("my other half's mum", 2)]),
            ("Which animal does our kid adore?", &[("our kid", 1)]),
            ("Why does my nephew keep a lizard?", &[("my nephew", 2)]),
            ("Where does my younger sister live?", &[("my younger sister", 1)]),
            ("What did my little girl see?", &[("my little girl", 1)]),
            ("Who is my line manager?", &[("my line manager", 1)]),
            ("My dad and my mum's birthdays", &[("My dad", 1), ("my mum", 1)]),
            ("My colleague's son starts university", &[]),
            ("Her husband called", &[]),
            ("How do I reset my router?", &[]),
            ("my sonnet draft", &[]),
            ("Who fed the dog?", &[]),
            ("Who fed our pets?", &[("our pets", 1)]),
            ("Who looks after my pet?", &[("my pet", 1)]),
            ("How does Audrey help out the animal shelter?", &[]),
            ("What was the name of the pet that John had?", &[]),
            ("Who minded the animals while my mum was away?", &[("the animals", 1), ("my mum", 1)]),
            // Reached more than one way: the steps of every way.
            ("What does my brother-in-law do for a living?", &[("my brother-in-law", 4)]),
            ("When are my parents visiting?", &[("my parents", 2)]),
            ("Where do my in-laws live?", &[("my in-laws", 4)]),
            ("What did my brother say?", &[("my brother", 1)]),
        ];
        for (text, want) in cases {
            let want: Vec<(String, usize)> = want.iter().map(|(p, n)| ((*p).to_owned(), *n)).collect();
            assert_eq!(phrases(text), want, "{text}");
        }
    }

    fn asker(relation: &Relation, title: &str, text: &str) -> Vec<String> {
        let mut people = Vec::new();
        from_the_asker(relation, &Forms::of(relation), title, text, &mut people);
        people
    }

    #[test]
    fn memory_says_who_holds_a_relation_in_plain_forms() {
        assert_eq!(asker(&PARTNER, "Memory", "- Tomasz Nowak, my partner since 2014."), ["Tomasz"]);
        assert_eq!(asker(&CHILD, "Memory", "- Zofia, our daughter, born 2017."), ["Zofia"]);
        assert_eq!(asker(&PARTNER, "Memory", "Dinner with my husband Marcus."), ["Marcus"]);
        assert_eq!(asker(&MOTHER, "Memory", "- Mum: Brenda, 81. Dad (Ken) d. 2017."), ["Brenda"]);
        assert_eq!(asker(&BROTHER, "Memory", "- Brother Owen + Siân, Cardiff."), ["Owen"]);
        assert_eq!(asker(&SIBLING, "Abena Mensah", "- My younger sister, 34. Son Kojo, 4."), ["Abena"]);
        assert_eq!(asker(&BROTHER, "Ollie Hale", "- Younger brother. Leeds."), ["Ollie"]);
        assert_eq!(
            asker(&BOSS, "Elaine Pickersgill", "- Head of Science; my line manager since 2024."),
            ["Elaine"]
        );
        assert_eq!(asker(&MOTHER, "Gillian Hale (Mum)", "- 14 Berkeley Road."), ["Gillian"]);
        // A section of a person's own note is theirs as much as the note's first chunk.
        assert_eq!(asker(&SIBLING, "Abena Mensah > Family", "- My younger sister, 34."), ["Abena"]);
        assert_eq!(asker(&MOTHER, "Gillian Hale (Mum) > Address", "- 14 Berkeley Road."), ["Gillian"]);
        assert_eq!(asker(&MOTHER, "Mum (Brenda Fairweather)", "- Flat 6, Priory Court."), ["Brenda"]);
        // Not the asker's: another's husband, a colleague's job title, a son named in a sibling's note.
        assert!(asker(&PARTNER, "Deb Kowalski", "- Next door, with her husband Frank.").is_empty());
        assert!(asker(&BOSS, "Aisha Bello", "- Product manager, Payments Platform.").is_empty());
        assert!(asker(&SON, "Abena Mensah", "- Married to Greg. Son Kojo, 4.").is_empty());
        assert!(asker(&MOTHER, "Memory", "- Mum rang about the weekend.").is_empty());
        assert!(asker(&MOTHER, "Lara Tanaka", "- Stay resilient, like my mom always said.").is_empty());
        assert!(asker(&MOTHER, "Lara Tanaka", "- My mom always said to never give up.").is_empty());
        assert_eq!(
            asker(&BOSS, "Callum Reid", "- Engineering manager. My line manager since 2023."),
            ["Callum"]
        );
        assert_eq!(
            asker(&BOSS, "Fergus Lamb", "- Senior vet; my boss for most of my nursing years."),
            ["Fergus"]
        );
        // The household's animals, on lines of their own or beside "our".
        assert_eq!(asker(&PET, "Memory", "- Moss: lurcher, about five, adopted in 2022."), ["Moss"]);
        assert_eq!(
            asker(&PET, "Memory", "- Pickle: lurcher bitch, 7.\n- Mungo: ginger tom, 15."),
            ["Pickle", "Mungo"]
        );
        assert_eq!(asker(&PET, "Memory", "- Barty (Bartholomew), a Hermann's tortoise."), ["Barty"]);
        assert_eq!(asker(&PET, "2026-01-02", "Took our cat Mungo to the vet."), ["Mungo"]);
        // Not the asker's: a brother's spaniel, a person's own note.
        assert!(asker(&PET, "Memory", "- Brother Owen + Siân, Cardiff. Their spaniel Bryn.").is_empty());
        assert!(asker(&PET, "Deb Kowalski", "- Our dog loves her.").is_empty());
    }

    fn relative(relation: &Relation, of: &str, title: &str, text: &str) -> Vec<String> {
        let mut people = Vec::new();
        let forms = Forms::of(relation);
        OfPerson::new(&forms, relation, of).find(title, text, &mut people);
        people
    }

    #[test]
    fn a_relation_of_a_relation_resolves_from_their_notes() {
        assert_eq!(relative(&MOTHER, "Tomasz", "Halina Nowak", "- Tomasz's mother, 68. Kraków."), ["Halina"]);
        assert_eq!(relative(&SON, "Abena", "Abena Mensah", "- Married to Greg. Son Kojo, 4."), ["Kojo"]);
        assert_eq!(relative(&SON, "Abena", "Memory", "Abena's son Kojo loved it."), ["Kojo"]);
        assert!(relative(&SON, "Abena", "Greg Sullivan", "- Son Kojo, 4.").is_empty());
        assert_eq!(relative(&SON, "Abena", "Abena Mensah > Family", "- Son Kojo, 4."), ["Kojo"]);
        assert_eq!(relative(&MOTHER, "Tomasz", "Halina Nowak > Notes", "- Tomasz's mother, 68."), ["Halina"]);
        assert!(relative(&MOTHER, "Tomasz", "Halina Nowak", "- Lives in Kraków.").is_empty());
        // A partner as a person's own note says it; not for any other relation.
        assert_eq!(relative(&PARTNER, "Abena", "Abena Mensah", "- Married to Greg. Son Kojo, 4."), ["Greg"]);
        assert!(relative(&SON, "Abena", "Abena Mensah", "- Married to Greg.").is_empty());
        assert!(relative(&PARTNER, "Abena", "Nia Osei", "- Married to Kofi.").is_empty());
    }

    #[test]
    fn titles_of_people_and_of_other_notes() {
        assert_eq!(person_of("Abena Mensah").as_deref(), Some("Abena"));
        assert_eq!(person_of("Gillian Hale (Mum)").as_deref(), Some("Gillian"));
        assert_eq!(person_of("Mum (Brenda Fairweather)").as_deref(), Some("Brenda"));
        assert_eq!(person_of("School pond"), None);
        assert_eq!(person_of("Memory"), None);
        assert_eq!(person_of("Mum's 70th"), None);
        assert_eq!(person_of("2025-11-02"), None);
    }
}
