-- Offers in a game (issue 31), as SQLite's migration 0012: the side whose
-- draw offer stands and the side whose takeback proposal stands, '' for
-- none, in the game's row, so that every change to them is one write
-- conditional on the game's version; a move, an end or a takeback clears
-- them. And a new end reason, agreement, below.
ALTER TABLE games
    ADD COLUMN draw_offer text NOT NULL DEFAULT '' CHECK (draw_offer IN ('', 'south', 'north')),
    ADD COLUMN takeback_offer text NOT NULL DEFAULT '' CHECK (takeback_offer IN ('', 'south', 'north'));

-- A new end reason: 'agreement', a draw both sides agreed to.
ALTER TABLE games
    DROP CONSTRAINT games_end_reason_check,
    ADD CONSTRAINT games_end_reason_check
        CHECK (end_reason IN ('', 'majority', 'no_moves', 'repetition', 'resignation', 'timeout', 'agreement'));
