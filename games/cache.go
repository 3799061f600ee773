package games

import (
	"slices"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// gameCache keeps the latest known row of recently played games, so a move
// (or a join of a game created here) does not have to read its game from
// the database first. It is only ever a guess: the write of a move
// re-checks the ply in the database, and a move whose ply does not match
// the cached game asks the database (a join's write re-checks that the
// game still waits), so a stale entry costs a read, never a wrong answer.
// Reads for clients (GET, events) do not use it. A full cache forgets the
// game played least recently (golang-lru's LRU): finished and idle games
// are the many, and a forgotten game is merely read again.
type gameCache struct {
	// mu makes put's compare and add one step (simplelru is not safe for
	// concurrent use; its thread-safe wrapper would lock each call alone).
	mu    sync.Mutex
	games *simplelru.LRU[string, *Game]
}

func newGameCache(max int) *gameCache {
	games, err := simplelru.NewLRU[string, *Game](max, nil)
	if err != nil { // only for a size < 1
		panic(err)
	}
	return &gameCache{games: games}
}

// get returns a copy of the cached game.
func (c *gameCache) get(id string) (Game, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.games.Get(id)
	if !ok {
		return Game{}, false
	}
	cp := *g
	// Clipped, so the caller's appends copy instead of writing into the
	// entry's array.
	cp.History = slices.Clip(cp.History)
	return cp, true
}

// put records g unless a newer version of it is already there.
func (c *gameCache) put(g *Game) {
	cp := *g
	// The history is appended to as the game goes on; the entry must not
	// share the caller's array.
	cp.History = append([]byte(nil), g.History...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.games.Peek(g.ID); ok && old.Version >= g.Version {
		return
	}
	c.games.Add(g.ID, &cp)
}

// drop forgets game id.
func (c *gameCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.games.Remove(id)
}

// advance applies the news of a play to the cached game if the cache holds
// it as it was just before the play, and forgets an older copy, which the
// play made stale.
func (c *gameCache) advance(n *PlayNews) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.games.Peek(n.ID)
	if !ok || old.Version >= n.Version {
		return
	}
	cp := *old
	if !n.applyTo(&cp) {
		c.games.Remove(n.ID)
		return
	}
	c.games.Add(n.ID, &cp)
}

// clear forgets every game.
func (c *gameCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.games.Purge()
}
