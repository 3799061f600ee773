-- Players and their ratings (issue 22). A player is an id, a display name
-- and the SHA-256 of its token (never the token); its counts live on its
-- row, so the write that ends a game moves them with the row lock it takes
-- anyway. Writes that touch a player take its row lock first, before any
-- game or rating row, so they queue in one order and never deadlock.
CREATE TABLE players (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32), -- PlayerByToken reads by it
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    games      integer NOT NULL DEFAULT 0 CHECK (games >= 0),   -- finished games with a result
    wins       integer NOT NULL DEFAULT 0 CHECK (wins >= 0),
    losses     integer NOT NULL DEFAULT 0 CHECK (losses >= 0),
    draws      integer NOT NULL DEFAULT 0 CHECK (draws >= 0),
    rated      integer NOT NULL DEFAULT 0 CHECK (rated >= 0),   -- of those, rated
    puzzles    integer NOT NULL DEFAULT 0 CHECK (puzzles >= 0), -- first attempts
    solved     integer NOT NULL DEFAULT 0 CHECK (solved >= 0)   -- of those, solved
);

-- A player's Glicko-2 rating in one category; no row is the initial
-- rating with no games. games is what a write that ends a game compares
-- with the rating it read, so a rating two games end at once moves twice.
CREATE TABLE player_ratings (
    player_id  text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    category   text NOT NULL CHECK (category IN ('live', 'correspondence', 'puzzle')),
    value      double precision NOT NULL,
    deviation  double precision NOT NULL,
    volatility double precision NOT NULL,
    games      integer NOT NULL CHECK (games >= 0),
    at         timestamptz NOT NULL,        -- its last update
    PRIMARY KEY (player_id, category)
);

-- A leaderboard is the start of this index for its category; id breaks
-- ties in the order the answer gives them.
CREATE INDEX player_ratings_board ON player_ratings (category, value DESC, player_id);

-- Each puzzle's rating, by its key (a daily puzzle's id, or a practice
-- puzzle's generator bucket); no row is the puzzle's calibrated start.
CREATE TABLE puzzle_ratings (
    key        text PRIMARY KEY,
    value      double precision NOT NULL,
    deviation  double precision NOT NULL,
    volatility double precision NOT NULL,
    games      integer NOT NULL CHECK (games >= 0),
    at         timestamptz NOT NULL
);

-- A player's first attempt at each puzzle: the key makes a first attempt
-- first exactly once, and the row keeps what it did to the player's
-- puzzle rating. No reference to puzzles: practice puzzles have no row.
CREATE TABLE player_puzzles (
    player_id        text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    puzzle_id        text NOT NULL,
    at               timestamptz NOT NULL,
    solved           boolean NOT NULL,
    daily            date,                  -- the daily puzzle's day; NULL for practice
    before_value     double precision NOT NULL,
    before_deviation double precision NOT NULL,
    after_value      double precision NOT NULL,
    after_deviation  double precision NOT NULL,
    PRIMARY KEY (player_id, puzzle_id)
);

-- A player's attempts, newest first, a page at a time.
CREATE INDEX player_puzzles_newest ON player_puzzles (player_id, at DESC, puzzle_id DESC);

-- The days on which a player solved that day's daily puzzle: its streak.
CREATE TABLE player_daily (
    player_id text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    day       date NOT NULL,
    PRIMARY KEY (player_id, day)
);

-- Each seat of a game names its player (NULL: anonymous, or the AI) and the
-- name it had when it sat down, so a history shows the opponent without a
-- join and a deleted player's games stay with the seat cleared. rating and
-- deviation are the player's in the game's category (0 in an untimed game),
-- change what a rated end did to it (NULL until then). No reference to
-- players: the games outlive them. Constant defaults: no row is rewritten.
ALTER TABLE games
    ADD COLUMN rated boolean NOT NULL DEFAULT false,
    ADD COLUMN south_player text,
    ADD COLUMN south_name text NOT NULL DEFAULT '',
    ADD COLUMN south_rating double precision NOT NULL DEFAULT 0,
    ADD COLUMN south_deviation double precision NOT NULL DEFAULT 0,
    ADD COLUMN south_change double precision,
    ADD COLUMN north_player text,
    ADD COLUMN north_name text NOT NULL DEFAULT '',
    ADD COLUMN north_rating double precision NOT NULL DEFAULT 0,
    ADD COLUMN north_deviation double precision NOT NULL DEFAULT 0,
    ADD COLUMN north_change double precision;

-- A player's finished games, newest first (by end, then id), one index per
-- seat: a history page merges the starts of both. Anonymous seats are left
-- out; nobody asks for their history.
CREATE INDEX games_south_history ON games (south_player, updated_at DESC, id DESC)
    WHERE status = 'finished' AND south_player IS NOT NULL;
CREATE INDEX games_north_history ON games (north_player, updated_at DESC, id DESC)
    WHERE status = 'finished' AND north_player IS NOT NULL;

-- The rest of a player's games (waiting, active, aborted), which only the
-- deletion of the player looks for.
CREATE INDEX games_south_other ON games (south_player)
    WHERE status <> 'finished' AND south_player IS NOT NULL;
CREATE INDEX games_north_other ON games (north_player)
    WHERE status <> 'finished' AND north_player IS NOT NULL;
