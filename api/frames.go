package api

// The Server-Sent Events frames of game events. The games hub hands every
// follower of a game on this instance the same events; the frame of each
// is made here, once, and kept a while, so that 5,000 followers of a game
// cost one encoding of each of its events, not 5,000.

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ayoayo/ayoayo/api/oapi"
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
// id (for Last-Event-ID; none for the game event, which is no change of
// its own, so a client's last id stays that of the last change it saw),
// its kind, and its data: a GameMoveEvent for a move, a
// GameOpponentGoneEvent for opponentGone, and the Game for the others
// (game, joined, end, offer, offerDeclined and takeback). Each carries the
// game's version and status.
func encodeEvent(e games.Event) ([]byte, error) { return encodeMarkedEvent(e, nil) }

// encodeMarkedEvent is encodeEvent with the game's seats marked by bots.
func encodeMarkedEvent(e games.Event, bots botSet) ([]byte, error) {
	var data any
	switch e.Kind {
	case games.EventMove:
		data = moveEventToAPI(&e)
	case games.EventOpponentGone:
		data = goneEventToAPI(&e)
	default:
		data = gameToAPI(e.Game, bots)
	}
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode the %s event %d: %w", e.Kind, e.ID, err)
	}
	if e.Kind == games.EventGame {
		return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", e.Kind, payload), nil
	}
	return fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, e.Kind, payload), nil
}

// moveEventToAPI is the data of a move event: the move, with the version
// and status of the game after it.
func moveEventToAPI(e *games.Event) oapi.GameMoveEvent {
	m := moveToAPI(e.Move)
	return oapi.GameMoveEvent{Ply: m.Ply, Side: m.Side, Pit: m.Pit, ByAi: m.ByAi, Legs: m.Legs, Capture: m.Capture,
		Position: m.Position, Result: m.Result, PlayedAt: m.PlayedAt, ElapsedMs: m.ElapsedMs, Clock: m.Clock,
		Version: e.Version, Status: oapi.GameStatus(e.Status)}
}

// goneEventToAPI is the data of an opponentGone event.
func goneEventToAPI(e *games.Event) oapi.GameOpponentGoneEvent {
	wait := max(e.Gone.ClaimAt.Sub(e.At), 0)
	return oapi.GameOpponentGoneEvent{Side: oapi.Side(e.Gone.Side.String()), Since: e.Gone.Since, ClaimAt: e.Gone.ClaimAt,
		ClaimInSeconds: int((wait + time.Second - 1) / time.Second), Version: e.Version, Status: oapi.GameStatus(e.Status)}
}
