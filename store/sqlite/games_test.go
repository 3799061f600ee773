package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

func openGamesTemp(t *testing.T) (*Store, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "games.db")
	s, err := Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, file
}

func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// newGame stores a game between two people, South seated, North waiting.
func newGame(t *testing.T, s *Store, id string) Game {
	t.Helper()
	g := Game{ID: id, CreatedAt: t0, UpdatedAt: t0, Start: engine.Start(), Position: engine.Start(),
		Status: Waiting, Tokens: [2][]byte{hashOf(id + "-south"), nil}}
	if err := s.CreateGame(context.Background(), g, nil); err != nil {
		t.Fatal(err)
	}
	return g
}

// playOn computes the move pit at the game's current position with the
// engine, as the api layer does, and returns the play to store.
func playOn(t *testing.T, g Game, pit int, token string, at time.Time) Play {
	t.Helper()
	var out engine.Outcome
	engine.Play(g.Position, pit, g.Rules, &out)
	if !out.Legal() {
		t.Fatalf("pit %d at %s: %s", pit, g.Position, out.Reason)
	}
	m := Move{Ply: g.Ply, Side: g.Position.ToMove, Pit: pit, Legs: slices.Clone(out.Legs), Capture: out.Capture,
		Position: out.Position, Result: out.Result, At: at}
	return Play{GameID: g.ID, Ply: g.Ply, TokenHash: hashOf(token), Moves: []Move{m},
		Answer: fmt.Appendf(nil, `{"ply":%d,"pit":%d}`, g.Ply, pit), At: at}
}

func TestCreateGetJoin(t *testing.T) {
	ctx := context.Background()
	s, _ := openGamesTemp(t)
	want := newGame(t, s, "g1")
	got, err := s.Game(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != Waiting || got.Ply != 0 || got.Position != engine.Start() || got.Version != 1 ||
		!got.CreatedAt.Equal(t0) || got.AI != nil || !slices.Equal(got.Tokens[0], want.Tokens[0]) ||
		got.Tokens[1] != nil || len(got.History) != 0 || got.Result.Over() {
		t.Fatalf("stored game %+v, want %+v", got, want)
	}
	if _, err := s.Game(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown game: %v, want ErrNotFound", err)
	}

	// A move before the second player joins is refused.
	if _, err := s.ApplyPlay(ctx, playOn(t, got, 0, "g1-south", t0)); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("move while waiting: %v, want ErrNotStarted", err)
	}

	// Twenty players try to join at once: exactly one gets the seat.
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.Join(ctx, "g1", hashOf(fmt.Sprint("joiner", i)), t0.Add(time.Second))
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Fatalf("joins %d and %d both succeeded", winner, i)
		case !errors.Is(err, ErrSeatTaken):
			t.Fatalf("join %d: %v, want ErrSeatTaken", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("nobody joined")
	}
	got, err = s.Game(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != Active || got.Version != 2 || !slices.Equal(got.Tokens[1], hashOf(fmt.Sprint("joiner", winner))) ||
		!slices.Equal(got.Tokens[0], want.Tokens[0]) || !got.JoinedAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("after join: %+v", got)
	}
	if _, err := s.Join(ctx, "nope", hashOf("x"), t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("join unknown game: %v, want ErrNotFound", err)
	}
}

