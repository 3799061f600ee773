package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/players"
)

var corrAPI = map[string]any{"kind": "correspondence", "daysPerMove": 3}

// becomeBot makes the player a bot over HTTP.
func (gs *gamesServer) becomeBot(id, token string) oapi.Player {
	gs.t.Helper()
	a := gs.must(http.MethodPost, "/v1/players/"+id+"/bot", "", nil, asPlayer(token))
	gs.expect(a, http.StatusOK, "")
	var p oapi.Player
	a.decode(gs.t, &p)
	if !p.Bot || p.Id != id {
		gs.t.Fatalf("becoming a bot: %+v", p)
	}
	return p
}

// TestBotAccounts: becoming a bot, its refusals, and the marks of a bot
// in a player, a game's seats, the lobby and a challenge.
func TestBotAccounts(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	robo, roboToken := gs.newPlayer("Robo")
	ann, annToken := gs.newPlayer("Ann")
	rated, ratedToken := gs.newPlayer("Rated")
	_, otherToken := gs.newPlayer("Other")
	gs.ratedGame(ratedToken, otherToken)

	for _, tc := range []struct {
		name, id, token string
		status          int
		code            string
	}{
		{"no token", robo.Id, "", 401, "player_unauthorized"},
		{"another player's token", robo.Id, annToken, 403, "not_your_player"},
		{"an unknown player", "nobodyAtAll1", roboToken, 404, "player_not_found"},
		{"a player in a rated game", rated.Id, ratedToken, 409, "bot_upgrade_refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.token != "" {
				h = asPlayer(tc.token)
			}
			gs.expect(gs.must(http.MethodPost, "/v1/players/"+tc.id+"/bot", "", nil, h), tc.status, tc.code)
		})
	}
	gs.becomeBot(robo.Id, roboToken)
	gs.becomeBot(robo.Id, roboToken) // a retry is answered alike
	if p := gs.player(robo.Id); !p.Bot {
		t.Errorf("GET the bot: bot %v", p.Bot)
	}
	if p := gs.player(ann.Id); p.Bot {
		t.Errorf("GET a person: bot %v", p.Bot)
	}

	t.Run("the lobby and seats", func(t *testing.T) {
		a := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(roboToken))
		gs.expect(a, http.StatusCreated, "")
		l := gs.must(http.MethodGet, "/v1/lobby", "", nil, nil)
		gs.expect(l, http.StatusOK, "")
		var page oapi.Lobby
		l.decode(t, &page)
		if len(page.Seeks) != 1 || !page.Seeks[0].Player.Bot || !page.Seeks[0].AllowBots {
			t.Fatalf("the lobby: %+v", page)
		}
		// Ann refuses bots: her seek does not pair with the bot's.
		b := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI, "allowBots": false}, asPlayer(annToken))
		gs.expect(b, http.StatusCreated, "")
		var refusing oapi.Seek
		b.decode(t, &refusing)
		if refusing.Status != oapi.SeekStatusOpen || refusing.AllowBots {
			t.Fatalf("Ann's seek refusing bots: %+v", refusing)
		}
		gs.expect(gs.must(http.MethodDelete, "/v1/seeks/"+refusing.Id, "", nil, asPlayer(annToken)), http.StatusOK, "")
		clock.Advance(time.Second)
		c := gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": blitzAPI}, asPlayer(annToken))
		gs.expect(c, http.StatusCreated, "")
		var matched oapi.Seek
		c.decode(t, &matched)
		id, _ := matched.Game.Get()
		if matched.Status != oapi.SeekStatusMatched || id == "" {
			t.Fatalf("Ann's seek allowing bots: %+v", matched)
		}
		g := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil)
		gs.expect(g, http.StatusOK, "")
		var game oapi.Game
		g.decode(t, &game)
		south, _ := game.Players.South.Get()
		north, _ := game.Players.North.Get()
		bots := map[string]bool{south.Id: south.Bot, north.Id: north.Bot}
		if !bots[robo.Id] || bots[ann.Id] || len(bots) != 2 {
			t.Errorf("the game's seats: %+v and %+v", south, north)
		}
		// Ended, it is in Ann's history, against a bot.
		gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/resign", "", nil, asPlayer(annToken)), http.StatusOK, "")
		h := gs.must(http.MethodGet, "/v1/players/"+ann.Id+"/games", "", nil, nil)
		gs.expect(h, http.StatusOK, "")
		var history oapi.PlayerGamesPage
		h.decode(t, &history)
		if len(history.Games) != 1 {
			t.Fatalf("Ann's history: %+v", history)
		}
		if opp, _ := history.Games[0].Opponent.Get(); opp.Id != robo.Id || !opp.Bot {
			t.Errorf("Ann's opponent: %+v, want the bot", opp)
		}
	})

	t.Run("challenges", func(t *testing.T) {
		a := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": robo.Id, "timeControl": corrAPI, "allowBots": false}, asPlayer(annToken))
		gs.expect(a, http.StatusForbidden, "bots_refused")
		b := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"timeControl": corrAPI, "allowBots": false}, asPlayer(annToken))
		gs.expect(b, http.StatusCreated, "")
		var open oapi.Challenge
		b.decode(t, &open)
		if open.AllowBots || open.From.Bot {
			t.Fatalf("Ann's open challenge: %+v", open)
		}
		gs.expect(gs.must(http.MethodPost, "/v1/challenges/"+open.Id+"/accept", "", nil, asPlayer(roboToken)), http.StatusForbidden, "bots_refused")
		c := gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": ann.Id, "timeControl": corrAPI}, asPlayer(roboToken))
		gs.expect(c, http.StatusCreated, "")
		var fromBot oapi.Challenge
		c.decode(t, &fromBot)
		to, _ := fromBot.To.Get()
		if !fromBot.From.Bot || to.Bot || !fromBot.AllowBots {
			t.Errorf("the bot's challenge: %+v", fromBot)
		}
	})
}

