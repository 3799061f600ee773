-- Idempotency keys (issue 34): one row per key of a creating request, kept
-- a day. Nothing here reveals a key, a request or an answer: id is a hash of
-- the operation and the key, fingerprint an HMAC of the request under a key
-- derived from the Idempotency-Key, sealed the answer AES-GCM sealed under
-- another (see package idempotency). sealed is NULL while the request runs;
-- holder names that request.
CREATE TABLE idempotency_keys (
    id          bytea PRIMARY KEY CHECK (length(id) = 32),
    fingerprint bytea NOT NULL,
    holder      bytea NOT NULL,
    sealed      bytea,
    expires     timestamptz NOT NULL
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires);
