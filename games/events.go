package games

// The follow hub: live updates of game sessions, a part of its own beside
// the session service. A change is committed to the store first; then the
// session service tells its Notifier, the Hub, which announces the change
// (Changes, across every instance sharing the store, and this instance's
// own feeds at once). Each instance keeps one feed per game that has
// followers: on a change the feed reads the game and its new moves once and
// appends the new events to the game's log; every follower of that game on
// this instance then sends the same events from the log (the api package
// encodes each once, however many follow). So a change costs one read per
// instance however many follow, and a follower that wakes late, or a client
// that reconnects with Last-Event-ID to any instance, misses nothing: the
// log is rebuilt from the store, the one ordered source.
//
// The Hub reads the store as it is: an overdue game is ended by the
// sweeper (or by any read through the session service), whose end is
// announced like any change.
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
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
)

// EventKind names the events of a game's stream.
type EventKind string

// The kinds of event. Every event but EventGame has an ID, made from the
// game's version (see eventID), so ids grow with every change and never
// come again within a game, a takeback included.
const (
	// EventGame: the whole game as the stream opens; the first event of
	// every stream, resumed or not, and the only one without an ID.
	EventGame   EventKind = "game"
	EventJoined EventKind = "joined" // the second seat was taken
	EventMove   EventKind = "move"   // a move
	EventEnd    EventKind = "end"    // the game ended (finished or aborted); the stream's last
	// EventOffer: a draw offer or a takeback proposal now stands (the
	// game's offers say which).
	EventOffer EventKind = "offer"
	// EventOfferDeclined: an offer was refused or withdrawn.
	EventOfferDeclined EventKind = "offerDeclined"
	// EventTakeback: moves were taken back; the game is as it stood at
	// the ply it went back to, and the moves after it are gone.
	EventTakeback EventKind = "takeback"
	// EventOpponentGone: the side to move is gone (see Gone); Gone says
	// which and when the claim opens.
	EventOpponentGone EventKind = "opponentGone"
)

// Event is one event of a game's stream.
type Event struct {
	// ID orders the events of a game: a client that has seen the event
	// with ID n resumes with Last-Event-ID n. Zero for EventGame.
	ID   int
	Kind EventKind
	Game *Game // game, joined, end, offer, offerDeclined and takeback: the game at that point
	Move *Move // move
	Gone *Gone // opponentGone
	// Version and Status are the game's after the event.
	Version int64
	Status  Status
	// At is when the feed added an opponentGone: its seconds until the
	// claim count from it.
	At time.Time
}

// eventsPerVersion is how many ids each version of a game has: the events
// of the change that made the version (at most three: a move, the AI's
// reply and the end) take the first ones in order, and the last is the
// opponentGone of the version. An id n thus belongs to version
// n/eventsPerVersion, on every instance and after any restart, which is
// how a stream resumed elsewhere knows how fresh its game must be.
const eventsPerVersion = 8

// goneID is the id of the opponentGone event of version v.
func goneID(v int64) int { return int(v)*eventsPerVersion + eventsPerVersion - 1 }

// MaxEventID is the greatest event id a game at version v can have sent.
func MaxEventID(v int64) int { return goneID(v) }

// Changes carries the news that a game changed between the instances that
// share one store. A store with one process needs none: each instance's
// Hub hears its own changes.
type Changes interface {
	// Publish announces that game id changed (after the change committed).
	Publish(ctx context.Context, id string) error
	// Listen calls changed with every id announced by any instance until
	// ctx ends. Once it listens it calls changed with the empty id, which
	// wakes every feed: whatever was announced while nobody listened (the
	// database was down, say) is read then.
	Listen(ctx context.Context, changed func(id string)) error
}

// PlayAnnouncer is a Changes whose store announces each play it stores
// itself, in the play's own write (PostgreSQL: a NOTIFY in the same
// transaction, so the announcement costs no round trip of its own and is
// sent exactly when the play commits). A Hub over it does not publish plays
// again; every other change it still publishes.
type PlayAnnouncer interface {
	AnnouncesPlays() bool
}

// JoinAnnouncer is a Changes whose store announces each join it stores
// itself, in the join's own write, as a PlayAnnouncer does its plays. A Hub
// over it does not publish joins again.
type JoinAnnouncer interface {
	AnnouncesJoins() bool
}

