package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

// gamesServer is a real HTTP server over loopback with a temporary store.
// Every answer it gives, but the event streams, is checked against the
// OpenAPI document.
type gamesServer struct {
	t      *testing.T
	ts     *httptest.Server
	st     *memory.Store
	client *http.Client
	router routers.Router
	trust  bool // skip the check against the document (benchmarks)
}

func newGamesServer(t *testing.T, opts Options, gopts games.Options, configure func(*http.Server)) *gamesServer {
	t.Helper()
	return newFollowedServer(t, opts, gopts, games.HubOptions{}, configure)
}

// withGames sets opts' game service over st, with the hub its changes go
// to.
func withGames(opts *Options, st games.Store, gopts games.Options, hopts games.HubOptions) {
	if gopts.Choose == nil {
		gopts.Choose = lastLegal
	}
	if hopts.Now == nil {
		hopts.Now = gopts.Now
	}
	hub := games.NewHub(st, hopts)
	gopts.Changed = hub
	opts.Games, opts.Hub = games.NewService(st, testCPU(), gopts), hub
	if es, ok := st.(games.ExportStore); ok && opts.Exports == nil {
		opts.Exports = games.NewExporter(es)
	}
}

// newFollowedServer is newGamesServer with the hub's options.
func newFollowedServer(t *testing.T, opts Options, gopts games.Options, hopts games.HubOptions, configure func(*http.Server)) *gamesServer {
	t.Helper()
	st := memory.New()
	withGames(&opts, st, gopts, hopts)
	if opts.Players == nil {
		opts.Players = players.NewService(st, gopts.Now)
	}
	e, err := testNew(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(e)
	if configure != nil {
		configure(ts.Config)
	}
	ts.Start()
	router := specRouter(t)
	tr := ts.Client().Transport.(*http.Transport)
	tr.MaxIdleConnsPerHost = 64
	gs := &gamesServer{t: t, ts: ts, st: st, client: ts.Client(), router: router}
	t.Cleanup(ts.Close)
	return gs
}

// answer is one HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("decode %s: %v", a.body, err)
	}
}

// problemCode returns the code of a problem answer.
func (a answer) problem(t *testing.T) (code string, members map[string]any) {
	t.Helper()
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("status %d with Content-Type %q, want a problem: %s", a.status, ct, a.body)
	}
	a.decode(t, &members)
	code, _ = members["code"].(string)
	return code, members
}

// do sends a request; token, when not empty, goes in Authorization. It may be
// called from any goroutine: failures are returned, not fatal.
func (gs *gamesServer) do(method, path, token string, body any, header map[string]string) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, gs.ts.URL+path, rd)
	if err != nil {
		return answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := gs.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: data}
	if gs.trust {
		return a, nil
	}
	return a, gs.conforms(req, a)
}

// conforms checks an answer against the document: its status is declared
// for the operation and its body matches the schema.
func (gs *gamesServer) conforms(req *http.Request, a answer) error {
	route, params, err := gs.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s: no route in the document: %w", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: a.status, Header: a.header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	out.SetBodyBytes(a.body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("%s %s: answer %d does not match the document: %w\n%s", req.Method, req.URL.Path, a.status, err, a.body)
	}
	return nil
}

// must is do for the test goroutine: any failure is fatal.
func (gs *gamesServer) must(method, path, token string, body any, header map[string]string) answer {
	gs.t.Helper()
	a, err := gs.do(method, path, token, body, header)
	if err != nil {
		gs.t.Fatal(err)
	}
	return a
}

