package api

import (
	"bufio"
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
)

// newLobbyServer serves games, players and the lobby over one memory
// store, with the clock the test drives; every answer is checked against
// the document.
func newLobbyServer(t *testing.T, clock *gamestest.Clock) *gamesServer {
	t.Helper()
	st := memory.New()
	gs := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, Now: clock.Now})
	lob := lobby.NewService(st, lobby.Options{Games: gs, Now: clock.Now})
	gs.OnEnded(lob) // its players hear gameFinish, as cmd/ayoayo wires it
	e, err := testNew(t, Options{Games: gs, Players: players.NewService(st, clock.Now), Lobby: lob, EventHeartbeat: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return &gamesServer{t: t, ts: ts, st: st, client: ts.Client(), router: specRouter(t)}
}

var blitzAPI = map[string]any{"kind": "clock", "initialSeconds": 180, "incrementSeconds": 2}

func TestSeeksOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	_, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")

	a := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI, "rated": true, "seat": "north"}, asPlayer(ann))
	gs.expect(a, http.StatusCreated, "")
	var first oapi.Seek
	a.decode(t, &first)
	if first.Status != oapi.SeekStatusOpen || a.header.Get("Location") != "/v1/seeks/"+first.Id || first.Game.IsSpecified() && !first.Game.IsNull() {
		t.Fatalf("the first seek: %+v at %q", first, a.header.Get("Location"))
	}
	l := gs.must(http.MethodGet, "/v1/lobby?kind=clock&rated=true", "", nil, nil)
	gs.expect(l, http.StatusOK, "")
	var page oapi.Lobby
	l.decode(t, &page)
	if len(page.Seeks) != 1 || page.Seeks[0].Player.Name != "Ann" || page.Seeks[0].Rating != 1500 || !page.Seeks[0].Provisional {
		t.Fatalf("the lobby: %+v", page)
	}
	if l := gs.must(http.MethodGet, "/v1/lobby?kind=correspondence", "", nil, nil); !strings.Contains(string(l.body), `"seeks":[]`) {
		t.Errorf("the correspondence lobby: %s", l.body)
	}

	clock.Advance(time.Second)
	b := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI, "rated": true}, asPlayer(bob))
	gs.expect(b, http.StatusCreated, "")
	var second oapi.Seek
	b.decode(t, &second)
	game, _ := second.Game.Get()
	side, _ := second.Side.Get()
	if second.Status != oapi.SeekStatusMatched || game == "" || side != oapi.NullableSideSouth {
		t.Fatalf("the second seek: %+v", second)
	}
	r := gs.must(http.MethodGet, "/v1/seeks/"+first.Id, "", nil, asPlayer(ann))
	gs.expect(r, http.StatusOK, "")
	var got oapi.Seek
	r.decode(t, &got)
	if g, _ := got.Game.Get(); got.Status != oapi.SeekStatusMatched || g != game {
		t.Errorf("ann's seek after: %+v", got)
	}
	gr := gs.must(http.MethodGet, "/v1/games/"+game, "", nil, nil)
	gs.expect(gr, http.StatusOK, "")
	if !strings.Contains(string(gr.body), `"status":"active"`) || !strings.Contains(string(gr.body), `"name":"Ann"`) {
		t.Errorf("the paired game: %s", gr.body)
	}
	gs.expect(gs.must(http.MethodDelete, "/v1/seeks/"+first.Id, "", nil, asPlayer(ann)), http.StatusConflict, "seek_closed")
	gs.expect(gs.must(http.MethodGet, "/v1/seeks/"+first.Id, "", nil, asPlayer(bob)), http.StatusForbidden, "not_your_seek")
}

