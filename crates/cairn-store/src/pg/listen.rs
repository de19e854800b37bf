//! Waking the hosts that follow the shared log.
//!
//! A transaction that appends to the ingest log also sends `NOTIFY cairn_log, '<seq>'` ([`notify`]),
//! with the last number it wrote. PostgreSQL delivers it when the transaction commits, and not at all
//! when it rolls back, so a host is never woken for entries it cannot read yet. A [`PgListener`] holds
//! one connection of its own that `LISTEN`s on [`CHANNEL`]; a daemon waits on it and catches up as
//! soon as another host (or a one-shot command) commits, instead of at its next poll.
//!
//! Notifications are a hint, never the log: one lost with a connection is made up by the next poll of
//! the log itself. The channel is per database, so stores in two schemas of one database wake each
//! other's hosts now and then, which costs them one cheap look at the log.

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Transaction};

use crate::{Error, Result};

/// The channel on which commits to the ingest log are announced; the payload is the last sequence
/// number the transaction wrote (or `session` for a write of session state).
pub const CHANNEL: &str = "cairn_log";

/// The `application_name` of a listening connection (how it shows in `pg_stat_activity`).
pub const LISTENER_NAME: &str = "cairn-listen";

/// Announces, when `tx` commits, that the log now reaches `seq`.
pub(crate) fn notify(tx: &mut Transaction<'_>, seq: u64) -> Result<()> {
    notify_text(tx, &seq.to_string())
}

/// Sends `payload` on [`CHANNEL`] when `tx` commits.
pub(crate) fn notify_text(tx: &mut Transaction<'_>, payload: &str) -> Result<()> {
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])?;
    Ok(())
}

/// One connection listening on [`CHANNEL`].
pub struct PgListener {
    client: Client,
    label: String,
}

impl std::fmt::Debug for PgListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgListener").field("label", &self.label).finish_non_exhaustive()
    }
}

/// What [`PgListener::wait`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard {
    /// One or more commits; the highest sequence number announced (0 when no payload was a number).
    Commit(u64),
    /// Nothing within the timeout.
    Nothing,
}

impl PgListener {
    /// Connects to the database at `url` (as [`super::PgStore::open`] takes it) and listens.
    pub fn connect(url: &str) -> Result<Self> {
        let mut server = super::connect::Server::parse(url)?;
        server.config.application_name(LISTENER_NAME);
        let mut client = server.connect()?;
        client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
        Ok(Self { client, label: server.label })
    }

    /// The server and database, without the password (for messages).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Waits up to `timeout` for commits; all announcements already received are taken at once. An
    /// error means the connection is lost: connect again.
    pub fn wait(&mut self, timeout: Duration) -> Result<Heard> {
        let mut heard: Option<u64> = None;
        {
            let mut notes = self.client.notifications();
            let first = notes.timeout_iter(timeout).next()?;
            if let Some(n) = first {
                heard = Some(seq_of(n.payload()));
                let mut rest = notes.iter();
                while let Some(n) = rest.next()? {
                    heard = heard.max(Some(seq_of(n.payload())));
                }
            }
        }
        match heard {
            Some(seq) => Ok(Heard::Commit(seq)),
            None if self.client.is_closed() => Err(Error::Disconnected { url: self.label.clone() }),
            None => Ok(Heard::Nothing),
        }
    }

    /// Checks that the server still answers within `timeout` (a half-open connection, after a network
    /// cut, receives nothing and reports no error by itself).
    pub fn check(&mut self, timeout: Duration) -> Result<()> {
        self.client.is_valid(timeout)?;
        Ok(())
    }
}

fn seq_of(payload: &str) -> u64 {
    payload.trim().parse().unwrap_or(0)
}
