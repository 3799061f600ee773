package lobby

// Each player's one event stream, and the lobby's. An event is written to
// the store first, numbered in its stream (Seq, from 1: the stream's
// Last-Event-ID), then announced: to this instance's streams at once
// (hub), and to the other instances through Changes. A stream reads the
// events after the last one it sent from the store, so a stream on any
// instance, or a client that reconnects with Last-Event-ID, misses nothing
// that was written. The events of one change are written after the change
// itself: should the process die between the two they are lost, and a new
// stream's first frames (the player's games in play, pending challenges
// and open seeks) still say how things stand.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"crypto/rand"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// EventKind names the events of a player's stream and of the lobby's.
type EventKind string

// The kinds of event.
const (
	EventGameStart         EventKind = "gameStart"
	EventGameFinish        EventKind = "gameFinish"
	EventChallenge         EventKind = "challenge"
	EventChallengeCanceled EventKind = "challengeCanceled"
	EventChallengeDeclined EventKind = "challengeDeclined"
	EventSeekMatched       EventKind = "seekMatched"
	EventSeekExpired       EventKind = "seekExpired"
	// EventSeek is a new stream's report of an open seek of the player's.
	EventSeek EventKind = "seek"
	// EventTournamentGame: a tournament or a bulk pairing made a game
	// for the player (TournamentID names which).
	EventTournamentGame EventKind = "tournamentGame"
	// The lobby's stream.
	EventSeekAdded   EventKind = "seekAdded"
	EventSeekRemoved EventKind = "seekRemoved"
)

// LobbyStream is the stream of the lobby's events; a tournament's is
// TournamentStream's; every other stream is a player's, named by its id
// (which never holds a '~').
const LobbyStream = "~lobby"

// TournamentStream names the stream of a tournament's news.
func TournamentStream(id string) string { return "~t:" + id }

// PlayerStream reports whether stream is a player's.
func PlayerStream(stream string) bool { return !strings.HasPrefix(stream, "~") }

// Event is one event of a stream.
type Event struct {
	Stream      string
	Seq         int64 // from 1 in each stream; 0 in a new stream's first frames
	Kind        EventKind
	At          time.Time
	GameID      string
	Side        engine.Side // the player's side in GameID
	SeekID      string
	ChallengeID string
	Reason      DeclineReason
	// TournamentID names the tournament (or bulk pairing) of an
	// EventTournamentGame, and of a tournament stream's events.
	TournamentID string

	// Filled in when the event is sent, not stored: the seek, challenge
	// or game the event is about, as it stands then.
	Seek      *Seek
	Challenge *Challenge
	Game      *games.Game
}

// Stream is where a follower's events go.
type Stream interface {
	Send(e Event) error
	Beat() error
}

// Changes carries the news that a stream has new events between the
// instances sharing one store.
type Changes interface {
	// PublishEvents announces new events in stream.
	PublishEvents(ctx context.Context, stream string) error
	// ListenEvents calls changed with every stream announced by any
	// instance until ctx ends; once it listens, it calls changed with ""
	// (every stream).
	ListenEvents(ctx context.Context, changed func(stream string)) error
}

// hub wakes this instance's streams.
type hub struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
	open    map[string]int // streams per player
}

func newHub() *hub { return &hub{waiting: map[string]chan struct{}{}, open: map[string]int{}} }

// wait returns a channel closed at the next notify of stream.
func (h *hub) wait(stream string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.waiting[stream]
	if !ok {
		ch = make(chan struct{})
		h.waiting[stream] = ch
	}
	return ch
}

// notify wakes the streams of stream, or of all when it is "".
func (h *hub) notify(stream string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, ch := range h.waiting {
		if stream == "" || k == stream {
			close(ch)
			delete(h.waiting, k)
		}
	}
}

// emit stores evs and announces them. A failure is logged: the change they
// report is made, and a new stream's first frames report it.
func (s *Service) emit(ctx context.Context, evs ...Event) {
	s.Emit(ctx, evs...)
}

