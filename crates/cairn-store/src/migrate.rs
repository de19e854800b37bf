//! Versioned, append-only migrations tracked with `PRAGMA user_version`.

use std::path::Path;

use rusqlite::Connection;

use crate::{Error, Result};

/// The migrations, in order; migration `i` brings the schema to version `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_harvest_runs.sql"),
    include_str!("../migrations/0003_vectors.sql"),
    include_str!("../migrations/0004_graph.sql"),
    include_str!("../migrations/0005_session_state.sql"),
    include_str!("../migrations/0006_subagents.sql"),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Application id stamped in the SQLite header so foreign files are recognised ("CAIR").
pub(crate) const APPLICATION_ID: i64 = 0x4341_4952;

/// Bring `conn` to `target` (at most [`SCHEMA_VERSION`]), one transaction per migration.
pub(crate) fn migrate(conn: &mut Connection, path: &Path, target: u32) -> Result<u32> {
    let app_id: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if app_id != 0 && app_id != APPLICATION_ID {
        return Err(Error::NotAStore {
            path: path.to_owned(),
            reason: format!("SQLite application_id is {app_id:#x}, not Cairn's"),
        });
    }
    if app_id == 0 && version == 0 {
        let tables: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))?;
        if tables > 0 {
            return Err(Error::NotAStore {
                path: path.to_owned(),
                reason: format!("it already holds {tables} tables of another application"),
            });
        }
    }
    if version > SCHEMA_VERSION {
        return Err(Error::TooNew { path: path.to_owned(), found: version, supported: SCHEMA_VERSION });
    }
    for v in version..target.min(SCHEMA_VERSION) {
        let tx = conn.transaction()?;
        let apply = || -> rusqlite::Result<()> {
            tx.execute_batch(MIGRATIONS[v as usize])?;
            tx.pragma_update(None, "user_version", v + 1)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
            Ok(())
        };
        apply().map_err(|source| Error::Migration { path: path.to_owned(), version: v + 1, source })?;
        tx.commit().map_err(|source| Error::Migration { path: path.to_owned(), version: v + 1, source })?;
    }
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}
