package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/store/memory"
)

// newReviewServer is a games server with reviews over the same store; the
// test works the queue off with the service's Step.
func newReviewServer(t *testing.T, opts Options) (*gamesServer, *review.Service) {
	t.Helper()
	st := memory.New()
	withGames(&opts, st, games.Options{}, games.HubOptions{})
	opts.Players = players.NewService(st, nil)
	svc := review.NewService(st, opts.Games.(review.Games), review.New(testCPU(), review.Options{Nodes: 2000}), review.ServiceOptions{Owner: "test"})
	opts.Reviews = svc
	e, err := testNew(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return &gamesServer{t: t, ts: ts, st: st, client: ts.Client(), router: specRouter(t)}, svc
}

func TestGameReviewHTTP(t *testing.T) {
	gs, svc := newReviewServer(t, Options{})
	game, tokens := gs.twoSeats()
	path := "/v1/games/" + game.Id + "/review"
	gs.expect(gs.must(http.MethodPost, "/v1/games/nosuchgame000000/review", "", nil, nil), http.StatusNotFound, "not_found")
	gs.expect(gs.must(http.MethodGet, "/v1/games/nosuchgame000000/review", "", nil, nil), http.StatusNotFound, "not_found")
	gs.expect(gs.must(http.MethodPost, path, "", nil, nil), http.StatusConflict, "game_not_finished")
	gs.expect(gs.must(http.MethodGet, path, "", nil, nil), http.StatusConflict, "game_not_finished")
	game = gs.playFirstLegal(game, tokens, 3)
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+game.Id+"/resign", tokens[0], nil, nil), http.StatusOK, "")
	gs.expect(gs.must(http.MethodGet, path, "", nil, nil), http.StatusNotFound, "review_not_found")

	var got oapi.GameReview
	a := gs.must(http.MethodPost, path, "", nil, nil)
	gs.expect(a, http.StatusAccepted, "")
	a.decode(t, &got)
	if got.State != oapi.GameReviewStateQueued || got.Progress.Total != 3 || got.Review != nil {
		t.Fatalf("requested: %+v", got)
	}
	if did, err := svc.Step(t.Context()); !did || err != nil {
		t.Fatalf("step: %v, %v", did, err)
	}
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		a = gs.must(method, path, "", nil, nil)
		gs.expect(a, http.StatusOK, "")
		a.decode(t, &got)
		if got.State != oapi.GameReviewStateDone || got.Progress.Done != 3 || got.Review == nil || len(got.Review.Plies) != 3 {
			t.Fatalf("%s done: %s", method, a.body)
		}
		if s := got.Review.South; s.Moves != 2 || s.Accuracy < 0 || s.Accuracy > 100 {
			t.Errorf("south: %+v", s)
		}
	}
}

func TestReviewRecordHTTP(t *testing.T) {
	gs, _ := newReviewServer(t, Options{})
	long := make([]int, 81)
	tests := []struct {
		name   string
		body   any
		status int
		code   string
		plies  int
	}{
		{"three moves", map[string]any{"moves": []int{0, 6, 1}}, http.StatusOK, "", 3},
		{"an illegal move", map[string]any{"moves": []int{0, 8}}, http.StatusUnprocessableEntity, "illegal_move", 0},
		{"no moves", map[string]any{"moves": []int{}}, http.StatusBadRequest, "invalid_request", 0},
		{"too many moves", map[string]any{"moves": long}, http.StatusBadRequest, "invalid_request", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := gs.must(http.MethodPost, "/v1/review", "", tt.body, nil)
			gs.expect(a, tt.status, tt.code)
			if tt.status != http.StatusOK {
				return
			}
			var r oapi.Review
			a.decode(t, &r)
			if len(r.Plies) != tt.plies || r.NodesPerPly != 2000 {
				t.Fatalf("review: %s", a.body)
			}
		})
	}
}
