-- The daily puzzle feed: one row per date, written once by the first request
-- for that date (or by `ayoayo puzzles generate`), and never changed after,
-- whatever later generator versions do; only the counters move.
CREATE TABLE puzzles (
    id           text PRIMARY KEY,              -- p20260314, derived from the date
    date         date NOT NULL UNIQUE,          -- the UTC day
    version      integer NOT NULL,              -- the generator version that made it
    position     text NOT NULL,                 -- engine text notation
    capture_seed text NOT NULL CHECK (capture_seed IN ('taken', 'left')),
    leftovers    text NOT NULL CHECK (leftovers IN ('last_mover', 'side_owner')),
    goal         text NOT NULL,
    depth        integer NOT NULL,
    prompt       text NOT NULL,
    themes       text[] NOT NULL,
    difficulty   integer NOT NULL CHECK (difficulty BETWEEN 1 AND 5),
    key_legs     integer NOT NULL,
    solution     smallint[] NOT NULL CHECK (0 <= ALL (solution) AND 11 >= ALL (solution)), -- every ply
    attempts     integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    solved       integer NOT NULL DEFAULT 0 CHECK (solved BETWEEN 0 AND attempts),
    created_at   timestamptz NOT NULL
);

-- A published puzzle is immutable: the database refuses to change it, so no
-- code path can, by mistake or by a migration run against the wrong column.
-- The row is compared whole but for the counters, so a column added later is
-- covered without touching this function.
CREATE FUNCTION puzzles_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF to_jsonb(NEW) - 'attempts' - 'solved' IS DISTINCT FROM to_jsonb(OLD) - 'attempts' - 'solved' THEN
        RAISE EXCEPTION 'a stored puzzle never changes (puzzle %)', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER puzzles_immutable BEFORE UPDATE ON puzzles
    FOR EACH ROW EXECUTE FUNCTION puzzles_immutable();
