//! The vocabulary: every word the scanner knows, classified once per token.

use jiff::civil::Weekday;
use jiff::civil::Weekday as WD;

/// A unit of calendar time, as in "three *days* ago".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Day,
    Week,
    Month,
    Year,
    /// Two weeks.
    Fortnight,
}

/// What a word means to the scanner. `Other` is every word it does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lex {
    Other,
    /// A month; `full` is false for an abbreviation ("Mar", "Sept").
    Month {
        month: i8,
        full: bool,
    },
    /// A day of the week; `full` is false for an abbreviation ("Tue").
    Weekday {
        day: Weekday,
        full: bool,
    },
    /// An ordinal spelled out: "first" (1) … "twentieth" (20), "thirtieth" (30).
    Ordinal(u8),
    /// A number spelled out: "one" (1) … "twenty" (20), "thirty" (30).
    Cardinal(u8),
    /// "a", "an".
    A,
    Couple,
    Unit {
        unit: Unit,
        plural: bool,
    },
    Weekend,
    /// "weekends": only counted ("two weekends ago").
    Weekends,
    /// "few", "several": a vague count ("a few days ago", "the past several weeks").
    Few,
    /// "other", as in "the other day" (named so as not to clash with [`Lex::Other`], an unknown word).
    Another,
    Today,
    Yesterday,
    Tomorrow,
    Tonight,
    Night,
    /// "morning", "afternoon", "evening".
    DayPart,
    Ago,
    Last,
    This,
    /// "these", as in "these past few days".
    These,
    Past,
    Previous,
    Next,
    The,
    Of,
    In,
    During,
    Throughout,
    Since,
    /// "by", as in "by 3/12".
    By,
    /// "until", "till".
    Until,
    From,
    Through,
    Early,
    Mid,
    Middle,
    Late,
    /// "start", "beginning".
    Start,
    End,
    /// "commencing", "starting": "the week commencing 9 March".
    Commencing,
    /// "ending": "the week ending 15 March".
    Ending,
    Half,
    Quarter,
    /// "Q1" … "Q4".
    QuarterName(u8),
    /// "W1" … "W53": an ISO week number, as in "2026-W11".
    WeekName(u8),
    /// "ISO", as in "ISO week 11".
    Iso,
    Before,
    After,
    /// A season by the month it starts in: spring 3, summer 6, autumn ("fall") 9, winter 12.
    Season(i8),
    Between,
    And,
    To,
    Over,
    /// "at", "on": before "the weekend".
    At,
    /// "final", "closing", as "last" in a part of a period ("the final week of March").
    Final,
    /// "opening", as "first" in a part of a period ("the opening week of March").
    Opening,
    /// "same", as in "the same week last year".
    Same,
    /// "time", as in "this time last year".
    Time,
    /// "latter", as "second" in "the latter half of March".
    Latter,
    /// "long", as in "the long weekend".
    Long,
    /// "run", "lead", "build", as in "the run-up to Christmas".
    Run,
    /// "up", as in "the run-up to Christmas".
    Up,
    /// "runup", "leadup", "buildup": "the run-up" written as one word.
    RunUp,
    /// "holidays", "break": a stretch of days off around a holiday ("the Christmas holidays").
    Holidays,
    // Words of holiday names.
    New,
    Eve,
    Martin,
    Luther,
    King,
    Jr,
    Mlk,
    Presidents,
    Washington,
    Birthday,
    Memorial,
    Juneteenth,
    Independence,
    Labor,
    Columbus,
    Indigenous,
    Peoples,
    Veterans,
    Thanksgiving,
    Christmas,
    Good,
    Easter,
    Bank,
    Holiday,
    Boxing,
    Black,
    Whit,
    Whitsun,
    // Words of observances' names.
    /// "st", "saint".
    Saint,
    /// "valentine", "valentines".
    Valentine,
    Halloween,
    /// "patrick", "paddy", "patty".
    Patrick,
    /// "mother", "mothers".
    Mother,
    Mothering,
    /// "father", "fathers".
    Father,
    Bonfire,
    Guy,
    Fawkes,
    Shrove,
    /// "pancake": Pancake Day.
    Pancake,
    Ash,
    Palm,
    Maundy,
    Remembrance,
    /// "my", "your", "his", "her", "our", "their": "my mother's day" is not Mother's Day.
    Possessor,
}

