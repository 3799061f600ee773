package players_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"plain", "Adé", true},
		{"inner space", "Ayo Olopon", true},
		{"digits and symbols", "ayo_42 ★", true},
		{"thirty-two", strings.Repeat("a", 32), true},
		{"thirty-three", strings.Repeat("a", 33), false},
		{"multi-byte counts as one", strings.Repeat("é", 32), true},
		{"empty", "", false},
		{"blank", "   ", false},
		{"leading space", " ayo", false},
		{"trailing space", "ayo ", false},
		{"newline", "ayo\nayo", false},
		{"tab", "ayo\tayo", false},
		{"nul", "ayo\x00", false},
		{"zero-width joiner", "a\u200db", false},
		{"right-to-left override", "a\u202eb", false},
		{"invalid UTF-8", "a\xffb", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := players.CheckName(c.in)
			if c.ok != (err == nil) {
				t.Fatalf("CheckName(%q) = %v, want ok %v", c.in, err, c.ok)
			}
			if err != nil && !errors.Is(err, players.ErrInvalidName) {
				t.Fatalf("error %v is not ErrInvalidName", err)
			}
		})
	}
}

func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"Adé", "", " a", "a\nb", "\xff", strings.Repeat("x", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := players.CheckName(s); err == nil {
			if strings.TrimSpace(s) != s || s == "" || strings.ContainsAny(s, "\n\r\t\x00") {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}

type fixture struct {
	svc *players.Service
	st  *memory.Store
	now time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fx := &fixture{st: memory.New(), now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	fx.svc = players.NewService(fx.st, func() time.Time { return fx.now })
	return fx
}

func (fx *fixture) create(t *testing.T, name string) (players.Player, string) {
	t.Helper()
	p, token, err := fx.svc.Create(t.Context(), name)
	if err != nil {
		t.Fatalf("create %q: %v", name, err)
	}
	return p, token
}

func TestCreate(t *testing.T) {
	fx := newFixture(t)
	p, token := fx.create(t, "")
	if !strings.HasPrefix(p.Name, "player-") || !strings.HasPrefix(token, "pl_") || len(token) < 40 {
		t.Fatalf("player %+v token %q", p, token)
	}
	got, err := fx.svc.Authenticate(t.Context(), token)
	if err != nil || got.ID != p.ID {
		t.Fatalf("authenticate: %+v %v", got, err)
	}
	if strings.Contains(string(got.TokenHash), token) {
		t.Fatal("the store holds the token itself")
	}
	if _, _, err := fx.svc.Create(t.Context(), "bad\nname"); !errors.Is(err, players.ErrInvalidName) {
		t.Fatalf("bad name: %v", err)
	}
	for _, tok := range []string{"", "pl_unknown"} {
		if _, err := fx.svc.Authenticate(t.Context(), tok); !errors.Is(err, players.ErrUnauthorized) {
			t.Fatalf("token %q: %v", tok, err)
		}
	}
}

func TestOwnerOperations(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	a, tokenA := fx.create(t, "A")
	_, tokenB := fx.create(t, "B")
	for _, c := range []struct {
		name  string
		id    string
		token string
		want  error
	}{
		{"no token", a.ID, "", players.ErrUnauthorized},
		{"unknown token", a.ID, "pl_nobody", players.ErrUnauthorized},
		{"another player's token", a.ID, tokenB, players.ErrForbidden},
		{"unknown player", "nobody", tokenA, players.ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := fx.svc.Rename(ctx, c.id, c.token, "X"); !errors.Is(err, c.want) {
				t.Errorf("rename: %v, want %v", err, c.want)
			}
			if _, err := fx.svc.RotateToken(ctx, c.id, c.token); !errors.Is(err, c.want) {
				t.Errorf("rotate: %v, want %v", err, c.want)
			}
			if err := fx.svc.Delete(ctx, c.id, c.token); !errors.Is(err, c.want) {
				t.Errorf("delete: %v, want %v", err, c.want)
			}
		})
	}
	renamed, err := fx.svc.Rename(ctx, a.ID, tokenA, "Ayo")
	if err != nil || renamed.Name != "Ayo" {
		t.Fatalf("rename: %+v %v", renamed, err)
	}
	if _, err := fx.svc.Rename(ctx, a.ID, tokenA, strings.Repeat("x", 33)); !errors.Is(err, players.ErrInvalidName) {
		t.Fatalf("long name: %v", err)
	}
	fresh, err := fx.svc.RotateToken(ctx, a.ID, tokenA)
	if err != nil || fresh == tokenA {
		t.Fatalf("rotate: %q %v", fresh, err)
	}
	if _, err := fx.svc.Authenticate(ctx, tokenA); !errors.Is(err, players.ErrUnauthorized) {
		t.Fatalf("the old token still works: %v", err)
	}
	if err := fx.svc.Delete(ctx, a.ID, fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.svc.Get(ctx, a.ID); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("deleted player: %v", err)
	}
}

func TestStreak(t *testing.T) {
	fx := newFixture(t)
	p, _ := fx.create(t, "S")
	day := func(d int) time.Time { return time.Date(2026, 12, d, 0, 0, 0, 0, time.UTC) }
	solve := func(d int, at time.Time) {
		t.Helper()
		s := players.NewSolve(p.ID, "p202612"+time.Date(2026, 12, d, 0, 0, 0, 0, time.UTC).Format("02"), "k", true, day(d),
			[2]players.Rating{}, at)
		for {
			cur, _ := fx.st.Player(t.Context(), p.ID)
			s.Before[0] = cur.Rating(players.Puzzles)
			r, _, _ := fx.st.PuzzleRating(t.Context(), "k")
			s.Before[1] = r
			if _, _, err := fx.st.RecordSolve(t.Context(), s, false); !errors.Is(err, players.ErrRatingsChanged) {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
	solve(1, day(1).Add(time.Hour))
	solve(2, day(3).Add(time.Hour)) // a day late: no streak day
	solve(3, day(3).Add(2*time.Hour))
	solve(4, day(4).Add(time.Hour))
	for _, c := range []struct {
		name string
		now  time.Time
		want int
	}{
		{"on the last day", day(4).Add(20 * time.Hour), 2},
		{"the day after, not yet solved", day(5).Add(time.Hour), 2},
		{"two days after", day(6).Add(time.Hour), 0},
		{"before a gap", day(1).Add(20 * time.Hour), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx.now = c.now
			got, err := fx.svc.Streak(t.Context(), p.ID)
			if err != nil || got != c.want {
				t.Fatalf("streak = %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

func TestPagesAndCursors(t *testing.T) {
	fx := newFixture(t)
	p, _ := fx.create(t, "P")
	for i := range 45 {
		s := players.NewSolve(p.ID, "x"+strings.Repeat("1", i+1), "k", i%2 == 0, time.Time{}, [2]players.Rating{}, fx.now.Add(time.Duration(i)*time.Minute))
		cur, _ := fx.st.Player(t.Context(), p.ID)
		s.Before[0] = cur.Rating(players.Puzzles)
		r, _, _ := fx.st.PuzzleRating(t.Context(), "k")
		s.Before[1] = r
		if _, _, err := fx.st.RecordSolve(t.Context(), s, false); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		page, next, _, err := fx.svc.Puzzles(t.Context(), p.ID, cursor, 20)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for i, e := range page {
			if seen[e.PuzzleID] {
				t.Fatalf("%s twice", e.PuzzleID)
			}
			seen[e.PuzzleID] = true
			if i > 0 && e.At.After(page[i-1].At) {
				t.Fatal("not newest first")
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(seen) != 45 || pages != 3 {
		t.Fatalf("%d attempts over %d pages", len(seen), pages)
	}
	for _, bad := range []string{"!!", "bm90IGEgY3Vyc29y", strings.Repeat("A", 300)} {
		if _, _, _, err := fx.svc.Puzzles(t.Context(), p.ID, bad, 20); !errors.Is(err, players.ErrInvalidCursor) {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if _, _, err := fx.svc.Games(t.Context(), "nobody", players.GamesQuery{}, ""); !errors.Is(err, players.ErrNotFound) {
		t.Errorf("unknown player's games: %v", err)
	}
}
