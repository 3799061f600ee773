package postgres

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

var _ games.NewsListener = (*Store)(nil)

// TestNewsRoundTrip: a play's news reads back from its line as it was
// made, to the store's microsecond.
func TestNewsRoundTrip(t *testing.T) {
	after := engine.Start()
	tests := []struct {
		name string
		news games.PlayNews
	}{
		{"untimed", games.PlayNews{ID: "g1", Version: 3, Ply: 1, Pits: []byte{4}, Position: after,
			Status: games.Active, UpdatedAt: t0}},
		{"clock, deadline and offers", games.PlayNews{ID: "g-2_x", Version: 9, Ply: 6, Pits: []byte{11, 0, 5},
			Position: after, Status: games.Active, UpdatedAt: t0, Clock: [2]time.Duration{90 * time.Second, 1234567 * time.Microsecond},
			Deadline: t0.Add(time.Minute), DrawOffer: games.OfferBySouth, TakebackOffer: games.OfferByNorth}},
		{"the end", games.PlayNews{ID: "g3", Version: 40, Ply: 37, Pits: []byte{10}, Position: after,
			Status: games.Finished, Result: engine.Result{Winner: engine.NorthWins, Reason: engine.ByMajority}, UpdatedAt: t0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := encodeNews(&tc.news)
			if strings.ContainsRune(line, '\n') || !strings.HasPrefix(line, tc.news.ID+" {") {
				t.Fatalf("line %q: a line of its own, starting with the id, a space and {, expected", line)
			}
			got, err := decodeNews(line)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			want := tc.news
			want.UpdatedAt = micro(want.UpdatedAt)
			if !want.Deadline.IsZero() {
				want.Deadline = micro(want.Deadline)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Fatalf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

// change is one call of eachChange's callback.
type change struct {
	id      string
	version int64 // the news's, 0 for none
}

func changesOf(t *testing.T, payload string, own bool) []change {
	var out []change
	eachChange(payload, own, func(h games.Heard) {
		if h.Own != own {
			t.Errorf("heard %q as own %v, want %v", h.ID, h.Own, own)
		}
		c := change{id: h.ID}
		if h.News != nil {
			c.version = h.News.Version
		}
		out = append(out, c)
	})
	return out
}

// TestEachChange: the lines of a notification, ids alone and news, what
// becomes of a line that does not decode, and the Store's own
// notifications, whose news go unread.
func TestEachChange(t *testing.T) {
	news := encodeNews(&games.PlayNews{ID: "g2", Version: 5, Ply: 3, Pits: []byte{2}, Position: engine.Start(),
		Status: games.Active, UpdatedAt: t0})
	tests := []struct {
		name, payload string
		own           bool
		want          []change
	}{
		{"listening now", "", false, []change{{id: ""}}},
		{"an id", "g1", false, []change{{id: "g1"}}},
		{"news among ids", "g1\n" + news + "\ng3", false, []change{{id: "g1"}, {"g2", 5}, {id: "g3"}}},
		{"one's own news go unread", "g1\n" + news, true, []change{{id: "g1"}, {id: "g2"}}},
		{"news that does not decode names its game", `g4 {"id":"g4","version":2,"pits":"z"}`, false, []change{{id: "g4"}}},
		{"news under another id name the line's", strings.Replace(news, "g2 ", "g9 ", 1), false, []change{{id: "g9"}}},
		{"a line with no id names nothing", ` {"id":"g5"}`, false, nil},
		{"empty lines", "\ng1\n\n", false, []change{{id: "g1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := changesOf(t, tc.payload, tc.own); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzChangesPayload: whatever a notification holds, reading it neither
// panics nor names the empty game (but for the empty payload), and each
// news it yields reads back the same from its own line.
func FuzzChangesPayload(f *testing.F) {
	f.Add("")
	f.Add("g1\ng2")
	f.Add(encodeNews(&games.PlayNews{ID: "g2", Version: 5, Ply: 3, Pits: []byte{2, 7}, Position: engine.Start(),
		Status: games.Active, UpdatedAt: t0, Deadline: t0, DrawOffer: games.OfferByNorth}))
	f.Add(`x {"id":"x","version":1,"ply":0,"pits":"0","position":"","status":"active"}`)
	f.Fuzz(func(t *testing.T, payload string) {
		eachChange(payload, false, func(h games.Heard) {
			id, n := h.ID, h.News
			if id == "" && payload != "" {
				t.Fatalf("payload %q named the empty game", payload)
			}
			if n == nil {
				return
			}
			if n.ID != id {
				t.Fatalf("news of game %q under the id %q", n.ID, id)
			}
			again, err := decodeNews(encodeNews(n))
			if err != nil {
				t.Fatalf("news %+v does not read back: %v", *n, err)
			}
			if !reflect.DeepEqual(again, n) {
				t.Fatalf("news %+v reads back as %+v", *n, *again)
			}
		})
	})
}

// TestRoundsOf: a batch in game id order splits into rounds that hold
// each game's plays once, in their order; its new games and joins (ids
// marked + and ~ here) are in none.
func TestRoundsOf(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want [][]int
	}{
		{"one", []string{"a"}, [][]int{{0}}},
		{"all apart", []string{"a", "b", "c"}, [][]int{{0, 1, 2}}},
		{"a game twice", []string{"a", "b", "b", "c"}, [][]int{{0, 1, 3}, {2}}},
		{"three of one, two of another", []string{"a", "a", "a", "b", "b"}, [][]int{{0, 3}, {1, 4}, {2}}},
		{"a join and a new game between", []string{"a", "+b", "~c", "d", "d"}, [][]int{{0, 3}, {4}}},
		{"no plays", []string{"+a", "~b"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			batch := make([]*pendingWrite, len(tc.ids))
			var plays []int
			for i, id := range tc.ids {
				switch id[0] {
				case '+':
					batch[i] = &pendingWrite{kind: creating, id: id[1:]}
				case '~':
					batch[i] = &pendingWrite{kind: joining, id: id[1:]}
				default:
					batch[i] = playWrite(&games.Play{GameID: id})
					plays = append(plays, i)
				}
			}
			if got := roundsOf(batch, plays); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBatchRounds: one batch holding two plays of one game, the second
// made after the first, stores both in order (two rounds of the batch's
// one transaction); a stale third matches nothing and the others still
// commit.
func TestBatchRounds(t *testing.T) {
	s := openFresh(t)
	g := joinedGame(t, s, "rounds")
	other := joinedGame(t, s, "rounds-other")
	first := playOn(t, g, 0, seatToken(g), t0.Add(time.Second))
	second := playOn(t, first.Game, 7, seatToken(first.Game), t0.Add(2*time.Second))
	stale := playOn(t, g, 1, seatToken(g), t0.Add(3*time.Second))
	elsewhere := playOn(t, other, 2, seatToken(other), t0.Add(time.Second))
	batch := []*pendingWrite{playWrite(&elsewhere), playWrite(&first), playWrite(&second), playWrite(&stale)}
	// In game id order, each game's plays in their order.
	batch[0], batch[1], batch[2], batch[3] = batch[1], batch[2], batch[3], batch[0]
	applied, err := s.sendBatch(batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, true}; !reflect.DeepEqual(applied, want) {
		t.Fatalf("applied %v, want %v", applied, want)
	}
	got, err := s.Game(t.Context(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Ply != 2 || got.Version != second.Game.Version || string(got.History) != string([]byte{0, 7}) {
		t.Fatalf("game at ply %d, version %d, history %v; want ply 2, version %d, history [0 7]", got.Ply, got.Version, got.History, second.Game.Version)
	}
	recs, err := s.Records(t.Context(), g.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Pit != 0 || recs[1].Pit != 7 {
		t.Fatalf("records %+v, want pits 0 and 7", recs)
	}
}

// TestBatchNewsReachOtherInstance: another instance hears the news of
// every play of a batch, though the batch's news outgrow one
// notification, and only of the plays that were stored; the instance that
// stored them hears their ids, without news.
func TestBatchNewsReachOtherInstance(t *testing.T) {
	dsn := freshSchema(t)
	a, b := openOn(t, dsn, Options{}), openOn(t, dsn, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var (
		mu      sync.Mutex
		heard   = map[string]*games.PlayNews{}
		ids     = map[string]bool{}
		ownIDs  = map[string]bool{}
		ownNews int
		got     = make(chan struct{}, 1024)
	)
	go func() {
		_ = b.ListenNews(ctx, func(h games.Heard) {
			id, n := h.ID, h.News
			mu.Lock()
			ids[id] = true
			if n != nil {
				heard[id] = n
			}
			mu.Unlock()
			got <- struct{}{}
		})
	}()
	go func() {
		_ = a.ListenNews(ctx, func(h games.Heard) {
			id, n := h.ID, h.News
			mu.Lock()
			ownIDs[id] = true
			if n != nil {
				ownNews++
			}
			mu.Unlock()
			got <- struct{}{}
		})
	}()
	// A LISTEN takes effect when its statement has run.
	for ready := false; !ready; {
		if err := a.Publish(ctx, "warm-up"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
			mu.Lock()
			ready = ids["warm-up"] && ownIDs["warm-up"]
			mu.Unlock()
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no notification arrived")
		}
	}

	const n = 80
	var batch []*pendingWrite
	var stale *games.Play
	for i := range n {
		g := joinedGame(t, a, fmt.Sprintf("news%02d", i))
		p := playOn(t, g, 0, seatToken(g), t0.Add(time.Second))
		batch = append(batch, playWrite(&p))
		if i == n-1 {
			sp := playOn(t, g, 3, seatToken(g), t0.Add(time.Second))
			stale = &sp
		}
	}
	size := 0
	for _, p := range batch {
		nw := p.play.News()
		size += len(encodeNews(&nw)) + 1
	}
	if size <= maxPayload {
		t.Fatalf("the batch's news take %d bytes, which fit one notification: make it bigger", size)
	}
	batch = append(batch, playWrite(stale))
	applied, err := a.sendBatch(batch)
	if err != nil {
		t.Fatal(err)
	}
	if applied[n] {
		t.Fatal("the stale play was stored")
	}
	for {
		mu.Lock()
		done := len(heard) == n && len(ownIDs) == n+2 // and the warm-up, and "" as it listened
		mu.Unlock()
		if done {
			break
		}
		select {
		case <-got:
		case <-ctx.Done():
			t.Fatalf("heard the news of %d plays of %d, and the ids of %d at home", len(heard), n, len(ownIDs)-2)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if ownNews > 0 {
		t.Errorf("the instance that stored the plays decoded the news of %d of them", ownNews)
	}
	for _, p := range batch[:n] {
		want := p.play.News()
		want.UpdatedAt = micro(want.UpdatedAt)
		if n := heard[p.play.GameID]; n == nil || !reflect.DeepEqual(*n, want) {
			t.Errorf("game %s: heard %+v, want %+v", p.play.GameID, n, want)
		}
	}
}
