package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// TestGroupCommitIsolatesWrites sends many games' moves at once, two rivals
// per game for the same ply, so batches mix writes that succeed with writes
// that are refused: each game gets exactly one move, and the refusals undo
// nothing of the others'.
func TestGroupCommitIsolatesWrites(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t)
	const n = 30
	plays := make([]games.Play, 0, 2*n)
	for i := range n {
		g := joinedGame(t, s, fmt.Sprint("gc", i))
		plays = append(plays, playOn(t, g, i%6, "a", t0), playOn(t, g, (i+1)%6, "b", t0))
	}
	errs := make([]error, len(plays))
	var wg sync.WaitGroup
	for i := range plays {
		wg.Go(func() { errs[i] = s.ApplyPlay(ctx, plays[i]) })
	}
	wg.Wait()
	for i := 0; i < len(plays); i += 2 {
		a, b := errs[i], errs[i+1]
		if (a == nil) == (b == nil) || !errors.Is(errors.Join(a, b), games.ErrConflict) {
			t.Fatalf("game %d: rivals got %v and %v, want one stored and one conflict", i/2, a, b)
		}
		won := plays[i]
		if a != nil {
			won = plays[i+1]
		}
		g, err := s.Game(ctx, won.GameID)
		if err != nil || g.Ply != 1 || g.Position != won.Game.Position || g.Version != 3 {
			t.Fatalf("game %d after the race: %+v (%v)", i/2, g, err)
		}
	}
	var moves int
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM moves").Scan(&moves); err != nil || moves != n {
		t.Fatalf("%d moves stored (%v), want %d", moves, err, n)
	}
}

// TestWritesAfterClose: every write after Close fails with ErrClosed.
func TestWritesAfterClose(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t)
	g := joinedGame(t, s, "closed")
	p := playOn(t, g, 0, "closed-south", t0)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func() error
	}{
		{"CreateGame", func() error { return s.CreateGame(ctx, games.Game{ID: "new", Status: games.Waiting}, nil) }},
		{"Join", func() error {
			_, err := s.Join(ctx, "closed", hashOf("x"), t0, time.Time{}, games.SeatPlayer{})
			return err
		}},
		{"ApplyPlay", func() error { return s.ApplyPlay(ctx, p) }},
		{"Resign", func() error {
			_, err := s.Resign(ctx, "closed", engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, t0, nil)
			return err
		}},
		{"AddPuzzle", func() error {
			_, err := s.AddPuzzle(ctx, gen.Puzzle{ID: "p20260301", Date: t0}, t0)
			return err
		}},
		{"RecordAttempt", func() error { _, err := s.RecordAttempt(ctx, "p20260301", true); return err }},
		{"CreatePlayer", func() error {
			return s.CreatePlayer(ctx, players.Player{ID: "pl", Name: "P", TokenHash: hashOf("pl"), CreatedAt: t0, UpdatedAt: t0})
		}},
		{"RenamePlayer", func() error { _, err := s.RenamePlayer(ctx, "pl", "Q", t0); return err }},
		{"SetPlayerToken", func() error { return s.SetPlayerToken(ctx, "pl", hashOf("pl"), hashOf("pl2"), t0) }},
		{"DeletePlayer", func() error { return s.DeletePlayer(ctx, "pl") }},
		{"RecordSolve", func() error {
			_, _, err := s.RecordSolve(ctx, players.Solve{Player: "pl", PuzzleID: "p20260301", Key: "p20260301", At: t0}, true)
			return err
		}},
		{"End with a match", func() error {
			m := players.NewMatch([2]string{"pl", ""}, 1, "", [2]players.Rating{}, t0)
			_, err := s.End(ctx, games.End{ID: "closed", Version: g.Version, Status: games.Finished,
				Result: engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, At: t0, Match: &m})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Named as the store's failure: the service answers 503.
			if err := tc.write(); !errors.Is(err, ErrClosed) || !errors.Is(err, fault.ErrUnavailable) {
				t.Fatalf("%s after Close: %v, want ErrClosed, unavailable", tc.name, err)
			}
		})
	}
}

