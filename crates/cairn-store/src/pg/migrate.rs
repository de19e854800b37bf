//! Versioned, append-only migrations of a PostgreSQL store, tracked in the one-row table `cairn_schema`.
//!
//! Several hosts may open the same database at once: each migration runs in its own transaction under
//! a transaction-level advisory lock, and re-reads the version once it holds the lock, so exactly one
//! host applies each step and the others find it done.

use std::path::PathBuf;

use postgres::Client;

use crate::{Error, Result};

/// The PostgreSQL migrations, in order; migration `i` brings the schema to version `i + 1`.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_init.sql"),
    include_str!("../../migrations/postgres/0002_session_state.sql"),
    include_str!("../../migrations/postgres/0003_subagents.sql"),
    include_str!("../../migrations/postgres/0004_links.sql"),
];

/// The PostgreSQL schema version this build writes (numbered apart from the SQLite file's).
pub const PG_SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// The advisory lock key that serialises migrations ("CAIRMIGR").
const MIGRATE_LOCK: i64 = 0x4341_4952_4d49_4752;

/// The schema version of the database (0 when it has no `cairn_schema` table).
pub(crate) fn version(client: &mut impl postgres::GenericClient) -> Result<u32> {
    let exists: bool = client.query_one("SELECT to_regclass('cairn_schema') IS NOT NULL", &[])?.get(0);
    if !exists {
        return Ok(0);
    }
    let v: i32 = client.query_one("SELECT version FROM cairn_schema", &[])?.get(0);
    Ok(v as u32)
}

/// Bring the database to [`PG_SCHEMA_VERSION`]. `label` names it in errors (no password).
pub(crate) fn migrate(client: &mut Client, label: &str) -> Result<u32> {
    let path = || PathBuf::from(label);
    loop {
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATE_LOCK])?;
        let current = version(&mut tx)?;
        if current > PG_SCHEMA_VERSION {
            return Err(Error::TooNew { path: path(), found: current, supported: PG_SCHEMA_VERSION });
        }
        if current == PG_SCHEMA_VERSION {
            tx.commit()?;
            return Ok(current);
        }
        if current == 0 {
            // A database that already holds tables of something else is not ours to fill.
            let tables: i64 = tx
                .query_one(
                    "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
                    &[],
                )?
                .get(0);
            if tables > 0 {
                return Err(Error::NotAStore {
                    path: path(),
                    reason: format!(
                        "its schema already holds {tables} tables of another application; use an empty \
                         database (or schema)"
                    ),
                });
            }
            // `store_id` names this database for good: a host's derived parts follow one log only.
            tx.batch_execute(
                "CREATE TABLE cairn_schema (version INTEGER NOT NULL, store_id TEXT NOT NULL); \
                 INSERT INTO cairn_schema VALUES (0, gen_random_uuid()::text)",
            )?;
        }
        let next = current + 1;
        let step = |tx: &mut postgres::Transaction<'_>| -> std::result::Result<(), postgres::Error> {
            tx.batch_execute(MIGRATIONS[current as usize])?;
            tx.execute("UPDATE cairn_schema SET version = $1", &[&(next as i32)])?;
            Ok(())
        };
        step(&mut tx).map_err(|source| Error::PgMigration {
            url: label.to_owned(),
            version: next,
            source,
        })?;
        tx.commit().map_err(|source| Error::PgMigration { url: label.to_owned(), version: next, source })?;
    }
}

/// The id given to the database when Cairn first created its tables.
pub(crate) fn store_id(client: &mut impl postgres::GenericClient) -> Result<String> {
    Ok(client.query_one("SELECT store_id FROM cairn_schema", &[])?.get(0))
}
