package load

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
	"github.com/ayoayo/ayoayo/engine"
)

// Flood is the heavy work of the flood benchmark: loops of analyses at the
// longest time the API allows, of practice puzzles of the hardest
// difficulty, of games against the strongest AI, and of reviews of the
// longest record POST /v1/review takes (80 plies). Each loop sends its
// next request as soon as the last is answered, waiting out a Retry-After
// first, as a well-behaved client would (and pausing a little after any
// other failure).
type Flood struct {
	Analyses, Practice, AIGames, Reviews int
	WarmUp                               time.Duration // flood alone before the cheap requests are measured again
}

// FloodReviewPlies is the length of the records the review loops send: the
// most POST /v1/review takes.
const FloodReviewPlies = 80

// floodBackOff is the pause of a flood loop after a failure that says
// nothing of when to come back, so a loop does not spin on errors.
const floodBackOff = 100 * time.Millisecond

// floodMaxAnalyzeMs is the longest search /v1/analyze allows (api.MaxAnalyzeTimeMs).
const floodMaxAnalyzeMs = 10000

// floodReport is one phase of a flood run: the cheap requests' latencies
// and, under the flood, the heavy requests' answers.
type floodReport struct {
	evaluate []time.Duration
	moves    []time.Duration
	heavy    map[string]int // answers by "operation status"
}

// Run measures the cheap requests (one loop of POST /v1/evaluate, one loop
// of moves between two people) for d with nothing else running, then again
// for d under the flood, and prints both and the ratio of their p99s. The
// whole run takes about 2d plus the warm-up and the set-up.
func (fl Flood) Run(ctx context.Context, w io.Writer, lt *Tester, d time.Duration, seed uint64) error {
	alone, err := floodCheap(ctx, lt, d, seed)
	if err != nil {
		return fmt.Errorf("the cheap requests alone: %w", err)
	}
	heavy := &floodCounts{m: map[string]int{}}
	floodCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	fl.start(floodCtx, &wg, lt, heavy, seed)
	select {
	case <-time.After(fl.WarmUp):
	case <-ctx.Done():
	}
	flooded, err := floodCheap(ctx, lt, d, seed+1)
	stop()
	wg.Wait()
	if err != nil {
		return fmt.Errorf("the cheap requests under the flood: %w", err)
	}
	flooded.heavy = heavy.snapshot()
	fmt.Fprintf(w, "flood: %d analyses (timeMs %d), %d practice requests (difficulty 5), %d games against AI level 8, %d reviews of %d-ply records, each in a loop; warm-up %v\n",
		fl.Analyses, floodMaxAnalyzeMs, fl.Practice, fl.AIGames, fl.Reviews, FloodReviewPlies, fl.WarmUp)
	printFlood(w, d, alone, flooded)
	return nil
}

// floodCheap runs the cheap loops for d: one worker sending evaluations,
// and one playing moves in games between two people.
func floodCheap(ctx context.Context, lt *Tester, d time.Duration, seed uint64) (*floodReport, error) {
	rep := &floodReport{}
	var wg sync.WaitGroup
	var moveErr error
	wg.Go(func() {
		var r *Report
		r, moveErr = lt.Play(ctx, 4, 1, d, seed)
		rep.moves = r.latencies
	})
	wg.Go(func() {
		rctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		rng := rand.New(rand.NewPCG(seed, 99))
		for rctx.Err() == nil {
			p := floodPosition(rng, 0)
			body := ayoayo.EvaluateRequest{Position: apiPosition(p), Pit: pickPit(p, rng)}
			_, took, err := call(rctx, lt, "evaluate", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
				return c.EvaluateMove(ctx, nil, body)
			}, ayoayo.ParseEvaluateMoveResponse)
			if err == nil {
				rep.evaluate = append(rep.evaluate, took)
			}
		}
	})
	wg.Wait()
	if moveErr == nil && (len(rep.moves) == 0 || len(rep.evaluate) == 0) {
		moveErr = fmt.Errorf("no cheap request was answered (%d moves, %d evaluations)", len(rep.moves), len(rep.evaluate))
	}
	return rep, moveErr
}

