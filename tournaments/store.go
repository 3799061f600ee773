package tournaments

import (
	"context"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// Store keeps events, their entrants and their games. Implementations
// decide nothing: they store what the service hands them and report, as
// ErrStoreNotFound or ErrConflict, a missing row or a conditional write
// whose condition does not hold. Every method is safe for concurrent use,
// also by several processes sharing one database; store/storetest holds
// each implementation to the same cases. Joining and pairing are named
// JoinTournament and PairTournament because one store type also
// implements games.Store and lobby.Store, whose Join and Pair differ.
type Store interface {
	// CreateTournament stores t (its entrants none); ErrConflict when its
	// id is taken.
	CreateTournament(ctx context.Context, t Tournament) error
	// Tournament returns the event with that id, or ErrStoreNotFound.
	Tournament(ctx context.Context, id string) (Tournament, error)
	// Event returns the event with its entrants (by JoinedAt, then
	// player id), its games (by CreatedAt, then game id) and its byes (by
	// round), as one consistent read; ErrStoreNotFound.
	Event(ctx context.Context, id string) (Event, error)
	// Tournaments returns up to q.Limit events of q.Status: upcoming and
	// running ones by StartsAt, then id; finished ones newest first (by
	// FinishedAt, then id, descending). After, when set, is the last
	// event of the previous page.
	Tournaments(ctx context.Context, q ListQuery) ([]Tournament, error)
	// Due returns up to limit events that are running, or upcoming with
	// StartsAt at or before at, by StartsAt then id.
	Due(ctx context.Context, at time.Time, limit int) ([]Tournament, error)

	// JoinTournament adds e to the event, or makes the withdrawn entrant with its
	// player id active again (with e's JoinedRound; its JoinedAt, Name
	// and Rating stay), and bumps Version; ErrConflict when the event is
	// finished or the player is in it and not withdrawn, ErrStoreNotFound
	// when there is no such event.
	JoinTournament(ctx context.Context, id string, e Entrant) error
	// Withdraw makes the player's entrant withdrawn and bumps PairSeq and
	// Version; ErrConflict when the player is not in the event or has
	// withdrawn, or the event is finished; ErrStoreNotFound when there
	// is no such event.
	Withdraw(ctx context.Context, id, player string) error

	// PairTournament is the pairing, in one transaction (see Pairing); ErrConflict
	// when the event's PairSeq is no longer p.PairSeq, it is not running
	// (or not there), or a game's id is taken (nothing written).
	PairTournament(ctx context.Context, p Pairing) error
	// RecordResult copies an ended game's result into its event's row of
	// it (Done) and bumps the event's Version; ErrConflict when the row is
	// done already, ErrStoreNotFound when no event has that game.
	RecordResult(ctx context.Context, gameID string, r Result) error
	// GameTournament returns the id of the event the game is part of, or
	// ErrStoreNotFound.
	GameTournament(ctx context.Context, gameID string) (string, error)
	// SetBerserk marks side of the event's game as berserk and bumps
	// Version; ErrConflict when it is already, or the game is done;
	// ErrStoreNotFound.
	SetBerserk(ctx context.Context, gameID string, side engine.Side) error
	// Start makes an upcoming event running at at (Version up); Finish a
	// running one finished at at. ErrConflict when the event is not in the
	// status it leaves, ErrStoreNotFound when there is no such event.
	Start(ctx context.Context, id string, at time.Time) error
	Finish(ctx context.Context, id string, at time.Time) error

	// CreateBulk stores b and its games in one transaction; ErrConflict
	// when b's id or a game's is taken (nothing written).
	CreateBulk(ctx context.Context, b Bulk, sessions []games.Game) error
	// Bulk returns the bulk pairing with that id, or ErrStoreNotFound.
	Bulk(ctx context.Context, id string) (Bulk, error)

	// Player returns the player with that id, or players.ErrNotFound.
	Player(ctx context.Context, id string) (players.Player, error)
}

// Event is an event with everything played in it.
type Event struct {
	Tournament
	Entrants []Entrant
	Games    []Game
	Byes     []Bye
}

// Bye is a Swiss round's bye.
type Bye struct {
	Round    int
	PlayerID string
}

// ListQuery selects a page of events.
type ListQuery struct {
	Status Status
	Limit  int
	After  *Tournament // nil: the first page
}

// Pairing is the one write that pairs: with the event still running at
// PairSeq, PairSeq goes up by one (and Version); each of Games is added to
// the event's games and each of Sessions stored as games do; with Round
// set (a Swiss round's start) the event's Round becomes Round and RoundAt
// At, and Byes are stored. All of it, or nothing.
type Pairing struct {
	Tournament string
	PairSeq    int64
	Round      int
	Byes       []string
	Games      []Game
	Sessions   []games.Game
	At         time.Time
}

// Bulk is an organiser's set of games, made together.
type Bulk struct {
	ID          string
	CreatedBy   string
	CreatedAt   time.Time
	TimeControl games.TimeControl
	Rated       bool
	// ClockStartsAt is when the games' clocks start; zero: at once.
	ClockStartsAt time.Time
	Games         []BulkGame
}

// BulkGame is one game of a bulk pairing.
type BulkGame struct {
	GameID       string
	South, North string
}
