//! [`RemoteSource`]: one configured service as a [`cairn_core::Source`]. It decides without the
//! network whether a request calls the service (health, partition, the query itself), runs the call
//! under the source's time limit, records it in the source's [`Health`], and turns what the service
//! answered into hits with provenance `remote:<name>:<what>:<id>`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cairn_core::{
    Admission, Audience, CapturedTurn, Hit, ItemKind, Millis, Provenance, Scope, Source, SourceQuery,
    SourceStatus, UNDATED, content_hash,
};

use crate::Result;
use crate::graphiti::Graphiti;
use crate::health::Health;
use crate::http::{CallError, Http};
use crate::lightrag::Lightrag;
use crate::mem0::Mem0;
use crate::settings::{GraphitiApi, Kind, SourceConfig, SourceSettings};

/// Calls one source may have running at once; more are refused (the service is not keeping up,
/// and each waiting call holds a thread until its time limit).
const MAX_IN_FLIGHT: usize = 32;

/// The prompt sent to a service is cut to this many bytes (at a word boundary).
const MAX_QUERY_BYTES: usize = 2048;

/// What one kind of service does: the per-kind half of a [`RemoteSource`].
pub(crate) trait Service: Send + Sync {
    /// Why `q` is not for this service (`None`: call it).
    fn admit(&self, q: &SourceQuery<'_>) -> Option<String>;
    /// Up to `k` hits for `q` within `timeout`.
    fn search(&self, q: &SourceQuery<'_>, k: usize, timeout: Duration) -> Result<Vec<Hit>, CallError>;
    /// The health check within `timeout`.
    fn probe(&self, timeout: Duration) -> Result<(), CallError>;
    /// Writes one captured turn to the service within `timeout` (write-through); `Err` with why when
    /// the service cannot take turns.
    fn forward(&self, turn: &CapturedTurn, timeout: Duration) -> Result<(), String>;
}

/// What a service's partition is for a scope.
pub(crate) fn partition_for<'a>(settings: &'a SourceSettings, scope: &Scope) -> Option<&'a str> {
    match &scope.project {
        Some(p) => settings.projects.get(p).or(settings.partition.as_ref()).map(String::as_str),
        None => settings.partition.as_deref(),
    }
}

/// Builds the hits of one source: id and provenance `remote:<source>:<what>:<id>`, the audience and
/// project of the request.
pub(crate) struct HitMaker<'a> {
    pub(crate) source: &'a str,
    pub(crate) audience: Audience,
    pub(crate) scope: &'a Scope,
}

impl HitMaker<'_> {
    pub(crate) fn hit(&self, what: &str, id: &str, title: String, text: String, created_at: Millis) -> Hit {
        let id = format!("remote:{}:{what}:{id}", self.source);
        Hit {
            chunk_id: id.clone(),
            item_id: id.clone(),
            project: self.scope.project.clone().unwrap_or_else(|| cairn_core::DEFAULT_PROJECT.to_owned()),
            kind: ItemKind::Fact,
            content_hash: content_hash(text.as_bytes()),
            title,
            text,
            tags: Vec::new(),
            audience: self.audience,
            provenance: Provenance::External { source: id },
            created_at,
            score: 0.0,
            parts: Default::default(),
            why: Default::default(),
        }
    }
}

/// A timestamp of an API (RFC 3339, or an ISO date-time without offset, read as UTC) in ms.
pub(crate) fn parse_time(s: &str) -> Option<Millis> {
    let s = s.trim();
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Some(t.as_millisecond());
    }
    let civil = s.parse::<jiff::civil::DateTime>().ok()?;
    civil.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond())
}

/// The day of `ms` (UTC), `2026-03-18`.
pub(crate) fn day(ms: Millis) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_default()
}

/// A dated hit's `created_at`: the date, or [`UNDATED`].
pub(crate) fn dated(s: Option<&str>) -> Millis {
    s.and_then(parse_time).unwrap_or(UNDATED)
}

/// One configured service, its health and statistics.
pub struct RemoteSource {
    name: String,
    settings: SourceSettings,
    service: Box<dyn Service>,
    health: Health,
    /// Why it can never be called as configured (its secret's variable is not set).
    unusable: Option<String>,
    in_flight: AtomicUsize,
}

impl std::fmt::Debug for RemoteSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSource")
            .field("name", &self.name)
            .field("kind", &self.settings.kind)
            .field("endpoint", &self.settings.endpoint)
            .finish_non_exhaustive()
    }
}

