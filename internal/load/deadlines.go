package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
)

// DeadlinesServeFlags are the serve flags that lift the per-client limits
// the benchmark, which sets up thousands of games and streams from one
// address, runs into.
const DeadlinesServeFlags = ServeFlags + " --max-streams-per-client -1 --stream-rate 0"

// idleClock is the clock of the games --idle sets up: the longest there is,
// so that none runs out while the CPU is measured.
const idleClock = 3 * time.Hour

// endEvent is what the benchmark reads of a game in its end event.
type endEvent struct {
	Status string `json:"status"`
	Result *struct {
		Reason string `json:"reason"`
	} `json:"result"`
}

// dlFollow is what one game's follower saw. The stream's goroutine writes
// it until done is closed; the run reads it after.
type dlFollow struct {
	id       string
	deadline time.Time // from the answer to North's first move
	ends     int       // end events on the stream
	arrived  time.Time // of the first end event
	result   string    // the first end event's status and reason: "finished timeout"
	err      error     // the stream failed before its end event
	done     chan struct{}
}

// Deadlines measures how soon the server ends games whose time runs out,
// with nobody calling. It sets up Games two-person games with live clocks,
// each with one follower's event stream (game i's on the i-th instance, so
// several instances share them), plays both first moves so that South's
// clock runs, and takes each game's deadline from the second move's answer.
// The clocks are chosen so that the deadlines fall evenly over Spread,
// starting Lead after the run starts.
type Deadlines struct {
	Bases        []string // the instances' base URLs
	Games        int
	Lead, Spread time.Duration
	Concurrency  int           // games being set up at once
	RetryWait    time.Duration // the most one request waits for Retry-After
}

type deadlineTest struct {
	lt      *Tester
	streams []*ayoayo.Client // game i's follower uses the i-th
	bases   []string
	n       int
	lead    time.Duration
	spread  time.Duration
}

func (d Deadlines) test() (*deadlineTest, error) {
	lt, err := NewTester(d.Concurrency, d.RetryWait, d.Bases...)
	if err != nil {
		return nil, err
	}
	streams, err := streamClients(d.Bases)
	if err != nil {
		return nil, err
	}
	return &deadlineTest{lt: lt, streams: streams, bases: d.Bases, n: d.Games, lead: d.Lead, spread: d.Spread}, nil
}

// Run sets up the games with their followers, then waits, within ctx, for
// every stream's end event, prints how many each game had and the delay
// from the deadline to the event's arrival, and fails unless each game had
// exactly one, by timeout, after its deadline. The deadlines and the
// arrivals are read on this machine's clock, which is the server's when
// both run on it.
func (d Deadlines) Run(ctx context.Context, w io.Writer) error {
	dt, err := d.test()
	if err != nil {
		return err
	}
	rep, err := dt.run(ctx, d.Concurrency)
	rep.print(w)
	if err == nil {
		err = rep.check()
	}
	if err != nil && rep.refused() {
		err = fmt.Errorf("%w; the server limits requests and streams per client address (429): for this benchmark, start it with %s", err, DeadlinesServeFlags)
	}
	return err
}

// Idle sets up the games with clocks of hours instead, follows none, and
// prints the CPU each instance uses over sample while nothing happens: what
// waiting for the deadlines of that many games costs.
func (d Deadlines) Idle(ctx context.Context, w io.Writer, sample time.Duration) error {
	dt, err := d.test()
	if err != nil {
		return err
	}
	return dt.idle(ctx, w, d.Concurrency, sample)
}

