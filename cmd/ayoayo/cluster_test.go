//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestTwoInstances runs two `ayoayo serve` processes on one PostgreSQL
// database, as a site behind a load balancer would, and shows what the
// instances must agree on: one move per ply however the requests are split,
// the same bytes for every retry, live events from either instance (also
// after a reconnection to the other), the same daily puzzle (and practice
// puzzle by id), and no acknowledged move lost when one instance is killed.
func TestTwoInstances(t *testing.T) {
	endToEnd(t, "builds and runs two server binaries")
	dsn := postgresDSN(t)
	bin := buildBinary(t, t.TempDir())
	// The test is one client address playing under load: no rate limits.
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", dsn, "--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0", "--stream-rate", "0",
		"--event-heartbeat", "1s", "--event-poll", "1h"} // events cross instances by NOTIFY alone
	a := startBinary(t, bin, append(args, "--instance", "a")...)
	b := startBinary(t, bin, append(args, "--instance", "b")...)
	c := &clusterClient{t: t, http: &http.Client{Timeout: 30 * time.Second}}

	t.Run("one move per ply, the same bytes for every copy", func(t *testing.T) {
		play := c.newGame(a.url, b.url)
		const copies = 20
		statuses, bodies := make([]int, copies), make([][]byte, copies)
		var wg sync.WaitGroup
		for i := range copies {
			base := []string{a.url, b.url}[i%2]
			wg.Go(func() {
				statuses[i], bodies[i], _ = callJSON(context.Background(), c.http, http.MethodPost,
					base+"/v1/games/"+play.game.ID+"/moves", play.tokens[0], map[string]int{"ply": 0, "pit": 2}, nil)
			})
		}
		wg.Wait()
		created := -1
		for i, st := range statuses {
			switch {
			case st == http.StatusCreated && created < 0:
				created = i
			case st == http.StatusCreated:
				t.Fatalf("two copies were played: %d and %d", created, i)
			case st != http.StatusOK:
				t.Fatalf("copy %d: %d %s", i, st, bodies[i])
			}
		}
		if created < 0 {
			t.Fatalf("no copy was played: %v", statuses)
		}
		for i := range bodies {
			if !bytes.Equal(bodies[i], bodies[created]) {
				t.Fatalf("copy %d answered\n%s\nthe played one\n%s", i, bodies[i], bodies[created])
			}
		}
	})

	t.Run("a follower on one instance sees every move made on the other, also after reconnecting", func(t *testing.T) {
		play := c.newGame(a.url, a.url)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		first := c.follow(ctx, b.url, play.game.ID, "")
		<-first.ready // the moves after it are events
		// Each move's event id is 8 times the version it made.
		var want []int
		rng := rand.New(rand.NewPCG(7, 7))
		const before = 6
		for range before {
			c.move(a.url, play, rng)
			want = append(want, int(play.game.Version)*8)
		}
		seen := first.until(t, want[len(want)-1])
		first.close()
		// Reconnect to the other instance, as a browser behind a balancer
		// may, and go on playing on the first one.
		second := c.follow(ctx, a.url, play.game.ID, strconv.Itoa(want[len(want)-1]))
		for more := 0; more < 6 && play.game.Status == "active"; more++ {
			c.move(b.url, play, rng)
			want = append(want, int(play.game.Version)*8)
		}
		seen = append(seen, second.until(t, want[len(want)-1])...)
		second.close()
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("event ids %v, want each of %v once, in order", seen, want)
		}
	})

	t.Run("a review asked of both is computed once, the same bytes from both", func(t *testing.T) {
		play := c.newGame(a.url, b.url)
		rng := rand.New(rand.NewPCG(33, 33))
		for range 6 {
			c.move(a.url, play, rng)
		}
		ctx := context.Background()
		if st, body, err := callJSON(ctx, c.http, http.MethodPost, a.url+"/v1/games/"+play.game.ID+"/resign", play.tokens[0], nil, nil); err != nil || st != http.StatusOK {
			t.Fatalf("resign: %d %s %v", st, body, err)
		}
		path := "/v1/games/" + play.game.ID + "/review"
		var wg sync.WaitGroup
		for _, base := range []string{a.url, b.url} {
			wg.Go(func() {
				if st, body, err := callJSON(ctx, c.http, http.MethodPost, base+path, "", nil, nil); err != nil || (st != http.StatusAccepted && st != http.StatusOK) {
					t.Errorf("request on %s: %d %s %v", base, st, body, err)
				}
			})
		}
		wg.Wait()
		var bodies [2][]byte
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			done := true
			for i, base := range []string{a.url, b.url} {
				var got struct{ State string }
				st, body, err := callJSON(ctx, c.http, http.MethodGet, base+path, "", nil, &got)
				if err != nil || st != http.StatusOK {
					t.Fatalf("read on %s: %d %s %v", base, st, body, err)
				}
				bodies[i] = body
				done = done && got.State == "done"
			}
			if done {
				break
			}
		}
		if !bytes.Equal(bodies[0], bodies[1]) || !bytes.Contains(bodies[0], []byte(`"state":"done"`)) {
			t.Fatalf("the instances answer\n%s\nand\n%s", bodies[0], bodies[1])
		}
		n := 0
		for line := range strings.Lines(a.logs() + b.logs()) {
			if strings.Contains(line, `"msg":"review done"`) && strings.Contains(line, `"game":"`+play.game.ID+`"`) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the review was computed %d times", n)
		}
	})

	t.Run("both serve the same daily puzzle", func(t *testing.T) {
		var wg sync.WaitGroup
		var got [2]struct {
			ID       string     `json:"id"`
			Position ltPosition `json:"position"`
		}
		for i, base := range []string{a.url, b.url} {
			wg.Go(func() {
				if st, body, err := callJSON(context.Background(), c.http, http.MethodGet, base+"/v1/puzzles/daily", "", nil, &got[i]); err != nil || st != http.StatusOK {
					t.Errorf("daily puzzle from %s: %d %s %v", base, st, body, err)
				}
			})
		}
		wg.Wait()
		if got[0].ID == "" || fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
			t.Fatalf("the instances serve %+v and %+v", got[0], got[1])
		}
	})

	t.Run("a practice puzzle of one is the same puzzle on the other", func(t *testing.T) {
		var got [2]struct {
			ID       string     `json:"id"`
			Position ltPosition `json:"position"`
		}
		ctx := context.Background()
		// Without a stock (the test servers make none), a version 3 puzzle
		// of difficulty 2 is made on request, which can outlast a request's
		// 10 s on a loaded machine: the answer is then 503 practice_timeout,
		// and asking again joins the generation under way, as a client does.
		if st, body, err := practiceCall(ctx, c.http, a.url+"/v1/puzzles/practice?difficulty=2", &got[0]); err != nil || st != http.StatusOK {
			t.Fatalf("practice puzzle from %s: %d %s %v", a.url, st, body, err)
		}
		// Not stored anywhere: the other instance makes it again from its id.
		if st, body, err := practiceCall(ctx, c.http, b.url+"/v1/puzzles/"+got[0].ID, &got[1]); err != nil || st != http.StatusOK {
			t.Fatalf("practice puzzle %s from %s: %d %s %v", got[0].ID, b.url, st, body, err)
		}
		if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
			t.Fatalf("the instances serve %+v and %+v", got[0], got[1])
		}
	})

	t.Run("one instance killed under load loses no acknowledged move", func(t *testing.T) {
		acked := c.playUntilKilled(a, b, 6, 1500*time.Millisecond)
		if len(acked) == 0 {
			t.Fatal("no move was answered before the kill")
		}
		t.Logf("%d moves answered 2xx before and after SIGKILL", len(acked))
		byGame := map[string][]ackedMove{}
		for _, m := range acked {
			byGame[m.game] = append(byGame[m.game], m)
		}
		for id, ms := range byGame {
			var page struct {
				Moves []struct {
					Ply      int        `json:"ply"`
					Pit      int        `json:"pit"`
					Position ltPosition `json:"position"`
				} `json:"moves"`
			}
			if st, body, err := callJSON(context.Background(), c.http, http.MethodGet, b.url+"/v1/games/"+id+"/moves?limit=1000", "", nil, &page); err != nil || st != http.StatusOK {
				t.Fatalf("history of %s from the survivor: %d %s %v", id, st, body, err)
			}
			for _, m := range ms {
				if m.ply >= len(page.Moves) {
					t.Fatalf("game %s: ply %d was answered %d but is gone (history has %d)", id, m.ply, m.status, len(page.Moves))
				}
				if got := page.Moves[m.ply]; got.Pit != m.pit || fmt.Sprint(got.Position) != fmt.Sprint(m.position) {
					t.Fatalf("game %s ply %d: stored pit %d at %v, answered pit %d at %v", id, m.ply, got.Pit, got.Position, m.pit, m.position)
				}
			}
		}
		// The survivor goes on serving.
		play := c.newGame(b.url, b.url)
		c.move(b.url, play, rand.New(rand.NewPCG(1, 1)))
	})
	b.stop(t)
}

