-- Time in game sessions. A game gets its time control, each side's clock and
-- the instant it ends by itself (its deadline), and two words it may now
-- hold: the status 'aborted' (no result, it counts for nobody) and the end
-- reason 'timeout'. Durations are whole microseconds, as are instants
-- (since 1970, UTC), the unit the moves' times already use: small integers,
-- exact to what a stored time keeps.
--
-- SQLite cannot change a CHECK constraint, so the games table is built anew
-- and the rows copied, the documented way (https://sqlite.org/lang_altertable.html,
-- "Making Other Kinds Of Table Schema Changes"): the migration runs with
-- foreign keys off (Store.migrate sees to it, outside the transaction,
-- where the pragma works), since dropping the old table with them on would
-- first delete every row of it, and with each its moves and answers (ON
-- DELETE CASCADE). The new table is renamed into place, never the old one
-- away, so the moves' and answers' references keep naming "games"; the
-- foreign key check before the commit proves that every row still has its
-- game.
CREATE TABLE games_time (
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
    end_reason   TEXT NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation', 'timeout')),
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
    CHECK (length(history) = ply),
    CHECK ((winner = '') = (end_reason = '')),
    CHECK ((status = 'finished') = (end_reason <> '')),
    CHECK ((ai_side IS NULL) = (ai_level IS NULL))
) STRICT;

INSERT INTO games_time (id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply, position,
    history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version)
SELECT id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply, position,
    history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version
FROM games;

DROP TABLE games;
ALTER TABLE games_time RENAME TO games;

CREATE INDEX games_created_at ON games (created_at);

-- Every instance looks for the games that are overdue, and sleeps until the
-- next deadline: both read the start of this index. Only the games that can
-- still end by themselves are in it, so it stays as small as the games in
-- play; the status rides along, though every entry's is waiting or active,
-- because SQLite reads a column the query names from the index only if the
-- index holds it, and so the next deadline is read from the index alone.
CREATE INDEX games_deadline ON games (deadline_us, status)
    WHERE status IN ('waiting', 'active') AND deadline_us IS NOT NULL;

-- Retention deletes the oldest ended games first, a few at a time.
CREATE INDEX games_ended ON games (updated_at)
    WHERE status IN ('finished', 'aborted');
