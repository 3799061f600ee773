package postgres

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
)

// These cases check what only this store's SQL can get wrong: the rating
// writes inside the transaction of the game write, their races across two
// pools, the rollback of ErrRatingsChanged, and the histories' pages. The
// conformance suite (store/storetest) holds every store to the rest.

// mustPlayer stores a player named after its id, with the token id+"-token".
func mustPlayer(t *testing.T, s *Store, id string) players.Player {
	t.Helper()
	p := players.Player{ID: id, Name: "name of " + id, TokenHash: players.TokenHash(id + "-token"),
		CreatedAt: micro(t0), UpdatedAt: micro(t0)}
	if err := s.CreatePlayer(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// liveGame stores an active live game between the players south and north
// ("" for an anonymous seat), rated if rated, last changed at at.
func liveGame(t *testing.T, s *Store, id, south, north string, rated bool, at time.Time) games.Game {
	t.Helper()
	g := games.Game{ID: id, CreatedAt: at, UpdatedAt: at, JoinedAt: at, Start: engine.Start(),
		Position: engine.Start(), Status: games.Active, Version: 1, Rated: rated,
		Tokens:      [2][]byte{hashOf(id + "-south"), hashOf(id + "-north")},
		TimeControl: games.TimeControl{Kind: games.Live, Initial: time.Minute, Increment: time.Second},
		Clock:       [2]time.Duration{time.Minute, time.Minute}}
	for side, pl := range []string{south, north} {
		if pl != "" {
			g.Players[side] = games.SeatPlayer{ID: pl, Name: "name of " + pl, Rating: players.InitialValue,
				Deviation: players.InitialDeviation}
		}
	}
	if err := s.CreateGame(t.Context(), g, nil); err != nil {
		t.Fatal(err)
	}
	return g
}

// matchOf is the match of g ending with South scoring score, from the
// ratings the players have in s now.
func matchOf(t *testing.T, s *Store, g games.Game, score float64, at time.Time) *players.Match {
	t.Helper()
	var before [2]players.Rating
	ids := [2]string{g.Players[0].ID, g.Players[1].ID}
	for i, id := range ids {
		before[i] = players.NewRating()
		if id != "" {
			p, err := s.Player(t.Context(), id)
			switch {
			case errors.Is(err, players.ErrNotFound): // gone: the store skips the seat
			case err != nil:
				t.Fatal(err)
			default:
				before[i] = p.Rating(g.Category())
			}
		}
	}
	c := players.Category("")
	if g.Rated {
		c = g.Category()
	}
	m := players.NewMatch(ids, score, c, before, micro(at))
	return &m
}

func TestPlayerRoundTrip(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	p := mustPlayer(t, s, "ada")
	if err := s.CreatePlayer(ctx, p); !errors.Is(err, players.ErrConflict) {
		t.Fatalf("second create: %v, want ErrConflict", err)
	}
	got, err := s.Player(ctx, "ada")
	if err != nil || got.Name != p.Name || !slices.Equal(got.TokenHash, p.TokenHash) || got.Ratings != nil ||
		!got.CreatedAt.Equal(p.CreatedAt) || got.Counts != (players.Counts{}) {
		t.Fatalf("Player = %+v, %v; want %+v", got, err, p)
	}
	if got, err := s.PlayerByToken(ctx, p.TokenHash); err != nil || got.ID != "ada" {
		t.Fatalf("PlayerByToken = %+v, %v", got, err)
	}
	if _, err := s.PlayerByToken(ctx, players.TokenHash("nobody's")); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("PlayerByToken of an unknown token: %v", err)
	}
	later := t0.Add(time.Hour)
	if got, err := s.RenamePlayer(ctx, "ada", "Ada L.", later); err != nil || got.Name != "Ada L." || !got.UpdatedAt.Equal(micro(later)) {
		t.Fatalf("RenamePlayer = %+v, %v", got, err)
	}
	if _, err := s.RenamePlayer(ctx, "bob", "Bob", later); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("RenamePlayer of nobody: %v", err)
	}
	fresh := players.TokenHash("fresh")
	if err := s.SetPlayerToken(ctx, "ada", players.TokenHash("wrong"), fresh, later); !errors.Is(err, players.ErrConflict) {
		t.Fatalf("SetPlayerToken with a stale hash: %v", err)
	}
	if err := s.SetPlayerToken(ctx, "bob", p.TokenHash, fresh, later); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("SetPlayerToken of nobody: %v", err)
	}
	if err := s.SetPlayerToken(ctx, "ada", p.TokenHash, fresh, later); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PlayerByToken(ctx, p.TokenHash); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("the old token still finds the player: %v", err)
	}
	if err := s.DeletePlayer(ctx, "ada"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePlayer(ctx, "ada"); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

// TestRotationRace: of concurrent rotations from one token, exactly one
// replaces it.
func TestRotationRace(t *testing.T) {
	s := openFresh(t)
	p := mustPlayer(t, s, "ada")
	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.SetPlayerToken(t.Context(), "ada", p.TokenHash, players.TokenHash(fmt.Sprint(i)), t0)
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, players.ErrConflict):
			t.Fatalf("rotation: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d rotations won, want 1", won)
	}
}

