package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// runLoadtest plays many two-person games at once against a running server
// and reports the move rate and the latency of move requests. Every game is
// created and joined over the API like any client would; each move is a random
// legal one, sent with the token of the seat to move. A finished game is
// replaced by a new one, so the number of games in play stays at --games.
func runLoadtest(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", m.env("AYOAYO_LOADTEST_ADDR", "http://127.0.0.1:8080"), "base `URLs` of the server's instances, comma-separated; requests go to each in turn (env AYOAYO_LOADTEST_ADDR)")
	games := fs.Int("games", 200, "games in play at once")
	duration := fs.Duration("duration", 10*time.Second, "how long to send moves")
	concurrency := fs.Int("concurrency", 32, "requests in flight at once")
	seed := fs.Uint64("seed", 1, "seed of the random moves")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	bases, err := baseURLs(splitList(*addr)...)
	if err != nil {
		return err
	}
	if *games < 1 || *concurrency < 1 || *duration <= 0 {
		return fmt.Errorf("%w: --games, --concurrency and --duration must be positive", errUsage)
	}
	lt := newLoadTester(*concurrency, bases...)
	rep, err := lt.run(ctx, *games, *concurrency, *duration, *seed)
	if err != nil {
		return err
	}
	rep.print(m.Stdout)
	if rep.moves == 0 {
		return errors.New("no move was answered")
	}
	return nil
}

// ltPosition, ltGame, ltSeat and ltAnswer are the few fields of the API's
// answers that the load test reads.
type ltPosition struct {
	Pits     []int `json:"pits"`
	Captured struct {
		South int `json:"south"`
		North int `json:"north"`
	} `json:"captured"`
	ToMove string `json:"toMove"`
}

type ltGame struct {
	ID       string     `json:"id"`
	Status   string     `json:"status"`
	Ply      int        `json:"ply"`
	Position ltPosition `json:"position"`
}

type ltSeat struct {
	Game  ltGame `json:"game"`
	Token string `json:"token"`
}

type ltAnswer struct {
	Game ltGame `json:"game"`
}

// ltPlay is one game in play: its state and both seats' tokens.
type ltPlay struct {
	game   ltGame
	tokens [2]string // by side
}

type loadTester struct {
	bases  []string // the instances, taken in turn request by request
	next   atomic.Uint64
	client *http.Client
}

func newLoadTester(conns int, bases ...string) *loadTester {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = conns * 2
	tr.MaxIdleConnsPerHost = conns * 2
	return &loadTester{bases: bases, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// do sends a JSON request and decodes a 2xx answer into out.
func (lt *loadTester) do(ctx context.Context, method, path, token string, body, out any) (int, error) {
	base := lt.bases[(lt.next.Add(1)-1)%uint64(len(lt.bases))]
	status, data, err := callJSON(ctx, lt.client, method, base+path, token, body, out)
	if err == nil && status/100 != 2 {
		err = fmt.Errorf("%d %s", status, bytes.TrimSpace(data))
	}
	if err != nil {
		return status, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return status, nil
}

// callJSON sends body (if not nil) as JSON, with the seat's bearer token (if
// not empty), and decodes a 2xx answer into out (if not nil). It returns the
// status and the raw answer, so callers decide what a non-2xx means.
func callJSON(ctx context.Context, client *http.Client, method, url, token string, body, out any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, data, err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		return resp.StatusCode, data, json.Unmarshal(data, out)
	}
	return resp.StatusCode, data, nil
}

// newGame creates a game between two people and joins it.
func (lt *loadTester) newGame(ctx context.Context) (*ltPlay, error) {
	var a, b ltSeat
	if _, err := lt.do(ctx, http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &a); err != nil {
		return nil, err
	}
	if _, err := lt.do(ctx, http.MethodPost, "/v1/games/"+a.Game.ID+"/join", "", nil, &b); err != nil {
		return nil, err
	}
	// The creator sits South (the default); the joiner gets North.
	return &ltPlay{game: b.Game, tokens: [2]string{a.Token, b.Token}}, nil
}

// pickMove returns a random legal pit of the game's position.
func pickMove(p ltPosition, rng *rand.Rand) (int, error) {
	side, err := engine.ParseSide(p.ToMove)
	if err != nil {
		return 0, err
	}
	pos, err := engine.NewPosition(p.Pits, p.Captured.South, p.Captured.North, side)
	if err != nil {
		return 0, err
	}
	var pits []int
	for m := pos.LegalMoves(engine.Rules{}); m != 0; {
		pits = append(pits, m.Next())
	}
	if len(pits) == 0 {
		return 0, fmt.Errorf("no legal move in %s", pos)
	}
	return pits[rng.IntN(len(pits))], nil
}

// loadReport is what a run measured.
type loadReport struct {
	elapsed   time.Duration
	moves     int
	finished  int
	created   int
	latencies []time.Duration // of move requests
	failures  map[string]int  // by status, for requests that failed
	workers   int
	games     int
}

func (r *loadReport) print(w io.Writer) {
	slices.Sort(r.latencies)
	q := func(f float64) time.Duration {
		if len(r.latencies) == 0 {
			return 0
		}
		return r.latencies[min(int(f*float64(len(r.latencies))), len(r.latencies)-1)]
	}
	secs := r.elapsed.Seconds()
	fmt.Fprintf(w, "games in play %d, concurrency %d, %.1f s\n", r.games, r.workers, secs)
	fmt.Fprintf(w, "moves %d (%.0f moves/s), games finished %d, created %d\n", r.moves, float64(r.moves)/secs, r.finished, r.created)
	fmt.Fprintf(w, "move latency p50 %v  p90 %v  p99 %v  max %v\n",
		q(0.50).Round(10*time.Microsecond), q(0.90).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), q(1).Round(10*time.Microsecond))
	if len(r.failures) > 0 {
		keys := make([]string, 0, len(r.failures))
		for k := range r.failures {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "failed %s: %d\n", k, r.failures[k])
		}
	}
}