// TestLobbyRefusals: each bad request is a 4xx problem with a code of its
// own, and changes nothing.
func TestLobbyRefusals(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	annP, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")
	mail := map[string]any{"kind": "correspondence", "daysPerMove": 3}
	open := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": mail}, asPlayer(ann))
	gs.expect(open, http.StatusCreated, "")
	var seek oapi.Seek
	open.decode(t, &seek)
	c := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": annP.Id, "timeControl": blitzAPI}, asPlayer(bob))
	gs.expect(c, http.StatusCreated, "")
	var ch oapi.Challenge
	c.decode(t, &ch)
	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		code                      string
	}{
		{"seek without a player", http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, 401, "player_unauthorized"},
		{"seek untimed", http.MethodPost, "/v1/seeks", bob, map[string]any{"timeControl": nil}, 422, "time_control_required"},
		{"seek an unknown time control", http.MethodPost, "/v1/seeks", bob, map[string]any{"timeControl": map[string]any{"kind": "blitz"}}, 400, "invalid_request"},
		{"seek an impossible clock", http.MethodPost, "/v1/seeks", bob, map[string]any{"timeControl": map[string]any{"kind": "clock", "initialSeconds": 0}}, 422, "invalid_time_control"},
		{"seek min above max", http.MethodPost, "/v1/seeks", bob, map[string]any{"timeControl": blitzAPI, "ratingRange": map[string]any{"min": 1800, "max": 1500}}, 422, "invalid_rating_range"},
		{"seek a seat that is none", http.MethodPost, "/v1/seeks", bob, map[string]any{"timeControl": blitzAPI, "seat": "east"}, 400, "invalid_request"},
		{"seek twice", http.MethodPost, "/v1/seeks", ann, map[string]any{"timeControl": mail}, 409, "too_many_seeks"},
		{"another's seek", http.MethodDelete, "/v1/seeks/" + seek.Id, bob, nil, 403, "not_your_seek"},
		{"no such seek", http.MethodGet, "/v1/seeks/nothing", bob, nil, 404, "seek_not_found"},
		{"challenge oneself", http.MethodPost, "/v1/challenges", ann, map[string]any{"to": annP.Id, "timeControl": blitzAPI}, 422, "self_challenge"},
		{"challenge nobody", http.MethodPost, "/v1/challenges", ann, map[string]any{"to": "nobody", "timeControl": blitzAPI}, 404, "player_not_found"},
		{"a rated game from a position", http.MethodPost, "/v1/challenges", ann, map[string]any{"timeControl": blitzAPI, "rated": true,
			"position": map[string]any{"pits": []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, "captured": map[string]any{"south": 0, "north": 0}, "toMove": "north"}}, 422, "rated_not_allowed"},
		{"accept one's own", http.MethodPost, "/v1/challenges/" + ch.Id + "/accept", bob, nil, 422, "self_challenge"},
		{"cancel another's", http.MethodDelete, "/v1/challenges/" + ch.Id, ann, nil, 403, "not_your_challenge"},
		{"decline for no reason known", http.MethodPost, "/v1/challenges/" + ch.Id + "/decline", ann, map[string]any{"reason": "boring"}, 400, "invalid_request"},
		{"no such challenge", http.MethodPost, "/v1/challenges/nothing/accept", ann, nil, 404, "challenge_not_found"},
		{"a rematch of nothing", http.MethodPost, "/v1/games/nothing/rematch", ann, nil, 404, "not_found"},
		{"a bad ticket", http.MethodGet, "/v1/players/me/events?ticket=st_nothing", "", nil, 401, "invalid_stream_ticket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var header map[string]string
			if tc.token != "" {
				header = asPlayer(tc.token)
			}
			gs.expect(gs.must(tc.method, tc.path, "", tc.body, header), tc.status, tc.code)
			l := gs.must(http.MethodGet, "/v1/lobby", "", nil, nil)
			if strings.Count(string(l.body), `"id":"`) != 2 { // the seek and its owner
				t.Errorf("the lobby changed: %s", l.body)
			}
			if got := gs.must(http.MethodGet, "/v1/challenges/"+ch.Id, "", nil, nil); !strings.Contains(string(got.body), `"status":"pending"`) {
				t.Errorf("the challenge changed: %s", got.body)
			}
		})
	}
}

