package games

// Live updates of game sessions. A change is committed to the store first;
// then the games it touched are announced (Changes, across every instance
// sharing the store, and this instance's own hub at once). Each instance
// keeps one feed per game that has followers: on a change the feed reads the
// game and its new moves once, encodes each new event once, and appends it
// to the game's log; every follower of that game on this instance then
// writes the same bytes from the log. So a change costs one read per
// instance however many follow, and a follower that wakes late, or a client
// that reconnects with Last-Event-ID to any instance, misses nothing: the
// log is rebuilt from the store, the one ordered source.
//
// When the store cannot be read (the database restarts, say), a feed keeps
// its followers: their streams stay open, beating, while the feed reads
// again after a growing pause, or at once when a change is announced; the
// log then goes on from where it stopped, so nobody misses or repeats an
// event. Only what waiting cannot mend (the game is gone, a stored game
// that does not hold together) ends the streams.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// EventKind names the events of a game's stream.
type EventKind string

// The kinds of event.
const (
	EventJoined EventKind = "joined" // the second seat was taken; id 0
	EventMove   EventKind = "move"   // a move; id is the ply after it
	EventEnd    EventKind = "end"    // the game ended (finished or aborted); id is its last ply
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

// EventEncoder turns an event into the bytes every follower is sent; the api
// package gives one (the Server-Sent Events frame of its JSON).
type EventEncoder func(Event) ([]byte, error)

// Changes carries the news that a game changed between the instances that
// share one store. A store with one process needs none: each Service's own
// hub hears its own changes.
type Changes interface {
	// Publish announces that game id changed (after the change committed).
	Publish(ctx context.Context, id string) error
	// Listen calls changed with every id announced by any instance until
	// ctx ends. Once it listens it calls changed with the empty id, which
	// wakes every feed: whatever was announced while nobody listened (the
	// database was down, say) is read then.
	Listen(ctx context.Context, changed func(id string)) error
}

// followPage is how many moves a feed reads from the store at a time.
const followPage = 256

// hub holds this instance's feeds, one per followed game.
type hub struct {
	mu    sync.Mutex
	feeds map[string]*feed
}

func newHub() *hub { return &hub{feeds: map[string]*feed{}} }

// feed is one game's event log on this instance and the goroutine that
// extends it. The feed also keeps its followers' streams open while the
// game is quiet (heartbeats) and ends them at shutdown, so a follower waits
// on one channel, grown, besides its own context: one timer per game
// instead of one per follower, and one wake-up per change.
type feed struct {
	id        string
	followers int
	heartbeat time.Duration // the shortest asked for by a follower; under hub.mu
	wake      chan struct{} // a change to read; buffered, one pending is enough
	stop      chan struct{} // closed when the last follower leaves

	mu      sync.RWMutex
	entries []entry
	grown   chan struct{} // closed and replaced when entries grows, beats or stopped change
	beats   int           // heartbeats: quiet spells of the heartbeat interval
	ended   bool          // the end event is in entries
	stopped bool          // the service is stopping: followers end
	err     error         // the feed failed; followers end with it
}

// entry is one encoded event.
type entry struct {
	id    int
	kind  EventKind
	frame []byte
}

// notify wakes the feed of game id, if this instance has one; the empty id
// wakes every feed (see Changes).
func (h *hub) notify(id string) {
	h.mu.Lock()
	var wake []*feed
	if id == "" {
		for _, f := range h.feeds {
			wake = append(wake, f)
		}
	} else if f := h.feeds[id]; f != nil {
		wake = append(wake, f)
	}
	h.mu.Unlock()
	for _, f := range wake {
		select {
		case f.wake <- struct{}{}:
		default: // a read is already due
		}
	}
}

// join returns game id's feed, starting it for the first follower; call
// leave when done.
func (s *Service) join(id string, heartbeat time.Duration) *feed {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.feeds[id]
	if f == nil {
		f = &feed{id: id, heartbeat: heartbeat, wake: make(chan struct{}, 1), stop: make(chan struct{}), grown: make(chan struct{})}
		h.feeds[id] = f
		go s.run(f)
	}
	f.heartbeat = min(f.heartbeat, heartbeat)
	f.followers++
	return f
}

func (s *Service) leave(f *feed) {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.followers--; f.followers == 0 {
		delete(h.feeds, f.id)
		close(f.stop)
	}
}

// heartbeatInterval is f's heartbeat interval now.
func (s *Service) heartbeatInterval(f *feed) time.Duration {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return f.heartbeat
}

// Pauses before a feed reads again after a failed read: the first is short,
// for a blip; each next one doubles, up to the longest, so that a long
// outage costs the database one read per followed game every few seconds
// when it returns, not a stampede.
const (
	firstReadRetry = 250 * time.Millisecond
	lastReadRetry  = 5 * time.Second
)

// run keeps f's log up to date until its last follower leaves: it reads
// when woken, and every poll interval besides, so a change made by another
// process sharing the store without Changes is still seen. When nothing
// new has come for a heartbeat interval it tells the followers to beat, and
// when the service stops it tells them to end. A read that fails is tried
// again (see readRetry) while the followers wait.
func (s *Service) run(f *feed) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.stop
		cancel()
	}()
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	quiet := time.NewTimer(s.heartbeatInterval(f))
	defer quiet.Stop()
	retry := time.NewTimer(firstReadRetry)
	retry.Stop()
	defer retry.Stop()
	next, joined := 0, false // the ply of the next move to add; the joined event added
	failures := 0            // reads failed in a row
	for {
		grew, err := s.extend(ctx, f, &next, &joined)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !readRetry(err):
			f.fail(err)
			return
		case err != nil:
			if failures == 0 {
				s.log.Warn("a followed game cannot be read; its streams wait", "game", f.id, "error", err.Error())
			}
			retry.Reset(min(firstReadRetry<<min(failures, 10), lastReadRetry))
			failures++
		case failures > 0:
			s.log.Info("a followed game can be read again", "game", f.id, "failedReads", failures)
			failures = 0
			retry.Stop()
		}
		if f.done() {
			return
		}
		if grew {
			quiet.Reset(s.heartbeatInterval(f))
		}
		if !s.wait(f, tick.C, retry.C, quiet) {
			return
		}
	}
}