// Notifier hears of every change the session service commits to a game
// (a join, a move, an end): the Hub, which tells the game's followers.
type Notifier interface {
	Changed(ctx context.Context, id string)
}

// PlayNotifier is a Notifier told apart of the changes that are plays
// (ApplyPlay), which a PlayAnnouncer store has announced already: the Hub.
type PlayNotifier interface {
	Played(ctx context.Context, id string)
}

// JoinNotifier is a Notifier told apart of the changes that are joins,
// which a JoinAnnouncer store has announced already: the Hub.
type JoinNotifier interface {
	Joined(ctx context.Context, id string)
}

// EndNotifier hears of every game the session service ends, once, after
// the write that ended it: by its last move, a resignation, an agreed draw,
// an abort or its deadline. The lobby tells the game's players with it.
type EndNotifier interface {
	Ended(ctx context.Context, g Game)
}

// OnEnded makes n hear of the games this service ends from now on: the
// lobby, which needs the service to make its games, is made after it, and
// a sweeper may already be ending games then.
func (s *Service) OnEnded(n EndNotifier) { s.ends.Store(&n) }

// changed tells the service's Notifier, if any, that g changed, and its
// EndNotifier, if any, when the change ended it.
func (s *Service) changed(ctx context.Context, g *Game) {
	if s.notify != nil {
		s.notify.Changed(ctx, g.ID)
	}
	s.ended(ctx, g)
}

// played is changed for a change that is a play, which the Notifier hears
// as one when it tells them apart (PlayNotifier).
func (s *Service) played(ctx context.Context, g *Game) {
	if pn, ok := s.notify.(PlayNotifier); ok {
		pn.Played(ctx, g.ID)
	} else if s.notify != nil {
		s.notify.Changed(ctx, g.ID)
	}
	s.ended(ctx, g)
}

// joined is changed for a join, which the Notifier hears as one when it
// tells them apart (JoinNotifier). A join ends no game.
func (s *Service) joined(ctx context.Context, g *Game) {
	if jn, ok := s.notify.(JoinNotifier); ok {
		jn.Joined(ctx, g.ID)
		return
	}
	s.changed(ctx, g)
}

// ended tells the EndNotifier, if any, when g is over.
func (s *Service) ended(ctx context.Context, g *Game) {
	if n := s.ends.Load(); n != nil && g.Status.Over() {
		(*n).Ended(ctx, *g)
	}
}

// FollowStore is what a Hub reads of a followed game: the game and the
// records of its moves.
type FollowStore interface {
	Game(ctx context.Context, id string) (Game, error)
	Records(ctx context.Context, id string, from, limit int) ([]Record, error)
}

// HubOptions configure a Hub. The zero value works: one instance, the
// default poll, no log.
type HubOptions struct {
	// Changes carries game changes between the instances sharing the store
	// (see Listen). Nil: one instance; its feeds still poll the store every
	// PollInterval, which is how a change by another process is seen then.
	Changes Changes
	// PollInterval is how often a followed game is read again without
	// being told of a change. Zero: DefaultPollInterval.
	PollInterval time.Duration
	// Stopping ends every Follow when closed: close it when a graceful
	// shutdown begins, since a stream would not end by itself.
	Stopping <-chan struct{}
	// Logger gets the feeds' trouble with the store. Nil discards it.
	Logger *slog.Logger
	// Now is the clock opponentGone is told by: the session service's
	// (Options.Now). Nil: time.Now.
	Now func() time.Time
}

// DefaultPollInterval is how often a followed game is read again unless
// HubOptions says otherwise.
const DefaultPollInterval = 5 * time.Second

// Hub is this instance's followers of games and their feeds, one per
// followed game. It is the session service's Notifier. Its methods are
// safe for concurrent use.
type Hub struct {
	store   FollowStore
	changes Changes
	// playsAnnounced, joinsAnnounced: changes announces the plays
	// (PlayAnnouncer), the joins (JoinAnnouncer) itself.
	playsAnnounced, joinsAnnounced bool
	poll                           time.Duration
	stopping                       <-chan struct{}
	log                            *slog.Logger
	now                            func() time.Time
	// heard is told of every change announced, with its news, when
	// changes carries them (NewsListener; OnHeard).
	heard atomic.Pointer[func(Heard)]

	mu    sync.Mutex
	feeds map[string]*feed
}

