package httpx

import "sync"

// StreamSlots counts the open event streams, in total, per client address
// and per game, and refuses one beyond a limit. An open stream holds a
// goroutine, a connection and its buffers for as long as the client likes,
// so these bound what one client, one game or a crowd can hold.
type StreamSlots struct {
	max, perClient, perGame int // 0: no limit

	mu      sync.Mutex
	total   int
	clients map[string]int
	games   map[string]int
}

// NewStreamSlots bounds the streams in total (max), per client address and
// per game; a limit of 0 is no limit.
func NewStreamSlots(max, perClient, perGame int) *StreamSlots {
	return &StreamSlots{max: max, perClient: perClient, perGame: perGame, clients: map[string]int{}, games: map[string]int{}}
}

// Open is the number of streams served now.
func (s *StreamSlots) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Acquire takes a slot for a stream of game from client, or says which
// limit refuses it; call release when the stream ends.
func (s *StreamSlots) Acquire(client, game string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.perClient > 0 && s.clients[client] >= s.perClient:
		return nil, Errorf(ErrTooManyStreams, "this client address already follows %d event streams, the most it may", s.perClient)
	case s.perGame > 0 && s.games[game] >= s.perGame:
		return nil, Errorf(ErrStreamsFull, "game %s already has %d followers on this server, the most it takes", game, s.perGame)
	case s.max > 0 && s.total >= s.max:
		return nil, Errorf(ErrStreamsFull, "this server already serves %d event streams, the most it takes", s.max)
	}
	s.total++
	s.clients[client]++
	s.games[game]++
	var once sync.Once
	return func() { once.Do(func() { s.release(client, game) }) }, nil
}

func (s *StreamSlots) release(client, game string) {
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
