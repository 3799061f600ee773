package api

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/puzzletest"
	"github.com/ayoayo/ayoayo/store/memory"
)

// playersNow is a day whose daily puzzle the default generator makes in
// a moment (see TestHeadOnEveryGet).
var playersNow = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// newPlayersServer serves games, the puzzle feed and players over one
// memory store, as cmd/ayoayo wires them over one database, with the clock
// the test drives. Every answer is checked against the document. practice
// gives the feed a pool of made-up practice puzzles (fast, any grade).
func newPlayersServer(t *testing.T, clock *gamestest.Clock, opts Options, practice bool) *gamesServer {
	t.Helper()
	st := memory.New()
	fo := puzzles.FeedOptions{Now: clock.Now}
	if practice {
		fo.Practice, fo.VerifyPractice, fo.Cutover = puzzletest.MadeUpPractice, puzzletest.CheckMadeUp, clock.Now()
	}
	opts.Puzzles = puzzles.NewFeed(st, testCPU(), fo)
	withGames(&opts, st, games.Options{Now: clock.Now}, games.HubOptions{})
	opts.Players = players.NewService(st, clock.Now)
	e, err := testNew(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return &gamesServer{t: t, ts: ts, st: st, client: ts.Client(), router: specRouter(t)}
}

func playersClock() *gamestest.Clock {
	c := gamestest.NewClock()
	c.Advance(playersNow.Sub(c.Now()))
	return c
}

// asPlayer is the header that names a player.
func asPlayer(token string) map[string]string { return map[string]string{PlayerTokenHeader: token} }

// newPlayer creates a player named name and returns it with its token.
func (gs *gamesServer) newPlayer(name string) (oapi.Player, string) {
	gs.t.Helper()
	a := gs.must(http.MethodPost, "/v1/players", "", map[string]any{"name": name}, nil)
	gs.expect(a, http.StatusCreated, "")
	var c oapi.CreatedPlayer
	a.decode(gs.t, &c)
	if loc := a.header.Get("Location"); loc != "/v1/players/"+c.Player.Id {
		gs.t.Fatalf("Location %q for player %s", loc, c.Player.Id)
	}
	if !strings.HasPrefix(c.Token, "pl_") || c.Player.Name != name {
		gs.t.Fatalf("created %+v with token %q", c.Player, c.Token)
	}
	return c.Player, c.Token
}

func (gs *gamesServer) player(id string) oapi.Player {
	gs.t.Helper()
	a := gs.must(http.MethodGet, "/v1/players/"+id, "", nil, nil)
	gs.expect(a, http.StatusOK, "")
	var p oapi.Player
	a.decode(gs.t, &p)
	return p
}

// ratedGame creates a rated live game as creator and joins it as joiner,
// and returns the game with the seats' tokens by side.
func (gs *gamesServer) ratedGame(creator, joiner string) (oapi.Game, [2]string) {
	gs.t.Helper()
	a := gs.must(http.MethodPost, "/v1/games", "", ratedLive, asPlayer(creator))
	gs.expect(a, http.StatusCreated, "")
	var south, north oapi.GameSeat
	a.decode(gs.t, &south)
	j := gs.must(http.MethodPost, "/v1/games/"+south.Game.Id+"/join", "", nil, asPlayer(joiner))
	gs.expect(j, http.StatusCreated, "")
	j.decode(gs.t, &north)
	return north.Game, [2]string{south.Token, north.Token}
}

var ratedLive = map[string]any{"opponent": map[string]any{"type": "human"}, "rated": true,
	"timeControl": map[string]any{"kind": "clock", "initialSeconds": 300, "incrementSeconds": 3}}

// TestPlayerEndpoints: every player operation's answer and its refusals.
func TestPlayerEndpoints(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	ada, adaToken := gs.newPlayer("Ada")
	_, bisiToken := gs.newPlayer("Bisi")

	t.Run("default name", func(t *testing.T) {
		a := gs.must(http.MethodPost, "/v1/players", "", map[string]any{}, nil)
		gs.expect(a, http.StatusCreated, "")
		var c oapi.CreatedPlayer
		a.decode(t, &c)
		if !strings.HasPrefix(c.Player.Name, "player-") || c.Player.Ratings.Live.Rating != 1500 || !c.Player.Ratings.Puzzle.Provisional {
			t.Fatalf("a new player: %+v", c.Player)
		}
	})

	refusals := []struct {
		name   string
		method string
		path   string
		token  string
		body   any
		status int
		code   string
	}{
		{"create: a name too long", http.MethodPost, "/v1/players", "", map[string]any{"name": strings.Repeat("a", 33)}, 400, "invalid_request"},
		{"create: an empty name", http.MethodPost, "/v1/players", "", map[string]any{"name": ""}, 400, "invalid_request"},
		{"create: an unknown field", http.MethodPost, "/v1/players", "", map[string]any{"nick": "x"}, 400, "invalid_request"},
		{"create: a control character", http.MethodPost, "/v1/players", "", map[string]any{"name": "a\u0007b"}, 422, "invalid_player_name"},
		{"create: a line break", http.MethodPost, "/v1/players", "", map[string]any{"name": "a\nb"}, 422, "invalid_player_name"},
		{"create: blank", http.MethodPost, "/v1/players", "", map[string]any{"name": "   "}, 422, "invalid_player_name"},
		{"get: unknown", http.MethodGet, "/v1/players/nobody", "", nil, 404, "player_not_found"},
		{"rename: no token", http.MethodPatch, "/v1/players/" + ada.Id, "", map[string]any{"name": "Ada L."}, 401, "player_unauthorized"},
		{"rename: an unknown token", http.MethodPatch, "/v1/players/" + ada.Id, "pl_nobody", map[string]any{"name": "Ada L."}, 401, "player_unauthorized"},
		{"rename: another player's token", http.MethodPatch, "/v1/players/" + ada.Id, bisiToken, map[string]any{"name": "Ada L."}, 403, "not_your_player"},
		{"rename: unknown player", http.MethodPatch, "/v1/players/nobody", adaToken, map[string]any{"name": "Ada L."}, 404, "player_not_found"},
		{"rename: a control character", http.MethodPatch, "/v1/players/" + ada.Id, adaToken, map[string]any{"name": "Ada\u200b"}, 422, "invalid_player_name"},
		{"rename: too long", http.MethodPatch, "/v1/players/" + ada.Id, adaToken, map[string]any{"name": strings.Repeat("é", 33)}, 400, "invalid_request"},
		{"rotate: no token", http.MethodPost, "/v1/players/" + ada.Id + "/token", "", nil, 401, "player_unauthorized"},
		{"rotate: another player's token", http.MethodPost, "/v1/players/" + ada.Id + "/token", bisiToken, nil, 403, "not_your_player"},
		{"delete: no token", http.MethodDelete, "/v1/players/" + ada.Id, "", nil, 401, "player_unauthorized"},
		{"delete: another player's token", http.MethodDelete, "/v1/players/" + ada.Id, bisiToken, nil, 403, "not_your_player"},
		{"delete: unknown player", http.MethodDelete, "/v1/players/nobody", adaToken, nil, 404, "player_not_found"},
		{"games: unknown player", http.MethodGet, "/v1/players/nobody/games", "", nil, 404, "player_not_found"},
		{"games: a cursor this server did not give", http.MethodGet, "/v1/players/" + ada.Id + "/games?after=bm9wZQ", "", nil, 400, "invalid_cursor"},
		{"games: not base64", http.MethodGet, "/v1/players/" + ada.Id + "/games?after=%21%21", "", nil, 400, "invalid_cursor"},
		{"games: an unknown category", http.MethodGet, "/v1/players/" + ada.Id + "/games?category=untimed", "", nil, 400, "invalid_request"},
		{"games: limit 0", http.MethodGet, "/v1/players/" + ada.Id + "/games?limit=0", "", nil, 400, "invalid_request"},
		{"puzzles: a bad cursor", http.MethodGet, "/v1/players/" + ada.Id + "/puzzles?after=bm9wZQ", "", nil, 400, "invalid_cursor"},
		{"puzzles: unknown player", http.MethodGet, "/v1/players/nobody/puzzles", "", nil, 404, "player_not_found"},
		{"leaderboard: an unknown category", http.MethodGet, "/v1/leaderboards/blitz", "", nil, 400, "invalid_request"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			var h map[string]string
			if tc.token != "" {
				h = asPlayer(tc.token)
			}
			members := gs.expect(gs.must(tc.method, tc.path, "", tc.body, h), tc.status, tc.code)
			if tc.status == 401 && members != nil {
				// The token a request sent is never in its answer.
				if tc.token != "" && strings.Contains(members["detail"].(string), tc.token) {
					t.Fatalf("the answer quotes the token: %v", members)
				}
			}
		})
	}

	t.Run("401 names the header", func(t *testing.T) {
		a := gs.must(http.MethodPost, "/v1/players/"+ada.Id+"/token", "", nil, nil)
		if got := a.header.Get("WWW-Authenticate"); got != PlayerTokenHeader {
			t.Fatalf("WWW-Authenticate %q", got)
		}
	})

	t.Run("rename, rotate, delete", func(t *testing.T) {
		a := gs.must(http.MethodPatch, "/v1/players/"+ada.Id, "", map[string]any{"name": "Ada Lovelace"}, asPlayer(adaToken))
		gs.expect(a, http.StatusOK, "")
		var p oapi.Player
		a.decode(t, &p)
		if p.Name != "Ada Lovelace" || gs.player(ada.Id).Name != "Ada Lovelace" {
			t.Fatalf("renamed: %+v", p)
		}
		r := gs.must(http.MethodPost, "/v1/players/"+ada.Id+"/token", "", nil, asPlayer(adaToken))
		gs.expect(r, http.StatusOK, "")
		var rot oapi.RotatedToken
		r.decode(t, &rot)
		if rot.Token == adaToken || !strings.HasPrefix(rot.Token, "pl_") {
			t.Fatalf("rotated to %q", rot.Token)
		}
		// The old token is dead at once; the new one works.
		gs.expect(gs.must(http.MethodPatch, "/v1/players/"+ada.Id, "", map[string]any{"name": "Ada"}, asPlayer(adaToken)), 401, "player_unauthorized")
		gs.expect(gs.must(http.MethodPatch, "/v1/players/"+ada.Id, "", map[string]any{"name": "Ada"}, asPlayer(rot.Token)), 200, "")

		gs.expect(gs.must(http.MethodDelete, "/v1/players/"+ada.Id, "", nil, asPlayer(rot.Token)), http.StatusNoContent, "")
		gs.expect(gs.must(http.MethodGet, "/v1/players/"+ada.Id, "", nil, nil), 404, "player_not_found")
		// Its token names nobody now: a game created with it is refused,
		// not made anonymous.
		gs.expect(gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, asPlayer(rot.Token)), 401, "player_unauthorized")
	})
}

