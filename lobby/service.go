package lobby

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// Games is what the lobby needs of the games service (*games.Service has
// it): to build the game a pairing agreed on, to be told it was stored, and
// to read a finished game for a rematch.
type Games interface {
	Paired(req games.PairedGame) (games.Game, error)
	Started(g games.Game)
	Game(ctx context.Context, id string) (games.Game, error)
}

// Defaults of Options.
const (
	DefaultSeekTTL           = 60 * time.Second
	DefaultStreamGrace       = 20 * time.Second
	DefaultCorrespondenceTTL = 7 * 24 * time.Hour
	DefaultChallengeTTL      = 60 * time.Second
	DefaultTicketTTL         = 30 * time.Second
	DefaultMaxStreams        = 4
	// MaxOpenSeeks bounds the open seeks of one player.
	MaxOpenSeeks = 5
	// candidates is how many open seeks a new one is tried against.
	candidates = 50
	// pairRounds bounds the looks for a partner of a new seek while the
	// candidates keep being taken by other pairings; past it the seek
	// stays open, for the next seek to find.
	pairRounds = 50
	// eventRetention is how long a stream's events are kept for
	// resumption.
	eventRetention = time.Hour
)

// Options configure a Service.
type Options struct {
	// Games builds and starts paired games. Required.
	Games Games
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// SeekTTL is how long a seek or challenge with a live clock lives
	// while its owner holds no event stream. Zero: DefaultSeekTTL.
	SeekTTL time.Duration
	// StreamGrace is how long such a seek or challenge outlives its
	// owner's last event stream. Zero: DefaultStreamGrace.
	StreamGrace time.Duration
	// CorrespondenceTTL is the life of a correspondence seek or
	// challenge. Zero: DefaultCorrespondenceTTL.
	CorrespondenceTTL time.Duration
	// ChallengeTTL is the life of a live challenge whose challenger holds
	// no event stream. Zero: DefaultChallengeTTL.
	ChallengeTTL time.Duration
	// MaxStreams bounds one player's event streams on this instance. Zero:
	// DefaultMaxStreams.
	MaxStreams int
	// Changes carries the news of new events between instances sharing
	// the store. Nil: one instance (streams also poll the store).
	Changes Changes
	// PollInterval is how often a stream reads the store without being
	// told of an event. Zero: 5 s.
	PollInterval time.Duration
	// Stopping ends every stream when closed.
	Stopping <-chan struct{}
	// Logger gets what the service cannot answer. Nil discards it.
	Logger *slog.Logger
}

// Service runs the lobby. Its methods are safe for concurrent use.
type Service struct {
	store Store
	games Games
	now   func() time.Time
	o     Options
	log   *slog.Logger
	hub   *hub
}

// NewService returns the lobby over st.
func NewService(st Store, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SeekTTL <= 0 {
		o.SeekTTL = DefaultSeekTTL
	}
	if o.StreamGrace <= 0 {
		o.StreamGrace = DefaultStreamGrace
	}
	if o.CorrespondenceTTL <= 0 {
		o.CorrespondenceTTL = DefaultCorrespondenceTTL
	}
	if o.ChallengeTTL <= 0 {
		o.ChallengeTTL = DefaultChallengeTTL
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, games: o.Games, now: o.Now, o: o, log: o.Logger, hub: newHub()}
}

// clock is now at the precision stores keep.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// newID returns a random, URL-safe id of 16 characters.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NewSeek is what a player asks for in a seek.
type NewSeek struct {
	TimeControl games.TimeControl
	Rated       bool
	Seat        SeatChoice // "": random
	Range       Range
	NoBots      bool // never pair with a bot's seek
}

// checkTerms validates a time control and seat as seeks and challenges
// take them.
func checkTerms(tc games.TimeControl, seat *SeatChoice) error {
	if !tc.Timed() {
		return fmt.Errorf("%w: seeks and challenges are for games with a clock or correspondence", ErrTimeControlRequired)
	}
	if err := tc.Check(); err != nil {
		return err
	}
	if *seat == "" {
		*seat = SeatRandom
	}
	if !seat.Valid() {
		return fmt.Errorf("%w: seat %q", engine.ErrInvalidPosition, *seat)
	}
	return nil
}

// expiry is when a seek or challenge with tc made at now expires, before
// any event stream extends it: ttl for a live clock.
func (s *Service) expiry(tc games.TimeControl, now time.Time, ttl time.Duration) time.Time {
	if tc.Kind == games.Correspondence {
		return now.Add(s.o.CorrespondenceTTL)
	}
	return now.Add(ttl)
}

