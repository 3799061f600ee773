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
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// Group commit. A move's write is small; what it costs PostgreSQL is the
// commit (a WAL flush, and, since the write announces the move with a
// NOTIFY in the same transaction, the database-wide lock that serializes
// the commits of every transaction that notifies, held until its flush is
// done), the round trip (on a virtual machine the system calls and the
// switches between processes cost more than the statement) and the
// statement's own set-up. So the plays (the writes of moves, the bulk of
// the writes), the new games and the joins go through a committer: the
// writes that arrive while a commit is under way wait together and go into
// the next transaction, sent in one round trip (pgx sends a batch with a
// single Sync, so PostgreSQL runs it as one implicit transaction and
// commits it once): a statement per new game (createSQL), then, when there
// are joins, one that locks the rows of the batch's joins and plays in id
// order and a statement per join (joinSQL), then the plays, written by one
// statement (batchSQL; two when a game has two plays in it). A game's
// creation and its join each cost a transaction of their own before; in
// the load test, where a game lasts some 23 moves, that was a third of
// PostgreSQL's commits.
//
// Each write is conditional (a play on its game's ply and version, a new
// game on its id being free, a join on the seat being open), so a stale
// one writes nothing and is answered alone (games.ErrConflict, or what the
// caller finds out) while the others of its batch commit. A statement
// that fails aborts the whole batch: when the database failed (a lost
// connection, a shutdown) every write of it is answered with the store's
// error (fault.ErrUnavailable, uncertain as for any write whose commit may
// have happened); otherwise the writes are sent again one by one, so one
// bad write fails alone. Nobody is answered before the commit that holds
// their write, so an answer still means it is stored. A batch locks its
// games' rows in game id order, and so does every other batch (another
// instance's): two batches never wait for each other in a cycle. The
// statement of a round of plays locks each row as it updates it, visiting
// them in the order of its arrays (a nested loop over them: the test of
// the batches' plans checks it); a batch with joins locks the rows of
// its joins and plays first, in one statement. (A new game's row is
// nobody else's to lock.)

// maxBatch bounds the writes in one transaction.
const maxBatch = 64

// committers is how many batches of one store may be under way at once:
// one. A second would only wait for the first's commit (the notify lock
// serializes them) while holding its rows, and would split the plays that
// queue meanwhile in two: on this project's 2-core machine, one instance at
// 16 requests in flight made 2,362 moves/s with one committer (7.0 plays
// per commit), 1,099 with two (4.7) and 861 with four (2.8).
const committers = 1

// batchTimeout bounds a batch's round trip: a database that stopped
// answering fails the writes rather than holding them, and their requests,
// for the system's TCP timeout.
const batchTimeout = 15 * time.Second

// errClosed: the store was closed before the write could be made.
var errClosed = errors.New("postgres: store closed")

// pendingWrite is a write waiting for its batch: a play, a new game or a
// join of game id.
type pendingWrite struct {
	ctx  context.Context
	kind writeKind
	id   string
	play *games.Play // a play's
	args []any       // createSQL's for a new game, joinSQL's for a join
	done chan error  // nil, errUnmatched, or the batch's error

	// joined is the row a join's statement returned, set before done is
	// sent nil.
	joined gameRow
}

type writeKind int

const (
	playing writeKind = iota
	creating
	joining
)

// playWrite is the pending write of p.
func playWrite(p *games.Play) *pendingWrite {
	return &pendingWrite{kind: playing, id: p.GameID, play: p}
}

// errUnmatched is a write's answer when its conditional statement matched
// no row: the caller finds out why (games.ErrNotFound or games.ErrConflict,
// or for a new game, its id taken).
var errUnmatched = errors.New("write matched no row")

// committer runs the batches. It starts with the first write and stops at
// Close.
type committer struct {
	writes  *stored.Queue[*pendingWrite]
	stopped sync.WaitGroup

	// batches and batched count the batches committed with plays in them
	// and those plays, for BatchCounts.
	batches, batched atomic.Int64
}

// BatchCounts returns how many batches with plays in them the store
// committed and how many plays they carried: their ratio is the moves per
// commit.
func (s *Store) BatchCounts() (batches, plays int64) {
	c := s.committer()
	return c.batches.Load(), c.batched.Load()
}

func (s *Store) committer() *committer {
	s.commitOnce.Do(func() {
		c := &committer{writes: stored.NewQueue[*pendingWrite](maxBatch)}
		for range committers {
			c.stopped.Go(func() { s.commitLoop(c) })
		}
		s.commit = c
	})
	return s.commit
}

