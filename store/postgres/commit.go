package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// Group commit. A move's write is small; what it costs PostgreSQL is the
// commit: a WAL flush, and, since the write announces the move (a NOTIFY in
// the same transaction, see ApplyPlay), the database-wide lock that
// serializes the commits of every transaction that notifies, held until its
// flush is done. So the plays (the writes of moves, the bulk of the writes)
// go through committers: the plays that arrive while a commit is under way
// wait together and go into the next transaction, sent as one pipelined
// batch of prepared statements in one round trip (pgx sends a batch with a
// single Sync, so PostgreSQL runs it as one implicit transaction and commits
// it once).
//
// Each play is its own conditional statement, so a stale one (a wrong ply)
// updates nothing, writes nothing and is answered games.ErrConflict alone
// while the others of its batch commit. A statement that fails aborts the
// whole batch: when the database failed (a lost connection, a shutdown)
// every play of it is answered with the store's error (fault.ErrUnavailable,
// uncertain as for any write whose commit may have happened); otherwise the
// plays are sent again one by one, so one bad write fails alone. Nobody is
// answered before the commit that holds their play, so an answer still means
// the move is stored. The plays of a batch lock their games' rows in game id
// order, and so do every other batch's (another instance's): two batches
// never wait for each other in a cycle.

// maxBatch bounds the plays in one transaction.
const maxBatch = 64

// committers is how many batches of one store may be under way at once:
// one. A second would only wait for the first's commit (the notify lock
// serializes them) while holding its rows, and would split the plays that
// queue meanwhile in two: on this project's 2-core machine, one instance at
// 16 requests in flight made 2,362 moves/s with one committer (7.0 plays
// per commit), 1,099 with two (4.7) and 861 with four (2.8).
const committers = 1

// batchTimeout bounds a batch's round trip: a database that stopped
// answering fails the plays rather than holding them, and their requests,
// for the system's TCP timeout.
const batchTimeout = 15 * time.Second

// errClosed: the store was closed before the play could be written.
var errClosed = errors.New("postgres: store closed")

type pendingPlay struct {
	ctx  context.Context
	id   string
	args []any
	done chan error // nil, errUnmatched, or the batch's error
}

// errUnmatched is a play's answer when its conditional statement matched no
// row: the caller finds out why (games.ErrNotFound or games.ErrConflict).
var errUnmatched = errors.New("play matched no row")

// committer runs the batches. It starts with the first play and stops at
// Close.
type committer struct {
	plays   *stored.Queue[*pendingPlay]
	stopped sync.WaitGroup

	// batches and batched count the batches committed and the plays in
	// them, for BatchCounts.
	batches, batched atomic.Int64
}

// BatchCounts returns how many batches of plays the store committed and
// how many plays they carried: their ratio is the moves per commit.
func (s *Store) BatchCounts() (batches, plays int64) {
	c := s.committer()
	return c.batches.Load(), c.batched.Load()
}

func (s *Store) committer() *committer {
	s.commitOnce.Do(func() {
		c := &committer{plays: stored.NewQueue[*pendingPlay](maxBatch)}
		for range committers {
			c.stopped.Go(func() { s.commitLoop(c) })
		}
		s.commit = c
	})
	return s.commit
}

// play writes a play's statement (playSQL with args) in the next batch,
// and returns nil, errUnmatched, or the named error of the batch.
func (s *Store) play(ctx context.Context, id string, args []any) error {
	p := &pendingPlay{ctx: ctx, id: id, args: args, done: make(chan error, 1)}
	if err := s.committer().plays.Put(ctx, p, errClosed); err != nil {
		return err
	}
	// Once queued, the play may already be in a batch: its verdict is
	// waited for even if ctx ends, so that a committed play is never
	// reported as failed (the batch's time is bounded).
	return <-p.done
}

// stopCommitters ends the committers, if they ever started, after the
// batches they are running; plays still queued get errClosed.
func (s *Store) stopCommitters() {
	s.commitOnce.Do(func() {}) // a play arriving from now on starts none
	c := s.commit
	if c == nil {
		return
	}
	c.plays.Close()
	c.stopped.Wait()
	c.plays.Drain(func(p *pendingPlay) { p.done <- errClosed })
}

func (s *Store) commitLoop(c *committer) {
	batch := make([]*pendingPlay, 0, maxBatch)
	for {
		var ok bool
		if batch, ok = c.plays.Next(batch, maxBatch); !ok {
			return
		}
		// A play whose caller gave up before its batch was sent is not
		// written.
		live := batch[:0]
		for _, p := range batch {
			if err := p.ctx.Err(); err != nil {
				p.done <- err
				continue
			}
			live = append(live, p)
		}
		if len(live) == 0 {
			continue
		}
		// In game id order (plays of one game in the order they came), so
		// that batches lock rows in one order.
		slices.SortStableFunc(live, func(a, b *pendingPlay) int { return strings.Compare(a.id, b.id) })
		if s.commitBatch(live) {
			c.batches.Add(1)
			c.batched.Add(int64(len(live)))
		}
	}
}

// commitBatch sends the plays as one batch and answers each; it says
// whether they committed together.
func (s *Store) commitBatch(batch []*pendingPlay) bool {
	applied, err := s.sendBatch(batch)
	if err == nil {
		s.failures.Succeeded()
		for i, p := range batch {
			p.done <- verdict(applied[i])
		}
		return true
	}
	if len(batch) > 1 && kindOf(err) == stored.NotAFailure && !errors.Is(err, context.DeadlineExceeded) {
		// Not the database's failure but one play's own: each alone, so
		// that it fails alone.
		for i, p := range batch {
			applied, err := s.sendBatch(batch[i : i+1])
			if err != nil {
				p.done <- s.wrote(err)
				continue
			}
			s.failures.Succeeded()
			p.done <- verdict(applied[0])
		}
		return false
	}
	named := s.wrote(err)
	if errors.Is(err, context.DeadlineExceeded) {
		// The batch's own deadline, not a caller's: the database did not
		// answer, and the commit may yet happen.
		named = s.failures.Write(fmt.Errorf("no answer within %s: %w", batchTimeout, err), stored.Unavailable, true)
	}
	for _, p := range batch {
		p.done <- named
	}
	return false
}

// verdict is a play's answer from whether its statement matched its row.
func verdict(applied bool) error {
	if applied {
		return nil
	}
	return errUnmatched
}

// sendBatch runs the plays' statements in one implicit transaction and
// says which of them matched their game's row.
func (s *Store) sendBatch(batch []*pendingPlay) ([]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	b := &pgx.Batch{}
	for _, p := range batch {
		b.Queue(playSQL, p.args...)
	}
	br := s.pool.SendBatch(ctx, b)
	applied := make([]bool, len(batch))
	for i := range batch {
		var n int
		if err := br.QueryRow().Scan(&n); err != nil {
			_ = br.Close()
			return nil, err
		}
		applied[i] = n > 0
	}
	// Close reads the commit's answer: only then is the batch durable.
	if err := br.Close(); err != nil {
		return nil, err
	}
	return applied, nil
}
