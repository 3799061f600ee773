-- Answers rebuilt, not stored (issue 32). A retried move request's answer
-- is rebuilt from its moves' records and the game's row, so the answers
-- table goes: with clocks in them, the answers were some 420 of the 490
-- bytes a stored move took. A move keeps one thing more, the game's
-- version after the request that made it, which its answer shows and
-- which later writes of other kinds than moves make impossible to count
-- back to; a small integer, 0 or 1 bytes in most rows.
--
-- An older file keeps its retries: the only moves a seat can retry are
-- each seat's latest, the very ones the answers table held, and each gets
-- the version its stored answer shows. Every other move keeps 0, which no
-- retry ever reads. An answer that is not the API's JSON (no such file was
-- written by a server) gives none, and its retry is refused as any other
-- request.
ALTER TABLE moves ADD COLUMN version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0);

UPDATE moves
SET version = coalesce((
    SELECT CAST(json_extract(CAST(a.body AS TEXT), '$.game.version') AS INTEGER)
    FROM answers a
    WHERE a.game_id = moves.game_id AND a.ply = moves.ply AND a.pit = moves.pit
      AND json_valid(CAST(a.body AS TEXT))), 0)
WHERE EXISTS (SELECT 1 FROM answers a WHERE a.game_id = moves.game_id AND a.ply = moves.ply);

DROP TABLE answers;