// TestUndecodableRows: a row that does not decode (a bad restore, a hand
// edit) is an error of the server. It must never pass for an unknown id, a
// conflict, or the client's bad notation or position: the cause is kept as
// text only. Game and puzzle rows keep text the store parses; the moves
// table keeps only integers and the game's id, which the schema holds to
// their ranges instead (TestSchemaRefusesBadRows), and a record whose pit
// disagrees with the game's history is for the game service to find when
// it replays the history.
func TestUndecodableRows(t *testing.T) {
	// misleading are the errors an undecodable row must not match.
	misleading := []error{engine.ErrInvalidNotation, engine.ErrInvalidPosition, engine.ErrInvalidRules,
		engine.ErrInvalidWord, games.ErrNotFound, games.ErrConflict, puzzles.ErrNotFound}
	const invalid = "s-444444-444444-0-1" // notation, but 49 seeds
	readGame := func(ctx context.Context, s *Store) error { _, err := s.Game(ctx, "g"); return err }
	readRecords := func(ctx context.Context, s *Store) error { _, err := s.Records(ctx, "g", 0, 10); return err }
	readPuzzle := func(ctx context.Context, s *Store) error {
		_, err := s.PuzzleByDate(ctx, t0)
		return err
	}
	readPuzzles := func(ctx context.Context, s *Store) error {
		_, err := s.PuzzlesBefore(ctx, t0.AddDate(0, 0, 1), 10)
		return err
	}
	joinWaiting := func(ctx context.Context, s *Store) error {
		_, err := s.Join(ctx, "w", hashOf("late"), t0, time.Time{}, games.SeatPlayer{})
		return err
	}
	resign := func(ctx context.Context, s *Store) error {
		_, err := s.Resign(ctx, "g", engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, t0, nil)
		return err
	}
	// Puzzle rows are immutable: the trigger goes before one is mangled.
	const unlock = "DROP TRIGGER puzzles_immutable; "
	tests := []struct {
		name   string
		mangle string
		read   func(context.Context, *Store) error
	}{
		{"game position not notation", "UPDATE games SET position = 'not a position' WHERE id = 'g'", readGame},
		{"game position invalid", "UPDATE games SET position = '" + invalid + "' WHERE id = 'g'", readGame},
		{"game start invalid", "UPDATE games SET start = '" + invalid + "' WHERE id = 'g'", readGame},
		{"game history", "UPDATE games SET history = 'z' WHERE id = 'g'", readGame},
		{"game created_at", "UPDATE games SET created_at = 'yesterday' WHERE id = 'g'", readGame},
		{"game updated_at", "UPDATE games SET updated_at = '2026-13-01T00:00:00.000000Z' WHERE id = 'g'", readGame},
		{"game joined_at", "UPDATE games SET joined_at = 'soon' WHERE id = 'g'", readGame},
		{"game read by Join", "UPDATE games SET position = 'not a position' WHERE id = 'w'", joinWaiting},
		{"game read by Resign", "UPDATE games SET start = '" + invalid + "' WHERE id = 'g'", resign},
		{"puzzle position not notation", unlock + "UPDATE puzzles SET position = 'not a position'", readPuzzle},
		{"puzzle position invalid", unlock + "UPDATE puzzles SET position = '" + invalid + "'", readPuzzles},
		{"puzzle rules", unlock + "UPDATE puzzles SET capture_seed = 'sideways'", readPuzzle},
		{"puzzle themes", unlock + "UPDATE puzzles SET themes = 'relay, lap'", readPuzzles},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s, _ := openTemp(t)
			g := joinedGame(t, s, "g")
			if err := s.ApplyPlay(ctx, playOn(t, g, 2, "g-south", t0)); err != nil {
				t.Fatal(err)
			}
			newGame(t, s, "w")
			if _, err := s.DB().ExecContext(ctx, `INSERT INTO puzzles (id, date, version, position, capture_seed,
				leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
				VALUES (?, ?, 1, 's-444444-444444-0-0', 'taken', 'last_mover', 'max_capture', 1, '', '["relay"]', 1, 8, '[0]', '')`,
				gen.IDFor(t0), t0.Format(gen.DateLayout)); err != nil {
				t.Fatal(err)
			}
			// Every row decodes before one is mangled.
			for _, read := range []func(context.Context, *Store) error{readGame, readRecords, readPuzzle, readPuzzles} {
				if err := read(ctx, s); err != nil {
					t.Fatalf("before the row was mangled: %v", err)
				}
			}
			if _, err := s.DB().ExecContext(ctx, tc.mangle); err != nil {
				t.Fatal(err)
			}
			err := tc.read(ctx, s)
			if err == nil {
				t.Fatal("a mangled row was read without an error")
			}
			for _, target := range misleading {
				if errors.Is(err, target) {
					t.Fatalf("the error %q matches %q", err, target)
				}
			}
			// A write that read the row back wrote nothing.
			for id, want := range map[string]string{"g": "active", "w": "waiting"} {
				var status string
				if err := s.DB().QueryRowContext(ctx, "SELECT status FROM games WHERE id = ?", id).Scan(&status); err != nil || status != want {
					t.Fatalf("game %s is %q (%v) after the failed read, want %q", id, status, err, want)
				}
			}
		})
	}
}

