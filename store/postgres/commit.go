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

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// Group commit. A move's write is small; what it costs PostgreSQL is the
// commit (a WAL flush, and, since the write announces the move with a
// NOTIFY in the same transaction, the database-wide lock that serializes
// the commits of every transaction that notifies, held until its flush is
// done) and the statement's own set-up. So the plays (the writes of moves,
// the bulk of the writes) go through a committer: the plays that arrive
// while a commit is under way wait together and go into the next
// transaction, written by one statement (batchSQL; two when a game has two
// plays in it) sent in one round trip (pgx sends a batch with a single
// Sync, so PostgreSQL runs it as one implicit transaction and commits it
// once).
//
// Each play's update is conditional on its game's ply and version, so a
// stale one (a wrong ply, or a game changed since it was read) updates
// nothing, writes nothing and is answered games.ErrConflict alone while
// the others of its batch commit. A statement
// that fails aborts the whole batch: when the database failed (a lost
// connection, a shutdown) every play of it is answered with the store's
// error (fault.ErrUnavailable, uncertain as for any write whose commit may
// have happened); otherwise the plays are sent again one by one, so one bad
// write fails alone. Nobody is answered before the commit that holds their
// play, so an answer still means the move is stored. A batch locks its
// games' rows in game id order, and so does every other batch (another
// instance's): two batches never wait for each other in a cycle.

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
	play *games.Play
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

// play writes p in the next batch, and returns nil, errUnmatched, or the
// named error of the batch.
func (s *Store) play(ctx context.Context, p *games.Play) error {
	pp := &pendingPlay{ctx: ctx, play: p, done: make(chan error, 1)}
	if err := s.committer().plays.Put(ctx, pp, errClosed); err != nil {
		return err
	}
	// Once queued, the play may already be in a batch: its verdict is
	// waited for even if ctx ends, so that a committed play is never
	// reported as failed (the batch's time is bounded).
	return <-pp.done
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
		slices.SortStableFunc(live, func(a, b *pendingPlay) int { return strings.Compare(a.play.GameID, b.play.GameID) })
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

// sendBatch writes the plays (in game id order) and says which of them
// matched their game's row: one batchSQL statement per round, a round
// holding at most one play of each game (the first play of each game goes
// in the first round, a second one in the second, ...), all sent in one
// round trip and committed as one implicit transaction.
func (s *Store) sendBatch(batch []*pendingPlay) ([]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	rounds := roundsOf(batch)
	b := &pgx.Batch{}
	b.Queue(genericPlanSQL)
	for _, r := range rounds {
		plays := make([]*games.Play, len(r))
		for j, i := range r {
			plays[j] = batch[i].play
		}
		b.Queue(batchSQL, batchArgs(plays)...)
	}
	br := s.pool.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, err
	}
	applied := make([]bool, len(batch))
	for _, r := range rounds {
		rows, err := br.Query()
		if err != nil {
			_ = br.Close()
			return nil, err
		}
		matched, err := matchedIDs(rows)
		if err != nil {
			_ = br.Close()
			return nil, err
		}
		for _, i := range r {
			applied[i] = matched[batch[i].play.GameID]
		}
	}
	// Close reads the commit's answer: only then is the batch durable.
	if err := br.Close(); err != nil {
		return nil, err
	}
	return applied, nil
}

// matchedIDs reads batchSQL's answer: the ids of the games it updated.
func matchedIDs(rows pgx.Rows) (map[string]bool, error) {
	matched := map[string]bool{}
	var id string
	_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		matched[id] = true
		return nil
	})
	return matched, err
}

// roundsOf splits the batch, in game id order, into rounds of indexes in
// which each game appears once, keeping each game's plays in their order.
func roundsOf(batch []*pendingPlay) [][]int {
	var rounds [][]int
	seen := 0 // plays of the current game so far
	for i, p := range batch {
		if i > 0 && p.play.GameID == batch[i-1].play.GameID {
			seen++
		} else {
			seen = 0
		}
		if seen == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[seen] = append(rounds[seen], i)
	}
	return rounds
}

