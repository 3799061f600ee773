-- Scoped tokens and OAuth authorization codes (issue 48). A token or a
-- code is kept as the SHA-256 of its secret, never the secret; its scopes
-- are one space-separated text, as OAuth's scope parameter writes them.
-- Both go with their player. A revoked token keeps its row (revoked_at),
-- so that it answers token_revoked rather than an unknown token's 401; a
-- code keeps its used_at, so that a second use is told from an unknown
-- code and revokes the tokens of the first (grant_id).
CREATE TABLE player_tokens (
    id          text PRIMARY KEY,
    player_id   text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    hash        bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    description text NOT NULL,
    scopes      text NOT NULL,
    client_id   text NOT NULL DEFAULT '',  -- the OAuth app's; '' for a token the player made
    grant_id    text NOT NULL DEFAULT '',  -- the authorization code's id; '' likewise
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz,
    revoked_at  timestamptz
);

-- A player's list, and the deletion's cascade.
CREATE INDEX player_tokens_player ON player_tokens (player_id, created_at, id);
-- A reused code's tokens.
CREATE INDEX player_tokens_grant ON player_tokens (grant_id) WHERE grant_id <> '';

CREATE TABLE oauth_codes (
    id           text PRIMARY KEY,
    hash         bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    player_id    text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    client_id    text NOT NULL,
    redirect_uri text NOT NULL,
    scopes       text NOT NULL,
    challenge    text NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz
);

CREATE INDEX oauth_codes_player ON oauth_codes (player_id);
