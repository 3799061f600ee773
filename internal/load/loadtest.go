package load

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
)

// Report is what a load test measured.
type Report struct {
	Elapsed   time.Duration
	Moves     int
	Finished  int
	Created   int
	Lost      int             // games dropped: set-up or replacement refused
	latencies []time.Duration // of move requests
	workers   int
	games     int
	// From the Tester: answers that were not 2xx and requests given up
	// on, by operation and status; retries after Retry-After and their wait.
	answers, failed map[string]int
	retries         int
	waited          time.Duration
}

// RateLimited says whether the server answered 429 at all.
func (r *Report) RateLimited() bool {
	return rateLimited(r.answers)
}

func rateLimited(answers map[string]int) bool {
	for k, n := range answers {
		if strings.HasSuffix(k, " 429") && n > 0 {
			return true
		}
	}
	return false
}

// Print writes the report.
func (r *Report) Print(w io.Writer) {
	slices.Sort(r.latencies)
	q := func(f float64) time.Duration {
		if len(r.latencies) == 0 {
			return 0
		}
		return r.latencies[min(int(f*float64(len(r.latencies))), len(r.latencies)-1)]
	}
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(w, "games in play %d, concurrency %d, %.1f s\n", r.games, r.workers, secs)
	if secs > 0 {
		fmt.Fprintf(w, "moves %d (%.0f moves/s), games finished %d, created %d, lost %d\n", r.Moves, float64(r.Moves)/secs, r.Finished, r.Created, r.Lost)
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

// Play plays many two-person games at once and measures the move rate and
// the latency of move requests. Every game is created and joined over the
// API; each move is a random legal one, sent with the token of the seat to
// move. It sets up the games, then lets workers play them until d is up. A
// game is in at most one worker's hands at a time, so every move is sent at
// the game's current ply, as a well-behaved client would. A finished game
// is replaced by a new one, so the number of games in play stays at games;
// a game whose replacement cannot be set up is lost, and its worker goes on
// with the others. The report is never nil.
func (lt *Tester) Play(ctx context.Context, games, workers int, d time.Duration, seed uint64) (rep *Report, err error) {
	rep = &Report{workers: workers, games: games}
	defer func() {
		lt.mu.Lock()
		rep.answers, rep.failed, rep.retries, rep.waited = maps.Clone(lt.answers), maps.Clone(lt.failed), lt.retries, lt.waited
		lt.mu.Unlock()
	}()
	ready := make(chan *play, games)
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
	rep.Created = len(ready)
	if len(setupErrs) > 0 {
		rep.Lost = len(setupErrs)
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
				rep.Moves += moves
				rep.Finished += finished
				rep.Created += created
				rep.Lost += lost
				mu.Unlock()
			}()
			for {
				var g *play
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
				after, took, err := lt.move(runCtx, "move", &g.game, g.tokens[seatToMove(g.game.Position)], pit)
				switch {
				case runCtx.Err() != nil:
					return // cut off by the end of the run: not a measurement
				case err != nil:
					// Learn where the game really is before trying it again.
					if fresh, err := lt.getGame(runCtx, g.game.ID); err == nil {
						g.game = *fresh
					}
				default:
					moves++
					lat = append(lat, took)
					g.game = *after
				}
				if g.game.Status == ayoayo.GameStatusFinished {
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
	rep.Elapsed = time.Since(start)
	return rep, nil
}