// expect checks the status and, for an error, the problem's code.
func (gs *gamesServer) expect(a answer, status int, code string) map[string]any {
	gs.t.Helper()
	if a.status != status {
		gs.t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if code == "" {
		return nil
	}
	got, members := a.problem(gs.t)
	if got != code {
		gs.t.Fatalf("problem %q, want %q: %s", got, code, a.body)
	}
	return members
}

// twoSeats creates a game between two people and joins it.
func (gs *gamesServer) twoSeats() (oapi.Game, [2]string) {
	gs.t.Helper()
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
	gs.expect(a, http.StatusCreated, "")
	var south, north oapi.GameSeat
	a.decode(gs.t, &south)
	j := gs.must(http.MethodPost, "/v1/games/"+south.Game.Id+"/join", "", nil, nil)
	gs.expect(j, http.StatusCreated, "")
	j.decode(gs.t, &north)
	return north.Game, [2]string{south.Token, north.Token}
}

func legalPits(t *testing.T, p oapi.Position) []int {
	t.Helper()
	pos, err := positionFromAPI(p)
	if err != nil {
		t.Fatal(err)
	}
	var pits []int
	for m := pos.LegalMoves(engine.Rules{}); m != 0; {
		pits = append(pits, m.Next())
	}
	return pits
}

func sideIndex(s oapi.Side) int {
	if s == oapi.SideNorth {
		return 1
	}
	return 0
}

func TestGamesHTTPFlow(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	human := map[string]any{"opponent": map[string]any{"type": "human"}}

	// Creation: the creator's seat and token, the game waiting.
	a := gs.must(http.MethodPost, "/v1/games", "", human, nil)
	gs.expect(a, http.StatusCreated, "")
	var south oapi.GameSeat
	a.decode(t, &south)
	id := south.Game.Id
	if loc := a.header.Get("Location"); loc != "/v1/games/"+id {
		t.Fatalf("Location %q", loc)
	}
	if south.Seat != oapi.SideSouth || len(south.Token) != 43 || south.Game.Status != oapi.GameStatusWaiting ||
		south.Game.Seats != (oapi.Seats{South: oapi.SeatHolderHuman, North: oapi.SeatHolderOpen}) {
		t.Fatalf("created %+v", south)
	}
	moves := "/v1/games/" + id + "/moves"
	gs.expect(gs.must(http.MethodPost, moves, south.Token, map[string]int{"pit": 0, "ply": 0}, nil), http.StatusConflict, "game_waiting")

	j := gs.must(http.MethodPost, "/v1/games/"+id+"/join", "", nil, nil)
	gs.expect(j, http.StatusCreated, "")
	var north oapi.GameSeat
	j.decode(t, &north)
	if north.Seat != oapi.SideNorth || north.Token == south.Token || north.Game.Status != oapi.GameStatusActive {
		t.Fatalf("joined %+v", north)
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/join", "", nil, nil), http.StatusConflict, "seat_taken")

	tests := []struct {
		name     string
		token    string
		body     any
		status   int
		code     string
		check    func(map[string]any) bool
		auth     bool // WWW-Authenticate expected
		hdrCheck bool
	}{
		{name: "no token", body: map[string]int{"pit": 0, "ply": 0}, status: 401, code: "unauthorized", auth: true},
		{name: "unknown token", token: "not-a-seat-token", body: map[string]int{"pit": 0, "ply": 0}, status: 401, code: "unauthorized", auth: true},
		{name: "other seat", token: north.Token, body: map[string]int{"pit": 7, "ply": 0}, status: 403, code: "not_your_turn"},
		{name: "stale ply", token: south.Token, body: map[string]int{"pit": 0, "ply": 4}, status: 409, code: "stale_ply",
			check: func(m map[string]any) bool { return m["currentPly"] == float64(0) }},
		{name: "illegal move", token: south.Token, body: map[string]int{"pit": 7, "ply": 0}, status: 422, code: "illegal_move",
			check: func(m map[string]any) bool { return m["reason"] == "not_your_pit" }},
		{name: "pit out of range", token: south.Token, body: map[string]int{"pit": 12, "ply": 0}, status: 400, code: "invalid_request"},
		{name: "negative ply", token: south.Token, body: map[string]int{"pit": 0, "ply": -1}, status: 400, code: "invalid_request"},
		{name: "missing ply", token: south.Token, body: map[string]int{"pit": 0}, status: 400, code: "invalid_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := gs.must(http.MethodPost, moves, tc.token, tc.body, nil)
			m := gs.expect(a, tc.status, tc.code)
			if tc.check != nil && !tc.check(m) {
				t.Fatalf("problem members: %s", a.body)
			}
			if tc.auth && a.header.Get("WWW-Authenticate") != "Bearer" {
				t.Fatalf("WWW-Authenticate %q", a.header.Get("WWW-Authenticate"))
			}
		})
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/unknown/moves", south.Token, map[string]int{"pit": 0, "ply": 0}, nil), 404, "not_found")

	// The move, then the same request again: the same answer, byte for byte,
	// with 200, and still one move.
	first := gs.must(http.MethodPost, moves, south.Token, map[string]int{"pit": 0, "ply": 0}, nil)
	gs.expect(first, http.StatusCreated, "")
	var ans oapi.PlayMoveAnswer
	first.decode(t, &ans)
	if ans.Reply != nil || ans.Game.Ply != 1 || ans.Move.Ply != 0 || len(ans.Move.Legs) != 5 ||
		ans.Move.Capture.MustGet() != (oapi.Capture{Pit: 9, Seeds: 2}) {
		t.Fatalf("first move (RULES.md worked example): %s", first.body)
	}
	again := gs.must(http.MethodPost, moves, south.Token, map[string]int{"pit": 0, "ply": 0}, nil)
	gs.expect(again, http.StatusOK, "")
	if !bytes.Equal(again.body, first.body) {
		t.Fatalf("retry answered\n%s\nwant\n%s", again.body, first.body)
	}
	gs.expect(gs.must(http.MethodPost, moves, south.Token, map[string]int{"pit": 1, "ply": 0}, nil), 409, "stale_ply")
	gs.expect(gs.must(http.MethodPost, moves, south.Token, map[string]int{"pit": 1, "ply": 1}, nil), 403, "not_your_turn")

	// ETag and If-None-Match.
	g := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil)
	gs.expect(g, http.StatusOK, "")
	etag := g.header.Get("ETag")
	if etag != strconv.Quote(strconv.FormatInt(ans.Game.Version, 10)) {
		t.Fatalf("ETag %q, game version %d", etag, ans.Game.Version)
	}
	for _, inm := range []string{etag, "W/" + etag, `"zz", ` + etag, "*"} {
		nm := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, map[string]string{"If-None-Match": inm})
		if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
			t.Fatalf("If-None-Match %s: %d %q", inm, nm.status, nm.body)
		}
	}
	gs.expect(gs.must(http.MethodGet, "/v1/games/"+id, "", nil, map[string]string{"If-None-Match": `"1"`}), http.StatusOK, "")
	gs.expect(gs.must(http.MethodGet, "/v1/games/nope", "", nil, nil), http.StatusNotFound, "not_found")

	// A few more moves, then the history in pages.
	game := ans.Game
	tokens := [2]string{south.Token, north.Token}
	for range 4 {
		pits := legalPits(t, game.Position)
		a := gs.must(http.MethodPost, moves, tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": pits[0], "ply": game.Ply}, nil)
		gs.expect(a, http.StatusCreated, "")
		var pa oapi.PlayMoveAnswer
		a.decode(t, &pa)
		game = pa.Game
	}
	var all []oapi.GameMove
	for from := 0; ; {
		p := gs.must(http.MethodGet, fmt.Sprintf("%s?from=%d&limit=2", moves, from), "", nil, nil)
		gs.expect(p, http.StatusOK, "")
		var page oapi.GameMovesPage
		p.decode(t, &page)
		all = append(all, page.Moves...)
		next, err := page.NextFrom.Get()
		if err != nil {
			break
		}
		from = next
	}
	if len(all) != game.Ply {
		t.Fatalf("%d moves in the pages, game at ply %d", len(all), game.Ply)
	}
	for i, m := range all {
		if m.Ply != i {
			t.Fatalf("move %d has ply %d", i, m.Ply)
		}
	}
	gs.expect(gs.must(http.MethodGet, moves+"?limit=0", "", nil, nil), http.StatusBadRequest, "invalid_request")
	gs.expect(gs.must(http.MethodGet, "/v1/games/nope/moves", "", nil, nil), http.StatusNotFound, "not_found")

	// Resignation ends it; nothing is accepted after.
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/resign", "", nil, nil), 401, "unauthorized")
	r := gs.must(http.MethodPost, "/v1/games/"+id+"/resign", north.Token, nil, nil)
	gs.expect(r, http.StatusOK, "")
	var over oapi.Game
	r.decode(t, &over)
	if res := over.Result.MustGet(); over.Status != oapi.GameStatusFinished || res.Winner != oapi.ResultWinnerSouth || res.Reason != oapi.ResultReasonResignation {
		t.Fatalf("after resignation: %s", r.body)
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/resign", south.Token, nil, nil), 409, "game_over")
	gs.expect(gs.must(http.MethodPost, moves, tokens[sideIndex(over.Position.ToMove)], map[string]int{"pit": 0, "ply": over.Ply}, nil), 409, "game_over")
}

func TestGamesHTTPCreateOptions(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	start := map[string]any{"pits": []int{1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0}, "captured": map[string]int{"south": 21, "north": 21}, "toMove": "south"}
	tests := []struct {
		name   string
		body   any
		status int
		code   string
		check  func(*testing.T, oapi.GameSeat)
	}{
		{"AI without a level", map[string]any{"opponent": map[string]any{"type": "ai"}}, 400, "invalid_request", nil},
		{"a person with a level", map[string]any{"opponent": map[string]any{"type": "human", "level": 3}}, 400, "invalid_request", nil},
		{"level out of range", map[string]any{"opponent": map[string]any{"type": "ai", "level": 9}}, 400, "invalid_request", nil},
		{"no opponent", map[string]any{"seat": "south"}, 400, "invalid_request", nil},
		{"unknown seat", map[string]any{"seat": "east", "opponent": map[string]any{"type": "human"}}, 400, "invalid_request", nil},
		{"seeds do not add up", map[string]any{"opponent": map[string]any{"type": "human"},
			"start": map[string]any{"pits": []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3}, "captured": map[string]int{"south": 0, "north": 0}, "toMove": "south"}},
			422, "invalid_position", nil},
		{"finished start", map[string]any{"opponent": map[string]any{"type": "human"},
			"start": map[string]any{"pits": []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23}, "captured": map[string]int{"south": 25, "north": 0}, "toMove": "north"}},
			422, "invalid_position", nil},
		{"AI opens as South", map[string]any{"seat": "north", "opponent": map[string]any{"type": "ai", "level": 2}}, 201, "",
			func(t *testing.T, s oapi.GameSeat) {
				if s.Seat != oapi.SideNorth || s.Game.Ply != 1 || s.Game.Ai.MustGet() != (oapi.GameAI{Side: oapi.SideSouth, Level: 2}) ||
					s.Game.LastMove.MustGet().Side != oapi.SideSouth || s.Game.Seats != (oapi.Seats{South: oapi.SeatHolderAi, North: oapi.SeatHolderHuman}) {
					t.Fatalf("%+v", s)
				}
			}},
		{"AI as North waits for the person", map[string]any{"opponent": map[string]any{"type": "ai", "level": 8}}, 201, "",
			func(t *testing.T, s oapi.GameSeat) {
				if s.Seat != oapi.SideSouth || s.Game.Ply != 0 || s.Game.Status != oapi.GameStatusActive {
					t.Fatalf("%+v", s)
				}
			}},
		{"start position and rules", map[string]any{"opponent": map[string]any{"type": "human"}, "start": start,
			"rules": map[string]any{"captureSeed": "left", "leftovers": "side_owner"}}, 201, "",
			func(t *testing.T, s oapi.GameSeat) {
				if *s.Game.Rules.CaptureSeed != oapi.RulesCaptureSeedLeft || *s.Game.Rules.Leftovers != oapi.RulesLeftoversSideOwner || s.Game.Start.Captured.South != 21 {
					t.Fatalf("%+v", s.Game)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := gs.must(http.MethodPost, "/v1/games", "", tc.body, nil)
			gs.expect(a, tc.status, tc.code)
			if tc.check != nil {
				var s oapi.GameSeat
				a.decode(t, &s)
				tc.check(t, s)
			}
		})
	}

	// Against the AI: the reply comes in the same answer, and nobody can join.
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "ai", "level": 3}}, nil)
	var me oapi.GameSeat
	a.decode(t, &me)
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+me.Game.Id+"/join", "", nil, nil), 409, "seat_taken")
	m := gs.must(http.MethodPost, "/v1/games/"+me.Game.Id+"/moves", me.Token, map[string]int{"pit": 2, "ply": 0}, nil)
	gs.expect(m, http.StatusCreated, "")
	var pa oapi.PlayMoveAnswer
	m.decode(t, &pa)
	if pa.Reply == nil || !pa.Reply.ByAi || pa.Reply.Ply != 1 || pa.Game.Ply != 2 || pa.Game.Position.ToMove != oapi.SideSouth {
		t.Fatalf("move against the AI: %s", m.body)
	}
}

