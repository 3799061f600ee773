-- Lean moves. A move's legs, capture, position and result follow from the
-- game's start, rules and history through the engine, and the game service
-- rebuilds them; a move row keeps only which pit it was, whether the AI played
-- it, and when: a few dozen bytes instead of about 1.3 KB. The time is
-- microseconds since 1970 (UTC), an integer instead of 27 characters of text.
-- The row is keyed by (game, ply) with no rowid, so the key is the table.
CREATE TABLE moves_lean (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply     INTEGER NOT NULL CHECK (ply >= 0),
    pit     INTEGER NOT NULL CHECK (pit BETWEEN 0 AND 11),
    by_ai   INTEGER NOT NULL DEFAULT 0 CHECK (by_ai IN (0, 1)),
    at      INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) STRICT, WITHOUT ROWID;

-- The answer each seat's latest accepted move request got, so the same
-- request sent again gets the same bytes back. One row per game and seat
-- token, replaced by the seat's next move: an older request can no longer be
-- a retry, since the seat has moved on since.
CREATE TABLE answers (
    game_id    TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    token_hash BLOB NOT NULL CHECK (length(token_hash) = 32),
    ply        INTEGER NOT NULL CHECK (ply >= 0),
    pit        INTEGER NOT NULL CHECK (pit BETWEEN 0 AND 11),
    body       BLOB NOT NULL,
    PRIMARY KEY (game_id, token_hash)
) STRICT, WITHOUT ROWID;

-- An older file keeps what it had: every move, and each seat's latest answer.
INSERT INTO moves_lean (game_id, ply, pit, by_ai, at)
SELECT game_id, ply, pit, by_ai,
       CAST(strftime('%s', substr(created_at, 1, 19)) AS INTEGER) * 1000000 + CAST(substr(created_at, 21, 6) AS INTEGER)
FROM moves;

INSERT INTO answers (game_id, token_hash, ply, pit, body)
SELECT m.game_id, m.token_hash, m.ply, m.pit, m.answer
FROM moves m
WHERE m.answer IS NOT NULL AND m.token_hash IS NOT NULL
  AND m.ply = (SELECT max(ply) FROM moves l
               WHERE l.game_id = m.game_id AND l.token_hash = m.token_hash AND l.answer IS NOT NULL);

DROP TABLE moves;
ALTER TABLE moves_lean RENAME TO moves;
