//! The date lane: date expressions of the query ("mid-March", "last week", "on Memorial Day")
//! resolved to ranges of days against the query's reference day ([`cairn_dates::resolve`]), and the
//! chunks in scope dated within them. Every candidate, whichever lane found it, gets its fit
//! ([`QueryDates::fit`]): 1 within a range, falling to 0 a range's half-length (at least a day)
//! beyond it, [`ANCHOR_FIT`] on the day a range counts from ("October 25" in "the Sunday before
//! October 25": what was written that day may tell of it), nothing when it is undated. A chunk that
//! names a day with its year in its text ("Flu jab done, 7 October 2024": `mentions.rs`) fits as that
//! day would, times [`MENTION_FIT`], so the dated items of a range come first and the notes that tell
//! of a day in it come with them.

use std::ops::Range;
use std::time::Instant;

use cairn_core::{LaneStatus, Millis, UNDATED};
use cairn_dates::{DateRange, Locale};
use tantivy::{DocAddress, Searcher};

use super::lexical::Scoring;
use super::{Found, SegmentScope};
use crate::error::{Error, Result};
use crate::index::{F_CREATED_AT, F_MENTIONS, F_ORDER_KEY, StoredHit};
use crate::mentions::names_year;
use crate::recall::topn::Scored;
use crate::recall::{RecallQuery, Recaller, lane};

const MS_PER_DAY: i64 = 86_400_000;

/// The fit of an item dated on the day a range counts from.
const ANCHOR_FIT: f32 = 0.5;

/// What a day a chunk names counts for, beside the chunk's own date: the note that tells of a day
/// comes after the items dated on it.
pub(in crate::recall) const MENTION_FIT: f32 = 0.5;

/// A date range of the query, in days since the epoch (inclusive), with the words that named it.
#[derive(Debug, Clone)]
pub(in crate::recall) struct QueryDate {
    first: i64,
    last: i64,
    /// The day the range counts from, if it names a day before or after another.
    anchor: Option<i64>,
    phrase: String,
    range: DateRange,
    /// What a day within the range scores (1, or less for a phrase of small talk).
    weight: f32,
}

impl QueryDate {
    fn of(r: DateRange) -> Option<Self> {
        let (first, last) = (day_number(r.start)?, day_number(r.end)?);
        let anchor = r.anchor.and_then(day_number);
        let present = PRESENT.iter().any(|p| r.phrase.eq_ignore_ascii_case(p));
        let weight = if present { 0.4 } else { 1.0 };
        Some(QueryDate { first, last, anchor, phrase: r.phrase.clone(), range: r, weight })
    }
}

/// Phrases about the present moment: "how are you today?" is small talk more often than a question
/// about memory, so a day they name ranks first but is not relevant on its own (its fit is below the
/// default relevance floor).
const PRESENT: [&str; 5] = ["today", "tonight", "this morning", "this afternoon", "this evening"];

/// The date ranges of one query (empty: the lane has nothing to do).
#[derive(Debug, Clone, Default)]
pub(in crate::recall) struct QueryDates(Vec<QueryDate>);

impl QueryDates {
    /// The date expressions of `text` against the day of `now` (in the system's time zone: "yesterday"
    /// is the user's yesterday), with the holidays of `locales`. Items' days are the civil dates they
    /// say (stored as midnight UTC).
    pub(in crate::recall) fn of(text: &str, now: Millis, locales: &[Locale]) -> Self {
        let Some(reference) = reference_day(now) else { return QueryDates::default() };
        let ranges = cairn_dates::resolve(text, reference, locales);
        QueryDates(ranges.into_iter().filter_map(QueryDate::of).collect())
    }

    /// The date expressions of `text`, `original` with the words at `old` (bytes) written as the
    /// words at `new` of `text` ("my birthday" as "May 12"), each phrase and span that of `original`:
    /// a range that takes in any of the new words takes in all of the old ones.
    pub(in crate::recall) fn substituted(
        original: &str,
        text: &str,
        new: Range<usize>,
        old: Range<usize>,
        now: Millis,
        locales: &[Locale],
    ) -> Self {
        let Some(reference) = reference_day(now) else { return QueryDates::default() };
        let back = |at: usize, inside: usize| {
            if at <= new.start {
                at
            } else if at >= new.end {
                at - new.end + old.end
            } else {
                inside
            }
        };
        let ranges = cairn_dates::resolve(text, reference, locales).into_iter().filter_map(|mut r| {
            let span = back(r.span.start, old.start)..back(r.span.end, old.end);
            r.phrase = original.get(span.clone())?.to_owned();
            r.span = span;
            Some(r)
        });
        QueryDates(ranges.filter_map(QueryDate::of).collect())
    }

