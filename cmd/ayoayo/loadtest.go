package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
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
// A refusal that says when to come back (429 or 503 with Retry-After) is
// waited out and the request sent again, up to --retry-wait in all; every
// refusal is reported by status, and a run that could not set up or keep
// its games fails. With --flood it runs the flood benchmark instead (see
// runFlood).
func runLoadtest(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "http://127.0.0.1:8080", "base `URLs` of the server's instances, comma-separated; requests go to each in turn (env AYOAYO_LOADTEST_ADDR)")
	games := fs.Int("games", 200, "games in play at once")
	duration := fs.Duration("duration", 10*time.Second, "how long to send moves")
	concurrency := fs.Int("concurrency", 32, "requests in flight at once")
	seed := fs.Uint64("seed", 1, "seed of the random moves")
	retryWait := fs.Duration("retry-wait", 10*time.Second, "longest one request waits in all, as Retry-After asks, before it counts as refused")
	flood := fs.Bool("flood", false, "measure cheap requests (one loop of evaluations, one of moves between people) for --duration alone, then for --duration under a flood of heavy ones, and print the ratio of their p99s; --games and --concurrency do not apply")
	floodAnalyses := fs.Int("flood-analyses", 6, "with --flood: loops of /v1/analyze at the longest timeMs")
	floodPractice := fs.Int("flood-practice", 4, "with --flood: loops of practice puzzles of difficulty 5")
	floodAI := fs.Int("flood-ai", 4, "with --flood: loops of moves in games against AI level 8")
	floodWarmUp := fs.Duration("flood-warm-up", 3*time.Second, "with --flood: how long the flood runs before the cheap requests are measured under it")
	if err := m.parse(fs, args, envPrefix+"LOADTEST_", "addr"); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	bases, err := baseURLs(splitList(*addr)...)
	if err != nil {
		return err
	}
	if *games < 1 || *concurrency < 1 || *duration <= 0 || *retryWait < 0 {
		return fmt.Errorf("%w: --games, --concurrency and --duration must be positive, --retry-wait not negative", errUsage)
	}
	lt := newLoadTester(*concurrency, *retryWait, bases...)
	if *flood {
		if min(*floodAnalyses, *floodPractice, *floodAI) < 0 || *floodWarmUp < 0 {
			return fmt.Errorf("%w: the --flood-* counts and --flood-warm-up cannot be negative", errUsage)
		}
		if err := loopbackOnly(bases); err != nil {
			return err
		}
		fl := floodLoad{analyses: *floodAnalyses, practice: *floodPractice, aiGames: *floodAI, warmUp: *floodWarmUp}
		return runFlood(ctx, m.Stdout, lt, fl, *duration, *seed)
	}
	rep, err := lt.run(ctx, *games, *concurrency, *duration, *seed)
	rep.print(m.Stdout)
	switch {
	case err != nil:
	case rep.lost > 0:
		err = fmt.Errorf("could not keep %d games in play: %d lost, their replacements refused", *games, rep.lost)
	case rep.moves == 0:
		err = errors.New("no move was answered")
	default:
		if rep.rateLimited() {
			fmt.Fprintf(m.Stdout, "note: the server limited this client address (429), so these figures are its limits; for a load test, start it with %s\n", loadtestServeFlags)
		}
		return nil
	}
	if rep.rateLimited() {
		err = fmt.Errorf("%w; the server limits requests per client address (429): for a load test, start it with %s", err, loadtestServeFlags)
	}
	return err
}

// loadtestServeFlags are the serve flags that lift the per-client limits a
// load test from one address runs into.
const loadtestServeFlags = "--game-create-rate 0 --join-rate 0 --move-rate 0"

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
	bases     []string // the instances, taken in turn request by request
	next      atomic.Uint64
	client    *http.Client
	retryWait time.Duration // the most one request waits in all for Retry-After

	mu      sync.Mutex
	answers map[string]int // every answer that is not 2xx, by "operation status"
	failed  map[string]int // requests given up on, by "operation status" or "operation error"
	retries int            // requests sent again after Retry-After
	waited  time.Duration  // in all, before those
}

func newLoadTester(conns int, retryWait time.Duration, bases ...string) *loadTester {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = conns * 2
	tr.MaxIdleConnsPerHost = conns * 2
	return &loadTester{bases: bases, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, retryWait: retryWait,
		answers: map[string]int{}, failed: map[string]int{}}
}

// do sends a JSON request and decodes a 2xx answer into out; op names the
// request in the report. A 429 or 503 with Retry-After is waited out and the
// request sent again, while the waits add up to at most retryWait. Every
// answer that is not 2xx is counted, and so is a request given up on, unless
// ctx ended first (the end of the run is no refusal). took is the time of
// the last attempt, without the waits.
func (lt *loadTester) do(ctx context.Context, op, method, path, token string, body, out any) (status int, took time.Duration, err error) {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		base := lt.bases[(lt.next.Add(1)-1)%uint64(len(lt.bases))]
		start := time.Now()
		var header http.Header
		var data []byte
		status, header, data, err = sendJSON(ctx, lt.client, method, base+path, token, body, out)
		took = time.Since(start)
		if err == nil && status/100 == 2 {
			return status, took, nil
		}
		if ctx.Err() != nil {
			return status, took, ctx.Err()
		}
		key := fmt.Sprint(op, " ", status)
		if err != nil {
			key = op + " error"
		} else {
			err = fmt.Errorf("%d %s", status, bytes.TrimSpace(data))
		}
		wait, again := retryAfter(status, header)
		again = again && attempt < ltMaxAttempts && waited+wait <= lt.retryWait
		lt.mu.Lock()
		if status/100 != 2 && status != 0 {
			lt.answers[key]++
		}
		if again {
			lt.retries++
			lt.waited += wait
		} else {
			lt.failed[key]++
		}
		lt.mu.Unlock()
		if !again {
			return status, took, fmt.Errorf("%s %s: %w", method, path, err)
		}
		select {
		case <-time.After(wait):
			waited += wait
		case <-ctx.Done():
			return status, took, ctx.Err()
		}
	}
}

