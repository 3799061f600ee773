package memory

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

func copyPlayer(p *players.Player) players.Player {
	c := *p
	c.TokenHash = slices.Clone(p.TokenHash)
	c.Ratings = maps.Clone(p.Ratings)
	return c
}

// CreatePlayer implements players.Store.
func (s *Store) CreatePlayer(ctx context.Context, p players.Player) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.players[p.ID]; ok {
		return players.ErrConflict
	}
	p.Ratings, p.Counts = nil, players.Counts{}
	c := copyPlayer(&p)
	s.players[p.ID] = &c
	return nil
}

// Player implements players.Store, games.Store and puzzles.Store.
func (s *Store) Player(ctx context.Context, id string) (players.Player, error) {
	if err := ctx.Err(); err != nil {
		return players.Player{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.players[id]
	if !ok {
		return players.Player{}, players.ErrNotFound
	}
	return copyPlayer(p), nil
}

// PlayerByToken implements players.Store.
func (s *Store) PlayerByToken(ctx context.Context, hash []byte) (players.Player, error) {
	if err := ctx.Err(); err != nil {
		return players.Player{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range s.players {
		if slices.Equal(p.TokenHash, hash) {
			return copyPlayer(p), nil
		}
	}
	return players.Player{}, players.ErrNotFound
}

// RenamePlayer implements players.Store.
func (s *Store) RenamePlayer(ctx context.Context, id, name string, at time.Time) (players.Player, error) {
	if err := ctx.Err(); err != nil {
		return players.Player{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.players[id]
	if !ok {
		return players.Player{}, players.ErrNotFound
	}
	p.Name, p.UpdatedAt = name, at
	return copyPlayer(p), nil
}

// SetPlayerToken implements players.Store.
func (s *Store) SetPlayerToken(ctx context.Context, id string, old, hash []byte, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.players[id]
	if !ok {
		return players.ErrNotFound
	}
	if !slices.Equal(p.TokenHash, old) {
		return players.ErrConflict
	}
	p.TokenHash, p.UpdatedAt = slices.Clone(hash), at
	return nil
}

// DeletePlayer implements players.Store.
func (s *Store) DeletePlayer(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.players[id]; !ok {
		return players.ErrNotFound
	}
	delete(s.players, id)
	delete(s.attempts, id)
	delete(s.dailySolves, id)
	delete(s.seen, id)
	s.toks.dropPlayer(id)
	for _, row := range s.games {
		for i := range row.game.Players {
			if row.game.Players[i].ID == id {
				row.game.Players[i].ID, row.game.Players[i].Name = "", ""
			}
		}
	}
	return nil
}

// applyMatch applies m to the players and to g's seats, as games.Store's
// ApplyMatch says; the caller holds the write lock.
func (s *Store) applyMatch(g *games.Game, m *players.Match) error {
	if m == nil {
		return nil
	}
	if m.Rated() {
		for i, id := range m.Players {
			if p, ok := s.players[id]; ok && p.Rating(m.Category).Games != m.Before[i].Games {
				return players.ErrRatingsChanged
			}
		}
	}
	for i, id := range m.Players {
		p, ok := s.players[id]
		if !ok {
			continue
		}
		p.Counts = m.Count(p.Counts, i)
		if m.Rated() {
			if p.Ratings == nil {
				p.Ratings = map[players.Category]players.Rating{}
			}
			p.Ratings[m.Category] = m.After[i]
		}
	}
	if m.Rated() {
		for i := range g.Players {
			seat := &g.Players[i]
			seat.Rating, seat.Deviation = m.Before[i].Value, m.Before[i].Deviation
			seat.Change, seat.HasChange = m.After[i].Value-m.Before[i].Value, true
		}
	}
	return nil
}

// PlayerGames implements players.Store.
func (s *Store) PlayerGames(ctx context.Context, id string, q players.GamesQuery) ([]players.GameEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []players.GameEntry
	for _, row := range s.games {
		g := &row.game
		if g.Status != games.Finished {
			continue
		}
		for side, seat := range g.Players {
			if seat.ID != id {
				continue
			}
			e := g.Entry(engine.Side(side))
			if (q.Category == "" || e.Category == q.Category) && (q.Result == "" || e.Result == q.Result) &&
				(q.After.IsZero() || before(e.EndedAt, e.GameID, q.After.EndedAt, q.After.GameID)) {
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b players.GameEntry) int {
		return cmp.Or(b.EndedAt.Compare(a.EndedAt), cmp.Compare(b.GameID, a.GameID))
	})
	return out[:min(len(out), max(q.Limit, 0))], nil
}

// before reports whether (at, id) comes after (cursorAt, cursorID) in a
// newest-first list.
func before(at time.Time, id string, cursorAt time.Time, cursorID string) bool {
	return at.Before(cursorAt) || at.Equal(cursorAt) && id < cursorID
}

// PlayerPuzzles implements players.Store.
func (s *Store) PlayerPuzzles(ctx context.Context, id string, after players.PuzzleCursor, limit int) ([]players.PuzzleEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []players.PuzzleEntry
	for _, e := range s.attempts[id] {
		if after.IsZero() || before(e.At, e.PuzzleID, after.At, after.PuzzleID) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b players.PuzzleEntry) int {
		return cmp.Or(b.At.Compare(a.At), cmp.Compare(b.PuzzleID, a.PuzzleID))
	})
	return out[:min(len(out), max(limit, 0))], nil
}

// DailySolves implements players.Store.
func (s *Store) DailySolves(ctx context.Context, id string, limit int) ([]time.Time, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	days := slices.Collect(maps.Keys(s.dailySolves[id]))
	slices.SortFunc(days, func(a, b time.Time) int { return b.Compare(a) })
	return days[:min(len(days), max(limit, 0))], nil
}

// Leaderboard implements players.Store.
func (s *Store) Leaderboard(ctx context.Context, c players.Category, maxDeviation float64, since time.Time, limit int) ([]players.Leader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []players.Leader
	for _, p := range s.players {
		r, ok := p.Ratings[c]
		if ok && r.Deviation <= maxDeviation && !r.At.Before(since) {
			out = append(out, players.Leader{PlayerID: p.ID, Name: p.Name, Rating: r})
		}
	}
	slices.SortFunc(out, func(a, b players.Leader) int {
		return cmp.Or(cmp.Compare(b.Rating.Value, a.Rating.Value), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	return out[:min(len(out), max(limit, 0))], nil
}

// PuzzleRating implements puzzles.Store.
func (s *Store) PuzzleRating(ctx context.Context, key string) (players.Rating, bool, error) {
	if err := ctx.Err(); err != nil {
		return players.Rating{}, false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.puzzleRatings[key]
	return r, ok, nil
}

// Attempted implements puzzles.Store.
func (s *Store) Attempted(ctx context.Context, player, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.attempts[player][id]
	return ok, nil
}

// RecordSolve implements puzzles.Store.
func (s *Store) RecordSolve(ctx context.Context, sv players.Solve, count bool) (puzzles.Stats, bool, error) {
	if err := ctx.Err(); err != nil {
		return puzzles.Stats{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.players[sv.Player]
	if !ok {
		return puzzles.Stats{}, false, players.ErrNotFound
	}
	var stored *puzzles.Stored
	if count {
		for _, sp := range s.puzzles {
			if sp.Puzzle.ID == sv.PuzzleID {
				stored = sp
			}
		}
		if stored == nil {
			return puzzles.Stats{}, false, puzzles.ErrNotFound
		}
	}
	_, seen := s.attempts[sv.Player][sv.PuzzleID]
	first := !seen
	if first {
		if p.Rating(players.Puzzles).Games != sv.Before[0].Games || s.puzzleRatings[sv.Key].Games != sv.Before[1].Games {
			return puzzles.Stats{}, false, players.ErrRatingsChanged
		}
		if p.Ratings == nil {
			p.Ratings = map[players.Category]players.Rating{}
		}
		p.Ratings[players.Puzzles] = sv.After[0]
		s.puzzleRatings[sv.Key] = sv.After[1]
		p.Counts.Puzzles++
		if sv.Solved {
			p.Counts.Solved++
		}
		if s.attempts[sv.Player] == nil {
			s.attempts[sv.Player] = map[string]players.PuzzleEntry{}
		}
		s.attempts[sv.Player][sv.PuzzleID] = players.PuzzleEntry{PuzzleID: sv.PuzzleID, At: sv.At, Solved: sv.Solved,
			Daily: sv.Daily, Rating: players.Change{Before: sv.Before[0], After: sv.After[0]}}
	}
	if sv.OnDay() {
		if s.dailySolves[sv.Player] == nil {
			s.dailySolves[sv.Player] = map[time.Time]bool{}
		}
		s.dailySolves[sv.Player][gen.Day(sv.Daily)] = true
	}
	var stats puzzles.Stats
	if stored != nil {
		stored.Stats.Attempts++
		if sv.Solved {
			stored.Stats.Solved++
		}
		stats = stored.Stats
	}
	return stats, first, nil
}
