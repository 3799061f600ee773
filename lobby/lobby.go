// Package lobby is where players meet to play: seeks (a wish for a game,
// listed in the lobby, paired with the first compatible one), challenges
// (to a named player, or open to anyone with the link), rematches, and each
// player's one stream of events about them. It decides which seeks pair,
// the limits, the lifetimes and who may accept, cancel or decline what;
// its Store makes each pairing and each acceptance one conditional write
// that also stores the game (built by the games package), so a seek or a
// challenge is in at most one game however many instances race for it.
// It knows neither HTTP nor SQL.
package lobby

import (
	"errors"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// Errors of the lobby; the api package's problem table gives each one its
// status and code.
var (
	ErrSeekNotFound      = fault.New(fault.NotFound, "seek_not_found", "No such seek", "seek not found")
	ErrChallengeNotFound = fault.New(fault.NotFound, "challenge_not_found", "No such challenge", "challenge not found")
	// ErrNotYourSeek: a valid player token, but not the seek's owner's.
	ErrNotYourSeek = fault.New(fault.Forbidden, "not_your_seek", "Not your seek", "the seek is another player's")
	// ErrNotYourChallenge: a player who may not act on this challenge
	// (not its challenger, or not the one it was sent to).
	ErrNotYourChallenge = fault.New(fault.Forbidden, "not_your_challenge", "Not your challenge", "the challenge is not yours to act on")
	// ErrSeekClosed: the seek is no longer open (matched, cancelled or
	// expired).
	ErrSeekClosed = fault.New(fault.Conflict, "seek_closed", "Seek no longer open", "the seek is no longer open")
	// ErrChallengeClosed: the challenge is no longer pending.
	ErrChallengeClosed = fault.New(fault.Conflict, "challenge_closed", "Challenge no longer pending", "the challenge is no longer pending")
	// ErrTimeControlRequired: a seek or challenge without a time control.
	ErrTimeControlRequired = fault.New(fault.Invalid, "time_control_required", "Time control required", "a time control is required")
	// ErrInvalidRange: a rating range with min above max.
	ErrInvalidRange = fault.New(fault.Invalid, "invalid_rating_range", "Invalid rating range", "invalid rating range")
	// ErrTooManySeeks: the player already has an open seek of this time
	// control, or MaxOpenSeeks open seeks.
	ErrTooManySeeks = fault.New(fault.Conflict, "too_many_seeks", "Too many open seeks", "too many open seeks")
	// ErrPlaying: a seek with a live clock from a player who is playing a
	// game with a live clock (seeks never give anyone two at once).
	ErrPlaying = fault.New(fault.Conflict, "already_playing", "Already playing a game with a clock", "already playing a game with a clock")
	// ErrChallengePlaying: accepting a challenge (or a rematch) with a
	// live clock while its challenger or its acceptor is playing a game
	// with a live clock; the challenge stays pending.
	ErrChallengePlaying = fault.New(fault.Conflict, "challenge_player_playing", "A player of the challenge is playing a game with a clock", "a player of the challenge is playing a game with a clock")
	// ErrSelfChallenge: a challenge to oneself, or accepting one's own.
	ErrSelfChallenge = fault.New(fault.Invalid, "self_challenge", "Challenging yourself", "a player cannot challenge itself")
	// ErrRematch: a rematch asked of a game that cannot have one (not
	// over, not between two players, or by someone who did not play it).
	ErrRematch = fault.New(fault.Invalid, "rematch_not_possible", "No rematch possible", "no rematch possible")
	// ErrBotsRefused: a bot taking a challenge that refuses bots, or a
	// challenge to a bot that refuses them.
	ErrBotsRefused = fault.New(fault.Forbidden, "bots_refused", "Bots refused", "the challenge refuses bots")
	// ErrInvalidTicket: a stream ticket that is unknown, used or expired.
	ErrInvalidTicket = fault.New(fault.Unauthorized, "invalid_stream_ticket", "Invalid stream ticket", "invalid stream ticket")
	// ErrTooManyStreams: the player already has MaxStreams event streams
	// open on this instance.
	ErrTooManyStreams = fault.NewRetry(fault.Limited, 5*time.Second, "too_many_player_streams", "Too many event streams for this player", "too many event streams for this player")
)

// Errors a Store reports.
var (
	// ErrConflict: a conditional write found a row in another state than
	// the one it was written for.
	ErrConflict = fault.NewRetry(fault.Busy, time.Second, "lobby_busy", "Lobby busy", "the lobby changed before the write")
	// ErrNotFound: no row with that id.
	ErrNotFound = errors.New("not found")
)

// SeatChoice is the seat a seek or a challenge asks for.
type SeatChoice string

// The seat choices.
const (
	SeatRandom SeatChoice = "random"
	SeatSouth  SeatChoice = "south"
	SeatNorth  SeatChoice = "north"
)

// Valid reports whether c is one of the choices.
func (c SeatChoice) Valid() bool { return c == SeatRandom || c == SeatSouth || c == SeatNorth }

// side is the fixed side c asks for.
func (c SeatChoice) side() (engine.Side, bool) {
	switch c {
	case SeatSouth:
		return engine.South, true
	case SeatNorth:
		return engine.North, true
	}
	return 0, false
}

// Range bounds the opponent's rating; the zero Range (Set false) takes
// anyone.
type Range struct {
	Min, Max float64
	Set      bool
}

// Holds reports whether rating lies in r.
func (r Range) Holds(rating float64) bool { return !r.Set || (r.Min <= rating && rating <= r.Max) }

// Status of a seek.
type SeekStatus string

// The seek statuses.
const (
	SeekOpen      SeekStatus = "open"
	SeekMatched   SeekStatus = "matched"
	SeekCancelled SeekStatus = "cancelled"
	SeekExpired   SeekStatus = "expired"
)

// Seek is one player's wish for a game, listed in the lobby until it is
// matched, cancelled or expires.
type Seek struct {
	ID       string
	PlayerID string
	// Name and Rating are the owner's as the seek was posted: the lobby
	// lists them, and ranges are checked against Rating.
	Name        string
	Rating      players.Rating
	TimeControl games.TimeControl
	Rated       bool
	Seat        SeatChoice
	Range       Range
	// Bot says the owner is a bot (as the seek was posted); NoBots that
	// the seek refuses to pair with a bot's.
	Bot, NoBots bool
	Status      SeekStatus
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ExpiresAt   time.Time // an open seek past it is expired
	GameID      string    // once matched
	Side        engine.Side
}

// Category is the rating category of the seek's time control.
func (s *Seek) Category() players.Category { return category(s.TimeControl) }

func category(tc games.TimeControl) players.Category {
	if tc.Kind == games.Correspondence {
		return players.Correspondence
	}
	return players.Live
}

// Clock reports whether the seek is for a game with a live clock.
func (s *Seek) Clock() bool { return s.TimeControl.Kind == games.Live }

// At returns s as it reads at now: an open seek past its expiry reads
// expired.
func (s Seek) At(now time.Time) Seek {
	if s.Status == SeekOpen && !now.Before(s.ExpiresAt) {
		s.Status = SeekExpired
	}
	return s
}

// Compatible reports whether a and b pair: the same rated flag and time
// control exactly, seats that fit together, each owner's rating in the
// other's range, two players, and neither a bot that the other refuses.
func Compatible(a, b *Seek) bool {
	if a.PlayerID == b.PlayerID || a.Rated != b.Rated || a.TimeControl != b.TimeControl {
		return false
	}
	if (a.Bot && b.NoBots) || (b.Bot && a.NoBots) {
		return false
	}
	if sa, ok := a.Seat.side(); ok {
		if sb, ok := b.Seat.side(); ok && sa == sb {
			return false
		}
	}
	return a.Range.Holds(b.Rating.Value) && b.Range.Holds(a.Rating.Value)
}

// sides returns the sides of a's and b's owners, which are compatible:
// the fixed seat one asked for, else a coin.
func sides(a, b SeatChoice, coin bool) (engine.Side, engine.Side) {
	if s, ok := a.side(); ok {
		return s, s.Other()
	}
	if s, ok := b.side(); ok {
		return s.Other(), s
	}
	if coin {
		return engine.South, engine.North
	}
	return engine.North, engine.South
}

// ChallengeStatus is where a challenge stands.
type ChallengeStatus string

// The challenge statuses.
const (
	ChallengePending   ChallengeStatus = "pending"
	ChallengeAccepted  ChallengeStatus = "accepted"
	ChallengeDeclined  ChallengeStatus = "declined"
	ChallengeCancelled ChallengeStatus = "cancelled"
	ChallengeExpired   ChallengeStatus = "expired"
)

// DeclineReason says why a challenge was declined.
type DeclineReason string

// The reasons, as the API names them.
const (
	DeclineGeneric     DeclineReason = "generic"
	DeclineLater       DeclineReason = "later"
	DeclineTooFast     DeclineReason = "tooFast"
	DeclineTooSlow     DeclineReason = "tooSlow"
	DeclineTimeControl DeclineReason = "timeControl"
	DeclineRated       DeclineReason = "rated"
	DeclineCasual      DeclineReason = "casual"
)

// Valid reports whether r is one of the reasons.
func (r DeclineReason) Valid() bool {
	switch r {
	case DeclineGeneric, DeclineLater, DeclineTooFast, DeclineTooSlow, DeclineTimeControl, DeclineRated, DeclineCasual:
		return true
	}
	return false
}

// Challenge is one player's invitation to a game: to a named player, or,
// with no To, to anyone who has its id.
type Challenge struct {
	ID          string
	From        string // the challenger's player id
	FromName    string
	To          string // "" for an open challenge
	ToName      string
	TimeControl games.TimeControl
	Rated       bool
	Seat        SeatChoice // the challenger's
	Rules       engine.Rules
	Start       engine.Position
	HasStart    bool // a start position was given (the game is unrated)
	// FromBot and ToBot say the challenger and the challenged player are
	// bots (as the challenge was made); NoBots that the challenger refuses
	// a bot as its opponent.
	FromBot, ToBot, NoBots bool
	RematchOf              string // the game this is a rematch of, if any
	Status                 ChallengeStatus
	Reason                 DeclineReason // when declined
	CreatedAt              time.Time
	UpdatedAt              time.Time
	ExpiresAt              time.Time
	GameID                 string // once accepted
	Side                   engine.Side
	AcceptedBy             string // the player who accepted it
}

// At returns c as it reads at now: a pending challenge past its expiry
// reads expired.
func (c Challenge) At(now time.Time) Challenge {
	if c.Status == ChallengePending && !now.Before(c.ExpiresAt) {
		c.Status = ChallengeExpired
	}
	return c
}

// Involves reports whether player sent c or was sent it.
func (c *Challenge) Involves(player string) bool { return c.From == player || c.To == player }
