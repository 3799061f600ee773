package review_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/store/memory"
)

// gameMap is the games the service reads.
type gameMap map[string]games.Game

func (m gameMap) Game(_ context.Context, id string) (games.Game, error) {
	g, ok := m[id]
	if !ok {
		return games.Game{}, games.ErrNotFound
	}
	return g, nil
}

func TestService(t *testing.T) {
	ctx := context.Background()
	rec, _ := randomRecord(rand.New(rand.NewPCG(1, 1)), engine.Start(), engine.Rules{}, 6)
	var history []byte
	for _, pit := range rec.Moves {
		history = append(history, byte(pit))
	}
	gs := gameMap{
		"done":    {ID: "done", Start: engine.Start(), Ply: len(history), History: history, Status: games.Finished},
		"playing": {ID: "playing", Start: engine.Start(), Status: games.Active},
	}
	store := memory.New()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	rv := review.New(budget.New(1), review.Options{Nodes: 5000})
	a := review.NewService(store, gs, rv, review.ServiceOptions{Now: clock, Owner: "a"})
	b := review.NewService(store, gs, rv, review.ServiceOptions{Now: clock, Owner: "b"})

	tests := []struct {
		name string
		id   string
		want error
	}{
		{"a missing game", "nope", games.ErrNotFound},
		{"a game in play", "playing", review.ErrNotFinished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Request(ctx, tt.id); !errors.Is(err, tt.want) {
				t.Errorf("request: %v, want %v", err, tt.want)
			}
			if _, err := a.Get(ctx, tt.id); !errors.Is(err, tt.want) {
				t.Errorf("get: %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := a.Get(ctx, "done"); !errors.Is(err, review.ErrNotRequested) {
		t.Fatalf("get before a request: %v", err)
	}
	st, err := a.Request(ctx, "done")
	if err != nil || st.State != review.Queued || st.Total != len(history) {
		t.Fatalf("request: %+v, %v", st, err)
	}
	if did, err := a.Step(ctx); !did || err != nil {
		t.Fatalf("step: %v, %v", did, err)
	}
	if did, err := b.Step(ctx); did || err != nil {
		t.Fatalf("the other instance's step found work: %v, %v", did, err)
	}
	st, err = b.Get(ctx, "done")
	if err != nil || st.State != review.Done || st.Done != len(history) || st.Review == nil || len(st.Review.Plies) != len(history) {
		t.Fatalf("done review: %+v, %v", st, err)
	}
	again, err := b.Request(ctx, "done")
	if err != nil || again.State != review.Done {
		t.Fatalf("second request: %+v, %v", again, err)
	}
}

// TestCrashedWorker: a worker that claimed a review and went silent loses
// it once its lease ends; another instance's worker then computes it, and
// the silent one's late writes are refused.
func TestCrashedWorker(t *testing.T) {
	ctx := context.Background()
	rec, _ := randomRecord(rand.New(rand.NewPCG(2, 2)), engine.Start(), engine.Rules{}, 4)
	history := make([]byte, len(rec.Moves))
	for i, pit := range rec.Moves {
		history[i] = byte(pit)
	}
	gs := gameMap{"g": {ID: "g", Start: engine.Start(), Ply: len(history), History: history, Status: games.Finished}}
	store := memory.New()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	rv := review.New(budget.New(1), review.Options{Nodes: 2000})
	b := review.NewService(store, gs, rv, review.ServiceOptions{Now: clock, Owner: "b"})
	if _, err := b.Request(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	// Instance a claims the review and crashes.
	if _, ok, err := store.ClaimReview(ctx, "a", now, now.Add(review.Lease)); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	if did, err := b.Step(ctx); did || err != nil {
		t.Fatalf("a step within a's lease: %v, %v", did, err)
	}
	now = now.Add(review.Lease + time.Second)
	if did, err := b.Step(ctx); !did || err != nil {
		t.Fatalf("a step after a's lease: %v, %v", did, err)
	}
	if st, err := b.Get(ctx, "g"); err != nil || st.State != review.Done || len(st.Review.Plies) != len(history) {
		t.Fatalf("after the takeover: %+v, %v", st, err)
	}
	if err := store.ReviewProgress(ctx, "g", "a", 1, now.Add(review.Lease)); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("the crashed worker's progress: %v, want ErrLeaseLost", err)
	}
}

// TestDeletedGame: a review queued for a game that was deleted (pruned)
// after the request read it is dropped by the worker that claims it, not
// claimed again each time a lease ends; the queue goes on.
func TestDeletedGame(t *testing.T) {
	ctx := context.Background()
	gs := gameMap{"kept": {ID: "kept", Start: engine.Start(), Status: games.Finished}}
	store := memory.New()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	rv := review.New(budget.New(1), review.Options{Nodes: 2000})
	a := review.NewService(store, gs, rv, review.ServiceOptions{Now: clock, Owner: "a"})
	// The request read the game, then the game went: the row stays queued.
	if _, err := store.RequestReview(ctx, "gone", 10, now); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RequestReview(ctx, "kept", 0, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if did, err := a.Step(ctx); !did || err != nil {
		t.Fatalf("the step that finds the game gone: %v, %v", did, err)
	}
	if st, err := store.Review(ctx, "gone"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("the deleted game's review: %+v, %v; want it dropped", st, err)
	}
	now = now.Add(review.Lease + time.Second)
	if did, err := a.Step(ctx); !did || err != nil {
		t.Fatalf("the next step: %v, %v", did, err)
	}
	if st, err := store.Review(ctx, "kept"); err != nil || st.State != review.Done {
		t.Fatalf("the kept game's review: %+v, %v", st, err)
	}
	if did, err := a.Step(ctx); did || err != nil {
		t.Fatalf("a step with the queue empty: %v, %v", did, err)
	}
}