// TestPlayerRatedGameRefusals: where a rated game cannot be.
func TestPlayerRatedGameRefusals(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	_, ada := gs.newPlayer("Ada")
	_, bisi := gs.newPlayer("Bisi")
	human := map[string]any{"type": "human"}
	clock := map[string]any{"kind": "clock", "initialSeconds": 60}
	tests := []struct {
		name   string
		body   map[string]any
		token  string
		status int
		code   string
	}{
		{"without a time control", map[string]any{"opponent": human, "rated": true}, ada, 422, "rated_not_allowed"},
		{"against the AI", map[string]any{"opponent": map[string]any{"type": "ai", "level": 1}, "rated": true, "timeControl": clock}, ada, 422, "rated_not_allowed"},
		{"without a player", map[string]any{"opponent": human, "rated": true, "timeControl": clock}, "", 422, "rated_not_allowed"},
		{"with a token no player holds", map[string]any{"opponent": human, "rated": true, "timeControl": clock}, "pl_nobody", 401, "player_unauthorized"},
		{"rated as text", map[string]any{"opponent": human, "rated": "yes", "timeControl": clock}, ada, 400, "invalid_request"},
		{"a rated correspondence game", map[string]any{"opponent": human, "rated": true, "timeControl": map[string]any{"kind": "correspondence", "daysPerMove": 2}}, ada, 201, ""},
		{"an unrated game as a player", map[string]any{"opponent": human}, ada, 201, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h map[string]string
			if tc.token != "" {
				h = asPlayer(tc.token)
			}
			a := gs.must(http.MethodPost, "/v1/games", "", tc.body, h)
			gs.expect(a, tc.status, tc.code)
			if tc.status != 201 {
				return
			}
			var seat oapi.GameSeat
			a.decode(t, &seat)
			south, err := seat.Game.Players.South.Get()
			if err != nil || south.Name != "Ada" || seat.Game.Rated != (tc.body["rated"] == true) || !seat.Game.Players.North.IsNull() {
				t.Fatalf("game %+v, players %+v", seat.Game, seat.Game.Players)
			}
			// An untimed game has no rating category: no rating to show.
			if _, timed := tc.body["timeControl"]; timed == south.Rating.IsNull() {
				t.Fatalf("south's rating %+v in a game timed %v", south, timed)
			}
		})
	}

	a := gs.must(http.MethodPost, "/v1/games", "", ratedLive, asPlayer(ada))
	gs.expect(a, http.StatusCreated, "")
	var seat oapi.GameSeat
	a.decode(t, &seat)
	join := "/v1/games/" + seat.Game.Id + "/join"
	gs.expect(gs.must(http.MethodPost, join, "", nil, nil), 401, "player_unauthorized")
	gs.expect(gs.must(http.MethodPost, join, "", nil, asPlayer("pl_nobody")), 401, "player_unauthorized")
	gs.expect(gs.must(http.MethodPost, join, "", nil, asPlayer(ada)), 422, "rated_not_allowed")
	gs.expect(gs.must(http.MethodPost, join, "", nil, asPlayer(bisi)), 201, "")
}

