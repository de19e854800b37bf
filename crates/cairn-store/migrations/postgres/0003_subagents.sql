-- PostgreSQL schema version 3: sub-agent spawn records, shared by every host. A sub-agent's audience
-- comes from its parent's, so every host that may serve the child must know who spawned it (a child
-- whose parent is unknown is served as the owner's). Same columns as SQLite's `subagents`.
CREATE TABLE subagents (
    child_key     TEXT PRIMARY KEY,
    parent_key    TEXT NOT NULL,
    run_id        TEXT,
    agent_id      TEXT,
    label         TEXT,
    mode          TEXT,
    parent_turns  TEXT NOT NULL DEFAULT '[]',  -- JSON: the parent's last turn ids at spawn time
    parent_intent TEXT,
    task          TEXT,
    spawned_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    outcome       TEXT,
    reason        TEXT,
    error         TEXT
);
CREATE INDEX subagents_parent ON subagents (parent_key);