// TestAcceptWhilePlaying: a clock challenge is not accepted while its
// challenger or its acceptor plays a clock game (409
// challenge_player_playing, the challenge stays pending); a correspondence
// one is.
func TestAcceptWhilePlaying(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	annP, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")
	cidP, cid := gs.newPlayer("Cid")
	gs.expect(gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(ann)), http.StatusCreated, "")
	paired := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(bob))
	if !strings.Contains(string(paired.body), `"status":"matched"`) {
		t.Fatalf("ann and bob's clock game: %s", paired.body)
	}
	mail := map[string]any{"kind": "correspondence", "daysPerMove": 3}
	for _, tc := range []struct {
		name             string
		from, to, by     string
		toID             string
		timeControl      any
		status           int
		code, afterwards string
	}{
		{"the acceptor plays a clock game", cid, annP.Id, ann, annP.Id, blitzAPI, 409, "challenge_player_playing", "pending"},
		{"the challenger plays a clock game", ann, cidP.Id, cid, cidP.Id, blitzAPI, 409, "challenge_player_playing", "pending"},
		{"correspondence while playing", ann, cidP.Id, cid, cidP.Id, mail, 200, "", "accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": tc.toID, "timeControl": tc.timeControl}, asPlayer(tc.from))
			gs.expect(c, http.StatusCreated, "")
			var ch oapi.Challenge
			c.decode(t, &ch)
			gs.expect(gs.must(http.MethodPost, "/v1/challenges/"+ch.Id+"/accept", "", nil, asPlayer(tc.by)), tc.status, tc.code)
			if got := gs.must(http.MethodGet, "/v1/challenges/"+ch.Id, "", nil, nil); !strings.Contains(string(got.body), `"status":"`+tc.afterwards+`"`) {
				t.Errorf("the challenge afterwards: %s, want %s", got.body, tc.afterwards)
			}
		})
	}
}

// sseLines reads an event stream's lines into a channel.
func sseLines(t *testing.T, gs *gamesServer, path string, header map[string]string) (<-chan string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, gs.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := gs.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines, cancel
}

// nextEvent returns the next event's name and data line.
func nextEvent(t *testing.T, lines <-chan string) (string, string) {
	t.Helper()
	var event string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended")
			}
			if name, ok := strings.CutPrefix(l, "event: "); ok {
				event = name
			}
			if data, ok := strings.CutPrefix(l, "data: "); ok && event != "" {
				return event, data
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no event in 10 s")
		}
	}
}

func TestPlayerStreamOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	annP, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")
	gs.expect(gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(ann)), http.StatusCreated, "")

	tk := gs.must(http.MethodPost, "/v1/players/me/events/tickets", "", nil, asPlayer(ann))
	gs.expect(tk, http.StatusCreated, "")
	var ticket oapi.StreamTicket
	tk.decode(t, &ticket)
	lines, stop := sseLines(t, gs, "/v1/players/me/events?ticket="+ticket.Ticket, nil)
	defer stop()
	if ev, data := nextEvent(t, lines); ev != "seek" || !strings.Contains(data, `"status":"open"`) {
		t.Fatalf("first frame: %s %s", ev, data)
	}
	// The ticket opened one stream: it opens no other.
	gs.expect(gs.must(http.MethodGet, "/v1/players/me/events?ticket="+ticket.Ticket, "", nil, nil), http.StatusUnauthorized, "invalid_stream_ticket")

	c := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": annP.Id, "timeControl": blitzAPI}, asPlayer(bob))
	gs.expect(c, http.StatusCreated, "")
	if ev, data := nextEvent(t, lines); ev != "challenge" || !strings.Contains(data, `"name":"Bob"`) {
		t.Fatalf("after a challenge: %s %s", ev, data)
	}
	var ch oapi.Challenge
	c.decode(t, &ch)
	gs.expect(gs.must(http.MethodPost, "/v1/challenges/"+ch.Id+"/decline", "", map[string]any{"reason": "later"}, asPlayer(ann)), http.StatusOK, "")
	if ev, data := nextEvent(t, lines); ev != "challengeDeclined" || !strings.Contains(data, `"reason":"later"`) {
		t.Fatalf("after a decline: %s %s", ev, data)
	}
	gs.expect(gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(bob)), http.StatusCreated, "")
	if ev, data := nextEvent(t, lines); ev != "seekMatched" || !strings.Contains(data, `"gameId"`) {
		t.Fatalf("after a pairing: %s %s", ev, data)
	}
	if ev, _ := nextEvent(t, lines); ev != "gameStart" {
		t.Fatalf("after a pairing, then: %s", ev)
	}
	// A new stream with the Player-Token starts with the game in play.
	again, stop2 := sseLines(t, gs, "/v1/players/me/events", asPlayer(ann))
	defer stop2()
	if ev, data := nextEvent(t, again); ev != "gameStart" || !strings.Contains(data, `"side"`) {
		t.Fatalf("a new stream's first frame: %s %s", ev, data)
	}
}

