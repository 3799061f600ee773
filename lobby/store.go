package lobby

import (
	"context"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// Store keeps seeks, challenges and the players' events. Implementations
// decide nothing: they store what the service hands them and report, as
// ErrNotFound or ErrConflict, a missing row or a conditional write whose
// condition does not hold. Every method is safe for concurrent use, also by
// several processes sharing one database; store/storetest holds each
// implementation to the same cases.
type Store interface {
	// AddSeek stores s, open, unless its owner already has an open seek
	// (unexpired at s.CreatedAt) of s.TimeControl, or maxOpen open seeks:
	// then ErrTooManySeeks and nothing is written; a seek with a live
	// clock whose owner has an active game with a live clock is
	// ErrPlaying. Two AddSeeks of one player racing cannot both pass, and
	// one racing a Pair of the player's is made wholly before or after it.
	AddSeek(ctx context.Context, s Seek, maxOpen int) error
	// Seek returns the seek with that id, or ErrNotFound.
	Seek(ctx context.Context, id string) (Seek, error)
	// Candidates returns up to q.Limit seeks that are open and unexpired
	// at q.At, of q.TimeControl and q.Rated, not q.Player's, whose
	// Rating lies in q.Range and whose Range holds q.Rating: oldest
	// first (by CreatedAt, then id).
	Candidates(ctx context.Context, q CandidateQuery) ([]Seek, error)
	// Pair is the pairing, in one transaction (see Pairing); ErrConflict
	// when either seek is no longer open at p.At, and with CancelClock
	// ErrPlaying when either owner (a seat of p.Game) has an active game
	// with a live clock (nothing written either way).
	Pair(ctx context.Context, p Pairing) (cancelled []Seek, err error)
	// CancelSeek makes the open, unexpired seek cancelled at at and
	// returns it; ErrConflict when it is not open, ErrNotFound.
	CancelSeek(ctx context.Context, id string, at time.Time) (Seek, error)
	// OpenSeeks returns up to q.Limit seeks open and unexpired at q.At,
	// newest first (by CreatedAt, then id, descending), of q.Kind and
	// q.Rated when set.
	OpenSeeks(ctx context.Context, q LobbyQuery) ([]Seek, error)
	// PlayerSeeks returns the player's seeks open and unexpired at at,
	// oldest first.
	PlayerSeeks(ctx context.Context, player string, at time.Time) ([]Seek, error)

	// AddChallenge stores c, pending; when c.RematchOf is set and another
	// pending challenge has the same RematchOf, ErrConflict.
	AddChallenge(ctx context.Context, c Challenge) error
	// Challenge returns the challenge with that id, or ErrNotFound.
	Challenge(ctx context.Context, id string) (Challenge, error)
	// Accept is the acceptance, in one transaction (see Acceptance), and
	// returns the challenge after it and the seeks it cancelled;
	// ErrConflict when the challenge is not pending and unexpired at a.At,
	// and with CancelClock ErrPlaying when either player (a seat of
	// a.Game) has an active game with a live clock (nothing written either
	// way), ErrNotFound. With CancelClock it is made wholly before or
	// after any AddSeek or Pair of either player.
	Accept(ctx context.Context, a Acceptance) (Challenge, []Seek, error)
	// CloseChallenge gives the challenge, if pending and unexpired at at,
	// status (declined, with reason, or cancelled) and returns it;
	// ErrConflict otherwise, ErrNotFound.
	CloseChallenge(ctx context.Context, id string, status ChallengeStatus, reason DeclineReason, at time.Time) (Challenge, error)
	// PlayerChallenges returns the challenges pending and unexpired at at
	// that the player sent or was sent, oldest first.
	PlayerChallenges(ctx context.Context, player string, at time.Time) ([]Challenge, error)
	// PendingRematch returns the challenge pending and unexpired at at
	// whose RematchOf is game, or ErrNotFound.
	PendingRematch(ctx context.Context, game string, at time.Time) (Challenge, error)

	// Touch extends to until the expiry of the player's open seeks and
	// pending challenges with a live clock that are unexpired at at and
	// expire before until; and when the player is a bot, records at as
	// when an event stream last touched it (players.Store.OnlineBots).
	Touch(ctx context.Context, player string, at, until time.Time) error
	// Expire makes up to limit seeks open and up to limit challenges
	// pending whose expiry is at or before at expired (UpdatedAt at), the
	// earliest first (by expiry, then id), and returns them in that order.
	Expire(ctx context.Context, at time.Time, limit int) ([]Seek, []Challenge, error)

	// AppendEvents stores evs, each at the end of its Stream, numbering
	// each one after the last of its stream (Seq from 1), and returns them
	// numbered.
	AppendEvents(ctx context.Context, evs []Event) ([]Event, error)
	// Events returns up to limit events of stream after seq after, in
	// order.
	Events(ctx context.Context, stream string, after int64, limit int) ([]Event, error)
	// LastEvent returns the Seq of stream's last event, 0 when none.
	LastEvent(ctx context.Context, stream string) (int64, error)
	// PruneEvents deletes up to limit events made before before, but the
	// last of each stream (so its numbering goes on), and the tickets that
	// expired before it; it says how many events it deleted.
	PruneEvents(ctx context.Context, before time.Time, limit int) (int, error)
	// AddTicket stores a stream ticket: the hash of a secret that opens
	// one event stream of player until expires.
	AddTicket(ctx context.Context, hash []byte, player string, expires time.Time) error
	// UseTicket deletes the ticket whose hash is hash and returns its
	// player, if it has not expired at at; ErrNotFound otherwise. Of two
	// uses of one ticket one succeeds.
	UseTicket(ctx context.Context, hash []byte, at time.Time) (string, error)

	// PlayingGames returns the player's active games, oldest first.
	PlayingGames(ctx context.Context, player string) ([]games.Game, error)
	// Player returns the player with that id, or players.ErrNotFound.
	Player(ctx context.Context, id string) (players.Player, error)
}

// CandidateQuery selects the seeks a new seek may pair with.
type CandidateQuery struct {
	TimeControl games.TimeControl
	Rated       bool
	Player      string  // excluded
	Rating      float64 // the new seek's owner's rating
	Range       Range   // the new seek's range
	At          time.Time
	Limit       int
}

// LobbyQuery selects a page of the lobby.
type LobbyQuery struct {
	At    time.Time
	Kind  games.TimeKind // games.Untimed: any
	Rated *bool          // nil: any
	Limit int
}

// Pairing is the one write that pairs a new seek with an open one: both
// become matched, with GameID Game.ID and each its owner's side; with
// CancelClock, every other open seek with a live clock of either owner is
// cancelled (so that one click never yields two live games); and Game is
// stored. All of it, or nothing.
type Pairing struct {
	Seek, Other         string // the two seeks' ids
	SeekSide, OtherSide engine.Side
	Game                games.Game
	CancelClock         bool
	At                  time.Time
}

// Acceptance is the one write that accepts a challenge: it becomes
// accepted by By, with GameID Game.ID and the challenger's Side; with
// CancelClock (a challenge with a live clock) neither player may have an
// active game with a live clock, and every open seek with a live clock of
// either is cancelled, as a clock Pairing does; and Game is stored. All
// of it, or nothing.
type Acceptance struct {
	ID          string
	By          string
	Side        engine.Side
	Game        games.Game
	CancelClock bool
	At          time.Time
}
