-- A player's games for an export (GET /v1/players/{id}/games/export): the
-- active and finished games of each seat, in the order of their creation,
-- so an export walks down each index a page at a time and merges the two.
-- created_at is fixed-width text, so its order is time's.
CREATE INDEX games_south_export ON games (south_player, created_at, id)
    WHERE status IN ('active', 'finished') AND south_player IS NOT NULL;
CREATE INDEX games_north_export ON games (north_player, created_at, id)
    WHERE status IN ('active', 'finished') AND north_player IS NOT NULL;