// write makes w in the next batch, and returns nil, errUnmatched, or the
// named error of the batch.
func (s *Store) write(ctx context.Context, w *pendingWrite) error {
	w.ctx, w.done = ctx, make(chan error, 1)
	if err := s.committer().writes.Put(ctx, w, errClosed); err != nil {
		return err
	}
	// Once queued, the write may already be in a batch: its verdict is
	// waited for even if ctx ends, so that a committed write is never
	// reported as failed (the batch's time is bounded).
	return <-w.done
}

// stopCommitters ends the committers, if they ever started, after the
// batches they are running; writes still queued get errClosed.
func (s *Store) stopCommitters() {
	s.commitOnce.Do(func() {}) // a write arriving from now on starts none
	c := s.commit
	if c == nil {
		return
	}
	c.writes.Close()
	c.stopped.Wait()
	c.writes.Drain(func(w *pendingWrite) { w.done <- errClosed })
}

func (s *Store) commitLoop(c *committer) {
	batch := make([]*pendingWrite, 0, maxBatch)
	for {
		var ok bool
		if batch, ok = c.writes.Next(batch, maxBatch); !ok {
			return
		}
		// A write whose caller gave up before its batch was sent is not
		// made.
		live := batch[:0]
		plays := 0
		for _, w := range batch {
			if err := w.ctx.Err(); err != nil {
				w.done <- err
				continue
			}
			live = append(live, w)
			if w.kind == playing {
				plays++
			}
		}
		if len(live) == 0 {
			continue
		}
		// In game id order (the writes of one game in the order they
		// came), so that batches lock rows in one order.
		slices.SortStableFunc(live, func(a, b *pendingWrite) int { return strings.Compare(a.id, b.id) })
		if s.commitBatch(live) && plays > 0 {
			c.batches.Add(1)
			c.batched.Add(int64(plays))
		}
	}
}

// commitBatch sends the writes as one batch and answers each; it says
// whether they committed together.
func (s *Store) commitBatch(batch []*pendingWrite) bool {
	applied, err := s.sendBatch(batch)
	if err == nil {
		for i, w := range batch {
			w.done <- verdict(applied[i])
		}
		return true
	}
	if len(batch) > 1 && kindOf(err) == stored.NotAFailure && !errors.Is(err, context.DeadlineExceeded) {
		// Not the database's failure but one write's own: each alone, so
		// that it fails alone.
		for i, w := range batch {
			applied, err := s.sendBatch(batch[i : i+1])
			if err != nil {
				w.done <- s.wrote(err)
				continue
			}
			w.done <- verdict(applied[0])
		}
		return false
	}
	named := s.wrote(err)
	if errors.Is(err, context.DeadlineExceeded) {
		// The batch's own deadline, not a caller's: the database did not
		// answer, and the commit may yet happen.
		named = s.failures.Write(fmt.Errorf("no answer within %s: %w", batchTimeout, err), stored.Unavailable, true)
	}
	for _, w := range batch {
		w.done <- named
	}
	return false
}

// verdict is a write's answer from whether its statement matched a row.
func verdict(applied bool) error {
	if applied {
		return nil
	}
	return errUnmatched
}

// sendBatch makes the writes (in game id order) and says which of them
// matched a row, in one round trip committed as one implicit transaction:
// the new games' statements, then the lock of the joins' and plays' rows
// and the joins' statements when there are joins, then one batchSQL
// statement per round of plays, a round holding at most one play of each
// game (the first play of each game goes in the first round, a second one
// in the second, ...). A join's row is kept in its write, to be decoded
// once the batch has committed.
//
// Unless the Store is announcing (another instance listened when it last
// looked), the plays go without their news, in quietBatchSQL; when
// another instance listens after all, that statement fails the batch as a
// whole, nothing of it committed, and the batch goes again with its news,
// as every batch does from then on until the Store's registration finds
// it alone again.
func (s *Store) sendBatch(batch []*pendingWrite) ([]bool, error) {
	quiet := !s.announcing.Load()
	applied, err := s.sendBatchAs(batch, quiet)
	if quiet && needsNews(err) {
		s.announcing.Store(true)
		s.resent.Add(1)
		applied, err = s.sendBatchAs(batch, false)
	} else if quiet && err == nil {
		s.quietBatches.Add(1)
	}
	return applied, err
}

