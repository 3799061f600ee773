-- Tournaments: arenas, Swiss events and bulk pairings. An event is one row
-- (its terms, time control and entry conditions as columns) with its
-- entrants, its games and its byes; every write that pairs is conditional
-- on the row's pair_seq, and updates the row first, so its row lock
-- serializes the instances that pair one event at once. An event's games
-- keep their own copy of each result and refer to no row of games: games
-- are deleted after their retention, and the event keeps its results.
-- Instants are NULL where there is none yet.
CREATE TABLE tournaments (
    id                text PRIMARY KEY,
    kind              text NOT NULL CHECK (kind IN ('arena', 'swiss')),
    name              text NOT NULL,
    created_by        text NOT NULL,
    created_at        timestamptz NOT NULL,
    -- The time control, as games keep theirs.
    time_kind         text NOT NULL DEFAULT '' CHECK (time_kind IN ('', 'live', 'correspondence')),
    time_initial_us   bigint NOT NULL DEFAULT 0,
    time_increment_us bigint NOT NULL DEFAULT 0,
    time_per_move_us  bigint NOT NULL DEFAULT 0,
    rated             boolean NOT NULL,
    starts_at         timestamptz NOT NULL,
    minutes           integer NOT NULL DEFAULT 0,  -- an arena's length
    rounds            integer NOT NULL DEFAULT 0,  -- a Swiss event's
    round_gap_us      bigint NOT NULL DEFAULT 0,
    berserk           boolean NOT NULL DEFAULT false,
    -- The entry conditions (0: none).
    min_rated_games   integer NOT NULL DEFAULT 0,
    min_rating        double precision NOT NULL DEFAULT 0,
    max_rating        double precision NOT NULL DEFAULT 0,
    status            text NOT NULL CHECK (status IN ('upcoming', 'running', 'finished')),
    round             integer NOT NULL DEFAULT 0,
    round_at          timestamptz,
    pair_seq          bigint NOT NULL DEFAULT 0,
    finished_at       timestamptz,
    version           bigint NOT NULL
);
-- Due (running ones, and upcoming ones by start) and the listings of
-- upcoming and running events, by start.
CREATE INDEX tournaments_by_start ON tournaments (status, starts_at, id);
-- The listing of finished events, newest first.
CREATE INDEX tournaments_finished ON tournaments (finished_at, id) WHERE status = 'finished';

CREATE TABLE tournament_entrants (
    tournament_id text NOT NULL REFERENCES tournaments (id),
    player_id     text NOT NULL,
    name          text NOT NULL,
    rating        double precision NOT NULL,  -- in the event's category, when the player joined
    joined_at     timestamptz NOT NULL,
    joined_round  integer NOT NULL,
    withdrawn     boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tournament_id, player_id)
);

CREATE TABLE tournament_games (
    game_id       text PRIMARY KEY,
    tournament_id text NOT NULL REFERENCES tournaments (id),
    round         integer NOT NULL,
    south         text NOT NULL,
    north         text NOT NULL,
    created_at    timestamptz NOT NULL,
    south_berserk boolean NOT NULL DEFAULT false,
    north_berserk boolean NOT NULL DEFAULT false,
    -- The result, copied once when the game ends (done).
    done          boolean NOT NULL DEFAULT false,
    outcome       smallint NOT NULL DEFAULT 0,  -- pairing.Outcome
    plies         integer NOT NULL DEFAULT 0,
    ended_at      timestamptz,
    aborted       boolean NOT NULL DEFAULT false
);
CREATE INDEX tournament_games_by_event ON tournament_games (tournament_id, created_at, game_id);

CREATE TABLE tournament_byes (
    tournament_id text NOT NULL REFERENCES tournaments (id),
    round         integer NOT NULL,
    player_id     text NOT NULL,
    PRIMARY KEY (tournament_id, round, player_id)
);

CREATE TABLE bulk_pairings (
    id                text PRIMARY KEY,
    created_by        text NOT NULL,
    created_at        timestamptz NOT NULL,
    time_kind         text NOT NULL DEFAULT '' CHECK (time_kind IN ('', 'live', 'correspondence')),
    time_initial_us   bigint NOT NULL DEFAULT 0,
    time_increment_us bigint NOT NULL DEFAULT 0,
    time_per_move_us  bigint NOT NULL DEFAULT 0,
    rated             boolean NOT NULL,
    clock_starts_at   timestamptz           -- NULL: the clocks start at once
);

-- A bulk pairing's games, in the order it was given them (seq).
CREATE TABLE bulk_pairing_games (
    bulk_id text NOT NULL REFERENCES bulk_pairings (id),
    seq     integer NOT NULL,
    game_id text NOT NULL UNIQUE,
    south   text NOT NULL,
    north   text NOT NULL,
    PRIMARY KEY (bulk_id, seq)
);

-- The tournament (or bulk pairing) of a tournamentGame event, and of a
-- tournament stream's events; NULL for the others.
ALTER TABLE lobby_events ADD COLUMN tournament_id text;
