package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// TestGamesHTTPOneSearchPerPly is the duplicate search: 20 copies
// of a move against the level-8 AI, sent at once, with one AI search slot.
// The AI holds its search until all 20 requests have reached the server, so
// each would have searched for itself had the copies not waited for the
// first: exactly one search, one 201 and 19 200s with the same bytes, and
// no 503.
func TestGamesHTTPOneSearchPerPly(t *testing.T) {
	const copies = 20
	var arrived, searches atomic.Int64
	choose := func(ctx context.Context, p engine.Position, r engine.Rules, hist []engine.Position, level int, seed uint64) (int, error) {
		searches.Add(1)
		for arrived.Load() < copies && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		return lastLegal(ctx, p, r, hist, level, seed)
	}
	gs := newGamesServer(t, Options{}, games.Options{Choose: choose, AIMoveTime: 5 * time.Second, AIConcurrency: 1}, func(srv *http.Server) {
		next := srv.Handler
		srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/moves") {
				arrived.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	})
	c := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "ai", "level": 8}}, nil)
	gs.expect(c, http.StatusCreated, "")
	var seat oapi.GameSeat
	c.decode(t, &seat)

	answers := make([]answer, copies)
	errs := make([]error, copies)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Go(func() {
			answers[i], errs[i] = gs.do(http.MethodPost, "/v1/games/"+seat.Game.Id+"/moves", seat.Token, map[string]int{"pit": 2, "ply": 0}, nil)
		})
	}
	wg.Wait()
	if n := searches.Load(); n != 1 {
		t.Errorf("%d AI searches for ply 0, want 1", n)
	}
	var played []byte
	for i, a := range answers {
		switch {
		case errs[i] != nil:
			t.Fatal(errs[i])
		case a.status == http.StatusCreated && played == nil:
			played = a.body
		case a.status != http.StatusOK:
			t.Fatalf("copy %d: %d %s, want one 201 and 200s", i, a.status, a.body)
		}
	}
	if played == nil {
		t.Fatal("no copy was played")
	}
	for i, a := range answers {
		if !bytes.Equal(a.body, played) {
			t.Fatalf("copy %d answered %s, the played one %s", i, a.body, played)
		}
	}
	var g oapi.Game
	gs.must(http.MethodGet, "/v1/games/"+seat.Game.Id, "", nil, nil).decode(t, &g)
	if g.Ply != 2 {
		t.Fatalf("game at ply %d, want 2: the move and the AI's reply", g.Ply)
	}
}

// TestGamesHTTPResignTwice: a resignation sent again by the same seat (its
// answer lost) gets the first answer, byte for byte, also when both copies
// race; the other seat resigning after it is told the game is over.
func TestGamesHTTPResignTwice(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	for _, racing := range []bool{false, true} {
		game, tokens := gs.twoSeats()
		path := "/v1/games/" + game.Id + "/resign"
		var answers [2]answer
		if racing {
			var errs [2]error
			var wg sync.WaitGroup
			for i := range answers {
				wg.Go(func() { answers[i], errs[i] = gs.do(http.MethodPost, path, tokens[1], nil, nil) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		} else {
			answers[0] = gs.must(http.MethodPost, path, tokens[1], nil, nil)
			answers[1] = gs.must(http.MethodPost, path, tokens[1], nil, nil)
		}
		for i, a := range answers {
			gs.expect(a, http.StatusOK, "")
			if !bytes.Equal(a.body, answers[0].body) {
				t.Fatalf("racing %v: resignation %d answered %s, the first %s", racing, i, a.body, answers[0].body)
			}
		}
		var g oapi.Game
		answers[0].decode(t, &g)
		if g.Status != oapi.GameStatusFinished || g.Result.MustGet() != (oapi.Result{Winner: oapi.ResultWinnerSouth, Reason: oapi.ResultReasonResignation}) {
			t.Fatalf("racing %v: %s", racing, answers[0].body)
		}
		gs.expect(gs.must(http.MethodPost, path, tokens[0], nil, nil), http.StatusConflict, "game_over")
		gs.expect(gs.must(http.MethodPost, path, tokens[1], nil, nil), http.StatusOK, "")
	}
}

// clientRecorder is the game service, noting the client address of every
// request that may run the AI.
type clientRecorder struct {
	GameService
	mu      sync.Mutex
	clients []string
}

func (r *clientRecorder) note(addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clients = append(r.clients, addr)
}

func (r *clientRecorder) Create(ctx context.Context, req games.NewGame) (games.Seat, error) {
	r.note(req.Client)
	return r.GameService.Create(ctx, req)
}

func (r *clientRecorder) Play(ctx context.Context, req games.MoveRequest) (games.PlayResult, bool, error) {
	r.note(req.Client)
	return r.GameService.Play(ctx, req)
}

// TestGamesHTTPClientAddress: the address the AI's slots are shared by is
// the client's.
func TestGamesHTTPClientAddress(t *testing.T) {
	rec := &clientRecorder{GameService: games.NewService(memory.New(), testCPU(), games.Options{Choose: lastLegal})}
	e, err := testNew(t, Options{Games: rec})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	gs := &gamesServer{t: t, ts: ts, client: ts.Client(), router: specRouter(t)}
	c := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "ai", "level": 3}}, nil)
	gs.expect(c, http.StatusCreated, "")
	var seat oapi.GameSeat
	c.decode(t, &seat)
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+seat.Game.Id+"/moves", seat.Token, map[string]int{"pit": 0, "ply": 0}, nil), http.StatusCreated, "")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.clients) != 2 || rec.clients[0] != "127.0.0.1" || rec.clients[1] != "127.0.0.1" {
		t.Fatalf("the service was told the clients %q, want 127.0.0.1 twice", rec.clients)
	}
}
