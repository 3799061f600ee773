package games

// A player's games in bulk, for an export: read a page at a time from the
// store, each game with its records, so that no export holds more than a
// page in memory or a database read open while its client is slow.

import (
	"context"
	"fmt"
	"time"
)

// ExportQuery selects a page of a player's games for an export: the games
// with a seat of Player that are active or finished, created at or after
// Since and before Until (no end when Until is zero), in the order of
// (CreatedAt, ID), after the game (AfterCreated, AfterID) when AfterID is
// set, at most Limit.
type ExportQuery struct {
	Player       string
	Since, Until time.Time
	AfterCreated time.Time
	AfterID      string
	Limit        int
}

// Exported is a game with the records of all its moves, in order.
type Exported struct {
	Game    Game
	Records []Record
}

// ExportStore is what an export needs of a store.
type ExportStore interface {
	// ExportGames returns the page of games q selects, with their records.
	ExportGames(ctx context.Context, q ExportQuery) ([]Exported, error)
}

// ExportPage is how many games an export reads from the store at a time.
const ExportPage = 500

// Exporter streams a player's games.
type Exporter struct {
	store ExportStore
}

// NewExporter returns an Exporter over st.
func NewExporter(st ExportStore) *Exporter { return &Exporter{store: st} }

// Export calls fn with each game q selects (q.Limit is the most games in
// all, none when below one; its cursor is ignored) and its moves, rebuilt
// as a game's history is, oldest game first, until fn returns an error,
// which Export returns. The game and moves are fn's only until it returns.
func (e *Exporter) Export(ctx context.Context, q ExportQuery, fn func(g *Game, moves []Move) error) error {
	left := q.Limit
	q.AfterID, q.AfterCreated = "", time.Time{}
	var moves []Move
	for left > 0 {
		q.Limit = min(left, ExportPage)
		page, err := e.store.ExportGames(ctx, q)
		if err != nil {
			return err
		}
		for i := range page {
			g := &page[i].Game
			moves = moves[:0]
			if err := walk(g, page[i].Records, func(m Move, _ *Game) { moves = append(moves, m) }); err != nil {
				return err
			}
			if len(moves) != len(g.History) {
				return corrupt("game %s: %d records for a history of %d plies", g.ID, len(moves), len(g.History))
			}
			if err := fn(g, moves); err != nil {
				return err
			}
		}
		left -= len(page)
		if len(page) < q.Limit {
			return nil
		}
		last := page[len(page)-1].Game
		q.AfterCreated, q.AfterID = last.CreatedAt, last.ID
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}
