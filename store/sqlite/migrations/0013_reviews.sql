-- Reviews of finished games (issue 33): one row per game whose review was
-- asked for, shared by every instance. A worker claims a queued row, or a
-- running one whose lease ended (its worker crashed), with one conditional
-- write, and renews the lease as it goes; the done review is kept as JSON
-- (store/internal/stored reads it). Instants are whole microseconds since
-- 1970 (UTC). No reference to games: a review outlives nothing it needs,
-- and the game's pruning leaves it readable.
CREATE TABLE reviews (
    game_id      TEXT PRIMARY KEY,
    state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    done         INTEGER NOT NULL DEFAULT 0 CHECK (done >= 0),
    total        INTEGER NOT NULL CHECK (total >= 0),
    requested_us INTEGER NOT NULL,
    finished_us  INTEGER,
    owner        TEXT NOT NULL DEFAULT '',
    until_us     INTEGER NOT NULL DEFAULT 0,
    result       TEXT,
    CHECK ((state = 'done') = (result IS NOT NULL))
) STRICT;

-- The queue: the reviews not done, first requested first.
CREATE INDEX reviews_queue ON reviews (requested_us, game_id) WHERE state <> 'done';
