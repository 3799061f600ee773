-- The opening explorer. A finished rated game waits to be indexed until the
-- write that indexes it sets explorer_indexed, in the same transaction that
-- adds its plies, and only if it was not set: of the instances that index one
-- game at once, the second's conditional update waits for the first's commit
-- and then finds the mark, so the game is indexed once. One a crash left
-- unindexed is found again through the partial index below, which holds only
-- the games waiting. The games already finished when this runs are indexed by
-- the next catch-up.
ALTER TABLE games ADD COLUMN explorer_indexed boolean NOT NULL DEFAULT false;
CREATE INDEX games_explorer_pending ON games (updated_at, id)
    WHERE status = 'finished' AND rated AND NOT explorer_indexed;

-- One row per position, category, rating band and move: the position is a
-- 64-bit hash of it (see explorer.KeyOf), the category 1 for live and 2 for
-- correspondence, the band the games' average rating in hundreds.
CREATE TABLE explorer_moves (
    position   bigint NOT NULL,
    category   smallint NOT NULL CHECK (category IN (1, 2)),
    band       smallint NOT NULL CHECK (band BETWEEN 0 AND 30),
    move       smallint NOT NULL CHECK (move BETWEEN 0 AND 11),
    south      integer NOT NULL,
    draws      integer NOT NULL,
    north      integer NOT NULL,
    rating_sum bigint NOT NULL,
    last_at    timestamptz NOT NULL, -- the latest end
    recent1    text NOT NULL,        -- the latest game indexed with the move
    recent2    text,
    recent3    text,
    PRIMARY KEY (position, category, band, move)
);