// readRetry says whether a feed whose read failed with err reads again:
// yes, unless waiting cannot mend it (the game is gone, or its stored form
// does not hold together). An error the store did not name is retried too:
// a stream that waits costs little, one cut costs a browser its stream.
func readRetry(err error) bool {
	return !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, errEncode)
}

// errEncode marks an event the EventEncoder could not encode: a bug, which
// reading again would not fix.
var errEncode = errors.New("encode an event")

// wait waits until f's game may have changed, or a failed read is due
// again (retry), telling the followers to beat while it is quiet; false:
// the feed is to stop.
func (s *Service) wait(f *feed, tick, retry <-chan time.Time, quiet *time.Timer) bool {
	for {
		select {
		case <-f.wake:
			return true
		case <-tick:
			return true
		case <-retry:
			return true
		case <-quiet.C:
			f.update(func() { f.beats++ })
			quiet.Reset(s.heartbeatInterval(f))
		case <-s.stopping:
			f.update(func() { f.stopped = true })
			return false
		case <-f.stop:
			return false
		}
	}
}

// extend reads what is new in the game and appends it to f's log; it says
// whether the log grew. When a read fails part way, what was read before it
// is appended all the same, and next and joined say where the next extend
// goes on: the log never skips or repeats an event. An overdue game is
// ended by the read (current), so a follower sees its end at once.
func (s *Service) extend(ctx context.Context, f *feed, next *int, joined *bool) (grew bool, err error) {
	g, err := s.current(ctx, f.id)
	if err != nil {
		return false, err
	}
	var add []entry
	end := false
	defer func() {
		if len(add) == 0 {
			return
		}
		f.update(func() {
			f.entries = append(f.entries, add...)
			f.ended = end
		})
		grew = true
	}()
	encode := func(e Event) error {
		frame, err := s.encodeEvent(e)
		if err != nil {
			return fmt.Errorf("%w %s %d of game %s: %w", errEncode, e.Kind, e.ID, f.id, err)
		}
		add = append(add, entry{id: e.ID, kind: e.Kind, frame: frame})
		return nil
	}
	if !*joined && !g.JoinedAt.IsZero() {
		if err := encode(Event{ID: 0, Kind: EventJoined, Game: &g}); err != nil {
			return false, err
		}
		*joined = true
	}
	for *next < g.Ply {
		ms, err := s.moves(ctx, &g, *next, followPage)
		if err != nil {
			return false, err
		}
		if len(ms) == 0 {
			break
		}
		for i := range ms {
			if err := encode(Event{ID: ms[i].Ply + 1, Kind: EventMove, Move: &ms[i]}); err != nil {
				return false, err
			}
			*next = ms[i].Ply + 1
		}
	}
	if g.Status.Over() && *next >= g.Ply {
		if err := encode(Event{ID: g.Ply, Kind: EventEnd, Game: &g}); err != nil {
			return false, err
		}
		end = true
	}
	return false, nil // grew: see the deferred append
}

// update changes f under its lock and wakes its followers.
func (f *feed) update(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
	close(f.grown)
	f.grown = make(chan struct{})
}

