//! Public holidays of each locale, by rule: fixed dates, the nth or last weekday of a month, and
//! Easter-based ones (Easter Sunday from the `computus` crate); and the observances that prompts name
//! like holidays but that are not days off (Christmas Eve, Valentine's Day, Mother's Day, Halloween…).
//!
//! The rules follow the law as it changed since 1970: the US Uniform Monday Holiday Act (Monday
//! holidays from 1971; Veterans Day on the fourth Monday of October 1971–1977), Martin Luther King
//! Jr. Day from 1986, Juneteenth from 2021; in England and Wales New Year's Day from 1974, the Early
//! May bank holiday from 1978, and the years a bank holiday was moved (Early May to 8 May in 1995 and
//! 2020; Spring to 6 June 1977, 4 June 2002 and 2012, 2 June 2022) or added once (jubilees, royal
//! weddings, the millennium, the 2022 state funeral, the 2023 coronation). Years after the latest
//! known change use today's rules.
//!
//! Each holiday also carries the day it is observed when it falls on a weekend: in the US the Friday
//! before a Saturday or the Monday after a Sunday; in England and Wales the next weekday that is not
//! already a holiday (a Saturday Christmas gives Monday 27 and Tuesday 28 December).

use jiff::civil::{Date, Weekday};

use crate::locale::Locale;

/// A named day of a locale's calendar in one year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holiday {
    /// The day itself.
    pub date: Date,
    /// The day off when `date` falls on a weekend; `date` otherwise (and for observances).
    pub observed: Date,
    /// Its usual English name, e.g. "Thanksgiving Day" or "Summer bank holiday".
    pub name: &'static str,
    /// A public (federal or bank) holiday; false for the observances that are named in prompts but
    /// are not days off: Christmas Eve, New Year's Eve, Easter Sunday, Valentine's Day, St Patrick's
    /// Day, Mother's Day (Mothering Sunday in the UK), Father's Day, Halloween, Bonfire Night, Black
    /// Friday, Shrove Tuesday, Ash Wednesday, Palm Sunday, Maundy Thursday and Remembrance Sunday.
    pub public: bool,
}

/// A holiday that prompts name (and one-off bank holidays have no id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HolidayId {
    NewYearsDay,
    MlkDay,
    WashingtonsBirthday,
    MemorialDay,
    Juneteenth,
    IndependenceDay,
    LaborDay,
    ColumbusDay,
    VeteransDay,
    Thanksgiving,
    ChristmasDay,
    GoodFriday,
    EasterMonday,
    EarlyMay,
    SpringBank,
    SummerBank,
    BoxingDay,
    ChristmasEve,
    NewYearsEve,
    EasterSunday,
    ValentinesDay,
    StPatricksDay,
    /// The US Mother's Day: the second Sunday of May.
    MothersDay,
    /// The UK Mother's Day: three weeks before Easter Sunday.
    MotheringSunday,
    FathersDay,
    Halloween,
    BonfireNight,
    /// The day after US Thanksgiving (a shopping day in both locales).
    BlackFriday,
    /// Shrove Tuesday ("Pancake Day"): 47 days before Easter Sunday.
    ShroveTuesday,
    /// The day after Shrove Tuesday.
    AshWednesday,
    /// The Sunday before Easter.
    PalmSunday,
    /// The Thursday before Easter.
    MaundyThursday,
    /// The UK's day of remembrance: the second Sunday of November.
    RemembranceSunday,
}

