-- PostgreSQL schema version 4: explicit typed links (`cairn link`), shared by every host. Each host
-- keeps the graph in its own file; it pulls the links written after the last number it saw (the
-- `link` counter, gap-safe like the ingest log) into its graph tables as it follows the store.
CREATE TABLE links (
    src        TEXT NOT NULL,
    dst        TEXT NOT NULL,
    kind       TEXT NOT NULL,
    weight     DOUBLE PRECISION NOT NULL,
    reason     TEXT NOT NULL,
    provenance TEXT NOT NULL,                -- JSON (cairn_core::Provenance)
    audience   TEXT NOT NULL CHECK (audience IN ('public', 'private')),
    lseq       BIGINT NOT NULL UNIQUE,       -- `link` counter at the last write
    PRIMARY KEY (src, dst, kind)
);
INSERT INTO seq_counters (name, value) VALUES ('link', 0);