// genericPlanSQL makes the statements after it, to the end of their
// transaction, run batchSQL's generic plan, made with index scans. By
// itself PostgreSQL would plan batchSQL afresh for every batch: a custom
// plan, which knows the arrays' lengths, looks cheaper than the generic
// one, which guesses, yet costs more to make (on this project's machine
// about 0.3 ms of a batch's 0.7) than it could ever save on a batch's few
// rows. And the generic plan is made once per connection, often while the
// games table is small, and kept as it grows: without index scans forced,
// it may scan the whole table for a batch's few games.
const genericPlanSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true)`

// batchSQL writes a round of plays, at most one per game, given as
// parallel arrays: it locks their games' rows in id order (so that two
// batches, of two instances, never wait for each other in a cycle),
// updates each row still active at the play's ply and version, inserts
// the moves of the plays it updated, and announces those plays with their
// news on changesChannel, in as few notifications as fit (the chunk of
// each play is counted out by batchArgs). It returns the ids of the games
// it updated.
//
// One statement for the whole round, rather than one per play, because
// what a statement costs PostgreSQL is mostly its own: planning aside
// (prepared once per connection), each run sets up its executor and
// prepares every CHECK constraint of the tables it writes afresh, however
// few rows it writes.
var batchSQL = `WITH p AS (
		SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::text[], $5::text[], $6::text[],
			$7::text[], $8::text[], $9::timestamptz[], $10::bigint[], $11::bigint[], $12::timestamptz[],
			$13::text[], $14::text[], $15::text[], $16::integer[],
			$24::double precision[], $25::double precision[], $26::double precision[],
			$27::double precision[], $28::double precision[], $29::double precision[], $30::bigint[])
			AS p (id, ply, n, position, added, status, winner, end_reason, at, south_us, north_us, deadline,
				draw_offer, takeback_offer, news, chunk,
				south_rating, south_deviation, south_change, north_rating, north_deviation, north_change, version)
	), locked AS (
		SELECT id FROM games WHERE id = ANY ($1::text[]) ORDER BY id FOR NO KEY UPDATE
	), game AS (
		UPDATE games g SET ply = g.ply + p.n, position = p.position, history = g.history || p.added,
			status = p.status, winner = p.winner, end_reason = p.end_reason, updated_at = p.at,
			south_clock_us = p.south_us, north_clock_us = p.north_us, deadline = p.deadline,
			draw_offer = p.draw_offer, takeback_offer = p.takeback_offer, version = g.version + 1,
			south_rating = COALESCE(p.south_rating, g.south_rating),
			south_deviation = COALESCE(p.south_deviation, g.south_deviation),
			south_change = COALESCE(p.south_change, g.south_change),
			north_rating = COALESCE(p.north_rating, g.north_rating),
			north_deviation = COALESCE(p.north_deviation, g.north_deviation),
			north_change = COALESCE(p.north_change, g.north_change)
		FROM p JOIN locked USING (id)
		WHERE g.id = p.id AND g.ply = p.ply AND g.version = p.version AND g.status = 'active'
		RETURNING g.id
	), moved AS (
		INSERT INTO moves (game_id, ply, pit, by_ai, at, version, draw_offer)
		SELECT m.game_id, m.ply, m.pit, m.by_ai, m.at, m.version, m.draw_offer
		FROM unnest($17::text[], $18::integer[], $19::smallint[], $20::boolean[], $21::timestamptz[],
			$22::bigint[], $23::text[]) AS m (game_id, ply, pit, by_ai, at, version, draw_offer)
		WHERE m.game_id IN (SELECT id FROM game)
	), announced AS (
		SELECT pg_notify('` + changesChannel + `', string_agg(p.news, E'\n' ORDER BY p.id))
		FROM game JOIN p USING (id) GROUP BY p.chunk
	)
	SELECT id FROM game CROSS JOIN (SELECT count(*) FROM announced) AS a`

// batchArgs are batchSQL's arguments for plays, at most one per game, in
// game id order: a play's match, when it has one, sets its game's seats'
// ratings (seatRatings), NULL leaving them as they are.
func batchArgs(plays []*games.Play) []any {
	n := len(plays)
	var (
		id, position, added, status, winner, reason = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		draw, takeback, news                        = make([]string, n), make([]string, n), make([]string, n)
		ply, count, chunk                           = make([]int32, n), make([]int32, n), make([]int32, n)
		version                                     = make([]int64, n)
		at                                          = make([]time.Time, n)
		south, north                                = make([]int64, n), make([]int64, n)
		deadline                                    = make([]*time.Time, n)
		ratings                                     [6][]*float64
		moveGames                                   []string
		moves                                       []games.Record
	)
	for k := range ratings {
		ratings[k] = make([]*float64, n)
	}
	size := 0
	for j, p := range plays {
		g := &p.Game
		nw := p.News()
		id[j], ply[j], count[j], version[j] = p.GameID, int32(p.Ply), int32(len(p.Moves)), g.Version-1
		position[j], added[j], status[j] = g.Position.String(), stored.EncodeHistory(nw.Pits), string(g.Status)
		winner[j], reason[j], at[j] = g.Result.Winner.String(), g.Result.Reason.String(), stamp(p.At)
		south[j], north[j], deadline[j] = stored.Micros(g.Clock[engine.South]), stored.Micros(g.Clock[engine.North]), nullableTime(g.Deadline)
		draw[j], takeback[j] = g.DrawOffer.String(), g.TakebackOffer.String()
		news[j] = encodeNews(&nw)
		// The plays are announced in id order: a new notification starts
		// where the next line would not fit.
		if size > 0 && size+1+len(news[j]) > maxPayload {
			chunk[j], size = chunk[j-1]+1, 0
		} else if j > 0 {
			chunk[j] = chunk[j-1]
		}
		if size > 0 {
			size++
		}
		size += len(news[j])
		_, seats := seatRatings(p.Match, 0)
		for k, v := range seats {
			if f, ok := v.(float64); ok {
				ratings[k][j] = &f
			}
		}
		for range p.Moves {
			moveGames = append(moveGames, p.GameID)
		}
		moves = append(moves, p.Moves...)
	}
	rs := recordsOf(moves)
	return []any{id, ply, count, position, added, status, winner, reason, at, south, north, deadline,
		draw, takeback, news, chunk, moveGames, rs.ply, rs.pit, rs.byAI, rs.at, rs.version, rs.draw,
		ratings[0], ratings[1], ratings[2], ratings[3], ratings[4], ratings[5], version}
}
