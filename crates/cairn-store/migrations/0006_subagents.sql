-- Sub-agent runs: which session spawned which, for the child's task context and the parent's recall of
-- what the child found.
CREATE TABLE subagents (
    child_key    TEXT PRIMARY KEY,
    parent_key   TEXT NOT NULL,
    run_id       TEXT,
    agent_id     TEXT,
    label        TEXT,
    mode         TEXT,
    parent_turns TEXT NOT NULL DEFAULT '[]', -- JSON: the parent's last turn ids at spawn time, oldest first
    parent_intent TEXT,                      -- the intent whose pack the parent had active
    task         TEXT,                       -- the child's first prompt (its task)
    spawned_at   INTEGER NOT NULL,
    ended_at     INTEGER,
    outcome      TEXT,
    reason       TEXT,
    error        TEXT
) STRICT;
CREATE INDEX subagents_parent ON subagents (parent_key);
