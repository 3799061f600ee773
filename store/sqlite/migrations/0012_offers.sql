-- Offers in a game (issue 31): the side whose draw offer stands and the
-- side whose takeback request stands, '' for none. They live in the game's
-- row so that every change to them is one write conditional on the game's
-- version, as moves are; a move, an end or a takeback clears them. And a
-- new end reason, 'agreement': a draw both sides agreed to.
--
-- SQLite cannot change a CHECK constraint, so the games table is built
-- anew and the rows copied, as migration 0005 did and for the same
-- reasons (foreign keys are off while migrations run; the new table is
-- renamed into place, so the moves' references keep naming "games").
-- Every column of the table as 0007 left it is copied; the indexes that
-- went with the old table are made again.
CREATE TABLE games_offers (
    id           TEXT PRIMARY KEY,
    created_at   TEXT NOT NULL,                -- RFC 3339, UTC
    updated_at   TEXT NOT NULL,
    joined_at    TEXT,                         -- when the second seat was taken
    capture_seed TEXT NOT NULL CHECK (capture_seed IN ('taken', 'left')),
    leftovers    TEXT NOT NULL CHECK (leftovers IN ('last_mover', 'side_owner')),
    start        TEXT NOT NULL,                -- text notation
    ply          INTEGER NOT NULL CHECK (ply >= 0),
    position     TEXT NOT NULL,                -- text notation, after ply moves
    history      TEXT NOT NULL,                -- the pit of each ply, one hex digit each
    status       TEXT NOT NULL CHECK (status IN ('waiting', 'active', 'finished', 'aborted')),
    winner       TEXT NOT NULL DEFAULT '' CHECK (winner IN ('', 'south', 'north', 'draw')),
    end_reason   TEXT NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation', 'timeout', 'agreement')),
    ai_side      TEXT CHECK (ai_side IN ('south', 'north')),
    ai_level     INTEGER,
    south_token  BLOB CHECK (south_token IS NULL OR length(south_token) = 32),
    north_token  BLOB CHECK (north_token IS NULL OR length(north_token) = 32),
    version      INTEGER NOT NULL DEFAULT 1,   -- bumped by every change; the ETag
    -- The time control: its kind ('' untimed, 'live' a clock with an
    -- increment, 'correspondence' a time per move) and its durations.
    time_kind         TEXT NOT NULL DEFAULT '' CHECK (time_kind IN ('', 'live', 'correspondence')),
    time_initial_us   INTEGER NOT NULL DEFAULT 0,
    time_increment_us INTEGER NOT NULL DEFAULT 0,
    time_per_move_us  INTEGER NOT NULL DEFAULT 0,
    -- Each side's time left as the current turn began.
    south_clock_us    INTEGER NOT NULL DEFAULT 0,
    north_clock_us    INTEGER NOT NULL DEFAULT 0,
    -- When the game ends by itself unless the side to move moves (a waiting
    -- game: unless someone joins); NULL when it never does.
    deadline_us       INTEGER,
    rated             INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
    -- The seats' players (migration 0007).
    south_player      TEXT,
    south_name        TEXT NOT NULL DEFAULT '',
    south_rating      REAL NOT NULL DEFAULT 0.0,
    south_deviation   REAL NOT NULL DEFAULT 0.0,
    south_change      REAL,
    north_player      TEXT,
    north_name        TEXT NOT NULL DEFAULT '',
    north_rating      REAL NOT NULL DEFAULT 0.0,
    north_deviation   REAL NOT NULL DEFAULT 0.0,
    north_change      REAL,
    -- The side whose draw offer, and whose takeback request, stands; ''
    -- for none.
    draw_offer        TEXT NOT NULL DEFAULT '' CHECK (draw_offer IN ('', 'south', 'north')),
    takeback_offer    TEXT NOT NULL DEFAULT '' CHECK (takeback_offer IN ('', 'south', 'north')),
    CHECK (length(history) = ply),
    CHECK ((winner = '') = (end_reason = '')),
    CHECK ((status = 'finished') = (end_reason <> '')),
    CHECK ((ai_side IS NULL) = (ai_level IS NULL))
) STRICT;

INSERT INTO games_offers (id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply, position,
    history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version,
    time_kind, time_initial_us, time_increment_us, time_per_move_us, south_clock_us, north_clock_us,
    deadline_us, rated, south_player, south_name, south_rating, south_deviation, south_change,
    north_player, north_name, north_rating, north_deviation, north_change)
SELECT id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply, position,
    history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version,
    time_kind, time_initial_us, time_increment_us, time_per_move_us, south_clock_us, north_clock_us,
    deadline_us, rated, south_player, south_name, south_rating, south_deviation, south_change,
    north_player, north_name, north_rating, north_deviation, north_change
FROM games;

DROP TABLE games;
ALTER TABLE games_offers RENAME TO games;

CREATE INDEX games_created_at ON games (created_at);
CREATE INDEX games_deadline ON games (deadline_us, status)
    WHERE status IN ('waiting', 'active') AND deadline_us IS NOT NULL;
CREATE INDEX games_ended ON games (updated_at)
    WHERE status IN ('finished', 'aborted');
CREATE INDEX games_south_history ON games (south_player, updated_at DESC, id DESC)
    WHERE status = 'finished' AND south_player IS NOT NULL;
CREATE INDEX games_north_history ON games (north_player, updated_at DESC, id DESC)
    WHERE status = 'finished' AND north_player IS NOT NULL;
CREATE INDEX games_south_other ON games (south_player)
    WHERE status <> 'finished' AND south_player IS NOT NULL;
CREATE INDEX games_north_other ON games (north_player)
    WHERE status <> 'finished' AND north_player IS NOT NULL;