    pub(in crate::recall) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a range was named by words that overlap `span` (bytes of the query).
    pub(in crate::recall) fn covers(&self, span: &Range<usize>) -> bool {
        self.0.iter().any(|d| d.range.span.start < span.end && span.start < d.range.span.end)
    }

    /// The civil day an item is dated (`None` when undated).
    pub(in crate::recall) fn day_of_item(created: Millis) -> Option<jiff::civil::Date> {
        date_of_day(day_of(created)?)
    }

    /// How well an item dated `created` fits the query's ranges (the best range), with the reason
    /// (`2026-03-12 in 'mid-March'`); `None` when it is undated or fits none.
    pub(in crate::recall) fn fit(&self, created: Millis) -> Option<(f32, String)> {
        if created == UNDATED {
            return None;
        }
        let day = day_of(created)?;
        let mut best: Option<(f32, &QueryDate)> = None;
        for d in &self.0 {
            let fit = if (d.first..=d.last).contains(&day) {
                1.0
            } else {
                let off = if day < d.first { d.first - day } else { day - d.last };
                let reach = ((d.last - d.first + 1) / 2).max(1);
                let near = if off > reach { 0.0 } else { 0.5 * (1.0 - off as f32 / (reach + 1) as f32) };
                if d.anchor == Some(day) { near.max(ANCHOR_FIT) } else { near }
            };
            let fit = fit * d.weight;
            if fit > 0.0 && best.is_none_or(|(b, _)| fit > b) {
                best = Some((fit, d));
            }
        }
        let (fit, d) = best?;
        let date = date_of_day(day).map_or_else(String::new, |x| x.to_string());
        let relation = if (d.first..=d.last).contains(&day) {
            "in"
        } else if d.anchor == Some(day) {
            "anchors"
        } else {
            "near"
        };
        Some((fit, format!("{date} {relation} '{}'", d.phrase)))
    }

    /// How well the days a chunk names (`days`, stored as items' days are) fit the query's ranges:
    /// the best one's fit times [`MENTION_FIT`], with the reason (`names 2024-10-07, in 'this
    /// autumn'`); `None` when none fits.
    pub(in crate::recall) fn fit_named(&self, days: impl Iterator<Item = Millis>) -> Option<(f32, String)> {
        let (fit, why) = days.filter_map(|d| self.fit(d)).max_by(|a, b| a.0.total_cmp(&b.0))?;
        Some((fit * MENTION_FIT, format!("names {why}")))
    }

    /// The better of an item's own fit (dated `created`) and the fit of the days it names.
    pub(in crate::recall) fn best_fit(
        &self,
        created: Millis,
        named: impl Iterator<Item = Millis>,
    ) -> Option<(f32, String)> {
        match (self.fit(created), self.fit_named(named)) {
            (Some(own), Some(told)) => Some(if told.0 > own.0 { told } else { own }),
            (own, told) => own.or(told),
        }
    }

    /// Whether an item dated `created` lies within one of the ranges.
    fn within(&self, created: Millis) -> bool {
        day_of(created).is_some_and(|day| self.0.iter().any(|d| (d.first..=d.last).contains(&day)))
    }

    /// Whether `word` is one of the words that named a range ("summer" in "this summer"), in any case.
    pub(in crate::recall) fn names(&self, word: &str) -> bool {
        self.0.iter().any(|d| {
            d.phrase
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| !w.is_empty() && w.eq_ignore_ascii_case(word))
        })
    }

    /// The ranges as `phrase: first..last` (for the result's report).
    pub(in crate::recall) fn describe(&self) -> Vec<String> {
        self.0.iter().map(|d| format!("{}: {}..{}", d.phrase, d.range.start, d.range.end)).collect()
    }

    /// The first and last moment (milliseconds) any range covers.
    fn bounds(&self) -> (Millis, Millis) {
        let first = self.0.iter().map(|d| d.first).min().unwrap_or(0);
        let last = self.0.iter().map(|d| d.last).max().unwrap_or(0);
        (first * MS_PER_DAY, (last + 1) * MS_PER_DAY - 1)
    }
}