// OnHeard makes f hear of every change any instance announces, with the
// news of each play, when the Hub's Changes carries them (NewsListener),
// from its next listening connection on: the session service's Heard, which
// keeps its cache up to date with the other instances' changes.
func (h *Hub) OnHeard(f func(Heard)) { h.heard.Store(&f) }

// NewHub returns the hub of the games in st.
func NewHub(st FollowStore, o HubOptions) *Hub {
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	pa, plays := o.Changes.(PlayAnnouncer)
	ja, joins := o.Changes.(JoinAnnouncer)
	return &Hub{store: st, changes: o.Changes, playsAnnounced: plays && pa.AnnouncesPlays(),
		joinsAnnounced: joins && ja.AnnouncesJoins(), poll: o.PollInterval,
		stopping: o.Stopping, log: o.Logger, now: o.Now, feeds: map[string]*feed{}}
}

// followPage is how many moves a feed reads from the store at a time.
const followPage = 256

// feed is one game's event log on this instance and the goroutine that
// extends it. The feed also keeps its followers' streams open while the
// game is quiet (heartbeats) and ends them at shutdown, so a follower waits
// on one channel, grown, besides its own context: one timer per game
// instead of one per follower, and one wake-up per change.
type feed struct {
	id        string
	followers int
	heartbeat time.Duration // the shortest asked for by a follower; under Hub.mu
	wake      chan struct{} // a change to read; buffered, one pending is enough
	stop      chan struct{} // closed when the last follower leaves

	mu      sync.RWMutex
	entries []Event // shared by every follower: never changed once added
	// state is the game as the last whole read found it (nil before the
	// first), the game event of a follower that starts now; the entries
	// from stateAt on are what happened after it.
	state   *Game
	stateAt int
	grown   chan struct{} // closed and replaced when entries grows, beats or stopped change
	beats   int           // heartbeats: quiet spells of the heartbeat interval
	ended   bool          // the end event is in entries
	stopped bool          // the hub is stopping: followers end
	err     error         // the feed failed; followers end with it
}

// notify wakes the feed of game id, if this instance has one; the empty id
// wakes every feed (see Changes).
func (h *Hub) notify(id string) {
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
func (h *Hub) join(id string, heartbeat time.Duration) *feed {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.feeds[id]
	if f == nil {
		f = &feed{id: id, heartbeat: heartbeat, wake: make(chan struct{}, 1), stop: make(chan struct{}), grown: make(chan struct{})}
		h.feeds[id] = f
		go h.run(f)
	}
	f.heartbeat = min(f.heartbeat, heartbeat)
	f.followers++
	return f
}

func (h *Hub) leave(f *feed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.followers--; f.followers == 0 {
		delete(h.feeds, f.id)
		close(f.stop)
	}
}

// heartbeatInterval is f's heartbeat interval now.
func (h *Hub) heartbeatInterval(f *feed) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
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

// feedRun is what a feed's goroutine keeps between two reads.
type feedRun struct {
	tick     *time.Ticker // the poll
	quiet    *time.Timer  // the heartbeat
	retry    *time.Timer  // the next read after a failed one
	failures int          // reads failed in a row
	at       feedAt
	gone     *time.Timer // when the side to move becomes gone
}

// feedAt is where a feed's log stands: what the next read adds to.
type feedAt struct {
	next   int    // the ply of the next move to add
	joined bool   // the joined event is added
	pits   []byte // the pits of the moves added, which a takeback cuts
	// offers are the draw and takeback offers last seen, at offerPly.
	offers   [2]Offer
	offerPly int
	started  bool  // the first whole read is done
	lastID   int   // the id of the last event added
	goneOf   int64 // the version whose opponentGone is added; -1 for none
}

// id is the id of the next event added, of version v: the first of v's
// unless ids of v are taken already.
func (at *feedAt) id(v int64) int {
	at.lastID = max(at.lastID+1, int(v)*eventsPerVersion)
	return at.lastID
}

// run keeps f's log up to date until its last follower leaves: it reads
// when woken, and every poll interval besides, so a change made by another
// process sharing the store without Changes is still seen. When nothing
// new has come for a heartbeat interval it tells the followers to beat, and
// when the hub stops it tells them to end. A read that fails is tried
// again (see readRetry) while the followers wait.
func (h *Hub) run(f *feed) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.stop
		cancel()
	}()
	r := feedRun{tick: time.NewTicker(h.poll), quiet: time.NewTimer(h.heartbeatInterval(f)), retry: time.NewTimer(firstReadRetry),
		gone: time.NewTimer(time.Hour), at: feedAt{goneOf: -1}}
	r.retry.Stop()
	r.gone.Stop()
	defer r.tick.Stop()
	defer r.quiet.Stop()
	defer r.retry.Stop()
	defer r.gone.Stop()
	for {
		grew, err := h.extend(ctx, f, &r.at, r.gone)
		if ctx.Err() != nil || !h.settle(f, &r, err) || f.done() {
			return
		}
		if grew {
			r.quiet.Reset(h.heartbeatInterval(f))
		}
		if !h.wait(f, r.tick.C, r.retry.C, r.gone.C, r.quiet) {
			return
		}
	}
}

