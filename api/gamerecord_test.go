package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/review"
)

func TestWantsRecord(t *testing.T) {
	tests := []struct {
		name, accept string
		want         bool
	}{
		{"none", "", false},
		{"json", "application/json", false},
		{"any", "*/*", false},
		{"record", record.MediaType, true},
		{"record with charset", record.MediaType + "; charset=utf-8", true},
		{"record first", record.MediaType + ", application/json;q=0.5", true},
		{"json preferred", "application/json, " + record.MediaType + ";q=0.5", false},
		{"record refused", record.MediaType + ";q=0", false},
		{"garbage", "a/b/c;;", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wantsRecord(tt.accept); got != tt.want {
				t.Errorf("wantsRecord(%q) = %v, want %v", tt.accept, got, tt.want)
			}
		})
	}
}

// TestGetGameRecord: GET /v1/games/{id} with the record's media type in
// Accept answers the record, for a game in play and a game over; the record
// reads, replays to the game's position, and says how the game ended.
func TestGetGameRecord(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	game, tokens := gs.twoSeats()
	id := game.Id
	accept := map[string]string{"Accept": record.MediaType}
	game = gs.playFirstLegal(game, tokens, 6)
	read := func(wantResult string) *record.Record {
		t.Helper()
		a := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, accept)
		gs.expect(a, http.StatusOK, "")
		if ct := a.header.Get("Content-Type"); ct != record.MediaType {
			t.Fatalf("Content-Type %q", ct)
		}
		if a.header.Get("Vary") != "Accept" || !strings.HasSuffix(a.header.Get("ETag"), `-record"`) {
			t.Fatalf("Vary %q, ETag %q", a.header.Get("Vary"), a.header.Get("ETag"))
		}
		rec, err := record.Parse(string(a.body))
		if err != nil {
			t.Fatalf("%v\n%s", err, a.body)
		}
		if rec.String() != string(a.body) {
			t.Fatalf("not in the export form:\n%s", a.body)
		}
		rp, err := record.Check(rec)
		if err != nil || rp.Illegal != nil {
			t.Fatalf("check: %v %+v\n%s", err, rp.Illegal, a.body)
		}
		if got := rp.Game.Position(); got != mustPosition(t, game.Position) || len(rec.Moves) != game.Ply {
			t.Fatalf("replays to %s in %d moves, the game is at ply %d\n%s", got, len(rec.Moves), game.Ply, a.body)
		}
		if res, _ := rec.Get(record.TagResult); res != wantResult {
			t.Fatalf("Result %q, want %q\n%s", res, wantResult, a.body)
		}
		// The ETag of the record answers If-None-Match.
		nm := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, map[string]string{"Accept": record.MediaType, "If-None-Match": a.header.Get("ETag")})
		gs.expect(nm, http.StatusNotModified, "")
		return rec
	}
	read(record.Unfinished)

	a := gs.must(http.MethodPost, "/v1/games/"+id+"/resign", tokens[0], nil, nil)
	gs.expect(a, http.StatusOK, "")
	a.decode(t, &game)
	rec := read(record.ResultTag(mustPosition(t, game.Position)))
	for tag, want := range map[string]string{record.TagTermination: record.TermResignation, record.TagWinner: "north",
		record.TagTimeControl: "-", record.TagEvent: "Casual game", record.TagSite: "/v1/games/" + id} {
		if got, _ := rec.Get(tag); got != want {
			t.Errorf("tag %s %q, want %q", tag, got, want)
		}
	}
	// JSON stays the default.
	j := gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil)
	gs.expect(j, http.StatusOK, "")
	if !strings.HasPrefix(j.header.Get("Content-Type"), "application/json") {
		t.Fatalf("Content-Type %q without Accept", j.header.Get("Content-Type"))
	}
}

