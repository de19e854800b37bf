-- PostgreSQL schema version 2: session state (sticky pack, turn counter) shared by every host, so a
-- session's follow-up turn keeps its pack whichever host serves it. Rows are numbered from their own
-- gap-safe counter (`session`), so a host pulls what changed "after N" as it follows the ingest log.
-- Also indexes in bytewise order, for paging through the store.
CREATE TABLE session_state (
    session_key TEXT PRIMARY KEY,
    state       TEXT NOT NULL,            -- JSON: sticky entry and turn counter, as SQLite holds it
    updated_at  BIGINT NOT NULL,
    sseq        BIGINT NOT NULL UNIQUE    -- `session` counter at the last write
);
INSERT INTO seq_counters (name, value) VALUES ('session', 0);

-- Bytewise orderings used to page through the store (`for_each_item`, pending vectors): without an
-- index in that collation every page is a sort of the whole table.
CREATE INDEX items_id_bytewise ON items (id COLLATE "C");
CREATE INDEX chunks_item_bytewise ON chunks (item_id COLLATE "C", ordinal);
