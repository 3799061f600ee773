package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
)

// TestExportPlayerGames: a player's games as NDJSON and as records, chosen
// by format or Accept, in creation order, bounded by since, until and max.
func TestExportPlayerGames(t *testing.T) {
	clock := playersClock()
	gs := newPlayersServer(t, clock, Options{}, false)
	ada, adaToken := gs.newPlayer("Ada")
	_, bisiToken := gs.newPlayer("Bisi")
	var created []time.Time
	var final []oapi.Game
	for i := range 3 {
		created = append(created, clock.Now())
		game, tokens := gs.ratedGame(adaToken, bisiToken)
		for range 4 {
			clock.Advance(1500 * time.Millisecond)
			pits := legalPits(t, game.Position)
			a := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": pits[0], "ply": game.Ply}, nil)
			gs.expect(a, http.StatusCreated, "")
			var ans oapi.PlayMoveAnswer
			a.decode(t, &ans)
			game = ans.Game
		}
		if i == 1 {
			a := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/resign", tokens[0], nil, nil)
			gs.expect(a, http.StatusOK, "")
			a.decode(t, &game)
		}
		final = append(final, game)
		clock.Advance(time.Minute)
	}
	path := "/v1/players/" + ada.Id + "/games/export"

	// NDJSON, the default.
	a := gs.must(http.MethodGet, path, "", nil, nil)
	gs.expect(a, http.StatusOK, "")
	if ct := a.header.Get("Content-Type"); ct != MIMEApplicationNDJSON {
		t.Fatalf("Content-Type %q", ct)
	}
	var lines []oapi.ExportedGame
	sc := bufio.NewScanner(bytes.NewReader(a.body))
	for sc.Scan() {
		var l oapi.ExportedGame
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		lines = append(lines, l)
	}
	if len(lines) != len(final) {
		t.Fatalf("%d games exported, want %d:\n%s", len(lines), len(final), a.body)
	}
	for i, l := range lines {
		if l.Game.Id != final[i].Id || l.Game.Status != final[i].Status || len(l.Moves) != final[i].Ply {
			t.Errorf("game %d: %s %s with %d moves, want %s %s at ply %d", i, l.Game.Id, l.Game.Status, len(l.Moves), final[i].Id, final[i].Status, final[i].Ply)
		}
		for _, m := range l.Moves {
			if m.ElapsedMs != 1500 || m.ClockMs == nil {
				t.Errorf("game %d: move %+v, want 1500 ms elapsed and a clock", i, m)
			}
		}
	}

	// The text notation, by format or by Accept: the same games.
	for _, how := range []struct {
		query  string
		header map[string]string
	}{{"?format=record", nil}, {"", map[string]string{"Accept": record.MediaType}}} {
		a := gs.must(http.MethodGet, path+how.query, "", nil, how.header)
		gs.expect(a, http.StatusOK, "")
		if ct := a.header.Get("Content-Type"); ct != record.MediaType {
			t.Fatalf("Content-Type %q", ct)
		}
		texts := strings.Split(string(a.body), "\n\n[Event")
		if len(texts) != len(final) {
			t.Fatalf("%d records, want %d:\n%s", len(texts), len(final), a.body)
		}
		for i, text := range texts {
			if i > 0 {
				text = "[Event" + text
			}
			rec, err := record.Parse(text)
			if err != nil {
				t.Fatalf("record %d: %v\n%s", i, err, text)
			}
			if rp, err := record.Check(rec); err != nil || rp.Illegal != nil || len(rec.Moves) != final[i].Ply {
				t.Fatalf("record %d: %v %+v\n%s", i, err, rp.Illegal, text)
			}
			if site, _ := rec.Get(record.TagSite); site != "/v1/games/"+final[i].Id {
				t.Errorf("record %d: Site %q", i, site)
			}
		}
	}

	// Bounds, and what is refused.
	at := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }
	tests := []struct {
		name, query string
		status      int
		code        string
		games       int
	}{
		{"max", "?max=2", 200, "", 2},
		{"since", "?since=" + at(created[1]), 200, "", 2},
		{"until", "?until=" + at(created[1]), 200, "", 1},
		{"since and until", "?since=" + at(created[1]) + "&until=" + at(created[2]), 200, "", 1},
		{"nothing since", "?since=" + at(clock.Now()), 200, "", 0},
		{"until before since", "?since=" + at(created[1]) + "&until=" + at(created[0]), 400, "invalid_request", 0},
		{"max 0", "?max=0", 400, "invalid_request", 0},
		{"unknown format", "?format=pgn", 400, "invalid_request", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := gs.must(http.MethodGet, path+tt.query, "", nil, nil)
			gs.expect(a, tt.status, tt.code)
			if n := bytes.Count(a.body, []byte("\n")); tt.status == 200 && n != tt.games {
				t.Errorf("%d games, want %d", n, tt.games)
			}
		})
	}
	gs.expect(gs.must(http.MethodGet, "/v1/players/nobody/games/export", "", nil, nil), http.StatusNotFound, "player_not_found")
}
