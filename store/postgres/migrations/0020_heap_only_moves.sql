-- A move's update of its game can be heap-only (HOT): PostgreSQL then
-- writes the row's new version on the same page and inserts nothing into
-- any index, where an update that changes an indexed column (or one in an
-- index's condition) inserts into every index whose condition the new
-- version meets, the primary key's always. Every move changed two indexed
-- columns.
--
-- updated_at, which four indexes of ended games held: the list of ended
-- games to prune, the explorer's pending games and the players'
-- histories. For an ended game updated_at is the moment it ended, and it
-- never changes after, so those indexes now hold ended_at instead: that
-- moment, set by the statement that ends the game (or inserts it ended),
-- NULL while the game waits or is under way.
--
-- The deadline (a game without a clock has one too: its idle expiry),
-- which games_deadline, the sweeper's index, held. It now holds
-- deadline_floor instead: a time at or before the deadline, which a move
-- of the committer's batches keeps as it finds it unless the move's
-- deadline is sooner, so that a move whose deadline is the same or later
-- (every move of a game without a clock or in correspondence, most of a
-- live game's) changes no indexed column. Every other write that sets a
-- deadline sets the floor to it. The sweeper reads the floors (Overdue,
-- NextDeadline): a game whose floor has passed and whose deadline has not
-- is not due, and Overdue raises its floor to its deadline, a write per
-- such game now and then (a game without a clock: once per idle expiry).
--
-- games_check holds both columns to their rules, and the table keeps a
-- tenth of each page free for the new versions.
ALTER TABLE games ADD COLUMN ended_at timestamptz, ADD COLUMN deadline_floor timestamptz;
UPDATE games SET ended_at = CASE WHEN status IN ('finished', 'aborted') THEN updated_at END,
    deadline_floor = deadline
    WHERE status IN ('finished', 'aborted') OR deadline IS NOT NULL;

DROP INDEX games_ended;
CREATE INDEX games_ended ON games (ended_at) WHERE status IN ('finished', 'aborted');
DROP INDEX games_explorer_pending;
CREATE INDEX games_explorer_pending ON games (ended_at, id) WHERE status = 'finished' AND rated AND NOT explorer_indexed;
DROP INDEX games_south_history;
CREATE INDEX games_south_history ON games (south_player, ended_at DESC, id DESC)
    WHERE status = 'finished' AND south_player IS NOT NULL;
DROP INDEX games_north_history;
CREATE INDEX games_north_history ON games (north_player, ended_at DESC, id DESC)
    WHERE status = 'finished' AND north_player IS NOT NULL;
DROP INDEX games_deadline;
CREATE INDEX games_deadline ON games (deadline_floor)
    WHERE status IN ('waiting', 'active') AND deadline_floor IS NOT NULL;

ALTER TABLE games SET (fillfactor = 90);

-- The rules of migration 16, and those of the two new columns.
CREATE OR REPLACE FUNCTION games_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT (NEW.capture_seed IN ('taken', 'left')
        AND NEW.leftovers IN ('last_mover', 'side_owner')
        AND NEW.ply >= 0
        AND NEW.history ~ '^[0-9ab]*$'
        AND length(NEW.history) = NEW.ply
        AND NEW.status IN ('waiting', 'active', 'finished', 'aborted')
        AND NEW.winner IN ('', 'south', 'north', 'draw')
        AND NEW.end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation', 'timeout', 'agreement')
        AND (NEW.winner = '') = (NEW.end_reason = '')
        AND (NEW.status = 'finished') = (NEW.end_reason <> '')
        AND (NEW.ended_at IS NULL) = (NEW.status IN ('waiting', 'active'))
        AND (NEW.deadline_floor IS NULL) = (NEW.deadline IS NULL)
        AND (NEW.deadline_floor IS NULL OR NEW.deadline_floor <= NEW.deadline)
        AND NEW.ai_side IN ('south', 'north')
        AND (NEW.ai_side IS NULL) = (NEW.ai_level IS NULL)
        AND (NEW.south_token IS NULL OR length(NEW.south_token) = 32)
        AND (NEW.north_token IS NULL OR length(NEW.north_token) = 32)
        AND NEW.version >= 1
        AND NEW.time_kind IN ('', 'live', 'correspondence')
        AND NEW.draw_offer IN ('', 'south', 'north')
        AND NEW.takeback_offer IN ('', 'south', 'north')) THEN
        RAISE EXCEPTION 'game % does not hold together', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