// clusterClient drives games over several instances.
type clusterClient struct {
	t    *testing.T
	http *http.Client
}

// newGame creates a game between two people on one instance and joins it on
// another.
func (c *clusterClient) newGame(createOn, joinOn string) *ltPlay {
	c.t.Helper()
	var s, n ltSeat
	ctx := context.Background()
	if st, body, err := callJSON(ctx, c.http, http.MethodPost, createOn+"/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &s); err != nil || st != http.StatusCreated {
		c.t.Fatalf("create: %d %s %v", st, body, err)
	}
	if st, body, err := callJSON(ctx, c.http, http.MethodPost, joinOn+"/v1/games/"+s.Game.ID+"/join", "", nil, &n); err != nil || st != http.StatusCreated {
		c.t.Fatalf("join: %d %s %v", st, body, err)
	}
	return &ltPlay{game: n.Game, tokens: [2]string{s.Token, n.Token}}
}

// move plays a random legal move of play on base.
func (c *clusterClient) move(base string, play *ltPlay, rng *rand.Rand) {
	c.t.Helper()
	pit, err := pickMove(play.game.Position, rng)
	if err != nil {
		c.t.Fatal(err)
	}
	seat := 0
	if play.game.Position.ToMove == "north" {
		seat = 1
	}
	var ans ltAnswer
	if st, body, err := callJSON(context.Background(), c.http, http.MethodPost, base+"/v1/games/"+play.game.ID+"/moves",
		play.tokens[seat], map[string]int{"ply": play.game.Ply, "pit": pit}, &ans); err != nil || st != http.StatusCreated {
		c.t.Fatalf("move on %s: %d %s %v", base, st, body, err)
	}
	play.game = ans.Game
}

