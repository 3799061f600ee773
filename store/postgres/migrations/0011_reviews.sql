-- Reviews of finished games (issue 33), as SQLite's migration 0013: one row
-- per game whose review was asked for, shared by every instance. A worker
-- claims a queued row, or a running one whose lease ended (its worker
-- crashed), with one conditional write (SKIP LOCKED: two instances claiming
-- at once take different rows), and renews the lease as it goes; the done
-- review is kept as JSON that store/internal/stored reads.
CREATE TABLE reviews (
    game_id      text PRIMARY KEY,
    state        text NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    done         integer NOT NULL DEFAULT 0 CHECK (done >= 0),
    total        integer NOT NULL CHECK (total >= 0),
    requested_at timestamptz NOT NULL,
    finished_at  timestamptz,
    owner        text NOT NULL DEFAULT '',
    until        timestamptz NOT NULL DEFAULT '-infinity',
    result       text,
    CHECK ((state = 'done') = (result IS NOT NULL))
);

-- The queue: the reviews not done, first requested first.
CREATE INDEX reviews_queue ON reviews (requested_at, game_id) WHERE state <> 'done';