// Emit stores evs and announces them, as the lobby's own events are: for
// the tournaments' news, which reach their followers and players through
// these same streams.
func (s *Service) Emit(ctx context.Context, evs ...Event) {
	if len(evs) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if _, err := s.store.AppendEvents(ctx, evs); err != nil {
		s.log.WarnContext(ctx, "storing lobby events failed", "error", err.Error())
		return
	}
	seen := map[string]bool{}
	for _, e := range evs {
		if seen[e.Stream] {
			continue
		}
		seen[e.Stream] = true
		s.hub.notify(e.Stream)
		if s.o.Changes != nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			if err := s.o.Changes.PublishEvents(pctx, e.Stream); err != nil {
				s.log.WarnContext(ctx, "announcing lobby events failed", "error", err.Error())
			}
			cancel()
		}
	}
}

// Listen relays the events other instances announce to this instance's
// streams until ctx ends; run it in its own goroutine.
func (s *Service) Listen(ctx context.Context) {
	for s.o.Changes != nil && ctx.Err() == nil {
		err := s.o.Changes.ListenEvents(ctx, s.hub.notify)
		if ctx.Err() != nil {
			return
		}
		s.log.WarnContext(ctx, "listening for lobby events failed; retrying", "error", err.Error())
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// Ticket returns a stream ticket for player: a secret that opens one event
// stream within DefaultTicketTTL, for a browser's EventSource, which cannot
// send the Player-Token header; the ticket is single-use and short-lived, so
// the URL that carries it gives nothing away later.
func (s *Service) Ticket(ctx context.Context, player *players.Player) (string, time.Time, error) {
	if player == nil {
		return "", time.Time{}, fmt.Errorf("%w: send your Player-Token", players.ErrUnauthorized)
	}
	var b [24]byte
	_, _ = rand.Read(b[:])
	ticket := "st_" + base64.RawURLEncoding.EncodeToString(b[:])
	h := sha256.Sum256([]byte(ticket))
	expires := s.clock().Add(DefaultTicketTTL)
	return ticket, expires, s.store.AddTicket(ctx, h[:], player.ID, expires)
}

// UseTicket spends a stream ticket and returns its player's id.
func (s *Service) UseTicket(ctx context.Context, ticket string) (string, error) {
	h := sha256.Sum256([]byte(ticket))
	id, err := s.store.UseTicket(ctx, h[:], s.clock())
	if errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("%w: ask for a new one (POST /v1/players/me/events/tickets)", ErrInvalidTicket)
	}
	return id, err
}

// OpenStream takes one of player's stream slots on this instance; call
// release when the stream ends.
func (s *Service) OpenStream(player string) (release func(), err error) {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[player] >= s.o.MaxStreams {
		return nil, fmt.Errorf("%w: %d open on this server, the most it takes", ErrTooManyStreams, s.o.MaxStreams)
	}
	h.open[player]++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.open[player]--; h.open[player] <= 0 {
				delete(h.open, player)
			}
		})
	}, nil
}

// LastEvent returns the Seq of stream's last event.
func (s *Service) LastEvent(ctx context.Context, stream string) (int64, error) {
	return s.store.LastEvent(ctx, stream)
}

