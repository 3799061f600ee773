-- The daily puzzle feed: one row per date, written once by the first request
-- for that date (or by `ayoayo puzzles generate`), and never changed after,
-- whatever later generator versions do; only the counters move.
CREATE TABLE puzzles (
    id           TEXT PRIMARY KEY,              -- p20260314, derived from the date
    date         TEXT NOT NULL UNIQUE,          -- 2026-03-14 (UTC); sorts by time
    version      INTEGER NOT NULL,              -- the generator version that made it
    position     TEXT NOT NULL,                 -- engine text notation
    capture_seed TEXT NOT NULL,                 -- rule options, as the API words them
    leftovers    TEXT NOT NULL,
    goal         TEXT NOT NULL,
    depth        INTEGER NOT NULL,
    prompt       TEXT NOT NULL,
    themes       TEXT NOT NULL,                 -- JSON array of strings
    difficulty   INTEGER NOT NULL CHECK (difficulty BETWEEN 1 AND 5),
    key_legs     INTEGER NOT NULL,
    solution     TEXT NOT NULL,                 -- JSON array of pits, every ply
    attempts     INTEGER NOT NULL DEFAULT 0,
    solved       INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL
);

-- A published puzzle is immutable: the database refuses to change it, so no
-- code path can, by mistake or by a migration run against the wrong column.
CREATE TRIGGER puzzles_immutable
BEFORE UPDATE OF id, date, version, position, capture_seed, leftovers, goal, depth,
                 prompt, themes, difficulty, key_legs, solution, created_at ON puzzles
BEGIN
    SELECT RAISE(ABORT, 'a stored puzzle never changes');
END;