// setUp creates game i with a clock that runs out at target, joins it, opens
// its follower's stream on the i-th instance (when follow) and waits until
// the stream is live, then plays both first moves.
func (dt *deadlineTest) setUp(ctx, streamCtx context.Context, follow bool, i int, target time.Time, rng *rand.Rand) (*dlFollow, error) {
	// The clock starts with North's first move, a few requests after this
	// one; whole seconds, as the API takes them, so deadlines land within
	// half a second of their targets.
	secs := min(max(int(time.Until(target).Round(time.Second)/time.Second), 1), int(idleClock/time.Second))
	increment := 0
	create := ayoayo.CreateGameRequest{Opponent: ayoayo.Opponent{Type: ayoayo.OpponentTypeHuman},
		TimeControl: nullable.NewNullableWithValue(ayoayo.TimeControl{Kind: ayoayo.TimeControlKindClock, InitialSeconds: &secs, IncrementSeconds: &increment})}
	a, err := dt.lt.createGame(ctx, "create", create)
	if err != nil {
		return nil, err
	}
	b, err := dt.lt.joinGame(ctx, a.Game.ID)
	if err != nil {
		return nil, err
	}
	f := &dlFollow{id: a.Game.ID, done: make(chan struct{})}
	if follow {
		live := make(chan struct{})
		go func() {
			defer close(f.done)
			err := followStream(streamCtx, dt.streams[i%len(dt.streams)], f.id, func() { close(live) }, func(e streamEvent) bool {
				if !bytes.Equal(e.kind, []byte("end")) {
					return true
				}
				f.ends++
				if f.ends == 1 {
					f.arrived = time.Now()
					var g endEvent
					if err := json.Unmarshal(e.data, &g); err == nil && g.Result != nil {
						f.result = g.Status + " " + g.Result.Reason
					} else {
						f.result = g.Status
					}
				}
				return true // on to the stream's end, to count any second end event
			})
			if f.ends == 0 && streamCtx.Err() == nil {
				f.err = err
			}
		}()
		select {
		case <-live:
		case <-f.done:
			err := f.err
			if err == nil {
				err = streamCtx.Err() // the run's bound came first
			}
			if refused, ok := errors.AsType[*streamRefused](err); ok {
				// Counted with the other refusals, to say when they are the
				// server's per-client limits.
				dt.lt.mu.Lock()
				dt.lt.answers[fmt.Sprint("stream ", refused.status)]++
				dt.lt.mu.Unlock()
			}
			return nil, fmt.Errorf("the stream of game %s: %w", f.id, err)
		}
	} else {
		close(f.done)
	}
	g := &b.Game
	tokens := [2]string{a.Token, b.Token} // the creator sits South
	for seat := range 2 {                 // South's first move, then North's
		pit, err := pickMove(g.Position, rng)
		if err != nil {
			return f, err
		}
		if g, _, err = dt.lt.move(ctx, "move", g, tokens[seat], pit); err != nil {
			return f, err
		}
	}
	if g.Status != ayoayo.GameStatusActive || g.Clock == nil || g.Clock.Deadline == nil {
		return f, fmt.Errorf("game %s: no clock runs after both first moves (status %s)", g.ID, g.Status)
	}
	f.deadline = *g.Clock.Deadline
	return f, nil
}

// setUpAll sets up the games, concurrency at a time, game i's clock running
// out at target(i), and returns them in order; a game that could not be set
// up ends the set-up.
func (dt *deadlineTest) setUpAll(ctx, streamCtx context.Context, follow bool, concurrency int, target func(i int) time.Time) ([]*dlFollow, error) {
	fs := make([]*dlFollow, dt.n)
	next := atomic.Int64{}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	setCtx, stop := context.WithCancel(ctx)
	defer stop()
	for w := range concurrency {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(1, uint64(w)))
			for i := int(next.Add(1) - 1); i < dt.n && setCtx.Err() == nil; i = int(next.Add(1) - 1) {
				f, err := dt.setUp(setCtx, streamCtx, follow, i, target(i), rng)
				fs[i] = f
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					stop()
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return fs, fmt.Errorf("setting up %d games: %w", dt.n, errs[0])
	}
	return fs, ctx.Err()
}

// deadlineReport is what a run measured.
type deadlineReport struct {
	games, instances int
	setUp            time.Duration // from the start to the last game set up
	first, last      time.Duration // the earliest and the latest deadline, from the start
	duringSetUp      int           // deadlines that fell while games were still being set up
	ends             map[int]int   // games by the number of end events their stream had
	results          map[string]int
	latencies        []time.Duration // from each deadline to its end event's arrival
	never            []string        // games with no end event
	early            int             // end events that came before their deadline
	streamErrs       map[string]int  // why streams failed before their end event
	answers, failed  map[string]int  // from the load tester
}

// run sets up the games with their followers, waits for every end event
// (within ctx) and measures. The report is never nil.
func (dt *deadlineTest) run(ctx context.Context, concurrency int) (rep *deadlineReport, err error) {
	rep = &deadlineReport{games: dt.n, instances: len(dt.bases), ends: map[int]int{}, results: map[string]int{}, streamErrs: map[string]int{}}
	defer func() {
		dt.lt.mu.Lock()
		rep.answers, rep.failed = dt.lt.answers, dt.lt.failed
		dt.lt.mu.Unlock()
	}()
	streamCtx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()

	start := time.Now()
	target := func(i int) time.Time {
		return start.Add(dt.lead + time.Duration(int64(dt.spread)*int64(i)/int64(max(dt.n-1, 1))))
	}
	fs, err := dt.setUpAll(ctx, streamCtx, true, concurrency, target)
	rep.setUp = time.Since(start)
	if err != nil {
		stopStreams()
		for _, f := range fs {
			if f != nil {
				<-f.done
			}
		}
		return rep, err
	}
	for i, f := range fs {
		at := f.deadline.Sub(start)
		if i == 0 || at < rep.first {
			rep.first = at
		}
		rep.last = max(rep.last, at)
		if at < rep.setUp {
			rep.duringSetUp++
		}
	}

	// Every stream ends after its end event; ctx bounds the wait.
	for _, f := range fs {
		select {
		case <-f.done:
		case <-ctx.Done():
		}
	}
	stopStreams()
	for _, f := range fs {
		<-f.done
		rep.ends[f.ends]++
		switch {
		case f.ends == 0:
			rep.never = append(rep.never, f.id)
			if f.err != nil {
				rep.streamErrs[f.err.Error()]++
			}
		default:
			rep.results[f.result]++
			lat := f.arrived.Sub(f.deadline)
			if lat < 0 {
				rep.early++
			}
			rep.latencies = append(rep.latencies, lat)
		}
	}
	if len(rep.never) > 0 && ctx.Err() != nil {
		return rep, fmt.Errorf("%d of %d games had no end event within the run's bound", len(rep.never), dt.n)
	}
	return rep, nil
}

