package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/review"
)

var reviewCases = []suiteCase{
	{"reviews/a review is requested once", testReviewRequestedOnce},
	{"reviews/claims go first requested first, and a done review is kept whole", testReviewClaims},
	{"reviews/a lease that ends is taken over", testReviewLease},
	{"reviews/one claim per review under a race", testReviewRace},
	{"reviews/a pruned game's review is deleted with it", testReviewPruned},
	{"reviews/only the owner drops a review it holds", testReviewDrop},
}

// sampleReview is a review with every field set.
func sampleReview() review.Review {
	return review.Review{
		Nodes: 400_000,
		Plies: []review.Ply{
			{Ply: 1, Side: engine.South, Pit: 2, Best: []int{2, 4}, Before: 3, After: 3, ExactBefore: false, ExactAfter: false,
				Loss: 0, Class: review.Best, Depth: 17, Source: search.FromSearch},
			{Ply: 2, Side: engine.North, Pit: 7, Best: []int{9}, Before: 1, After: -4, ExactBefore: true, ExactAfter: true,
				ResultBefore: tablebase.Win, ResultAfter: tablebase.Loss, ProvenBefore: true, ProvenAfter: true,
				Loss: 5, Class: review.Blunder, Mark: review.LostWin, Forced: false, Source: search.FromTablebase},
			{Ply: 3, Side: engine.South, Pit: 0, Best: []int{0}, Before: 4, After: 4, ExactBefore: true, ExactAfter: true,
				ResultBefore: tablebase.Win, ResultAfter: tablebase.Win, ProvenBefore: true, ProvenAfter: true, Forced: true},
		},
		Sides: [2]review.Side{
			{Counts: [review.NumClasses]int{2, 0, 0, 0, 0}, Accuracy: 10000, Moves: 2},
			{Counts: [review.NumClasses]int{0, 0, 0, 0, 1}, Accuracy: 4444, Moves: 1},
		},
	}
}

func testReviewRequestedOnce(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	if _, err := s.Review(ctx, "r1"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("review of nothing: %v, want ErrNotFound", err)
	}
	want := review.Stored{GameID: "r1", State: review.Queued, Total: 42, RequestedAt: tick(1)}
	got, err := s.RequestReview(ctx, "r1", 42, tick(1))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("first request: %+v, %v; want %+v", got, err, want)
	}
	got, err = s.RequestReview(ctx, "r1", 50, tick(2))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("second request: %+v, %v; want the first %+v", got, err, want)
	}
	got, err = s.Review(ctx, "r1")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read: %+v, %v; want %+v", got, err, want)
	}
}

func testReviewClaims(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	if _, ok, err := s.ClaimReview(ctx, "a", tick(1), tick(60)); ok || err != nil {
		t.Fatalf("claim of an empty queue: %v, %v", ok, err)
	}
	for i, id := range []string{"second", "first"} {
		if _, err := s.RequestReview(ctx, id, 3, tick(3-i)); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := s.ClaimReview(ctx, "a", tick(4), tick(60))
	if err != nil || !ok || got.GameID != "first" || got.State != review.Running || got.Done != 0 {
		t.Fatalf("first claim: %+v, %v, %v; want the first requested, running", got, ok, err)
	}
	got, ok, err = s.ClaimReview(ctx, "b", tick(4), tick(60))
	if err != nil || !ok || got.GameID != "second" {
		t.Fatalf("second claim: %+v, %v, %v; want the second requested", got, ok, err)
	}
	if _, ok, err := s.ClaimReview(ctx, "c", tick(5), tick(60)); ok || err != nil {
		t.Fatalf("claim with all taken: %v, %v", ok, err)
	}
	if err := s.ReviewProgress(ctx, "first", "b", 1, tick(61)); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("progress by another: %v, want ErrLeaseLost", err)
	}
	if err := s.ReviewProgress(ctx, "first", "a", 2, tick(61)); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Review(ctx, "first"); err != nil || st.State != review.Running || st.Done != 2 || st.Total != 3 {
		t.Fatalf("after progress: %+v, %v", st, err)
	}
	if err := s.FinishReview(ctx, "first", "b", sampleReview(), tick(7)); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("finish by another: %v, want ErrLeaseLost", err)
	}
	if err := s.FinishReview(ctx, "first", "a", sampleReview(), tick(7)); err != nil {
		t.Fatal(err)
	}
	r := sampleReview()
	want := review.Stored{GameID: "first", State: review.Done, Done: 3, Total: 3, RequestedAt: tick(2), FinishedAt: tick(7), Review: &r}
	if st, err := s.Review(ctx, "first"); err != nil || !reflect.DeepEqual(st, want) {
		t.Fatalf("done review: %+v, %v\nwant %+v", st, err, want)
	}
	if st, err := s.RequestReview(ctx, "first", 3, tick(8)); err != nil || !reflect.DeepEqual(st, want) {
		t.Fatalf("request of a done review: %+v, %v", st, err)
	}
	if err := s.ReviewProgress(ctx, "first", "a", 3, tick(90)); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("progress after done: %v, want ErrLeaseLost", err)
	}
	if _, ok, err := s.ClaimReview(ctx, "c", tick(1000), tick(1060)); !ok || err != nil {
		t.Fatalf("claim of the second's ended lease: %v, %v", ok, err)
	} else if _, ok, _ := s.ClaimReview(ctx, "d", tick(1000), tick(1060)); ok {
		t.Fatal("a done review was claimed")
	}
}

