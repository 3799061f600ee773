-- Game sessions. A game row holds everything a request needs in one read: the
-- rules, where it started, the pits played so far (history, one hex digit per ply,
-- so the rules can replay it for the repetition rule without reading every
-- move), where it is now, and who may move. Seat tokens are never stored, only
-- their SHA-256; a seat with no hash is empty (waiting for a player) or the AI's.
CREATE TABLE games (
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
    status       TEXT NOT NULL CHECK (status IN ('waiting', 'active', 'finished')),
    winner       TEXT NOT NULL DEFAULT '' CHECK (winner IN ('', 'south', 'north', 'draw')),
    end_reason   TEXT NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation')),
    ai_side      TEXT CHECK (ai_side IN ('south', 'north')),
    ai_level     INTEGER,
    south_token  BLOB CHECK (south_token IS NULL OR length(south_token) = 32),
    north_token  BLOB CHECK (north_token IS NULL OR length(north_token) = 32),
    version      INTEGER NOT NULL DEFAULT 1,   -- bumped by every change; the ETag
    CHECK (length(history) = ply),
    CHECK ((winner = '') = (end_reason = '')),
    CHECK ((status = 'finished') = (end_reason <> '')),
    CHECK ((ai_side IS NULL) = (ai_level IS NULL))
) STRICT;

-- One row per move, keyed by its ply (0 for the first move). The outcome is
-- kept whole (legs, capture, result) as JSON text, so the history can be shown
-- exactly as it was played. A move a person sent also keeps the hash of the
-- token that sent it and the answer it got, so the same request sent again is
-- answered from here instead of making a second move.
CREATE TABLE moves (
    game_id    TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply        INTEGER NOT NULL CHECK (ply >= 0),
    side       TEXT NOT NULL CHECK (side IN ('south', 'north')),
    pit        INTEGER NOT NULL CHECK (pit BETWEEN 0 AND 11),
    by_ai      INTEGER NOT NULL DEFAULT 0 CHECK (by_ai IN (0, 1)),
    outcome    TEXT NOT NULL,                  -- JSON: legs, capture, result
    position   TEXT NOT NULL,                  -- text notation, after the move
    created_at TEXT NOT NULL,
    token_hash BLOB,                           -- who sent it (NULL for the AI)
    answer     BLOB,                           -- the response body it got
    PRIMARY KEY (game_id, ply)
) STRICT;

CREATE INDEX games_created_at ON games (created_at);