// floodCounts counts the heavy requests' answers.
type floodCounts struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *floodCounts) add(op string, status int, err error) {
	key := fmt.Sprint(op, " ", status)
	if err != nil && status == 0 {
		key = op + " error"
	}
	c.mu.Lock()
	c.m[key]++
	c.mu.Unlock()
}

// cut counts a request of op still unanswered when the flood ended: a
// review of a long record may take the whole run.
func (c *floodCounts) cut(op string) {
	c.mu.Lock()
	c.m[op+" unanswered at the end"]++
	c.mu.Unlock()
}

func (c *floodCounts) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}

// start launches the flood's loops; they end with ctx.
func (fl Flood) start(ctx context.Context, wg *sync.WaitGroup, lt *Tester, heavy *floodCounts, seed uint64) {
	// send makes one heavy request, reads a 2xx answer with read, counts
	// the answer (or, when the end of the flood cut it off, the request
	// unanswered), and waits out a Retry-After.
	send := func(op string, req request, read func(*http.Response) error) bool {
		status, header, _, _, err := attempt1(ctx, lt.pick(), req, read)
		if ctx.Err() != nil {
			if status == 0 {
				heavy.cut(op)
			}
			return false
		}
		heavy.add(op, status, err)
		ok := err == nil && status/100 == 2
		wait, told := retryAfter(status, header)
		if !ok && !told {
			wait = floodBackOff
		}
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		return ok
	}
	discard := func(*http.Response) error { return nil }
	for i := range fl.Analyses {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(1000+i)))
			timeMs := floodMaxAnalyzeMs
			for ctx.Err() == nil {
				body := ayoayo.AnalyzeRequest{Position: apiPosition(floodPosition(rng, 6)), TimeMs: &timeMs}
				send("analyze", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
					return c.AnalyzePosition(ctx, nil, body)
				}, discard)
			}
		})
	}
	for range fl.Practice {
		wg.Go(func() {
			difficulty := 5
			var after *string
			for ctx.Err() == nil {
				params := ayoayo.GetPracticePuzzleParams{Difficulty: &difficulty, After: after}
				send("practice", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
					return c.GetPracticePuzzle(ctx, &params)
				}, func(resp *http.Response) error {
					r, err := ayoayo.ParseGetPracticePuzzleResponse(resp)
					if err == nil && r.JSON200 != nil {
						after = &r.JSON200.ID
					}
					return err
				})
			}
		})
	}
	for i := range fl.Reviews {
		wg.Go(func() {
			// Each loop its own record, so that no cache of the server's
			// answers one review from another.
			body := ayoayo.ReviewRequest{Moves: floodRecord(rand.New(rand.NewPCG(seed, uint64(3000+i))), FloodReviewPlies)}
			for ctx.Err() == nil {
				send("review", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
					return c.ReviewRecord(ctx, nil, body)
				}, discard)
			}
		})
	}
	for i := range fl.AIGames {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(2000+i)))
			level := 8
			var ai *seat
			for ctx.Err() == nil {
				if ai == nil || ai.Game.Status == ayoayo.GameStatusFinished {
					var created seat
					create := ayoayo.CreateGameRequest{Opponent: ayoayo.Opponent{Type: ayoayo.OpponentTypeAi, Level: &level}}
					if !send("ai create", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
						return c.CreateGame(ctx, nil, create)
					}, jsonInto(&created)) {
						ai = nil
						continue
					}
					ai = &created
				}
				pit, err := pickMove(ai.Game.Position, rng)
				if err != nil {
					ai = nil // a position the client cannot read: start afresh
					continue
				}
				body := ayoayo.PlayMoveRequest{Pit: pit, Ply: ai.Game.Ply}
				var ans struct {
					Game game `json:"game"`
				}
				if send("ai move", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
					return c.PlayGameMove(ctx, ai.Game.ID, nil, body, bearer(ai.Token))
				}, jsonInto(&ans)) {
					ai.Game = ans.Game
					continue
				}
				// Learn where the game is before the next try.
				var fresh game
				if _, _, _, _, err := attempt1(ctx, lt.clients[0], func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
					return c.GetGame(ctx, ai.Game.ID, nil)
				}, jsonInto(&fresh)); err == nil && fresh.ID != "" {
					ai.Game = fresh
				}
			}
		})
	}
}