// needsNews says whether err is quietBatchSQL's refusal of a batch that
// another instance must hear of.
func needsNews(err error) bool {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pe.Code == needsNewsState
}

// sendBatchAs is sendBatch, with the plays' news or (quiet) without.
func (s *Store) sendBatchAs(batch []*pendingWrite, quiet bool) ([]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	var creates, joins, plays []int // indexes in batch
	for i, w := range batch {
		switch w.kind {
		case playing:
			plays = append(plays, i)
		case creating:
			creates = append(creates, i)
		case joining:
			joins = append(joins, i)
		}
	}
	rounds := roundsOf(batch, plays)
	b := &pgx.Batch{}
	b.Queue(batchStartSQL)
	for _, i := range creates {
		b.Queue(createSQL, batch[i].args...)
	}
	if len(joins) > 0 {
		ids := make([]string, 0, len(joins)+len(plays))
		for _, i := range slices.Concat(joins, plays) {
			ids = append(ids, batch[i].id)
		}
		b.Queue(lockSQL, ids)
		for _, i := range joins {
			b.Queue(joinSQL, batch[i].args...)
		}
	}
	for _, r := range rounds {
		plays := make([]*games.Play, len(r))
		for j, i := range r {
			plays[j] = batch[i].play
		}
		if quiet {
			b.Queue(quietBatchSQL, batchArgs(s.instance, plays, false)...)
		} else {
			b.Queue(batchSQL, batchArgs(s.instance, plays, true)...)
		}
	}
	br := s.pool.SendBatch(ctx, b)
	applied, err := readBatch(br, batch, creates, joins, rounds)
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	// Close reads the commit's answer: only then is the batch durable.
	if err := br.Close(); err != nil {
		return nil, err
	}
	return applied, nil
}

