package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
)

// Fanout measures live events at scale: in each of Rounds rounds, a new
// game with Followers event streams (spread over the Follow instances), on
// which up to Moves moves are played on the Players instance, Interval
// apart.
type Fanout struct {
	Players          string   // base URL of the instance the moves are played on
	Follow           []string // base URLs the followers connect to, in turn
	Followers, Moves int
	Rounds           int
	Interval         time.Duration
}

// Run plays the rounds and prints how long each move's POST took, how long
// each move took to reach every follower, and what an idle stream costs the
// following servers in memory. ctx bounds the run.
func (f Fanout) Run(ctx context.Context, w io.Writer) error {
	follows, err := streamClients(f.Follow)
	if err != nil {
		return err
	}
	total := &fanoutReport{followers: f.Followers}
	for range f.Rounds {
		rep, err := f.round(ctx, follows)
		if rep != nil {
			total.add(rep)
		}
		if err != nil {
			total.print(w)
			return err
		}
	}
	total.print(w)
	return nil
}

// add merges one round's figures into r; the memory lines are the first
// round's, measured with the servers' streams all idle before it.
func (r *fanoutReport) add(o *fanoutReport) {
	r.moves += o.moves
	r.posts = append(r.posts, o.posts...)
	r.deliveries = append(r.deliveries, o.deliveries...)
	r.missing += o.missing
	if r.memory == nil {
		r.memory = o.memory
	}
}

// fanoutReport is what a fan-out run measured.
type fanoutReport struct {
	followers, moves int
	posts            []time.Duration // each move's POST
	deliveries       []time.Duration // each (move, follower): from the POST's start to the event's arrival
	missing          int             // (move, follower) pairs never delivered
	memory           []string        // per following instance: what an idle stream costs it
}

func (r *fanoutReport) print(w io.Writer) {
	q := func(ds []time.Duration, f float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return ds[min(int(f*float64(len(ds))), len(ds)-1)].Round(100 * time.Microsecond)
	}
	slices.Sort(r.posts)
	slices.Sort(r.deliveries)
	fmt.Fprintf(w, "followers %d, moves %d\n", r.followers, r.moves)
	fmt.Fprintf(w, "move POST: p50 %v, p99 %v, max %v\n", q(r.posts, .5), q(r.posts, .99), q(r.posts, 1))
	fmt.Fprintf(w, "delivery to every follower: p50 %v, p99 %v, max %v (%d deliveries, %d missing)\n",
		q(r.deliveries, .5), q(r.deliveries, .99), q(r.deliveries, 1), len(r.deliveries), r.missing)
	for _, line := range r.memory {
		fmt.Fprintln(w, line)
	}
}

// round is one game: its followers' streams opened (through follows, the
// clients of f.Follow), the moves played, every delivery awaited (within
// ctx).
func (f Fanout) round(ctx context.Context, follows []*ayoayo.Client) (*fanoutReport, error) {
	followers, moves := f.Followers, f.Moves
	lt, err := NewTester(4, 0, f.Players) // no retries: a refusal ends the measurement
	if err != nil {
		return nil, err
	}
	p, err := lt.newGame(ctx)
	if err != nil {
		return nil, err
	}
	before := make([]memoryUse, len(follows))
	for i, c := range follows {
		before[i], _ = readMemory(ctx, c)
	}

	// arrivals[k][i]: when follower i got the event of move k (ID k+1).
	arrivals := make([][]atomic.Int64, moves) // Unix nanoseconds; 0 not yet
	for k := range arrivals {
		arrivals[k] = make([]atomic.Int64, followers)
	}
	var ready, done sync.WaitGroup
	var failed atomic.Int32
	var firstErr atomic.Pointer[error]
	streamCtx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	for i := range followers {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			markReady := sync.OnceFunc(ready.Done)
			// A stream that failed is ready too, once its failure is counted.
			defer markReady()
			err := followStream(streamCtx, follows[i%len(follows)], p.game.ID, markReady, func(e streamEvent) bool {
				if e.id >= 1 && e.id <= len(arrivals) {
					arrivals[e.id-1][i].Store(time.Now().UnixNano())
				}
				return true // until the end event closes the stream, or the run stops it
			})
			if err != nil && streamCtx.Err() == nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, &err)
			}
		}()
	}
	readyDone := make(chan struct{})
	go func() { ready.Wait(); close(readyDone) }()
	select {
	case <-readyDone:
	case <-ctx.Done():
		return nil, fmt.Errorf("opening %d streams: %w", followers, ctx.Err())
	}
	if n := failed.Load(); n > 0 {
		return nil, fmt.Errorf("%d of %d streams failed to open: %v", n, followers, *firstErr.Load())
	}
	rep := &fanoutReport{followers: followers, moves: moves}
	for i, c := range follows {
		if after, err := readMemory(ctx, c); err == nil && before[i].ok {
			n := followers / len(follows)
			rep.memory = append(rep.memory, fmt.Sprintf("%s: per idle stream %.1f KiB resident, %.1f KiB Go heap (%d streams)", f.Follow[i],
				float64(after.resident-before[i].resident)/1024/float64(n), float64(after.heap-before[i].heap)/1024/float64(n), n))
		}
	}

	// Play: each move by the seat to move, a random legal pit.
	rng := rand.New(rand.NewPCG(1, 2))
	sent := make([]time.Time, 0, moves)
	g := &p.game
	for k := 0; k < moves; k++ {
		if g.Status != ayoayo.GameStatusActive {
			moves = k // the game ended: measure the moves it had
			break
		}
		pit, err := pickMove(g.Position, rng)
		if err != nil {
			return rep, err
		}
		t0 := time.Now()
		sent = append(sent, t0)
		after, _, err := lt.move(ctx, "move", g, p.tokens[seatToMove(g.Position)], pit)
		if err != nil {
			return rep, err
		}
		rep.posts = append(rep.posts, time.Since(t0))
		g = after
		select {
		case <-time.After(f.Interval):
		case <-ctx.Done():
			return rep, ctx.Err()
		}
	}
	// Wait for the last move to reach everyone (bounded by ctx), then count.
	for moves > 0 && !allArrived(arrivals[moves-1]) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	stopStreams()
	done.Wait()
	rep.moves = moves
	for k := range moves {
		for i := range followers {
			if at := arrivals[k][i].Load(); at == 0 {
				rep.missing++
			} else {
				rep.deliveries = append(rep.deliveries, time.Unix(0, at).Sub(sent[k]))
			}
		}
	}
	if rep.missing > 0 {
		return rep, fmt.Errorf("%d deliveries missing", rep.missing)
	}
	return rep, nil
}