// settle deals with the outcome of a read of f's game: a failure waits
// cannot mend fails the feed (false), another is retried after a growing
// pause, and the first read that works after failures says so.
func (h *Hub) settle(f *feed, r *feedRun, err error) bool {
	switch {
	case err != nil && !readRetry(err):
		f.fail(err)
		return false
	case err != nil:
		if r.failures == 0 {
			h.log.Warn("a followed game cannot be read; its streams wait", "game", f.id, "error", err.Error())
		}
		r.retry.Reset(min(firstReadRetry<<min(r.failures, 10), lastReadRetry))
		r.failures++
	case r.failures > 0:
		h.log.Info("a followed game can be read again", "game", f.id, "failedReads", r.failures)
		r.failures = 0
		r.retry.Stop()
	}
	return true
}

// readRetry says whether a feed whose read failed with err reads again:
// yes, unless waiting cannot mend it (the game is gone, or its stored form
// does not hold together). An error the store did not name is retried too:
// a stream that waits costs little, one cut costs a browser its stream.
func readRetry(err error) bool {
	return !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrCorrupt)
}

// wait waits until f's game may have changed, or a failed read is due
// again (retry), telling the followers to beat while it is quiet; false:
// the feed is to stop.
func (h *Hub) wait(f *feed, tick, retry, gone <-chan time.Time, quiet *time.Timer) bool {
	for {
		select {
		case <-f.wake:
			return true
		case <-tick:
			return true
		case <-retry:
			return true
		case <-gone:
			return true
		case <-quiet.C:
			f.update(func() { f.beats++ })
			quiet.Reset(h.heartbeatInterval(f))
		case <-h.stopping:
			f.update(func() { f.stopped = true })
			return false
		case <-f.stop:
			return false
		}
	}
}