/// The longest word in [`WORDS`].
const MAX_LEN: usize = 12;

/// Every known word, lower-case, sorted by first letter (a test checks).
static WORDS: &[(&str, Lex)] = {
    use Lex::*;
    &[
        ("a", A),
        ("after", After),
        ("afternoon", DayPart),
        ("ago", Ago),
        ("an", A),
        ("and", And),
        ("apr", Month { month: 4, full: false }),
        ("april", Month { month: 4, full: true }),
        ("ash", Ash),
        ("at", At),
        ("aug", Month { month: 8, full: false }),
        ("august", Month { month: 8, full: true }),
        ("autumn", Season(9)),
        ("bank", Bank),
        ("before", Before),
        ("beginning", Start),
        ("between", Between),
        ("birthday", Birthday),
        ("black", Black),
        ("bonfire", Bonfire),
        ("boxing", Boxing),
        ("break", Holidays),
        ("build", Run),
        ("buildup", RunUp),
        ("by", By),
        ("christmas", Christmas),
        ("closing", Final),
        ("columbus", Columbus),
        ("commencing", Commencing),
        ("couple", Couple),
        ("day", Unit { unit: self::Unit::Day, plural: false }),
        ("days", Unit { unit: self::Unit::Day, plural: true }),
        ("dec", Month { month: 12, full: false }),
        ("december", Month { month: 12, full: true }),
        ("during", During),
        ("early", Early),
        ("easter", Easter),
        ("eight", Cardinal(8)),
        ("eighteen", Cardinal(18)),
        ("eighteenth", Ordinal(18)),
        ("eighth", Ordinal(8)),
        ("eleven", Cardinal(11)),
        ("eleventh", Ordinal(11)),
        ("end", End),
        ("ending", Ending),
        ("eve", Eve),
        ("evening", DayPart),
        ("fall", Season(9)),
        ("father", Father),
        ("fathers", Father),
        ("fawkes", Fawkes),
        ("feb", Month { month: 2, full: false }),
        ("february", Month { month: 2, full: true }),
        ("few", Few),
        ("fifteen", Cardinal(15)),
        ("fifteenth", Ordinal(15)),
        ("fifth", Ordinal(5)),
        ("final", Final),
        ("first", Ordinal(1)),
        ("five", Cardinal(5)),
        ("fortnight", Unit { unit: self::Unit::Fortnight, plural: false }),
        ("fortnights", Unit { unit: self::Unit::Fortnight, plural: true }),
        ("four", Cardinal(4)),
        ("fourteen", Cardinal(14)),
        ("fourteenth", Ordinal(14)),
        ("fourth", Ordinal(4)),
        ("fri", Weekday { day: WD::Friday, full: false }),
        ("friday", Weekday { day: WD::Friday, full: true }),
        ("from", From),
        ("good", Good),
        ("guy", Guy),
        ("half", Half),
        ("halloween", Halloween),
        ("her", Possessor),
        ("his", Possessor),
        ("holiday", Holiday),
        ("holidays", Holidays),
        ("in", In),
        ("independence", Independence),
        ("indigenous", Indigenous),
        ("iso", Iso),
        ("jan", Month { month: 1, full: false }),
        ("january", Month { month: 1, full: true }),
        ("jr", Jr),
        ("jul", Month { month: 7, full: false }),
        ("july", Month { month: 7, full: true }),
        ("jun", Month { month: 6, full: false }),
        ("june", Month { month: 6, full: true }),
        ("juneteenth", Juneteenth),
        ("king", King),
        ("labor", Labor),
        ("labour", Labor),
        ("last", Last),
        ("late", Late),
        ("latter", Latter),
        ("lead", Run),
        ("leadup", RunUp),
        ("long", Long),
        ("luther", Luther),
        ("mar", Month { month: 3, full: false }),
        ("march", Month { month: 3, full: true }),
        ("martin", Martin),
        ("maundy", Maundy),
        ("may", Month { month: 5, full: true }),
        ("memorial", Memorial),
        ("mid", Mid),
        ("middle", Middle),
        ("mlk", Mlk),
        ("mon", Weekday { day: WD::Monday, full: false }),
        ("monday", Weekday { day: WD::Monday, full: true }),
        ("month", Unit { unit: self::Unit::Month, plural: false }),
        ("months", Unit { unit: self::Unit::Month, plural: true }),
        ("morning", DayPart),
        ("mother", Mother),
        ("mothering", Mothering),
        ("mothers", Mother),
        ("my", Possessor),
        ("new", New),
        ("next", Next),
        ("night", Night),
        ("nine", Cardinal(9)),
        ("nineteen", Cardinal(19)),
        ("nineteenth", Ordinal(19)),
        ("ninth", Ordinal(9)),
        ("nov", Month { month: 11, full: false }),
        ("november", Month { month: 11, full: true }),
        ("oct", Month { month: 10, full: false }),
        ("october", Month { month: 10, full: true }),
        ("of", Of),
        ("on", At),
        ("one", Cardinal(1)),
        ("opening", Opening),
        ("other", Another),
        ("our", Possessor),
        ("over", Over),
        ("paddy", Patrick),
        ("palm", Palm),
        ("pancake", Pancake),
        ("past", Past),
        ("patrick", Patrick),
        ("patty", Patrick),
        ("people", Peoples),
        ("peoples", Peoples),
        ("president", Presidents),
        ("presidents", Presidents),
        ("previous", Previous),
        ("q1", QuarterName(1)),
        ("q2", QuarterName(2)),
        ("q3", QuarterName(3)),
        ("q4", QuarterName(4)),
        ("quarter", Quarter),
        ("remembrance", Remembrance),
        ("run", Run),
        ("runup", RunUp),
        ("saint", Saint),
        ("same", Same),
        ("sat", Weekday { day: WD::Saturday, full: false }),
        ("saturday", Weekday { day: WD::Saturday, full: true }),
        ("second", Ordinal(2)),
        ("sep", Month { month: 9, full: false }),
        ("sept", Month { month: 9, full: false }),
        ("september", Month { month: 9, full: true }),
        ("seven", Cardinal(7)),
        ("seventeen", Cardinal(17)),
        ("seventeenth", Ordinal(17)),
        ("seventh", Ordinal(7)),
        ("several", Few),
        ("shrove", Shrove),
        ("since", Since),
        ("six", Cardinal(6)),
        ("sixteen", Cardinal(16)),
        ("sixteenth", Ordinal(16)),
        ("sixth", Ordinal(6)),
        ("spring", Season(3)),
        ("st", Saint),
        ("start", Start),
        ("starting", Commencing),
        ("summer", Season(6)),
        ("sun", Weekday { day: WD::Sunday, full: false }),
        ("sunday", Weekday { day: WD::Sunday, full: true }),
        ("ten", Cardinal(10)),
        ("tenth", Ordinal(10)),
        ("thanksgiving", Thanksgiving),
        ("the", The),
        ("their", Possessor),
        ("these", These),
        ("third", Ordinal(3)),
        ("thirteen", Cardinal(13)),
        ("thirteenth", Ordinal(13)),
        ("thirtieth", Ordinal(30)),
        ("thirty", Cardinal(30)),
        ("this", This),
        ("three", Cardinal(3)),
        ("through", Through),
        ("throughout", Throughout),
        ("thru", Through),
        ("thu", Weekday { day: WD::Thursday, full: false }),
        ("thur", Weekday { day: WD::Thursday, full: false }),
        ("thurs", Weekday { day: WD::Thursday, full: false }),
        ("thursday", Weekday { day: WD::Thursday, full: true }),
        ("till", Until),
        ("time", Time),
        ("to", To),
        ("today", Today),
        ("tomorrow", Tomorrow),
        ("tonight", Tonight),
        ("tue", Weekday { day: WD::Tuesday, full: false }),
        ("tues", Weekday { day: WD::Tuesday, full: false }),
        ("tuesday", Weekday { day: WD::Tuesday, full: true }),
        ("twelfth", Ordinal(12)),
        ("twelve", Cardinal(12)),
        ("twentieth", Ordinal(20)),
        ("twenty", Cardinal(20)),
        ("two", Cardinal(2)),
        ("until", Until),
        ("up", Up),
        ("valentine", Valentine),
        ("valentines", Valentine),
        ("veteran", Veterans),
        ("veterans", Veterans),
        ("washington", Washington),
        ("wed", Weekday { day: WD::Wednesday, full: false }),
        ("wednesday", Weekday { day: WD::Wednesday, full: true }),
        ("weds", Weekday { day: WD::Wednesday, full: false }),
        ("week", Unit { unit: self::Unit::Week, plural: false }),
        ("weekend", Weekend),
        ("weekends", Weekends),
        ("weeks", Unit { unit: self::Unit::Week, plural: true }),
        ("whit", Whit),
        ("whitsun", Whitsun),
        ("winter", Season(12)),
        ("xmas", Christmas),
        ("year", Unit { unit: self::Unit::Year, plural: false }),
        ("years", Unit { unit: self::Unit::Year, plural: true }),
        ("yesterday", Yesterday),
        ("your", Possessor),
    ]
};