func TestGamesHTTPCreateRateLimit(t *testing.T) {
	gs := newGamesServer(t, Options{RateLimits: RateLimits{"game-create": {Rate: 1, Burst: 2}}}, games.Options{}, nil)
	human := map[string]any{"opponent": map[string]any{"type": "human"}}
	for range 2 {
		gs.expect(gs.must(http.MethodPost, "/v1/games", "", human, nil), http.StatusCreated, "")
	}
	a := gs.must(http.MethodPost, "/v1/games", "", human, nil)
	gs.expect(a, http.StatusTooManyRequests, "rate_limited")
	if ra, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q, want at most a minute at one game a minute", a.header.Get("Retry-After"))
	}
	// Other operations are not limited.
	gs.expect(gs.must(http.MethodGet, "/v1/games/nope", "", nil, nil), http.StatusNotFound, "not_found")
}

// TestGamesHTTPSamePlyRace: twenty clients send a move for the same ply of
// one game at once, ply after ply. They all hold the seat's token (a person
// with several devices, or a client retrying in parallel) and send different
// pits where they can: exactly one request per ply is played (201); a request
// identical to it (same token, ply and pit) gets its answer again (200, the
// same bytes); every other gets 409 stale_ply. The history has no gap and no
// duplicate.
func TestGamesHTTPSamePlyRace(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	game, tokens := gs.twoSeats()
	const racers = 20
	for round := 0; round < 10 && game.Status == oapi.GameStatusActive; round++ {
		pits := legalPits(t, game.Position)
		token := tokens[sideIndex(game.Position.ToMove)]
		answers := make([]answer, racers)
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				answers[i], errs[i] = gs.do(http.MethodPost, "/v1/games/"+game.Id+"/moves", token,
					map[string]int{"pit": pits[i%len(pits)], "ply": game.Ply}, nil)
			})
		}
		wg.Wait()
		won := -1
		for i, a := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if a.status == http.StatusCreated {
				if won >= 0 {
					t.Fatalf("ply %d: requests %d and %d were both played", game.Ply, won, i)
				}
				won = i
			}
		}
		if won < 0 {
			t.Fatalf("ply %d: no request was played", game.Ply)
		}
		var played oapi.PlayMoveAnswer
		answers[won].decode(t, &played)
		// When the played move ends the game, the others may be told so
		// (game_over) rather than that their ply is stale: both are 409s.
		ended := played.Game.Status != oapi.GameStatusActive
		var stale, retried int
		for i, a := range answers {
			switch {
			case i == won:
			case a.status == http.StatusOK && pits[i%len(pits)] == pits[won%len(pits)] && bytes.Equal(a.body, answers[won].body):
				retried++
			case a.status == http.StatusConflict:
				code, m := a.problem(t)
				if (code != "stale_ply" || m["currentPly"] != float64(game.Ply+1)) && !(ended && code == "game_over") {
					t.Fatalf("ply %d, request %d: %s", game.Ply, i, a.body)
				}
				if pits[i%len(pits)] == pits[won%len(pits)] {
					t.Fatalf("ply %d: request %d is the played one's twin but got %s", game.Ply, i, a.body)
				}
				stale++
			default:
				t.Fatalf("ply %d, request %d (pit %d, played pit %d): %d %s", game.Ply, i, pits[i%len(pits)], pits[won%len(pits)], a.status, a.body)
			}
		}
		if stale+retried != racers-1 || (len(pits) > 1 && stale == 0) {
			t.Fatalf("ply %d: %d stale, %d retries", game.Ply, stale, retried)
		}
		game = played.Game
	}
	h := gs.must(http.MethodGet, "/v1/games/"+game.Id+"/moves?limit=1000", "", nil, nil)
	var page oapi.GameMovesPage
	h.decode(t, &page)
	if len(page.Moves) != game.Ply {
		t.Fatalf("%d moves stored, game at ply %d", len(page.Moves), game.Ply)
	}
	for i, m := range page.Moves {
		if m.Ply != i {
			t.Fatalf("history[%d] is ply %d: a gap or a duplicate", i, m.Ply)
		}
	}
}

