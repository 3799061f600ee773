// Package tournaments runs events of many games: arenas (players paired
// as soon as they are free, for a fixed time), Swiss events (a fixed
// number of rounds, paired by score groups) and bulk pairings (an
// organiser's list of games, made all at once or not at all).
//
// The pure functions that pair players and score games live in the
// subpackage pairing; this package decides when an event starts, who may
// enter it, when to pair, and what its standings are. Every write that
// pairs is one conditional write of the Store (on the event's pairing
// sequence), which also stores the games built by the games package, so
// however many instances tick one event, each free player gets one game.
// Results are copied from the games as they end, each once, and the
// standings are always computed from those stored results: nothing is
// counted incrementally, so a crash loses or doubles none.
// It knows neither HTTP nor SQL.
package tournaments

import (
	"errors"
	"time"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

// Errors of tournaments; the api package's problem table gives each one its
// status and code.
var (
	ErrNotFound = fault.New(fault.NotFound, "tournament_not_found", "No such tournament", "tournament not found")
	// ErrInvalid: a tournament whose terms are out of bounds (kind, clock,
	// length, rounds, conditions).
	ErrInvalid = fault.New(fault.Invalid, "invalid_tournament", "Invalid tournament", "invalid tournament")
	// ErrStartInPast: a start time before now.
	ErrStartInPast = fault.New(fault.Invalid, "tournament_start_in_past", "Start time in the past", "the start time is in the past")
	// ErrFinished: joining, or acting on, an event that has finished.
	ErrFinished = fault.New(fault.Conflict, "tournament_finished", "Tournament finished", "the tournament has finished")
	// ErrAlreadyJoined: joining an event one is already in.
	ErrAlreadyJoined = fault.New(fault.Conflict, "tournament_already_joined", "Already joined", "already in the tournament")
	// ErrNotJoined: withdrawing from an event one is not in (or has left).
	ErrNotJoined = fault.New(fault.Conflict, "tournament_not_joined", "Not in the tournament", "not in the tournament")
	// ErrConditions: a player the event's entry conditions keep out.
	ErrConditions = fault.New(fault.Forbidden, "tournament_conditions_unmet", "Entry conditions not met", "the entry conditions are not met")
	// ErrTooLate: a Swiss event whose last round has started.
	ErrTooLate = fault.New(fault.Conflict, "tournament_too_late", "Too late to join", "too late to join")
	// ErrBerserk: berserk asked where it cannot be (not an arena that
	// allows it, not one's game, after one's first move, or twice): the
	// games package's, which refuses a side that has moved.
	ErrBerserk = games.ErrBerserk

	// ErrBulkInvalid: a bulk pairing whose terms are out of bounds.
	ErrBulkInvalid = fault.New(fault.Invalid, "invalid_bulk_pairing", "Invalid bulk pairing", "invalid bulk pairing")
	// ErrBulkPlayer: a pair naming a player who is unknown, or whose
	// consent (the player's token) is missing or wrong.
	ErrBulkPlayer   = fault.New(fault.Forbidden, "bulk_pairing_player_refused", "A player did not consent", "a player of the bulk pairing is unknown or did not consent")
	ErrBulkNotFound = fault.New(fault.NotFound, "bulk_pairing_not_found", "No such bulk pairing", "bulk pairing not found")
)

// Errors a Store reports.
var (
	// ErrConflict: a conditional write found its row in another state
	// than the one it was written for. The service reads again and
	// decides anew, so a client meets it only when that keeps failing.
	ErrConflict = fault.NewRetry(fault.Busy, time.Second, "tournament_busy", "Tournament busy", "the tournament changed before the write")
	// ErrStoreNotFound: no row with that id.
	ErrStoreNotFound = errors.New("not found")
)

// Kind is the kind of an event.
type Kind string

// The kinds.
const (
	Arena Kind = "arena"
	Swiss Kind = "swiss"
)

// Status is where an event stands.
type Status string

// The statuses, in order.
const (
	Upcoming Status = "upcoming"
	Running  Status = "running"
	Finished Status = "finished"
)

// Bounds of an event's terms.
const (
	MinArenaMinutes = 1
	MaxArenaMinutes = 24 * 60
	MinRounds       = 1
	MaxRounds       = 30
	MaxNameRunes    = 64
	MaxAhead        = 90 * 24 * time.Hour // how far ahead a start may be
	MaxRoundGap     = 7 * 24 * time.Hour
)

// Conditions keep players out of an event. The zero value lets every
// person in, and no bot.
type Conditions struct {
	MinRatedGames int     // rated games the player has finished
	MinRating     float64 // 0: no floor; in the event's category
	MaxRating     float64 // 0: no ceiling
	// Bots lets bots in; by default they are kept out, as lichess does:
	// people who play an event expect people.
	Bots bool
}

// Tournament is one event.
type Tournament struct {
	ID          string
	Kind        Kind
	Name        string
	CreatedBy   string // the organiser's player id
	CreatedAt   time.Time
	TimeControl games.TimeControl // a live clock
	Rated       bool
	StartsAt    time.Time
	// Minutes is an arena's length; it ends at StartsAt + Minutes.
	Minutes int
	// Rounds is a Swiss event's number of rounds; RoundGap, when set, is
	// the least time from one round's start to the next one's.
	Rounds   int
	RoundGap time.Duration
	// Berserk: an arena's players may halve their own clock for a point.
	Berserk    bool
	Conditions Conditions
	Status     Status
	// Round is the Swiss round being played (0 before the first);
	// RoundAt when it started.
	Round   int
	RoundAt time.Time
	// PairSeq counts the writes that pair (and the withdrawals): the
	// condition of the next one.
	PairSeq    int64
	FinishedAt time.Time
	Version    int64 // bumped by every write of the event's rows
}

// EndsAt is when an arena stops pairing; zero for a Swiss event.
func (t *Tournament) EndsAt() time.Time {
	if t.Kind != Arena {
		return time.Time{}
	}
	return t.StartsAt.Add(time.Duration(t.Minutes) * time.Minute)
}

// Entrant is a player in an event.
type Entrant struct {
	PlayerID string
	Name     string
	Rating   float64 // in the event's category, when the player joined
	JoinedAt time.Time
	// JoinedRound is the first Swiss round the player can be paired in.
	JoinedRound int
	Withdrawn   bool
}

// Game is one game of an event.
type Game struct {
	GameID       string
	Round        int // a Swiss round; 0 in an arena
	South, North string
	CreatedAt    time.Time
	Berserk      [2]bool // by side
	// Done when the game has ended and its result was copied here.
	Done    bool
	Outcome pairing.Outcome
	Plies   int
	EndedAt time.Time
	// Aborted: the game ended without a result; it counts nowhere.
	Aborted bool
}

// Result is what a Store copies of an ended game.
type Result struct {
	Outcome pairing.Outcome
	Plies   int
	EndedAt time.Time
	Aborted bool
}
