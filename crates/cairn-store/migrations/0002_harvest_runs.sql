-- Schema version 2: a record of every harvest run, for `cairn status`.
CREATE TABLE harvest_runs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    root        TEXT NOT NULL,
    summary     TEXT                      -- JSON, written when the run finishes
) STRICT;
CREATE INDEX ingest_log_item ON ingest_log (item_id);
