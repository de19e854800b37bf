//! Relevance: the floor (nothing when nothing is relevant), calibrated fusion, the date lane (ranges,
//! scope, undated items) and lanes switched off staying off. Real index directories in temp dirs.

use cairn_core::{Audience, Item, ItemKind, LaneStatus, Scope, UNDATED};
use cairn_recall::{
    ChunkWriter, Fusion, RecallIndex, RecallQuery, RecallResult, RecallSettings, Recaller, lane,
};
use proptest::prelude::*;

/// Noon (UTC) of a civil date.
fn noon(y: i16, m: i8, d: i8) -> i64 {
    jiff::civil::date(y, m, d)
        .at(12, 0, 0, 0)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .unwrap()
        .timestamp()
        .as_millisecond()
}

fn note(id: &str, audience: Audience, title: &str, text: &str, created_at: i64) -> Item {
    cairn_test::item(id)
        .project("life")
        .kind(ItemKind::File)
        .title(title)
        .text(text)
        .audience(audience)
        .file(format!("memory/{id}.md"), 1, 5)
        .created_at(created_at)
        .observed_at(created_at.max(0))
        .build()
}

/// A small life: dailies of March and June 2026, and undated notes.
fn workspace() -> Vec<Item> {
    let mut items = vec![
        note(
            "vet",
            Audience::Private,
            "Riverside animal clinic",
            "Dr. Okafor checks Biscuit's vaccinations every spring; the clinic is on Mill Lane.",
            UNDATED,
        ),
        note(
            "capital",
            Audience::Private,
            "Credit card",
            "The capital one statement is due on the fifth; pay it from the joint account.",
            UNDATED,
        ),
        note(
            "boiler",
            Audience::Private,
            "Boiler service",
            "The plumber replaced the boiler pressure valve and bled the radiators.",
            UNDATED,
        ),
        note(
            "garden",
            Audience::Public,
            "Allotment",
            "Planted broad beans and garlic at the allotment; the soil was heavy clay.",
            UNDATED,
        ),
    ];
    for d in [2, 5, 9, 12, 14, 17, 19, 23, 27, 30] {
        let text = format!(
            "Worked on the quarterly report; lunch with Priya; walked Biscuit by the canal (day {d})."
        );
        items.push(note(
            &format!("2026-03-{d:02}"),
            Audience::Private,
            &format!("2026-03-{d:02}"),
            &text,
            noon(2026, 3, d),
        ));
    }
    for d in [22, 24, 26, 27, 29, 30] {
        let text =
            format!("Sprint review; fixed the flaky deploy job; evening run along the river (day {d}).");
        items.push(note(
            &format!("2026-06-{d:02}"),
            Audience::Private,
            &format!("2026-06-{d:02}"),
            &text,
            noon(2026, 6, d),
        ));
    }
    items.push(note(
        "2026-03-15-public",
        Audience::Public,
        "Open day",
        "Volunteered at the community garden open day.",
        noon(2026, 3, 15),
    ));
    items
}

fn build(items: &[Item], settings: RecallSettings) -> (tempfile::TempDir, Recaller) {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut w: ChunkWriter = index.writer().unwrap();
    for it in items {
        w.upsert(it, &[cairn_test::chunk_of(it)]).unwrap();
    }
    w.commit(items.len() as u64).unwrap();
    let r = Recaller::new(&index, settings).unwrap();
    (dir, r)
}

fn ask(r: &Recaller, text: &str, scope: Scope, now: i64) -> RecallResult {
    let res = r.recall(&RecallQuery::new(text, scope, 10, now));
    for l in &res.lanes {
        assert_ne!(l.status, LaneStatus::Failed, "lane {l:?}");
    }
    res
}

fn ids(res: &RecallResult) -> Vec<&str> {
    res.hits.iter().map(|h| h.item_id.as_str()).collect()
}

const NOW: fn() -> i64 = || noon(2026, 6, 30);

