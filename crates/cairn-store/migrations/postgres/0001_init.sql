-- PostgreSQL schema version 1: the tables behind the `Store` trait (items, chunks, tags, file states,
-- sessions, turns, harvest runs, vectors and the ingest log). Host-local serving state (graph tables,
-- session state, the capture queue, sub-agent records) stays in each host's SQLite file.
-- Text columns hold what SQLite holds (JSON as text), so both backends read and write the same values.
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
    created_at   BIGINT NOT NULL,
    observed_at  BIGINT NOT NULL,
    metadata     TEXT NOT NULL,            -- JSON object
    seq          BIGINT NOT NULL           -- ingest_log.seq of the last write
);
CREATE INDEX items_project_kind ON items (project, kind);
CREATE INDEX items_created ON items (created_at);

CREATE TABLE chunks (
    id           TEXT PRIMARY KEY,
    item_id      TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    ordinal      BIGINT NOT NULL,
    heading      TEXT NOT NULL,
    text         TEXT NOT NULL,
    provenance   TEXT NOT NULL,
    content_hash TEXT NOT NULL
);
CREATE INDEX chunks_item ON chunks (item_id, ordinal);

CREATE TABLE item_tags (
    tag      TEXT NOT NULL,
    item_id  TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    explicit BOOLEAN NOT NULL,
    PRIMARY KEY (tag, item_id)
);
CREATE INDEX item_tags_item ON item_tags (item_id);

CREATE TABLE files (
    path         TEXT PRIMARY KEY,
    item_id      TEXT NOT NULL,
    size         BIGINT NOT NULL,
    mtime_ns     BIGINT NOT NULL,
    content_hash TEXT NOT NULL
);

CREATE TABLE sessions (
    key        TEXT PRIMARY KEY,
    project    TEXT NOT NULL,
    audience   TEXT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_seen  BIGINT NOT NULL,
    turns      BIGINT NOT NULL
);

-- The primary key makes a capture idempotent across hosts: a second host's insert of the same turn
-- waits for the first one's transaction and then finds the row.
CREATE TABLE turns (
    session_key TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    item_id     TEXT NOT NULL,
    ts          BIGINT NOT NULL,
    PRIMARY KEY (session_key, turn_id)
);
CREATE INDEX turns_item ON turns (item_id);

-- Gap-safe sequence numbers. A SEQUENCE hands out numbers at once and transactions commit in any order,
-- so a reader catching up "after N" could pass over a smaller number committed later. Instead each log
-- has one counter row; `cairn_next_seq` increments it, which locks the row until the writing transaction
-- ends. The next writer waits for that commit before it can take a number: numbers become visible in
-- commit order, and a reader that has seen N has seen everything up to N.
CREATE TABLE seq_counters (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO seq_counters (name, value) VALUES ('ingest', 0), ('vector', 0);

CREATE FUNCTION cairn_next_seq(counter TEXT) RETURNS BIGINT LANGUAGE sql AS $$
    UPDATE seq_counters SET value = value + 1 WHERE name = counter RETURNING value
$$;

-- Append-only: every write and delete, in commit order. Derived indexes on every host sync from it.
CREATE TABLE ingest_log (
    seq          BIGINT PRIMARY KEY,
    at           BIGINT NOT NULL,
    op           TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
    item_id      TEXT NOT NULL,
    content_hash TEXT,
    source       TEXT NOT NULL
);
CREATE INDEX ingest_log_item ON ingest_log (item_id);

CREATE TABLE harvest_runs (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    root        TEXT NOT NULL,
    summary     TEXT
);

-- Chunk embeddings, one row per (chunk, model); `vseq` comes from the `vector` counter, so it too
-- becomes visible in commit order.
CREATE TABLE vectors (
    vseq         BIGINT PRIMARY KEY,
    chunk_id     TEXT NOT NULL,
    model_id     TEXT NOT NULL,
    item_id      TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    dim          INTEGER NOT NULL CHECK (dim > 0),
    vector       BYTEA NOT NULL,           -- dim × f32, little endian
    UNIQUE (chunk_id, model_id)
);
CREATE INDEX vectors_item ON vectors (item_id);
CREATE INDEX vectors_model_seq ON vectors (model_id, vseq);
