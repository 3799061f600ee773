package api

import (
	"errors"
	"sync"
)

// Errors of the event-stream limits.
var (
	// ErrTooManyStreams: one client address holds as many event streams as
	// it may (429).
	ErrTooManyStreams = errors.New("too many event streams from this client")
	// ErrStreamsFull: the server, or the game, has as many event streams as
	// it takes (503).
	ErrStreamsFull = errors.New("no room for another event stream")
)

// Defaults of the event-stream limits, per instance.
const (
	DefaultMaxStreams          = 10000
	DefaultMaxStreamsPerClient = 50
	DefaultMaxStreamsPerGame   = 10000
)

// streamSlots counts the open event streams, in total, per client address
// and per game, and refuses one beyond a limit. An open stream holds a
// goroutine, a connection and its buffers for as long as the client likes,
// so these bound what one client, one game or a crowd can hold.
type streamSlots struct {
	max, perClient, perGame int // 0: no limit

	mu      sync.Mutex
	total   int
	clients map[string]int
	games   map[string]int
}

func newStreamSlots(max, perClient, perGame int) *streamSlots {
	return &streamSlots{max: max, perClient: perClient, perGame: perGame, clients: map[string]int{}, games: map[string]int{}}
}

// open is the number of streams served now.
func (s *streamSlots) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// acquire takes a slot for a stream of game from client, or says which
// limit refuses it; call release when the stream ends.
func (s *streamSlots) acquire(client, game string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.perClient > 0 && s.clients[client] >= s.perClient:
		return nil, newError(ErrTooManyStreams, "this client address already follows %d event streams, the most it may", s.perClient)
	case s.perGame > 0 && s.games[game] >= s.perGame:
		return nil, newError(ErrStreamsFull, "game %s already has %d followers on this server, the most it takes", game, s.perGame)
	case s.max > 0 && s.total >= s.max:
		return nil, newError(ErrStreamsFull, "this server already serves %d event streams, the most it takes", s.max)
	}
	s.total++
	s.clients[client]++
	s.games[game]++
	var once sync.Once
	return func() { once.Do(func() { s.release(client, game) }) }, nil
}

func (s *streamSlots) release(client, game string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.clients[client]--; s.clients[client] <= 0 {
		delete(s.clients, client)
	}
	if s.games[game]--; s.games[game] <= 0 {
		delete(s.games, game)
	}
}
