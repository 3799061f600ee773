package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

var exportCases = []suiteCase{
	{"export/a player's games in order, paged and filtered", testExportGames},
}

// testExportGames: ExportGames finds the active and finished games with a
// seat of the player (once when it holds both), oldest first, each with all
// its records, from the cursor on, within since and until.
func testExportGames(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	for _, p := range []string{"ann", "bob", "cid"} {
		mustCreatePlayer(t, s, p)
	}
	type spec struct {
		id           string
		south, north string
		status       games.Status
		moves        int
	}
	specs := []spec{
		{"x1", "ann", "bob", games.Active, 3},
		{"x2", "bob", "ann", games.Finished, 5},
		{"x3", "ann", "cid", games.Waiting, 0},
		{"x4", "cid", "bob", games.Active, 2},
		{"x5", "ann", "ann", games.Active, 1},
		{"x6", "cid", "ann", games.Aborted, 0},
		{"x7", "cid", "ann", games.Active, 0},
	}
	stored := map[string]games.Exported{}
	for i, sp := range specs {
		at := tick(10 * i)
		g := pairedGame(sp.id, sp.south, sp.north, games.TimeControl{}, at)
		g.Rated, g.Deadline, g.Clock = false, time.Time{}, [2]time.Duration{}
		if sp.status == games.Waiting {
			g.Players[engine.North], g.Tokens[engine.North] = games.SeatPlayer{}, nil
		}
		var recs []games.Record
		for k := range sp.moves {
			var r []games.Record
			g, r = advance(t, g, at.Add(time.Duration(k+1)*time.Second), pick(g.Position, g.Rules, k))
			recs = append(recs, r...)
		}
		g.Version = 1
		for k := range recs {
			recs[k].Version = 1
		}
		g.Status = sp.status
		if sp.status == games.Finished {
			g.Result = engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}
		}
		mustCreate(t, s, g, recs)
		stored[sp.id] = games.Exported{Game: g, Records: recs}
	}
	ids := func(page []games.Exported) string {
		var out []string
		for _, e := range page {
			out = append(out, e.Game.ID)
		}
		return fmt.Sprint(out)
	}
	tests := []struct {
		name string
		q    games.ExportQuery
		want string
	}{
		{"all of ann's", games.ExportQuery{Player: "ann", Limit: 10}, "[x1 x2 x5 x7]"},
		{"limited", games.ExportQuery{Player: "ann", Limit: 2}, "[x1 x2]"},
		{"after a game", games.ExportQuery{Player: "ann", Limit: 2, AfterCreated: tick(10), AfterID: "x2"}, "[x5 x7]"},
		{"since", games.ExportQuery{Player: "ann", Limit: 10, Since: tick(10)}, "[x2 x5 x7]"},
		{"until", games.ExportQuery{Player: "ann", Limit: 10, Until: tick(40)}, "[x1 x2]"},
		{"since and until", games.ExportQuery{Player: "ann", Limit: 10, Since: tick(5), Until: tick(41)}, "[x2 x5]"},
		{"bob's", games.ExportQuery{Player: "bob", Limit: 10}, "[x1 x2 x4]"},
		{"nobody's", games.ExportQuery{Player: "dan", Limit: 10}, "[]"},
		{"no limit", games.ExportQuery{Player: "ann"}, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.ExportGames(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page); got != tt.want {
				t.Fatalf("games %s, want %s", got, tt.want)
			}
			for _, e := range page {
				want := stored[e.Game.ID]
				checkGame(t, "exported "+e.Game.ID, e.Game, want.Game)
				if fmt.Sprint(e.Records) != fmt.Sprint(want.Records) {
					t.Errorf("game %s: records %v, want %v", e.Game.ID, e.Records, want.Records)
				}
			}
		})
	}
}
