package games

// Live updates of game sessions. A change is committed to the store first;
// then the hub wakes whoever follows that game, and each follower reads what
// it has not sent yet from the store. Events therefore come from one ordered
// source, the moves table, and a follower that wakes late, or a client that
// reconnects with Last-Event-ID, misses nothing.

import (
	"context"
	"sync"
	"time"
)

// hub wakes the followers of a game when it changes.
type hub struct {
	mu     sync.Mutex
	topics map[string]*topic
}

type topic struct {
	changed   chan struct{} // closed and replaced at each change
	followers int
}

func newHub() *hub {
	return &hub{topics: map[string]*topic{}}
}

// follow registers a follower of game id; call the returned func when done.
func (h *hub) follow(id string) (stop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[id]
	if t == nil {
		t = &topic{changed: make(chan struct{})}
		h.topics[id] = t
	}
	t.followers++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if t.followers--; t.followers == 0 {
			delete(h.topics, id)
		}
	}
}

// changed returns a channel that is closed at the next change of game id.
// Take it before reading the store: a change committed after the read then
// closes it.
func (h *hub) changed(id string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[id]; t != nil {
		return t.changed
	}
	return nil // nobody follows: nothing to wake
}

// notify wakes the followers of game id.
func (h *hub) notify(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[id]; t != nil {
		close(t.changed)
		t.changed = make(chan struct{})
	}
}

// EventKind names the events of a game's stream.
type EventKind string

const (
	EventJoined EventKind = "joined" // the second seat was taken; id 0
	EventMove   EventKind = "move"   // a move; id is the ply after it
	EventEnd    EventKind = "end"    // the game ended; id is its last ply
)

// Event is one event of a game's stream. Its ID is a ply count: a client
// that has seen the event with ID n has seen every move before ply n, and
// resumes with Last-Event-ID n.
type Event struct {
	ID   int
	Kind EventKind
	Game *Game // joined and end: the game at that point
	Move *Move // move
}

// followPage is how many moves a follower reads from the store at a time.
const followPage = 256

// Follow sends the events of game id after lastID (-1: from the beginning)
// to emit, in order, then every new one as it happens, until the game ends,
// ctx is cancelled or s.stopping is closed (a graceful shutdown waits for
// every response to end, and a stream would not end by itself). beat is called every heartbeat
// interval, to keep idle connections open; the store is read again then too, so a change made by another process sharing
// the database is seen within a heartbeat.
func (s *Service) Follow(ctx context.Context, id string, lastID int, heartbeat time.Duration,
	emit func(Event) error, beat func() error) error {
	stop := s.hub.follow(id)
	defer stop()
	joinedSent := lastID >= 0
	next := max(lastID, 0) // the ply of the next move to send
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		changed := s.hub.changed(id)
		g, err := s.store.Game(ctx, id)
		if err != nil {
			return err
		}
		if !joinedSent && !g.JoinedAt.IsZero() {
			if err := emit(Event{ID: 0, Kind: EventJoined, Game: &g}); err != nil {
				return err
			}
			joinedSent = true
		}
		for next < g.Ply {
			ms, err := s.moves(ctx, &g, next, followPage)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				break
			}
			for i := range ms {
				if err := emit(Event{ID: ms[i].Ply + 1, Kind: EventMove, Move: &ms[i]}); err != nil {
					return err
				}
				next = ms[i].Ply + 1
			}
		}
		if g.Status == Finished && next >= g.Ply {
			return emit(Event{ID: g.Ply, Kind: EventEnd, Game: &g})
		}
		select {
		case <-changed:
			continue
		case <-tick.C:
			if err := beat(); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-s.stopping:
			return nil
		}
	}
}
