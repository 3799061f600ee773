-- Tournaments: arenas, Swiss events and bulk pairings. An event is one row
-- (its terms, time control and entry conditions as columns) with its
-- entrants, its games and its byes; every write that pairs is conditional
-- on the row's pair_seq. An event's games keep their own copy of each
-- result and refer to no row of games: games are deleted after their
-- retention, and the event keeps its results. Instants are whole
-- microseconds since 1970 (UTC); NULL where there is none yet.
CREATE TABLE tournaments (
    id                TEXT PRIMARY KEY,
    kind              TEXT NOT NULL CHECK (kind IN ('arena', 'swiss')),
    name              TEXT NOT NULL,
    created_by        TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    -- The time control, as games keep theirs.
    time_kind         TEXT NOT NULL DEFAULT '' CHECK (time_kind IN ('', 'live', 'correspondence')),
    time_initial_us   INTEGER NOT NULL DEFAULT 0,
    time_increment_us INTEGER NOT NULL DEFAULT 0,
    time_per_move_us  INTEGER NOT NULL DEFAULT 0,
    rated             INTEGER NOT NULL,
    starts_at         INTEGER NOT NULL,
    minutes           INTEGER NOT NULL DEFAULT 0,  -- an arena's length
    rounds            INTEGER NOT NULL DEFAULT 0,  -- a Swiss event's
    round_gap_us      INTEGER NOT NULL DEFAULT 0,
    berserk           INTEGER NOT NULL DEFAULT 0,
    -- The entry conditions (0: none).
    min_rated_games   INTEGER NOT NULL DEFAULT 0,
    min_rating        REAL NOT NULL DEFAULT 0,
    max_rating        REAL NOT NULL DEFAULT 0,
    status            TEXT NOT NULL CHECK (status IN ('upcoming', 'running', 'finished')),
    round             INTEGER NOT NULL DEFAULT 0,
    round_at          INTEGER,
    pair_seq          INTEGER NOT NULL DEFAULT 0,
    finished_at       INTEGER,
    version           INTEGER NOT NULL
) STRICT;
-- Due (running ones, and upcoming ones by start) and the listings of
-- upcoming and running events, by start.
CREATE INDEX tournaments_by_start ON tournaments (status, starts_at, id);
-- The listing of finished events, newest first.
CREATE INDEX tournaments_finished ON tournaments (finished_at, id) WHERE status = 'finished';

CREATE TABLE tournament_entrants (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id     TEXT NOT NULL,
    name          TEXT NOT NULL,
    rating        REAL NOT NULL,    -- in the event's category, when the player joined
    joined_at     INTEGER NOT NULL,
    joined_round  INTEGER NOT NULL,
    withdrawn     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, player_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE tournament_games (
    game_id       TEXT PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    round         INTEGER NOT NULL,
    south         TEXT NOT NULL,
    north         TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    south_berserk INTEGER NOT NULL DEFAULT 0,
    north_berserk INTEGER NOT NULL DEFAULT 0,
    -- The result, copied once when the game ends (done).
    done          INTEGER NOT NULL DEFAULT 0,
    outcome       INTEGER NOT NULL DEFAULT 0,  -- pairing.Outcome
    plies         INTEGER NOT NULL DEFAULT 0,
    ended_at      INTEGER,
    aborted       INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX tournament_games_by_event ON tournament_games (tournament_id, created_at, game_id);

CREATE TABLE tournament_byes (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    round         INTEGER NOT NULL,
    player_id     TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round, player_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE bulk_pairings (
    id                TEXT PRIMARY KEY,
    created_by        TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    time_kind         TEXT NOT NULL DEFAULT '' CHECK (time_kind IN ('', 'live', 'correspondence')),
    time_initial_us   INTEGER NOT NULL DEFAULT 0,
    time_increment_us INTEGER NOT NULL DEFAULT 0,
    time_per_move_us  INTEGER NOT NULL DEFAULT 0,
    rated             INTEGER NOT NULL,
    clock_starts_at   INTEGER           -- NULL: the clocks start at once
) STRICT;

-- A bulk pairing's games, in the order it was given them (seq).
CREATE TABLE bulk_pairing_games (
    bulk_id TEXT NOT NULL REFERENCES bulk_pairings (id),
    seq     INTEGER NOT NULL,
    game_id TEXT NOT NULL UNIQUE,
    south   TEXT NOT NULL,
    north   TEXT NOT NULL,
    PRIMARY KEY (bulk_id, seq)
) STRICT, WITHOUT ROWID;

-- The tournament (or bulk pairing) of a tournamentGame event, and of a
-- tournament stream's events; NULL for the others.
ALTER TABLE lobby_events ADD COLUMN tournament_id TEXT;