// TestRatedEndRace: instances on two pools end one rated game at once; the
// game's version lets exactly one through, and the ratings and counts move
// once.
func TestRatedEndRace(t *testing.T) {
	dsn := freshSchema(t)
	s := openOn(t, dsn, Options{})
	other := openOn(t, dsn, Options{})
	mustPlayer(t, s, "ada")
	mustPlayer(t, s, "bob")
	g := liveGame(t, s, "g1", "ada", "bob", true, t0)
	at := t0.Add(time.Minute)
	m := matchOf(t, s, g, 1, at)
	e := games.End{ID: g.ID, Version: g.Version, Status: games.Finished, Result: engine.TimeoutResult(engine.North),
		At: at, Match: m}
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		st := s
		if i%2 == 1 {
			st = other
		}
		wg.Go(func() { _, errs[i] = st.End(t.Context(), e) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, games.ErrConflict):
			t.Fatalf("End: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d ends won, want 1", won)
	}
	ada, err := s.Player(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if r := ada.Rating(players.Live); !sameRating(r, m.After[0]) || r.Games != 1 {
		t.Errorf("ada's rating %+v, want %+v", r, m.After[0])
	}
	if want := (players.Counts{Games: 1, Wins: 1, Rated: 1}); ada.Counts != want {
		t.Errorf("ada's counts %+v, want %+v", ada.Counts, want)
	}
	bob, err := s.Player(t.Context(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	if want := (players.Counts{Games: 1, Losses: 1, Rated: 1}); bob.Counts != want {
		t.Errorf("bob's counts %+v, want %+v", bob.Counts, want)
	}
	ended, err := s.Game(t.Context(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	for side, seat := range ended.Players {
		want := m.After[side].Value - m.Before[side].Value
		if !seat.HasChange || math.Abs(seat.Change-want) > 1e-9 || seat.Rating != m.Before[side].Value {
			t.Errorf("seat %d: %+v, want a change of %v from %v", side, seat, want, m.Before[side].Value)
		}
	}
	entries, err := s.PlayerGames(t.Context(), "bob", players.GamesQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if want := []players.GameEntry{ended.Entry(engine.North)}; !slices.Equal(entries, want) {
		t.Errorf("bob's games %+v, want %+v", entries, want)
	}
	if entries[0].Result != players.Loss || entries[0].Opponent != "ada" || !entries[0].Rated {
		t.Errorf("bob's entry %+v", entries[0])
	}
}

// sameRating compares ratings as stored (times to the microsecond).
func sameRating(a, b players.Rating) bool {
	return a.Value == b.Value && a.Deviation == b.Deviation && a.Volatility == b.Volatility &&
		a.Games == b.Games && a.At.Equal(micro(b.At))
}

// TestRatingsChangedRollsBack: a match read from a rating that has moved
// since writes nothing, not even the game's end.
func TestRatingsChangedRollsBack(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustPlayer(t, s, "ada")
	mustPlayer(t, s, "bob")
	mustPlayer(t, s, "cy")
	g1 := liveGame(t, s, "g1", "ada", "bob", true, t0)
	g2 := liveGame(t, s, "g2", "ada", "cy", true, t0)
	at := t0.Add(time.Minute)
	m1, m2 := matchOf(t, s, g1, 0.5, at), matchOf(t, s, g2, 0, at) // both read ada's rating with 0 games
	if _, err := s.Resign(ctx, g1.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.Draw}, at, m1); err != nil {
		t.Fatal(err)
	}
	res := engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}
	if _, err := s.Resign(ctx, g2.ID, res, at, m2); !errors.Is(err, players.ErrRatingsChanged) {
		t.Fatalf("Resign from a stale rating: %v, want ErrRatingsChanged", err)
	}
	if g, err := s.Game(ctx, g2.ID); err != nil || g.Status != games.Active || g.Players[0].HasChange {
		t.Fatalf("after the refused resignation: %+v, %v", g, err)
	}
	if cy, err := s.Player(ctx, "cy"); err != nil || cy.Counts != (players.Counts{}) || cy.Ratings != nil {
		t.Fatalf("cy after the refused resignation: %+v, %v", cy, err)
	}
	// Read again, as the service does: now it goes through.
	m2 = matchOf(t, s, g2, 0, at)
	if _, err := s.Resign(ctx, g2.ID, res, at, m2); err != nil {
		t.Fatal(err)
	}
	ada, err := s.Player(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	if r := ada.Rating(players.Live); r.Games != 2 || !sameRating(r, m2.After[0]) {
		t.Errorf("ada's rating %+v, want %+v", r, m2.After[0])
	}
	if want := (players.Counts{Games: 2, Draws: 1, Losses: 1, Rated: 2}); ada.Counts != want {
		t.Errorf("ada's counts %+v, want %+v", ada.Counts, want)
	}
}

// TestConcurrentEndsShareAPlayer: two rated games of one player end at
// once from the same reading of its rating; one goes through and the other
// is told to read again, never both, never a deadlock.
func TestConcurrentEndsShareAPlayer(t *testing.T) {
	s := openFresh(t)
	mustPlayer(t, s, "ada")
	const n = 6
	ends := make([]games.End, n)
	for i := range n {
		opp := fmt.Sprintf("opp%d", i)
		mustPlayer(t, s, opp)
		g := liveGame(t, s, fmt.Sprintf("g%d", i), opp, "ada", true, t0)
		at := t0.Add(time.Minute)
		ends[i] = games.End{ID: g.ID, Version: g.Version, Status: games.Finished,
			Result: engine.TimeoutResult(engine.South), At: at, Match: matchOf(t, s, g, 0, at)}
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = s.End(t.Context(), ends[i]) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, players.ErrRatingsChanged):
			t.Fatalf("End: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d ends went through, want 1", won)
	}
	ada, err := s.Player(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if ada.Counts.Games != 1 || ada.Rating(players.Live).Games != 1 {
		t.Fatalf("ada: %+v", ada)
	}
}

// TestApplyPlayMatch: the move that ends a game applies its match in the
// same write; an unrated game moves only the counts, and a seat whose
// player is gone is skipped.
func TestApplyPlayMatch(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustPlayer(t, s, "ada")
	g := liveGame(t, s, "g1", "ada", "gone", false, t0)
	at := t0.Add(time.Second)
	p := playOn(t, g, 0, g.ID+"-south", at)
	p.Game.Status, p.Game.Result = games.Finished, engine.Result{Reason: engine.ByMajority, Winner: engine.SouthWins}
	p.Match = matchOf(t, s, g, 1, at)
	if p.Match.Rated() {
		t.Fatal("an unrated game's match is rated")
	}
	if err := s.ApplyPlay(ctx, p); err != nil {
		t.Fatal(err)
	}
	ada, err := s.Player(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	if want := (players.Counts{Games: 1, Wins: 1}); ada.Counts != want || ada.Ratings != nil {
		t.Fatalf("ada: %+v, want counts %+v and no rating", ada, want)
	}
	ended, err := s.Game(ctx, g.ID)
	if err != nil || ended.Status != games.Finished || ended.Players[0].HasChange || ended.Ply != 1 {
		t.Fatalf("game: %+v, %v", ended, err)
	}
	// The same write again is a conflict, and counts nothing twice.
	if err := s.ApplyPlay(ctx, p); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("second ApplyPlay: %v", err)
	}
	if ada, _ := s.Player(ctx, "ada"); ada.Counts.Games != 1 {
		t.Fatalf("ada counted twice: %+v", ada.Counts)
	}
}

// TestApplyPlayRatedMatch: the move that ends a rated game writes the
// seats' ratings on the game (ratedPlaySQL) and moves the players' ratings,
// in the same write; the batches' statement, which carries no ratings,
// leaves them as they were.
func TestApplyPlayRatedMatch(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustPlayer(t, s, "ada")
	mustPlayer(t, s, "bob")
	g := liveGame(t, s, "g1", "ada", "bob", true, t0)
	// A move through the batches first: the seats keep what the join set.
	first := playOn(t, g, 0, g.ID+"-south", t0.Add(time.Second))
	if err := s.ApplyPlay(ctx, first); err != nil {
		t.Fatal(err)
	}
	mid, err := s.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Players != g.Players {
		t.Fatalf("seats after a batch's move: %+v, want %+v", mid.Players, g.Players)
	}
	at := t0.Add(time.Minute)
	legal := mid.Position.LegalMoves(mid.Rules)
	p := playOn(t, mid, legal.Next(), g.ID+"-north", at)
	p.Game.Status, p.Game.Result = games.Finished, engine.Result{Reason: engine.ByMajority, Winner: engine.NorthWins}
	p.Match = matchOf(t, s, g, 0, at)
	if !p.Match.Rated() {
		t.Fatal("a rated game's match is not rated")
	}
	if err := s.ApplyPlay(ctx, p); err != nil {
		t.Fatal(err)
	}
	ended, err := s.Game(ctx, g.ID)
	if err != nil || ended.Status != games.Finished {
		t.Fatalf("game: %+v, %v", ended, err)
	}
	for side, id := range []string{"ada", "bob"} {
		seat, b, a := ended.Players[side], p.Match.Before[side], p.Match.After[side]
		if seat.ID != id || !seat.HasChange || seat.Rating != b.Value || seat.Deviation != b.Deviation ||
			seat.Change != a.Value-b.Value {
			t.Errorf("seat %d: %+v, want %s rated %v (deviation %v) changed by %v", side, seat, id, b.Value, b.Deviation, a.Value-b.Value)
		}
		pl, err := s.Player(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r := pl.Rating(players.Live); !sameRating(r, a) {
			t.Errorf("%s's rating %+v, want %+v", id, r, a)
		}
	}
}

// TestJoinKeepsSeatPlayer: the joiner's player goes in the open seat.
func TestJoinKeepsSeatPlayer(t *testing.T) {
	s := openFresh(t)
	g := newGame(t, s, "g1")
	sp := games.SeatPlayer{ID: "bob", Name: "Bob", Rating: 1623.5, Deviation: 80.25}
	joined, err := s.Join(t.Context(), g.ID, hashOf("north"), t0, time.Time{}, sp)
	if err != nil {
		t.Fatal(err)
	}
	if joined.Players[engine.North] != sp || joined.Players[engine.South] != (games.SeatPlayer{}) {
		t.Fatalf("seats %+v, want North %+v", joined.Players, sp)
	}
	if got, err := s.Game(t.Context(), g.ID); err != nil || got.Players != joined.Players {
		t.Fatalf("read back %+v, %v", got.Players, err)
	}
}

// TestPlayerGamesPages: a history pages newest first, ties by id, with its
// filters, through both seats.
func TestPlayerGamesPages(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustPlayer(t, s, "ada")
	type want struct {
		id     string
		result players.Result
	}
	var all []want
	for i := range 7 {
		at := t0.Add(time.Duration(i/2) * time.Hour) // pairs share an end: ties by id
		id := fmt.Sprintf("g%d", i)
		south, north := "ada", ""
		if i%2 == 1 {
			south, north = "", "ada"
		}
		g := liveGame(t, s, id, south, north, false, at)
		winner := engine.SouthWins
		if i%3 == 0 {
			winner = engine.Draw
		}
		m := matchOf(t, s, g, 1, at)
		if _, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: winner}, at, m); err != nil {
			t.Fatal(err)
		}
		r := players.Draw
		if winner != engine.Draw {
			r = players.Win
			if north == "ada" {
				r = players.Loss
			}
		}
		all = append(all, want{id, r})
	}
	liveGame(t, s, "active", "ada", "", false, t0) // not finished: not listed
	slices.Reverse(all)                            // newest first; within a pair the higher id first
	var got []want
	q := players.GamesQuery{Limit: 3}
	for {
		page, err := s.PlayerGames(ctx, "ada", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			got = append(got, want{e.GameID, e.Result})
		}
		if len(page) < q.Limit {
			break
		}
		last := page[len(page)-1]
		q.After = players.GameCursor{EndedAt: last.EndedAt, GameID: last.GameID}
	}
	if !slices.Equal(got, all) {
		t.Fatalf("pages %v, want %v", got, all)
	}
	for _, r := range []players.Result{players.Win, players.Loss, players.Draw} {
		page, err := s.PlayerGames(ctx, "ada", players.GamesQuery{Limit: 10, Result: r, Category: players.Live})
		if err != nil {
			t.Fatal(err)
		}
		var ids, wantIDs []string
		for _, e := range page {
			ids = append(ids, e.GameID)
		}
		for _, w := range all {
			if w.result == r {
				wantIDs = append(wantIDs, w.id)
			}
		}
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("%s: %v, want %v", r, ids, wantIDs)
		}
	}
	if page, err := s.PlayerGames(ctx, "ada", players.GamesQuery{Limit: 10, Category: players.Correspondence}); err != nil || len(page) != 0 {
		t.Errorf("correspondence games: %v, %v", page, err)
	}
}

// TestDeletePlayerClearsSeats: the deleted player's games stay, with its
// seats anonymous, finished or not, and its ratings and history go.
func TestDeletePlayerClearsSeats(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustPlayer(t, s, "ada")
	mustPlayer(t, s, "bob")
	done := liveGame(t, s, "done", "ada", "bob", true, t0)
	at := t0.Add(time.Minute)
	if _, err := s.Resign(ctx, done.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, at,
		matchOf(t, s, done, 1, at)); err != nil {
		t.Fatal(err)
	}
	liveGame(t, s, "playing", "bob", "ada", false, t0)
	sv := players.NewSolve("ada", "p1", "k1", true, time.Time{}, [2]players.Rating{players.NewRating(), players.NewRating()}, at)
	if _, _, err := s.RecordSolve(ctx, sv, false); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePlayer(ctx, "ada"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"done", "playing"} {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for side, seat := range g.Players {
			if seat.ID == "ada" || (seat.ID == "" && seat.Name != "") {
				t.Errorf("game %s seat %d still names ada: %+v", id, side, seat)
			}
		}
	}
	entries, err := s.PlayerGames(ctx, "bob", players.GamesQuery{Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].Opponent != "" || entries[0].OpponentName != "" ||
		!entries[0].Rated || entries[0].Result != players.Loss {
		t.Fatalf("bob's games %+v, %v", entries, err)
	}
	var rows int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM player_ratings WHERE player_id = 'ada')
		+ (SELECT count(*) FROM player_puzzles WHERE player_id = 'ada')`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d rows of ada's left, %v", rows, err)
	}
}

// TestRecordSolve: the first attempt is rated and kept, later ones are not,
// a daily solve on its day counts for the streak, and a solve for an
// unknown puzzle writes nothing.
func TestRecordSolve(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustPlayer(t, s, "ada")
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	at := day.Add(9*time.Hour + 1234*time.Microsecond)
	fresh := [2]players.Rating{players.NewRating(), {Value: 1700, Deviation: 200, Volatility: 0.06}}
	sv := players.NewSolve("ada", "p20260314", "p20260314", true, day, fresh, at)
	if _, first, err := s.RecordSolve(ctx, sv, false); err != nil || !first {
		t.Fatalf("first attempt: first %v, %v", first, err)
	}
	if _, first, err := s.RecordSolve(ctx, sv, false); err != nil || first {
		t.Fatalf("second attempt: first %v, %v", first, err)
	}
	r, ok, err := s.PuzzleRating(ctx, sv.Key)
	if err != nil || !ok || !sameRating(r, sv.After[1]) {
		t.Fatalf("PuzzleRating = %+v, %v, %v; want %+v", r, ok, err, sv.After[1])
	}
	ada, err := s.Player(ctx, "ada")
	if err != nil || !sameRating(ada.Rating(players.Puzzles), sv.After[0]) ||
		ada.Counts != (players.Counts{Puzzles: 1, Solved: 1}) {
		t.Fatalf("ada: %+v, %v", ada, err)
	}
	if seen, err := s.Attempted(ctx, "ada", sv.PuzzleID); err != nil || !seen {
		t.Fatalf("Attempted = %v, %v", seen, err)
	}
	days, err := s.DailySolves(ctx, "ada", 10)
	if err != nil || !slices.Equal(days, []time.Time{day}) {
		t.Fatalf("DailySolves = %v, %v", days, err)
	}
	entries, err := s.PlayerPuzzles(ctx, "ada", players.PuzzleCursor{}, 10)
	if err != nil || len(entries) != 1 || !entries[0].At.Equal(micro(at)) || !entries[0].Daily.Equal(day) ||
		entries[0].Rating.After.Value != sv.After[0].Value || entries[0].Rating.Before.Deviation != sv.Before[0].Deviation {
		t.Fatalf("PlayerPuzzles = %+v, %v", entries, err)
	}
	// count with no stored puzzle: nothing at all is written.
	other := players.NewSolve("ada", "p20260315", "p20260315", true, day.AddDate(0, 0, 1), [2]players.Rating{ada.Rating(players.Puzzles), players.NewRating()}, at)
	if _, _, err := s.RecordSolve(ctx, other, true); !errors.Is(err, puzzles.ErrNotFound) {
		t.Fatalf("RecordSolve counting an unknown puzzle: %v", err)
	}
	if seen, _ := s.Attempted(ctx, "ada", other.PuzzleID); seen {
		t.Fatal("the refused attempt was kept")
	}
	if _, _, err := s.RecordSolve(ctx, players.NewSolve("nobody", "p1", "k", false, time.Time{}, fresh, at), false); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("RecordSolve of nobody: %v", err)
	}
}

// TestFirstSolvesRace: players make their first attempts at one new
// puzzle key at once, all from its unrated start; the first to write rates
// it, the others are told to read again, and none fails otherwise (the row
// none of them could lock is made by the first).
func TestFirstSolvesRace(t *testing.T) {
	s := openFresh(t)
	const n = 6
	solves := make([]players.Solve, n)
	for i := range n {
		id := fmt.Sprintf("pl%d", i)
		mustPlayer(t, s, id)
		solves[i] = players.NewSolve(id, "practice-1", "bucket", i%2 == 0, time.Time{},
			[2]players.Rating{players.NewRating(), players.NewRating()}, t0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, _, errs[i] = s.RecordSolve(t.Context(), solves[i], false) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, players.ErrRatingsChanged):
			t.Fatalf("RecordSolve: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d first attempts went through, want 1", won)
	}
	if r, ok, err := s.PuzzleRating(t.Context(), "bucket"); err != nil || !ok || r.Games != 1 {
		t.Fatalf("PuzzleRating = %+v, %v, %v", r, ok, err)
	}
}

// TestLeaderboard: rated players above the deviation bar and active since
// the cut, best first, ties by id.
func TestLeaderboard(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	for _, id := range []string{"a", "b", "c", "d"} {
		mustPlayer(t, s, id)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, r := range []struct {
		id       string
		value    float64
		dev      float64
		at       time.Time
		category players.Category
	}{
		{"a", 1800, 60, t0, players.Live},
		{"b", 1900, 60, t0, players.Live},
		{"c", 1800, 60, t0, players.Live},
		{"d", 2500, 200, t0, players.Live},                        // provisional
		{"a", 2600, 60, t0, players.Correspondence},               // another category
		{"b", 1850, 60, t0.Add(-48 * time.Hour), players.Puzzles}, // not since
	} {
		if err := putRating(ctx, tx, r.id, r.category, players.Rating{Value: r.value, Deviation: r.dev, Volatility: 0.06, Games: 20, At: r.at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	board, err := s.Leaderboard(ctx, players.Live, players.ProvisionalDeviation, t0.Add(-time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range board {
		ids = append(ids, l.PlayerID)
	}
	if !slices.Equal(ids, []string{"b", "a", "c"}) || board[0].Name != "name of b" || board[0].Rating.Games != 20 {
		t.Fatalf("leaderboard %+v", board)
	}
	if board, err := s.Leaderboard(ctx, players.Puzzles, players.ProvisionalDeviation, t0.Add(-time.Hour), 10); err != nil || len(board) != 0 {
		t.Fatalf("puzzle leaderboard %+v, %v", board, err)
	}
}

// TestDeletionsShareGames: two players who sat on both sides of several
// games against each other are deleted at once. Each clears its seats in
// its own order, which can deadlock (the server then aborts one, and inTx
// runs it again; this test does not force the interleaving): both go
// through, and no seat names either.
func TestDeletionsShareGames(t *testing.T) {
	s := openFresh(t)
	mustPlayer(t, s, "ada")
	mustPlayer(t, s, "bob")
	for i := range 20 {
		south, north := "ada", "bob"
		if i%2 == 1 {
			south, north = north, south
		}
		liveGame(t, s, fmt.Sprintf("g%02d", i), south, north, false, t0)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range []string{"ada", "bob"} {
		wg.Go(func() { errs[i] = s.DeletePlayer(t.Context(), id) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var named int
	if err := s.pool.QueryRow(t.Context(), `SELECT count(*) FROM games
		WHERE south_player IS NOT NULL OR north_player IS NOT NULL OR south_name <> '' OR north_name <> ''`).Scan(&named); err != nil || named != 0 {
		t.Fatalf("%d games still name a player, %v", named, err)
	}
}