// TestGameFinishFrame: a gameFinish event's frame says how the game ended
// for the player, its result and the change of the player's rating (null
// when none moved).
func TestGameFinishFrame(t *testing.T) {
	g := games.Game{ID: "g1", Status: games.Finished, Result: engine.Result{Winner: engine.NorthWins, Reason: engine.ByResignation}}
	g.Players[engine.North] = games.SeatPlayer{ID: "p", Rating: 1500, Change: 12.5, HasChange: true}
	for _, tc := range []struct {
		name string
		side engine.Side
		want string
	}{
		{"the winner, rated", engine.North, `"ratingChange":{"after":1513,"before":1500,"change":13}`},
		{"a seat whose rating did not move", engine.South, `"ratingChange":null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame, err := encodeLobbyEvent(&lobby.Event{Seq: 7, Kind: lobby.EventGameFinish, GameID: g.ID, Side: tc.side, Game: &g})
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []string{"id: 7\nevent: gameFinish\n", `"gameId":"g1"`, `"status":"finished"`,
				`"result":{"reason":"resignation","winner":"north"}`, tc.want} {
				if !strings.Contains(string(frame), part) {
					t.Errorf("frame %q lacks %q", frame, part)
				}
			}
		})
	}
}

// eventComponents names the component of openapi.yaml that describes each
// lobby and player event's data.
var eventComponents = map[string]string{
	"seekAdded": "LobbySeekAddedEvent", "seekRemoved": "LobbySeekRemovedEvent",
	"gameStart": "PlayerGameStartEvent", "gameFinish": "PlayerGameFinishEvent",
	"challenge": "PlayerChallengeEvent", "challengeCanceled": "PlayerChallengeEvent", "challengeDeclined": "PlayerChallengeEvent",
	"seek": "PlayerSeekEvent", "seekMatched": "PlayerSeekEvent", "seekExpired": "PlayerSeekEvent",
}

// TestEventsMatchSpec: the data of every kind of lobby and player event,
// as the server sends it, is what the document's component for it says
// (seekAdded's is {"seek": LobbySeek}, as the web client reads it).
func TestEventsMatchSpec(t *testing.T) {
	schemas := loadSpecFile(t).Components.Schemas
	seen := map[string]bool{}
	check := func(t *testing.T, event, data string) {
		t.Helper()
		name, ok := eventComponents[event]
		if !ok {
			t.Fatalf("event %q has no component", event)
		}
		var v any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("%s: %v", event, err)
		}
		if err := schemas[name].Value.VisitJSON(v); err != nil {
			t.Errorf("%s event %s does not match %s: %v", event, data, name, err)
		}
		seen[event] = true
	}
	expect := func(t *testing.T, lines <-chan string, want ...string) []string {
		t.Helper()
		var datas []string
		for _, w := range want {
			ev, data := nextEvent(t, lines)
			if ev != w {
				t.Fatalf("event %s %s, want %s", ev, data, w)
			}
			check(t, ev, data)
			datas = append(datas, data)
		}
		return datas
	}

	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	annP, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")
	// Each stream from its first event (Last-Event-ID 0): what a stream
	// opened without one starts from is the moment it reads the store, which
	// races the requests below. Bob's last stream checks that start.
	from := func(token string) map[string]string {
		h := map[string]string{"Last-Event-ID": "0"}
		if token != "" {
			h[PlayerTokenHeader] = token
		}
		return h
	}
	lobbyLines, stopLobby := sseLines(t, gs, "/v1/lobby/events", from(""))
	defer stopLobby()
	annLines, stopAnn := sseLines(t, gs, "/v1/players/me/events", from(ann))
	defer stopAnn()
	bobLines, stopBob := sseLines(t, gs, "/v1/players/me/events", from(bob))
	defer stopBob()

	// A seek, another that meets it, the game aborted at ply 0.
	gs.expect(gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(ann)), http.StatusCreated, "")
	added := expect(t, lobbyLines, "seekAdded")
	var sa oapi.LobbySeekAddedEvent
	if err := json.Unmarshal([]byte(added[0]), &sa); err != nil || sa.Seek.Player.Name != "Ann" {
		t.Fatalf("seekAdded %s (%v)", added[0], err)
	}
	b := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(bob))
	gs.expect(b, http.StatusCreated, "")
	var matched oapi.Seek
	b.decode(t, &matched)
	game, _ := matched.Game.Get()
	// Stored open first, then paired: the lobby sees it come and both go.
	expect(t, lobbyLines, "seekAdded", "seekRemoved", "seekRemoved")
	expect(t, annLines, "seekMatched", "gameStart")
	expect(t, bobLines, "seekMatched", "gameStart")
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+game+"/resign", "", nil, asPlayer(ann)), http.StatusOK, "")
	expect(t, annLines, "gameFinish")
	expect(t, bobLines, "gameFinish")

	// Challenges: declined, withdrawn, accepted.
	challenge := func() string {
		c := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": annP.Id, "timeControl": blitzAPI}, asPlayer(bob))
		gs.expect(c, http.StatusCreated, "")
		var ch oapi.Challenge
		c.decode(t, &ch)
		expect(t, annLines, "challenge")
		expect(t, bobLines, "challenge")
		return ch.Id
	}
	id := challenge()
	gs.expect(gs.must(http.MethodPost, "/v1/challenges/"+id+"/decline", "", map[string]any{"reason": "tooFast"}, asPlayer(ann)), http.StatusOK, "")
	expect(t, annLines, "challengeDeclined")
	expect(t, bobLines, "challengeDeclined")
	id = challenge()
	gs.expect(gs.must(http.MethodDelete, "/v1/challenges/"+id, "", nil, asPlayer(bob)), http.StatusOK, "")
	expect(t, annLines, "challengeCanceled")
	expect(t, bobLines, "challengeCanceled")
	id = challenge()
	gs.expect(gs.must(http.MethodPost, "/v1/challenges/"+id+"/accept", "", nil, asPlayer(ann)), http.StatusOK, "")
	started := expect(t, annLines, "gameStart")
	if !strings.Contains(started[0], `"challenge":{`) {
		t.Errorf("a gameStart from a challenge names it: %s", started[0])
	}
	expect(t, bobLines, "gameStart")

	// A new stream's first frames: the game in play, an open seek.
	gs.expect(gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": map[string]any{"kind": "correspondence", "daysPerMove": 3}}, asPlayer(bob)), http.StatusCreated, "")
	again, stopAgain := sseLines(t, gs, "/v1/players/me/events", asPlayer(bob))
	defer stopAgain()
	expect(t, again, "gameStart", "seek")

	// An expired seek, as its event frames it.
	now := clock.Now()
	frame, err := encodeLobbyEvent(&lobby.Event{Seq: 9, Kind: lobby.EventSeekExpired, SeekID: "s1", Seek: &lobby.Seek{ID: "s1", PlayerID: "p",
		TimeControl: games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute, Increment: 2 * time.Second}, Seat: lobby.SeatRandom,
		Status: lobby.SeekExpired, CreatedAt: now, UpdatedAt: now, ExpiresAt: now}})
	if err != nil {
		t.Fatal(err)
	}
	data, ok := strings.CutPrefix(strings.Split(string(frame), "\n")[2], "data: ")
	if !ok {
		t.Fatalf("frame %q", frame)
	}
	check(t, "seekExpired", data)

	for event := range eventComponents {
		if !seen[event] {
			t.Errorf("no %s event was checked", event)
		}
	}
}
