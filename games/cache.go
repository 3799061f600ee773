package games

import (
	"slices"
	"sync"
)

// gameCache keeps the latest known row of recently played games, so a move
// does not have to read its game from the database first. It is only ever a
// guess: the write of a move re-checks the ply in the database, and a move
// whose ply does not match the cached game asks the database, so a stale
// entry costs a read, never a wrong answer. Reads for clients (GET, events)
// do not use it.
type gameCache struct {
	mu    sync.Mutex
	games map[string]*Game
	max   int
}

func newGameCache(max int) *gameCache {
	return &gameCache{games: make(map[string]*Game, max), max: max}
}

// get returns a copy of the cached game.
func (c *gameCache) get(id string) (Game, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.games[id]
	if !ok {
		return Game{}, false
	}
	cp := *g
	// Clipped, so the caller's appends copy instead of writing into the
	// entry's array.
	cp.History = slices.Clip(cp.History)
	return cp, true
}

// put records g unless a newer version of it is already there. A full cache
// forgets an arbitrary game (map order): finished and idle games are the
// many, and a forgotten game is merely read again.
func (c *gameCache) put(g *Game) {
	cp := *g
	// The history is appended to as the game goes on; the entry must not
	// share the caller's array.
	cp.History = append([]byte(nil), g.History...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.games[g.ID]; ok && old.Version >= g.Version {
		return
	}
	if len(c.games) >= c.max {
		for id := range c.games {
			delete(c.games, id)
			break
		}
	}
	c.games[g.ID] = &cp
}

// drop forgets game id.
func (c *gameCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.games, id)
}
