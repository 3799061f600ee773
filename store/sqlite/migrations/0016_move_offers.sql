-- The draw offer that stood as a move's request left the game ('' none,
-- else the side that made it: the mover's own, offered before it moved),
-- so that the request's retry answers with the offers of its first answer
-- rather than those that stand by then. Moves stored before read ''.
ALTER TABLE moves ADD COLUMN draw_offer TEXT NOT NULL DEFAULT '' CHECK (draw_offer IN ('', 'south', 'north'));