impl RemoteSource {
    /// Opens the source `config` describes (no network: its health is unknown until probed).
    pub fn open(config: &SourceConfig) -> Result<RemoteSource> {
        let s = &config.settings;
        s.validate(&config.name)?;
        let (secret, unusable) = match &config.secret {
            None => (None, None),
            Some(Ok(secret)) => (Some(secret.clone()), None),
            Some(Err(var)) => (None, Some(format!("its secret is not set (environment variable `{var}`)"))),
        };
        let http = match (&s.login_user, secret) {
            (Some(user), Some(password)) => Http::with_login(&s.endpoint, user, password),
            (_, secret) => Http::new(&s.endpoint, s.auth_header(), secret),
        };
        let authed = config.secret.is_some();
        let service: Box<dyn Service> = match s.kind {
            Kind::Graphiti if s.api == GraphitiApi::Mcp => {
                Box::new(Graphiti::mcp(&config.name, s.clone(), http))
            }
            Kind::Graphiti => Box::new(Graphiti::new(&config.name, s.clone(), http)),
            Kind::Lightrag => Box::new(Lightrag::new(&config.name, s.clone(), http)),
            Kind::Mem0 => Box::new(Mem0::new(&config.name, s.clone(), http, authed)),
        };
        let health = Health::new(&config.name, s.down_after);
        if let Some(why) = &unusable {
            health.probed(Err(why.clone()));
        }
        Ok(RemoteSource {
            name: config.name.clone(),
            settings: s.clone(),
            service,
            health,
            unusable,
            in_flight: AtomicUsize::new(0),
        })
    }

    /// The settings it was opened with.
    pub fn settings(&self) -> &SourceSettings {
        &self.settings
    }

    /// The endpoint as shown (never with credentials: those are refused in it).
    fn endpoint(&self) -> String {
        self.settings.endpoint.trim_end_matches('/').to_owned()
    }
}

/// Counts a call in flight for as long as it lives.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Source for RemoteSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn audience(&self) -> Audience {
        self.settings.audience
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.settings.timeout_ms)
    }

    fn admit(&self, q: &SourceQuery<'_>) -> Admission {
        if let Some(why) = &self.unusable {
            return Admission::Down(format!("down: {why}"));
        }
        if let Some(why) = self.health.down() {
            return Admission::Down(why);
        }
        if let Some(why) = self.service.admit(q) {
            return Admission::Skip(why);
        }
        if self.in_flight.load(Ordering::Relaxed) >= MAX_IN_FLIGHT {
            return Admission::Down(format!("{MAX_IN_FLIGHT} calls already waiting for it"));
        }
        Admission::Call
    }

    fn recall(&self, q: &SourceQuery<'_>) -> Result<Vec<Hit>, String> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        let _guard = InFlight(&self.in_flight);
        let text = cairn_core::prefix_words(q.text, MAX_QUERY_BYTES);
        let q = SourceQuery { text, ..*q };
        let k = q.k.min(self.settings.max_results).max(1);
        let started = Instant::now();
        let result = self.service.search(&q, k, self.timeout());
        self.health.record_call(started.elapsed(), result.as_ref().err());
        result.map_err(|e| e.to_string())
    }

    fn status(&self) -> SourceStatus {
        let mut status = SourceStatus {
            name: self.name.clone(),
            kind: self.settings.kind.as_str().to_owned(),
            endpoint: self.endpoint(),
            audience: self.settings.audience,
            timeout_ms: self.settings.timeout_ms,
            health_interval_ms: self.settings.health_interval_ms,
            ..SourceStatus::default()
        };
        self.health.fill(&mut status);
        status
    }

    fn writes_through(&self) -> bool {
        self.settings.write_through
    }

    fn forward(&self, turn: &CapturedTurn) -> Result<(), String> {
        if let Some(why) = &self.unusable {
            return Err(why.clone());
        }
        if self.settings.audience == Audience::Public && turn.audience == Audience::Private {
            return Err("a private turn is never written to a public source".to_owned());
        }
        // Off the turn's path: a write may take longer than a search.
        let timeout = (self.timeout() * 10).clamp(Duration::from_secs(2), Duration::from_secs(10));
        self.service.forward(turn, timeout)
    }

    fn probe(&self) -> SourceStatus {
        let result = match &self.unusable {
            Some(why) => Err(why.clone()),
            None => self.service.probe(self.timeout()).map_err(|e| e.to_string()),
        };
        self.health.probed(result);
        self.status()
    }
}

/// Opens every enabled source of `configs`; a source that cannot be opened is left out and named
/// in the returned problems (the others still open).
pub fn open_sources(configs: &[SourceConfig]) -> (Vec<RemoteSource>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for c in configs.iter().filter(|c| c.settings.enabled) {
        match RemoteSource::open(c) {
            Ok(s) => out.push(s),
            Err(e) => problems.push(e.to_string()),
        }
    }
    (out, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_with_or_without_an_offset() {
        assert_eq!(parse_time("2026-03-18T10:00:00Z"), Some(1_773_828_000_000));
        assert_eq!(parse_time("2026-03-18T10:00:00+00:00"), Some(1_773_828_000_000));
        assert_eq!(parse_time("2026-03-18T10:00:00.000000"), Some(1_773_828_000_000));
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(day(1_773_828_000_000), "2026-03-18");
    }

    #[test]
    fn partitions_follow_the_project_map() {
        let mut s = SourceSettings::new(Kind::Graphiti, "http://x");
        let scope = |p: Option<&str>| Scope::owner(p.map(str::to_owned));
        assert_eq!(partition_for(&s, &scope(Some("work"))), None);
        s.partition = Some("all".into());
        s.projects.insert("work".into(), "work-group".into());
        assert_eq!(partition_for(&s, &scope(Some("work"))), Some("work-group"));
        assert_eq!(partition_for(&s, &scope(Some("home"))), Some("all"));
        assert_eq!(partition_for(&s, &scope(None)), Some("all"));
    }
}
