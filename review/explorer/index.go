// Package explorer is the opening explorer: an index of the first Plies
// plies of every finished rated game, by position and move, with each
// move's results, average rating and latest games, and the service that
// grows it as games end and answers what was played from a position.
//
// A game is indexed exactly once. Its end is one conditional write (see
// games.Store), which leaves it finished, rated and not yet indexed; the
// write that indexes it marks it indexed and adds its plies in one
// transaction that holds only when the mark was not there, so two
// instances that both index it add it once, and a crash between the end
// and the indexing leaves it unmarked, for the next catch-up (Service.Run)
// to find.
package explorer

import (
	"cmp"
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// Plies is how many plies of each game the index holds: the opening.
const Plies = 30

// Ratings are kept by band of BandWidth points of a game's average rating,
// from band 0 (below 100) to MaxBand (MaxBand*BandWidth and above): a
// query's range of ratings is read to the hundred.
const (
	BandWidth = 100
	MaxBand   = 30
)

// RecentGames is how many of the latest games the index keeps per
// position, move and band, and an answer gives per move.
const RecentGames = 3

// Key is the index's name for a position: 64 bits of a hash of its pits,
// captured seeds and side to move. Eight bytes instead of the position's
// fifteen; two positions share a key with a chance of about one in 10^12
// among the tens of millions an index of a million games holds, and would
// then share their moves.
type Key uint64

// KeyOf returns p's key: FNV-1a over its fifteen bytes.
func KeyOf(p engine.Position) Key {
	var b [engine.NumPits + 3]byte
	copy(b[:], p.Pits[:])
	b[engine.NumPits], b[engine.NumPits+1], b[engine.NumPits+2] = p.Captured[0], p.Captured[1], byte(p.ToMove)
	h := fnv.New64a()
	_, _ = h.Write(b[:])
	return Key(binary.BigEndian.Uint64(h.Sum(nil)))
}

// Line is one ply of a game as the index keeps it: the position before it
// and the pit played.
type Line struct {
	Position Key
	Move     int
}

// Entry is one game as the index adds it.
type Entry struct {
	GameID   string
	Category players.Category // Live or Correspondence
	Band     int              // of Rating: Rating / BandWidth, at most MaxBand
	Winner   engine.Winner
	Rating   int       // the average of the seats' ratings as the game began, rounded
	EndedAt  time.Time // the game's UpdatedAt
	// Lines are its first plies, each (position, move) once: a game that
	// repeats one counts once for it.
	Lines []Line
}

// Row is what the index holds for one position, move and band of a
// category.
type Row struct {
	Move, Band          int
	South, Draws, North int64 // games by their result
	RatingSum           int64 // of the games' Rating
	LastAt              time.Time
	// Recent are the ids of the latest games indexed with the move, the
	// last first, at most RecentGames.
	Recent []string
}

// Store keeps the index. Implementations decide nothing: they add what
// they are handed, and report whether a game was marked already.
type Store interface {
	// UnindexedGames returns up to limit games that are finished and
	// rated and not marked indexed, those ended first first.
	UnindexedGames(ctx context.Context, limit int) ([]games.Game, error)
	// IndexGame, in one transaction, marks the game e.GameID indexed and
	// adds e to the index: for each line, the row of its position and
	// move in e's category and band gains one game of e's result, e's
	// Rating, e.GameID first in its Recent (the last of RecentGames
	// dropped) and LastAt the later of its own and e.EndedAt. When the
	// game is marked already, or no longer stored, it writes nothing and
	// returns false.
	IndexGame(ctx context.Context, e Entry) (bool, error)
	// ExplorerRows returns the rows of the position in category c, of the
	// bands from lo to hi, in no particular order.
	ExplorerRows(ctx context.Context, position Key, c players.Category, lo, hi int) ([]Row, error)
}

// BandOf returns the band of an average rating.
func BandOf(rating int) int { return min(max(rating, 0)/BandWidth, MaxBand) }

// EntryOf is g as the index adds it. A game that is not finished and
// rated, was played under other rules than the default, or whose record
// does not replay has no lines: it adds nothing, but its mark is written
// all the same, so it is not looked at again.
func EntryOf(g games.Game) Entry {
	cat := g.Category()
	if g.Status != games.Finished || !g.Rated || cat == "" || g.Rules != (engine.Rules{}) {
		return Entry{GameID: g.ID}
	}
	avg := int(math.Round((g.Players[engine.South].Rating + g.Players[engine.North].Rating) / 2))
	e := Entry{GameID: g.ID, Category: cat, Band: BandOf(avg), Winner: g.Result.Winner, Rating: avg, EndedAt: g.UpdatedAt}
	n := min(len(g.History), Plies)
	e.Lines = make([]Line, 0, n)
	seen := make(map[Line]bool, n)
	p := g.Start
	for _, pit := range g.History[:n] {
		l := Line{Position: KeyOf(p), Move: int(pit)}
		next, reason := p.Apply(int(pit), g.Rules)
		if reason != engine.Legal {
			return Entry{GameID: g.ID}
		}
		if !seen[l] {
			seen[l] = true
			e.Lines = append(e.Lines, l)
		}
		p = next
	}
	return e
}

// SortedLines returns a copy of lines in the order of their keys: a store
// that locks rows as it writes them writes a game's in this order, so two
// games that share rows never wait for each other in a circle.
func SortedLines(lines []Line) []Line {
	out := slices.Clone(lines)
	slices.SortFunc(out, func(a, b Line) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.Move, b.Move))
	})
	return out
}

// Results are e's game counted by result: one of South's wins, draws and
// North's wins is 1.
func (e Entry) Results() (south, draws, north int) {
	switch e.Winner {
	case engine.SouthWins:
		return 1, 0, 0
	case engine.NorthWins:
		return 0, 0, 1
	}
	return 0, 1, 0
}