// TestGamesHTTPManyGamesReplay plays 200 games to their end at once, some
// against the AI, then replays each stored history through the engine: every
// stored position, capture and result is what the engine says.
func TestGamesHTTPManyGamesReplay(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{AIMoveTime: 20 * time.Millisecond}, nil)
	const games = 200
	ids := make([]string, games)
	errs := make(chan error, games)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16) // requests in flight
	for i := range games {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs <- gs.playToEnd(i, &ids[i])
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		g := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil)
		var game oapi.Game
		g.decode(t, &game)
		h := gs.must(http.MethodGet, "/v1/games/"+id+"/moves?limit=1000", "", nil, nil)
		var page oapi.GameMovesPage
		h.decode(t, &page)
		start, _ := positionFromAPI(game.Start)
		rec, err := engine.NewGame(start, engine.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		var out engine.Outcome
		for i, m := range page.Moves {
			if err := rec.Play(m.Pit, &out); err != nil {
				t.Fatalf("game %s ply %d: %v", id, i, err)
			}
			want := moveOutcomeJSON(t, &out)
			got, _ := json.Marshal(map[string]any{"legs": m.Legs, "capture": m.Capture, "position": m.Position, "result": m.Result})
			if string(got) != want {
				t.Fatalf("game %s ply %d: stored %s, the engine says %s", id, i, got, want)
			}
		}
		if game.Status != oapi.GameStatusFinished || len(page.Moves) != game.Ply || !rec.Result().Over() ||
			positionToAPI(rec.Position()).Pits[0] != game.Position.Pits[0] ||
			game.Result.MustGet() != resultToAPI(rec.Result()) {
			t.Fatalf("game %s: stored %s %+v, replay ends %s %+v", id, game.Status, game.Result, rec.Position(), rec.Result())
		}
	}
}

