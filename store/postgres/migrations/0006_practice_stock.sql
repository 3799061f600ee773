-- The practice stock (issue 26): practice puzzles made ahead, in idle time,
-- one row each, keyed by how the walk finds them: generator version, filter
-- (its part of the practice id, d3-gany-tany), bucket (seq mod 1024) and
-- seq. A row is the puzzle as the daily feed stores one (no date, no
-- counters: attempts at practice puzzles are not counted), proven before it
-- was written, and never changed after.
CREATE TABLE practice_stock (
    version      integer NOT NULL,
    filter       text NOT NULL,
    bucket       integer NOT NULL CHECK (bucket BETWEEN 0 AND 1023),
    seq          bigint NOT NULL CHECK (seq >= 0 AND seq % 1024 = bucket),
    id           text NOT NULL UNIQUE,          -- x3-d3-gany-tany-4127
    position     text NOT NULL,
    capture_seed text NOT NULL CHECK (capture_seed IN ('taken', 'left')),
    leftovers    text NOT NULL CHECK (leftovers IN ('last_mover', 'side_owner')),
    goal         text NOT NULL,
    depth        integer NOT NULL,
    prompt       text NOT NULL,
    themes       text[] NOT NULL,
    difficulty   integer NOT NULL CHECK (difficulty BETWEEN 1 AND 5),
    key_legs     integer NOT NULL,
    solution     smallint[] NOT NULL CHECK (0 <= ALL (solution) AND 11 >= ALL (solution)),
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (version, filter, bucket, seq)
);

-- Leases of background work shared by instances (the stocker of a filter):
-- one holder at a time, until its lease runs out unless renewed.
CREATE TABLE leases (
    name   text PRIMARY KEY,
    holder text NOT NULL,
    until  timestamptz NOT NULL
);
