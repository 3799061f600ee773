-- Games from before time existed have no deadline, so they would wait for
-- ever. Each waiting or active one gets the deadline the server's defaults
-- would have given it: a waiting game is aborted 24 hours after its
-- creation (--waiting-expiry), an active one, untimed, ends by timeout 30
-- days after its last change (--idle-expiry). Deadlines are whole
-- microseconds since 1970, as 0005 keeps them, read from the fixed-width
-- text times (YYYY-MM-DDTHH:MM:SS.ffffffZ) as 0004 reads them.
UPDATE games
SET deadline_us = CAST(strftime('%s', substr(created_at, 1, 19)) AS INTEGER) * 1000000 + CAST(substr(created_at, 21, 6) AS INTEGER) + 24 * 3600 * 1000000
WHERE status = 'waiting' AND deadline_us IS NULL;

UPDATE games
SET deadline_us = CAST(strftime('%s', substr(updated_at, 1, 19)) AS INTEGER) * 1000000 + CAST(substr(updated_at, 21, 6) AS INTEGER) + 30 * 24 * 3600 * 1000000
WHERE status = 'active' AND deadline_us IS NULL;
