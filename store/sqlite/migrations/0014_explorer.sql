-- The opening explorer. A finished rated game waits to be indexed until the
-- write that indexes it sets explorer_indexed, in the same transaction that
-- adds its plies, and only if it was not set: a game is indexed once however
-- many processes try, and one a crash left unindexed is found again through
-- the partial index below, which holds only the games waiting (a few at most).
-- The games already finished when this runs are indexed by the next catch-up.
ALTER TABLE games ADD COLUMN explorer_indexed INTEGER NOT NULL DEFAULT 0 CHECK (explorer_indexed IN (0, 1));
CREATE INDEX games_explorer_pending ON games (updated_at, id)
    WHERE status = 'finished' AND rated = 1 AND explorer_indexed = 0;

-- One row per position, category, rating band and move: the position is a
-- 64-bit hash of it (see explorer.KeyOf), the category 1 for live and 2 for
-- correspondence, the band the games' average rating in hundreds. The key is
-- the table (no rowid), and every column a small integer but the three
-- latest game ids.
CREATE TABLE explorer_moves (
    position   INTEGER NOT NULL,
    category   INTEGER NOT NULL CHECK (category IN (1, 2)),
    band       INTEGER NOT NULL CHECK (band BETWEEN 0 AND 30),
    move       INTEGER NOT NULL CHECK (move BETWEEN 0 AND 11),
    south      INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    north      INTEGER NOT NULL,
    rating_sum INTEGER NOT NULL,
    last_at    INTEGER NOT NULL,   -- microseconds since 1970: the latest end
    recent1    TEXT NOT NULL,      -- the latest game indexed with the move
    recent2    TEXT,
    recent3    TEXT,
    PRIMARY KEY (position, category, band, move)
) STRICT, WITHOUT ROWID;