// extend reads what is new in the game and appends it to f's log; it says
// whether the log grew. The first read only takes the game as it stands
// (the state a follower's game event shows). When a read fails part way,
// what was read before it is appended all the same, and at says where the
// next extend goes on: the log never skips or repeats an event. gone is
// set for the instant the side to move becomes gone, if it may.
func (h *Hub) extend(ctx context.Context, f *feed, at *feedAt, gone *time.Timer) (grew bool, err error) {
	g, err := h.store.Game(ctx, f.id)
	if err != nil {
		return false, notFound(f.id, err)
	}
	var add []Event
	whole := false // g is the state the log now reaches
	defer func() {
		// A read that found nothing new wakes nobody: the state at the
		// same version is the same game.
		if len(add) == 0 && (!whole || f.stateVersion() == g.Version) {
			return
		}
		f.update(func() {
			f.entries = append(f.entries, add...)
			if len(add) > 0 {
				f.ended = add[len(add)-1].Kind == EventEnd
			}
			if whole {
				if f.state == nil || f.state.Version != g.Version {
					// A follower that starts now is sent this
					// version's opponentGone, now or when it comes.
					f.stateAt = len(f.entries)
					if len(add) > 0 && add[len(add)-1].Kind == EventOpponentGone {
						f.stateAt--
					}
				}
				f.state = &g
				f.ended = f.ended || g.Status.Over()
			}
		})
		grew = len(add) > 0
	}()
	if !at.started {
		at.start(&g)
		whole = true
		h.watchGone(&g, at, gone, &add)
		return false, nil
	}
	var pending []Event // events whose version is the next one's less one
	if !at.joined && !g.JoinedAt.IsZero() {
		pending = append(pending, Event{Kind: EventJoined, Game: &g, Status: Active})
		at.joined = true
	}
	if back := takenBack(at.pits, g.History); back < at.next {
		e, err := h.takebackEvent(ctx, &g, back)
		if err != nil {
			return false, notFound(f.id, err)
		}
		pending = append(pending, e)
		at.next, at.pits = back, at.pits[:back]
	}
	settle := func(v int64) {
		for _, e := range pending {
			e.Version = max(v, 0)
			e.ID = at.id(e.Version)
			if e.Kind == EventTakeback {
				e.Game.Version = e.Version // a copy of its own
			}
			add = append(add, e)
		}
		pending = nil
	}
	for at.next < g.Ply {
		ms, err := storedMoves(ctx, h.store, &g, at.next, followPage)
		if err != nil {
			settle(g.Version)
			return false, notFound(f.id, err)
		}
		if len(ms) == 0 {
			break
		}
		for i := range ms {
			m := &ms[i]
			v := m.Version
			if v == 0 { // kept before versions were: none better to go by
				v = g.Version
			}
			settle(v - 1)
			status := Active
			if m.Result.Over() {
				status = Finished
			}
			if v == g.Version {
				status = g.Status
			}
			add = append(add, Event{ID: at.id(v), Kind: EventMove, Move: m, Version: v, Status: status})
			at.next = m.Ply + 1
			at.pits = append(at.pits, byte(m.Pit))
		}
	}
	settle(g.Version)
	for _, e := range offerEvents(&g, at) {
		e.ID = at.id(g.Version)
		add = append(add, e)
	}
	if g.Status.Over() && at.next >= g.Ply {
		add = append(add, Event{ID: at.id(g.Version), Kind: EventEnd, Game: &g, Version: g.Version, Status: g.Status})
	}
	whole = true
	h.watchGone(&g, at, gone, &add)
	return false, nil // grew: see the deferred append
}

// start makes at the place of a log that begins with g as it stands.
func (at *feedAt) start(g *Game) {
	at.started, at.next, at.joined = true, g.Ply, !g.JoinedAt.IsZero()
	at.pits = append([]byte(nil), g.History...)
	at.offers, at.offerPly = [2]Offer{g.DrawOffer, g.TakebackOffer}, g.Ply
	at.lastID = int(g.Version) * eventsPerVersion
}

// watchGone adds g's opponentGone to add when g's side to move is gone
// now and its event is not added yet, or sets gone for when it will be.
func (h *Hub) watchGone(g *Game, at *feedAt, gone *time.Timer, add *[]Event) {
	gone.Stop()
	og, ok := g.Gone()
	if !ok || at.goneOf == g.Version {
		return
	}
	if wait := og.Since.Sub(h.now()); wait > 0 {
		gone.Reset(wait)
		return
	}
	at.goneOf = g.Version
	at.lastID = max(at.lastID, goneID(g.Version))
	*add = append(*add, Event{ID: goneID(g.Version), Kind: EventOpponentGone, Gone: &og, Version: g.Version, Status: g.Status, At: h.now()})
}

// takenBack is the number of pits sent and history have in common: below
// len(sent) when moves sent were taken back since (and perhaps others
// made in their place).
func takenBack(sent, history []byte) int {
	n := 0
	for n < len(sent) && n < len(history) && sent[n] == history[n] {
		n++
	}
	return n
}

