-- The practice stock (issue 26): practice puzzles made ahead, in idle time,
-- one row each, keyed by how the walk finds them: generator version, filter
-- (its part of the practice id, d3-gany-tany), bucket (seq mod 1024) and
-- seq. A row is the puzzle as the daily feed stores one (no date, no
-- counters: attempts at practice puzzles are not counted), proven before it
-- was written, and never changed after. Instants are whole microseconds
-- since 1970 (UTC).
CREATE TABLE practice_stock (
    version      INTEGER NOT NULL,
    filter       TEXT NOT NULL,
    bucket       INTEGER NOT NULL CHECK (bucket BETWEEN 0 AND 1023),
    seq          INTEGER NOT NULL CHECK (seq >= 0 AND seq % 1024 = bucket),
    id           TEXT NOT NULL UNIQUE,          -- x3-d3-gany-tany-4127
    position     TEXT NOT NULL,
    capture_seed TEXT NOT NULL,
    leftovers    TEXT NOT NULL,
    goal         TEXT NOT NULL,
    depth        INTEGER NOT NULL,
    prompt       TEXT NOT NULL,
    themes       TEXT NOT NULL,                 -- JSON array of strings
    difficulty   INTEGER NOT NULL CHECK (difficulty BETWEEN 1 AND 5),
    key_legs     INTEGER NOT NULL,
    solution     TEXT NOT NULL,                 -- JSON array of pits
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (version, filter, bucket, seq)
) STRICT, WITHOUT ROWID;

-- Leases of background work shared by instances (the stocker of a filter):
-- one holder at a time, until its lease runs out unless renewed.
CREATE TABLE leases (
    name     TEXT PRIMARY KEY,
    holder   TEXT NOT NULL,
    until_us INTEGER NOT NULL
) STRICT;
