-- Idempotency keys (issue 34): one row per key of a creating request, kept
-- a day. Nothing here reveals a key, a request or an answer: id is a hash of
-- the operation and the key, fingerprint an HMAC of the request under a key
-- derived from the Idempotency-Key, sealed the answer AES-GCM sealed under
-- another (see package idempotency). sealed is NULL while the request runs;
-- holder names that request. Instants are whole microseconds since 1970.
CREATE TABLE idempotency_keys (
    id          BLOB PRIMARY KEY CHECK (length(id) = 32),
    fingerprint BLOB NOT NULL,
    holder      BLOB NOT NULL,
    sealed      BLOB,
    expires_us  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_us);
