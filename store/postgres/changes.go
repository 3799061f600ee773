package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ayoayo/ayoayo/games"
)

// The PostgreSQL notification channels on which every instance announces
// what it changed: the games (their ids), and the lobby's event streams
// (their names).
const (
	changesChannel = "ayoayo_game_changes"
	lobbyChannel   = "ayoayo_lobby_events"
)

// Publish implements games.Changes: a NOTIFY that every instance listening
// on the same database receives (this one included) once it is sent.
func (s *Store) Publish(ctx context.Context, id string) error {
	if id == "" || strings.ContainsAny(id, " \n") {
		// A notification's lines are ids, each followed by its news.
		return fmt.Errorf("publish game id %q: not an id", id)
	}
	_, err := s.pool.Exec(ctx, notifySQL, changesChannel, id)
	return err
}

// notifySQL sends a notification in a transaction of its own that does not
// wait for its commit to reach the disk: a NOTIFY makes its transaction
// write a commit record, and, synchronous_commit being on, wait for the
// WAL's flush, a second flush after that of the change it announces. What
// it announces is durable already, and an announcement lost with the
// database is made up for by the listeners, which read everything again
// when they listen anew.
const notifySQL = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)"

// Listen implements games.Changes: it calls changed with each announced
// game id until ctx ends or the listening connection fails (the caller
// retries; meanwhile the followers' polling sees every change).
func (s *Store) Listen(ctx context.Context, changed func(id string)) error {
	return s.ListenNews(ctx, func(h games.Heard) { changed(h.ID) })
}

// ListenNews implements games.NewsListener: Listen, with the news of each
// play a committer's batch wrote (news.go).
func (s *Store) ListenNews(ctx context.Context, changed func(games.Heard)) error {
	return s.listener.listen(ctx, s, changesChannel, func(payload string, own bool) { eachChange(payload, own, changed) })
}

// PublishEvents implements lobby.Changes.
func (s *Store) PublishEvents(ctx context.Context, stream string) error {
	_, err := s.pool.Exec(ctx, notifySQL, lobbyChannel, stream)
	return err
}

// ListenEvents implements lobby.Changes, as Listen does for games.
func (s *Store) ListenEvents(ctx context.Context, changed func(stream string)) error {
	return s.listener.listen(ctx, s, lobbyChannel, func(stream string, _ bool) { changed(stream) })
}

// listener is a Store's one listening connection: every Listen and
// ListenEvents of the Store shares it, so an instance holds one connection
// out of its pool for notifications however many kinds it listens to. It
// runs while anyone listens; when it fails, every listener's call returns
// the error, and the next call starts it again.
type listener struct {
	mu   sync.Mutex
	subs map[*subscription]struct{}
	// loop is the running connection's, nil when none runs.
	loop *listenLoop
	// connections counts the connections that LISTENed, pid is the
	// server process of the latest (for the tests).
	connections int
	pid         uint32
}

type subscription struct {
	channel string
	changed func(payload string, own bool) // own: sent by this Store's pool
	failed  chan error                     // the loop's end, if it fails first
}

type listenLoop struct {
	stop context.CancelFunc
	live bool          // it LISTENs on every channel
	done chan struct{} // closed when its connection is closed
}

// listen calls changed with the payload of every notification on channel
// until ctx ends or the shared connection fails, and with "" once the
// connection listens (what was announced before is for the caller to
// read then).
func (l *listener) listen(ctx context.Context, s *Store, channel string, changed func(payload string, own bool)) error {
	sub := &subscription{channel: channel, changed: changed, failed: make(chan error, 1)}
	l.mu.Lock()
	if l.subs == nil {
		l.subs = map[*subscription]struct{}{}
	}
	l.subs[sub] = struct{}{}
	live := false
	if l.loop == nil {
		// Its own context: it outlives the call that started it while
		// others listen, and stops when the last one leaves.
		lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		loop := &listenLoop{stop: stop, done: make(chan struct{})}
		l.loop = loop
		go l.run(lctx, s, loop)
	} else {
		live = l.loop.live
	}
	l.mu.Unlock()
	if live {
		changed("", false)
	}
	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case err = <-sub.failed:
	}
	l.mu.Lock()
	delete(l.subs, sub)
	var stopped *listenLoop
	if len(l.subs) == 0 && l.loop != nil {
		stopped = l.loop
		stopped.stop()
		l.loop = nil
	}
	l.mu.Unlock()
	if stopped != nil {
		<-stopped.done // the last one out leaves no connection behind
	}
	return err
}

// run holds the listening connection of loop until ctx ends or it fails,
// and hands each notification to the subscriptions of its channel.
func (l *listener) run(ctx context.Context, s *Store, loop *listenLoop) {
	defer close(loop.done)
	err := l.hold(ctx, s, loop)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loop != loop {
		return // stopped: nobody listens any more, or a newer loop runs
	}
	l.loop = nil
	loop.stop()
	for sub := range l.subs {
		sub.failed <- err
		delete(l.subs, sub)
	}
}

func (l *listener) hold(ctx context.Context, s *Store, loop *listenLoop) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.read(err)
	}
	// A connection that has LISTENed must not go back to the pool for
	// others: it would keep receiving, and its queue would grow unread.
	pc := conn.Hijack()
	defer pc.Close(context.WithoutCancel(ctx))
	// Out of the pool, it is no longer one of the Store's own senders.
	s.pids.Delete(pc.PgConn().PID())
	for _, ch := range []string{changesChannel, lobbyChannel} {
		if _, err := pc.Exec(ctx, "LISTEN "+ch); err != nil {
			return fmt.Errorf("listen: %w", s.read(err))
		}
	}
	// Listening from now on: what was announced before, while no
	// connection listened, is for the listeners to read now.
	l.mu.Lock()
	l.connections++
	l.pid = pc.PgConn().PID()
	loop.live = true
	now := l.matching("")
	l.mu.Unlock()
	for _, sub := range now {
		sub.changed("", false)
	}
	for {
		n, err := pc.WaitForNotification(ctx)
		if err != nil {
			return s.read(err)
		}
		l.mu.Lock()
		subs := l.matching(n.Channel)
		l.mu.Unlock()
		_, own := s.pids.Load(n.PID)
		for _, sub := range subs {
			sub.changed(n.Payload, own)
		}
	}
}

// matching returns the subscriptions to channel ("": all); l.mu is held.
func (l *listener) matching(channel string) []*subscription {
	var out []*subscription
	for sub := range l.subs {
		if channel == "" || sub.channel == channel {
			out = append(out, sub)
		}
	}
	return out
}

// AnnouncesPlays implements games.PlayAnnouncer: ApplyPlay's statement
// notifies changesChannel itself, in the play's transaction.
func (s *Store) AnnouncesPlays() bool { return true }

// AnnouncesJoins implements games.JoinAnnouncer: Join's statement
// notifies changesChannel itself, in the join's transaction (joinSQL), so
// that a join costs no transaction of its own to announce.
func (s *Store) AnnouncesJoins() bool { return true }
