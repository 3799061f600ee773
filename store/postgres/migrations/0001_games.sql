-- Game sessions. A game row holds everything a request needs in one read: the
-- rules, where the game started, the pits played so far (history, one hex
-- digit per ply, so an UPDATE can append to it and the rules can replay it
-- without reading the moves), where it is now, and who may move. Seat tokens
-- are never stored, only their SHA-256; a seat with no hash is open (waiting
-- for a player) or the AI's. Values are the engine's own words and notation.
CREATE TABLE games (
    id           text PRIMARY KEY,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    joined_at    timestamptz,                   -- when the second seat was taken
    capture_seed text NOT NULL CHECK (capture_seed IN ('taken', 'left')),
    leftovers    text NOT NULL CHECK (leftovers IN ('last_mover', 'side_owner')),
    start        text NOT NULL,                 -- text notation
    ply          integer NOT NULL CHECK (ply >= 0),
    position     text NOT NULL,                 -- text notation, after ply moves
    history      text NOT NULL CHECK (history ~ '^[0-9ab]*$'),
    status       text NOT NULL CHECK (status IN ('waiting', 'active', 'finished')),
    winner       text NOT NULL DEFAULT '' CHECK (winner IN ('', 'south', 'north', 'draw')),
    end_reason   text NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation')),
    ai_side      text CHECK (ai_side IN ('south', 'north')),
    ai_level     integer,
    south_token  bytea CHECK (south_token IS NULL OR length(south_token) = 32),
    north_token  bytea CHECK (north_token IS NULL OR length(north_token) = 32),
    version      bigint NOT NULL CHECK (version >= 1), -- bumped by every change; the ETag
    CHECK (length(history) = ply),
    CHECK ((winner = '') = (end_reason = '')),
    CHECK ((status = 'finished') = (end_reason <> '')),
    CHECK ((ai_side IS NULL) = (ai_level IS NULL))
);

-- One row per move, keyed by its ply (0 for the first move): only which pit,
-- whether the AI played it, and when. The legs, capture, position after and
-- the end it brought follow from the game's start, rules and history through
-- the engine, and the game service rebuilds them. The key doubles as a
-- guard: a ply can be stored once.
CREATE TABLE moves (
    game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply     integer NOT NULL CHECK (ply >= 0),
    pit     smallint NOT NULL CHECK (pit BETWEEN 0 AND 11),
    by_ai   boolean NOT NULL,
    at      timestamptz NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- The answer each seat's latest accepted move request got, so that the same
-- request sent again gets the same bytes back. One row per game and seat
-- token, replaced by the seat's next move: an older request can no longer be
-- a retry, since the seat has moved on since.
CREATE TABLE answers (
    game_id    text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    token_hash bytea NOT NULL CHECK (length(token_hash) = 32),
    ply        integer NOT NULL CHECK (ply >= 0),
    pit        smallint NOT NULL CHECK (pit BETWEEN 0 AND 11),
    body       bytea NOT NULL,
    PRIMARY KEY (game_id, token_hash)
);
