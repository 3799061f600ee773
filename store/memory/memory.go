// Package memory keeps games and puzzles in the process's memory: the store
// for tests of the services and of the HTTP layer, and for a server that
// needs nothing kept. It implements games.Store and puzzles.Store with the
// same guarantees as the database stores within one process (the same
// conformance suite, store/storetest, holds it to them), and loses
// everything when the process ends.
package memory

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Store is the in-memory store. The zero value is not ready: use New.
type Store struct {
	mu      sync.RWMutex
	games   map[string]*gameRow
	puzzles map[string]*puzzles.Stored // by date

	players       map[string]*players.Player
	puzzleRatings map[string]players.Rating
	attempts      map[string]map[string]players.PuzzleEntry // by player, then puzzle id
	dailySolves   map[string]map[time.Time]bool             // by player, then day
	seen          map[string]time.Time                      // bots, when an event stream last touched them (bots.go)

	stock stock      // the practice stock and its leases
	idem  idempotent // records of idempotency keys

	lobby lobbyRows // seeks, challenges, events and tickets (lobby.go)

	reviews  map[string]*reviewRow // by game id (review.go)
	explorer explorerRows          // the opening explorer's index (explorer.go)

	tourns tournamentRows // events and bulk pairings (tournaments.go)

	toks tokenRows // scoped tokens and authorization codes (tokens.go)
}

type gameRow struct {
	game    games.Game
	records []games.Record
}

var (
	_ games.Store   = (*Store)(nil)
	_ puzzles.Store = (*Store)(nil)
	_ players.Store = (*Store)(nil)

	_ puzzles.StockStore = (*Store)(nil)
	_ lobby.Store        = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	return &Store{games: map[string]*gameRow{}, puzzles: map[string]*puzzles.Stored{},
		players: map[string]*players.Player{}, puzzleRatings: map[string]players.Rating{},
		attempts: map[string]map[string]players.PuzzleEntry{}, dailySolves: map[string]map[time.Time]bool{},
		seen: map[string]time.Time{}, tourns: newTournamentRows()}
}

// Ping always answers: memory is always there.
func (s *Store) Ping(context.Context) error { return nil }

// Close holds nothing to release; it is here so that every store closes
// alike.
func (s *Store) Close() error { return nil }

// copyGame returns g with its own slices, so no caller shares the store's.
func copyGame(g games.Game) games.Game {
	g.History = slices.Clone(g.History)
	for i := range g.Tokens {
		g.Tokens[i] = slices.Clone(g.Tokens[i])
	}
	if g.AI != nil {
		ai := *g.AI
		g.AI = &ai
	}
	return g
}

// CreateGame implements games.Store.
func (s *Store) CreateGame(ctx context.Context, g games.Game, moves []games.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.games[g.ID]; ok {
		return games.ErrConflict
	}
	row := &gameRow{game: copyGame(g), records: slices.Clone(moves)}
	row.game.Version = max(row.game.Version, 1)
	s.games[g.ID] = row
	return nil
}