// TestPlayerRatedGame: a rated live game between two players over HTTP,
// ended by resignation, changes both ratings once; the game, both players,
// their histories show it; a resignation sent again changes nothing; and an
// aborted rated game changes nothing at all.
func TestPlayerRatedGame(t *testing.T) {
	clock := playersClock()
	gs := newPlayersServer(t, clock, Options{}, false)
	ada, adaToken := gs.newPlayer("Ada")
	bisi, bisiToken := gs.newPlayer("Bisi")

	g, seats := gs.ratedGame(adaToken, bisiToken)
	sp, _ := g.Players.South.Get()
	np, _ := g.Players.North.Get()
	if !g.Rated || sp.Id != ada.Id || np.Id != bisi.Id || !sp.Change.IsNull() || sp.Rating.MustGet() != 1500 || !sp.Provisional {
		t.Fatalf("joined: rated %v, players %+v %+v", g.Rated, sp, np)
	}
	// Both sides move (before that, a resignation aborts), North resigns:
	// South wins.
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[0], map[string]any{"ply": 0, "pit": 0}, nil), 201, "")
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[1], map[string]any{"ply": 1, "pit": 6}, nil), 201, "")
	a := gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", seats[1], nil, nil)
	gs.expect(a, http.StatusOK, "")
	var ended oapi.Game
	a.decode(t, &ended)
	sp, _ = ended.Players.South.Get()
	np, _ = ended.Players.North.Get()
	if sp.Change.MustGet() <= 0 || np.Change.MustGet() >= 0 || sp.Rating.MustGet() != 1500 {
		t.Fatalf("after the resignation: %+v %+v", sp, np)
	}
	want := map[string]int{ada.Id: 1500 + sp.Change.MustGet(), bisi.Id: 1500 + np.Change.MustGet()}

	check := func(when string) {
		t.Helper()
		for id, rating := range want {
			p := gs.player(id)
			if p.Ratings.Live.Rating != rating || p.Ratings.Live.Games != 1 || p.Counts.Games != 1 || p.Counts.Rated != 1 ||
				p.Ratings.Correspondence.Games != 0 {
				t.Fatalf("%s: player %s %+v, want a live rating of %d from one game", when, id, p, rating)
			}
		}
	}
	check("after the end")
	// The same resignation again: the same answer, no second rating.
	again := gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", seats[1], nil, nil)
	gs.expect(again, http.StatusOK, "")
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", seats[0], nil, nil), 409, "game_over")
	check("after the resignation was sent again")

	// Each history lists the game with its change; the filters narrow it.
	for _, tc := range []struct {
		name   string
		player string
		query  string
		result oapi.PlayerResult
		change int
		count  int
	}{
		{"Ada's games", ada.Id, "", oapi.PlayerResultWin, sp.Change.MustGet(), 1},
		{"Bisi's games", bisi.Id, "", oapi.PlayerResultLoss, np.Change.MustGet(), 1},
		{"Ada's live wins", ada.Id, "?category=live&result=win", oapi.PlayerResultWin, sp.Change.MustGet(), 1},
		{"Ada's losses", ada.Id, "?result=loss", "", 0, 0},
		{"Ada's correspondence games", ada.Id, "?category=correspondence", "", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := gs.must(http.MethodGet, "/v1/players/"+tc.player+"/games"+tc.query, "", nil, nil)
			gs.expect(a, http.StatusOK, "")
			var page oapi.PlayerGamesPage
			a.decode(t, &page)
			if len(page.Games) != tc.count || !page.Next.IsNull() {
				t.Fatalf("%d games, next %v: %s", len(page.Games), page.Next, a.body)
			}
			if tc.count == 0 {
				return
			}
			e := page.Games[0]
			r, _ := e.Rating.Get()
			opp, _ := e.Opponent.Get()
			if e.GameId != g.Id || !e.Rated || e.Result != tc.result || r.Change != tc.change || r.After-r.Before != r.Change ||
				e.Category.MustGet() != oapi.GameCategoryLive || e.Ai || opp.Id == tc.player {
				t.Fatalf("entry %+v (rating %+v, opponent %+v)", e, r, opp)
			}
		})
	}

	// An aborted rated game: joined, then nobody moves within the first
	// move's window. A read after it ends the game; nothing is rated or
	// counted.
	aborted, _ := gs.ratedGame(bisiToken, adaToken)
	clock.Advance(games.DefaultFirstMove + time.Second)
	a = gs.must(http.MethodGet, "/v1/games/"+aborted.Id, "", nil, nil)
	gs.expect(a, http.StatusOK, "")
	var after oapi.Game
	a.decode(t, &after)
	sp, _ = after.Players.South.Get()
	if after.Status != oapi.GameStatusAborted || !sp.Change.IsNull() {
		t.Fatalf("the abandoned game: %s, south %+v", after.Status, sp)
	}
	check("after an aborted game")
	a = gs.must(http.MethodGet, "/v1/players/"+ada.Id+"/games", "", nil, nil)
	var page oapi.PlayerGamesPage
	a.decode(t, &page)
	if len(page.Games) != 1 {
		t.Fatalf("the aborted game is listed: %s", a.body)
	}
}

