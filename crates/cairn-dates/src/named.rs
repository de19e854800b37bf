//! Holidays and observances by name: "Thanksgiving", "Memorial Day 2025", "last Christmas", "Easter
//! weekend", "Labor Day weekend 2024", "Christmas last year", "Mother's Day", "Halloween". Only the
//! configured locales' holidays resolve; another locale's holiday name is still consumed (so "Good
//! Friday" never reads as "Friday"), resolving to nothing.

use jiff::civil::{Date, Weekday};

use crate::calendar::{self, Days, add_days, day};
use crate::holidays::{HolidayId, public_days};
use crate::lexicon::{Lex, Unit};
use crate::locale::Locale;
use crate::scan::{Hit, Scanner};

impl Scanner<'_> {
    /// The holiday named at `i`, and the token after the name. Names are matched word by word in
    /// any case, with or without possessive apostrophes ("Presidents' Day", "New Years Day").
    /// "Mother's Day" is the US one when the US is configured, else Mothering Sunday. With `context`
    /// (the end of a range), a bare "New Year" is New Year's Day.
    fn holiday_name(&self, i: usize, context: bool) -> Option<(HolidayId, usize)> {
        use HolidayId as H;
        let day = |k: usize| self.is(k, Lex::Unit { unit: Unit::Day, plural: false });
        let bank_holiday = |k: usize| self.is(k, Lex::Bank) && self.is(k + 1, Lex::Holiday);
        let then_day = |id: H, k: usize| day(k).then_some((id, k + 1));
        // "Jr", "Jr." and a comma before it are optional in Martin Luther King Jr. Day.
        let junior = |k: usize| {
            let k = self.skip(k, b',');
            if self.is(k, Lex::Jr) { self.skip(k + 1, b'.') } else { k }
        };
        match self.lex(i) {
            Lex::New if matches!(self.lex(i + 1), Lex::Unit { unit: Unit::Year, .. }) => {
                if day(i + 2) {
                    Some((H::NewYearsDay, i + 3))
                } else if self.is(i + 2, Lex::Eve) {
                    Some((H::NewYearsEve, i + 3))
                } else {
                    // "over New Year", "at New Year"; not "new year resolutions".
                    let led_in = self.after_one_of(i, &[Lex::Over, Lex::At, Lex::During]);
                    (context || led_in || self.possessive(i + 1)).then_some((H::NewYearsDay, i + 2))
                }
            }
            Lex::Martin if self.is(i + 1, Lex::Luther) && self.is(i + 2, Lex::King) => {
                then_day(H::MlkDay, junior(i + 3))
            }
            Lex::Mlk => then_day(H::MlkDay, junior(i + 1)),
            Lex::Presidents => then_day(H::WashingtonsBirthday, i + 1),
            Lex::Washington if self.is(i + 1, Lex::Birthday) => Some((H::WashingtonsBirthday, i + 2)),
            Lex::Memorial => then_day(H::MemorialDay, i + 1),
            Lex::Juneteenth => Some((H::Juneteenth, i + 1 + usize::from(day(i + 1)))),
            Lex::Independence => then_day(H::IndependenceDay, i + 1),
            Lex::Labor => then_day(H::LaborDay, i + 1),
            Lex::Columbus => then_day(H::ColumbusDay, i + 1),
            Lex::Indigenous if self.is(i + 1, Lex::Peoples) => then_day(H::ColumbusDay, i + 2),
            Lex::Veterans => then_day(H::VeteransDay, i + 1),
            Lex::Thanksgiving => Some((H::Thanksgiving, i + 1 + usize::from(day(i + 1)))),
            Lex::Christmas if self.is(i + 1, Lex::Eve) => Some((H::ChristmasEve, i + 2)),
            Lex::Christmas => Some((H::ChristmasDay, i + 1 + usize::from(day(i + 1)))),
            Lex::Good if self.is(i + 1, Lex::Weekday { day: Weekday::Friday, full: true }) => {
                Some((H::GoodFriday, i + 2))
            }
            Lex::Black if self.is(i + 1, Lex::Weekday { day: Weekday::Friday, full: true }) => {
                Some((H::BlackFriday, i + 2))
            }
            Lex::Easter => match self.lex(i + 1) {
                Lex::Weekday { day: Weekday::Monday, full: true } => Some((H::EasterMonday, i + 2)),
                Lex::Weekday { day: Weekday::Sunday, full: true } => Some((H::EasterSunday, i + 2)),
                _ if day(i + 1) => Some((H::EasterSunday, i + 2)),
                // Lower-case "easter" alone is more often an easter egg than the day.
                _ if self.capital(i) || self.is(i + 1, Lex::Weekend) || self.year_at(i + 1).is_some() => {
                    Some((H::EasterSunday, i + 1))
                }
                _ => None,
            },
            Lex::Early if self.is(i + 1, Lex::Month { month: 5, full: true }) && bank_holiday(i + 2) => {
                Some((H::EarlyMay, i + 4))
            }
            Lex::Month { month: 5, full: true } if bank_holiday(i + 1) => Some((H::EarlyMay, i + 3)),
            // "the first May bank holiday", "the second (or last) May bank holiday".
            lex @ (Lex::Ordinal(1 | 2) | Lex::Last | Lex::Final)
                if self.is(i + 1, Lex::Month { month: 5, full: true }) && bank_holiday(i + 2) =>
            {
                Some((if lex == Lex::Ordinal(1) { H::EarlyMay } else { H::SpringBank }, i + 4))
            }
            // "Whitsun", "the Whitsun bank holiday", "Whit Monday": the spring bank holiday that
            // replaced it.
            Lex::Whitsun => Some((H::SpringBank, i + 1 + 2 * usize::from(bank_holiday(i + 1)))),
            Lex::Whit if self.is(i + 1, Lex::Weekday { day: Weekday::Monday, full: true }) => {
                Some((H::SpringBank, i + 2))
            }
            Lex::Month { month: 5, full: true } if day(i + 1) => {
                Some((H::EarlyMay, i + 2 + 2 * usize::from(bank_holiday(i + 2))))
            }
            Lex::Season(3) if bank_holiday(i + 1) => Some((H::SpringBank, i + 3)),
            Lex::Late if self.is(i + 1, Lex::Season(6)) && bank_holiday(i + 2) => {
                Some((H::SummerBank, i + 4))
            }
            Lex::Season(6) | Lex::Month { month: 8, full: true } if bank_holiday(i + 1) => {
                Some((H::SummerBank, i + 3))
            }
            Lex::Boxing => then_day(H::BoxingDay, i + 1),
            Lex::Saint => {
                // "St", "St." or "Saint".
                let k = self.skip(i + 1, b'.');
                match self.lex(k) {
                    Lex::Valentine => then_day(H::ValentinesDay, k + 1),
                    Lex::Patrick => then_day(H::StPatricksDay, k + 1),
                    _ => None,
                }
            }
            Lex::Valentine => then_day(H::ValentinesDay, i + 1),
            Lex::Halloween => Some((H::Halloween, i + 1)),
            // "my mother's day off" is not Mother's Day.
            Lex::Mother | Lex::Father if self.after_one_of(i, &[Lex::Possessor]) => None,
            Lex::Mother if self.locales.has(Locale::Us) || !self.locales.has(Locale::Uk) => {
                then_day(H::MothersDay, i + 1)
            }
            Lex::Mother => then_day(H::MotheringSunday, i + 1),
            Lex::Mothering if self.is(i + 1, Lex::Weekday { day: Weekday::Sunday, full: true }) => {
                Some((H::MotheringSunday, i + 2))
            }
            Lex::Father => then_day(H::FathersDay, i + 1),
            Lex::Bonfire if self.is(i + 1, Lex::Night) => Some((H::BonfireNight, i + 2)),
            Lex::Shrove if self.is(i + 1, Lex::Weekday { day: Weekday::Tuesday, full: true }) => {
                Some((H::ShroveTuesday, i + 2))
            }
            Lex::Pancake => then_day(H::ShroveTuesday, i + 1),
            Lex::Ash if self.is(i + 1, Lex::Weekday { day: Weekday::Wednesday, full: true }) => {
                Some((H::AshWednesday, i + 2))
            }
            Lex::Palm if self.is(i + 1, Lex::Weekday { day: Weekday::Sunday, full: true }) => {
                Some((H::PalmSunday, i + 2))
            }
            Lex::Maundy if self.is(i + 1, Lex::Weekday { day: Weekday::Thursday, full: true }) => {
                Some((H::MaundyThursday, i + 2))
            }
            Lex::Remembrance if self.is(i + 1, Lex::Weekday { day: Weekday::Sunday, full: true }) => {
                Some((H::RemembranceSunday, i + 2))
            }
            Lex::Guy if self.is(i + 1, Lex::Fawkes) && (self.is(i + 2, Lex::Night) || day(i + 2)) => {
                Some((H::BonfireNight, i + 3))
            }
            _ => None,
        }
    }

    /// A holiday name in a locale that is configured.
    fn in_locales(&self, id: HolidayId) -> bool {
        Locale::ALL.into_iter().any(|l| self.locales.has(l) && id.in_locale(l))
    }

    /// `[last|this|next] <holiday> [[,] <year> | last/this/next year]`: the holiday's day, and the
    /// token after it. Without a year or "last"/"this"/"next", the latest occurrence on or before the
    /// reference day. The date is `None` for a holiday of a locale that is not configured; the flag
    /// tells whether a year was given.
    pub(crate) fn holiday_day(&self, i: usize) -> Option<(usize, HolidayId, Option<Date>, bool)> {
        self.holiday_at(i, false)
    }

    /// [`Scanner::holiday_day`], with "New Year" alone read as New Year's Day when `context` says
    /// a date is expected.
    fn holiday_at(&self, i: usize, context: bool) -> Option<(usize, HolidayId, Option<Date>, bool)> {
        let dir = match self.lex(i) {
            Lex::Last => Some(-1),
            Lex::This => Some(0),
            Lex::Next => Some(1),
            _ => None,
        };
        let (id, k) = self.holiday_name(i + usize::from(dir.is_some()), context)?;
        if !self.in_locales(id) {
            return Some((k, id, None, false));
        }
        let y = self.skip(k, b',');
        if let Some(year) = self.year_at(y) {
            return Some((y + 1, id, id.date(year), true));
        }
        if dir.is_none()
            && let Some((year, end)) = self.relative_year(k)
        {
            return Some((end, id, id.date(year), true));
        }
        let of_year = |y: i16| id.date(y).map(day);
        let r = self.reference;
        let date = match dir {
            None => self.yearly(of_year),
            Some(-1) => calendar::latest_before(r, of_year),
            Some(0) => of_year(r.year()),
            Some(_) => calendar::earliest_after(r, of_year),
        };
        Some((k, id, date.map(|d| d.0), false))
    }

    /// A holiday named where a date is expected (the end of a range): as [`Scanner::holiday`] for a
    /// single day, and "New Year" alone is New Year's Day ("between Christmas and New Year").
    pub(crate) fn holiday_in_context(&self, i: usize) -> Option<Hit> {
        let (end, _, date, _) = self.holiday_at(i, true)?;
        Some(Hit { end, days: date.map(day), anchor: None })
    }

    /// A holiday, its weekend, its week or the days off around it: "Thanksgiving", "Christmas 2024",
    /// "Easter weekend", "Memorial Day weekend 2025", "Christmas week", "the Christmas holidays",
    /// "the Easter break"; or a public holiday named by kind: "the bank holiday", "the long weekend".
    pub(crate) fn holiday(&self, i: usize) -> Option<Hit> {
        if let Some(hit) = self.days_off(i) {
            return Some(hit);
        }
        let (end, id, date, has_year) = self.holiday_day(i)?;
        let Some(date) = date else { return Some(Hit { end, days: None, anchor: None }) };
        match self.lex(end) {
            Lex::Unit { unit: Unit::Week, plural: false } => {
                return Some(Hit::new(end + 1, calendar::week_of(date)?));
            }
            Lex::Holidays => return Some(Hit::new(end + 1, self.break_around(id, date)?)),
            Lex::Weekend => {}
            _ => return Some(Hit::new(end, day(date))),
        }
        // "Easter weekend 2025": the year may follow "weekend".
        let with_year = if has_year { None } else { self.year_at(end + 1).and_then(|year| id.date(year)) };
        let (date, end) = match with_year {
            Some(d) => (d, end + 2),
            None => (date, end + 1),
        };
        Some(Hit::new(end, self.holiday_weekend(id, date)?))
    }

    /// The days off around a holiday ("the Christmas holidays", "the Easter break"): Christmas Eve to
    /// New Year's Day for Christmas, the Easter weekend for Easter, the holiday's weekend otherwise.
    fn break_around(&self, id: HolidayId, date: Date) -> Option<Days> {
        match id {
            HolidayId::ChristmasEve | HolidayId::ChristmasDay | HolidayId::BoxingDay => {
                christmas_break(date.year())
            }
            _ => self.holiday_weekend(id, date),
        }
    }

    /// A holiday named by kind, the latest on or before the reference day (the next one in a prompt
    /// about the future, or after "next"): "the bank holiday" (its observed day, England and Wales
    /// only), "the bank holiday weekend", "the long weekend" and "the holiday weekend" (the weekend of
    /// a public holiday observed on a Monday, Thursday or Friday), and "the holidays" after "over",
    /// "during" or "at" (Christmas Eve to New Year's Day).
    fn days_off(&self, i: usize) -> Option<Hit> {
        let the = self.is(i, Lex::The);
        let j = i + usize::from(the);
        if the && self.is(j, Lex::Holidays) && self.after_one_of(i, &[Lex::Over, Lex::During, Lex::At]) {
            return Some(Hit::new(j + 1, self.yearly(christmas_break)?));
        }
        let dir = self.direction(j).filter(|d| *d != 0);
        let k = j + usize::from(dir.is_some());
        let (bank, weekend_at) = match self.lex(k) {
            Lex::Bank if self.is(k + 1, Lex::Holiday) => (true, k + 2),
            Lex::Long if self.is(k + 1, Lex::Weekend) => (false, k + 1),
            Lex::Holiday if self.is(k + 1, Lex::Weekend) => (false, k + 1),
            _ => return None,
        };
        // "a bank holiday", "bank holiday Monday": only "the …" (or "last/next …") names one.
        if !the && dir.is_none() {
            return None;
        }
        let weekend = self.is(weekend_at, Lex::Weekend);
        let end = weekend_at + usize::from(weekend);
        let locales: Vec<Locale> =
            Locale::ALL.into_iter().filter(|l| self.locales.has(*l) && (!bank || *l == Locale::Uk)).collect();
        if locales.is_empty() {
            return Some(Hit { end, days: None, anchor: None });
        }
        let r = self.reference;
        let long = |d: Date| matches!(d.weekday(), Weekday::Monday | Weekday::Thursday | Weekday::Friday);
        let candidates = (r.year().checked_sub(1)?..=r.year().checked_add(1)?)
            .flat_map(|y| locales.iter().flat_map(move |l| public_days(y, *l)))
            .filter(|(_, observed)| bank || long(*observed));
        let ahead = dir.map_or(self.ahead, |d| d > 0);
        let (id, observed) = if ahead {
            candidates.filter(|(_, d)| *d >= r).min_by_key(|(_, d)| *d)?
        } else {
            candidates.filter(|(_, d)| *d <= r).max_by_key(|(_, d)| *d)?
        };
        let days = if weekend { self.holiday_weekend(id, observed)? } else { day(observed) };
        Some(Hit::new(end, days))
    }

    /// The weekend of a holiday: Good Friday to Easter Monday for the Easter days; otherwise the
    /// weekend nearest the day, stretched to take in the day and, in a configured locale, the weekday
    /// it is observed on.
    pub(crate) fn holiday_weekend(&self, id: HolidayId, date: Date) -> Option<Days> {
        if id.is_easter() {
            let sunday = HolidayId::EasterSunday.date(date.year())?;
            return Some((add_days(sunday, -2)?, add_days(sunday, 1)?));
        }
        let (mut first, mut last) = calendar::weekend_around(date)?;
        for locale in Locale::ALL.into_iter().filter(|l| self.locales.has(*l) && id.in_locale(*l)) {
            let observed = id.observed(date, locale);
            first = first.min(observed);
            last = last.max(observed);
        }
        Some((first, last))
    }
}

/// The Christmas holidays of `year`: Christmas Eve to New Year's Day.
fn christmas_break(year: i16) -> Option<Days> {
    let eve = Date::new(year, 12, 24).ok()?;
    Some((eve, add_days(eve, 8)?))
}