/// Each locale's holidays, with the first year each was public (`None`: an observance, not a day off).
const US: &[(HolidayId, Option<i16>)] = &[
    (HolidayId::NewYearsDay, Some(1870)),
    (HolidayId::MlkDay, Some(1986)),
    (HolidayId::WashingtonsBirthday, Some(1879)),
    (HolidayId::MemorialDay, Some(1888)),
    (HolidayId::Juneteenth, Some(2021)),
    (HolidayId::IndependenceDay, Some(1870)),
    (HolidayId::LaborDay, Some(1894)),
    (HolidayId::ColumbusDay, Some(1937)),
    (HolidayId::VeteransDay, Some(1938)),
    (HolidayId::Thanksgiving, Some(1870)),
    (HolidayId::ChristmasDay, Some(1870)),
    (HolidayId::ChristmasEve, None),
    (HolidayId::NewYearsEve, None),
    (HolidayId::EasterSunday, None),
    (HolidayId::ValentinesDay, None),
    (HolidayId::StPatricksDay, None),
    (HolidayId::MothersDay, None),
    (HolidayId::FathersDay, None),
    (HolidayId::Halloween, None),
    (HolidayId::BlackFriday, None),
    (HolidayId::ShroveTuesday, None),
    (HolidayId::AshWednesday, None),
    (HolidayId::PalmSunday, None),
    (HolidayId::MaundyThursday, None),
];

const UK: &[(HolidayId, Option<i16>)] = &[
    (HolidayId::NewYearsDay, Some(1974)),
    (HolidayId::GoodFriday, Some(1583)),
    (HolidayId::EasterMonday, Some(1871)),
    (HolidayId::EarlyMay, Some(1978)),
    // Proclaimed each year from 1965, statutory from 1971.
    (HolidayId::SpringBank, Some(1965)),
    (HolidayId::SummerBank, Some(1965)),
    (HolidayId::ChristmasDay, Some(1583)),
    (HolidayId::BoxingDay, Some(1871)),
    (HolidayId::ChristmasEve, None),
    (HolidayId::NewYearsEve, None),
    (HolidayId::EasterSunday, None),
    (HolidayId::ValentinesDay, None),
    (HolidayId::StPatricksDay, None),
    (HolidayId::MotheringSunday, None),
    (HolidayId::FathersDay, None),
    (HolidayId::Halloween, None),
    (HolidayId::BonfireNight, None),
    (HolidayId::BlackFriday, None),
    (HolidayId::ShroveTuesday, None),
    (HolidayId::AshWednesday, None),
    (HolidayId::PalmSunday, None),
    (HolidayId::MaundyThursday, None),
    (HolidayId::RemembranceSunday, None),
];

/// Bank holidays in England and Wales that were declared for one year only.
const UK_ONE_OFF: &[(i16, i8, i8, &str)] = &[
    (1977, 6, 7, "Silver Jubilee of Elizabeth II"),
    (1981, 7, 29, "Wedding of Prince Charles and Lady Diana Spencer"),
    (1999, 12, 31, "Millennium celebrations"),
    (2002, 6, 3, "Golden Jubilee of Elizabeth II"),
    (2011, 4, 29, "Wedding of Prince William and Catherine Middleton"),
    (2012, 6, 5, "Diamond Jubilee of Elizabeth II"),
    (2022, 6, 3, "Platinum Jubilee of Elizabeth II"),
    (2022, 9, 19, "State Funeral of Queen Elizabeth II"),
    (2023, 5, 8, "Coronation of King Charles III"),
];

fn table(locale: Locale) -> &'static [(HolidayId, Option<i16>)] {
    match locale {
        Locale::Us => US,
        Locale::Uk => UK,
    }
}

/// The holidays and observances of `locale` in `year`, in date order (ties in the order above). Empty
/// outside the years `jiff` can represent; Easter-based days need a year from 1583.
///
/// ```
/// use cairn_dates::{Locale, holidays};
/// let uk = holidays(2026, Locale::Uk);
/// let summer = uk.iter().find(|h| h.name == "Summer bank holiday").unwrap();
/// assert_eq!(summer.date, jiff::civil::date(2026, 8, 31));
/// ```
pub fn holidays(year: i16, locale: Locale) -> Vec<Holiday> {
    let mut out: Vec<Holiday> = table(locale)
        .iter()
        .filter(|(_, since)| since.is_none_or(|since| year >= since))
        .filter_map(|&(id, since)| {
            let date = id.date(year)?;
            Some(Holiday {
                date,
                observed: id.observed(date, locale),
                name: id.name(),
                public: since.is_some(),
            })
        })
        .collect();
    if locale == Locale::Uk {
        for &(y, m, d, name) in UK_ONE_OFF.iter().filter(|o| o.0 == year) {
            if let Ok(date) = Date::new(y, m, d) {
                out.push(Holiday { date, observed: date, name, public: true });
            }
        }
    }
    out.sort_by_key(|h| h.date);
    out
}