// readBatch reads the answers of sendBatch's statements, in the order it
// queued them.
func readBatch(br pgx.BatchResults, batch []*pendingWrite, creates, joins []int, rounds [][]int) ([]bool, error) {
	applied := make([]bool, len(batch))
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	for _, i := range creates {
		var created int
		if err := br.QueryRow().Scan(&created); err != nil {
			return nil, err
		}
		applied[i] = created == 1
	}
	if len(joins) > 0 {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	for _, i := range joins {
		err := br.QueryRow().Scan(batch[i].joined.targets()...)
		if err != nil && !noRows(err) {
			return nil, err
		}
		applied[i] = err == nil
	}
	for _, r := range rounds {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		matched, err := matchedIDs(rows)
		if err != nil {
			return nil, err
		}
		for _, i := range r {
			applied[i] = matched[batch[i].id]
		}
	}
	return applied, nil
}

// lockSQL locks the rows of a batch's games in id order, before any of
// them is written: the joins' (each joinSQL locks one row, and a batch
// has several) and the plays'.
const lockSQL = `SELECT count(*) FROM (SELECT id FROM games WHERE id = ANY ($1::text[]) ORDER BY id FOR NO KEY UPDATE) AS l`

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

// roundsOf splits the plays of the batch (indexes in batch, in game id
// order) into rounds of indexes in which each game appears once, keeping
// each game's plays in their order.
func roundsOf(batch []*pendingWrite, plays []int) [][]int {
	var rounds [][]int
	seen := 0 // plays of the current game so far
	for k, i := range plays {
		if k > 0 && batch[i].id == batch[plays[k-1]].id {
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

// batchStartSQL is a batch's first statement. It takes listenersLock
// shared, so that the batch's announcements see every registration of a
// listening instance committed before (changes.go). And it makes the
// statements after it, to the end of their transaction, run batchSQL's
// generic plan, made with index scans. By itself PostgreSQL would plan
// batchSQL afresh for every batch: a custom plan, which knows the arrays'
// lengths, looks cheaper than the generic one, which guesses, yet costs
// more to make (on this project's machine about 0.3 ms of a batch's 0.7)
// than it could ever save on a batch's few rows. And the generic plan is
// made once per connection, often while the games table is small, and
// kept as it grows: without index scans forced, it may scan the whole
// table for a batch's few games.
const batchStartSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), pg_advisory_xact_lock_shared(` + listenersLock + `)`

// batchSQL writes a round of plays, at most one per game, given as
// parallel arrays in game id order: it updates each row still active at
// the play's ply and version, locking the rows in the arrays' order (so
// that two batches, of two instances, never wait for each other in a
// cycle; the plan is a nested loop over the arrays, which
// TestBatchPlansUseIndexes checks: no statement of its own locks them
// first, which cost PostgreSQL 11 % of its instructions per play in
// batches of 8, CHANGELOG.md, 2026-12-05), inserts
// the moves of the plays it updated, and announces those plays with their
// news on changesChannel, in as few notifications as fit (the chunk of
// each play is counted out by batchArgs), when another instance than $23
// listens, or whatever listens when $23 is empty (a play written outside
// the batches, whose transaction does not take listenersLock). It returns
// the ids of the games it updated. The committer's batches use it while
// another instance listens, quietBatchSQL otherwise; a play that ends a
// rated game is written by ratedPlaySQL, in its match's transaction.
//
// One statement for the whole round, rather than one per play, because
// what a statement costs PostgreSQL is mostly its own: planning aside
// (prepared once per connection), each run sets up its executor and
// prepares every CHECK constraint of the tables it writes afresh, however
// few rows it writes.
var batchSQL = playsSQL(true, false)

// quietBatchSQL is batchSQL without the news ($24 and $25) and without
// the announcement, for an instance that saw no other listening when it
// last looked (Store.announcing, set by its registration): if another
// instance than $23 listens after all, it fails the whole batch with
// needsNewsState (the function batch_needs_news, migration 19), and the
// committer sends the batch again as batchSQL. Without the announcement's
// part of the statement and the news' arrays, PostgreSQL executes 5 %
// fewer instructions per play in batches of 8 and 15 % fewer in batches
// of one (CHANGELOG.md, 2026-12-04), and the server
// encodes no news that nobody else would hear while one instance runs
// alone.
var quietBatchSQL = playsSQL(false, false)

// ratedPlaySQL is batchSQL that also sets the seats' ratings of the games
// it updates, from six more arrays ($26-$31, seatRatings' order; NULL
// leaves a rating as it is). A statement of its own, because the ratings
// change only at the end of a rated game, and carrying them in every batch
// cost PostgreSQL about 5 % of its instructions per play (six more arrays
// decoded and unnested, six more columns set per row: CHANGELOG.md,
// 2026-12-04).
var ratedPlaySQL = playsSQL(true, true)

// needsNewsState is the SQLSTATE with which quietBatchSQL fails when
// another instance listens.
const needsNewsState = "AYN01"

// playsSQL is the text of batchSQL (news), of quietBatchSQL (neither)
// or of ratedPlaySQL (both). Their arguments are batchArgs', followed by
// the ratings' for a rated play.
func playsSQL(news, rated bool) string {
	arrays, columns, set := "", "", ""
	if news {
		arrays = `, $24::text[], $25::integer[]`
		columns = `, news, chunk`
	}
	if rated {
		arrays += `,
			$26::double precision[], $27::double precision[], $28::double precision[],
			$29::double precision[], $30::double precision[], $31::double precision[]`
		columns += `,
				south_rating, south_deviation, south_change, north_rating, north_deviation, north_change`
		set = `,
			south_rating = COALESCE(p.south_rating, g.south_rating),
			south_deviation = COALESCE(p.south_deviation, g.south_deviation),
			south_change = COALESCE(p.south_change, g.south_change),
			north_rating = COALESCE(p.north_rating, g.north_rating),
			north_deviation = COALESCE(p.north_deviation, g.north_deviation),
			north_change = COALESCE(p.north_change, g.north_change)`
	}
	// What the statement does about the others: announce the plays to
	// them, or fail if there are any.
	others := `announced AS (
		SELECT pg_notify('` + changesChannel + `', string_agg(p.news, E'\n' ORDER BY p.id))
		FROM game JOIN p USING (id) WHERE $23 = '' OR ` + othersListen(23) + `
		GROUP BY p.chunk
	)`
	if !news {
		others = `announced AS (
		SELECT batch_needs_news() WHERE ` + othersListen(23) + `
	)`
	}
	return `WITH p AS (
		SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::text[], $5::text[], $6::text[],
			$7::text[], $8::text[], $9::timestamptz[], $10::bigint[], $11::bigint[], $12::timestamptz[],
			$13::text[], $14::text[], $22::bigint[]` + arrays + `)
			AS p (id, ply, n, position, added, status, winner, end_reason, at, south_us, north_us, deadline,
				draw_offer, takeback_offer, version` + columns + `)
	), game AS (
		UPDATE games g SET ply = g.ply + p.n, position = p.position, history = g.history || p.added,
			status = p.status, winner = p.winner, end_reason = p.end_reason, updated_at = p.at,
			ended_at = CASE WHEN p.status IN ('finished', 'aborted') THEN p.at END,
			south_clock_us = p.south_us, north_clock_us = p.north_us, deadline = p.deadline,
			deadline_floor = CASE WHEN p.deadline IS NOT NULL THEN LEAST(g.deadline_floor, p.deadline) END,
			draw_offer = p.draw_offer, takeback_offer = p.takeback_offer, version = g.version + 1` + set + `
		FROM p
		WHERE g.id = p.id AND g.ply = p.ply AND g.version = p.version AND g.status = 'active'
		RETURNING g.id
	), moved AS (
		INSERT INTO moves (game_id, ply, pit, by_ai, at, version, draw_offer)
		SELECT m.game_id, m.ply, m.pit, m.by_ai, m.at, m.version, m.draw_offer
		FROM unnest($15::text[], $16::integer[], $17::smallint[], $18::boolean[], $19::timestamptz[],
			$20::bigint[], $21::text[]) AS m (game_id, ply, pit, by_ai, at, version, draw_offer)
		WHERE m.game_id IN (SELECT id FROM game)
	), ` + others + `
	SELECT id FROM game CROSS JOIN (SELECT count(*) FROM announced) AS a`
}

// batchArgs are the arguments of batchSQL (news) or of quietBatchSQL for
// plays, at most one per game, in game id order, announced by instance
// ("": to whatever listens). The plays have no match (ApplyPlay writes one
// that has with ratedPlaySQL): these statements leave the seats' ratings
// as they are.
func batchArgs(instance string, plays []*games.Play, news bool) []any {
	n := len(plays)
	var (
		id, position, added, status, winner, reason = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		draw, takeback                              = make([]string, n), make([]string, n)
		ply, count                                  = make([]int32, n), make([]int32, n)
		version                                     = make([]int64, n)
		at                                          = make([]time.Time, n)
		south, north                                = make([]int64, n), make([]int64, n)
		deadline                                    = make([]*time.Time, n)
		moveGames                                   []string
		moves                                       []games.Record
	)
	for j, p := range plays {
		g := &p.Game
		id[j], ply[j], count[j], version[j] = p.GameID, int32(p.Ply), int32(len(p.Moves)), g.Version-1
		position[j], added[j], status[j] = g.Position.String(), stored.EncodeHistory(p.Pits()), string(g.Status)
		winner[j], reason[j], at[j] = g.Result.Winner.String(), g.Result.Reason.String(), stamp(p.At)
		south[j], north[j], deadline[j] = stored.Micros(g.Clock[engine.South]), stored.Micros(g.Clock[engine.North]), nullableTime(g.Deadline)
		draw[j], takeback[j] = g.DrawOffer.String(), g.TakebackOffer.String()
		for range p.Moves {
			moveGames = append(moveGames, p.GameID)
		}
		moves = append(moves, p.Moves...)
	}
	rs := recordsOf(moves)
	args := []any{id, ply, count, position, added, status, winner, reason, at, south, north, deadline,
		draw, takeback, moveGames, rs.ply, rs.pit, rs.byAI, rs.at, rs.version, rs.draw, version, instance}
	if news {
		text, chunks := newsOf(plays)
		args = append(args, text, chunks)
	}
	return args
}

// newsOf is the news of each play (its line of a notification) and the
// notification it goes in: a new one starts where the next line would
// not fit.
func newsOf(plays []*games.Play) (news []string, chunk []int32) {
	news, chunk = make([]string, len(plays)), make([]int32, len(plays))
	size := 0
	for j, p := range plays {
		nw := p.News()
		news[j] = encodeNews(&nw)
		if size > 0 && size+1+len(news[j]) > maxPayload {
			chunk[j], size = chunk[j-1]+1, 0
		} else if j > 0 {
			chunk[j] = chunk[j-1]
		}
		if size > 0 {
			size++
		}
		size += len(news[j])
	}
	return news, chunk
}

// ratedPlayArgs are ratedPlaySQL's arguments for p, which ends a game of
// its match (seatRatings), announced to whatever listens.
func ratedPlayArgs(p *games.Play) []any {
	_, seats := seatRatings(p.Match, 0)
	args := batchArgs("", []*games.Play{p}, true)
	for _, v := range seats {
		var rating *float64
		if f, ok := v.(float64); ok {
			rating = &f
		}
		args = append(args, []*float64{rating})
	}
	return args
}
