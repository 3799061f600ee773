package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
)

// batchKiller is a tracer that, once armed, has every third batch's
// backend terminated (pg_terminate_backend, from a connection of its own)
// while the batch is sent: the kill lands before, during or after its
// commit.
type batchKiller struct {
	armed atomic.Bool
	n     atomic.Int64
	pids  chan uint32
	kills atomic.Int64
}

func (k *batchKiller) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (k *batchKiller) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (k *batchKiller) TraceBatchStart(ctx context.Context, c *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	if k.armed.Load() && k.n.Add(1)%3 == 0 {
		select {
		case k.pids <- c.PgConn().PID():
		default:
		}
	}
	return ctx
}
func (k *batchKiller) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (k *batchKiller) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// openKilled opens a store on a fresh schema whose batches' backends a
// batchKiller, not yet armed, kills. stop ends the killing and fails the
// test if no backend was killed.
func openKilled(t *testing.T) (s *Store, k *batchKiller, stop func()) {
	dsn := freshSchema(t)
	k = &batchKiller{pids: make(chan uint32, 1)}
	s = openOn(t, dsn, Options{Tracer: k})
	ctx := t.Context()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for {
			select {
			case pid := <-k.pids:
				var ok bool
				if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int32(pid)).Scan(&ok); err == nil && ok {
					k.kills.Add(1)
				}
			case <-done:
				return
			}
		}
	}()
	return s, k, func() {
		close(done)
		<-killed
		admin.Close(context.Background())
		if k.kills.Load() == 0 {
			t.Fatal("no backend was killed: the test tested nothing")
		}
	}
}