func TestAIGameCreatedWithOpeningMove(t *testing.T) {
	ctx := context.Background()
	s, _ := openGamesTemp(t)
	g := Game{ID: "ai", CreatedAt: t0, UpdatedAt: t0, JoinedAt: t0, Rules: engine.Rules{CaptureSeed: engine.CaptureLeft},
		Start: engine.Start(), Position: engine.Start(), Status: Active, AI: &AI{Side: engine.South, Level: 5},
		Tokens: [2][]byte{nil, hashOf("me")}}
	p := playOn(t, g, 2, "", t0)
	p.Moves[0].ByAI = true
	g.Ply, g.Position, g.History = 1, p.Moves[0].Position, []byte{2}
	if err := s.CreateGame(ctx, g, p.Moves); err != nil {
		t.Fatal(err)
	}
	got, err := s.Game(ctx, "ai")
	if err != nil {
		t.Fatal(err)
	}
	if *got.AI != (AI{Side: engine.South, Level: 5}) || got.Rules != g.Rules || got.Ply != 1 ||
		got.Position != g.Position || !slices.Equal(got.History, []byte{2}) || got.Tokens[0] != nil {
		t.Fatalf("stored %+v, want %+v", got, g)
	}
	ms, err := s.Moves(ctx, "ai", 0, 10)
	if err != nil || len(ms) != 1 || !ms[0].ByAI || ms[0].Pit != 2 || ms[0].Side != engine.South {
		t.Fatalf("moves %+v (%v), want the AI's opening pit 2", ms, err)
	}
}

func TestApplyPlayRefusalsAndReplay(t *testing.T) {
	ctx := context.Background()
	s, _ := openGamesTemp(t)
	newGame(t, s, "g")
	g, err := s.Join(ctx, "g", hashOf("g-north"), t0)
	if err != nil {
		t.Fatal(err)
	}
	first := playOn(t, g, 0, "g-south", t0)
	replay, err := s.ApplyPlay(ctx, first)
	if err != nil || replay != nil {
		t.Fatalf("first move: %v, replay %q", err, replay)
	}
	if g, err = s.Game(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	if g.Ply != 1 || g.Position != first.Moves[0].Position || !slices.Equal(g.History, []byte{0}) || g.Version != 3 {
		t.Fatalf("after the first move: %+v", g)
	}

	tests := []struct {
		name       string
		ply, pit   int
		token      string
		wantErr    error
		wantReplay bool
		current    int
	}{
		{"identical retry", 0, 0, "g-south", nil, true, 0},
		{"same ply other pit", 0, 1, "g-south", ErrStalePly, false, 1},
		{"same ply and pit, other token", 0, 0, "g-north", ErrStalePly, false, 1},
		{"future ply", 5, 7, "g-north", ErrStalePly, false, 1},
		{"current ply", 1, 7, "g-north", nil, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answer, err := s.Refusal(ctx, "g", tc.ply, tc.pit, hashOf(tc.token))
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("refusal %v, want %v", err, tc.wantErr)
			}
			if tc.wantReplay != (answer != nil) || (answer != nil && string(answer) != string(first.Answer)) {
				t.Fatalf("answer %q, want replay %v", answer, tc.wantReplay)
			}
			var stale *StalePlyError
			if errors.As(err, &stale) && (stale.Current != tc.current || stale.Sent != tc.ply) {
				t.Fatalf("stale error %+v, want current %d", stale, tc.current)
			}
		})
	}

	// ApplyPlay itself answers the identical retry from the stored answer and
	// writes nothing.
	replay, err = s.ApplyPlay(ctx, first)
	if err != nil || string(replay) != string(first.Answer) {
		t.Fatalf("retry: %v, replay %q, want the stored answer", err, replay)
	}
	if ms, _ := s.Moves(ctx, "g", 0, 100); len(ms) != 1 {
		t.Fatalf("%d moves stored after a retry, want 1", len(ms))
	}

	res := engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}
	if g, err = s.Resign(ctx, "g", res, t0); err != nil || g.Status != Finished || g.Result != res {
		t.Fatalf("resign: %+v, %v", g, err)
	}
	if _, err := s.Resign(ctx, "g", res, t0); !errors.Is(err, ErrFinished) {
		t.Fatalf("second resignation: %v, want ErrFinished", err)
	}
	if _, err := s.ApplyPlay(ctx, playOn(t, g, 7, "g-north", t0)); !errors.Is(err, ErrFinished) {
		t.Fatalf("move after resignation: %v, want ErrFinished", err)
	}
	if _, err := s.Resign(ctx, "nope", res, t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("resign unknown: %v, want ErrNotFound", err)
	}
	// The retry of the first move is still answered after the game ended.
	if answer, err := s.Refusal(ctx, "g", 0, 0, hashOf("g-south")); err != nil || answer == nil {
		t.Fatalf("retry after the end: %q, %v", answer, err)
	}
}

