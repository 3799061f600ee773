package analysis

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
)

// TestPauseForAI: an analysis that holds the only unit gives it to an AI
// move that comes to wait for it, queues again, and goes on once the move
// has given it back.
func TestPauseForAI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		cpu := budget.New(1)
		var mu sync.Mutex
		var events []string
		note := func(e string) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}
		aiWaits := make(chan struct{})
		svc := New(cpu, Options{})
		svc.search = func(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits, pause func()) (search.Analysis, error) {
			note("search starts")
			close(aiWaits)
			for range 3 {
				time.Sleep(pauseEvery) // a few thousand nodes
				pause()
			}
			note("search ends")
			return search.Analysis{BestMove: 0, Moves: []search.MoveScore{{Pit: 0}}}, nil
		}
		go func() {
			<-aiWaits
			release, err := cpu.Acquire(ctx, budget.Request{Priority: budget.AIReply, Wait: time.Second})
			if err != nil {
				t.Errorf("the AI move: %v", err)
				return
			}
			note("AI move")
			time.Sleep(time.Millisecond)
			release()
		}()
		if _, err := svc.Analyze(ctx, engine.Start(), engine.Rules{}, search.Limits{Depth: 30, Time: time.Second}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want := "[search starts AI move search ends]"
		if got := fmt.Sprint(events); got != want {
			t.Errorf("events %s, want %s", got, want)
		}
		if st := cpu.Stats(); st.Used != 0 {
			t.Errorf("%d units left taken", st.Used)
		}
	})
}