// PostSeek posts player's seek and pairs it at once with the oldest
// compatible open seek, if there is one: the answer is then matched.
func (s *Service) PostSeek(ctx context.Context, player *players.Player, req NewSeek) (Seek, error) {
	if player == nil {
		return Seek{}, fmt.Errorf("%w: a seek needs a player (send its Player-Token)", players.ErrUnauthorized)
	}
	if err := checkTerms(req.TimeControl, &req.Seat); err != nil {
		return Seek{}, err
	}
	if req.Range.Set && req.Range.Min > req.Range.Max {
		return Seek{}, fmt.Errorf("%w: min %g is above max %g", ErrInvalidRange, req.Range.Min, req.Range.Max)
	}
	now := s.clock()
	sk := Seek{ID: newID(), PlayerID: player.ID, Name: player.Name, TimeControl: req.TimeControl, Rated: req.Rated,
		Seat: req.Seat, Range: req.Range, Bot: player.Bot, NoBots: req.NoBots, Status: SeekOpen, CreatedAt: now, UpdatedAt: now,
		ExpiresAt: s.expiry(req.TimeControl, now, s.o.SeekTTL)}
	sk.Rating = player.Rating(sk.Category()).Idle(now)
	// Stored open first, then paired: of two compatible seeks posted at
	// once, the later one's search sees the earlier one (see docs/lobby.md).
	if err := s.store.AddSeek(ctx, sk, MaxOpenSeeks); err != nil {
		return Seek{}, err
	}
	s.emit(ctx, Event{Stream: LobbyStream, Kind: EventSeekAdded, SeekID: sk.ID, At: now})
	return s.pair(ctx, sk)
}

// pair pairs sk, stored open, with the oldest compatible open seek, trying
// the next one when another pairing takes it first, and returns sk as it
// then stands.
func (s *Service) pair(ctx context.Context, sk Seek) (Seek, error) {
	for round := range pairRounds {
		if round > 0 {
			// Every candidate left was held by another pairing, which
			// may yet be undone: look again in a moment.
			time.Sleep(time.Duration(1+mrand.IntN(4*round)) * time.Millisecond)
		}
		now := s.clock()
		cands, err := s.store.Candidates(ctx, CandidateQuery{TimeControl: sk.TimeControl, Rated: sk.Rated, Player: sk.PlayerID,
			Rating: sk.Rating.Value, Range: sk.Range, At: now, Limit: candidates})
		if err != nil {
			return Seek{}, err
		}
		conflicts := 0
		for i := range cands {
			other := &cands[i]
			if !Compatible(&sk, other) {
				continue
			}
			done, err := s.tryPair(ctx, &sk, other, now)
			if errors.Is(err, ErrPlaying) {
				// A clock game of either owner began since their seeks
				// were posted: whose seek is stale is cancelled.
				if gone, err := s.dropPlaying(ctx, &sk, now); err != nil || gone {
					sk.Status, sk.UpdatedAt = SeekCancelled, now
					return sk, err
				}
				if _, err := s.dropPlaying(ctx, other, now); err != nil {
					return Seek{}, err
				}
				conflicts++
				continue
			}
			if errors.Is(err, ErrConflict) {
				// Either seek was taken first. If it was this one, its
				// answer is that pairing.
				if cur, err := s.store.Seek(ctx, sk.ID); err == nil && cur.Status != SeekOpen {
					return cur.At(now), nil
				}
				conflicts++
				continue
			}
			if err != nil {
				return Seek{}, err
			}
			return done, nil
		}
		if conflicts == 0 {
			return sk, nil
		}
	}
	return s.store.Seek(ctx, sk.ID)
}

// tryPair makes the one write that pairs sk with other.
func (s *Service) tryPair(ctx context.Context, sk, other *Seek, now time.Time) (Seek, error) {
	a, err := s.store.Player(ctx, sk.PlayerID)
	if err != nil {
		return Seek{}, err
	}
	b, err := s.store.Player(ctx, other.PlayerID)
	if err != nil {
		return Seek{}, err
	}
	mine, theirs := sides(sk.Seat, other.Seat, mrand.IntN(2) == 0)
	var ps [2]*players.Player
	ps[mine], ps[theirs] = &a, &b
	g, err := s.games.Paired(games.PairedGame{Rules: engine.Rules{}, Start: engine.Start(), TimeControl: sk.TimeControl, Rated: sk.Rated, Players: ps})
	if err != nil {
		return Seek{}, err
	}
	cancelled, err := s.store.Pair(ctx, Pairing{Seek: sk.ID, Other: other.ID, SeekSide: mine, OtherSide: theirs,
		Game: g, CancelClock: sk.Clock(), At: now})
	if err != nil {
		return Seek{}, err
	}
	s.games.Started(g)
	evs := []Event{
		{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: other.ID, At: now},
		{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: sk.ID, At: now},
		{Stream: sk.PlayerID, Kind: EventSeekMatched, SeekID: sk.ID, GameID: g.ID, Side: mine, At: now},
		{Stream: sk.PlayerID, Kind: EventGameStart, GameID: g.ID, Side: mine, At: now},
		{Stream: other.PlayerID, Kind: EventSeekMatched, SeekID: other.ID, GameID: g.ID, Side: theirs, At: now},
		{Stream: other.PlayerID, Kind: EventGameStart, GameID: g.ID, Side: theirs, At: now},
	}
	for _, c := range cancelled {
		evs = append(evs, Event{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: c.ID, At: now})
	}
	s.emit(ctx, evs...)
	out := *sk
	out.Status, out.GameID, out.Side, out.UpdatedAt = SeekMatched, g.ID, mine, now
	return out, nil
}

