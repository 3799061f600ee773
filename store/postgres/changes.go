package postgres

import (
	"context"
	"fmt"
)

// changesChannel is the PostgreSQL notification channel on which every
// instance announces the games it changed.
const changesChannel = "ayoayo_game_changes"

// Publish implements games.Changes: a NOTIFY that every instance listening
// on the same database receives (this one included) once it is sent.
func (s *Store) Publish(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, $2)", changesChannel, id)
	return err
}

// Listen implements games.Changes: it holds one connection of the pool,
// LISTENs on it and calls changed with each announced game id until ctx ends
// or the connection fails (the caller retries; meanwhile the followers'
// polling sees every change).
func (s *Store) Listen(ctx context.Context, changed func(id string)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.read(err)
	}
	// A connection that has LISTENed must not go back to the pool for
	// others: it would keep receiving, and its queue would grow unread.
	pc := conn.Hijack()
	defer pc.Close(context.WithoutCancel(ctx))
	if _, err := pc.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return fmt.Errorf("listen: %w", s.read(err))
	}
	// Listening from now on: what was announced before, while the previous
	// connection was down, is for the feeds to read now.
	changed("")
	for {
		n, err := pc.WaitForNotification(ctx)
		if err != nil {
			return s.read(err)
		}
		changed(n.Payload)
	}
}
