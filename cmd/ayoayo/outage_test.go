//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// outageLoad plays games between two people over some instances, each
// request to one of them at random, and keeps account of what it was told:
// every move answered 2xx, and every answer that was neither a 2xx nor the
// 503 the outage may bring (with Retry-After). A 503 is retried, the same
// request again, as a client would; after one whose write may have been
// stored too, which is the point: the ply check makes it safe.
type outageLoad struct {
	http  *http.Client
	bases func() []string

	mu          sync.Mutex
	acked       []ackedMove
	unavailable int      // 503s with Retry-After
	wrong       []string // anything else that is not a 2xx
}

func (l *outageLoad) note(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

// send sends one request until it is answered other than 503; it returns
// that answer (status 0 when stop came first).
func (l *outageLoad) send(stop <-chan struct{}, rng *rand.Rand, method, path, token string, body, out any) int {
	for {
		select {
		case <-stop:
			return 0
		default:
		}
		bases := l.bases()
		base := bases[rng.IntN(len(bases))]
		status, h, data, err := sendJSON(context.Background(), l.http, method, base+path, token, body, out)
		switch {
		case err != nil:
			l.note(func() { l.wrong = append(l.wrong, fmt.Sprintf("%s %s: %v", method, path, err)) })
		case status == http.StatusServiceUnavailable && h.Get("Retry-After") != "":
			l.note(func() { l.unavailable++ })
		case status/100 == 2:
			return status
		default:
			l.note(func() { l.wrong = append(l.wrong, fmt.Sprintf("%s %s: %d %s", method, path, status, truncate(data))) })
			return status
		}
		// Far sooner than Retry-After asks: the test wants many tries.
		time.Sleep(50 * time.Millisecond)
	}
}

// play plays games until stop, each move to a random instance.
func (l *outageLoad) play(stop <-chan struct{}, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 21))
	for {
		var s, n ltSeat
		if l.send(stop, rng, http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &s) != http.StatusCreated {
			return
		}
		if l.send(stop, rng, http.MethodPost, "/v1/games/"+s.Game.ID+"/join", "", nil, &n) != http.StatusCreated {
			return
		}
		game, tokens := n.Game, [2]string{s.Token, n.Token}
		for game.Status == "active" {
			pit, err := pickMove(game.Position, rng)
			if err != nil {
				l.note(func() { l.wrong = append(l.wrong, err.Error()) })
				return
			}
			side := 0
			if game.Position.ToMove == "north" {
				side = 1
			}
			var ans ltAnswer
			st := l.send(stop, rng, http.MethodPost, "/v1/games/"+game.ID+"/moves", tokens[side], map[string]int{"pit": pit, "ply": game.Ply}, &ans)
			if st/100 != 2 {
				return
			}
			l.note(func() {
				l.acked = append(l.acked, ackedMove{game: game.ID, ply: game.Ply, pit: pit, position: ans.Game.Position, status: st})
			})
			game = ans.Game
		}
	}
}

// moveIDs reads an event stream's move event ids until it ends; the channel
// is closed then.
func moveIDs(t *testing.T, ctx context.Context, url, lastEventID string) (<-chan int, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		cancel()
		t.Fatalf("events from %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("events from %s: %d, want 200: EventSource would give up", url, resp.StatusCode)
	}
	ids := make(chan int, 4096)
	go func() {
		defer close(ids)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		id := -1
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id, _ = strconv.Atoi(v)
			}
			if line == "event: move" {
				ids <- id
			}
		}
	}()
	return ids, cancel
}