func (f *feed) done() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.ended
}

func (f *feed) fail(err error) { f.update(func() { f.err = err }) }

// feedState is what a follower reads of its feed: see since.
type feedState struct {
	batch   []entry         // the entries not yet dealt with
	grown   <-chan struct{} // closed when the state changes
	beats   int
	ended   bool // the log is complete
	stopped bool
	err     error
}

// since returns f's state for a follower that has dealt with the first n
// entries of the log.
func (f *feed) since(n int) feedState {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return feedState{batch: f.entries[n:len(f.entries):len(f.entries)], grown: f.grown, beats: f.beats,
		ended: f.ended, stopped: f.stopped, err: f.err}
}

// Stream is where Follow writes one follower's events.
type Stream interface {
	// Send writes one event as the bytes the Service's EventEncoder made
	// of it. It may hold them back until Flush.
	Send(e Event, frame []byte) error
	// Flush sends what Send held back. Follow calls it after each batch of
	// events, so a follower that has fallen behind gets the events it
	// missed in one write.
	Flush() error
	// Beat keeps an idle stream open (and sends it at once).
	Beat() error
}

// Follow sends the events of game id after lastID (-1: from the beginning)
// to out, in order; then every new one as it happens, until the game ends,
// ctx is cancelled or Options.Stopping is closed (a graceful shutdown waits
// for every response to end, and a stream would not end by itself). When
// the game has been quiet for heartbeat (the shortest any follower of the
// game on this instance asked for), out beats, to keep idle connections
// open. While the store is unavailable a follower is not turned away: it
// waits, beating, for the feed to read the game (and ends then if there is
// no such game).
func (s *Service) Follow(ctx context.Context, id string, lastID int, heartbeat time.Duration, out Stream) error {
	if _, err := s.store.Game(ctx, id); err != nil && !errors.Is(err, fault.ErrUnavailable) {
		return notFound(id, err)
	}
	f := s.join(id, heartbeat)
	defer s.leave(f)
	sent := 0   // entries of f's log dealt with
	beats := -1 // the feed's heartbeats seen; -1 before the first look
	for {
		st := f.since(sent)
		switch {
		case st.err != nil:
			return st.err
		case st.stopped:
			return nil
		}
		n := 0
		for _, e := range st.batch {
			sent++
			if !wanted(e, lastID) {
				continue
			}
			if err := out.Send(Event{ID: e.id, Kind: e.kind}, e.frame); err != nil {
				return err
			}
			n++
		}
		var err error
		switch {
		case n > 0:
			err = out.Flush()
		case beats >= 0 && st.beats != beats:
			err = out.Beat()
		}
		if err != nil {
			return err
		}
		if st.ended {
			return nil
		}
		beats = st.beats
		select {
		case <-st.grown:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wanted says whether a follower that has seen up to lastID is sent e: the
// joined event only from the beginning, moves after lastID, and the end
// always, since it closes the stream.
func wanted(e entry, lastID int) bool {
	switch e.kind {
	case EventJoined:
		return lastID < 0
	case EventMove:
		return e.id > lastID
	}
	return true
}

// Listen wakes this instance's feeds with the changes every instance
// announces (Options.Changes) until ctx ends; run it in its own goroutine
// for the server's life. A failing listener is retried after a pause, and
// meanwhile the feeds' polling still sees every change. Without Changes it
// returns at once.
func (s *Service) Listen(ctx context.Context) {
	for s.changes != nil && ctx.Err() == nil {
		err := s.changes.Listen(ctx, s.hub.notify)
		if ctx.Err() != nil {
			return
		}
		s.log.WarnContext(ctx, "listening for game changes failed; retrying", "error", err.Error())
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// publishTimeout bounds the announcement of one change to the other
// instances.
const publishTimeout = 2 * time.Second

// changed announces that game id changed: to this instance's followers at
// once, and to the other instances through Changes.
func (s *Service) changed(ctx context.Context, id string) {
	s.hub.notify(id)
	if s.changes != nil {
		// Bounded: an unreachable database must not hold the answer to a
		// move (or the sweeper) back for the system's TCP timeout; the
		// others' feeds poll too.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
		defer cancel()
		if err := s.changes.Publish(pctx, id); err != nil {
			// The others' feeds poll too: they see it a little later.
			s.log.WarnContext(ctx, "announcing a game change failed", "game", id, "error", err.Error())
		}
	}
}

// plainEvent is the EventEncoder of a Service given none: the kind and the
// id as text, enough for tests of the order of events.
func plainEvent(e Event) ([]byte, error) { return fmt.Appendf(nil, "%s %d", e.Kind, e.ID), nil }
