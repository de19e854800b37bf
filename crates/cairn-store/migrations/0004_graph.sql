-- Schema version 3: the link graph, derived from items (and explicit links) by the graph sync.
-- Every derived row has an `owner`: the item (or session) whose content produced it, so that a changed
-- item replaces exactly its own rows. Explicit links (`cairn link`) have owner `link` and survive rebuilds.
CREATE TABLE graph_nodes (
    owner      TEXT NOT NULL,
    id         TEXT NOT NULL,              -- stable id: `item:<item id>`, `tag:<project>/<tag>`, ...
    kind       TEXT NOT NULL,              -- item kind (`file`, `turn`, ...) or entity kind (`tag`, `person`, ...)
    title      TEXT NOT NULL,
    project    TEXT NOT NULL,
    audience   TEXT NOT NULL CHECK (audience IN ('public', 'private')),
    item_id    TEXT,                       -- the stored item, for item nodes
    abstract   TEXT NOT NULL,              -- L0 one-line abstract
    provenance TEXT NOT NULL,              -- JSON (cairn_core::Provenance)
    tags       TEXT NOT NULL,              -- JSON array
    PRIMARY KEY (owner, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX graph_nodes_id ON graph_nodes (id);

CREATE TABLE graph_edges (
    owner      TEXT NOT NULL,
    src        TEXT NOT NULL,
    dst        TEXT NOT NULL,
    kind       TEXT NOT NULL,              -- links_to, tagged, mentions, in_project, same_session, follows, ...
    weight     REAL NOT NULL,
    reason     TEXT NOT NULL,
    provenance TEXT NOT NULL,              -- JSON (cairn_core::Provenance)
    audience   TEXT NOT NULL CHECK (audience IN ('public', 'private')),
    PRIMARY KEY (owner, src, dst, kind, provenance)
) STRICT, WITHOUT ROWID;

-- Sync state of the graph: the ingest-log sequence it follows and the entity vocabulary it was built with.
CREATE TABLE graph_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
