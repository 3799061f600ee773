-- Time in game sessions. A game gets its time control, each side's clock and
-- the instant it ends by itself (its deadline), and two words it may now
-- hold: the status 'aborted' (no result, it counts for nobody) and the end
-- reason 'timeout'. Durations are whole microseconds, the precision every
-- stored time keeps. The new columns have constant defaults, so adding them
-- rewrites no row.
ALTER TABLE games
    DROP CONSTRAINT games_status_check,
    ADD CONSTRAINT games_status_check CHECK (status IN ('waiting', 'active', 'finished', 'aborted')),
    DROP CONSTRAINT games_end_reason_check,
    ADD CONSTRAINT games_end_reason_check
        CHECK (end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation', 'timeout')),
    -- The time control: its kind ('' untimed, 'live' a clock with an
    -- increment, 'correspondence' a time per move) and its durations.
    ADD COLUMN time_kind text NOT NULL DEFAULT '' CHECK (time_kind IN ('', 'live', 'correspondence')),
    ADD COLUMN time_initial_us bigint NOT NULL DEFAULT 0,
    ADD COLUMN time_increment_us bigint NOT NULL DEFAULT 0,
    ADD COLUMN time_per_move_us bigint NOT NULL DEFAULT 0,
    -- Each side's time left as the current turn began.
    ADD COLUMN south_clock_us bigint NOT NULL DEFAULT 0,
    ADD COLUMN north_clock_us bigint NOT NULL DEFAULT 0,
    -- When the game ends by itself unless the side to move moves (a waiting
    -- game: unless someone joins); NULL when it never does.
    ADD COLUMN deadline timestamptz;

-- Every instance looks for the games that are overdue, and sleeps until the
-- next deadline: both read the start of this index (the next deadline from
-- the index alone). Only the games that can still end by themselves are in
-- it, so it stays as small as the games in play.
CREATE INDEX games_deadline ON games (deadline)
    WHERE status IN ('waiting', 'active') AND deadline IS NOT NULL;

-- Retention deletes the oldest ended games first, a few at a time.
CREATE INDEX games_ended ON games (updated_at)
    WHERE status IN ('finished', 'aborted');