func mustPosition(t *testing.T, p oapi.Position) engine.Position {
	t.Helper()
	pos, err := positionFromAPI(p)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// TestAnnotate: a review goes into a record as each move's comment and each
// side's accuracy tag, and the record still reads and replays; a review of
// other moves adds nothing.
func TestAnnotate(t *testing.T) {
	rec, err := record.Parse("[Termination \"resignation\"]\n[Winner \"north\"]\n[Result \"0-0\"]\n\n1. e {[%emt 0:00:02]} 0-0\n")
	if err != nil {
		t.Fatal(err)
	}
	rv := &review.Review{Plies: []review.Ply{{Ply: 1, Side: engine.South, Pit: 4, Best: []int{0, 2}, Before: 3, After: -1, Loss: 4, Class: review.Mistake}}}
	rv.Sides[engine.South].Accuracy = 5000
	rv.Sides[engine.North].Accuracy = 10000
	other := *rec
	other.Moves = append([]record.Move(nil), rec.Moves...)
	if !annotate(rec, rv) {
		t.Fatal("annotate refused a review of the record's moves")
	}
	want := "[SouthAccuracy \"50.00\"]\n[NorthAccuracy \"100.00\"]\n[Termination \"resignation\"]\n[Winner \"north\"]\n[Result \"0-0\"]\n\n" +
		"1. e {[%emt 0:00:02] mistake; best a/c; loss 4; score +3 to -1} 0-0\n"
	if got := rec.String(); got != want {
		t.Fatalf("annotated:\n%s\nwant:\n%s", got, want)
	}
	back, err := record.Parse(want)
	if err != nil || back.String() != want {
		t.Fatalf("read back: %v", err)
	}
	if _, err := record.Check(back); err != nil {
		t.Fatal(err)
	}
	rv.Plies[0].Pit = 5
	if annotate(&other, rv) || other.Moves[0].Comment != "" || len(other.Tags) != 3 {
		t.Fatalf("a review of other moves went in: %s", other.String())
	}
}

// TestGameRecordWithReview: a finished game's record carries its review once
// it is done, and not before.
func TestGameRecordWithReview(t *testing.T) {
	gs, svc := newReviewServer(t, Options{})
	game, tokens := gs.twoSeats()
	game = gs.playFirstLegal(game, tokens, 3)
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+game.Id+"/resign", tokens[0], nil, nil), http.StatusOK, "")
	accept := map[string]string{"Accept": record.MediaType}
	read := func() string {
		t.Helper()
		a := gs.must(http.MethodGet, "/v1/games/"+game.Id, "", nil, accept)
		gs.expect(a, http.StatusOK, "")
		rec, err := record.Parse(string(a.body))
		if err != nil {
			t.Fatalf("%v\n%s", err, a.body)
		}
		if _, err := record.Check(rec); err != nil {
			t.Fatalf("%v\n%s", err, a.body)
		}
		return string(a.body)
	}
	if text := read(); strings.Contains(text, "Accuracy") {
		t.Fatalf("a review before any was asked for:\n%s", text)
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+game.Id+"/review", "", nil, nil), http.StatusAccepted, "")
	if did, err := svc.Step(t.Context()); !did || err != nil {
		t.Fatalf("step: %v, %v", did, err)
	}
	text := read()
	rec, _ := record.Parse(text)
	if _, ok := rec.Get("SouthAccuracy"); !ok || len(rec.Moves) != 3 {
		t.Fatalf("no review in the record:\n%s", text)
	}
	for i, m := range rec.Moves {
		if !strings.Contains(m.Comment, "; best ") {
			t.Fatalf("move %d's comment %q has no review:\n%s", i, m.Comment, text)
		}
	}
	a := gs.must(http.MethodGet, "/v1/games/"+game.Id, "", nil, accept)
	if etag := a.header.Get("ETag"); !strings.HasSuffix(etag, `-record-reviewed"`) {
		t.Fatalf("ETag %q once the review is in", etag)
	}
}

// playFirstLegal plays n moves in game, each the first legal pit, by the
// seat tokens, and returns the game after them.
func (gs *gamesServer) playFirstLegal(game oapi.Game, tokens [2]string, n int) oapi.Game {
	gs.t.Helper()
	for range n {
		a := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)],
			map[string]int{"pit": legalPits(gs.t, game.Position)[0], "ply": game.Ply}, nil)
		gs.expect(a, http.StatusCreated, "")
		var pa oapi.PlayMoveAnswer
		a.decode(gs.t, &pa)
		game = pa.Game
	}
	return game
}