/// Days since the epoch of `ms` (UTC); `None` for [`UNDATED`].
fn day_of(ms: Millis) -> Option<i64> {
    (ms != UNDATED).then(|| ms.div_euclid(MS_PER_DAY))
}

fn day_number(date: jiff::civil::Date) -> Option<i64> {
    let ts = date.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(ts.as_millisecond().div_euclid(MS_PER_DAY))
}

fn date_of_day(day: i64) -> Option<jiff::civil::Date> {
    let ts = jiff::Timestamp::from_millisecond(day.checked_mul(MS_PER_DAY)?).ok()?;
    Some(ts.to_zoned(jiff::tz::TimeZone::UTC).date())
}

/// The configured holiday locales (unknown names are left out; config validation reports them).
pub(in crate::recall) fn locales(names: &[String]) -> Vec<Locale> {
    names.iter().filter_map(|n| n.parse().ok()).collect()
}

/// The query's reference day: the day of `now` in the system's time zone.
pub(in crate::recall) fn reference_day(now: Millis) -> Option<jiff::civil::Date> {
    let ts = jiff::Timestamp::from_millisecond(now).ok()?;
    Some(ts.to_zoned(jiff::tz::TimeZone::system()).date())
}

/// Chunks whose dates may give an event's: the best lexical matches of its name.
const EVENT_POOL: usize = 5;

/// The longest an event may last, in days: a chunk whose dates spread wider tells of more than one.
const EVENT_DAYS: i64 = 45;

/// Ranges that name a day or two ("2026-04-19", "Saturday 25 October"), not a month or a season.
const EVENT_RANGE_DAYS: i64 = 2;

/// When the event a chunk tells of ran, first and last day, and how it knows: [`Told::Span`] from the
/// days the chunk names (those with their year when it writes any; a month or a season named, as in
/// a heading "Lisbon, April 2026", does not count), [`Told::Day`] when it names one, [`Told::Dated`] from the chunk's own day when it names
/// none. `None` when it names days more than [`EVENT_DAYS`] apart, or none and is undated.
fn event_span(
    hit: &cairn_core::Hit,
    reference: jiff::civil::Date,
    locales: &[Locale],
) -> Option<(Told, jiff::civil::Date, jiff::civil::Date)> {
    let short: Vec<DateRange> = cairn_dates::resolve(&hit.text, reference, locales)
        .into_iter()
        .filter(|r| r.start.until(r.end).is_ok_and(|s| i64::from(s.get_days()) < EVENT_RANGE_DAYS))
        .collect();
    // Days with their year say when; "Saturday to Saturday" or "1 November" beside them would be
    // read against the query's day, not the note's.
    let dated: Vec<&DateRange> = short.iter().filter(|r| names_year(&r.phrase)).collect();
    let days: Vec<&DateRange> = if dated.is_empty() { short.iter().collect() } else { dated };
    let (Some(start), Some(end)) = (days.iter().map(|r| r.start).min(), days.iter().map(|r| r.end).max())
    else {
        let day = date_of_day(day_of(hit.created_at)?)?;
        return Some((Told::Dated, day, day));
    };
    let spread = day_number(end)? - day_number(start)?;
    let told = if spread > 0 { Told::Span } else { Told::Day };
    (spread <= EVENT_DAYS).then_some((told, start, end))
}

/// How a chunk tells when an event ran, best first: a note that gives its first and last day ("out on
/// 2026-04-14, back on 2026-04-19") over one that names a single day, over a dated note that only
/// mentions it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Told {
    Span,
    Day,
    Dated,
}

impl Recaller {
    /// The days the query counts from an event it names ("the day after I got back from Lisbon",
    /// [`cairn_dates::event_relative`]), added to `dates`: the event's dates come from the one of
    /// the best lexical matches of its name, in the query's scope, that tells best when it ran
    /// ([`event_span`]).
    pub(in crate::recall) fn event_dates(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        locales: &[Locale],
        dates: &mut QueryDates,
    ) {
        let Some(e) = cairn_dates::event_relative(&q.text) else { return };
        let Some(reference) = reference_day(q.now) else { return };
        let terms = self.query_terms(searcher, &e.event);
        if terms.is_empty() {
            return;
        }
        let Ok((top, _)) = self.lexical(searcher, &terms, &q.scope, EVENT_POOL, false, Scoring::Auto) else {
            return;
        };
        // The best told of the best matches; among equals, the better match.
        let told = top
            .iter()
            .filter_map(|c| searcher.doc::<StoredHit>(c.addr).ok())
            .filter_map(|StoredHit(hit)| event_span(&hit, reference, locales))
            .enumerate()
            .min_by_key(|(rank, (told, ..))| (*told, *rank));
        let Some((_, (_, start, end))) = told else { return };
        if let Some((first, last, base)) = e.days(start, end) {
            let range = DateRange {
                start: first,
                end: last,
                phrase: e.phrase.clone(),
                span: e.span.clone(),
                anchor: Some(base),
            };
            dates.0.extend(QueryDate::of(range));
        }
    }