// TestPlayerGamesPages: a history pages through with next, newest first.
func TestPlayerGamesPages(t *testing.T) {
	clock := playersClock()
	gs := newPlayersServer(t, clock, Options{}, false)
	ada, adaToken := gs.newPlayer("Ada")
	_, bisiToken := gs.newPlayer("Bisi")
	var ids []string
	for range 5 {
		g, seats := gs.ratedGame(adaToken, bisiToken)
		// Both sides move first: before that, a resignation aborts.
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[0], map[string]any{"ply": 0, "pit": 0}, nil), 201, "")
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[1], map[string]any{"ply": 1, "pit": 6}, nil), 201, "")
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", seats[0], nil, nil), 200, "")
		ids = append([]string{g.Id}, ids...)
		clock.Advance(time.Minute)
	}
	var got []string
	path := "/v1/players/" + ada.Id + "/games?limit=2"
	for range 4 {
		a := gs.must(http.MethodGet, path, "", nil, nil)
		gs.expect(a, http.StatusOK, "")
		var page oapi.PlayerGamesPage
		a.decode(t, &page)
		for _, e := range page.Games {
			got = append(got, e.GameId)
		}
		next, err := page.Next.Get()
		if err != nil {
			break
		}
		path = "/v1/players/" + ada.Id + "/games?limit=2&after=" + next
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("pages %v, want %v", got, ids)
	}
}