// Follow sends stream's events after last to out until ctx ends or the
// service stops. For a player's stream (not LobbyStream) with last below
// zero it first sends how things stand: the player's games in play
// (gameStart), pending challenges (challenge) and open seeks (seek), each
// with the Seq of the stream's last event; and while it is open it keeps
// the player's live seeks and challenges alive.
func (s *Service) Follow(ctx context.Context, stream string, last int64, heartbeat time.Duration, out Stream) error {
	player := PlayerStream(stream)
	if last < 0 {
		var err error
		if last, err = s.store.LastEvent(ctx, stream); err != nil {
			return err
		}
		if player {
			if err := s.snapshot(ctx, stream, last, out); err != nil {
				return err
			}
		}
	}
	touch := time.Duration(0)
	if player {
		touch = s.o.StreamGrace / 2
		s.touch(ctx, stream)
	}
	beat := time.NewTimer(heartbeat)
	defer beat.Stop()
	lastTouch := time.Now()
	for {
		wake := s.hub.wait(stream)
		evs, err := s.store.Events(ctx, stream, last, 100)
		if err != nil && ctx.Err() != nil {
			return nil
		}
		for i := range evs {
			e := s.detail(ctx, evs[i])
			if err := out.Send(e); err != nil {
				return nil // the client is gone
			}
			last = e.Seq
		}
		if len(evs) == 100 {
			continue
		}
		if touch > 0 && time.Since(lastTouch) >= touch {
			s.touch(ctx, stream)
			lastTouch = time.Now()
		}
		wait := s.o.PollInterval
		if touch > 0 {
			wait = min(wait, touch)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.o.Stopping:
			return nil
		case <-wake:
		case <-time.After(wait):
		case <-beat.C:
			if err := out.Beat(); err != nil {
				return nil
			}
			beat.Reset(heartbeat)
		}
	}
}

// touch keeps player's live seeks and challenges alive for StreamGrace.
func (s *Service) touch(ctx context.Context, player string) {
	now := s.clock()
	if err := s.store.Touch(ctx, player, now, now.Add(s.o.StreamGrace)); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "keeping seeks alive failed", "player", player, "error", err.Error())
	}
}

// snapshot sends a new player stream's first frames.
func (s *Service) snapshot(ctx context.Context, player string, seq int64, out Stream) error {
	now := s.clock()
	gs, err := s.store.PlayingGames(ctx, player)
	if err != nil {
		return err
	}
	for i := range gs {
		side := engine.South
		if gs[i].Players[engine.North].ID == player {
			side = engine.North
		}
		if err := out.Send(Event{Stream: player, Seq: seq, Kind: EventGameStart, GameID: gs[i].ID, Side: side, At: now, Game: &gs[i]}); err != nil {
			return nil
		}
	}
	chs, err := s.store.PlayerChallenges(ctx, player, now)
	if err != nil {
		return err
	}
	for i := range chs {
		if err := out.Send(Event{Stream: player, Seq: seq, Kind: EventChallenge, ChallengeID: chs[i].ID, At: now, Challenge: &chs[i]}); err != nil {
			return nil
		}
	}
	seeks, err := s.store.PlayerSeeks(ctx, player, now)
	if err != nil {
		return err
	}
	for i := range seeks {
		if err := out.Send(Event{Stream: player, Seq: seq, Kind: EventSeek, SeekID: seeks[i].ID, At: now, Seek: &seeks[i]}); err != nil {
			return nil
		}
	}
	return nil
}

// Ended tells each player of g, a game the games service has just ended
// (games.EndNotifier), with a gameFinish event: the game, its result and
// the rating change are read when the event is sent.
func (s *Service) Ended(ctx context.Context, g games.Game) {
	var evs []Event
	for side, p := range g.Players {
		if p.ID != "" {
			evs = append(evs, Event{Stream: p.ID, Kind: EventGameFinish, GameID: g.ID, Side: engine.Side(side), At: g.UpdatedAt})
		}
	}
	s.emit(ctx, evs...)
}

// detail fills in what e is about, as it stands now.
func (s *Service) detail(ctx context.Context, e Event) Event {
	now := s.clock()
	if e.Kind == EventGameFinish {
		if g, err := s.games.Game(ctx, e.GameID); err == nil {
			e.Game = &g
		}
	}
	if e.SeekID != "" {
		if sk, err := s.store.Seek(ctx, e.SeekID); err == nil {
			sk = sk.At(now)
			e.Seek = &sk
		}
	}
	if e.ChallengeID != "" {
		if c, err := s.store.Challenge(ctx, e.ChallengeID); err == nil {
			c = c.At(now)
			e.Challenge = &c
		}
	}
	return e
}
