//! Which country's conventions apply: its public holidays, and how a numeric `dd/mm/yyyy` reads.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A country's date conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    /// United States: federal holidays; `03/12/2026` is March 12.
    Us,
    /// United Kingdom (England and Wales bank holidays); `12/03/2026` is March 12.
    Uk,
}

impl Locale {
    /// Every locale.
    pub const ALL: [Locale; 2] = [Locale::Us, Locale::Uk];

    pub(crate) fn bit(self) -> u8 {
        match self {
            Locale::Us => 1,
            Locale::Uk => 2,
        }
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Locale::Us => "us",
            Locale::Uk => "uk",
        })
    }
}

impl FromStr for Locale {
    type Err = String;
    /// `us` or `uk` in any case; `gb`, `en-us`, `en-gb` (or with `_`) are accepted too.
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "us" | "en-us" => Ok(Locale::Us),
            "uk" | "gb" | "en-gb" => Ok(Locale::Uk),
            _ => Err(format!("unknown locale `{s}` (expected `us` or `uk`)")),
        }
    }
}

/// A set of locales, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Locales(pub(crate) u8);

impl Locales {
    pub(crate) fn of(locales: &[Locale]) -> Locales {
        Locales(locales.iter().fold(0, |bits, l| bits | l.bit()))
    }

    pub(crate) fn has(self, locale: Locale) -> bool {
        self.0 & locale.bit() != 0
    }

    /// The one locale in the set, if there is exactly one.
    pub(crate) fn only(self) -> Option<Locale> {
        let mut found = Locale::ALL.into_iter().filter(|l| self.has(*l));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }
}
