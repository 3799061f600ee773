-- The lobby (issue 31): seeks, challenges, the players' event streams and
-- their tickets. The columns are what queries select on; the rest of a
-- seek's or challenge's terms, which never change, is one JSON document
-- (terms). Instants are whole microseconds since 1970 (UTC).
CREATE TABLE seeks (
    id           TEXT PRIMARY KEY,
    player_id    TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('open', 'matched', 'cancelled', 'expired')),
    time_kind    TEXT NOT NULL CHECK (time_kind IN ('live', 'correspondence')),
    time_control TEXT NOT NULL,   -- stored.TimeControlKey: equal exactly when the time controls are
    rated        INTEGER NOT NULL,
    rating       REAL NOT NULL,   -- the owner's, in the category, when posted
    range_min    REAL,            -- NULL: no range
    range_max    REAL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    game_id      TEXT,
    side         TEXT,
    terms        TEXT NOT NULL
) STRICT;
-- Pairing: the oldest open seeks of one time control.
CREATE INDEX seeks_pairing ON seeks (time_control, rated, created_at, id) WHERE status = 'open';
-- The lobby: open seeks, newest first.
CREATE INDEX seeks_lobby ON seeks (created_at, id) WHERE status = 'open';
CREATE INDEX seeks_player ON seeks (player_id) WHERE status = 'open';
CREATE INDEX seeks_expiry ON seeks (expires_at) WHERE status = 'open';

CREATE TABLE challenges (
    id          TEXT PRIMARY KEY,
    from_player TEXT NOT NULL,
    to_player   TEXT,             -- NULL: an open challenge
    status      TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled', 'expired')),
    time_kind   TEXT NOT NULL,
    rated       INTEGER NOT NULL,
    rematch_of  TEXT,
    reason      TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    game_id     TEXT,
    side        TEXT,
    accepted_by TEXT,
    terms       TEXT NOT NULL
) STRICT;
CREATE INDEX challenges_from ON challenges (from_player) WHERE status = 'pending';
CREATE INDEX challenges_to ON challenges (to_player) WHERE status = 'pending';
CREATE INDEX challenges_expiry ON challenges (expires_at) WHERE status = 'pending';
-- One pending rematch per game: two players asking at once make one.
CREATE UNIQUE INDEX challenges_rematch ON challenges (rematch_of) WHERE status = 'pending' AND rematch_of IS NOT NULL;

-- Each stream's events (a player's id, or '~lobby'), numbered from 1.
CREATE TABLE lobby_events (
    stream TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    kind   TEXT NOT NULL,
    at     INTEGER NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (stream, seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX lobby_events_at ON lobby_events (at);

-- Single-use tickets that open one event stream (for EventSource, which
-- cannot send a header): the SHA-256 of the ticket only.
CREATE TABLE stream_tickets (
    hash       BLOB PRIMARY KEY,
    player_id  TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
