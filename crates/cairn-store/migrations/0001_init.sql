-- Schema version 1: items, chunks, tags, sessions, turns, file states and the ingest log.
CREATE TABLE items (
    id           TEXT PRIMARY KEY,
    project      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    title        TEXT NOT NULL,
    text         TEXT NOT NULL,
    tags         TEXT NOT NULL,            -- JSON array, normalised
    audience     TEXT NOT NULL CHECK (audience IN ('public', 'private')),
    provenance   TEXT NOT NULL,            -- JSON (cairn_core::Provenance)
    content_hash TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    observed_at  INTEGER NOT NULL,
    metadata     TEXT NOT NULL,            -- JSON object
    seq          INTEGER NOT NULL          -- ingest_log.seq of the last write
) STRICT;
CREATE INDEX items_project_kind ON items (project, kind);
CREATE INDEX items_created ON items (created_at);

CREATE TABLE chunks (
    id           TEXT PRIMARY KEY,
    item_id      TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    heading      TEXT NOT NULL,
    text         TEXT NOT NULL,
    provenance   TEXT NOT NULL,
    content_hash TEXT NOT NULL
) STRICT;
CREATE INDEX chunks_item ON chunks (item_id, ordinal);

-- Explicit tags (frontmatter, ingest calls) form the tag vocabulary; inferred ones do not.
CREATE TABLE item_tags (
    tag      TEXT NOT NULL,
    item_id  TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    explicit INTEGER NOT NULL,
    PRIMARY KEY (tag, item_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX item_tags_item ON item_tags (item_id);

-- Harvested files: what was seen last, to skip unchanged files without reading them.
CREATE TABLE files (
    path         TEXT PRIMARY KEY,         -- relative to the workspace root
    item_id      TEXT NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    content_hash TEXT NOT NULL
) STRICT;

CREATE TABLE sessions (
    key        TEXT PRIMARY KEY,
    project    TEXT NOT NULL,
    audience   TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    turns      INTEGER NOT NULL
) STRICT;

CREATE TABLE turns (
    session_key TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    item_id     TEXT NOT NULL,
    ts          INTEGER NOT NULL,
    PRIMARY KEY (session_key, turn_id)
) STRICT;

-- Append-only: every write and delete, in order. Derived indexes sync from it.
CREATE TABLE ingest_log (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    at           INTEGER NOT NULL,
    op           TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
    item_id      TEXT NOT NULL,
    content_hash TEXT,
    source       TEXT NOT NULL
) STRICT;

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