// takebackEvent is the event of g's takeback to ply to: the game as it
// stood there, rebuilt from the records when moves were made again since.
func (h *Hub) takebackEvent(ctx context.Context, g *Game, to int) (Event, error) {
	at := *g
	if to < g.Ply {
		recs, err := h.store.Records(ctx, g.ID, 0, to)
		if err != nil {
			return Event{}, err
		}
		then := Game{Status: Active, TimeControl: g.TimeControl, Clock: g.TimeControl.startClock(), AI: g.AI,
			UpdatedAt: g.startedAt(), Position: g.Start}
		if err := walk(g, recs, func(_ Move, after *Game) { then = *after }); err != nil {
			return Event{}, err
		}
		at.Ply, at.Position, at.Status, at.Result = then.Ply, then.Position, Active, engine.Result{}
		at.Clock, at.UpdatedAt, at.History, at.Deadline = then.Clock, then.UpdatedAt, g.History[:to:to], time.Time{}
		at.DrawOffer, at.TakebackOffer = NoOffer, NoOffer
	}
	return Event{Kind: EventTakeback, Game: &at, Status: Active}, nil
}

// offerEvents are the events of the change in g's offers since at (which
// they move on): an offer that now stands, or one refused or withdrawn;
// none for an offer a move, a takeback or the end cleared. One event of a
// kind shows both offers.
func offerEvents(g *Game, at *feedAt) []Event {
	var made, declined bool
	for i, o := range [2]Offer{g.DrawOffer, g.TakebackOffer} {
		switch was := at.offers[i]; {
		case o == was:
		case o != NoOffer:
			made = true
		case g.Status == Active && g.Ply == at.offerPly:
			declined = true
		}
	}
	at.offers, at.offerPly = [2]Offer{g.DrawOffer, g.TakebackOffer}, g.Ply
	var out []Event
	if declined {
		out = append(out, Event{Kind: EventOfferDeclined, Game: g, Version: g.Version, Status: g.Status})
	}
	if made {
		out = append(out, Event{Kind: EventOffer, Game: g, Version: g.Version, Status: g.Status})
	}
	return out
}

// update changes f under its lock and wakes its followers.
func (f *feed) update(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
	close(f.grown)
	f.grown = make(chan struct{})
}

// stateVersion is the version of f's state, -1 before the first read.
func (f *feed) stateVersion() int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.state == nil {
		return -1
	}
	return f.state.Version
}

func (f *feed) done() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.ended
}

func (f *feed) fail(err error) { f.update(func() { f.err = err }) }

// feedState is what a follower reads of its feed: see since.
type feedState struct {
	batch   []Event         // the entries not yet dealt with
	grown   <-chan struct{} // closed when the state changes
	beats   int
	ended   bool // the log is complete
	stopped bool
	err     error
	// state and stateAt are the feed's (see feed), for a follower yet to
	// send its game event.
	state   *Game
	stateAt int
}

// since returns f's state for a follower that has dealt with the first n
// entries of the log (-1: none, not even its game event).
func (f *feed) since(n int) feedState {
	f.mu.RLock()
	defer f.mu.RUnlock()
	st := feedState{grown: f.grown, beats: f.beats, ended: f.ended, stopped: f.stopped, err: f.err, state: f.state, stateAt: f.stateAt}
	if n >= 0 {
		st.batch = f.entries[n:len(f.entries):len(f.entries)]
	}
	return st
}

// Stream is where Follow sends one follower's events.
type Stream interface {
	// Send sends one event. It may hold it back until Flush. The event is
	// shared with every follower of the game: Send must not change it.
	Send(e Event) error
	// Flush sends what Send held back. Follow calls it after each batch of
	// events, so a follower that has fallen behind gets the events it
	// missed in one write.
	Flush() error
	// Beat keeps an idle stream open (and sends it at once).
	Beat() error
}