// TestPlayerLeaderboard: provisional players are on no leaderboard; once
// enough rated games bring both players' deviations to 110 or below, the
// live leaderboard ranks them, and the others stay empty.
func TestPlayerLeaderboard(t *testing.T) {
	clock := playersClock()
	gs := newPlayersServer(t, clock, Options{}, false)
	ada, adaToken := gs.newPlayer("Ada")
	bisi, bisiToken := gs.newPlayer("Bisi")
	board := func(c string) oapi.Leaderboard {
		t.Helper()
		a := gs.must(http.MethodGet, "/v1/leaderboards/"+c, "", nil, nil)
		gs.expect(a, http.StatusOK, "")
		var l oapi.Leaderboard
		a.decode(t, &l)
		return l
	}
	if l := board("live"); len(l.Players) != 0 || l.Category != oapi.RatingCategoryLive {
		t.Fatalf("before any game: %+v", l)
	}
	games := 0
	for ; games < 60; games++ {
		g, seats := gs.ratedGame(adaToken, bisiToken)
		// Ada (South, the creator) wins two of three, so the ratings part.
		loser := seats[1]
		if games%3 == 2 {
			loser = seats[0]
		}
		// Both sides move first: before that, a resignation aborts.
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[0], map[string]any{"ply": 0, "pit": 0}, nil), 201, "")
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[1], map[string]any{"ply": 1, "pit": 6}, nil), 201, "")
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", loser, nil, nil), 200, "")
		a, b := gs.player(ada.Id), gs.player(bisi.Id)
		if games < 2 && len(board("live").Players) != 0 {
			t.Fatalf("provisional players on the board after %d games", games+1)
		}
		if !a.Ratings.Live.Provisional && !b.Ratings.Live.Provisional {
			break
		}
	}
	l := board("live")
	if len(l.Players) != 2 || l.Players[0].Id != ada.Id || l.Players[0].Rank != 1 || l.Players[1].Rank != 2 ||
		l.Players[0].Rating <= l.Players[1].Rating || l.Players[0].Deviation > 110 || l.Players[0].Games != games+1 {
		t.Fatalf("after %d games: %+v", games+1, l)
	}
	for _, c := range []string{"correspondence", "puzzle"} {
		if l := board(c); len(l.Players) != 0 {
			t.Fatalf("%s: %+v", c, l)
		}
	}
}

