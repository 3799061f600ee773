-- Games from before time existed have no deadline, so they would wait for
-- ever. Each waiting or active one gets the deadline the server's defaults
-- would have given it: a waiting game is aborted 24 hours after its
-- creation (--waiting-expiry), an active one, untimed, ends by timeout 30
-- days after its last change (--idle-expiry).
UPDATE games SET deadline = created_at + interval '24 hours'
WHERE status = 'waiting' AND deadline IS NULL;

UPDATE games SET deadline = updated_at + interval '30 days'
WHERE status = 'active' AND deadline IS NULL;
