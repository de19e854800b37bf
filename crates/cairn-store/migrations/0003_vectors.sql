-- Schema version 3: chunk embeddings, one row per (chunk, model).
-- `content_hash` is the chunk's hash when it was embedded: a chunk whose hash moved on is re-embedded.
-- `vseq` only grows (a replaced row gets a new one), so vector indexes load what is new since a vseq.
CREATE TABLE vectors (
    vseq         INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id     TEXT NOT NULL,
    model_id     TEXT NOT NULL,
    item_id      TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    dim          INTEGER NOT NULL CHECK (dim > 0),
    vector       BLOB NOT NULL,            -- dim × f32, little endian
    UNIQUE (chunk_id, model_id)
) STRICT;
CREATE INDEX vectors_item ON vectors (item_id);
CREATE INDEX vectors_model_seq ON vectors (model_id, vseq);
