package postgres

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// TestPlayRaceAcrossInstances races requests for one ply through four
// instances, each with a pool of its own, for ply after ply of one game:
// each ply stores exactly one request and refuses the others with
// games.ErrConflict, and the game and its records are the
// winners'. Two of the instances ask for serializable transactions by
// default, which the store overrides: its losers must still hear
// ErrConflict, not a serialization failure.
func TestPlayRaceAcrossInstances(t *testing.T) {
	ctx := t.Context()
	dsn := withParam(t, freshSchema(t), "pool_max_conns", "8")
	strict := withParam(t, dsn, "default_transaction_isolation", "serializable")
	var stores []*Store
	for _, dsn := range []string{dsn, strict, dsn, strict} {
		stores = append(stores, openOn(t, dsn, Options{}))
	}
	g := joinedGame(t, stores[0], "race")
	const racers, plies = 32, 6
	var winners []games.Play
	for ply := range plies {
		legal := legalPits(g)
		if len(legal) == 0 {
			// The winners' line ended the game early: six of the
			// openings' lines do within five plies.
			break
		}
		plays := make([]games.Play, racers)
		for i := range plays {
			// Rivals hold the same seat's token (a client retrying on
			// several instances) and play different pits where they can.
			plays[i] = playOn(t, g, legal[i%len(legal)], seatToken(g), t0.Add(time.Duration(ply*racers+i)*time.Millisecond))
		}
		errs := make([]error, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range plays {
			wg.Go(func() {
				<-start
				errs[i] = stores[i%len(stores)].ApplyPlay(ctx, plays[i])
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("ply %d: racers %d and %d were both stored", ply, won, i)
			case err == nil:
				won = i
			case !errors.Is(err, games.ErrConflict):
				t.Fatalf("ply %d: racer %d: %v, want games.ErrConflict", ply, i, err)
			}
		}
		if won < 0 {
			t.Fatalf("ply %d: no racer was stored", ply)
		}
		winners = append(winners, plays[won])
		g = plays[won].Game
		got, err := stores[(ply+1)%len(stores)].Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Ply != g.Ply || got.Position != g.Position || !bytes.Equal(got.History, g.History) || got.Version != g.Version ||
			!got.UpdatedAt.Equal(micro(g.UpdatedAt)) {
			t.Fatalf("ply %d: stored %+v, want the winner's %+v", ply, got, g)
		}
	}
	played := len(winners)
	recs, err := stores[3].Records(ctx, g.ID, 0, 100)
	if err != nil || len(recs) != played {
		t.Fatalf("%d records (%v), want %d", len(recs), err, played)
	}
	for i, r := range recs {
		w := winners[i].Moves[0]
		if r.Ply != i || r.Pit != w.Pit || r.ByAI || !r.At.Equal(micro(w.At)) {
			t.Fatalf("record %d: %+v, want %+v", i, r, w)
		}
	}
	if g.Version != int64(2+played) {
		t.Fatalf("version %d, want %d: one bump for the join and one per ply", g.Version, 2+played)
	}
}

// legalPits lists the pits the side to move in g may play.
func legalPits(g games.Game) []int {
	var pits []int
	for m := g.Position.LegalMoves(g.Rules); m != 0; {
		pits = append(pits, m.Next())
	}
	return pits
}

// TestWritesAreWhole: a write that the database refuses halfway (a move or
// an answer its checks reject) leaves nothing behind, since every write is
// one statement.
func TestWritesAreWhole(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)
	t.Run("a game with a bad move is not created", func(t *testing.T) {
		g := games.Game{ID: "bad-move", CreatedAt: t0, UpdatedAt: t0, Start: engine.Start(), Position: engine.Start(),
			Status: games.Active, AI: &games.AI{Side: engine.South, Level: 2}, Tokens: [2][]byte{nil, hashOf("n")},
			Version: 1, Ply: 1, History: []byte{3}}
		err := s.CreateGame(ctx, g, []games.Record{{Ply: 0, Pit: 12, ByAI: true, At: t0}})
		if err == nil || errors.Is(err, games.ErrConflict) {
			t.Fatalf("CreateGame with pit 12: %v, want the database's refusal", err)
		}
		if _, err := s.Game(ctx, g.ID); !errors.Is(err, games.ErrNotFound) {
			t.Fatalf("the game was stored without its move: %v", err)
		}
	})
	t.Run("a play with a bad record is not applied", func(t *testing.T) {
		g := joinedGame(t, s, "bad-record")
		p := playOn(t, g, 0, seatToken(g), t0)
		good := p.Moves[0].Version
		p.Moves[0].Version = -1
		if err := s.ApplyPlay(ctx, p); err == nil || errors.Is(err, games.ErrConflict) {
			t.Fatalf("ApplyPlay with a negative version: %v, want the database's refusal", err)
		}
		got, err := s.Game(ctx, g.ID)
		if err != nil || got.Ply != 0 || got.Version != g.Version || len(got.History) != 0 {
			t.Fatalf("after the refused play: %+v (%v), want it unchanged", got, err)
		}
		if recs, err := s.Records(ctx, g.ID, 0, 10); err != nil || len(recs) != 0 {
			t.Fatalf("after the refused play: records %v (%v), want none", recs, err)
		}
		// And the same play, made right, goes in.
		p.Moves[0].Version = good
		if err := s.ApplyPlay(ctx, p); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a play without moves is refused", func(t *testing.T) {
		g := joinedGame(t, s, "no-moves")
		p := playOn(t, g, 0, seatToken(g), t0)
		p.Moves = nil
		if err := s.ApplyPlay(ctx, p); err == nil {
			t.Fatal("a play without moves was stored")
		}
	})
}

// TestPrunedGamesTakeTheirMoves: the moves table has no reference to
// games; the trigger games_deleted deletes a pruned game's moves with it,
// and leaves those of the games kept, whatever deletes games.
func TestPrunedGamesTakeTheirMoves(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)
	ids := []string{"pruned", "kept"}
	for _, id := range ids {
		g := joinedGame(t, s, id)
		for i := range 3 {
			legal := g.Position.LegalMoves(g.Rules)
			p := playOn(t, g, legal.Next(), seatToken(g), t0.Add(time.Duration(i+1)*time.Second))
			if err := s.ApplyPlay(ctx, p); err != nil {
				t.Fatal(err)
			}
			g = p.Game
		}
	}
	if _, err := s.Resign(ctx, "pruned", engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, t0.Add(time.Minute), nil); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteEnded(ctx, t0.Add(time.Hour), 10); err != nil || n != 1 {
		t.Fatalf("DeleteEnded: %d %v, want the one ended game", n, err)
	}
	moves := func(id string) int {
		var n int
		if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM moves WHERE game_id = $1", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := moves(ids[0]), moves(ids[1]); a != 0 || b != 3 {
		t.Fatalf("moves after the pruning: %d of the pruned game, %d of the kept one; want 0 and 3", a, b)
	}
	// An operator's own DELETE takes them too.
	if _, err := s.pool.Exec(ctx, "DELETE FROM games WHERE id = $1", ids[1]); err != nil {
		t.Fatal(err)
	}
	if n := moves(ids[1]); n != 0 {
		t.Fatalf("%d moves left after the game's DELETE, want 0", n)
	}
}