// floodPosition is a position a few random moves from the start (up to
// plies), so that requests are not all the same.
func floodPosition(rng *rand.Rand, plies int) engine.Position {
	p := engine.Start()
	var out engine.Outcome
	for range rng.IntN(plies + 1) {
		if p.LegalMoves(engine.Rules{}) == 0 {
			break
		}
		engine.Play(p, pickPit(p, rng), engine.Rules{}, &out)
		if !out.Legal() || out.Result.Over() || out.Position.LegalMoves(engine.Rules{}) == 0 {
			break
		}
		p = out.Position
	}
	return p
}

// floodRecord is a record of plies legal moves from the start, random
// among those that capture least, so that the game lasts: random play
// alone ends most games in about 50 plies. When a game still ends sooner
// (no try of a hundred lasts), it is the longest tried.
func floodRecord(rng *rand.Rand, plies int) []int {
	var best []int
	var out engine.Outcome
	for range 100 {
		p, moves := engine.Start(), make([]int, 0, plies)
		for len(moves) < plies {
			var pits []int
			least := -1
			for m := p.LegalMoves(engine.Rules{}); m != 0; {
				pit := m.Next()
				engine.Play(p, pit, engine.Rules{}, &out)
				switch seeds := int(out.Capture.Seeds); {
				case least < 0 || seeds < least:
					pits, least = []int{pit}, seeds
				case seeds == least:
					pits = append(pits, pit)
				}
			}
			if len(pits) == 0 {
				break
			}
			pit := pits[rng.IntN(len(pits))]
			engine.Play(p, pit, engine.Rules{}, &out)
			moves = append(moves, pit)
			if out.Result.Over() {
				break
			}
			p = out.Position
		}
		if len(moves) > len(best) {
			best = moves
		}
		if len(best) == plies {
			break
		}
	}
	return best
}

// pickPit returns a random legal pit of p (any pit if none is legal).
func pickPit(p engine.Position, rng *rand.Rand) int {
	var pits []int
	for m := p.LegalMoves(engine.Rules{}); m != 0; {
		pits = append(pits, m.Next())
	}
	if len(pits) == 0 {
		return 0
	}
	return pits[rng.IntN(len(pits))]
}

// apiPosition is p as the API's Position.
func apiPosition(p engine.Position) ayoayo.Position {
	pits := make([]int, len(p.Pits))
	for i, n := range p.Pits {
		pits[i] = int(n)
	}
	return ayoayo.Position{
		Pits:     pits,
		Captured: ayoayo.Captured{South: int(p.Captured[engine.South]), North: int(p.Captured[engine.North])},
		ToMove:   ayoayo.Side(p.ToMove.String()),
	}
}

// printFlood prints the two phases side by side.
func printFlood(w io.Writer, d time.Duration, alone, flooded *floodReport) {
	ms := func(t time.Duration) string { return fmt.Sprintf("%.2f", float64(t)/float64(time.Millisecond)) }
	row := func(name string, a, f []time.Duration) {
		ap50, ap99 := quantiles(a)
		fp50, fp99 := quantiles(f)
		ratio := 0.0
		if ap99 > 0 {
			ratio = float64(fp99) / float64(ap99)
		}
		fmt.Fprintf(w, "%-24s alone p50/p99 %s / %s ms (%d)   flood p50/p99 %s / %s ms (%d)   p99 ratio %.1fx\n",
			name, ms(ap50), ms(ap99), len(a), ms(fp50), ms(fp99), len(f), ratio)
	}
	fmt.Fprintf(w, "cheap requests, one loop of each, %v alone then %v under the flood:\n", d, d)
	row("POST /v1/evaluate", alone.evaluate, flooded.evaluate)
	row("move against a person", alone.moves, flooded.moves)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(flooded.heavy)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, flooded.heavy[k]))
	}
	fmt.Fprintf(w, "heavy answers under the flood: %s\n", strings.Join(parts, ", "))
}

// quantiles returns the p50 and p99 of ts (sorting it).
func quantiles(ts []time.Duration) (p50, p99 time.Duration) {
	if len(ts) == 0 {
		return 0, 0
	}
	slices.Sort(ts)
	at := func(f float64) time.Duration { return ts[min(int(f*float64(len(ts))), len(ts)-1)] }
	return at(0.50), at(0.99)
}