/// For each first letter, a bit per word length that occurs in [`WORDS`]: most words of a prompt
/// are rejected by one look-up, before any comparison.
static SHAPES: [u16; 26] = {
    let mut shapes = [0u16; 26];
    let mut i = 0;
    while i < WORDS.len() {
        let w = WORDS[i].0.as_bytes();
        shapes[(w[0] - b'a') as usize] |= 1 << w.len();
        i += 1;
    }
    shapes
};

/// Where the words of each first letter start in [`WORDS`] (and, at 26, where the table ends).
static BUCKETS: [u16; 27] = {
    let mut starts = [0u16; 27];
    let mut letter = 0;
    let mut i = 0;
    while letter < 26 {
        while i < WORDS.len() && ((WORDS[i].0.as_bytes()[0] - b'a') as usize) < letter {
            i += 1;
        }
        starts[letter] = i as u16;
        letter += 1;
    }
    starts[26] = WORDS.len() as u16;
    starts
};

/// Classifies one word (ASCII letters and digits, any case).
pub(crate) fn classify(word: &[u8]) -> Lex {
    let len = word.len();
    // `| 0x20` lower-cases an ASCII letter and leaves digits as they are.
    let first = word.first().map_or(0, |b| b | 0x20);
    if len > MAX_LEN || !first.is_ascii_lowercase() {
        return Lex::Other;
    }
    // "w1" … "w53": an ISO week number.
    if first == b'w' && (2..=3).contains(&len) && word[1..].iter().all(u8::is_ascii_digit) {
        let n = word[1..].iter().fold(0u8, |n, d| n * 10 + (d - b'0'));
        if (1..=53).contains(&n) {
            return Lex::WeekName(n);
        }
    }
    let letter = usize::from(first - b'a');
    if SHAPES[letter] & (1 << len) == 0 {
        return Lex::Other;
    }
    let bucket = &WORDS[usize::from(BUCKETS[letter])..usize::from(BUCKETS[letter + 1])];
    bucket
        .iter()
        .find(|(w, _)| w.len() == len && w.bytes().zip(word).all(|(a, b)| a == b | 0x20))
        .map_or(Lex::Other, |(_, lex)| *lex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_unique_and_short() {
        for pair in WORDS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
        for (w, _) in WORDS {
            assert!(w.len() <= MAX_LEN && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
        }
    }

    #[test]
    fn classifies_any_case() {
        assert_eq!(classify(b"MaRcH"), Lex::Month { month: 3, full: true });
        assert_eq!(classify(b"Sept"), Lex::Month { month: 9, full: false });
        assert_eq!(classify(b"q3"), Lex::QuarterName(3));
        assert_eq!(classify(b"W11"), Lex::WeekName(11));
        assert_eq!(classify(b"w53"), Lex::WeekName(53));
        assert_eq!(classify(b"w54"), Lex::Other);
        assert_eq!(classify(b"w01"), Lex::WeekName(1));
        assert_eq!(classify(b"w0"), Lex::Other);
        assert_eq!(classify(b"w"), Lex::Other);
        assert_eq!(classify(b"marches"), Lex::Other);
        assert_eq!(classify(b"extraordinarily"), Lex::Other);
        assert_eq!(classify(b""), Lex::Other);
        assert_eq!(classify(b"12th"), Lex::Other);
        assert_eq!(classify(b"Q1"), Lex::QuarterName(1));
        for (w, lex) in WORDS {
            assert_eq!(classify(w.to_uppercase().as_bytes()), *lex, "{w}");
        }
    }
}