// allArrived says whether every follower has the event.
func allArrived(at []atomic.Int64) bool {
	for i := range at {
		if at[i].Load() == 0 {
			return false
		}
	}
	return true
}

// streamEvent is one event of a stream as followStream reads it. Its kind and
// data are the reader's own buffers, reused for the next event: they are
// valid only during the call they are given to.
type streamEvent struct {
	id   int
	kind []byte
	data []byte
}

// streamRefused is a stream the server did not open: its status and the
// start of its answer.
type streamRefused struct {
	status int
	body   string
}

func (e *streamRefused) Error() string { return fmt.Sprintf("%d %s", e.status, e.body) }

// followStream reads game id's event stream, calling seen with each event
// that has an id, as its frame ends, until it returns false. It calls live
// once, at the stream's first line (the stream is live), and never when
// the stream does not open. The generated client opens the stream; the
// frames are read here, since the document describes them as text.
func followStream(ctx context.Context, c *ayoayo.Client, id string, live func(), seen func(e streamEvent) bool) error {
	markLive := sync.OnceFunc(live)
	resp, err := c.FollowGameEvents(ctx, id, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return &streamRefused{status: resp.StatusCode, body: string(body)}
	}
	sc := bufio.NewScanner(resp.Body)
	// A small first buffer: frames are short, and a large one per stream
	// would make the tool itself allocate (and clear) hundreds of megabytes
	// for thousands of streams. It grows for a longer line.
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20)
	// The lines are read as the scanner's bytes, not as strings, and an
	// event's kind and data are copied into buffers the stream reuses: one
	// string per line would make the tool allocate for every line of every
	// follower, and its garbage collections would then delay the arrivals it
	// measures.
	var e streamEvent
	hasID := false
	for sc.Scan() {
		markLive() // the "retry:" line comes first
		line := sc.Bytes()
		if len(line) == 0 { // the frame is complete
			if hasID && !seen(e) {
				return nil
			}
			hasID, e.kind, e.data = false, e.kind[:0], e.data[:0]
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
			if e.id, err = strconv.Atoi(string(v)); err != nil {
				return fmt.Errorf("event id %q", v)
			}
			hasID = true
		} else if v, ok := bytes.CutPrefix(line, []byte("event: ")); ok {
			e.kind = append(e.kind[:0], v...)
		} else if v, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if len(e.data) > 0 {
				e.data = append(e.data, '\n') // a data of several lines
			}
			e.data = append(e.data, v...)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("the stream ended")
}

// memoryUse is what a server's /metrics says of its memory.
type memoryUse struct {
	resident, heap float64
	ok             bool
}

func readMemory(ctx context.Context, c *ayoayo.Client) (memoryUse, error) {
	v, err := readMetrics(ctx, c, "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes")
	if err != nil {
		return memoryUse{}, err
	}
	res, ok1 := v["process_resident_memory_bytes"]
	heap, ok2 := v["go_memstats_heap_inuse_bytes"]
	return memoryUse{resident: res, heap: heap, ok: ok1 && ok2}, nil
}

// readCPU returns the CPU time the server's process has used, in seconds,
// as its /metrics says.
func readCPU(ctx context.Context, c *ayoayo.Client) (float64, error) {
	const name = "process_cpu_seconds_total"
	v, err := readMetrics(ctx, c, name)
	if err != nil {
		return 0, err
	}
	if _, ok := v[name]; !ok {
		return 0, errors.New("/metrics has no " + name)
	}
	return v[name], nil
}

// readMetrics reads a server's /metrics and returns the value of the first
// gauge or counter of each family named that it has.
func readMetrics(ctx context.Context, c *ayoayo.Client, names ...string) (map[string]float64, error) {
	resp, err := c.GetMetrics(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, errors.New("/metrics: 404: start the server with --metrics-public (the metrics are on its admin port otherwise)")
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	values := map[string]float64{}
	for _, name := range names {
		f, ok := families[name]
		if !ok || len(f.GetMetric()) == 0 {
			continue
		}
		m := f.GetMetric()[0]
		if g := m.GetGauge(); g != nil {
			values[name] = g.GetValue()
		} else if c := m.GetCounter(); c != nil {
			values[name] = c.GetValue()
		}
	}
	return values, nil
}
