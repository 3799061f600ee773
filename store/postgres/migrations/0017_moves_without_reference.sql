-- The moves of a game no longer carry a foreign key to it. Every statement
-- that inserts moves writes their game in the same statement, and only
-- for a game it wrote (the batch of plays inserts the moves of the games
-- its UPDATE returned; a game's creation inserts its first moves with it),
-- so the key's check of each new move, a look-up and a lock of the game's
-- row for each, could never fail, and cost about 15 % of PostgreSQL's CPU
-- per move (BenchmarkPlayBatch, on this project's 2-core machine). What
-- the key did on the other side, deleting a game's moves with it, a
-- trigger does instead, once per statement, whatever deletes the games
-- (the retention of ended games, an instance of an earlier release, an
-- operator's own DELETE).
ALTER TABLE moves DROP CONSTRAINT moves_game_id_fkey;

CREATE FUNCTION games_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM moves WHERE game_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;

CREATE TRIGGER games_deleted AFTER DELETE ON games
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION games_deleted();