// TestSchemaRefusesBadRows: the moves table holds nothing the store
// parses, so what keeps a row readable is the schema: STRICT types, the
// checks, the keys. A statement that would write a row the store could not
// give back as a games.Record fails, and what was stored reads back as it
// was.
func TestSchemaRefusesBadRows(t *testing.T) {
	tests := []struct {
		name string
		stmt string
		args []any
	}{
		{"move time as text", "UPDATE moves SET at = 'then'", nil},
		{"move time as a real", "UPDATE moves SET at = 1.5", nil},
		{"move pit past the row", "UPDATE moves SET pit = 12", nil},
		{"move pit negative", "UPDATE moves SET pit = -1", nil},
		{"move ply negative", "UPDATE moves SET ply = -1", nil},
		{"move by_ai neither 0 nor 1", "UPDATE moves SET by_ai = 2", nil},
		{"move by_ai as text", "UPDATE moves SET by_ai = 'yes'", nil},
		{"move without a time", "INSERT INTO moves (game_id, ply, pit) VALUES ('g', 1, 7)", nil},
		{"a second move for a ply", "INSERT INTO moves (game_id, ply, pit, by_ai, at) VALUES ('g', 0, 3, 0, 0)", nil},
		{"a move of an unknown game", "INSERT INTO moves (game_id, ply, pit, by_ai, at) VALUES ('nope', 0, 3, 0, 0)", nil},
		{"move version negative", "UPDATE moves SET version = -1", nil},
		{"move version as text", "UPDATE moves SET version = 'two'", nil},
		{"move version missing", "UPDATE moves SET version = NULL", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s, _ := openTemp(t)
			g := joinedGame(t, s, "g")
			p := playOn(t, g, 2, "g-south", t0)
			if err := s.ApplyPlay(ctx, p); err != nil {
				t.Fatal(err)
			}
			wantRecords := p.Moves
			if _, err := s.DB().ExecContext(ctx, tc.stmt, tc.args...); err == nil {
				t.Fatalf("%s: written", tc.stmt)
			}
			records, err := s.Records(ctx, "g", 0, 10)
			if err != nil || !slices.EqualFunc(records, wantRecords, func(a, b games.Record) bool {
				return a.Ply == b.Ply && a.Pit == b.Pit && a.ByAI == b.ByAI && a.At.Equal(b.At) && a.Version == b.Version
			}) {
				t.Fatalf("records after the refused statement: %+v (%v), want %+v", records, err, wantRecords)
			}
		})
	}
}
