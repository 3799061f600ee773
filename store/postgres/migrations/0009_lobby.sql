-- The lobby (issue 31): seeks, challenges, the players' event streams and
-- their tickets. The columns are what queries select on; the rest of a
-- seek's or challenge's terms, which never change, is one JSON document
-- (terms).
CREATE TABLE seeks (
    id           text PRIMARY KEY,
    player_id    text NOT NULL,
    status       text NOT NULL CHECK (status IN ('open', 'matched', 'cancelled', 'expired')),
    time_kind    text NOT NULL CHECK (time_kind IN ('live', 'correspondence')),
    time_control text NOT NULL,   -- stored.TimeControlKey: equal exactly when the time controls are
    rated        boolean NOT NULL,
    rating       double precision NOT NULL,   -- the owner's, in the category, when posted
    range_min    double precision,            -- NULL: no range
    range_max    double precision,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    game_id      text,
    side         text,
    terms        text NOT NULL
);
-- Pairing: the oldest open seeks of one time control.
CREATE INDEX seeks_pairing ON seeks (time_control, rated, created_at, id) WHERE status = 'open';
-- The lobby: open seeks, newest first.
CREATE INDEX seeks_lobby ON seeks (created_at, id) WHERE status = 'open';
CREATE INDEX seeks_player ON seeks (player_id) WHERE status = 'open';
CREATE INDEX seeks_expiry ON seeks (expires_at) WHERE status = 'open';

CREATE TABLE challenges (
    id          text PRIMARY KEY,
    from_player text NOT NULL,
    to_player   text,             -- NULL: an open challenge
    status      text NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled', 'expired')),
    time_kind   text NOT NULL,
    rated       boolean NOT NULL,
    rematch_of  text,
    reason      text,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    game_id     text,
    side        text,
    accepted_by text,
    terms       text NOT NULL
);
CREATE INDEX challenges_from ON challenges (from_player) WHERE status = 'pending';
CREATE INDEX challenges_to ON challenges (to_player) WHERE status = 'pending';
CREATE INDEX challenges_expiry ON challenges (expires_at) WHERE status = 'pending';
-- One pending rematch per game: two players asking at once make one.
CREATE UNIQUE INDEX challenges_rematch ON challenges (rematch_of) WHERE status = 'pending' AND rematch_of IS NOT NULL;

-- Each stream's events (a player's id, or '~lobby'), numbered from 1.
CREATE TABLE lobby_events (
    stream text NOT NULL,
    seq    bigint NOT NULL,
    kind   text NOT NULL,
    at     timestamptz NOT NULL,
    data   text NOT NULL,
    PRIMARY KEY (stream, seq)
);
CREATE INDEX lobby_events_at ON lobby_events (at);

-- Single-use tickets that open one event stream (for EventSource, which
-- cannot send a header): the SHA-256 of the ticket only.
CREATE TABLE stream_tickets (
    hash       bytea PRIMARY KEY,
    player_id  text NOT NULL,
    expires_at timestamptz NOT NULL
);
