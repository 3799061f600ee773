package stored

import (
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// GameColumns is the column list every game read of both stores selects, in
// GameRow.Targets' order. The stores name the deadline's column apart
// (deadline, deadline_us) because they keep it in different types.
func GameColumns(deadline string) string {
	return `id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply,
	position, history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version,
	time_kind, time_initial_us, time_increment_us, time_per_move_us, south_clock_us, north_clock_us, ` + deadline + `,
	rated, ` + SeatColumns + `, draw_offer, takeback_offer`
}

// SeatColumns are a game's seats' players, South's then North's, in
// SeatRow.Targets' and SeatArgs' order.
const SeatColumns = `south_player, south_name, south_rating, south_deviation, south_change,
	north_player, north_name, north_rating, north_deviation, north_change`

// GameRow is a game's row as both stores scan it: every column but the
// instants, whose types differ by driver (text or integers in SQLite,
// timestamps in PostgreSQL), so each store scans those into its own
// variables and sets them on the decoded game.
//
// Both drivers scan NULL into a nil pointer, and a value into a new one,
// so the nullable columns are pointers here.
type GameRow struct {
	game                      games.Game // ID, Ply, Version and Rated scan straight into it
	captureSeed, leftovers    string
	start, position, history  string
	status, winner, endReason string
	aiSide                    *string
	aiLevel                   *int
	southToken, northToken    []byte
	timeKind                  string
	initial, increment        int64
	perMove                   int64
	southClock, northClock    int64
	seats                     [2]SeatRow
	drawOffer, takebackOffer  string
}

// Targets are the destinations of the columns GameColumns names, in its
// order: the store's own for the instants (created, updated, joined and
// deadline), the row's for the rest.
func (r *GameRow) Targets(created, updated, joined, deadline any) []any {
	t := []any{&r.game.ID, created, updated, joined, &r.captureSeed, &r.leftovers, &r.start, &r.game.Ply,
		&r.position, &r.history, &r.status, &r.winner, &r.endReason, &r.aiSide, &r.aiLevel,
		&r.southToken, &r.northToken, &r.game.Version,
		&r.timeKind, &r.initial, &r.increment, &r.perMove, &r.southClock, &r.northClock, deadline, &r.game.Rated}
	t = append(t, r.seats[engine.South].Targets()...)
	t = append(t, r.seats[engine.North].Targets()...)
	return append(t, &r.drawOffer, &r.takebackOffer)
}

// Game decodes the scanned row into a game, all but its instants; a value
// that does not decode is Undecodable, the server's fault.
func (r *GameRow) Game() (games.Game, error) {
	g := r.game
	if err := r.decode(&g); err != nil {
		return games.Game{}, Undecodable("game "+g.ID, err)
	}
	return g, nil
}

func (r *GameRow) decode(g *games.Game) error {
	var err error
	if g.Rules, err = engine.ParseRules(r.captureSeed, r.leftovers); err != nil {
		return err
	}
	if g.Start, err = engine.Parse(r.start); err != nil {
		return err
	}
	if g.Position, err = engine.Parse(r.position); err != nil {
		return err
	}
	if g.History, err = DecodeHistory(r.history); err != nil {
		return err
	}
	if g.Status = games.Status(r.status); !g.Status.Valid() {
		return fmt.Errorf("status %q", r.status)
	}
	if err := g.Result.Winner.UnmarshalText([]byte(r.winner)); err != nil {
		return err
	}
	if err := g.Result.Reason.UnmarshalText([]byte(r.endReason)); err != nil {
		return err
	}
	if (r.aiSide == nil) != (r.aiLevel == nil) {
		return errors.New("an AI side without a level, or a level without a side")
	}
	if r.aiSide != nil {
		side, err := engine.ParseSide(*r.aiSide)
		if err != nil {
			return err
		}
		g.AI = &games.AI{Side: side, Level: *r.aiLevel}
	}
	kind, err := ParseTimeKind(r.timeKind)
	if err != nil {
		return err
	}
	g.TimeControl = games.TimeControl{Kind: kind, Initial: Duration(r.initial), Increment: Duration(r.increment),
		PerMove: Duration(r.perMove)}
	g.Clock = [2]time.Duration{Duration(r.southClock), Duration(r.northClock)}
	g.Tokens = [2][]byte{r.southToken, r.northToken}
	g.Players = [2]games.SeatPlayer{r.seats[engine.South].Player(), r.seats[engine.North].Player()}
	if g.DrawOffer, err = games.ParseOffer(r.drawOffer); err != nil {
		return err
	}
	g.TakebackOffer, err = games.ParseOffer(r.takebackOffer)
	return err
}

// SeatRow is one seat's player as its columns keep it: no id for no
// player, no change until a rated end.
type SeatRow struct {
	id                *string
	name              string
	rating, deviation float64
	change            *float64
}

// Targets are the destinations of one seat's columns, in SeatColumns'
// order.
func (r *SeatRow) Targets() []any {
	return []any{&r.id, &r.name, &r.rating, &r.deviation, &r.change}
}

// Player is the seat's player as the game keeps it.
func (r *SeatRow) Player() games.SeatPlayer {
	sp := games.SeatPlayer{Name: r.name, Rating: r.rating, Deviation: r.deviation}
	if r.id != nil {
		sp.ID = *r.id
	}
	if r.change != nil {
		sp.Change, sp.HasChange = *r.change, true
	}
	return sp
}

// SeatArgs are the values of one seat's columns, in SeatColumns' order:
// NULL (a nil any, which both drivers write as NULL) for no player and no
// change.
func SeatArgs(sp games.SeatPlayer) []any {
	var id, change any
	if sp.ID != "" {
		id = sp.ID
	}
	if sp.HasChange {
		change = sp.Change
	}
	return []any{id, sp.Name, sp.Rating, sp.Deviation, change}
}

// Durations are kept as whole microseconds, the precision both stores keep
// of every time.
func Micros(d time.Duration) int64 { return d.Microseconds() }

// Duration reads Micros' number.
func Duration(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

// TimeKindOf is the word a time control's kind is kept as.
func TimeKindOf(tc games.TimeControl) (string, error) {
	kind, ok := TimeKindWord(tc.Kind)
	if !ok {
		return "", fmt.Errorf("time control of kind %d: no word for it", tc.Kind)
	}
	return kind, nil
}

// DecodePuzzle fills the columns both stores keep as text: the position,
// the rules and the goal. The date, themes and solution are each store's
// to read, in its own types.
func DecodePuzzle(p *gen.Puzzle, position, captureSeed, leftovers, goal string) error {
	var err error
	if p.Position, err = engine.Parse(position); err != nil {
		return err
	}
	if p.Rules, err = engine.ParseRules(captureSeed, leftovers); err != nil {
		return err
	}
	p.Goal = gen.Goal(goal)
	return nil
}

// Scanner is a row, or the current row of a result, as both drivers scan
// it.
type Scanner interface{ Scan(dest ...any) error }

// Rows is a result as both drivers read it.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Collect reads every row of rows with scan, stopping at the first error.
// Closing rows stays the caller's.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
