-- Offers in a game (issue 31): the side whose draw offer stands and the
-- side whose takeback proposal stands, '' for none. They live in the
-- game's row so that every change to them is one write conditional on the
-- game's version, as moves are; a move, an end or a takeback clears them.
ALTER TABLE games ADD COLUMN draw_offer TEXT NOT NULL DEFAULT ''
    CHECK (draw_offer IN ('', 'south', 'north'));
ALTER TABLE games ADD COLUMN takeback_offer TEXT NOT NULL DEFAULT ''
    CHECK (takeback_offer IN ('', 'south', 'north'));