#[test]
fn a_query_sharing_one_common_word_gets_nothing() {
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "what is the capital of mongolia and its population", Scope::owner(None), NOW());
    assert!(res.hits.is_empty(), "hits: {:?}", ids(&res));
    assert!(res.relevance.best < res.relevance.floor, "{:?}", res.relevance);
    assert!(res.relevance.below > 0, "the candidate was seen and left out: {:?}", res.relevance);
    // With the floor off, the same query does find the note (the floor, not the lanes, left it out).
    let (_d, r) = build(&workspace(), RecallSettings { floor: 0.0, ..RecallSettings::default() });
    let res = ask(&r, "what is the capital of mongolia and its population", Scope::owner(None), NOW());
    assert_eq!(ids(&res).first(), Some(&"capital"));
}

#[test]
fn a_query_about_a_note_passes_the_floor() {
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "boiler pressure valve", Scope::owner(None), NOW());
    assert_eq!(ids(&res).first(), Some(&"boiler"));
    assert!(res.relevance.best >= res.relevance.floor);
}

#[test]
fn contact_details_answer_the_words_they_imply() {
    // The notes never write "email" or "phone"; other notes use both words, so they are not rare.
    let mut items = workspace();
    items.push(note(
        "lena",
        Audience::Private,
        "Lena Marsh",
        "Landlady of the flat on Kirkgate. lena.marsh@example.org, (919) 555-0190.",
        UNDATED,
    ));
    items.push(note(
        "council",
        Audience::Private,
        "Council tax",
        "Answered the council's email about the change of address; phone them if the bill is wrong.",
        UNDATED,
    ));
    items.push(note(
        "laptop",
        Audience::Private,
        "New phone",
        "Moved the email accounts and the address book to the new phone; the number stayed the same.",
        UNDATED,
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    for q in ["What is Lena Marsh's email address?", "What's Lena Marsh's phone number?"] {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(ids(&res).first(), Some(&"lena"), "{q}: {:?} {:?}", ids(&res), res.relevance);
        let hit = &res.hits[0];
        assert!(hit.why.terms.iter().any(|t| t == "email" || t == "phone"), "{q}: {:?}", hit.why.terms);
        assert!(!hit.text.contains("telephone"), "the implied words are never shown: {}", hit.text);
    }
}

#[test]
fn names_typed_without_their_accents_find_the_note() {
    let mut items = workspace();
    items.push(note(
        "zoe",
        Audience::Private,
        "Zoë Müller",
        "Owner of Café Lumière on Ninth Street; from Zürich; her partner is Renée.",
        UNDATED,
    ));
    items.push(note(
        "lodz",
        Audience::Private,
        "Trip to Łódź",
        "Two nights in Łódź with Paweł; the Księży Młyn lofts.",
        UNDATED,
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    for (q, id) in [
        ("who is Zoe Muller?", "zoe"),
        ("who owns cafe lumiere", "zoe"),
        ("Zoë Müller", "zoe"),
        ("when did we go to Lodz with Pawel?", "lodz"),
    ] {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(ids(&res).first(), Some(&id), "{q}: {:?} {:?}", ids(&res), res.relevance);
    }
}

#[test]
fn the_floor_holds_whatever_the_fusion() {
    // Min-max stretches the weak match to 1 in the ranking; relevance is still on its absolute scale.
    for fusion in [Fusion::Weighted, Fusion::Calibrated, Fusion::Rrf { k: 60.0 }] {
        let (_d, r) = build(&workspace(), RecallSettings { fusion, ..RecallSettings::default() });
        let res = ask(&r, "what is the capital of mongolia and its population", Scope::owner(None), NOW());
        assert!(res.hits.is_empty(), "{fusion:?}: {:?}", ids(&res));
        let res = ask(&r, "boiler pressure valve", Scope::owner(None), NOW());
        assert_eq!(ids(&res).first(), Some(&"boiler"), "{fusion:?}");
    }
}

#[test]
fn dates_in_the_prompt_find_the_days_they_name() {
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "what did I do in mid-March?", Scope::owner(None), NOW());
    let got = ids(&res);
    assert!(!got.is_empty(), "{:?}", res.relevance);
    // Every hit of the date lane lies within 11–20 March; nothing else outranks them.
    let in_range = ["2026-03-12", "2026-03-14", "2026-03-15-public", "2026-03-17", "2026-03-19"];
    for id in &got[..in_range.len()] {
        assert!(in_range.contains(id), "{got:?}");
    }
    let hit = &res.hits[0];
    assert_eq!(hit.parts.get(lane::DATE), Some(&1.0));
    let why = hit.why.date.as_deref().unwrap();
    assert!(why.contains("in 'mid-March'"), "{why}");
    assert!(res.query_dates.iter().any(|d| d.contains("2026-03-11..2026-03-20")), "{:?}", res.query_dates);

    let res = ask(&r, "what happened yesterday", Scope::owner(None), NOW());
    assert_eq!(ids(&res).first(), Some(&"2026-06-29"));
    let res = ask(&r, "what did I do last week", Scope::owner(None), NOW());
    let got = ids(&res);
    for id in ["2026-06-22", "2026-06-24", "2026-06-26", "2026-06-27"] {
        assert!(got[..4].contains(&id), "{got:?}");
    }
}

#[test]
fn a_note_is_found_by_the_words_of_its_tags() {
    let mut items = workspace();
    let mut trip = note(
        "trip",
        Audience::Private,
        "Pittsburgh, November",
        "Out on the 20th, back on the 27th.",
        UNDATED,
    );
    trip.tags = vec!["travel".into()];
    items.push(trip);
    // Notes of any workspace use the words that name notes and tags.
    items.push(note(
        "move",
        Audience::Private,
        "Moving day",
        "Tagged every box; the notes are in the kitchen drawer.",
        UNDATED,
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    let res = ask(&r, "What's in my travel notes?", Scope::owner(None), NOW());
    // "travel" is in memory (the trip's tag); only "notes" is not.
    assert!(res.relevance.unknown < 0.9, "{:?}", res.relevance);
    assert_eq!(ids(&res).first(), Some(&"trip"), "{:?}", ids(&res));
    let res = ask(&r, "travel", Scope::owner(None), NOW());
    assert_eq!(res.relevance.unknown, 0.0, "{:?}", res.relevance);
    // Asked by its tag, in words that say only that it is a tag or a note: the tag is all of it.
    for q in ["Anything tagged travel?", "Show me the travel notes."] {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(ids(&res).first(), Some(&"trip"), "{q}: {:?}", res.relevance);
        assert_eq!(res.relevance.parts.get(lane::TAGS), Some(&1.0), "{q}: {:?}", res.relevance);
    }
}

#[test]
fn a_date_asked_of_what_memory_lacks_finds_nothing() {
    let (_d, r) = build(&workspace(), RecallSettings::default());
    // The notes of March are of that time, not of a football club or a prize.
    for q in ["Who did Manchester United sign in March?", "Which novel won the Pulitzer Prize in March 2026?"]
    {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert!(res.hits.is_empty(), "{q}: {:?}", ids(&res));
        assert!(res.relevance.undated, "{q}: {:?}", res.relevance);
    }
    // The date is all of the question, the rest is in memory, or the question is about the asker.
    for q in
        ["What happened in March?", "Who had lunch with Priya in March?", "Who did I sign up with in March?"]
    {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert!(ids(&res).first().is_some_and(|id| id.starts_with("2026-03")), "{q}: {:?}", ids(&res));
        assert!(!res.relevance.undated, "{q}");
    }
    // "Sheffield Wednesday" is a club, not the last Wednesday (24 June).
    let res = ask(&r, "When did Sheffield Wednesday last win the FA Cup?", Scope::owner(None), NOW());
    assert!(res.query_dates.is_empty() && res.hits.is_empty(), "{:?} {:?}", res.query_dates, ids(&res));
}

#[test]
fn days_counted_from_a_trip_come_from_the_note_that_dates_it() {
    let mut items = workspace();
    items.push(note(
        "lisbon",
        Audience::Private,
        "Lisbon trip",
        "# Lisbon, March 2026\n\nFlew out on 2026-03-15, back on 2026-03-22 (Sunday to Sunday). Fado on 1 June.",
        UNDATED,
    ));
    // A day that mentions Lisbon more often, but not when the trip was: the trip note tells better.
    items.push(note(
        "planning",
        Audience::Private,
        "Lisbon",
        "Lisbon, Lisbon: booked Lisbon.",
        noon(2026, 2, 20),
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    for (q, day, phrase) in [
        (
            "What did I do the day after I got back from Lisbon?",
            "2026-03-23",
            "the day after I got back from Lisbon",
        ),
        (
            "What was I doing the day before we flew to Lisbon?",
            "2026-03-14",
            "the day before we flew to Lisbon",
        ),
    ] {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(res.query_dates, [format!("{phrase}: {day}..{day}")], "{q}");
        assert_eq!(ids(&res).first(), Some(&day), "{q}: {:?}", ids(&res));
        assert_eq!(res.hits[0].why.date.as_deref(), Some(format!("{day} in '{phrase}'").as_str()));
    }
    // Out of the trip note's scope its dates are unknown: no day is counted from it.
    let res = ask(&r, "What did I do the day after I got back from Lisbon?", Scope::public_only(None), NOW());
    assert!(res.query_dates.is_empty(), "{:?}", res.query_dates);
    // Without the event's dates in memory, nothing is made up.
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "What did I do the day after I got back from Lisbon?", Scope::owner(None), NOW());
    assert!(res.query_dates.is_empty(), "{:?}", res.query_dates);
}

#[test]
fn a_birthday_is_the_day_memory_gives_it() {
    let mut items = workspace();
    items.push(note(
        "memory",
        Audience::Private,
        "Long-term memory",
        "- Born 12 March 1984 in Leeds.\n- Nell: born 27 June 2012.\n- Allergic to penicillin.",
        UNDATED,
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    for (q, day, phrase) in [
        ("What did we do for my birthday?", "2026-03-12", "my birthday"),
        ("What did I do the day after my birthday?", "2026-03-13", "the day after my birthday"),
        ("What did we do on Nell's birthday?", "2026-06-27", "Nell's birthday"),
    ] {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(res.query_dates, [format!("{phrase}: {day}..{day}")], "{q}");
    }
    let res = ask(&r, "What did we do for my birthday?", Scope::owner(None), NOW());
    assert_eq!(ids(&res).first(), Some(&"2026-03-12"), "{:?}", ids(&res));
    assert_eq!(res.hits[0].why.date.as_deref(), Some("2026-03-12 in 'my birthday'"));
    // Out of the note's scope the birthday is unknown, and without it nothing is made up.
    let res = ask(&r, "What did we do for my birthday?", Scope::public_only(None), NOW());
    assert!(res.query_dates.is_empty(), "{:?}", res.query_dates);
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "What did we do for my birthday?", Scope::owner(None), NOW());
    assert!(res.query_dates.is_empty(), "{:?}", res.query_dates);
    // The line that heads the asker's notes names the asker; the next names a daughter.
    let mut items = workspace();
    items.push(note(
        "memory",
        Audience::Private,
        "Long-term memory",
        "- Tamsin Hale, born 9 March 1988 in Bristol.\n- Zofia, our daughter, born 27 June 2017.",
        UNDATED,
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    for (q, day, phrase) in [
        ("What did we do for my birthday?", "2026-03-09", "my birthday"),
        ("Where did we go for Zofia's birthday?", "2026-06-27", "Zofia's birthday"),
    ] {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(res.query_dates, [format!("{phrase}: {day}..{day}")], "{q}");
    }
}

#[test]
fn the_date_lane_keeps_to_the_scope() {
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "what did I do in mid-March?", Scope::public_only(None), NOW());
    assert_eq!(ids(&res), ["2026-03-15-public"]);
    let res = ask(&r, "what did I do last week", Scope::public_only(None), NOW());
    assert!(res.hits.is_empty(), "{:?}", ids(&res));
}

#[test]
fn an_undated_note_that_names_a_day_is_found_by_it_and_stays_undated() {
    let mut items = workspace();
    items.push(note(
        "health",
        Audience::Private,
        "Health",
        "- Allergic to penicillin.\n- Flu jab done at the pharmacy, 14 March 2026.",
        UNDATED,
    ));
    items.push(note(
        "insurance",
        Audience::Public,
        "Car insurance",
        "Renewed with Harbour Mutual on 13 March 2026; the policy runs a year.",
        UNDATED,
    ));
    let (_d, r) = build(&items, RecallSettings::default());
    let res = ask(&r, "what did I do in mid-March?", Scope::owner(None), NOW());
    let hit = |id: &str| res.hits.iter().find(|h| h.item_id == id);
    let health = hit("health").expect("the note naming 14 March");
    let why = health.why.date.as_deref().unwrap();
    assert!(why.contains("names 2026-03-14 in 'mid-March'"), "{why}");
    // A day named fits below a day of one's own.
    let named = health.parts.get(lane::DATE).copied().unwrap_or(0.0);
    let own = hit("2026-03-14").unwrap().parts.get(lane::DATE).copied().unwrap_or(0.0);
    assert!(named > 0.0 && named < own, "{named} against {own}");
    // Naming a day does not date the note: no recency, and a range it does not name leaves it out.
    assert_eq!(health.parts.get("recency").copied().unwrap_or(0.0), 0.0, "{:?}", health.parts);
    let res = ask(&r, "what did I do last week", Scope::owner(None), NOW());
    assert!(!ids(&res).contains(&"health"), "{:?}", ids(&res));
    // The days a private note names stay private.
    let res = ask(&r, "what did I do in mid-March?", Scope::public_only(None), NOW());
    let mut got = ids(&res);
    got.sort_unstable();
    assert_eq!(got, ["2026-03-15-public", "insurance"]);
}

#[test]
fn undated_notes_get_no_recency() {
    let (_d, r) = build(&workspace(), RecallSettings::default());
    let res = ask(&r, "allotment broad beans garlic", Scope::owner(None), NOW());
    let hit = res.hits.iter().find(|h| h.item_id == "garden").unwrap();
    assert_eq!(hit.parts.get(lane::RECENCY), Some(&0.0));
    assert!(!hit.parts.contains_key(lane::DATE));
    // The recent list holds dated items only.
    let mut q = RecallQuery::new("allotment", Scope::owner(None), 5, NOW());
    q.recent_k = 50;
    let res = r.recall(&q);
    assert!(
        res.recent.iter().all(|h| h.created_at != UNDATED),
        "{:?}",
        res.recent.iter().map(|h| &h.item_id).collect::<Vec<_>>()
    );
}

#[test]
fn lanes_switched_off_stay_off() {
    let settings = RecallSettings::default().only_lanes(&[lane::LEXICAL]);
    let (_d, r) = build(&workspace(), settings);
    let res = ask(&r, "zzyzx qwertyuiop yesterday", Scope::owner(None), NOW());
    for l in &res.lanes {
        if l.name != lane::LEXICAL {
            assert_eq!(l.status, LaneStatus::Skipped, "{l:?}");
        }
    }
    assert!(res.hits.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A query made only of words absent from the index gets no hit, whatever else it holds.
    #[test]
    fn absent_words_get_nothing(words in prop::collection::vec("[b-df-hj-np-tv-z]{5,9}", 1..8)) {
        let (_d, r) = build(&workspace(), RecallSettings::default());
        let res = ask(&r, &words.join(" "), Scope::owner(None), NOW());
        prop_assert!(res.hits.is_empty(), "{:?} -> {:?}", words, ids(&res));
    }
}

/// The asker's profile file (`USER.md`): what they said about themselves for the assistant.
fn profile() -> Item {
    cairn_test::item("memory-file:USER.md")
        .project("life")
        .kind(ItemKind::File)
        .title("How I like answers")
        .text("Call me Tam. Celsius first. Say which time zone when it matters.")
        .audience(Audience::Private)
        .file("USER.md", 1, 5)
        .created_at(UNDATED)
        .build()
}

#[test]
fn the_askers_profile_answers_how_to_treat_them_and_nothing_else() {
    let mut items = workspace();
    items.push(profile());
    const USER: &str = "memory-file:USER.md";
    // No floor: what is a candidate at all.
    let open = RecallSettings { floor: 0.0, ..RecallSettings::default() };
    let (_d, r) = build(&items, RecallSettings::default());
    let (_e, all) = build(&items, open.clone());

    // Asked how to treat the asker, in words the file never uses: it comes first, modestly relevant.
    for q in
        ["What nickname should you use for me?", "Which units should you use when telling me the weather?"]
    {
        let res = ask(&r, q, Scope::owner(None), NOW());
        assert_eq!(ids(&res).first(), Some(&USER), "{q}: {:?} {:?}", ids(&res), res.relevance);
        assert!(
            res.hits[0].why.lanes.iter().any(|l| l == cairn_recall::PROFILE_PART),
            "{:?}",
            res.hits[0].why
        );
        let best = res.relevance.best;
        assert!((0.5..0.75).contains(&best), "{q}: {best}");
    }
    // About something else, though sharing its words: not even a candidate.
    let res = ask(&all, "What time zone is Tokyo in?", Scope::owner(None), NOW());
    assert!(!ids(&res).contains(&USER), "{:?}", ids(&res));
    // About the asker: it competes like any note.
    let res = ask(&all, "What's my time zone?", Scope::owner(None), NOW());
    assert_eq!(ids(&res).first(), Some(&USER), "{:?}", ids(&res));
    // Never for a shared audience, where the asker is not the owner, even when the file is public.
    let mut public = items.clone();
    public.last_mut().unwrap().audience = Audience::Public;
    let (_g, shared) = build(&public, open.clone());
    for q in ["What nickname should you use for me?", "What's my time zone?"] {
        let res = ask(&shared, q, Scope::public_only(None), NOW());
        assert!(!ids(&res).contains(&USER), "{q}: {:?}", ids(&res));
        assert!(!ids(&ask(&shared, q, Scope::owner(None), NOW())).is_empty(), "{q}");
    }
    // Switched off: a prompt in words memory lacks gets nothing.
    let (_f, off) = build(&items, RecallSettings { profile_files: Vec::new(), ..RecallSettings::default() });
    let res = ask(&off, "What nickname should you use for me?", Scope::owner(None), NOW());
    assert!(res.hits.is_empty(), "{:?}", ids(&res));
}

/// A family as memory writes it: by name, with who each is to the asker said once.
fn family() -> Vec<Item> {
    let mut items = workspace();
    items.extend([
        note(
            "people",
            Audience::Private,
            "Memory",
            "- Tomasz Nowak, my partner since 2014. Piano tuner.\n- Zofia, our daughter, born 2017. Obsessed with axolotls.\n- Pickle: lurcher bitch, 7. Steals food.",
            UNDATED,
        ),
        note(
            "halina",
            Audience::Public,
            "Halina Nowak",
            "- Tomasz's mother, 68. Still plays the organ at her parish on Sundays.",
            UNDATED,
        ),
        note(
            "abena",
            Audience::Private,
            "Abena Mensah",
            "- My younger sister, 34. Nurse in Boston.\n- Married to Greg. Son Kojo, 4.",
            UNDATED,
        ),
        note(
            "thanksgiving",
            Audience::Private,
            "2025-11-27",
            "Video call for Thanksgiving; Kojo wore a paper turkey hat all afternoon.",
            noon(2025, 11, 27),
        ),
    ]);
    items.push(note(
        "away",
        Audience::Private,
        "2025-04-16",
        "Packed for Ghent. Mrs Adeyemi (no. 9) has Pickle till Sunday, key under the frog.",
        noon(2025, 4, 16),
    ));
    for (i, name) in ["Ailsa Grant", "Rory Grant", "Mairi Grant", "Ewan Grant"].iter().enumerate() {
        items.push(note(&format!("cousin-{i}"), Audience::Private, name, "- My cousin, in Dundee.", UNDATED));
    }
    items
}

#[test]
fn people_named_by_their_relation_to_the_asker_are_found_by_name() {
    let open = RecallSettings { floor: 0.0, ..RecallSettings::default() };
    let (_d, r) = build(&family(), open.clone());
    // A relation of a relation, resolved step by step; the names join the query.
    let res = ask(&r, "What does my other half's mum do each week?", Scope::owner(None), NOW());
    assert_eq!(res.query_people, ["my other half's mum: Tomasz, Halina"]);
    assert_eq!(ids(&res).first(), Some(&"halina"), "{:?}", ids(&res));
    assert!(res.query_terms.iter().any(|t| t == "halina"), "{:?}", res.query_terms);
    let res = ask(&r, "What headgear did my nephew have on?", Scope::owner(None), NOW());
    assert_eq!(res.query_people, ["my nephew: Abena, Kojo"]);
    // Without a model "headgear" meets no "hat": the note that says who he is ranks with the day he
    // wore one, ahead of everything else.
    let mut top: Vec<&str> = ids(&res).into_iter().take(2).collect();
    top.sort_unstable();
    assert_eq!(top, ["abena", "thanksgiving"]);
    // Reached two ways (a sister's husband, a partner's brother): the way that names someone.
    let res = ask(&r, "What does my brother-in-law do for a living?", Scope::owner(None), NOW());
    assert_eq!(res.query_people, ["my brother-in-law: Abena, Greg"]);
    assert_eq!(ids(&res).first(), Some(&"abena"), "{:?}", ids(&res));
    let res = ask(&r, "What does our kid adore?", Scope::owner(None), NOW());
    assert_eq!(res.query_people, ["our kid: Zofia"]);
    assert_eq!(ids(&res).first(), Some(&"people"), "{:?}", ids(&res));
    // With the default floor, the name alone is a strong enough match for the note about the person.
    let (_f, floored) = build(&family(), RecallSettings::default());
    let res = ask(&floored, "Where does my younger sister work?", Scope::owner(None), NOW());
    assert_eq!(ids(&res).first(), Some(&"abena"), "{:?} {:?}", ids(&res), res.relevance);
    // The household's animals as a whole, by their names.
    let res = ask(&r, "Who minded the pets while we were away?", Scope::owner(None), NOW());
    assert_eq!(res.query_people, ["the pets: Pickle"]);
    assert_eq!(ids(&res).first(), Some(&"away"), "{:?}", ids(&res));
    // Held by more people than a question can mean: no one.
    let res = ask(&r, "Where does my cousin live?", Scope::owner(None), NOW());
    assert!(res.query_people.is_empty(), "{:?}", res.query_people);
    // A shared audience reads no private note, so no private name joins its query: Tomasz is known
    // only from one, and Halina's public note is not found through him.
    let res = ask(&r, "What does my other half's mum do each week?", Scope::public_only(None), NOW());
    assert!(res.query_people.is_empty(), "{:?}", res.query_people);
    assert!(!res.query_terms.iter().any(|t| t == "tomasz"), "{:?}", res.query_terms);
    // Switched off: the query stays as written.
    let (_e, off) = build(&family(), RecallSettings { relations: false, ..open });
    let res = ask(&off, "What does my other half's mum do each week?", Scope::owner(None), NOW());
    assert!(res.query_people.is_empty());
    assert_ne!(ids(&res).first(), Some(&"halina"), "{:?}", ids(&res));
}
