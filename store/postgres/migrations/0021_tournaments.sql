-- The tournament (or bulk pairing) of a tournamentGame event, and of a
-- tournament stream's events; NULL for the others.
ALTER TABLE lobby_events ADD COLUMN tournament_id text;
