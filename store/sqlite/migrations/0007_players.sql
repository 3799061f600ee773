-- Players and their ratings (issue 22). A player is an id, a display name
-- and the SHA-256 of its token (never the token), with what it has done
-- counted in columns: the counts move in the same write that ends a game or
-- records a first attempt, so they are read with the player in one row.
-- Instants in the new tables are whole microseconds since 1970 (UTC), as
-- moves.at and games.deadline_us keep them.
CREATE TABLE players (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    token_hash  BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    games       INTEGER NOT NULL DEFAULT 0,   -- finished games with a result, rated or not
    wins        INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    rated       INTEGER NOT NULL DEFAULT 0,   -- of the games, rated ones
    puzzles     INTEGER NOT NULL DEFAULT 0,   -- first attempts at puzzles
    solved      INTEGER NOT NULL DEFAULT 0    -- of those, solved
) STRICT;

-- A player's Glicko-2 rating in one category; no row is a new rating. Games
-- is what a write that updates a rating is conditional on (the rating as
-- the service read it), so two ends that race for one rating cannot both
-- start from the same value. The rows go with their player.
CREATE TABLE player_ratings (
    player_id  TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    category   TEXT NOT NULL CHECK (category IN ('live', 'correspondence', 'puzzle')),
    value      REAL NOT NULL,
    deviation  REAL NOT NULL,
    volatility REAL NOT NULL,
    games      INTEGER NOT NULL CHECK (games >= 0),
    at         INTEGER,                        -- its last update; NULL never
    PRIMARY KEY (player_id, category)
) STRICT, WITHOUT ROWID;

-- A leaderboard reads a category's ratings from the highest down, ties by
-- player id, and stops at its size: the start of this index, filtered by
-- deviation and time as it goes.
CREATE INDEX player_ratings_board ON player_ratings (category, value DESC, player_id);

-- A puzzle's rating, keyed by a daily puzzle's id or a practice puzzle's
-- generator bucket.
CREATE TABLE puzzle_ratings (
    key        TEXT PRIMARY KEY,
    value      REAL NOT NULL,
    deviation  REAL NOT NULL,
    volatility REAL NOT NULL,
    games      INTEGER NOT NULL CHECK (games >= 0),
    at         INTEGER
) STRICT, WITHOUT ROWID;

-- A player's first attempt at each puzzle: the key makes a second first
-- attempt impossible, and the history reads the index newest first. The
-- rating columns are the player's puzzle rating before and after it, as
-- the history shows them.
CREATE TABLE player_puzzles (
    player_id        TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    puzzle_id        TEXT NOT NULL,
    at               INTEGER NOT NULL,
    solved           INTEGER NOT NULL CHECK (solved IN (0, 1)),
    daily            TEXT,                     -- the daily puzzle's day, YYYY-MM-DD; NULL for practice
    before_value     REAL NOT NULL,
    before_deviation REAL NOT NULL,
    after_value      REAL NOT NULL,
    after_deviation  REAL NOT NULL,
    PRIMARY KEY (player_id, puzzle_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX player_puzzles_newest ON player_puzzles (player_id, at DESC, puzzle_id DESC);

-- The days on which a player solved that day's daily puzzle on its day:
-- the streak. Any attempt may add one, not only the first.
CREATE TABLE player_daily (
    player_id TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    day       TEXT NOT NULL,                   -- YYYY-MM-DD (UTC)
    PRIMARY KEY (player_id, day)
) STRICT, WITHOUT ROWID;

-- Games gain whether they are rated and each seat's player: its id (NULL
-- for an anonymous seat or the AI), its name when the seat was taken, its
-- rating and deviation in the game's category (then, and once a rated game
-- has ended, the rating the result was applied to) and the change the end
-- made (NULL until then). The seat names its player without a foreign key:
-- a game outlives its players, and deleting one clears its seats instead
-- (through the indexes below). Adding columns with constant defaults
-- changes no row, so an old file upgrades at once, every game anonymous
-- and unrated.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN south_player TEXT;
ALTER TABLE games ADD COLUMN south_name TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN south_rating REAL NOT NULL DEFAULT 0.0;
ALTER TABLE games ADD COLUMN south_deviation REAL NOT NULL DEFAULT 0.0;
ALTER TABLE games ADD COLUMN south_change REAL;
ALTER TABLE games ADD COLUMN north_player TEXT;
ALTER TABLE games ADD COLUMN north_name TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN north_rating REAL NOT NULL DEFAULT 0.0;
ALTER TABLE games ADD COLUMN north_deviation REAL NOT NULL DEFAULT 0.0;
ALTER TABLE games ADD COLUMN north_change REAL;

-- A player's history is its finished games, newest first (by their end,
-- the last change of a finished game, then id): one walk down each side's
-- index, merged. Only finished games are in them, so a move of a game in
-- play (which changes updated_at) never touches them.
CREATE INDEX games_south_history ON games (south_player, updated_at DESC, id DESC)
    WHERE status = 'finished' AND south_player IS NOT NULL;
CREATE INDEX games_north_history ON games (north_player, updated_at DESC, id DESC)
    WHERE status = 'finished' AND north_player IS NOT NULL;

-- The rest of a player's games (waiting, active, aborted), for the one
-- write that needs them: clearing the seats of a deleted player. Their keys
-- change only when a seat is taken or a game ends, not with each move.
CREATE INDEX games_south_other ON games (south_player)
    WHERE status <> 'finished' AND south_player IS NOT NULL;
CREATE INDEX games_north_other ON games (north_player)
    WHERE status <> 'finished' AND north_player IS NOT NULL;