// check says what the run found wrong: a game with no end event or more
// than one, a game that did not end by timeout, or an end event before its
// deadline.
func (r *deadlineReport) check() error {
	var errs []error
	if len(r.never) > 0 {
		errs = append(errs, fmt.Errorf("%d of %d games had no end event", len(r.never), r.games))
	}
	if more := r.games - r.ends[0] - r.ends[1]; more > 0 {
		errs = append(errs, fmt.Errorf("%d games had more than one end event", more))
	}
	if n := len(r.latencies) - r.results["finished timeout"]; n > 0 {
		errs = append(errs, fmt.Errorf("%d games ended otherwise than by timeout", n))
	}
	if r.early > 0 {
		errs = append(errs, fmt.Errorf("%d end events came before their deadline", r.early))
	}
	return errors.Join(errs...)
}

// refused says whether the server answered 429 at all.
func (r *deadlineReport) refused() bool {
	return rateLimited(r.answers)
}

func (r *deadlineReport) print(w io.Writer) {
	slices.Sort(r.latencies)
	q := func(f float64) time.Duration {
		if len(r.latencies) == 0 {
			return 0
		}
		return r.latencies[min(int(f*float64(len(r.latencies))), len(r.latencies)-1)].Round(100 * time.Microsecond)
	}
	fmt.Fprintf(w, "games %d, followers on %d instance(s); set up in %.1f s\n", r.games, r.instances, r.setUp.Seconds())
	if r.setUp > 0 && r.last > 0 {
		fmt.Fprintf(w, "deadlines from %.1f s to %.1f s after the start, %d of them while the set-up still ran\n", r.first.Seconds(), r.last.Seconds(), r.duringSetUp)
	}
	fmt.Fprintf(w, "end events per game: exactly 1: %d, none: %d, more: %d\n", r.ends[1], r.ends[0], r.games-r.ends[0]-r.ends[1])
	if len(r.results) > 0 {
		fmt.Fprintf(w, "ended as: %s\n", mapLine(r.results))
	}
	if len(r.latencies) > 0 {
		fmt.Fprintf(w, "deadline to end event: p50 %v  p90 %v  p99 %v  max %v\n", q(.5), q(.9), q(.99), q(1))
	}
	if len(r.never) > 0 {
		fmt.Fprintf(w, "never ended: %d: %v\n", len(r.never), r.never[:min(len(r.never), 10)])
	}
	if len(r.streamErrs) > 0 {
		fmt.Fprintf(w, "streams failed: %s\n", mapLine(r.streamErrs))
	}
	if len(r.answers) > 0 {
		fmt.Fprintf(w, "refused (answers not 2xx): %s\n", mapLine(r.answers))
	}
	if len(r.failed) > 0 {
		fmt.Fprintf(w, "given up: %s\n", mapLine(r.failed))
	}
}

// idle sets up the games with clocks of hours and no followers, then
// reads each instance's CPU time from its /metrics before and after the
// sample and reports it as a share of one core.
func (dt *deadlineTest) idle(ctx context.Context, w io.Writer, concurrency int, sample time.Duration) error {
	start := time.Now()
	if _, err := dt.setUpAll(ctx, ctx, false, concurrency, func(int) time.Time { return start.Add(idleClock) }); err != nil {
		return err
	}
	fmt.Fprintf(w, "games %d with %v clocks, set up in %.1f s\n", dt.n, idleClock, time.Since(start).Seconds())
	select {
	case <-time.After(5 * time.Second):
	case <-ctx.Done():
		return ctx.Err()
	}
	before := make([]float64, len(dt.bases))
	for i, b := range dt.bases {
		var err error
		if before[i], err = readCPU(ctx, dt.streams[i]); err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
	}
	t0 := time.Now()
	select {
	case <-time.After(sample):
	case <-ctx.Done():
		return ctx.Err()
	}
	took := time.Since(t0)
	for i, b := range dt.bases {
		after, err := readCPU(ctx, dt.streams[i])
		if err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
		cpu := after - before[i]
		fmt.Fprintf(w, "%s: idle CPU %.2f s in %.1f s: %.2f %% of one core\n", b, cpu, took.Seconds(), 100*cpu/took.Seconds())
	}
	return nil
}