/// The public holidays of `locale` in `year` that have an id (not the one-off bank holidays), each
/// with the day it is observed on.
pub(crate) fn public_days(year: i16, locale: Locale) -> impl Iterator<Item = (HolidayId, Date)> {
    table(locale).iter().filter(move |(_, since)| since.is_some_and(|since| year >= since)).filter_map(
        move |&(id, _)| {
            let date = id.date(year)?;
            Some((id, id.observed(date, locale)))
        },
    )
}

impl HolidayId {
    /// Whether `locale` knows this holiday (publicly or as an observance).
    pub(crate) fn in_locale(self, locale: Locale) -> bool {
        table(locale).iter().any(|(id, _)| *id == self)
    }

    /// The day `date` (this holiday's day in its year) is observed on in `locale`: moved off a weekend
    /// for a public holiday, itself otherwise.
    pub(crate) fn observed(self, date: Date, locale: Locale) -> Date {
        let public = table(locale)
            .iter()
            .any(|(id, since)| *id == self && since.is_some_and(|since| date.year() >= since));
        if public { observed(self, date, locale).unwrap_or(date) } else { date }
    }

    /// Part of the Easter weekend, whose "weekend" runs Good Friday to Easter Monday.
    pub(crate) fn is_easter(self) -> bool {
        matches!(self, HolidayId::GoodFriday | HolidayId::EasterSunday | HolidayId::EasterMonday)
    }