// dropPlaying cancels sk if its owner is playing a game with a live clock,
// and says whether it did.
func (s *Service) dropPlaying(ctx context.Context, sk *Seek, now time.Time) (bool, error) {
	gs, err := s.store.PlayingGames(ctx, sk.PlayerID)
	if err != nil {
		return false, err
	}
	for i := range gs {
		if gs[i].TimeControl.Kind == games.Live {
			_, err := s.store.CancelSeek(ctx, sk.ID, now)
			if err != nil && !errors.Is(err, ErrConflict) {
				return false, err
			}
			s.emit(ctx, Event{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: sk.ID, At: now})
			return true, nil
		}
	}
	return false, nil
}

// ownSeek reads seek id for its owner.
func (s *Service) ownSeek(ctx context.Context, player *players.Player, id string) (Seek, error) {
	if player == nil {
		return Seek{}, fmt.Errorf("%w: send the seek owner's Player-Token", players.ErrUnauthorized)
	}
	sk, err := s.store.Seek(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Seek{}, fmt.Errorf("seek %s: %w", id, ErrSeekNotFound)
	}
	if err != nil {
		return Seek{}, err
	}
	if sk.PlayerID != player.ID {
		return Seek{}, fmt.Errorf("%w: seek %s", ErrNotYourSeek, id)
	}
	return sk.At(s.clock()), nil
}

// Seek returns the player's seek.
func (s *Service) Seek(ctx context.Context, player *players.Player, id string) (Seek, error) {
	return s.ownSeek(ctx, player, id)
}

// CancelSeek cancels the player's open seek.
func (s *Service) CancelSeek(ctx context.Context, player *players.Player, id string) (Seek, error) {
	sk, err := s.ownSeek(ctx, player, id)
	if err != nil {
		return Seek{}, err
	}
	if sk.Status != SeekOpen {
		return Seek{}, fmt.Errorf("%w: seek %s is %s", ErrSeekClosed, id, sk.Status)
	}
	now := s.clock()
	sk, err = s.store.CancelSeek(ctx, id, now)
	if errors.Is(err, ErrConflict) {
		cur, rerr := s.store.Seek(ctx, id)
		if rerr != nil {
			return Seek{}, rerr
		}
		return Seek{}, fmt.Errorf("%w: seek %s is %s", ErrSeekClosed, id, cur.At(now).Status)
	}
	if err != nil {
		return Seek{}, err
	}
	s.emit(ctx, Event{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: id, At: now})
	return sk, nil
}

// Lobby returns up to limit open seeks, newest first, of kind (Untimed:
// any) and rated (nil: any).
func (s *Service) Lobby(ctx context.Context, kind games.TimeKind, rated *bool, limit int) ([]Seek, error) {
	return s.store.OpenSeeks(ctx, LobbyQuery{At: s.clock(), Kind: kind, Rated: rated, Limit: limit})
}

// Expire ends the seeks and challenges whose time is up, tells their
// owners, and deletes old events; cmd runs it every second or so.
func (s *Service) Expire(ctx context.Context) error {
	now := s.clock()
	for {
		seeks, chs, err := s.store.Expire(ctx, now, 100)
		if err != nil {
			return err
		}
		var evs []Event
		for _, sk := range seeks {
			evs = append(evs, Event{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: sk.ID, At: now},
				Event{Stream: sk.PlayerID, Kind: EventSeekExpired, SeekID: sk.ID, At: now})
		}
		for _, c := range chs {
			evs = append(evs, Event{Stream: c.From, Kind: EventChallengeCanceled, ChallengeID: c.ID, At: now})
			if c.To != "" {
				evs = append(evs, Event{Stream: c.To, Kind: EventChallengeCanceled, ChallengeID: c.ID, At: now})
			}
		}
		s.emit(ctx, evs...)
		if len(seeks) < 100 && len(chs) < 100 {
			break
		}
	}
	_, err := s.store.PruneEvents(ctx, now.Add(-eventRetention), 1000)
	return err
}

// Run calls Expire every interval until ctx ends.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.Expire(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "expiring seeks and challenges failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
