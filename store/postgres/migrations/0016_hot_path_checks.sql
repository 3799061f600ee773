-- The checks of games and moves move from CHECK constraints into one
-- trigger per table. The statement that writes a batch of moves
-- (commit.go) updates games and inserts into moves, and PostgreSQL
-- prepares every CHECK constraint of a table a statement writes afresh for
-- each statement: it reads each one's stored expression back, plans it
-- and sets it up, however few rows the statement writes. With the 22
-- constraints of these two tables that was about a quarter of
-- PostgreSQL's CPU per move on this project's 2-core machine. A PL/pgSQL
-- trigger's expressions are planned once per connection and only
-- evaluated per row, so the same rules cost a fraction of that, and the
-- database still refuses a row that does not hold together, whatever the
-- code above it does. The rules are those of the constraints they
-- replace, NULL passing as it did there.
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT conrelid::regclass AS t, conname FROM pg_constraint
        WHERE conrelid IN ('games'::regclass, 'moves'::regclass) AND contype = 'c'
    LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.t, c.conname);
    END LOOP;
END
$$;

CREATE FUNCTION games_check() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER games_check BEFORE INSERT OR UPDATE ON games FOR EACH ROW EXECUTE FUNCTION games_check();

CREATE FUNCTION moves_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT (NEW.ply >= 0
        AND NEW.pit BETWEEN 0 AND 11
        AND NEW.version >= 0
        AND NEW.draw_offer IN ('', 'south', 'north')) THEN
        RAISE EXCEPTION 'move % of game % does not hold together', NEW.ply, NEW.game_id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER moves_check BEFORE INSERT OR UPDATE ON moves FOR EACH ROW EXECUTE FUNCTION moves_check();