    /// The usual English name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            HolidayId::NewYearsDay => "New Year's Day",
            HolidayId::MlkDay => "Martin Luther King Jr. Day",
            HolidayId::WashingtonsBirthday => "Washington's Birthday",
            HolidayId::MemorialDay => "Memorial Day",
            HolidayId::Juneteenth => "Juneteenth",
            HolidayId::IndependenceDay => "Independence Day",
            HolidayId::LaborDay => "Labor Day",
            HolidayId::ColumbusDay => "Columbus Day",
            HolidayId::VeteransDay => "Veterans Day",
            HolidayId::Thanksgiving => "Thanksgiving Day",
            HolidayId::ChristmasDay => "Christmas Day",
            HolidayId::GoodFriday => "Good Friday",
            HolidayId::EasterMonday => "Easter Monday",
            HolidayId::EarlyMay => "Early May bank holiday",
            HolidayId::SpringBank => "Spring bank holiday",
            HolidayId::SummerBank => "Summer bank holiday",
            HolidayId::BoxingDay => "Boxing Day",
            HolidayId::ChristmasEve => "Christmas Eve",
            HolidayId::NewYearsEve => "New Year's Eve",
            HolidayId::EasterSunday => "Easter Sunday",
            HolidayId::ValentinesDay => "Valentine's Day",
            HolidayId::StPatricksDay => "St Patrick's Day",
            HolidayId::MothersDay => "Mother's Day",
            HolidayId::MotheringSunday => "Mothering Sunday",
            HolidayId::FathersDay => "Father's Day",
            HolidayId::Halloween => "Halloween",
            HolidayId::BonfireNight => "Bonfire Night",
            HolidayId::BlackFriday => "Black Friday",
            HolidayId::ShroveTuesday => "Shrove Tuesday",
            HolidayId::AshWednesday => "Ash Wednesday",
            HolidayId::PalmSunday => "Palm Sunday",
            HolidayId::MaundyThursday => "Maundy Thursday",
            HolidayId::RemembranceSunday => "Remembrance Sunday",
        }
    }

    /// The day in `year`, by the rule of that year (whether or not it was a public holiday yet).
    pub(crate) fn date(self, year: i16) -> Option<Date> {
        use Weekday::{Monday, Sunday, Thursday};
        let ymd = |m, d| Date::new(year, m, d).ok();
        let nth = |m, n, wd| Date::new(year, m, 1).ok()?.nth_weekday_of_month(n, wd).ok();
        let easter = |offset: i64| crate::calendar::add_days(easter_sunday(year)?, offset);
        match self {
            HolidayId::NewYearsDay => ymd(1, 1),
            HolidayId::MlkDay => nth(1, 3, Monday),
            HolidayId::WashingtonsBirthday if year < 1971 => ymd(2, 22),
            HolidayId::WashingtonsBirthday => nth(2, 3, Monday),
            HolidayId::MemorialDay if year < 1971 => ymd(5, 30),
            HolidayId::MemorialDay => nth(5, -1, Monday),
            HolidayId::Juneteenth => ymd(6, 19),
            HolidayId::IndependenceDay => ymd(7, 4),
            HolidayId::LaborDay => nth(9, 1, Monday),
            HolidayId::ColumbusDay if year < 1971 => ymd(10, 12),
            HolidayId::ColumbusDay => nth(10, 2, Monday),
            HolidayId::VeteransDay if (1971..=1977).contains(&year) => nth(10, 4, Monday),
            HolidayId::VeteransDay => ymd(11, 11),
            HolidayId::Thanksgiving => nth(11, 4, Thursday),
            HolidayId::ChristmasDay => ymd(12, 25),
            HolidayId::GoodFriday => easter(-2),
            HolidayId::EasterSunday => easter(0),
            HolidayId::EasterMonday => easter(1),
            HolidayId::EarlyMay if year == 1995 || year == 2020 => ymd(5, 8),
            HolidayId::EarlyMay => nth(5, 1, Monday),
            HolidayId::SpringBank => match year {
                1977 => ymd(6, 6),
                2002 | 2012 => ymd(6, 4),
                2022 => ymd(6, 2),
                _ => nth(5, -1, Monday),
            },
            HolidayId::SummerBank => nth(8, -1, Monday),
            HolidayId::BoxingDay => ymd(12, 26),
            HolidayId::ChristmasEve => ymd(12, 24),
            HolidayId::NewYearsEve => ymd(12, 31),
            HolidayId::ValentinesDay => ymd(2, 14),
            HolidayId::StPatricksDay => ymd(3, 17),
            HolidayId::MothersDay => nth(5, 2, Sunday),
            HolidayId::MotheringSunday => easter(-21),
            HolidayId::FathersDay => nth(6, 3, Sunday),
            HolidayId::Halloween => ymd(10, 31),
            HolidayId::BonfireNight => ymd(11, 5),
            HolidayId::BlackFriday => crate::calendar::add_days(nth(11, 4, Thursday)?, 1),
            HolidayId::ShroveTuesday => easter(-47),
            HolidayId::AshWednesday => easter(-46),
            HolidayId::PalmSunday => easter(-7),
            HolidayId::MaundyThursday => easter(-3),
            HolidayId::RemembranceSunday => nth(11, 2, Sunday),
        }
    }
}

/// Easter Sunday in the Gregorian calendar.
fn easter_sunday(year: i16) -> Option<Date> {
    let e = computus::gregorian(i32::from(year)).ok()?;
    Date::new(year, i8::try_from(e.month).ok()?, i8::try_from(e.day).ok()?).ok()
}

/// The weekday a public holiday on a weekend is observed on, if it moves.
fn observed(id: HolidayId, date: Date, locale: Locale) -> Option<Date> {
    use HolidayId::*;
    let shift = match (locale, id, date.weekday()) {
        (Locale::Us, NewYearsDay | Juneteenth | IndependenceDay | VeteransDay | ChristmasDay, wd) => match wd
        {
            Weekday::Saturday => -1,
            Weekday::Sunday => 1,
            _ => 0,
        },
        (Locale::Uk, NewYearsDay, Weekday::Saturday) => 2,
        (Locale::Uk, NewYearsDay, Weekday::Sunday) => 1,
        // Christmas and Boxing Day share the two weekdays after the weekend.
        (Locale::Uk, ChristmasDay | BoxingDay, Weekday::Saturday | Weekday::Sunday) => 2,
        _ => 0,
    };
    crate::calendar::add_days(date, shift)
}