func TestGetMyPlayer(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	ada, token := gs.newPlayer("Ada")
	scoped := gs.scopedToken(token, players.ScopeGamePlay)
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
		code   string
	}{
		{"no token", nil, 401, "player_unauthorized"},
		{"an unknown token", asPlayer("pl_nobody"), 401, "player_unauthorized"},
		{"its token", asPlayer(token), 200, ""},
		{"a scoped token of its, of any scope", asPlayer(scoped), 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := gs.must(http.MethodGet, "/v1/players/me", "", nil, tc.header)
			gs.expect(a, tc.status, tc.code)
			if tc.status != 200 {
				return
			}
			var p oapi.Player
			a.decode(t, &p)
			if p.Id != ada.Id || p.Name != "Ada" || p.Bot {
				t.Errorf("GET /v1/players/me: %+v, want Ada", p)
			}
		})
	}
}

func TestOnlineBotsOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	robo, roboToken := gs.newPlayer("Robo")
	gs.becomeBot(robo.Id, roboToken)
	_, annToken := gs.newPlayer("Ann")
	list := func() oapi.OnlineBots {
		t.Helper()
		a := gs.must(http.MethodGet, "/v1/bots/online?limit=10", "", nil, nil)
		gs.expect(a, http.StatusOK, "")
		var page oapi.OnlineBots
		a.decode(t, &page)
		return page
	}
	if page := list(); len(page.Bots) != 0 {
		t.Fatalf("before any stream: %+v", page)
	}
	lines, stop := sseLines(t, gs, "/v1/players/me/events", asPlayer(roboToken))
	defer stop()
	// The stream touches once it has sent how things stand: of two
	// challenges sent one after the other, the second is an event it
	// sends after that (the first may be in how things stand).
	for range 2 {
		gs.expect(gs.must(http.MethodPost, "/v1/challenges", "", map[string]any{"to": robo.Id, "timeControl": corrAPI}, asPlayer(annToken)), http.StatusCreated, "")
		if ev, _ := nextEvent(t, lines); ev != "challenge" {
			t.Fatalf("the bot's stream: %s, want challenge", ev)
		}
	}
	page := list()
	if len(page.Bots) != 1 || page.Bots[0].Id != robo.Id || page.Bots[0].Name != "Robo" || !page.Next.IsNull() {
		t.Fatalf("with the bot's stream open: %+v", page)
	}
	gs.expect(gs.must(http.MethodGet, "/v1/bots/online?after=nonsense", "", nil, nil), 400, "invalid_cursor")
}
