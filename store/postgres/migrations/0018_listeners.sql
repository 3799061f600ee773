-- The instances that listen for the games' announcements. A NOTIFY costs
-- PostgreSQL work at every commit that sends one (a database-wide lock
-- held to the end of the commit, the queue's entry, a signal to every
-- listening backend, which then wakes and sends it on) even when the only
-- instance listening is the one that sent it, which has no use for its own
-- news. So an instance registers here while it listens, keeps its row
-- fresh, and the statements that announce plays and joins notify only
-- while another instance's row is (changes.go).
CREATE TABLE listeners (
    instance text PRIMARY KEY,
    seen timestamptz NOT NULL
);

-- The announcements look for a live row by when it was seen, and the
-- batches that send them plan with index scans only (commit.go): without
-- an index here that look-up would cost the planner's penalty for a
-- sequential scan, large enough to make PostgreSQL compile the batch's
-- statement with JIT, which takes longer than running it many times.
CREATE INDEX listeners_seen ON listeners (seen);
