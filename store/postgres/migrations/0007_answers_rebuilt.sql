-- Answers rebuilt, not stored (issue 32), as SQLite's migration 0009: a
-- retried move request's answer is rebuilt from its moves' records and the
-- game's row, so the answers table goes, and a move keeps the game's
-- version after the request that made it (which its answer shows, and
-- later writes of other kinds than moves make impossible to count back
-- to).
--
-- Each seat's latest move, the only one it can retry, gets the version its
-- stored answer shows; every other move keeps 0, which no retry reads. An
-- answer that is not the API's JSON gives none (its retry is then refused
-- as any other request), rather than failing the migration.
ALTER TABLE moves ADD COLUMN version bigint NOT NULL DEFAULT 0 CHECK (version >= 0);

CREATE FUNCTION pg_temp.answer_version(body bytea) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
    RETURN (convert_from(body, 'UTF8')::jsonb #>> '{game,version}')::bigint;
EXCEPTION WHEN others THEN
    RETURN NULL;
END
$$;

UPDATE moves m
SET version = coalesce(pg_temp.answer_version(a.body), 0)
FROM answers a
WHERE a.game_id = m.game_id AND a.ply = m.ply AND a.pit = m.pit;

DROP TABLE answers;
