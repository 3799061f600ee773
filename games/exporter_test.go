package games_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// pagedStore serves n games without moves, one a second, by the cursor, and
// counts the pages asked for.
type pagedStore struct {
	n     int
	pages []games.ExportQuery
}

var exportT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *pagedStore) ExportGames(_ context.Context, q games.ExportQuery) ([]games.Exported, error) {
	s.pages = append(s.pages, q)
	var out []games.Exported
	for i := range s.n {
		at := exportT0.Add(time.Duration(i) * time.Second)
		id := fmt.Sprintf("g%05d", i)
		if q.AfterID != "" && (at.Before(q.AfterCreated) || at.Equal(q.AfterCreated) && id <= q.AfterID) {
			continue
		}
		if len(out) == q.Limit {
			break
		}
		out = append(out, games.Exported{Game: games.Game{ID: id, CreatedAt: at, Start: engine.Start(), Position: engine.Start(), Status: games.Active}})
	}
	return out, nil
}

// TestExporterPages: the exporter reads page after page from the cursor of
// the last game, stops at max or at a short page, and stops when fn fails.
func TestExporterPages(t *testing.T) {
	stop := errors.New("stop")
	tests := []struct {
		name          string
		stored, limit int
		failAt        int // fn fails on this game; -1 never
		games, pages  int
		err           error
	}{
		{"all", 1234, 10_000, -1, 1234, 3, nil},
		{"a whole number of pages", 1000, 10_000, -1, 1000, 3, nil},
		{"max", 1234, 600, -1, 600, 2, nil},
		{"none", 0, 10_000, -1, 0, 1, nil},
		{"no max", 10, 0, -1, 0, 0, nil},
		{"fn fails", 1234, 10_000, 700, 700, 2, stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &pagedStore{n: tt.stored}
			n := 0
			err := games.NewExporter(st).Export(t.Context(), games.ExportQuery{Player: "ada", Limit: tt.limit}, func(g *games.Game, moves []games.Move) error {
				if want := fmt.Sprintf("g%05d", n); g.ID != want || len(moves) != 0 {
					t.Fatalf("game %d is %s with %d moves, want %s", n, g.ID, len(moves), want)
				}
				if n == tt.failAt {
					return stop
				}
				n++
				return nil
			})
			if !errors.Is(err, tt.err) || n != tt.games || len(st.pages) != tt.pages {
				t.Fatalf("%d games in %d pages, %v; want %d in %d, %v", n, len(st.pages), err, tt.games, tt.pages, tt.err)
			}
		})
	}
}