func moveOutcomeJSON(t *testing.T, o *engine.Outcome) string {
	t.Helper()
	x := outcomeToAPI(o)
	b, err := json.Marshal(map[string]any{"legs": x.Legs, "capture": x.Capture, "position": x.Position, "result": x.Result})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// playToEnd plays game i with random legal moves until it ends; one game in
// four is against the AI.
func (gs *gamesServer) playToEnd(i int, id *string) error {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	var game oapi.Game
	var tokens [2]string
	if i%4 == 0 {
		a, err := gs.do(http.MethodPost, "/v1/games", "", map[string]any{"seat": []string{"south", "north"}[i%8/4],
			"opponent": map[string]any{"type": "ai", "level": 1 + i%8}}, nil)
		if err != nil || a.status != http.StatusCreated {
			return fmt.Errorf("create: %v %s", err, a.body)
		}
		var s oapi.GameSeat
		if err := json.Unmarshal(a.body, &s); err != nil {
			return err
		}
		game = s.Game
		tokens[sideIndex(s.Seat)] = s.Token
	} else {
		a, err := gs.do(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
		if err != nil {
			return err
		}
		var s, n oapi.GameSeat
		if err := json.Unmarshal(a.body, &s); err != nil {
			return err
		}
		j, err := gs.do(http.MethodPost, "/v1/games/"+s.Game.Id+"/join", "", nil, nil)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(j.body, &n); err != nil {
			return err
		}
		game, tokens = n.Game, [2]string{s.Token, n.Token}
	}
	*id = game.Id
	for game.Status == oapi.GameStatusActive {
		pos, err := positionFromAPI(game.Position)
		if err != nil {
			return err
		}
		var pits []int
		for m := pos.LegalMoves(engine.Rules{}); m != 0; {
			pits = append(pits, m.Next())
		}
		a, err := gs.do(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[pos.ToMove],
			map[string]int{"pit": pits[rng.IntN(len(pits))], "ply": game.Ply}, nil)
		if err != nil {
			return err
		}
		if a.status != http.StatusCreated {
			return fmt.Errorf("game %s ply %d: %d %s", game.Id, game.Ply, a.status, a.body)
		}
		var pa oapi.PlayMoveAnswer
		if err := json.Unmarshal(a.body, &pa); err != nil {
			return err
		}
		game = pa.Game
	}
	return nil
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	id, event, data string
}

// readEvents reads events (and counts comment lines) until the stream ends
// or stop says so.
func readEvents(r io.Reader, stop func([]sseEvent) bool) (events []sseEvent, comments int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				events = append(events, cur)
				if stop != nil && stop(events) {
					return events, comments, nil
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, ":"):
			comments++
			if stop != nil && stop(events) {
				return events, comments, nil
			}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
	return events, comments, sc.Err()
}

func (gs *gamesServer) openEvents(id, lastID string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, gs.ts.URL+"/v1/games/"+id+"/events", nil)
	if err != nil {
		return nil, err
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	return gs.client.Do(req)
}

// TestGamesHTTPEventsOutliveWriteTimeout: the server's write timeout counts
// from the start of a response, so it would cut every event stream; a stream
// must go on well past it.
func TestGamesHTTPEventsOutliveWriteTimeout(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	gs := newGamesServer(t, Options{EventHeartbeat: 20 * time.Millisecond}, games.Options{},
		func(s *http.Server) { s.WriteTimeout = writeTimeout })
	// Set up through the store: any request of the test's own could be cut
	// by that short timeout on a slow machine.
	now := time.Now().UTC()
	g := games.Game{ID: "wt", CreatedAt: now, UpdatedAt: now, Start: engine.Start(), Position: engine.Start(),
		Status: games.Waiting, Tokens: [2][]byte{hashOf("x"), nil}}
	if err := gs.st.CreateGame(context.Background(), g, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := gs.openEvents("wt", "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	_, comments, err := readEvents(resp.Body, func([]sseEvent) bool { return time.Since(start) > 5*writeTimeout })
	if err != nil || time.Since(start) < 5*writeTimeout || comments < 2 {
		t.Fatalf("stream ended after %v with %d heartbeats (%v), want it alive past %v", time.Since(start), comments, err, 5*writeTimeout)
	}
}

func TestGamesHTTPEvents(t *testing.T) {
	stopping := make(chan struct{})
	gs := newFollowedServer(t, Options{EventHeartbeat: 30 * time.Millisecond}, games.Options{}, games.HubOptions{Stopping: stopping}, nil)
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
	var south oapi.GameSeat
	a.decode(t, &south)
	id := south.Game.Id

	resp, err := gs.openEvents(id, "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	type result struct {
		events   []sseEvent
		comments int
		err      error
	}
	done := make(chan result, 1)
	beat := make(chan struct{})
	go func() {
		ev, c, err := readEvents(resp.Body, firstBeat(beat))
		done <- result{ev, c, err}
	}()
	awaitLine(t, beat) // idle: the game, then heartbeats only, and one has come
	j := gs.must(http.MethodPost, "/v1/games/"+id+"/join", "", nil, nil)
	var north oapi.GameSeat
	j.decode(t, &north)
	game, tokens := north.Game, [2]string{south.Token, north.Token}
	for range 3 {
		pits := legalPits(t, game.Position)
		m := gs.must(http.MethodPost, "/v1/games/"+id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": pits[0], "ply": game.Ply}, nil)
		gs.expect(m, http.StatusCreated, "")
		var pa oapi.PlayMoveAnswer
		m.decode(t, &pa)
		game = pa.Game
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/resign", tokens[0], nil, nil), http.StatusOK, "")

	var res result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end with the game")
	}
	if res.err != nil {
		t.Fatalf("stream: %v", res.err)
	}
	var got []string
	for _, e := range res.events {
		got = append(got, e.id+":"+e.event)
	}
	// The game (no id), then each change's events, 8 ids a version.
	if want := ":game 16:joined 24:move 32:move 40:move 48:end"; strings.Join(got, " ") != want {
		t.Fatalf("events %v, want %s", got, want)
	}
	if res.comments < 1 {
		t.Fatalf("no heartbeat while idle at 30 ms")
	}
	// Each event's data is what the document's component for it says.
	schemas := loadSpecFile(t).Components.Schemas
	for _, e := range res.events {
		name := map[string]string{"game": "GameSnapshotEvent", "joined": "GameJoinedEvent", "move": "GameMoveEvent", "end": "GameEndEvent"}[e.event]
		var v any
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("%s event: %v", e.event, err)
		}
		if err := schemas[name].Value.VisitJSON(v); err != nil {
			t.Errorf("%s event does not match %s: %v", e.event, name, err)
		}
	}
	var mv oapi.GameMoveEvent
	if err := json.Unmarshal([]byte(res.events[3].data), &mv); err != nil || mv.Ply != 1 || len(mv.Legs) == 0 || mv.Version != 4 ||
		mv.Status != oapi.GameStatusActive {
		t.Fatalf("move event %s (%v)", res.events[3].data, err)
	}
	var end oapi.Game
	if err := json.Unmarshal([]byte(res.events[5].data), &end); err != nil || end.Result.MustGet().Reason != oapi.ResultReasonResignation {
		t.Fatalf("end event %s (%v)", res.events[5].data, err)
	}

	// Resuming after the first move gives the game as it is, over: the
	// stream then ends.
	resp2, err := gs.openEvents(id, "24")
	if err != nil {
		t.Fatal(err)
	}
	ev, _, err := readEvents(resp2.Body, nil)
	resp2.Body.Close()
	got = got[:0]
	for _, e := range ev {
		got = append(got, e.id+":"+e.event)
	}
	if want := ":game"; err != nil || strings.Join(got, " ") != want || !strings.Contains(ev[0].data, `"status":"finished"`) {
		t.Fatalf("resumed after 24: %v (%v), want %s, finished", got, err, want)
	}

	// Unknown game: a problem, not a stream; a bad Last-Event-ID: 400.
	gs.expect(gs.must(http.MethodGet, "/v1/games/nope/events", "", nil, nil), http.StatusNotFound, "not_found")
	gs.expect(gs.must(http.MethodGet, "/v1/games/"+id+"/events", "", nil, map[string]string{"Last-Event-ID": "x"}), http.StatusBadRequest, "invalid_request")

	// A live stream ends when the server begins its shutdown.
	other, _ := gs.twoSeats()
	resp3, err := gs.openEvents(other.Id, "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp3.Body.Close()
	ended, beat3 := make(chan error, 1), make(chan struct{})
	go func() {
		_, _, err := readEvents(resp3.Body, firstLine(beat3))
		ended <- err
	}()
	awaitLine(t, beat3) // the stream is served: a heartbeat came
	close(stopping)
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("stream at shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end at shutdown")
	}
}

// firstLine is a stop function for readEvents that stops nothing but
// closes seen at the first comment or event the stream sends.
func firstLine(seen chan struct{}) func([]sseEvent) bool {
	var once sync.Once
	return func([]sseEvent) bool {
		once.Do(func() { close(seen) })
		return false
	}
}

// firstBeat is a readEvents stop that never stops, and closes seen at the
// stream's first comment line (a heartbeat): readEvents asks it after each
// event and each comment, and a comment adds no event.
func firstBeat(seen chan struct{}) func([]sseEvent) bool {
	var once sync.Once
	n := -1
	return func(ev []sseEvent) bool {
		if len(ev) == n || len(ev) == 0 {
			once.Do(func() { close(seen) })
		}
		n = len(ev)
		return false
	}
}

// awaitLine waits for firstLine's (or firstBeat's) channel.
func awaitLine(t *testing.T, seen <-chan struct{}) {
	t.Helper()
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing on the stream in 10 s")
	}
}

// lastLegal is a deterministic AI for tests: the highest legal pit.
func lastLegal(_ context.Context, p engine.Position, r engine.Rules, _ []engine.Position, _ int, _ uint64) (int, error) {
	pit := -1
	for m := p.LegalMoves(r); m != 0; {
		pit = m.Next()
	}
	return pit, nil
}

// hashOf is a seat token's hash as the store keeps it.
func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// TestGamesHTTPEventStreamLimits: each limit on open event streams refuses
// the stream beyond it with its problem, and a stream that ends gives its
// slot back.
func TestGamesHTTPEventStreamLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		open   int    // streams of one game that fit
		status int    // the answer to one more
		code   string // its problem code
	}{
		{"per client", Options{MaxStreamsPerClient: 2, EventHeartbeat: 20 * time.Millisecond}, 2, http.StatusTooManyRequests, "too_many_streams"},
		{"per game", Options{MaxStreamsPerGame: 3, EventHeartbeat: 20 * time.Millisecond}, 3, http.StatusServiceUnavailable, "streams_full"},
		{"in total", Options{MaxStreams: 1, EventHeartbeat: 20 * time.Millisecond}, 1, http.StatusServiceUnavailable, "streams_full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := newGamesServer(t, tc.opts, games.Options{}, nil)
			a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
			var seat oapi.GameSeat
			a.decode(t, &seat)
			var open []*http.Response
			for range tc.open {
				resp, err := gs.openEvents(seat.Game.Id, "")
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("stream within the limit: %v %v", resp, err)
				}
				open = append(open, resp)
			}
			resp, err := gs.openEvents(seat.Game.Id, "")
			if err != nil {
				t.Fatal(err)
			}
			var p problem.Problem
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != tc.status || p.Code != tc.code || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("one stream too many: %d %+v (%v), want %d %s with Retry-After", resp.StatusCode, p, err, tc.status, tc.code)
			}
			resp.Body.Close()
			// Closing a stream frees its slot (the server sees the close at
			// its next write, a heartbeat at the latest).
			open[0].Body.Close()
			deadline := time.Now().Add(10 * time.Second)
			for {
				resp, err := gs.openEvents(seat.Game.Id, "")
				if err == nil && resp.StatusCode == http.StatusOK {
					resp.Body.Close()
					break
				}
				if err == nil {
					resp.Body.Close()
				}
				if time.Now().After(deadline) {
					t.Fatalf("the slot of a closed stream never came back")
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, r := range open[1:] {
				r.Body.Close()
			}
		})
	}
}