// TestPostgresOutage stops the database under two instances carrying a load
// of moves, and starts it again. Meanwhile every request is answered 503
// with Retry-After (never 500), /readyz is 503, event streams stay open and
// a stream opened then is a 200; an instance started during the outage
// waits for the database, answering /livez, and serves once it is back.
// Afterwards every move answered 2xx is stored, and every stream got every
// move of its game once, in order.
func TestPostgresOutage(t *testing.T) {
	endToEnd(t, "builds and runs three server binaries and a PostgreSQL server")
	pg := newPGCluster(t)
	bin := buildBinary(t, t.TempDir())
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", pg.dsn(), "--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0",
		"--stream-rate", "0", "--event-heartbeat", "500ms", "--event-poll", "1h"} // events by NOTIFY, and by the feeds' own retries
	a := startBinary(t, bin, append(args, "--instance", "a")...)
	b := startBinary(t, bin, append(args, "--instance", "b")...)
	httpc := &http.Client{Timeout: 30 * time.Second}
	load := &outageLoad{http: httpc, bases: func() []string { return []string{a.url, b.url} }}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// One game played on a, followed on b from the start.
	watched := (&clusterClient{t: t, http: httpc}).newGame(a.url, a.url)
	early, closeEarly := moveIDs(t, ctx, b.url+"/v1/games/"+watched.game.ID+"/events", "")
	defer closeEarly()
	onA := &outageLoad{http: httpc, bases: func() []string { return []string{a.url} }}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var watchedPly int
	var made []int // the watched game's move event ids: 8 times the version each made
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(99, 1))
		g := watched.game
		for g.Status == "active" {
			pit, err := quietMove(g.Position)
			if err != nil {
				return
			}
			var ans ltAnswer
			if onA.send(stop, rng, http.MethodPost, "/v1/games/"+g.ID+"/moves", watched.tokens[map[string]int{"south": 0, "north": 1}[g.Position.ToMove]],
				map[string]int{"pit": pit, "ply": g.Ply}, &ans)/100 != 2 {
				break
			}
			g = ans.Game
			made = append(made, int(g.Version)*8)
			time.Sleep(50 * time.Millisecond) // a player's pace, so the game outlasts the outage
		}
		watchedPly = g.Ply
	})
	for w := range 4 {
		wg.Go(func() { load.play(stop, uint64(w)) })
	}

	// The load runs against the real binaries for a while before the
	// outage: a span of their work is the behaviour under test.
	time.Sleep(1500 * time.Millisecond)
	pg.stop(t)
	outage := time.Now()
	t.Log("the database is down")

	for _, s := range []*server{a, b} {
		status, h, body, err := sendJSON(ctx, httpc, http.MethodGet, s.url+"/readyz", "", nil, nil)
		if err != nil || status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(string(body), `"store_unavailable"`) {
			t.Errorf("/readyz of %s during the outage: %d, Retry-After %q: %s (%v)", s.url, status, h.Get("Retry-After"), body, err)
		}
	}
	status, h, body, err := sendJSON(ctx, httpc, http.MethodGet, b.url+"/v1/games/"+watched.game.ID, "", nil, nil)
	if err != nil || status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(string(body), `"store_unavailable"`) {
		t.Errorf("a game read during the outage: %d, Retry-After %q: %s (%v)", status, h.Get("Retry-After"), body, err)
	}
	// A reconnection during the outage, resuming where the first stream is.
	var seenEarly, seenLate []int // the move ids each stream has delivered
	for drained := false; !drained; {
		select {
		case id, ok := <-early:
			if !ok {
				t.Fatalf("the stream ended when the database went down; b's log:\n%s", b.logs())
			}
			seenEarly = append(seenEarly, id)
		default:
			drained = true
		}
	}
	lastSeen := ""
	if n := len(seenEarly); n > 0 {
		lastSeen = strconv.Itoa(seenEarly[n-1])
	}
	late, closeLate := moveIDs(t, ctx, a.url+"/v1/games/"+watched.game.ID+"/events", lastSeen)
	defer closeLate()
	// An instance started now waits for the database.
	c := startBinaryUntil(t, bin, "opening the database", append(args, "--instance", "c", "--db-wait", "2m")...)
	if code, _, _, err := sendJSON(ctx, httpc, http.MethodGet, c.url+"/livez", "", nil, nil); err != nil || code != http.StatusOK {
		t.Errorf("/livez of the instance started during the outage: %d (%v)", code, err)
	}
	if code, h, _, err := sendJSON(ctx, httpc, http.MethodGet, c.url+"/readyz", "", nil, nil); err != nil || code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Errorf("/readyz of the instance started during the outage: %d, Retry-After %q (%v)", code, h.Get("Retry-After"), err)
	}
	// The outage lasts 3 s whatever the test does meanwhile: its length
	// is the behaviour under test.
	time.Sleep(3*time.Second - time.Since(outage))
	pg.start(t)
	t.Logf("the database is back after %v", time.Since(outage).Round(time.Millisecond))
	back := time.Now()

	for _, s := range []*server{a, b} {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if code, _, _, _ := sendJSON(ctx, httpc, http.MethodGet, s.url+"/readyz", "", nil, nil); code == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is not ready 30 s after the database came back", s.url)
			}
		}
	}
	t.Logf("both instances ready %v after the database came back", time.Since(back).Round(time.Millisecond))
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(c.logs(), `"msg":"listening"`); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the instance started during the outage does not serve 30 s after the database came back:\n%s", c.logs())
		}
	}
	time.Sleep(1500 * time.Millisecond) // the load goes on
	close(stop)
	wg.Wait()

	load.mu.Lock()
	onA.mu.Lock()
	t.Logf("%d moves answered 2xx, %d answers 503 with Retry-After", len(load.acked), load.unavailable+onA.unavailable)
	if wrong := append(load.wrong, onA.wrong...); len(wrong) > 0 {
		t.Errorf("%d answers neither 2xx nor 503 with Retry-After, the first: %s", len(wrong), wrong[0])
	}
	if load.unavailable == 0 {
		t.Error("no request was answered 503 during the outage")
	}
	acked := load.acked
	load.mu.Unlock()
	onA.mu.Unlock()

	// Every acknowledged move is stored: read back through the instance
	// that started during the outage.
	byGame := map[string][]ackedMove{}
	for _, m := range acked {
		byGame[m.game] = append(byGame[m.game], m)
	}
	for id, ms := range byGame {
		var page struct {
			Moves []struct {
				Pit      int        `json:"pit"`
				Position ltPosition `json:"position"`
			} `json:"moves"`
		}
		if st, body, err := callJSON(ctx, httpc, http.MethodGet, c.url+"/v1/games/"+id+"/moves?limit=1000", "", nil, &page); err != nil || st != http.StatusOK {
			t.Fatalf("history of %s from c: %d %s %v", id, st, body, err)
		}
		for _, m := range ms {
			if m.ply >= len(page.Moves) {
				t.Fatalf("game %s: ply %d was answered %d but is not stored (history has %d)", id, m.ply, m.status, len(page.Moves))
			}
			if got := page.Moves[m.ply]; got.Pit != m.pit || fmt.Sprint(got.Position) != fmt.Sprint(m.position) {
				t.Fatalf("game %s ply %d: stored pit %d at %v, answered pit %d at %v", id, m.ply, got.Pit, got.Position, m.pit, m.position)
			}
		}
	}

	// Both streams of the watched game: the one open throughout gets every
	// move from its first once, in order; the one resumed gets the moves after the one it
	// resumed from that came after its game event (which holds those
	// before), each once, in order.
	last := made[len(made)-1]
	for _, s := range []struct {
		name  string
		ids   <-chan int
		seen  []int
		every bool
	}{{"the stream open through the outage", early, seenEarly, true}, {"the stream opened during the outage", late, seenLate, false}} {
		seen := s.seen
		for len(seen) == 0 || seen[len(seen)-1] < last {
			select {
			case id, ok := <-s.ids:
				if !ok {
					t.Fatalf("%s ended after move %v, before %d", s.name, seen[max(len(seen)-3, 0):], last)
				}
				seen = append(seen, id)
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: move %d never came (last %v)", s.name, last, seen[max(len(seen)-3, 0):])
			}
		}
		// The stream may open after the first moves, which its game event
		// holds: from its first move on it gets every one.
		if from := slices.Index(made, seen[0]); s.every && (from < 0 || fmt.Sprint(seen) != fmt.Sprint(made[from:])) {
			t.Fatalf("%s: move ids %v, want %v", s.name, seen, made)
		}
		for i, id := range seen {
			if !slices.Contains(made, id) || i > 0 && id <= seen[i-1] {
				t.Fatalf("%s: move ids %v..., want ids of moves made, each once, in order", s.name, seen[max(i-3, 0):min(i+3, len(seen))])
			}
		}
	}
	t.Logf("the watched game's %d moves reached both streams, each once and in order", watchedPly)

	// The instance started during the outage plays.
	cc := &clusterClient{t: t, http: httpc}
	cc.move(c.url, cc.newGame(c.url, c.url), rand.New(rand.NewPCG(3, 3)))
	for _, s := range []*server{a, b, c} {
		s.stop(t)
	}
}

// quietMove picks the legal move that leaves the fewest seeds captured, and
// does not end the game: the watched game must outlast the test, since its
// end would end the streams that follow it.
func quietMove(p ltPosition) (int, error) {
	side, err := engine.ParseSide(p.ToMove)
	if err != nil {
		return 0, err
	}
	pos, err := engine.NewPosition(p.Pits, p.Captured.South, p.Captured.North, side)
	if err != nil {
		return 0, err
	}
	best, fewest := -1, 49
	var o engine.Outcome
	for m := pos.LegalMoves(engine.Rules{}); m != 0; {
		pit := m.Next()
		g, err := engine.NewGame(pos, engine.Rules{})
		if err != nil {
			return 0, err
		}
		if err := g.Play(pit, &o); err != nil || o.Result.Over() {
			continue
		}
		if n := int(o.Position.Captured[engine.South]) + int(o.Position.Captured[engine.North]); n < fewest {
			best, fewest = pit, n
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("every move of %v ends the game", p)
	}
	return best, nil
}
