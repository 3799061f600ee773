package memory

import (
	"context"
	"slices"
	"sort"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review/explorer"
)

var _ explorer.Store = (*Store)(nil)

// explorerRows is the opening explorer's index: the games marked indexed
// and the rows by position.
type explorerRows struct {
	indexed map[string]bool
	rows    map[explorer.Key]map[explorerKey]*explorer.Row
}

type explorerKey struct {
	category   players.Category
	band, move int
}

// UnindexedGames implements explorer.Store.
func (s *Store) UnindexedGames(_ context.Context, limit int) ([]games.Game, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []games.Game
	for id, r := range s.games {
		if g := r.game; g.Status == games.Finished && g.Rated && !s.explorer.indexed[id] {
			out = append(out, copyGame(g))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.Before(out[j].UpdatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(len(out), max(limit, 0))], nil
}

// IndexGame implements explorer.Store.
func (s *Store) IndexGame(_ context.Context, e explorer.Entry) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.games[e.GameID]; !ok || s.explorer.indexed[e.GameID] {
		return false, nil
	}
	x := &s.explorer
	if x.indexed == nil {
		x.indexed, x.rows = map[string]bool{}, map[explorer.Key]map[explorerKey]*explorer.Row{}
	}
	x.indexed[e.GameID] = true
	for _, l := range e.Lines {
		byKey := x.rows[l.Position]
		if byKey == nil {
			byKey = map[explorerKey]*explorer.Row{}
			x.rows[l.Position] = byKey
		}
		k := explorerKey{e.Category, e.Band, l.Move}
		r := byKey[k]
		if r == nil {
			r = &explorer.Row{Move: l.Move, Band: e.Band, LastAt: e.EndedAt}
			byKey[k] = r
		}
		switch e.Winner {
		case engine.SouthWins:
			r.South++
		case engine.NorthWins:
			r.North++
		default:
			r.Draws++
		}
		r.RatingSum += int64(e.Rating)
		if e.EndedAt.After(r.LastAt) {
			r.LastAt = e.EndedAt
		}
		r.Recent = slices.Insert(slices.Clone(r.Recent), 0, e.GameID)[:min(len(r.Recent)+1, explorer.RecentGames)]
	}
	return true, nil
}

// ExplorerRows implements explorer.Store.
func (s *Store) ExplorerRows(_ context.Context, position explorer.Key, c players.Category, lo, hi int) ([]explorer.Row, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []explorer.Row
	for k, r := range s.explorer.rows[position] {
		if k.category == c && k.band >= lo && k.band <= hi {
			row := *r
			row.Recent = slices.Clone(r.Recent)
			out = append(out, row)
		}
	}
	return out, nil
}
