package api

// The Server-Sent Events frames of game events. The games hub hands every
// follower of a game on this instance the same events; the frame of each
// is made here, once, and kept a while, so that 5,000 followers of a game
// cost one encoding of each of its events, not 5,000.

import (
	"encoding/json"
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ayoayo/ayoayo/games"
)

// frameCacheSize bounds the frames kept (about a kilobyte each). A frame
// is wanted by its followers within moments of its event, and later only
// by a follower catching up (Last-Event-ID), which costs one encoding more
// if it is gone.
const frameCacheSize = 4096

// frames memoises the frames of game events by game and event.
type frames struct {
	cache  *lru.Cache[frameKey, *frameOnce]
	encode func(games.Event) ([]byte, error)
}

// frameKey names one event of one game. The kind is part of it: a game's
// end event has the id of its last move.
type frameKey struct {
	game    string
	kind    games.EventKind
	id      int
	version int64 // a takeback makes ids come again, at later versions
}

// frameOnce is one frame, made by the first follower that asks for it
// while the others that ask meanwhile wait for it.
type frameOnce struct {
	once  sync.Once
	frame []byte
	err   error
}

func newFrames(encode func(games.Event) ([]byte, error)) *frames {
	c, err := lru.New[frameKey, *frameOnce](frameCacheSize)
	if err != nil {
		panic(err) // only for a size below one
	}
	return &frames{cache: c, encode: encode}
}

// frame returns the frame of event e of game id, making it if nobody has.
func (fs *frames) frame(id string, e games.Event) ([]byte, error) {
	k := frameKey{game: id, kind: e.Kind, id: e.ID, version: e.Version}
	f, ok := fs.cache.Get(k)
	if !ok {
		f = &frameOnce{}
		if prev, found, _ := fs.cache.PeekOrAdd(k, f); found {
			f = prev // another follower added it first
		}
	}
	f.once.Do(func() { f.frame, f.err = fs.encode(e) })
	return f.frame, f.err
}

// encodeEvent is the Server-Sent Events frame of a game event: the event's
// id (its ply count, for Last-Event-ID), its kind, and its data, a GameMove
// for a move and the Game for the others (joined, end, offer,
// offerDeclined and takeback).
func encodeEvent(e games.Event) ([]byte, error) { return encodeMarkedEvent(e, nil) }

// encodeMarkedEvent is encodeEvent with the game's seats marked by bots.
func encodeMarkedEvent(e games.Event, bots botSet) ([]byte, error) {
	var data any
	switch e.Kind {
	case games.EventMove:
		data = moveToAPI(e.Move)
	default:
		data = gameToAPI(e.Game, bots)
	}
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode the %s event %d: %w", e.Kind, e.ID, err)
	}
	return fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, e.Kind, payload), nil
}