// eventStream is an open event stream and the ids it delivers.
type eventStream struct {
	ids   chan int
	ready chan struct{} // closed at the stream's first event, the game
	close func()
}

func (c *clusterClient) follow(ctx context.Context, base, id, lastEventID string) *eventStream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/games/"+id+"/events", nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		c.t.Fatalf("events from %s: %v %v", base, resp, err)
	}
	s := &eventStream{ids: make(chan int, 1024), ready: make(chan struct{}), close: func() { cancel(); resp.Body.Close() }}
	go func() {
		defer close(s.ids)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: game" {
				close(s.ready)
			}
			if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
				if n, err := strconv.Atoi(v); err == nil {
					s.ids <- n
				}
			}
		}
	}()
	return s
}

// until reads ids until last has come.
func (s *eventStream) until(t *testing.T, last int) []int {
	t.Helper()
	var got []int
	for {
		select {
		case id, ok := <-s.ids:
			if !ok {
				t.Fatalf("the stream ended after %v, waiting for %d", got, last)
			}
			got = append(got, id)
			if id >= last {
				return got
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("event %d never came (got %v)", last, got)
		}
	}
}

// playUntilKilled has workers play games over both instances, each request
// to either at random, kills victim with SIGKILL after a while, and goes on
// on the survivor for as long again; it returns every move answered 2xx.
func (c *clusterClient) playUntilKilled(victim, survivor *server, workers int, after time.Duration) []ackedMove {
	c.t.Helper()
	var mu sync.Mutex
	var acked []ackedMove
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			pick := func() string {
				if rng.IntN(2) == 0 {
					return victim.url
				}
				return survivor.url
			}
			ctx := context.Background()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var s, n ltSeat
				if st, _, err := callJSON(ctx, c.http, http.MethodPost, pick()+"/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &s); err != nil || st != http.StatusCreated {
					continue
				}
				if st, _, err := callJSON(ctx, c.http, http.MethodPost, pick()+"/v1/games/"+s.Game.ID+"/join", "", nil, &n); err != nil || st != http.StatusCreated {
					continue
				}
				game, tokens := n.Game, [2]string{s.Token, n.Token}
				for game.Status == "active" {
					pit, err := pickMove(game.Position, rng)
					if err != nil {
						break
					}
					side := 0
					if game.Position.ToMove == "north" {
						side = 1
					}
					var ans ltAnswer
					st, _, err := callJSON(ctx, c.http, http.MethodPost, pick()+"/v1/games/"+game.ID+"/moves", tokens[side], map[string]int{"pit": pit, "ply": game.Ply}, &ans)
					if err != nil || st/100 != 2 {
						break // the instance died under this request: start another game
					}
					mu.Lock()
					acked = append(acked, ackedMove{game: game.ID, ply: game.Ply, pit: pit, position: ans.Game.Position, status: st})
					mu.Unlock()
					game = ans.Game
				}
			}
		})
	}
	// The load runs on both instances for a while before the kill: a span
	// of the real binaries' work is the behaviour under test, not a wait.
	time.Sleep(after)
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	<-victim.done
	time.Sleep(after) // the survivor carries the load alone
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return acked
}

// practiceCall GETs a practice puzzle at url, asking again at once, up to
// eight times, while the answer is 503: a request that found no puzzle in
// its time leaves the generation running, and the next one waits for it.
func practiceCall(ctx context.Context, client *http.Client, url string, out any) (int, []byte, error) {
	for range 7 {
		st, body, err := callJSON(ctx, client, http.MethodGet, url, "", nil, out)
		if err != nil || st != http.StatusServiceUnavailable {
			return st, body, err
		}
	}
	return callJSON(ctx, client, http.MethodGet, url, "", nil, out)
}