// solution returns the solver's moves of a puzzle's line.
func (gs *gamesServer) solution(id string) []int {
	gs.t.Helper()
	a := gs.must(http.MethodGet, "/v1/puzzles/"+id+"/solution", "", nil, nil)
	gs.expect(a, http.StatusOK, "")
	var sol oapi.PuzzleSolution
	a.decode(gs.t, &sol)
	var moves []int
	for _, s := range sol.Solution {
		if !s.Reply {
			moves = append(moves, s.Pit)
		}
	}
	return moves
}

// TestPlayerPuzzleAttempts: a player's first attempt at the daily puzzle
// is rated, its second not; an anonymous one never; the player's puzzle
// rating, counts, streak and history follow.
func TestPlayerPuzzleAttempts(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	ada, adaToken := gs.newPlayer("Ada")
	a := gs.must(http.MethodGet, "/v1/puzzles/daily", "", nil, nil)
	gs.expect(a, http.StatusOK, "")
	var daily oapi.Puzzle
	a.decode(t, &daily)
	if want := int(puzzles.Calibration(daily.Difficulty).Value); daily.Rating != want {
		t.Fatalf("an unplayed puzzle of difficulty %d rated %d, want its calibration %d", daily.Difficulty, daily.Rating, want)
	}
	moves := gs.solution(daily.Id)
	attempts := "/v1/puzzles/" + daily.Id + "/attempts"

	var first oapi.PuzzleAttemptAnswer
	for _, tc := range []struct {
		name   string
		token  string
		status int
		code   string
		rated  bool
	}{
		{"anonymous", "", 200, "", false},
		{"an unknown token", "pl_nobody", 401, "player_unauthorized", false},
		{"the player's first", adaToken, 200, "", true},
		{"the player's second", adaToken, 200, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h map[string]string
			if tc.token != "" {
				h = asPlayer(tc.token)
			}
			a := gs.must(http.MethodPost, attempts, "", map[string]any{"moves": moves}, h)
			gs.expect(a, tc.status, tc.code)
			if tc.status != 200 {
				return
			}
			var ans oapi.PuzzleAttemptAnswer
			a.decode(t, &ans)
			if !ans.Correct || !ans.Complete || ans.Rated != tc.rated || ans.Rating.IsNull() == tc.rated {
				t.Fatalf("answer %s", a.body)
			}
			if tc.rated {
				first = ans
			}
		})
	}
	r := first.Rating.MustGet()
	if r.Player.Before != 1500 || r.Player.Change <= 0 || r.Puzzle.Change >= 0 || r.Puzzle.Before != daily.Rating {
		t.Fatalf("a solve: %+v", r)
	}
	p := gs.player(ada.Id)
	if p.Ratings.Puzzle.Rating != r.Player.After || p.Ratings.Puzzle.Games != 1 || p.Counts.Puzzles != 1 || p.Counts.Solved != 1 || p.Streak != 1 {
		t.Fatalf("the player after: %+v", p)
	}
	// The puzzle's rating moved with the rated attempt only.
	a = gs.must(http.MethodGet, "/v1/puzzles/"+daily.Id, "", nil, nil)
	var again oapi.Puzzle
	a.decode(t, &again)
	if again.Rating != r.Puzzle.After {
		t.Fatalf("the puzzle's rating %d, want %d", again.Rating, r.Puzzle.After)
	}
	a = gs.must(http.MethodGet, "/v1/players/"+ada.Id+"/puzzles", "", nil, nil)
	gs.expect(a, http.StatusOK, "")
	var page oapi.PlayerPuzzlesPage
	a.decode(t, &page)
	if len(page.Attempts) != 1 || page.Streak != 1 || page.Attempts[0].PuzzleId != daily.Id || !page.Attempts[0].Solved ||
		page.Attempts[0].Daily.MustGet() != daily.Date.MustGet() || page.Attempts[0].Rating != r.Player {
		t.Fatalf("history %s", a.body)
	}
}