// ltMaxAttempts bounds the attempts of one request, whatever the waits.
const ltMaxAttempts = 10

// retryAfter reads how long a refusal asks the client to wait: only 429 and
// 503 answers are worth sending again, and only when they say when.
func retryAfter(status int, h http.Header) (time.Duration, bool) {
	if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
		return 0, false
	}
	v := h.Get("Retry-After")
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// callJSON sends body (if not nil) as JSON, with the seat's bearer token (if
// not empty), and decodes a 2xx answer into out (if not nil). It returns the
// status and the raw answer, so callers decide what a non-2xx means.
func callJSON(ctx context.Context, client *http.Client, method, url, token string, body, out any) (int, []byte, error) {
	status, _, data, err := sendJSON(ctx, client, method, url, token, body, out)
	return status, data, err
}

// sendJSON is callJSON that also returns the answer's headers.
func sendJSON(ctx context.Context, client *http.Client, method, url, token string, body, out any) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, resp.Header, data, err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		return resp.StatusCode, resp.Header, data, json.Unmarshal(data, out)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// newGame creates a game between two people and joins it.
func (lt *loadTester) newGame(ctx context.Context) (*ltPlay, error) {
	var a, b ltSeat
	if _, _, err := lt.do(ctx, "create", http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &a); err != nil {
		return nil, err
	}
	if _, _, err := lt.do(ctx, "join", http.MethodPost, "/v1/games/"+a.Game.ID+"/join", "", nil, &b); err != nil {
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
	lost      int             // games dropped: set-up or replacement refused
	latencies []time.Duration // of move requests
	workers   int
	games     int
	// From the loadTester: answers that were not 2xx and requests given up
	// on, by operation and status; retries after Retry-After and their wait.
	answers, failed map[string]int
	retries         int
	waited          time.Duration
}

// rateLimited says whether the server answered 429 at all.
func (r *loadReport) rateLimited() bool {
	for k, n := range r.answers {
		if strings.HasSuffix(k, " 429") && n > 0 {
			return true
		}
	}
	return false
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
	if secs > 0 {
		fmt.Fprintf(w, "moves %d (%.0f moves/s), games finished %d, created %d, lost %d\n", r.moves, float64(r.moves)/secs, r.finished, r.created, r.lost)
		fmt.Fprintf(w, "move latency p50 %v  p90 %v  p99 %v  max %v\n",
			q(0.50).Round(10*time.Microsecond), q(0.90).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), q(1).Round(10*time.Microsecond))
	}
	line := func(what string, m map[string]int) {
		if len(m) > 0 {
			fmt.Fprintf(w, "%s: %s\n", what, mapLine(m))
		}
	}
	line("refused (answers not 2xx)", r.answers)
	if r.retries > 0 {
		fmt.Fprintf(w, "sent again after Retry-After: %d, after %.1f s of waiting in all\n", r.retries, r.waited.Seconds())
	}
	line("given up", r.failed)
}

// mapLine is counts by key, in key order: "create 429: 12, join 429: 1".
func mapLine(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// run sets up the games, then lets workers play them until the duration is up.
// A game is in at most one worker's hands at a time, so every move is sent at
// the game's current ply, as a well-behaved client would. A game whose
// replacement cannot be set up is lost; its worker goes on with the others.
// The report is never nil.
func (lt *loadTester) run(ctx context.Context, games, workers int, d time.Duration, seed uint64) (rep *loadReport, err error) {
	rep = &loadReport{workers: workers, games: games}
	defer func() {
		lt.mu.Lock()
		rep.answers, rep.failed, rep.retries, rep.waited = maps.Clone(lt.answers), maps.Clone(lt.failed), lt.retries, lt.waited
		lt.mu.Unlock()
	}()
	ready := make(chan *ltPlay, games)
	var setupErrs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for range games {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			g, err := lt.newGame(ctx)
			if err != nil {
				mu.Lock()
				setupErrs = append(setupErrs, err)
				mu.Unlock()
				return
			}
			ready <- g
		})
	}
	wg.Wait()
	rep.created = len(ready)
	if len(setupErrs) > 0 {
		rep.lost = len(setupErrs)
		return rep, fmt.Errorf("setting up games: %d of %d could not be set up: %w", len(setupErrs), games, setupErrs[0])
	}

	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			var lat []time.Duration
			var moves, finished, created, lost int
			defer func() {
				mu.Lock()
				rep.latencies = append(rep.latencies, lat...)
				rep.moves += moves
				rep.finished += finished
				rep.created += created
				rep.lost += lost
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
					lt.mu.Lock()
					lt.failed["bad position"]++
					lt.mu.Unlock()
					lost++
					continue
				}
				side := 0
				if g.game.Position.ToMove == "north" {
					side = 1
				}
				var ans ltAnswer
				_, took, err := lt.do(runCtx, "move", http.MethodPost, "/v1/games/"+g.game.ID+"/moves", g.tokens[side],
					map[string]int{"pit": pit, "ply": g.game.Ply}, &ans)
				switch {
				case runCtx.Err() != nil:
					return // cut off by the end of the run: not a measurement
				case err != nil:
					// Learn where the game really is before trying it again.
					var fresh ltGame
					if _, _, err := lt.do(runCtx, "get", http.MethodGet, "/v1/games/"+g.game.ID, "", nil, &fresh); err == nil {
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
					switch {
					case runCtx.Err() != nil:
						return
					case err != nil:
						lost++
						continue
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