// TestChecks: the database itself refuses rows that do not hold together,
// whatever the code above it does.
func TestChecks(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)
	ok := func() games.Game {
		return games.Game{ID: "checked", CreatedAt: t0, UpdatedAt: t0, Start: engine.Start(), Position: engine.Start(),
			Status: games.Waiting, Tokens: [2][]byte{hashOf("s"), nil}, Version: 1}
	}
	tests := []struct {
		name   string
		change func(g *games.Game)
	}{
		{"history shorter than the ply", func(g *games.Game) { g.Ply = 2; g.History = []byte{1} }},
		{"finished without a result", func(g *games.Game) { g.Status = games.Finished }},
		{"a result while waiting", func(g *games.Game) {
			g.Result = engine.Result{Winner: engine.NorthWins, Reason: engine.ByResignation}
		}},
		{"a token that is no SHA-256", func(g *games.Game) { g.Tokens[1] = []byte("short") }},
		{"an unknown status", func(g *games.Game) { g.Status = "paused" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ok()
			tc.change(&g)
			if err := s.CreateGame(ctx, g, nil); err == nil {
				t.Fatalf("stored %+v", g)
			}
		})
	}
	if err := s.CreateGame(ctx, ok(), nil); err != nil {
		t.Fatalf("the unchanged game: %v", err)
	}
}