func testReviewLease(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	if _, err := s.RequestReview(ctx, "g", 10, tick(1)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.ClaimReview(ctx, "a", tick(2), tick(10)); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	if err := s.ReviewProgress(ctx, "g", "a", 4, tick(12)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.ClaimReview(ctx, "b", tick(11), tick(20)); ok || err != nil {
		t.Fatalf("claim within the renewed lease: %v, %v", ok, err)
	}
	got, ok, err := s.ClaimReview(ctx, "b", tick(13), tick(20))
	if !ok || err != nil || got.GameID != "g" || got.Done != 0 || got.State != review.Running {
		t.Fatalf("claim after the lease: %+v, %v, %v", got, ok, err)
	}
	if err := s.ReviewProgress(ctx, "g", "a", 5, tick(30)); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("the crashed owner's progress: %v, want ErrLeaseLost", err)
	}
	if err := s.FinishReview(ctx, "g", "b", sampleReview(), tick(14)); err != nil {
		t.Fatal(err)
	}
}

func testReviewRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	const n = 5
	for i := range n {
		if _, err := s.RequestReview(ctx, fmt.Sprintf("race%d", i), 1, tick(i)); err != nil {
			t.Fatal(err)
		}
	}
	handles := []Store{s}
	if fx.again != nil {
		handles = append(handles, fx.again(t, s))
	}
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			h := handles[i%len(handles)]
			st, ok, err := h.ClaimReview(ctx, fmt.Sprintf("w%d", i), tick(100), tick(200))
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				claimed[st.GameID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claimed) != n {
		t.Fatalf("claimed %v, want each of %d reviews", claimed, n)
	}
	for id, c := range claimed {
		if c != 1 {
			t.Errorf("review %s claimed %d times", id, c)
		}
	}
}

// testReviewPruned: DeleteEnded takes a pruned game's review with it, done
// or queued, in the same write, and leaves the reviews of the games it
// keeps, and a review whose game is not stored here.
func testReviewPruned(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	before := tick(10)
	// ended makes a game of two moves, resigned at at.
	ended := func(t *testing.T, id string, at time.Time) games.Game {
		t.Helper()
		g := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
		for i := range 2 {
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, i), 0)
			p.Game.Deadline = tick(5)
			g = mustApply(t, s, p)
		}
		g, err := s.Resign(ctx, g.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	old, oldQueued, recent := ended(t, "pruned-done", tick(6)), ended(t, "pruned-queued", tick(7)), ended(t, "kept", tick(11))
	for i, id := range []string{old.ID, oldQueued.ID, recent.ID, "no-such-game"} {
		if _, err := s.RequestReview(ctx, id, 2, tick(12).Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if st, ok, err := s.ClaimReview(ctx, "a", tick(13), tick(60)); err != nil || !ok || st.GameID != old.ID {
		t.Fatalf("claim: %+v, %v, %v; want %s", st, ok, err, old.ID)
	}
	if err := s.FinishReview(ctx, old.ID, "a", sampleReview(), tick(14)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteEnded(ctx, before, 10); err != nil || n != 2 {
		t.Fatalf("deleted %d (%v), want the two old games", n, err)
	}
	for _, c := range []struct {
		id   string
		kept bool
	}{{old.ID, false}, {oldQueued.ID, false}, {recent.ID, true}, {"no-such-game", true}} {
		st, err := s.Review(ctx, c.id)
		switch {
		case c.kept && (err != nil || st.GameID != c.id):
			t.Errorf("review of %s: %+v, %v; want it kept", c.id, st, err)
		case !c.kept && !errors.Is(err, review.ErrNotFound):
			t.Errorf("review of pruned %s: %+v, %v; want review.ErrNotFound", c.id, st, err)
		}
	}
	// The pruned game's queued review is no longer in the queue.
	for range 3 {
		st, ok, err := s.ClaimReview(ctx, "b", tick(100), tick(160))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if st.GameID == oldQueued.ID || st.GameID == old.ID {
			t.Fatalf("claimed the review of pruned game %s", st.GameID)
		}
	}
}

func testReviewDrop(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	if err := s.DropReview(ctx, "none", "a"); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("drop of no review: %v, want ErrLeaseLost", err)
	}
	for i, id := range []string{"held", "done"} {
		if _, err := s.RequestReview(ctx, id, 2, tick(1+i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DropReview(ctx, "held", "a"); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("drop of a queued review: %v, want ErrLeaseLost", err)
	}
	for _, owner := range []string{"a", "b"} {
		if _, ok, err := s.ClaimReview(ctx, owner, tick(3), tick(60)); !ok || err != nil {
			t.Fatalf("claim by %s: %v, %v", owner, ok, err)
		}
	}
	if err := s.FinishReview(ctx, "done", "b", sampleReview(), tick(4)); err != nil {
		t.Fatal(err)
	}
	if err := s.DropReview(ctx, "held", "b"); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("drop by another: %v, want ErrLeaseLost", err)
	}
	if err := s.DropReview(ctx, "done", "b"); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("drop of a done review: %v, want ErrLeaseLost", err)
	}
	if err := s.DropReview(ctx, "held", "a"); err != nil {
		t.Fatalf("drop by the owner: %v", err)
	}
	if st, err := s.Review(ctx, "held"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("a dropped review: %+v, %v; want ErrNotFound", st, err)
	}
	if st, err := s.Review(ctx, "done"); err != nil || st.State != review.Done {
		t.Fatalf("the done review: %+v, %v", st, err)
	}
	if err := s.DropReview(ctx, "held", "a"); !errors.Is(err, review.ErrLeaseLost) {
		t.Fatalf("a second drop: %v, want ErrLeaseLost", err)
	}
}
