// Package load drives a running Ayoayo server as a third party would,
// through the Go client generated from openapi.yaml (the module in
// clients/go): the load test of games between people (Tester.Play), the
// flood benchmark of cheap requests under heavy ones (Flood), the fan-out
// of one game's events to many followers (Fanout) and the deadline
// benchmark (Deadlines). The ayoayo command parses their flags, checks
// them, and prints what they report; every loop here is bounded by a count
// or by its context.
package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
	"github.com/ayoayo/ayoayo/engine"
)

// ServeFlags are the serve flags that lift the per-client limits a load
// test from one address runs into.
const ServeFlags = "--game-create-rate 0 --join-rate 0 --move-rate 0"

// Tester sends requests to a server's instances, taken in turn request by
// request, waiting out the refusals that say when to come back, and counts
// every answer that is not 2xx.
type Tester struct {
	clients   []*ayoayo.Client // one per instance
	next      atomic.Uint64
	retryWait time.Duration // the most one request waits in all for Retry-After

	mu      sync.Mutex
	answers map[string]int // every answer that is not 2xx, by "operation status"
	failed  map[string]int // requests given up on, by "operation status" or "operation error"
	retries int            // requests sent again after Retry-After
	waited  time.Duration  // in all, before those
}

// NewTester makes a tester of the instances at bases (http(s) URLs) that
// keeps up to conns connections to each open.
func NewTester(conns int, retryWait time.Duration, bases ...string) (*Tester, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = conns * 2
	tr.MaxIdleConnsPerHost = conns * 2
	clients, err := newClients(&http.Client{Transport: tr, Timeout: 30 * time.Second}, bases)
	if err != nil {
		return nil, err
	}
	return &Tester{clients: clients, retryWait: retryWait, answers: map[string]int{}, failed: map[string]int{}}, nil
}

// newClients makes one generated client for each base URL, all sending
// through hc.
func newClients(hc *http.Client, bases []string) ([]*ayoayo.Client, error) {
	out := make([]*ayoayo.Client, len(bases))
	for i, b := range bases {
		c, err := ayoayo.NewClient(b, ayoayo.WithHTTPClient(hc))
		if err != nil {
			return nil, fmt.Errorf("a client of %s: %w", b, err)
		}
		out[i] = c
	}
	return out, nil
}

// streamClients is newClients for event streams and /metrics: no time
// bound on a request, since a stream lasts as long as its game.
func streamClients(bases []string) ([]*ayoayo.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return newClients(&http.Client{Transport: tr}, bases)
}

// pick is the next instance's client.
func (lt *Tester) pick() *ayoayo.Client {
	return lt.clients[(lt.next.Add(1)-1)%uint64(len(lt.clients))]
}

// request is one call of the generated client, its answer unread.
type request func(ctx context.Context, c *ayoayo.Client) (*http.Response, error)

// maxAttempts bounds the attempts of one request, whatever the waits.
const maxAttempts = 10

// call sends a request with do and parses its 2xx answer with the
// generated client's parse function.
func call[R any](ctx context.Context, lt *Tester, op string, send request, parse func(*http.Response) (R, error)) (r R, took time.Duration, err error) {
	took, err = lt.do(ctx, op, send, func(resp *http.Response) (err error) {
		r, err = parse(resp)
		return err
	})
	return r, took, err
}

// do sends a request, to the next instance at each attempt, and reads a 2xx
// answer with read; op names the request in the report. A 429 or 503 with
// Retry-After is waited out and the request sent again, while the waits add
// up to at most retryWait. Every answer that is not 2xx is counted, and so
// is a request given up on, unless ctx ended first (the end of the run is
// no refusal). took is the time of the last attempt, reading included,
// without the waits.
func (lt *Tester) do(ctx context.Context, op string, send request, read func(*http.Response) error) (took time.Duration, err error) {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		start := time.Now()
		status, header, body, what, err := attempt1(ctx, lt.pick(), send, read)
		took = time.Since(start)
		if err == nil && status/100 == 2 {
			return took, nil
		}
		if ctx.Err() != nil {
			return took, ctx.Err()
		}
		key := fmt.Sprint(op, " ", status)
		if err != nil {
			key = op + " error"
		} else {
			err = fmt.Errorf("%s: %d %s", what, status, bytes.TrimSpace(body))
		}
		wait, again := retryAfter(status, header)
		again = again && attempt < maxAttempts && waited+wait <= lt.retryWait
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
			return took, err
		}
		select {
		case <-time.After(wait):
			waited += wait
		case <-ctx.Done():
			return took, ctx.Err()
		}
	}
}