// Follow sends game id to out as it stands (an EventGame), then every
// event after it as it happens, in order, until the game ends, ctx is
// cancelled or HubOptions.Stopping is closed (a graceful shutdown waits
// for every response to end, and a stream would not end by itself).
// lastID is the id of the last event the follower saw (-1: none): the
// game it is sent is at least as new as that event (the feed reads the
// game again until it is, which on an instance whose feed lags takes one
// read), and no event with an id up to lastID is sent again, so a client
// that resumes on any instance never sees an id twice. When the game has
// been quiet for heartbeat (the shortest any follower of the game on this
// instance asked for), out beats, to keep idle connections open. While
// the store is unavailable a follower is not turned away: it waits,
// beating, for the feed to read the game (and ends then if there is no
// such game).
func (h *Hub) Follow(ctx context.Context, id string, lastID int, heartbeat time.Duration, out Stream) error {
	if _, err := h.store.Game(ctx, id); err != nil && !errors.Is(err, fault.ErrUnavailable) {
		return notFound(id, err)
	}
	f := h.join(id, heartbeat)
	defer h.leave(f)
	sent := -1  // entries of f's log dealt with; -1 before the game event
	beats := -1 // the feed's heartbeats seen; -1 before the first look
	asked := false
	for {
		st := f.since(sent)
		if st.err != nil || st.stopped {
			return st.err
		}
		var n int
		var err error
		switch {
		case sent < 0 && (st.state == nil || MaxEventID(st.state.Version) < lastID):
			// Not read yet, or read before the event the follower saw:
			// the feed reads again, and the follower waits for it.
			if st.state != nil && !asked {
				h.notify(id)
				asked = true
			}
		case sent < 0:
			g := st.state
			if err := out.Send(Event{Kind: EventGame, Game: g, Version: g.Version, Status: g.Status}); err != nil {
				return err
			}
			if err := out.Flush(); err != nil || g.Status.Over() {
				return err
			}
			sent = st.stateAt
			continue // what came after the game, at once
		default:
			n, err = sendBatch(st.batch, &lastID, out)
			sent += len(st.batch)
		}
		switch {
		case err != nil:
			return err
		case n > 0:
			err = out.Flush()
		case beats >= 0 && st.beats != beats:
			err = out.Beat()
		}
		if err != nil || st.ended {
			return err
		}
		beats = st.beats
		select {
		case <-st.grown:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sendBatch sends out the events of batch after *seen (-1: all), moves
// *seen on, and says how many it sent.
func sendBatch(batch []Event, seen *int, out Stream) (int, error) {
	n := 0
	for _, e := range batch {
		if e.ID <= *seen {
			continue
		}
		*seen = e.ID
		if err := out.Send(e); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Listen wakes this instance's feeds with the changes every instance
// announces (HubOptions.Changes) until ctx ends; run it in its own
// goroutine for the server's life. A failing listener is retried after a
// pause, and meanwhile the feeds' polling still sees every change. Without
// Changes it returns at once.
func (h *Hub) Listen(ctx context.Context) {
	for h.changes != nil && ctx.Err() == nil {
		err := h.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		h.log.WarnContext(ctx, "listening for game changes failed; retrying", "error", err.Error())
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// listen is one listening connection's run: with the news of each play
// when the Changes carries it and someone hears it.
func (h *Hub) listen(ctx context.Context) error {
	nl, ok := h.changes.(NewsListener)
	heard := h.heard.Load()
	if !ok || heard == nil {
		return h.changes.Listen(ctx, h.notify)
	}
	return nl.ListenNews(ctx, func(c Heard) {
		(*heard)(c)
		h.notify(c.ID)
	})
}

// publishTimeout bounds the announcement of one change to the other
// instances.
const publishTimeout = 2 * time.Second

// Played is Changed for a play: when the store announced it in its own
// write (PlayAnnouncer), only this instance's followers are told here.
func (h *Hub) Played(ctx context.Context, id string) { h.changedBy(ctx, id, h.playsAnnounced) }

// Joined is Changed for a join: when the store announced it in its own
// write (JoinAnnouncer), only this instance's followers are told here.
func (h *Hub) Joined(ctx context.Context, id string) { h.changedBy(ctx, id, h.joinsAnnounced) }

// changedBy is Changed for a change the store announced itself if
// announced is true.
func (h *Hub) changedBy(ctx context.Context, id string, announced bool) {
	if announced {
		h.notify(id)
		return
	}
	h.Changed(ctx, id)
}

// Changed announces that game id changed: to this instance's followers at
// once, and to the other instances through Changes.
func (h *Hub) Changed(ctx context.Context, id string) {
	h.notify(id)
	if h.changes == nil {
		return
	}
	// Bounded: an unreachable database must not hold the answer to a move
	// (or the sweeper) back for the system's TCP timeout; the others'
	// feeds poll too.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := h.changes.Publish(pctx, id); err != nil {
		// The others' feeds poll too: they see it a little later.
		h.log.WarnContext(ctx, "announcing a game change failed", "game", id, "error", err.Error())
	}
}