// TestConcurrentPlaysSamePly: twenty writers race for each ply of one game.
// Exactly one is stored per ply; the others learn the ply moved on, and the
// history has no gap and no duplicate.
func TestConcurrentPlaysSamePly(t *testing.T) {
	ctx := context.Background()
	s, _ := openGamesTemp(t)
	newGame(t, s, "race")
	g, err := s.Join(ctx, "race", hashOf("race-north"), t0)
	if err != nil {
		t.Fatal(err)
	}
	const racers = 20
	for round := 0; round < 8 && g.Status == Active; round++ {
		legal := g.Position.LegalMoves(g.Rules)
		var pits []int
		for m := legal; m != 0; {
			pits = append(pits, m.Next())
		}
		plays := make([]Play, racers)
		for i := range plays {
			// Each racer is a different client, so none is a retry of another.
			plays[i] = playOn(t, g, pits[i%len(pits)], fmt.Sprint("client", i), t0)
		}
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range plays {
			wg.Go(func() {
				var replay []byte
				replay, errs[i] = s.ApplyPlay(ctx, plays[i])
				if replay != nil {
					errs[i] = fmt.Errorf("unexpected replay %q", replay)
				}
			})
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			var stale *StalePlyError
			switch {
			case err == nil && won >= 0:
				t.Fatalf("ply %d: racers %d and %d both stored", g.Ply, won, i)
			case err == nil:
				won = i
			case !errors.As(err, &stale) || stale.Current != g.Ply+1:
				t.Fatalf("ply %d, racer %d: %v, want stale at ply %d", g.Ply, i, err, g.Ply+1)
			}
		}
		if won < 0 {
			t.Fatalf("ply %d: no racer stored", g.Ply)
		}
		if g, err = s.Game(ctx, "race"); err != nil {
			t.Fatal(err)
		}
		if want := plays[won].Moves[0].Position; g.Position != want || g.Ply != plays[won].Ply+1 {
			t.Fatalf("after the race: %s at ply %d, want the winner's %s", g.Position, g.Ply, want)
		}
	}
	ms, err := s.Moves(ctx, "race", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != g.Ply {
		t.Fatalf("%d moves stored, game at ply %d", len(ms), g.Ply)
	}
	for i, m := range ms {
		if m.Ply != i || byte(m.Pit) != g.History[i] {
			t.Fatalf("move %d is ply %d pit %d, history says pit %d", i, m.Ply, m.Pit, g.History[i])
		}
	}
}

func TestMovesPagingAndOutcome(t *testing.T) {
	ctx := context.Background()
	s, file := openGamesTemp(t)
	newGame(t, s, "p")
	g, err := s.Join(ctx, "p", hashOf("p-north"), t0)
	if err != nil {
		t.Fatal(err)
	}
	var want []Move
	tokens := [2]string{"p-south", "p-north"}
	for i := 0; i < 12 && g.Status == Active; i++ {
		legal := g.Position.LegalMoves(g.Rules)
		pit := legal.Next()
		p := playOn(t, g, pit, tokens[g.Position.ToMove], t0.Add(time.Duration(i)*time.Millisecond))
		if _, err = s.ApplyPlay(ctx, p); err != nil {
			t.Fatal(err)
		}
		if g, err = s.Game(ctx, "p"); err != nil {
			t.Fatal(err)
		}
		want = append(want, p.Moves[0])
	}
	tests := []struct {
		name        string
		from, limit int
		first, n    int
	}{
		{"all", 0, 100, 0, len(want)},
		{"first page", 0, 5, 0, 5},
		{"middle", 5, 3, 5, 3},
		{"tail", len(want) - 2, 100, len(want) - 2, 2},
		{"past the end", len(want), 100, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := s.Moves(ctx, "p", tc.from, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != tc.n {
				t.Fatalf("%d moves, want %d", len(ms), tc.n)
			}
			for i, m := range ms {
				w := want[tc.first+i]
				if m.Ply != w.Ply || m.Pit != w.Pit || m.Side != w.Side || m.Position != w.Position ||
					m.Capture != w.Capture || m.Result != w.Result || !slices.Equal(m.Legs, w.Legs) || !m.At.Equal(w.At) {
					t.Fatalf("move %d: %+v, want %+v", tc.first+i, m, w)
				}
			}
		})
	}
	if _, err := s.Moves(ctx, "nope", 0, 10); !errors.Is(err, ErrNotFound) {
		t.Fatalf("moves of an unknown game: %v", err)
	}

	// Everything is still there after the database is closed and reopened.
	s.Close()
	s2, err := Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	again, err := s2.Game(ctx, "p")
	if err != nil || again.Ply != g.Ply || again.Position != g.Position || again.Version != g.Version {
		t.Fatalf("after reopen: %+v (%v), want %+v", again, err, g)
	}
	ms, err := s2.Moves(ctx, "p", 0, 100)
	if err != nil || len(ms) != len(want) {
		t.Fatalf("after reopen: %d moves (%v), want %d", len(ms), err, len(want))
	}
}

// TestMigrateFromVersion1 builds a database as the first release left it
// (only migration 1 applied) and opens it: the newer migrations are applied in
// place and the old data stays.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", dsn(file))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].version != 1 {
		t.Fatalf("first migration is version %d", ms[0].version)
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
		ms[0].sql,
		`INSERT INTO schema_migrations VALUES (1, '0001_meta', '2025-01-01T00:00:00Z')`,
		`INSERT INTO meta (key, value) VALUES ('owner', 'kept')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for _, m := range ms {
		all = append(all, m.version)
	}
	if !slices.Equal(vs, all) {
		t.Fatalf("versions %v after upgrade, want %v", vs, all)
	}
	var owner string
	if err := s.DB().QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'owner'").Scan(&owner); err != nil || owner != "kept" {
		t.Fatalf("old data: %q (%v)", owner, err)
	}
	newGame(t, s, "after-upgrade")
	var check string
	if err := s.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check %q (%v)", check, err)
	}
}

// TestGroupCommitIsolatesWrites sends many games' moves at once, two rivals
// per game for the same ply, so batches mix writes that succeed with writes
// that are refused: each game gets exactly one move, and the refusals undo
// nothing of the others'.
func TestGroupCommitIsolatesWrites(t *testing.T) {
	ctx := context.Background()
	s, _ := openGamesTemp(t)
	const games = 30
	plays := make([]Play, 0, 2*games)
	for i := range games {
		id := fmt.Sprint("gc", i)
		newGame(t, s, id)
		g, err := s.Join(ctx, id, hashOf(id+"-north"), t0)
		if err != nil {
			t.Fatal(err)
		}
		plays = append(plays, playOn(t, g, i%6, "a", t0), playOn(t, g, (i+1)%6, "b", t0))
	}
	errs := make([]error, len(plays))
	var wg sync.WaitGroup
	for i := range plays {
		wg.Go(func() { _, errs[i] = s.ApplyPlay(ctx, plays[i]) })
	}
	wg.Wait()
	for i := 0; i < len(plays); i += 2 {
		a, b := errs[i], errs[i+1]
		if (a == nil) == (b == nil) || !errors.Is(errors.Join(a, b), ErrStalePly) {
			t.Fatalf("game %d: rivals got %v and %v, want one stored and one stale", i/2, a, b)
		}
		won := plays[i]
		if a != nil {
			won = plays[i+1]
		}
		g, err := s.Game(ctx, won.GameID)
		if err != nil || g.Ply != 1 || g.Position != won.Moves[0].Position || g.Version != 3 {
			t.Fatalf("game %d after the race: %+v (%v)", i/2, g, err)
		}
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM moves").Scan(&n); err != nil || n != games {
		t.Fatalf("%d moves stored (%v), want %d", n, err, games)
	}
	s.Close()
	if _, err := s.ApplyPlay(ctx, plays[0]); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after Close: %v, want ErrClosed", err)
	}
}
