package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
)

// batchKiller is a tracer that has every third batch's backend terminated
// (pg_terminate_backend, from a connection of its own) while the batch is
// sent: the kill lands before, during or after its commit.
type batchKiller struct {
	n     atomic.Int64
	pids  chan uint32
	kills atomic.Int64
}

func (k *batchKiller) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (k *batchKiller) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (k *batchKiller) TraceBatchStart(ctx context.Context, c *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	if k.n.Add(1)%3 == 0 {
		select {
		case k.pids <- c.PgConn().PID():
		default:
		}
	}
	return ctx
}
func (k *batchKiller) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (k *batchKiller) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestKilledBackendMidBatch plays games concurrently through the group
// commit while the backends of the batches are killed under them: every play
// is answered either stored (and then it is in the database at the end) or
// with fault.ErrUnavailable (and then the player reads the game again, as the
// service does, and goes on from whatever was stored).
func TestKilledBackendMidBatch(t *testing.T) {
	dsn := freshSchema(t)
	killer := &batchKiller{pids: make(chan uint32, 1)}
	s := openOn(t, dsn, Options{Tracer: killer})
	ctx := t.Context()

	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	stop := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for {
			select {
			case pid := <-killer.pids:
				var ok bool
				if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int32(pid)).Scan(&ok); err == nil && ok {
					killer.kills.Add(1)
				}
			case <-stop:
				return
			}
		}
	}()

	const players, plies = 8, 40
	var refused atomic.Int64
	acked := make([]map[int]int, players) // per game: ply → pit stored
	var wg sync.WaitGroup
	for i := range players {
		acked[i] = map[int]int{}
		id := fmt.Sprintf("kill%02d", i)
		g := joinedGame(t, s, id)
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
	close(stop)
	<-killed
	if killer.kills.Load() == 0 {
		t.Fatal("no backend was killed: the test tested nothing")
	}
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
