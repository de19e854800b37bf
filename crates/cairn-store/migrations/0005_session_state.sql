-- Per-session serving state (sticky pack, turn counter) and the durable capture queue of `cairn serve`.
CREATE TABLE session_state (
    session_key TEXT PRIMARY KEY,
    state       TEXT NOT NULL,            -- JSON: sticky entry and turn counter
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE capture_queue (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_key TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    payload     TEXT NOT NULL,            -- JSON: the turn as accepted
    enqueued_at INTEGER NOT NULL,
    status      TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    outcome     TEXT,                     -- what processing did, or the last error
    UNIQUE (session_key, turn_id)
) STRICT;
CREATE INDEX capture_queue_status ON capture_queue (status, id);