// run sets up the games, then lets workers play them until the duration is up.
// A game is in at most one worker's hands at a time, so every move is sent at
// the game's current ply, as a well-behaved client would.
func (lt *loadTester) run(ctx context.Context, games, workers int, d time.Duration, seed uint64) (*loadReport, error) {
	ready := make(chan *ltPlay, games)
	setup := make(chan error, games)
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for range games {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			g, err := lt.newGame(ctx)
			if err != nil {
				setup <- err
				return
			}
			ready <- g
		})
	}
	wg.Wait()
	close(setup)
	if err := <-setup; err != nil {
		return nil, fmt.Errorf("setting up games: %w", err)
	}

	rep := &loadReport{failures: map[string]int{}, workers: workers, games: games, created: games}
	var mu sync.Mutex
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			var lat []time.Duration
			var moves, finished, created int
			fails := map[string]int{}
			defer func() {
				mu.Lock()
				rep.latencies = append(rep.latencies, lat...)
				rep.moves += moves
				rep.finished += finished
				rep.created += created
				for k, v := range fails {
					rep.failures[k] += v
				}
				mu.Unlock()
			}()
			for {
				var g *ltPlay
				select {
				case g = <-ready:
				case <-runCtx.Done():
					return
				}
				pit, err := pickMove(g.game.Position, rng)
				if err != nil {
					fails["bad position"]++
					return
				}
				side := 0
				if g.game.Position.ToMove == "north" {
					side = 1
				}
				var ans ltAnswer
				t0 := time.Now()
				status, err := lt.do(runCtx, http.MethodPost, "/v1/games/"+g.game.ID+"/moves", g.tokens[side],
					map[string]int{"pit": pit, "ply": g.game.Ply}, &ans)
				took := time.Since(t0)
				switch {
				case runCtx.Err() != nil:
					return // cut off by the end of the run: not a measurement
				case err != nil:
					fails[fmt.Sprint(status)]++
					// Learn where the game really is before trying it again.
					var fresh ltGame
					if _, err := lt.do(runCtx, http.MethodGet, "/v1/games/"+g.game.ID, "", nil, &fresh); err == nil {
						g.game = fresh
					}
				default:
					moves++
					lat = append(lat, took)
					g.game = ans.Game
				}
				if g.game.Status == "finished" {
					finished++
					ng, err := lt.newGame(runCtx)
					if err != nil {
						if runCtx.Err() == nil {
							fails["create"]++
						}
						return
					}
					created++
					g = ng
				}
				ready <- g
			}
		})
	}
	wg.Wait()
	rep.elapsed = time.Since(start)
	return rep, nil
}