// Game implements games.Store.
func (s *Store) Game(ctx context.Context, id string) (games.Game, error) {
	if err := ctx.Err(); err != nil {
		return games.Game{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.games[id]
	if !ok {
		return games.Game{}, games.ErrNotFound
	}
	return copyGame(row.game), nil
}

// Join implements games.Store.
func (s *Store) Join(ctx context.Context, id string, tokenHash []byte, at, deadline time.Time, player games.SeatPlayer) (games.Game, error) {
	if err := ctx.Err(); err != nil {
		return games.Game{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.games[id]
	if !ok {
		return games.Game{}, games.ErrNotFound
	}
	g := &row.game
	open := -1
	for side := range g.Tokens {
		if g.Tokens[side] == nil {
			open = side
			break
		}
	}
	if g.Status != games.Waiting || open < 0 || (!g.Deadline.IsZero() && !g.Deadline.After(at)) {
		return games.Game{}, games.ErrConflict
	}
	g.Tokens[open] = slices.Clone(tokenHash)
	g.Players[open] = player
	g.Status = games.Active
	g.JoinedAt, g.UpdatedAt, g.Deadline = at, at, deadline
	g.Version++
	return copyGame(*g), nil
}

// Records implements games.Store.
func (s *Store) Records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.games[id]
	if !ok {
		return nil, games.ErrNotFound
	}
	var out []games.Record
	for _, r := range row.records {
		if r.Ply >= from && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

// ApplyPlay implements games.Store.
func (s *Store) ApplyPlay(ctx context.Context, p games.Play) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.games[p.GameID]
	if !ok {
		return games.ErrNotFound
	}
	g := &row.game
	if g.Status != games.Active || g.Ply != p.Ply || g.Version != p.Game.Version-1 {
		return games.ErrConflict
	}
	if err := s.applyMatch(g, p.Match); err != nil {
		return err
	}
	for _, r := range p.Moves {
		row.records = append(row.records, r)
		g.History = append(g.History, byte(r.Pit))
	}
	g.Ply += len(p.Moves)
	g.Position = p.Game.Position
	g.Status = p.Game.Status
	g.Result = p.Game.Result
	g.Clock = p.Game.Clock
	g.Deadline = p.Game.Deadline
	g.DrawOffer, g.TakebackOffer = p.Game.DrawOffer, p.Game.TakebackOffer
	g.UpdatedAt = p.At
	g.Version++
	return nil
}

// Amend implements games.Store.
func (s *Store) Amend(ctx context.Context, a games.Amend) (games.Game, error) {
	if err := ctx.Err(); err != nil {
		return games.Game{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.games[a.ID]
	if !ok {
		return games.Game{}, games.ErrNotFound
	}
	g, n := &row.game, &a.Game
	if g.Status != games.Active || g.Version != a.Version {
		return games.Game{}, games.ErrConflict
	}
	if n.Ply < g.Ply {
		row.records = slices.DeleteFunc(row.records, func(r games.Record) bool { return r.Ply >= n.Ply })
		g.History = g.History[:max(n.Ply, 0)]
		g.Ply = n.Ply
	}
	g.Position, g.Clock, g.UpdatedAt, g.Deadline = n.Position, n.Clock, n.UpdatedAt, n.Deadline
	g.DrawOffer, g.TakebackOffer = n.DrawOffer, n.TakebackOffer
	g.Version++
	return copyGame(*g), nil
}

// Resign implements games.Store.
func (s *Store) Resign(ctx context.Context, id string, result engine.Result, at time.Time, match *players.Match) (games.Game, error) {
	if err := ctx.Err(); err != nil {
		return games.Game{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.games[id]
	if !ok {
		return games.Game{}, games.ErrNotFound
	}
	g := &row.game
	if g.Status != games.Active {
		return games.Game{}, games.ErrConflict
	}
	if err := s.applyMatch(g, match); err != nil {
		return games.Game{}, err
	}
	g.Status, g.Result, g.UpdatedAt, g.Deadline = games.Finished, result, at, time.Time{}
	g.DrawOffer, g.TakebackOffer = games.NoOffer, games.NoOffer
	g.Version++
	return copyGame(*g), nil
}

// End implements games.Store.
func (s *Store) End(ctx context.Context, e games.End) (games.Game, error) {
	if err := ctx.Err(); err != nil {
		return games.Game{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.games[e.ID]
	if !ok {
		return games.Game{}, games.ErrNotFound
	}
	g := &row.game
	if g.Version != e.Version {
		return games.Game{}, games.ErrConflict
	}
	if err := s.applyMatch(g, e.Match); err != nil {
		return games.Game{}, err
	}
	g.Status, g.Result, g.Clock, g.UpdatedAt, g.Deadline = e.Status, e.Result, e.Clock, e.At, time.Time{}
	g.DrawOffer, g.TakebackOffer = games.NoOffer, games.NoOffer
	g.Version++
	return copyGame(*g), nil
}

// pending reports whether g may still end by its deadline.
func pending(g *games.Game) bool {
	return (g.Status == games.Waiting || g.Status == games.Active) && !g.Deadline.IsZero()
}

// Overdue implements games.Store.
func (s *Store) Overdue(ctx context.Context, now time.Time, limit int) ([]games.Game, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []games.Game
	for _, row := range s.games {
		if g := &row.game; pending(g) && !g.Deadline.After(now) {
			out = append(out, copyGame(*g))
		}
	}
	slices.SortFunc(out, func(a, b games.Game) int { return a.Deadline.Compare(b.Deadline) })
	return out[:min(len(out), max(limit, 0))], nil
}

// NextDeadline implements games.Store.
func (s *Store) NextDeadline(ctx context.Context) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var next time.Time
	for _, row := range s.games {
		if g := &row.game; pending(g) && (next.IsZero() || g.Deadline.Before(next)) {
			next = g.Deadline
		}
	}
	return next, nil
}

// DeleteEnded implements games.Store.
func (s *Store) DeleteEnded(ctx context.Context, before time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, row := range s.games {
		if n >= limit {
			break
		}
		if row.game.Status.Over() && row.game.UpdatedAt.Before(before) {
			delete(s.games, id)
			delete(s.reviews, id) // its review goes with it; the explorer's counts stay
			n++
		}
	}
	return n, nil
}

// AddPuzzle implements puzzles.Store.
func (s *Store) AddPuzzle(ctx context.Context, p gen.Puzzle, _ time.Time) (puzzles.Stored, error) {
	if err := ctx.Err(); err != nil {
		return puzzles.Stored{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := gen.Day(p.Date).Format(gen.DateLayout)
	if sp, ok := s.puzzles[key]; ok {
		return copyPuzzle(*sp), nil
	}
	sp := &puzzles.Stored{Puzzle: p}
	sp.Puzzle.Date = gen.Day(p.Date)
	sp.Puzzle.Themes = slices.Clone(p.Themes)
	sp.Puzzle.Solution = slices.Clone(p.Solution)
	s.puzzles[key] = sp
	return copyPuzzle(*sp), nil
}

func copyPuzzle(sp puzzles.Stored) puzzles.Stored {
	sp.Puzzle.Themes = slices.Clone(sp.Puzzle.Themes)
	sp.Puzzle.Solution = slices.Clone(sp.Puzzle.Solution)
	return sp
}

// PuzzleByDate implements puzzles.Store.
func (s *Store) PuzzleByDate(ctx context.Context, date time.Time) (puzzles.Stored, error) {
	if err := ctx.Err(); err != nil {
		return puzzles.Stored{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	sp, ok := s.puzzles[gen.Day(date).Format(gen.DateLayout)]
	if !ok {
		return puzzles.Stored{}, puzzles.ErrNotFound
	}
	return copyPuzzle(*sp), nil
}

// PuzzlesBefore implements puzzles.Store.
func (s *Store) PuzzlesBefore(ctx context.Context, date time.Time, limit int) ([]puzzles.Stored, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	day := gen.Day(date)
	var out []puzzles.Stored
	for _, sp := range s.puzzles {
		if sp.Puzzle.Date.Before(day) {
			out = append(out, copyPuzzle(*sp))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Puzzle.Date.After(out[j].Puzzle.Date) })
	return out[:min(len(out), max(limit, 0))], nil
}

// RecordAttempt implements puzzles.Store.
func (s *Store) RecordAttempt(ctx context.Context, id string, solved bool) (puzzles.Stats, error) {
	if err := ctx.Err(); err != nil {
		return puzzles.Stats{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range s.puzzles {
		if sp.Puzzle.ID == id {
			sp.Stats.Attempts++
			if solved {
				sp.Stats.Solved++
			}
			return sp.Stats, nil
		}
	}
	return puzzles.Stats{}, puzzles.ErrNotFound
}
