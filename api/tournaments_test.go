package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
	"github.com/ayoayo/ayoayo/tournaments"
)

// tournamentServer serves games, players, the lobby and the tournaments
// over one memory store, with the clock the test drives, wired as
// cmd/ayoayo wires them; every answer is checked against the document.
type tournamentServer struct {
	*gamesServer
	svc *tournaments.Service
}

// lobbyNews passes tournament news on as lobby events, as cmd/ayoayo does.
type lobbyNews struct{ lob *lobby.Service }

func (n lobbyNews) Tournament(ctx context.Context, news []tournaments.News) {
	for _, x := range news {
		n.lob.Emit(ctx, lobby.Event{Stream: lobby.TournamentStream(x.Tournament), Kind: lobby.EventKind(x.Kind),
			GameID: x.GameID, TournamentID: x.Tournament, At: x.At})
	}
}

func (n lobbyNews) TournamentGame(ctx context.Context, player, tournament, gameID string, side engine.Side, at time.Time) {
	n.lob.Emit(ctx, lobby.Event{Stream: player, Kind: lobby.EventTournamentGame, GameID: gameID, Side: side,
		TournamentID: tournament, At: at})
}

func newTournamentServer(t *testing.T, clock *gamestest.Clock) *tournamentServer {
	t.Helper()
	st := memory.New()
	gs := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, Now: clock.Now})
	lob := lobby.NewService(st, lobby.Options{Games: gs, Now: clock.Now})
	svc := tournaments.NewService(st, tournaments.Options{Games: gs, Notify: lobbyNews{lob}, Now: clock.Now})
	gs.OnEnded(endAll{lob, svc})
	e, err := testNew(t, Options{Games: gs, Players: players.NewService(st, clock.Now), Lobby: lob, Tournaments: svc,
		EventHeartbeat: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return &tournamentServer{gamesServer: &gamesServer{t: t, ts: ts, st: st, client: ts.Client(), router: specRouter(t)}, svc: svc}
}

// endAll tells each of its notifiers of a game's end.
type endAll []games.EndNotifier

func (e endAll) Ended(ctx context.Context, g games.Game) {
	for _, n := range e {
		n.Ended(ctx, g)
	}
}

func TestTournamentsOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	ts := newTournamentServer(t, clock)
	org, orgToken := ts.newPlayer("Org")
	_, ann := ts.newPlayer("Ann")
	_, bob := ts.newPlayer("Bob")
	arena := map[string]any{"kind": "arena", "name": "Blitz Arena", "minutes": 30, "timeControl": blitzAPI, "berserk": true}

	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"no body's name", map[string]any{"kind": "arena", "minutes": 30, "timeControl": blitzAPI}, 400, "invalid_request"},
		{"a kind unknown", map[string]any{"kind": "knockout", "name": "K", "minutes": 30, "timeControl": blitzAPI}, 400, "invalid_request"},
		{"a start in the past", with(arena, "startsAt", clock.Now().Add(-time.Hour).Format(time.RFC3339)), 422, "tournament_start_in_past"},
		{"an arena of rounds", with(arena, "rounds", 3), 422, "invalid_tournament"},
		{"correspondence", with(arena, "timeControl", map[string]any{"kind": "correspondence", "daysPerMove": 1}), 422, "invalid_tournament"},
		{"an unknown field", with(arena, "prize", 100), 400, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts.expect(ts.must(http.MethodPost, "/v1/tournaments", "", tc.body, asPlayer(orgToken)), tc.status, tc.code)
		})
	}
	ts.expect(ts.must(http.MethodPost, "/v1/tournaments", "", arena, nil), http.StatusUnauthorized, "player_unauthorized")

	a := ts.must(http.MethodPost, "/v1/tournaments", "", with(arena, "startsAt", clock.Now().Add(time.Minute).Format(time.RFC3339)), asPlayer(orgToken))
	ts.expect(a, http.StatusCreated, "")
	var tr oapi.Tournament
	a.decode(t, &tr)
	if a.header.Get("Location") != "/v1/tournaments/"+tr.Id || tr.Status != oapi.TournamentStatusUpcoming || tr.CreatedBy != org.Id {
		t.Fatalf("created %+v at %q", tr, a.header.Get("Location"))
	}
	var list oapi.TournamentList
	ts.must(http.MethodGet, "/v1/tournaments?status=upcoming", "", nil, nil).decode(t, &list)
	if len(list.Tournaments) != 1 || list.Tournaments[0].Tournament.Id != tr.Id {
		t.Fatalf("upcoming list %+v", list)
	}

	path := "/v1/tournaments/" + tr.Id
	for _, p := range []string{ann, bob} {
		ts.expect(ts.must(http.MethodPost, path+"/join", "", nil, asPlayer(p)), http.StatusOK, "")
	}
	ts.expect(ts.must(http.MethodPost, path+"/join", "", nil, asPlayer(ann)), http.StatusConflict, "tournament_already_joined")
	ts.expect(ts.must(http.MethodPost, path+"/withdraw", "", nil, asPlayer(orgToken)), http.StatusConflict, "tournament_not_joined")
	ts.expect(ts.must(http.MethodPost, "/v1/tournaments/nothing/join", "", nil, asPlayer(ann)), http.StatusNotFound, "tournament_not_found")

	events, stop := sseLines(t, ts.gamesServer, path+"/events", map[string]string{"Last-Event-ID": "0"})
	defer stop()
	annEvents, stopAnn := sseLines(t, ts.gamesServer, "/v1/players/me/events", map[string]string{"Last-Event-ID": "0", PlayerTokenHeader: ann})
	defer stopAnn()

	clock.Advance(time.Minute)
	if err := ts.svc.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, events, "standings", "standings", "started", "paired")
	got := expectEvents(t, annEvents, "tournamentGame")
	var made oapi.PlayerTournamentGameEvent
	if err := json.Unmarshal([]byte(got[0]), &made); err != nil || made.TournamentId != tr.Id || made.GameId == "" {
		t.Fatalf("tournamentGame %s (%v)", got[0], err)
	}
	var gamesList oapi.TournamentGames
	ts.must(http.MethodGet, path+"/games", "", nil, nil).decode(t, &gamesList)
	if len(gamesList.Games) != 1 || gamesList.Games[0].Id != made.GameId || gamesList.Games[0].Done {
		t.Fatalf("games %+v", gamesList)
	}
	b := ts.must(http.MethodPost, "/v1/games/"+made.GameId+"/berserk", "", nil, asPlayer(ann))
	ts.expect(b, http.StatusOK, "")
	var bz oapi.BerserkAnswer
	b.decode(t, &bz)
	if string(bz.Side) != string(made.Side) || bz.ClockMs != 90_000 {
		t.Errorf("berserk %+v, want %s's clock halved to 90 s", bz, made.Side)
	}
	ts.expect(ts.must(http.MethodPost, "/v1/games/"+made.GameId+"/berserk", "", nil, asPlayer(ann)), http.StatusConflict, "berserk_not_possible")

	ts.expect(ts.must(http.MethodPost, "/v1/games/"+made.GameId+"/resign", "", nil, asPlayer(ann)), http.StatusOK, "")
	expectEvents(t, events, "gameFinished", "standings")
	recs := ts.must(http.MethodGet, path+"/games", "", nil, map[string]string{"Accept": "application/x-ayoayo-record"})
	ts.expect(recs, http.StatusOK, "")
	if text := string(recs.body); !strings.HasPrefix(text, `[Event "Blitz Arena"]`) || !strings.Contains(text, `[Site "/v1/games/`+made.GameId+`"]`) ||
		!strings.Contains(text, `[Termination "resignation"]`) || recs.header.Get("Vary") != "Accept" {
		t.Fatalf("the games as records (Vary %q):\n%s", recs.header.Get("Vary"), text)
	}
	var view oapi.TournamentView
	ts.must(http.MethodGet, path+"?perPage=1", "", nil, nil).decode(t, &view)
	if view.Players != 2 || len(view.Standings) != 1 || view.Standings[0].Points != 2 || view.Standings[0].Player.Name != "Bob" {
		t.Fatalf("the first page of one line: %+v", view)
	}
	ts.must(http.MethodGet, path+"?perPage=1&page=2", "", nil, nil).decode(t, &view)
	if len(view.Standings) != 1 || view.Standings[0].Player.Name != "Ann" || view.Standings[0].Rank != 2 {
		t.Fatalf("the second page: %+v", view.Standings)
	}
	res := ts.must(http.MethodGet, path+"/results", "", nil, nil)
	ts.expect(res, http.StatusOK, "")
	lines := bytes.Split(bytes.TrimSpace(res.body), []byte("\n"))
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") || len(lines) != 2 {
		t.Fatalf("results %s: %q", ct, res.body)
	}
	var first oapi.TournamentStanding
	if err := json.Unmarshal(lines[0], &first); err != nil || first.Player.Name != "Bob" || first.Points != 2 {
		t.Fatalf("results' first line %s (%v)", lines[0], err)
	}

	ts.expect(ts.must(http.MethodPost, path+"/withdraw", "", nil, asPlayer(bob)), http.StatusOK, "")
	ts.expect(ts.must(http.MethodPost, path+"/withdraw", "", nil, asPlayer(bob)), http.StatusConflict, "tournament_not_joined")
	clock.Advance(30 * time.Minute)
	if err := ts.svc.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, events, "standings", "finished")
	ts.expect(ts.must(http.MethodPost, path+"/join", "", nil, asPlayer(bob)), http.StatusConflict, "tournament_finished")
	ts.must(http.MethodGet, "/v1/tournaments?status=finished", "", nil, nil).decode(t, &list)
	if len(list.Tournaments) != 1 || list.Tournaments[0].Players != 2 || list.Tournaments[0].Tournament.FinishedAt.IsNull() {
		t.Fatalf("finished list %+v", list)
	}
}

func TestBulkPairingOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	ts := newTournamentServer(t, clock)
	_, org := ts.newPlayer("Org")
	ann, annToken := ts.newPlayer("Ann")
	bob, bobToken := ts.newPlayer("Bob")
	pair := map[string]any{"south": ann.Id, "southToken": annToken, "north": bob.Id, "northToken": bobToken}
	body := func(p map[string]any) map[string]any {
		return map[string]any{"timeControl": blitzAPI, "pairs": []any{p}}
	}
	ts.expect(ts.must(http.MethodPost, "/v1/bulk-pairings", "", body(with(pair, "northToken", annToken)), asPlayer(org)),
		http.StatusForbidden, "bulk_pairing_player_refused")
	ts.expect(ts.must(http.MethodPost, "/v1/bulk-pairings", "", body(with(pair, "north", "nobody")), asPlayer(org)),
		http.StatusForbidden, "bulk_pairing_player_refused")
	ts.expect(ts.must(http.MethodPost, "/v1/bulk-pairings", "", body(with(pair, "north", ann.Id)), asPlayer(org)),
		http.StatusUnprocessableEntity, "invalid_bulk_pairing")
	ts.expect(ts.must(http.MethodPost, "/v1/bulk-pairings", "", map[string]any{"timeControl": blitzAPI, "pairs": []any{}}, asPlayer(org)),
		http.StatusBadRequest, "invalid_request")
	a := ts.must(http.MethodPost, "/v1/bulk-pairings", "", with(body(pair), "clockStartsAt", clock.Now().Add(time.Hour).Format(time.RFC3339)), asPlayer(org))
	ts.expect(a, http.StatusCreated, "")
	var bp oapi.BulkPairing
	a.decode(t, &bp)
	if len(bp.Games) != 1 || bp.Games[0].South != ann.Id {
		t.Fatalf("bulk pairing %+v", bp)
	}
	var read oapi.BulkPairing
	ts.must(http.MethodGet, "/v1/bulk-pairings/"+bp.Id, "", nil, nil).decode(t, &read)
	if read.Games[0].Id != bp.Games[0].Id {
		t.Fatalf("read back %+v", read)
	}
	ts.expect(ts.must(http.MethodPost, "/v1/games/"+bp.Games[0].Id+"/moves", "", map[string]any{"ply": 0, "pit": 2}, asPlayer(annToken)),
		http.StatusConflict, "clock_not_started")
	ts.expect(ts.must(http.MethodGet, "/v1/bulk-pairings/nothing", "", nil, nil), http.StatusNotFound, "bulk_pairing_not_found")
}

// with returns a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}

// expectEvents reads the next events of a stream, which must be want in
// order, and returns their data lines.
func expectEvents(t *testing.T, lines <-chan string, want ...string) []string {
	t.Helper()
	var data []string
	for _, w := range want {
		name, d := nextEvent(t, lines)
		if name != w {
			t.Fatalf("event %s (%s), want %s", name, d, w)
		}
		data = append(data, d)
	}
	return data
}