// TestGames covers the games.Store methods one by one: times come back in
// UTC cut to the microsecond, unknown games are games.ErrNotFound, and
// conditional writes that do not hold are games.ErrConflict.
func TestGames(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)

	t.Run("create and read back", func(t *testing.T) {
		local := time.FixedZone("WAT", 3600)
		g := games.Game{ID: "ai-opened", CreatedAt: t0.In(local), UpdatedAt: t0.Add(time.Second).In(local),
			Rules: engine.Rules{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner},
			Start: engine.Start(), Status: games.Active, AI: &games.AI{Side: engine.South, Level: 7},
			Tokens: [2][]byte{nil, hashOf("north")}, Version: 1, Ply: 1, History: []byte{4}}
		after, _ := engine.Start().Apply(4, g.Rules)
		g.Position = after
		opening := []games.Record{{Ply: 0, Pit: 4, ByAI: true, At: t0.Add(time.Second)}}
		if err := s.CreateGame(ctx, g, opening); err != nil {
			t.Fatal(err)
		}
		got, err := s.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := g
		want.CreatedAt, want.UpdatedAt = micro(g.CreatedAt), micro(g.UpdatedAt)
		if got.CreatedAt.Location() != time.UTC || got.UpdatedAt.Location() != time.UTC {
			t.Fatalf("times in %v and %v, want UTC", got.CreatedAt.Location(), got.UpdatedAt.Location())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
		}
		recs, err := s.Records(ctx, g.ID, 0, 10)
		if err != nil || len(recs) != 1 || recs[0] != (games.Record{Ply: 0, Pit: 4, ByAI: true, At: micro(opening[0].At)}) {
			t.Fatalf("records %+v (%v), want the opening", recs, err)
		}
		if err := s.CreateGame(ctx, g, nil); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("a second create under the id: %v, want games.ErrConflict", err)
		}
	})

	t.Run("join", func(t *testing.T) {
		for _, seated := range []engine.Side{engine.South, engine.North} {
			id := "join-" + seated.String()
			g := games.Game{ID: id, CreatedAt: t0, UpdatedAt: t0, Start: engine.Start(), Position: engine.Start(),
				Status: games.Waiting, Version: 1}
			g.Tokens[seated] = hashOf(id + "-creator")
			if err := s.CreateGame(ctx, g, nil); err != nil {
				t.Fatal(err)
			}
			at := t0.Add(time.Minute)
			got, err := s.Join(ctx, id, hashOf(id+"-joiner"), at, time.Time{}, games.SeatPlayer{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != games.Active || !got.JoinedAt.Equal(micro(at)) || !got.UpdatedAt.Equal(micro(at)) || got.Version != 2 ||
				!bytes.Equal(got.Tokens[seated], hashOf(id+"-creator")) || !bytes.Equal(got.Tokens[seated.Other()], hashOf(id+"-joiner")) {
				t.Fatalf("%s seated, after the join: %+v", seated, got)
			}
			if _, err := s.Join(ctx, id, hashOf("third"), at, time.Time{}, games.SeatPlayer{}); !errors.Is(err, games.ErrConflict) {
				t.Fatalf("a second join: %v, want games.ErrConflict", err)
			}
		}
	})

	t.Run("records paging", func(t *testing.T) {
		g := joinedGame(t, s, "paged")
		for i := range 5 {
			p := playOn(t, g, legalPits(g)[0], seatToken(g), t0.Add(time.Duration(i)*time.Second))
			if err := s.ApplyPlay(ctx, p); err != nil {
				t.Fatal(err)
			}
			g = p.Game
		}
		tests := []struct {
			from, limit int
			want        []int
		}{
			{0, 10, []int{0, 1, 2, 3, 4}},
			{0, 2, []int{0, 1}},
			{3, 10, []int{3, 4}},
			{4, 1, []int{4}},
			{5, 10, nil},
			{-3, 2, []int{0, 1}},
			{0, 0, nil},
			{2, -1, nil},
		}
		for _, tc := range tests {
			recs, err := s.Records(ctx, g.ID, tc.from, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var plies []int
			for _, r := range recs {
				plies = append(plies, r.Ply)
			}
			if !slices.Equal(plies, tc.want) {
				t.Fatalf("from %d, limit %d: plies %v, want %v", tc.from, tc.limit, plies, tc.want)
			}
		}
	})

	t.Run("records keep their request's version", func(t *testing.T) {
		g := joinedGame(t, s, "versions")
		var want []int64
		for i := range 4 {
			p := playOn(t, g, legalPits(g)[0], seatToken(g), t0.Add(time.Duration(i)*time.Second))
			if err := s.ApplyPlay(ctx, p); err != nil {
				t.Fatal(err)
			}
			g = p.Game
			want = append(want, g.Version)
		}
		recs, err := s.Records(ctx, g.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range recs {
			got = append(got, r.Version)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("versions %v, want %v", got, want)
		}
	})

	t.Run("conflicts", func(t *testing.T) {
		g := joinedGame(t, s, "conflicts")
		p := playOn(t, g, 0, seatToken(g), t0)
		stale := p
		stale.Ply = 1
		if err := s.ApplyPlay(ctx, stale); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("a play for a ply not reached: %v, want games.ErrConflict", err)
		}
		if err := s.ApplyPlay(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyPlay(ctx, p); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("the same play again: %v, want games.ErrConflict", err)
		}
		waiting := newGame(t, s, "still-waiting")
		if err := s.ApplyPlay(ctx, playOn(t, waiting, 0, "still-waiting-south", t0)); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("a play in a waiting game: %v, want games.ErrConflict", err)
		}
	})

	t.Run("resign", func(t *testing.T) {
		g := joinedGame(t, s, "resigned")
		res := engine.Result{Winner: engine.SouthWins, Reason: engine.ByResignation}
		at := t0.Add(time.Hour)
		got, err := s.Resign(ctx, g.ID, res, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != games.Finished || got.Result != res || !got.UpdatedAt.Equal(micro(at)) || got.Version != g.Version+1 {
			t.Fatalf("after resigning: %+v", got)
		}
		if _, err := s.Resign(ctx, g.ID, res, at, nil); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("resigning again: %v, want games.ErrConflict", err)
		}
		if err := s.ApplyPlay(ctx, playOn(t, g, 0, seatToken(g), at)); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("a play after resigning: %v, want games.ErrConflict", err)
		}
		if _, err := s.Resign(ctx, newGame(t, s, "waiting-resign").ID, res, at, nil); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("resigning a waiting game: %v, want games.ErrConflict", err)
		}
	})

	t.Run("unknown game", func(t *testing.T) {
		known := joinedGame(t, s, "known")
		p := playOn(t, known, 0, seatToken(known), t0)
		p.GameID = "unknown"
		res := engine.Result{Winner: engine.NorthWins, Reason: engine.ByResignation}
		calls := map[string]func() error{
			"Game": func() error { _, err := s.Game(ctx, "unknown"); return err },
			"Join": func() error {
				_, err := s.Join(ctx, "unknown", hashOf("x"), t0, time.Time{}, games.SeatPlayer{})
				return err
			},
			"Records":   func() error { _, err := s.Records(ctx, "unknown", 0, 10); return err },
			"Records 0": func() error { _, err := s.Records(ctx, "unknown", 0, 0); return err },
			"ApplyPlay": func() error { return s.ApplyPlay(ctx, p) },
			"Resign":    func() error { _, err := s.Resign(ctx, "unknown", res, t0, nil); return err },
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, games.ErrNotFound) {
				t.Fatalf("%s of an unknown game: %v, want games.ErrNotFound", name, err)
			}
		}
	})
}

// TestUndecodableGame: a row that does not decode is an error that says so
// and wraps nothing, least of all the engine's errors about clients' input.
func TestUndecodableGame(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)
	tests := []struct{ name, set string }{
		{"position", "position = 'not a position'"},
		{"start", "start = ''"},
		{"ai side without level", "ai_side = 'south', ai_level = NULL"}, // refused by a CHECK, so it never reaches a read
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint("corrupt-", i)
			newGame(t, s, id)
			if _, err := s.Pool().Exec(ctx, "UPDATE games SET "+tc.set+" WHERE id = $1", id); err != nil {
				t.Logf("the database refuses it: %v", err)
				return
			}
			_, err := s.Game(ctx, id)
			if err == nil {
				t.Fatal("a corrupt game was read")
			}
			if errors.Unwrap(err) != nil || errors.Is(err, engine.ErrInvalidNotation) || errors.Is(err, games.ErrNotFound) {
				t.Fatalf("the error wraps %v: %v", errors.Unwrap(err), err)
			}
		})
	}
}
