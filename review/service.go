package review

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
)

// Errors of the review service.
var (
	// ErrNotFinished: the game is still waiting or in play; a review is
	// never an aid during play.
	ErrNotFinished = fault.New(fault.Conflict, "game_not_finished", "Game not finished", "the game is not finished")
	// ErrNotRequested: the game exists but nobody asked for its review.
	ErrNotRequested = fault.New(fault.NotFound, "review_not_found", "No review", "nobody has asked for this game's review")
	// ErrNotFound is a Store's answer for a review it does not hold.
	ErrNotFound = errors.New("review not stored")
	// ErrLeaseLost is a Store's answer to a write by a worker whose claim
	// on the review has ended (its lease ran out and another took it, or
	// the review is done).
	ErrLeaseLost = errors.New("review claim lost")
)

// State is where a stored review stands.
type State uint8

// The states, in order.
const (
	Queued State = iota
	Running
	Done
)

var stateWords = [...]string{"queued", "running", "done"}

// String returns the word the API and the stores use.
func (s State) String() string {
	if int(s) < len(stateWords) {
		return stateWords[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// ParseState reads a State's word.
func ParseState(w string) (State, error) {
	for i, s := range stateWords {
		if s == w {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("review: no state %q", w)
}

// Stored is a game's review as the store keeps it.
type Stored struct {
	GameID      string
	State       State
	Done, Total int // plies reviewed, of
	RequestedAt time.Time
	FinishedAt  time.Time // zero until Done
	Review      *Review   // when Done
}

// Store keeps reviews, one per game, shared by every instance.
type Store interface {
	// RequestReview stores a queued review of gameID with total plies,
	// requested at, unless the game has one; it returns the game's review
	// as it stands.
	RequestReview(ctx context.Context, gameID string, total int, at time.Time) (Stored, error)
	// Review returns the game's review, or ErrNotFound.
	Review(ctx context.Context, gameID string) (Stored, error)
	// ClaimReview takes the review requested first among the queued ones
	// and the running ones whose lease ended before now, in one
	// conditional write: it is running, owner's, its lease until, its
	// progress zero. ok is false when there is none: of concurrent claims
	// each review goes to one.
	ClaimReview(ctx context.Context, owner string, now, until time.Time) (s Stored, ok bool, err error)
	// ReviewProgress records done plies of a review owner holds and
	// extends its lease to until; ErrLeaseLost when owner does not hold it.
	ReviewProgress(ctx context.Context, gameID, owner string, done int, until time.Time) error
	// FinishReview stores r as the done review of a review owner holds,
	// finished at; ErrLeaseLost when owner does not hold it.
	FinishReview(ctx context.Context, gameID, owner string, r Review, at time.Time) error
	// DropReview deletes a review owner holds, whose game is gone (deleted
	// after the review was asked for); ErrLeaseLost when owner does not
	// hold it.
	DropReview(ctx context.Context, gameID, owner string) error
}

// Games is what the service reads of games.
type Games interface {
	Game(ctx context.Context, id string) (games.Game, error)
}

// Lease is how long a claim lasts without news from its worker; a worker
// renews it with each ply, and a crashed worker's review is taken again
// once it ends.
const Lease = time.Minute

// Service queues reviews of finished games and works them off.
type Service struct {
	store    Store
	games    Games
	reviewer *Reviewer
	now      func() time.Time
	owner    string
	log      *slog.Logger
	wake     chan struct{}
}

// ServiceOptions configure a Service.
type ServiceOptions struct {
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Owner names this instance in its claims; it must differ between
	// instances sharing a store.
	Owner string
	Log   *slog.Logger
}

// NewService returns the service.
func NewService(store Store, g Games, rv *Reviewer, o ServiceOptions) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, games: g, reviewer: rv, now: o.Now, owner: o.Owner, log: o.Log, wake: make(chan struct{}, 1)}
}

// Request asks for the review of a finished game and returns it as it
// stands: queued when new, as it is when asked for before.
func (s *Service) Request(ctx context.Context, gameID string) (Stored, error) {
	g, err := s.finished(ctx, gameID)
	if err != nil {
		return Stored{}, err
	}
	st, err := s.store.RequestReview(ctx, gameID, g.Ply, s.now())
	if err != nil {
		return Stored{}, err
	}
	if st.State != Done {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return st, nil
}

// Get returns a game's review: games.ErrNotFound for no game, ErrNotFinished
// for one in play, ErrNotRequested when nobody asked for it.
func (s *Service) Get(ctx context.Context, gameID string) (Stored, error) {
	st, err := s.store.Review(ctx, gameID)
	if err == nil {
		return st, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Stored{}, err
	}
	if _, err := s.finished(ctx, gameID); err != nil {
		return Stored{}, err
	}
	return Stored{}, fmt.Errorf("%w: game %s", ErrNotRequested, gameID)
}

// finished returns the game when it is over.
func (s *Service) finished(ctx context.Context, gameID string) (games.Game, error) {
	g, err := s.games.Game(ctx, gameID)
	if err != nil {
		return games.Game{}, err
	}
	if g.Status == games.Waiting || g.Status == games.Active {
		return games.Game{}, fmt.Errorf("%w: game %s is %s", ErrNotFinished, gameID, g.Status)
	}
	return g, nil
}

// Step claims one review and computes it; it reports whether there was
// one. A review whose claim is lost meanwhile is dropped: its new owner
// computes it.
func (s *Service) Step(ctx context.Context) (bool, error) {
	st, ok, err := s.store.ClaimReview(ctx, s.owner, s.now(), s.now().Add(Lease))
	if err != nil || !ok {
		return false, err
	}
	g, err := s.games.Game(ctx, st.GameID)
	if errors.Is(err, games.ErrNotFound) {
		// The game was deleted (pruned) between the request's read of it
		// and the queueing: its review has nothing to review, and left
		// queued it would be claimed again each time its lease ends.
		if err := s.store.DropReview(ctx, st.GameID, s.owner); err != nil && !errors.Is(err, ErrLeaseLost) {
			return true, fmt.Errorf("drop the review of deleted game %s: %w", st.GameID, err)
		}
		s.log.Info("review of a deleted game dropped", "game", st.GameID)
		return true, nil
	}
	if err != nil {
		return true, fmt.Errorf("review of game %s: %w", st.GameID, err)
	}
	rec := Record{Start: g.Start, Rules: g.Rules, Moves: make([]int, len(g.History))}
	for i, pit := range g.History {
		rec.Moves[i] = int(pit)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r, err := s.reviewer.Review(rctx, rec, func(done, _ int) {
		if err := s.store.ReviewProgress(ctx, st.GameID, s.owner, done, s.now().Add(Lease)); err != nil {
			cancel(err)
		}
	})
	if err != nil {
		if cause := context.Cause(rctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		if errors.Is(err, ErrLeaseLost) {
			s.log.Warn("review claim lost", "game", st.GameID)
			return true, nil
		}
		return true, fmt.Errorf("review of game %s: %w", st.GameID, err)
	}
	if err := s.store.FinishReview(ctx, st.GameID, s.owner, r, s.now()); err != nil {
		if errors.Is(err, ErrLeaseLost) {
			s.log.Warn("review claim lost", "game", st.GameID)
			return true, nil
		}
		return true, fmt.Errorf("review of game %s: %w", st.GameID, err)
	}
	s.log.Info("review done", "game", st.GameID, "plies", len(r.Plies))
	return true, nil
}

// Run works off the queue until ctx ends: it claims reviews one after
// another, and between them waits for a request on this instance or
// every poll (another instance's request, a crashed worker's lease).
func (s *Service) Run(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for ctx.Err() == nil {
		did, err := s.Step(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Error("review", "err", err)
		}
		if did && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-t.C:
		}
	}
}

// RecordTimeout bounds the review of a record sent in a request: past it,
// ErrTimeout.
const RecordTimeout = 25 * time.Second

// ErrTimeout: a record's review did not finish in RecordTimeout (the CPU
// budget's more urgent work came first); later it may.
var ErrTimeout = fault.NewRetry(fault.Busy, 10*time.Second, "review_timeout", "Review took too long", "the review did not finish in time")

// Record reviews a record sent by a client, without storing anything,
// within RecordTimeout.
func (s *Service) Record(ctx context.Context, rec Record) (Review, error) {
	if _, err := Replay(rec); err != nil {
		return Review{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	defer cancel()
	r, err := s.reviewer.Review(ctx, rec, nil)
	if errors.Is(err, context.DeadlineExceeded) {
		return Review{}, fmt.Errorf("%w: %d plies in %v", ErrTimeout, len(rec.Moves), RecordTimeout)
	}
	return r, err
}
