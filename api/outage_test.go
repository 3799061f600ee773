package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// Failures as the stores name them (store/internal/stored), over the
// driver's words, which no client may see.
var (
	errDown      = fmt.Errorf("dial tcp 10.0.0.7:5432: connection refused: %w", fault.ErrUnavailable)
	errFull      = fmt.Errorf("database or disk is full (13): %w", fault.ErrStorageFull)
	errUncertain = fmt.Errorf("unexpected EOF: %w", errors.Join(fault.ErrOutcomeUnknown, fault.ErrUnavailable))
)

// outageStore is a game store whose database can fail: reads with read,
// writes with write (nil: they work). storeThenFail makes a play's write
// go through and still fail with write, as a connection lost after the
// commit and before its answer does.
type outageStore struct {
	*memory.Store
	mu            sync.Mutex
	read, write   error
	storeThenFail bool
}

func (o *outageStore) set(read, write error, storeThenFail bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.read, o.write, o.storeThenFail = read, write, storeThenFail
}

func (o *outageStore) failures() (read, write error, storeThenFail bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.read, o.write, o.storeThenFail
}

func (o *outageStore) Game(ctx context.Context, id string) (games.Game, error) {
	if err, _, _ := o.failures(); err != nil {
		return games.Game{}, err
	}
	return o.Store.Game(ctx, id)
}

func (o *outageStore) Records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	if err, _, _ := o.failures(); err != nil {
		return nil, err
	}
	return o.Store.Records(ctx, id, from, limit)
}

func (o *outageStore) ApplyPlay(ctx context.Context, p games.Play) error {
	_, err, storeThenFail := o.failures()
	if err != nil && !storeThenFail {
		return err
	}
	if perr := o.Store.ApplyPlay(ctx, p); perr != nil {
		return perr
	}
	return err
}

// TestGamesHTTPStoreOutage: a database that fails is a 503 with its own
// code and Retry-After, never a 500 and never the driver's words; a move
// whose write may have been stored says so, and sending it again is safe.
func TestGamesHTTPStoreOutage(t *testing.T) {
	st := &outageStore{Store: memory.New()}
	opts := Options{EventHeartbeat: 10 * time.Millisecond}
	withGames(&opts, st, games.Options{}, games.HubOptions{})
	e, err := testNew(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	gs := &gamesServer{t: t, ts: ts, st: st.Store, client: ts.Client(), router: specRouter(t)}
	game, tokens := gs.twoSeats()
	pits := legalPits(t, game.Position)
	move := func(pit int) answer {
		t.Helper()
		return gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[0], map[string]int{"pit": pit, "ply": 0}, nil)
	}

	tests := []struct {
		name        string
		read, write error
		send        func() answer
		code        string
		retryAfter  string
		detail      string // in the detail
	}{
		{"a read while the database is down", errDown, nil,
			func() answer { return gs.must(http.MethodGet, "/v1/games/"+game.Id, "", nil, nil) },
			"store_unavailable", "5", "nothing was read or changed"},
		{"a page of moves while the database is down", errDown, nil,
			func() answer { return gs.must(http.MethodGet, "/v1/games/"+game.Id+"/moves", "", nil, nil) },
			"store_unavailable", "5", "nothing was read or changed"},
		{"a move while the database is down", errDown, errDown, func() answer { return move(pits[0]) },
			"store_unavailable", "5", "nothing was read or changed"},
		{"a move with no room for it", nil, errFull, func() answer { return move(pits[0]) },
			"storage_full", "30", "was not made"},
		{"a move lost on its way", nil, errUncertain, func() answer { return move(pits[0]) },
			"store_unavailable", "5", "may or may not have been stored"},
	}
	// One after another on the one game, in the test's goroutine: gs
	// fails the test it was made with.
	for _, tc := range tests {
		st.set(tc.read, tc.write, false)
		a := tc.send()
		st.set(nil, nil, false)
		if a.status != http.StatusServiceUnavailable {
			t.Fatalf("%s: %d %s, want 503", tc.name, a.status, a.body)
		}
		if code, _ := a.problem(t); code != tc.code {
			t.Errorf("%s: code %q, want %q", tc.name, code, tc.code)
		}
		if got := a.header.Get("Retry-After"); got != tc.retryAfter {
			t.Errorf("%s: Retry-After %q, want %q", tc.name, got, tc.retryAfter)
		}
		if body := string(a.body); !strings.Contains(body, tc.detail) || strings.Contains(body, "connection refused") ||
			strings.Contains(body, "disk is full") || strings.Contains(body, "EOF") {
			t.Errorf("%s: detail: %s", tc.name, body)
		}
	}

	// The write went through, but its answer was lost with the connection:
	// the same request sent again gets the stored move's answer, and the
	// move is played once.
	st.set(nil, errUncertain, true)
	gs.expect(move(pits[0]), http.StatusServiceUnavailable, "store_unavailable")
	st.set(nil, nil, false)
	again := move(pits[0])
	gs.expect(again, http.StatusOK, "")
	var pa oapi.PlayMoveAnswer
	again.decode(t, &pa)
	if pa.Game.Ply != 1 || pa.Move.Pit != pits[0] {
		t.Fatalf("the request sent again: %s, want the stored move at ply 0", again.body)
	}
}

// TestGamesHTTPEventsDuringOutage: a stream opened while the database is
// down is a 200 that waits, beating, and sends the game's events once the
// database is back: an EventSource would give up on a 503.
func TestGamesHTTPEventsDuringOutage(t *testing.T) {
	st := &outageStore{Store: memory.New()}
	opts := Options{EventHeartbeat: 10 * time.Millisecond}
	withGames(&opts, st, games.Options{}, games.HubOptions{PollInterval: 10 * time.Millisecond})
	e, err := testNew(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	gs := &gamesServer{t: t, ts: ts, st: st.Store, client: ts.Client(), router: specRouter(t)}
	game, _ := gs.twoSeats()

	st.set(errDown, nil, false)
	resp, err := gs.openEvents(game.Id, "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events while the database is down: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	beats := 0
	events, _, err := readEvents(resp.Body, func(ev []sseEvent) bool {
		if len(ev) > 0 {
			return true
		}
		if beats++; beats == 3 {
			st.set(nil, nil, false) // the database is back
		}
		return false
	})
	if err != nil || len(events) != 1 || events[0].event != "game" || !strings.Contains(events[0].data, `"status":"active"`) || beats < 3 {
		t.Fatalf("after %d beats: %+v (%v), want the game, active", beats, events, err)
	}
}