// TestKilledBackendMidBatch plays games concurrently through the group
// commit while the backends of the batches are killed under them: every play
// is answered either stored (and then it is in the database at the end) or
// with fault.ErrUnavailable (and then the player reads the game again, as the
// service does, and goes on from whatever was stored).
func TestKilledBackendMidBatch(t *testing.T) {
	s, killer, stop := openKilled(t)
	ctx := t.Context()
	const players, plies = 8, 40
	var refused atomic.Int64
	acked := make([]map[int]int, players) // per game: ply → pit stored
	start := make([]games.Game, players)
	for i := range players {
		acked[i] = map[int]int{}
		start[i] = joinedGame(t, s, fmt.Sprintf("kill%02d", i))
	}
	killer.armed.Store(true)
	var wg sync.WaitGroup
	for i := range players {
		id, g := start[i].ID, start[i]
		wg.Go(func() {
			at := t0
			for tries := 0; g.Ply < plies && g.Status == games.Active && tries < 10*plies; tries++ {
				// A legal pit that varies with the ply, so the games last.
				legal := g.Position.LegalMoves(g.Rules)
				pit, k := -1, (g.Ply*7+i)%legal.Len()
				for p := range engine.NumPits {
					if legal.Has(p) {
						if pit = p; k == 0 {
							break
						}
						k--
					}
				}
				at = at.Add(time.Second)
				p := playOn(t, g, pit, seatToken(g), at)
				err := s.ApplyPlay(ctx, p)
				if err == nil {
					acked[i][g.Ply] = pit
					g = p.Game
					continue
				}
				if !errors.Is(err, fault.ErrUnavailable) {
					t.Errorf("game %s ply %d: %v, want nil or fault.ErrUnavailable", id, g.Ply, err)
					return
				}
				refused.Add(1)
				// Stored or not: the database says.
				for range 20 {
					if g, err = s.Game(ctx, id); err == nil {
						break
					}
				}
				if err != nil {
					t.Errorf("game %s: reading it again: %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	stop()
	stored := 0
	for i := range acked {
		stored += len(acked[i])
	}
	t.Logf("%d batches, %d backends killed; %d plays acknowledged, %d refused as unavailable",
		killer.n.Load(), killer.kills.Load(), stored, refused.Load())
	for i := range players {
		id := fmt.Sprintf("kill%02d", i)
		// The pool may still hold connections whose backends were killed
		// while idle: a read on one fails as unavailable, and the next
		// takes another connection, as a retried request would.
		var recs []games.Record
		var err error
		for range 20 {
			if recs, err = s.Records(ctx, id, 0, 1000); !errors.Is(err, fault.ErrUnavailable) {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		for ply, pit := range acked[i] {
			if ply >= len(recs) || recs[ply].Pit != pit {
				t.Errorf("game %s: the move acknowledged at ply %d (pit %d) is not stored", id, ply, pit)
			}
		}
	}
}

// TestKilledBackendMidCreateAndJoin creates and joins games concurrently
// through the group commit while the backends of the batches are killed
// under them: a creation or a join answered done is stored, and one
// answered fault.ErrUnavailable may be (a creation tried again then finds
// its id taken, and a join its seat), as for any write whose commit was
// not heard.
func TestKilledBackendMidCreateAndJoin(t *testing.T) {
	s, killer, stop := openKilled(t)
	ctx := t.Context()
	killer.armed.Store(true)
	const workers, each = 8, 12
	var created, joined, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("cj%02d-%02d", w, i)
				g := games.Game{ID: id, CreatedAt: t0, UpdatedAt: t0, Start: engine.Start(), Position: engine.Start(),
					Status: games.Waiting, Tokens: [2][]byte{[]byte(id + "-south-token-hash-0123456"), nil}, Version: 1}
				create := func() error { return s.CreateGame(ctx, g, nil) }
				join := func() error {
					_, err := s.Join(ctx, id, []byte(id+"-north-token-hash-0123456"), t0, time.Time{}, games.SeatPlayer{})
					return err
				}
				for step, write := range []func() error{create, join} {
					err := write()
					for tries := 0; errors.Is(err, fault.ErrUnavailable) && tries < 20; tries++ {
						refused.Add(1)
						// Made or not: made, the second try conflicts.
						if err = write(); errors.Is(err, games.ErrConflict) || errors.Is(err, games.ErrSeatTaken) {
							err = nil
						}
					}
					if err != nil {
						t.Errorf("game %s, step %d: %v", id, step, err)
						return
					}
					if step == 0 {
						created.Add(1)
					} else {
						joined.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	stop()
	t.Logf("%d batches, %d backends killed; %d games created, %d joined, %d writes refused as unavailable",
		killer.n.Load(), killer.kills.Load(), created.Load(), joined.Load(), refused.Load())
	for w := range workers {
		for i := range each {
			id := fmt.Sprintf("cj%02d-%02d", w, i)
			var g games.Game
			var err error
			for range 20 {
				if g, err = s.Game(ctx, id); !errors.Is(err, fault.ErrUnavailable) {
					break
				}
			}
			if err != nil {
				t.Fatalf("game %s: %v", id, err)
			}
			if g.Status != games.Active || g.Tokens[engine.North] == nil {
				t.Errorf("game %s is %s, North's token %x: want it joined", id, g.Status, g.Tokens[engine.North])
			}
		}
	}
}

// TestStalePlayConflictsAlone sends, for each of many games at once, a play
// at the game's ply and a stale one at a ply already played: whatever
// batches they share, every stale play is answered games.ErrConflict and
// every other is stored.
func TestStalePlayConflictsAlone(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	const n = 24
	plays := make([]games.Play, n)
	stale := make([]games.Play, n)
	for i := range n {
		g := joinedGame(t, s, fmt.Sprintf("stale%02d", i))
		first := playOn(t, g, 0, seatToken(g), t0.Add(time.Second))
		if err := s.ApplyPlay(ctx, first); err != nil {
			t.Fatal(err)
		}
		stale[i] = playOn(t, g, 1, seatToken(g), t0.Add(2*time.Second)) // ply 0 again
		next := first.Game
		plays[i] = playOn(t, next, 6, seatToken(next), t0.Add(2*time.Second))
	}
	b0, p0 := s.BatchCounts()
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[2*i] = s.ApplyPlay(ctx, plays[i]) })
		wg.Go(func() { errs[2*i+1] = s.ApplyPlay(ctx, stale[i]) })
	}
	wg.Wait()
	b1, p1 := s.BatchCounts()
	t.Logf("%d plays in %d batches", p1-p0, b1-b0)
	for i := range n {
		if errs[2*i] != nil {
			t.Errorf("game %d: the play at its ply: %v", i, errs[2*i])
		}
		if !errors.Is(errs[2*i+1], games.ErrConflict) {
			t.Errorf("game %d: the stale play: %v, want games.ErrConflict", i, errs[2*i+1])
		}
		g, err := s.Game(ctx, plays[i].GameID)
		if err != nil {
			t.Fatal(err)
		}
		if g.Ply != 2 {
			t.Errorf("game %d is at ply %d, want 2", i, g.Ply)
		}
	}
}

// TestBatchPlansUseIndexes: every statement of a batch, planned as the
// batch plans it (batchStartSQL: generic plans, sequential scans off),
// has a plan that costs what its index scans cost. A table the plan could
// only scan whole costs the planner's penalty for a disabled scan, large
// enough to make PostgreSQL compile the statement with JIT on each run,
// which takes longer than the batch itself many times over. And a
// statement of plays updates the games' rows in the order of its arrays,
// a nested loop over them (the batch's id order: two batches never lock
// rows in a cycle).
func TestBatchPlansUseIndexes(t *testing.T) {
	s := openFresh(t)
	for _, c := range []struct {
		name  string
		sql   string
		plays bool
	}{
		{"create", createSQL, false},
		{"lock", lockSQL, false},
		{"join", joinSQL, false},
		{"plays", batchSQL, true},
		{"quiet plays", quietBatchSQL, true},
		{"rated play", ratedPlaySQL, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := planOf(t, s, c.sql)
			// PostgreSQL's penalty for a disabled scan is 1e10; its JIT
			// starts at a cost of 1e5.
			if cost := plan.TotalCost; cost >= 1e5 {
				t.Errorf("the plan costs %g: some table is scanned whole", cost)
			}
			if c.plays {
				// The arrays are read by a function scan, or by a scan of
				// its result when the statement reads them twice.
				if order := plan.updateOrder(); order != "Nested Loop(Function Scan p, Index Scan games)" &&
					order != "Nested Loop(CTE Scan p, Index Scan games)" {
					t.Errorf("the games are updated by %s, not in the arrays' order", order)
				}
			}
		})
	}
}

// planOf is the generic plan of sql, with sequential scans off.
func planOf(t *testing.T, s *Store, sql string) planNode {
	t.Helper()
	ctx := t.Context()
	var plan []struct{ Plan planNode }
	err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, batchStartSQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "PREPARE planned AS "+sql); err != nil {
			return err
		}
		defer func() { _, _ = tx.Exec(ctx, "DEALLOCATE planned") }()
		var params int
		if err := tx.QueryRow(ctx, "SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = 'planned'").Scan(&params); err != nil {
			return err
		}
		nulls := strings.TrimSuffix(strings.Repeat("NULL, ", params), ", ")
		return tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE planned ("+nulls+")").Scan(&plan)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 {
		t.Fatalf("%d plans", len(plan))
	}
	return plan[0].Plan
}

// planNode is a node of a plan as EXPLAIN (FORMAT JSON) gives it.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Operation string     `json:"Operation"`
	Relation  string     `json:"Relation Name"`
	Alias     string     `json:"Alias"`
	Index     string     `json:"Index Name"`
	TotalCost float64    `json:"Total Cost"`
	Plans     []planNode `json:"Plans"`
}

// updateOrder describes how the plan's update of games reads the rows it
// updates: its child and that child's children, each by its type and the
// relation or alias it scans ("" when the plan updates no games).
func (n planNode) updateOrder() string {
	if n.NodeType == "ModifyTable" && n.Operation == "Update" && n.Relation == "games" && len(n.Plans) == 1 {
		child := n.Plans[0]
		var parts []string
		for _, c := range child.Plans {
			name := c.Relation
			if name == "" {
				// A CTE's scan is named after it with a suffix: p_1.
				name, _, _ = strings.Cut(c.Alias, "_")
			}
			parts = append(parts, c.NodeType+" "+name)
		}
		return child.NodeType + "(" + strings.Join(parts, ", ") + ")"
	}
	for _, c := range n.Plans {
		if o := c.updateOrder(); o != "" {
			return o
		}
	}
	return ""
}

// uses says whether the plan scans index.
func (n planNode) uses(index string) bool {
	if n.Index == index {
		return true
	}
	for _, c := range n.Plans {
		if c.uses(index) {
			return true
		}
	}
	return false
}
