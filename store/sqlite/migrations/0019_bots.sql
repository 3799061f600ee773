-- Bot accounts (players.Service.MakeBot): a player becomes a bot once, for
-- good, before any rated game. seen_at is when an open player event stream
-- last touched a bot (lobby's Touch, every StreamGrace/2 while it is open),
-- in unix microseconds; NULL never. GET /v1/bots/online reads the bots
-- seen within the grace, by id, through players_bots.
ALTER TABLE players ADD COLUMN bot INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1));
ALTER TABLE players ADD COLUMN seen_at INTEGER;
CREATE INDEX players_bots ON players (id, seen_at) WHERE bot = 1;

-- A tournament lets bots in only when its conditions say so.
ALTER TABLE tournaments ADD COLUMN bots INTEGER NOT NULL DEFAULT 0 CHECK (bots IN (0, 1));
