package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

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
	// every is the time between two renewals of the Store's registration
	// (beat); zero: listenerBeat. Tests that renew it themselves set it
	// longer than they run.
	every time.Duration
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
	// Registered before it listens, so that every other instance's write
	// that commits once it listens is announced (see "Announcing to the
	// others only" below).
	if _, err := s.register(ctx); err != nil {
		return fmt.Errorf("listen: register: %w", s.read(err))
	}
	defer s.deregister(context.WithoutCancel(ctx))
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
	l.mu.Unlock()
	l.tell("", "", false)
	// The beats end before the registration is removed, so that none
	// writes it again after.
	bctx, stopBeat := context.WithCancel(ctx)
	beating := make(chan struct{})
	go func() {
		defer close(beating)
		l.beat(bctx, s)
	}()
	defer func() {
		stopBeat()
		<-beating
	}()
	for {
		n, err := pc.WaitForNotification(ctx)
		if err != nil {
			return s.read(err)
		}
		_, own := s.pids.Load(n.PID)
		l.tell(n.Channel, n.Payload, own)
	}
}

// beat keeps the Store's registration fresh while it listens, every
// l.every, until ctx ends.
func (l *listener) beat(ctx context.Context, s *Store) {
	every := l.every
	if every <= 0 {
		every = listenerBeat
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = l.refresh(ctx, s) // a failure is retried at the next beat
		}
	}
}

// refresh renews the Store's registration. One found lapsed (it could not
// be renewed in time: the pool had no connection, the database did not
// answer) may have let the other instances stop announcing their plays and
// joins here, so it is made up for as a new LISTEN is: every subscriber to
// the games' changes hears "", and reads again what it holds.
func (l *listener) refresh(ctx context.Context, s *Store) error {
	live, err := s.register(ctx)
	if err != nil || live {
		return err
	}
	l.tell(changesChannel, "", false)
	return nil
}

// Announcing to the others only. An instance that listens registers in
// the listeners table (its Store's instance name and when it was last
// seen), and renews its row every listenerBeat while it listens. The
// statements that announce plays and joins (batchSQL, joinSQL) notify
// only while another instance's row is live, seen within listenerLife:
// alone, an instance's writes send no NOTIFY, which cost PostgreSQL some
// 15 % of its CPU per move on this project's 2-core machine (the lock that
// serializes notifying commits, the queue, the signal to the listening
// backend, its wake-up and send) for news nobody else hears.
//
// No announcement is lost to an instance that starts listening, or whose
// registration lapsed, because the registration takes listenersLock
// exclusively and every batch of writes takes it shared in its first
// statement, so that the statement that notifies, a later one, sees every
// registration committed before its batch got the lock; a registration
// that comes while a batch holds it waits for the batch's commit. So a
// batch that commits after an instance's row is written announces its
// writes to it; one that did not see the row committed before the row
// was written, and so before the instance listens, or (for a lapsed row)
// before its renewal, after which the instance reads again what it holds.
//
// An instance that found no other listening at its registration does not
// even send its plays' news (quietBatchSQL in commit.go): the same look-up,
// under the same lock, then fails its batch instead of announcing it, and
// the batch goes again with its news.
const (
	listenerBeat = 10 * time.Second
	listenerLife = 3 * listenerBeat
	// listenersLock is the advisory lock's key: one per schema, as the
	// table is.
	listenersLock = `hashtextextended('ayoayo listeners ' || coalesce(current_schema(), ''), 0)`
)

// lifeSQL is listenerLife as an SQL interval.
var lifeSQL = fmt.Sprintf("interval '%d seconds'", listenerLife/time.Second)

// registerSQL writes the row of instance $1, seen now (the clock's time,
// after the lock was taken), and says whether its former row was still
// live (false when there was none, or when it had lapsed) and whether
// another instance's row is. Rows a day old, left by instances that
// stopped without leaving, go.
var registerSQL = `WITH was AS (
		SELECT seen > clock_timestamp() - ` + lifeSQL + ` AS live FROM listeners WHERE instance = $1
	), renewed AS (
		INSERT INTO listeners (instance, seen) VALUES ($1, clock_timestamp())
		ON CONFLICT (instance) DO UPDATE SET seen = excluded.seen
	), gone AS (
		DELETE FROM listeners WHERE instance <> $1 AND seen < clock_timestamp() - interval '1 day'
	)
	SELECT coalesce((SELECT live FROM was), false), ` + othersListen(1)

// othersListen is the condition of an announcement by instance $param: a
// live row of another instance (see above).
func othersListen(param int) string {
	return fmt.Sprintf(`EXISTS (SELECT FROM listeners WHERE instance <> $%d AND seen > now() - %s)`, param, lifeSQL)
}

// registerTimeout bounds a registration's wait for a connection and for
// the lock (held by batches for their round trip).
const registerTimeout = 5 * time.Second

// register writes the Store's registration and says whether the former
// one was still live. Whether another instance listens then decides
// whether the committer's batches carry their news (s.announcing).
func (s *Store) register(ctx context.Context) (live bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, registerTimeout)
	defer cancel()
	b := &pgx.Batch{}
	b.Queue(`SELECT pg_advisory_xact_lock(` + listenersLock + `)`)
	b.Queue(registerSQL, s.instance)
	br := s.pool.SendBatch(ctx, b)
	var others bool
	if _, err = br.Exec(); err == nil {
		err = br.QueryRow().Scan(&live, &others)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		s.announcing.Store(others)
	}
	return live, err
}

// deregister removes the Store's registration once it no longer listens:
// the others stop announcing to it (without it, they would for
// listenerLife). A failure leaves the row to lapse.
func (s *Store) deregister(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, registerTimeout)
	defer cancel()
	_, _ = s.pool.Exec(ctx, `DELETE FROM listeners WHERE instance = $1`, s.instance)
}

// tell passes a notification's payload on channel ("": every channel) to
// each subscription to it; "" tells them to read again what they hold.
func (l *listener) tell(channel, payload string, own bool) {
	l.mu.Lock()
	subs := l.matching(channel)
	l.mu.Unlock()
	for _, sub := range subs {
		sub.changed(payload, own)
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
// notifies changesChannel itself, in the play's transaction, whenever
// another instance listens.
func (s *Store) AnnouncesPlays() bool { return true }

// AnnouncesJoins implements games.JoinAnnouncer: Join's statement
// notifies changesChannel itself, in the join's transaction (joinSQL),
// whenever another instance listens, so that a join costs no transaction
// of its own to announce.
func (s *Store) AnnouncesJoins() bool { return true }