    /// The date lane of one recall: its report, and up to `pool` chunks in scope dated within the
    /// query's ranges as candidates (in chunk-id key order). The fit of every candidate, whichever
    /// lane found it, comes in [`Recaller::annotate`].
    pub(in crate::recall) fn date_step(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        dates: &QueryDates,
        found: &mut Found,
        pool: usize,
    ) {
        let started = Instant::now();
        if !self.settings.lane_on(lane::DATE) || dates.is_empty() {
            found.skipped(lane::DATE, started);
            return;
        }
        match self.dated(searcher, q, dates, pool) {
            Ok(top) => {
                found.ran(lane::DATE, LaneStatus::Ok, top.len(), started);
                found.enter(top.iter().map(|c| (c.addr, c.score)), |c| &mut c.date);
            }
            Err(e) => found.failed(lane::DATE, started, e),
        }
    }

    /// The first `n` chunks in scope (by chunk-id key) dated within `dates`, or naming a day within
    /// them.
    fn dated(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        dates: &QueryDates,
        n: usize,
    ) -> Result<Vec<Scored>> {
        let (from, to) = dates.bounds();
        let mut out: Vec<Scored> = Vec::new();
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let seg = SegmentScope::new(reader, &q.scope)?;
            if seg.excludes_all() {
                continue;
            }
            let ff = reader.fast_fields();
            let created = ff.i64(F_CREATED_AT).map_err(Error::engine("read fast field"))?;
            let named = ff.i64(F_MENTIONS).map_err(Error::engine("read fast field"))?;
            let dated_in = created.max_value() >= from && created.min_value() <= to;
            let named_in = named.num_docs() > 0 && named.max_value() >= from && named.min_value() <= to;
            if !dated_in && !named_in {
                continue;
            }
            let order = ff.u64(F_ORDER_KEY).map_err(Error::engine("read fast field"))?;
            for doc in reader.doc_ids_alive() {
                let own = created
                    .first(doc)
                    .filter(|&at| dated_in && at >= from && at <= to && dates.within(at))
                    .and_then(|at| dates.fit(at));
                let told = if named_in {
                    dates.fit_named(named.values_for_doc(doc).filter(|&d| dates.within(d)))
                } else {
                    None
                };
                let fit = own.into_iter().chain(told).map(|(f, _)| f).fold(0.0, f32::max);
                if fit <= 0.0 || !seg.admits(doc) {
                    continue;
                }
                let key = order.first(doc).unwrap_or(0);
                out.push(Scored { score: fit, key, addr: DocAddress::new(ord as u32, doc) });
            }
        }
        out.sort_unstable();
        out.truncate(n);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(y: i16, m: i8, d: i8) -> Millis {
        day_number(jiff::civil::date(y, m, d)).unwrap() * MS_PER_DAY
    }

    #[test]
    fn the_day_a_range_counts_from_fits_at_half() {
        let now = ms(2026, 6, 30) + 12 * 3_600_000;
        let q = QueryDates::of("what did we do on the Sunday before October 25, 2022?", now, &[Locale::Us]);
        let (fit, why) = q.fit(ms(2022, 10, 23)).unwrap();
        assert_eq!(fit, 1.0, "{why}");
        let (fit, why) = q.fit(ms(2022, 10, 25)).unwrap();
        assert_eq!(
            (fit, why.as_str()),
            (ANCHOR_FIT, "2022-10-25 anchors 'the Sunday before October 25, 2022'")
        );
        // The days between fit only as near the range.
        assert!(q.fit(ms(2022, 10, 24)).unwrap().0 < ANCHOR_FIT);
        assert!(q.fit(ms(2022, 10, 27)).is_none());
        // A range without an anchor: nothing on a day two away.
        let plain = QueryDates::of("what happened on October 23, 2022?", now, &[Locale::Us]);
        assert!(plain.fit(ms(2022, 10, 25)).is_none());
    }
}