// TestPlayerPracticeNear: near=me needs a player, picks a grade whose
// calibration is near the player's puzzle rating, and never a puzzle the
// player attempted.
func TestPlayerPracticeNear(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, true)
	ada, token := gs.newPlayer("Ada")
	gs.expect(gs.must(http.MethodGet, "/v1/puzzles/practice?near=me", "", nil, nil), 401, "player_unauthorized")
	gs.expect(gs.must(http.MethodGet, "/v1/puzzles/practice?near=me", "", nil, asPlayer("pl_nobody")), 401, "player_unauthorized")
	gs.expect(gs.must(http.MethodGet, "/v1/puzzles/practice?near=you", "", nil, asPlayer(token)), 400, "invalid_request")

	seen := map[string]bool{}
	after := ""
	for i := range 12 {
		path := "/v1/puzzles/practice?near=me&goal=max_capture"
		if after != "" {
			path += "&after=" + after
		}
		rating := gs.player(ada.Id).Ratings.Puzzle.Rating
		a := gs.must(http.MethodGet, path, "", nil, asPlayer(token))
		gs.expect(a, http.StatusOK, "")
		var p oapi.Puzzle
		a.decode(t, &p)
		// Near: the grade's calibration is within 250 of the rating (a new
		// player's 1500 allows grades 2 and 3; each given-up attempt
		// lowers it).
		if gap := puzzles.Calibration(p.Difficulty).Value - float64(rating); (gap > 251 || gap < -251) && (p.Difficulty != 1 || rating > 1100) {
			t.Fatalf("answer %d: difficulty %d (%v) for a rating of %d", i, p.Difficulty, puzzles.Calibration(p.Difficulty).Value, rating)
		}
		if seen[p.Id] {
			t.Fatalf("answer %d: %s again, attempted already", i, p.Id)
		}
		seen[p.Id] = true
		// Attempt it, so that near=me must pass over it from now on.
		a = gs.must(http.MethodPost, "/v1/puzzles/"+p.Id+"/attempts", "", map[string]any{"moves": []int{}, "giveUp": true}, asPlayer(token))
		gs.expect(a, http.StatusOK, "")
		var ans oapi.PuzzleAttemptAnswer
		a.decode(t, &ans)
		if !ans.Rated {
			t.Fatalf("the first attempt at %s was not rated: %s", p.Id, a.body)
		}
		// Every other answer starts afresh, where a walk may meet an
		// attempted puzzle again.
		if i%2 == 0 {
			after = p.Id
		} else {
			after = ""
		}
	}
}