// attempt1 sends once: a 2xx answer is read with read, any other returned
// with its headers and its body for the report, and what the request was
// ("POST /v1/games"). An error of the transport names the URL itself.
func attempt1(ctx context.Context, c *ayoayo.Client, send request, read func(*http.Response) error) (status int, h http.Header, body []byte, what string, err error) {
	resp, err := send(ctx, c)
	if err != nil {
		return 0, nil, nil, "", err
	}
	defer resp.Body.Close()
	what = resp.Request.Method + " " + resp.Request.URL.Path
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, resp.Header, nil, what, read(resp)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, resp.Header, body, what, err
}

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

// bearer sends a seat's token.
func bearer(token string) ayoayo.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
}

// game is what the tools read of a game, in the generated client's types.
// It is decoded alone rather than with the generated Parse functions: the
// whole Game (its nullable fields are maps, two instants, the seats, the
// players, the last move) cost the load test a fifth of its move rate when
// it shares the machine's cores with the server it measures.
type game struct {
	ID       ayoayo.GameID     `json:"id"`
	Status   ayoayo.GameStatus `json:"status"`
	Ply      int               `json:"ply"`
	Position ayoayo.Position   `json:"position"`
	Clock    *struct {
		Deadline *time.Time `json:"deadline"`
	} `json:"clock"`
}

// seat is a seat taken: ayoayo.GameSeat's fields the tools read.
type seat struct {
	Game  game   `json:"game"`
	Token string `json:"token"`
}

// jsonInto reads a 2xx answer's JSON into v.
func jsonInto(v any) func(*http.Response) error {
	return func(resp *http.Response) error {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		return json.Unmarshal(data, v)
	}
}

// play is one game in play: its state and both seats' tokens.
type play struct {
	game   game
	tokens [2]string // by side
}

// createGame creates a game with body and returns the creator's seat.
func (lt *Tester) createGame(ctx context.Context, op string, body ayoayo.CreateGameRequest) (*seat, error) {
	var a seat
	_, err := lt.do(ctx, op, func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
		return c.CreateGame(ctx, nil, body)
	}, jsonInto(&a))
	return &a, err
}

// joinGame takes the free seat of game id.
func (lt *Tester) joinGame(ctx context.Context, id string) (*seat, error) {
	var b seat
	_, err := lt.do(ctx, "join", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
		return c.JoinGame(ctx, id, nil)
	}, jsonInto(&b))
	return &b, err
}

// move plays pit in g with the seat's token and returns the game after it.
func (lt *Tester) move(ctx context.Context, op string, g *game, token string, pit int) (*game, time.Duration, error) {
	body := ayoayo.PlayMoveRequest{Pit: pit, Ply: g.Ply}
	var ans struct {
		Game game `json:"game"`
	}
	took, err := lt.do(ctx, op, func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
		return c.PlayGameMove(ctx, g.ID, nil, body, bearer(token))
	}, jsonInto(&ans))
	if err != nil {
		return nil, took, err
	}
	return &ans.Game, took, nil
}

// getGame reads game id.
func (lt *Tester) getGame(ctx context.Context, id string) (*game, error) {
	var g game
	_, err := lt.do(ctx, "get", func(ctx context.Context, c *ayoayo.Client) (*http.Response, error) {
		return c.GetGame(ctx, id, nil)
	}, jsonInto(&g))
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// newGame creates a game between two people and joins it.
func (lt *Tester) newGame(ctx context.Context) (*play, error) {
	a, err := lt.createGame(ctx, "create", ayoayo.CreateGameRequest{Opponent: ayoayo.Opponent{Type: ayoayo.OpponentTypeHuman}})
	if err != nil {
		return nil, err
	}
	b, err := lt.joinGame(ctx, a.Game.ID)
	if err != nil {
		return nil, err
	}
	// The creator sits South (the default); the joiner gets North.
	return &play{game: b.Game, tokens: [2]string{a.Token, b.Token}}, nil
}

// seatToMove is the index in play.tokens of the side to move.
func seatToMove(p ayoayo.Position) int {
	if p.ToMove == ayoayo.SideNorth {
		return 1
	}
	return 0
}

// pickMove returns a random legal pit of a position the API gave.
func pickMove(p ayoayo.Position, rng *rand.Rand) (int, error) {
	return RandomMove(p.Pits, p.Captured.South, p.Captured.North, string(p.ToMove), rng)
}

// RandomMove returns a random legal pit of the position with these pits,
// captured seeds and side to move (as the API names it).
func RandomMove(pits []int, south, north int, toMove string, rng *rand.Rand) (int, error) {
	side, err := engine.ParseSide(toMove)
	if err != nil {
		return 0, err
	}
	pos, err := engine.NewPosition(pits, south, north, side)
	if err != nil {
		return 0, err
	}
	var legal []int
	for m := pos.LegalMoves(engine.Rules{}); m != 0; {
		legal = append(legal, m.Next())
	}
	if len(legal) == 0 {
		return 0, fmt.Errorf("no legal move in %s", pos)
	}
	return legal[rng.IntN(len(legal))], nil
}