// lockedBuffer is a log destination the server's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPlayerTokenNeverLogged: whatever a request does with a player token,
// the log never holds it, at any level, refusals included.
func TestPlayerTokenNeverLogged(t *testing.T) {
	var logs lockedBuffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	gs := newPlayersServer(t, playersClock(), Options{Logger: log}, false)
	ada, token := gs.newPlayer("Ada")
	_, other := gs.newPlayer("Bisi")
	tokens := []string{token, other}

	gs.expect(gs.must(http.MethodPatch, "/v1/players/"+ada.Id, "", map[string]any{"name": "Ada L."}, asPlayer(token)), 200, "")
	gs.expect(gs.must(http.MethodPatch, "/v1/players/"+ada.Id, "", map[string]any{"name": "Ada L."}, asPlayer(other)), 403, "not_your_player")
	gs.expect(gs.must(http.MethodPatch, "/v1/players/"+ada.Id, "", map[string]any{"name": "a\u0007"}, asPlayer(token)), 422, "invalid_player_name")
	a := gs.must(http.MethodGet, "/v1/puzzles/daily", "", nil, nil)
	var daily oapi.Puzzle
	a.decode(t, &daily)
	gs.expect(gs.must(http.MethodPost, "/v1/puzzles/"+daily.Id+"/attempts", "", map[string]any{"moves": []int{0}}, asPlayer(token)), 200, "")
	gs.expect(gs.must(http.MethodPost, "/v1/games", "", ratedLive, asPlayer(token)), 201, "")
	r := gs.must(http.MethodPost, "/v1/players/"+ada.Id+"/token", "", nil, asPlayer(token))
	gs.expect(r, http.StatusOK, "")
	var rot oapi.RotatedToken
	r.decode(t, &rot)
	tokens = append(tokens, rot.Token)
	gs.expect(gs.must(http.MethodDelete, "/v1/players/"+ada.Id, "", nil, asPlayer(token)), 401, "player_unauthorized")
	gs.expect(gs.must(http.MethodDelete, "/v1/players/"+ada.Id, "", nil, asPlayer(rot.Token)), 204, "")

	out := logs.String()
	if strings.Count(out, `"msg":"request"`) < 10 {
		t.Fatalf("the log has too few request lines to mean anything:\n%s", out)
	}
	for _, tok := range tokens {
		if strings.Contains(out, tok) || strings.Contains(out, strings.TrimPrefix(tok, "pl_")) {
			t.Fatalf("the log holds a player token:\n%s", out)
		}
	}
}

// TestPlayerTokenCORS: a browser on another origin may send Player-Token.
func TestPlayerTokenCORS(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{CORSOrigins: []string{"https://app.example"}}, false)
	gs.trust = true // a preflight is no operation of the document
	a := gs.must(http.MethodOptions, "/v1/players/x", "", nil, map[string]string{
		"Origin": "https://app.example", "Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "player-token,content-type"})
	if got := strings.ToLower(a.header.Get("Access-Control-Allow-Headers")); !strings.Contains(got, "player-token") {
		t.Fatalf("preflight: %d, Access-Control-Allow-Headers %q", a.status, got)
	}
}

// TestPlayerCreateRateLimit: player creations are limited per address.
func TestPlayerCreateRateLimit(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{RateLimits: RateLimits{"player-create": {Rate: 1, Burst: 2}}}, false)
	gs.newPlayer("one")
	gs.newPlayer("two")
	a := gs.must(http.MethodPost, "/v1/players", "", map[string]any{"name": "three"}, nil)
	gs.expect(a, http.StatusTooManyRequests, "rate_limited")
	if a.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
}

// TestPlayerProblems: the players' errors and the new game and rating
// errors answer with the kinds and codes they are declared with.
func TestPlayerProblems(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   string
		retry  int
	}{
		{players.ErrNotFound, 404, "player_not_found", 0},
		{players.ErrUnauthorized, 401, "player_unauthorized", 0},
		{players.ErrForbidden, 403, "not_your_player", 0},
		{players.ErrInvalidName, 422, "invalid_player_name", 0},
		{players.ErrInvalidCursor, 400, "invalid_cursor", 0},
		{games.ErrRatedNotAllowed, 422, "rated_not_allowed", 0},
		{players.ErrRatingsChanged, 503, "ratings_busy", 1},
	} {
		t.Run(tc.code, func(t *testing.T) {
			p, row := problemOf(fmt.Errorf("%w: wrapped", tc.err))
			if p.Status != tc.status || p.Code != tc.code || row.RetryAfter != tc.retry {
				t.Fatalf("%v: %d %s retry %d", tc.err, p.Status, p.Code, row.RetryAfter)
			}
		})
	}
}
