package games

// The game-session service: the rules side of game sessions, between the
// api package and the store. It decides who may move, replays the record
// through the engine (which applies the repetition rule), asks the AI for
// its reply and hands the store one write per accepted request.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/players"
)

// Chooser picks the AI's move at level in p, reproducibly for seed, within
// ctx's deadline; history holds the positions before p, so the AI sees the
// repetition rule coming. search.ChooseMove is one; tests pass their own.
type Chooser func(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, level int, seed uint64) (int, error)

// DefaultAIMoveTime bounds an AI move at the strongest level unless Options
// says otherwise.
const DefaultAIMoveTime = time.Second

// gameCacheSize bounds the games whose rows the move path keeps (a few
// hundred bytes each).
const gameCacheSize = 8192

// Options configure a Service. The zero value works: the search's AI,
// DefaultAIMoveTime, time.Now, no log.
type Options struct {
	// Choose is the AI. Nil: a search.Pool of as many searchers as the
	// AI may run searches at once, with Endgames.
	Choose Chooser
	// Endgames are the endgame tables the levels that use one play with
	// (search.Level.Endgame), when Choose is nil. Nil: none.
	Endgames *search.Endgames
	// AIMoveTime bounds an AI move at the strongest level; each level below
	// has half the time of the one above.
	AIMoveTime time.Duration
	// AIConcurrency bounds the AI searches running at once, within the
	// service's CPU budget: zero means as many as it has units. One client address holds at
	// most half of them (at least one); moves that wait are served in
	// order of arrival, and one that waits longer than AIMoveTime gets
	// ErrAIBusy, with nothing played. A level that does not search, or a
	// position with one legal move, takes none.
	AIConcurrency int
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// Logger gets what the service cannot answer (an AI that chose no legal
	// move). Nil discards it.
	Logger *slog.Logger
	// Stopping ends every Follow when closed: close it when a graceful
	// shutdown begins, since a stream would not end by itself.
	Stopping <-chan struct{}
	// EncodeEvent makes the bytes followers are sent of each event, once
	// per event however many follow. Nil: a plain-text stand-in.
	EncodeEvent EventEncoder
	// Changes carries game changes between the instances sharing the store
	// (see Listen). Nil: one instance; its feeds still poll the store every
	// PollInterval, which is how a change by another process is seen then.
	Changes Changes
	// PollInterval is how often a followed game is read again without
	// being told of a change. Zero: DefaultPollInterval.
	PollInterval time.Duration
	// Expiries are how long a game waits for someone before it ends by
	// itself (first moves, joins, idle untimed games).
	Expiries Expiries
	// SweepInterval bounds how long Sweep sleeps between looks for overdue
	// games when it knows of no deadline sooner: the delay with which it
	// ends a game whose deadline another instance set and then went away.
	// Zero: DefaultSweepInterval.
	SweepInterval time.Duration
	// RetainFinished is how long Sweep keeps finished and aborted games
	// after their end; zero keeps them for ever.
	RetainFinished time.Duration
}

// DefaultPollInterval is how often a followed game is read again unless
// Options says otherwise.
const DefaultPollInterval = 5 * time.Second

// DefaultSweepInterval is Options.SweepInterval's default.
const DefaultSweepInterval = time.Second

// Service runs game sessions. Its methods are safe for concurrent use.
type Service struct {
	store    Store
	choose   Chooser
	aiTime   time.Duration
	aiSlots  *aiSlots
	flights  flights // the move requests being played, by game and ply
	now      func() time.Time
	log      *slog.Logger
	stopping <-chan struct{}
	hub      *hub
	cache    *gameCache // the move path's guess of each game's row

	encodeEvent EventEncoder
	changes     Changes
	poll        time.Duration

	exp        Expiries
	sweep      *sweeper
	retain     time.Duration
	sweepStats sweepCounters
}

// NewService returns the service over st. cpu is the process's CPU budget
// (one, shared by every service that spends CPU): each AI search holds a
// unit of it, at its first priority. It must not be nil: a budget of the
// service's own would let it take cores the others count as theirs.
func NewService(st Store, cpu *budget.Budget, o Options) *Service {
	if cpu == nil {
		panic("games: NewService needs the process's CPU budget")
	}
	if o.AIMoveTime <= 0 {
		o.AIMoveTime = DefaultAIMoveTime
	}
	ai := newAISlots(cpu, o.AIConcurrency, o.AIMoveTime)
	if o.Choose == nil {
		// As many searchers as searches may run (aiSlots), reused from move
		// to move instead of a new transposition table for each.
		o.Choose = search.NewPool(ai.size, search.WithEndgames(o.Endgames)).ChooseMove
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.EncodeEvent == nil {
		o.EncodeEvent = plainEvent
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.SweepInterval <= 0 {
		o.SweepInterval = DefaultSweepInterval
	}
	return &Service{store: st, choose: o.Choose, aiTime: o.AIMoveTime, aiSlots: ai,
		flights: flights{m: make(map[flightKey]*flight)}, now: o.Now, log: o.Logger, stopping: o.Stopping,
		hub: newHub(), cache: newGameCache(gameCacheSize), encodeEvent: o.EncodeEvent, changes: o.Changes, poll: o.PollInterval,
		exp: o.Expiries.withDefaults(), sweep: newSweeper(o.SweepInterval), retain: max(o.RetainFinished, 0)}
}

// clock is the time now at the precision stores keep, so an answer given at
// once and the same game read back later say the same time.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// aiBudget is the time bound of an AI move at level: the strongest level has
// the whole of aiTime, and each level below it half the one above.
func (s *Service) aiBudget(level int) time.Duration {
	shift := min(max(search.MaxLevel-level, 0), 20)
	return max(s.aiTime>>shift, time.Millisecond)
}

// newToken returns a seat token (256 random bits, URL-safe) and its hash,
// the only form the store ever sees.
func newToken() (token string, hash []byte) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, tokenHash(token)
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// newGameID returns a random, URL-safe game id of 16 characters.
func newGameID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// seatOf returns the side whose token is token, or ErrUnauthorized.
func seatOf(g *Game, token string) (engine.Side, error) {
	if token == "" {
		return 0, fmt.Errorf("%w: send the seat's token as Authorization: Bearer TOKEN", ErrUnauthorized)
	}
	h := tokenHash(token)
	for _, side := range []engine.Side{engine.South, engine.North} {
		if len(g.Tokens[side]) == len(h) && subtle.ConstantTimeCompare(g.Tokens[side], h) == 1 {
			return side, nil
		}
	}
	return 0, fmt.Errorf("%w: the token is not one of this game's seats", ErrUnauthorized)
}

// NewGame is what a creator asks for.
type NewGame struct {
	Rules   engine.Rules
	Start   engine.Position
	Seat    engine.Side // the creator's seat
	AILevel int         // 0: the other seat is for a person
	// TimeControl is the game's time; the zero value is an untimed game.
	TimeControl TimeControl
	// Client is the address the request came from: the AI's search slots
	// are shared out by it (see Options.AIConcurrency).
	Client string
	// Player is the creator's player; nil for an anonymous seat.
	Player *players.Player
	// Rated asks for a rated game: it needs a time control, a person as
	// the other seat, and a player in both seats (the second one when it
	// joins).
	Rated bool
}

// Seat is a game with the token of the seat just taken: the only time the
// token is ever shown.
type Seat struct {
	Game  Game
	Side  engine.Side
	Token string
	Moves []Move // the AI's opening move, when it made one at creation
}

// Create starts a game. Against the AI the game is active at once, and when
// the AI is to move it moves before the game is stored; against a person the
// game waits for them to join.
func (s *Service) Create(ctx context.Context, req NewGame) (Seat, error) {
	rec, err := engine.NewGame(req.Start, req.Rules)
	if err != nil {
		return Seat{}, err
	}
	if rec.Result().Over() {
		return Seat{}, fmt.Errorf("%w: the start position %s is already finished", engine.ErrInvalidPosition, req.Start)
	}
	if !req.Seat.Valid() {
		return Seat{}, fmt.Errorf("%w: seat %d", engine.ErrInvalidPosition, req.Seat)
	}
	if err := req.TimeControl.Check(); err != nil {
		return Seat{}, err
	}
	if req.Rated {
		switch {
		case !req.TimeControl.Timed():
			return Seat{}, fmt.Errorf("%w: an untimed game is never rated; give it a time control", ErrRatedNotAllowed)
		case req.AILevel > 0:
			return Seat{}, fmt.Errorf("%w: games against the AI are not rated", ErrRatedNotAllowed)
		case req.Player == nil:
			return Seat{}, fmt.Errorf("%w: a rated game needs the creator's player (a Player-Token)", ErrRatedNotAllowed)
		}
	}
	now := s.clock()
	token, hash := newToken()
	g := Game{ID: newGameID(), CreatedAt: now, UpdatedAt: now, Rules: req.Rules, Start: req.Start,
		Position: req.Start, Status: Waiting, Version: 1,
		TimeControl: req.TimeControl, Clock: req.TimeControl.startClock(), Rated: req.Rated}
	g.Tokens[req.Seat] = hash
	g.Players[req.Seat] = seatPlayer(req.Player, g.Category(), now)
	var moves []Move
	if req.AILevel > 0 {
		g.Status = Active
		g.AI = &AI{Side: req.Seat.Other(), Level: req.AILevel}
		if req.Start.ToMove == g.AI.Side {
			m, err := s.aiMove(ctx, req.Client, &g, rec, nil)
			if errors.Is(err, ErrAIBusy) {
				return Seat{}, fmt.Errorf("%w; no game was created, send the request again", err)
			}
			if err != nil {
				return Seat{}, err
			}
			m.Elapsed = m.At.Sub(now)
			advance(&g, rec, m)
			m.Clock, m.HasClock = ClockOf(&g)
			moves = append(moves, m)
		}
	}
	g.Deadline = g.deadline(s.exp)
	if err := s.store.CreateGame(ctx, g, records(moves)); err != nil {
		return Seat{}, err
	}
	s.cache.put(&g)
	s.sweep.expect(g.Deadline)
	return Seat{Game: g, Side: req.Seat, Token: token, Moves: moves}, nil
}

// maxRatingTries bounds the writes that end a game one request makes when
// a player's rating keeps changing under it (players.ErrRatingsChanged):
// each try reads the ratings again, and each failed one means another game
// of the player's ended, so the bound is never met but by a storm.
const maxRatingTries = 8

// match is what g's end with result at at does for its players, nil when
// nothing (no result, or no player in either seat). For a rated game it
// reads both players' ratings and sets g's seats to the change the match
// makes, as the store will write it (Store's ApplyMatch).
func (s *Service) match(ctx context.Context, g *Game, result engine.Result, at time.Time) (*players.Match, error) {
	ids := [2]string{g.Players[engine.South].ID, g.Players[engine.North].ID}
	if !result.Over() || ids == [2]string{} {
		return nil, nil
	}
	score := 0.5
	switch result.Winner {
	case engine.SouthWins:
		score = 1
	case engine.NorthWins:
		score = 0
	}
	var c players.Category
	var before [2]players.Rating
	if g.Rated && g.Category() != "" && ids[0] != "" && ids[1] != "" {
		c = g.Category()
		for i, id := range ids {
			p, err := s.store.Player(ctx, id)
			switch {
			case errors.Is(err, players.ErrNotFound):
				before[i] = players.NewRating() // deleted since: the store skips the seat
			case err != nil:
				return nil, err
			default:
				before[i] = p.Rating(c)
			}
		}
	}
	m := players.NewMatch(ids, score, c, before, at)
	if m.Rated() {
		for i := range ids {
			seat := &g.Players[i]
			seat.Rating, seat.Deviation = m.Before[i].Value, m.Before[i].Deviation
			seat.Change, seat.HasChange = m.After[i].Value-m.Before[i].Value, true
		}
	}
	return &m, nil
}

// advance moves g on past the move m that rec has just played.
func advance(g *Game, rec *engine.Game, m Move) {
	g.Ply = rec.Ply()
	g.Position = rec.Position()
	g.Result = rec.Result()
	g.History = append(g.History, byte(m.Pit))
	if g.Result.Over() {
		g.Status = Finished
	}
	g.UpdatedAt = m.At
}

// seatPlayer is p as a seat of a game of category c shows it from now on;
// the zero SeatPlayer for no player.
func seatPlayer(p *players.Player, c players.Category, now time.Time) SeatPlayer {
	if p == nil {
		return SeatPlayer{}
	}
	sp := SeatPlayer{ID: p.ID, Name: p.Name}
	if c != "" {
		r := p.Rating(c).Idle(now)
		sp.Rating, sp.Deviation = r.Value, r.Deviation
	}
	return sp
}

// Join takes the open seat of a game against a person, once, for player
// (nil: anonymous, which a rated game refuses).
func (s *Service) Join(ctx context.Context, id string, player *players.Player) (Seat, error) {
	g, err := s.current(ctx, id)
	if err != nil {
		return Seat{}, err
	}
	if g.Status.Over() {
		return Seat{}, endedError(&g)
	}
	creator := g.Players[engine.South].ID + g.Players[engine.North].ID
	if g.Rated && g.Status == Waiting {
		switch {
		case player == nil:
			return Seat{}, fmt.Errorf("%w: game %s is rated; join it with a player (a Player-Token)", players.ErrUnauthorized, id)
		case player.ID == creator:
			return Seat{}, fmt.Errorf("%w: a player cannot take both seats of a rated game", ErrRatedNotAllowed)
		}
	}
	if player != nil && player.ID == creator {
		// One person at one screen playing both sides: the game is theirs
		// once, so their history and counts list it once; the second
		// seat stays anonymous.
		player = nil
	}
	// The game as the join leaves it, for its deadline: a live game's
	// first move has its window from now.
	token, hash := newToken()
	now := s.clock()
	joined := g
	joined.Status, joined.UpdatedAt, joined.JoinedAt = Active, now, now
	g, err = s.store.Join(ctx, id, hash, now, joined.deadline(s.exp), seatPlayer(player, g.Category(), now))
	if errors.Is(err, ErrConflict) {
		// Read the game to be sure of it: a row that no longer holds
		// together is the server's fault, not a taken seat; one that
		// expired meanwhile is ended.
		if g, err = s.current(ctx, id); err != nil {
			return Seat{}, err
		}
		if g.Status.Over() {
			return Seat{}, endedError(&g)
		}
		return Seat{}, fmt.Errorf("%w: game %s has no open seat", ErrSeatTaken, id)
	}
	if err != nil {
		return Seat{}, notFound(id, err)
	}
	s.cache.put(&g)
	s.sweep.expect(g.Deadline)
	s.changed(ctx, id)
	side := engine.North
	if slices.Equal(g.Tokens[engine.South], hash) {
		side = engine.South
	}
	return Seat{Game: g, Side: side, Token: token}, nil
}

// endedError is ErrFinished for g, which is over, saying how it ended.
func endedError(g *Game) error {
	at := g.UpdatedAt.Format(time.RFC3339Nano)
	switch {
	case g.Status == Aborted && g.JoinedAt.IsZero() && g.AI == nil:
		return fmt.Errorf("%w: game %s was aborted at %s: nobody joined it in time", ErrFinished, g.ID, at)
	case g.Status == Aborted:
		return fmt.Errorf("%w: game %s was aborted at %s: a first move did not come in time", ErrFinished, g.ID, at)
	}
	return fmt.Errorf("%w: game %s ended at %s (%s, %s)", ErrFinished, g.ID, at, g.Result.Reason, g.Result.Winner)
}

// notFound names the game in a not-found error.
func notFound(id string, err error) error {
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	return err
}

// Game returns the game with that id. A game whose deadline has passed is
// ended first: no read shows an overdue game still running.
func (s *Service) Game(ctx context.Context, id string) (Game, error) {
	return s.current(ctx, id)
}

// current reads game id and ends it if it is overdue, unless a move of
// its side to move is being played on this instance: that move was accepted
// before the deadline (a later one is refused), and only its write has yet
// to land, after an AI reply perhaps; ending the game under it would make a
// move made in time lose on time. Should that move fail, the next read or
// sweep ends the game.
func (s *Service) current(ctx context.Context, id string) (Game, error) {
	return s.read(ctx, id, true)
}

// read is current, sparing a game with a move in flight or not.
func (s *Service) read(ctx context.Context, id string, spareInFlight bool) (Game, error) {
	g, err := s.store.Game(ctx, id)
	if err != nil {
		return g, notFound(id, err)
	}
	if spareInFlight && g.Status == Active && s.flights.inFlight(g.ID, g.Ply) {
		return g, nil
	}
	g, err = s.expire(ctx, g)
	return g, notFound(id, err)
}

// Moves returns up to limit moves of the game from ply from on.
func (s *Service) Moves(ctx context.Context, id string, from, limit int) ([]Move, error) {
	g, err := s.current(ctx, id)
	if err != nil {
		return nil, err
	}
	ms, err := s.moves(ctx, &g, from, limit)
	return ms, notFound(id, err)
}

// moves rebuilds up to limit moves of g from ply from on: the store keeps
// only which pit each was and when, and replaying g's history through the
// engine gives the rest, exactly as it was when played (the repetition rule
// included, since the replay starts at the beginning). The times of the
// moves before from are read too: each move's time and the clock after it
// follow from all of them.
func (s *Service) moves(ctx context.Context, g *Game, from, limit int) ([]Move, error) {
	from = max(from, 0)
	if from >= len(g.History) || limit < 1 {
		return nil, nil
	}
	n := min(limit, len(g.History)-from)
	recs, err := s.store.Records(ctx, g.ID, 0, from+n)
	if err != nil {
		return nil, err
	}
	if len(recs) < from {
		return nil, corrupt("game %s: %d records for a history of %d plies", g.ID, len(recs), len(g.History))
	}
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return nil, corrupt("game %s: start: %v", g.ID, err)
	}
	out := make([]Move, 0, len(recs)-from)
	// then is the game as each move left it, for the clock after it.
	then := Game{Status: Active, TimeControl: g.TimeControl, Clock: g.TimeControl.startClock(), AI: g.AI, UpdatedAt: g.startedAt()}
	var o engine.Outcome
	for ply, r := range recs {
		pit := g.History[ply]
		if err := rec.Play(int(pit), &o); err != nil {
			return nil, corrupt("game %s: stored ply %d does not replay: %v", g.ID, ply, err)
		}
		if r.Ply != ply || r.Pit != int(pit) {
			return nil, corrupt("game %s: record %d (ply %d, pit %d) disagrees with the history's pit %d", g.ID, ply, r.Ply, r.Pit, pit)
		}
		spent := r.At.Sub(then.UpdatedAt)
		then.Clock = charge(g.TimeControl, then.Clock, o.Before.ToMove, ply, r.ByAI, spent)
		then.Ply, then.Position, then.UpdatedAt = ply+1, o.Position, r.At
		if o.Result.Over() {
			then.Status = Finished
		}
		if ply < from {
			continue
		}
		m := moveOf(&o, ply, r.At, r.ByAI)
		m.Elapsed = spent
		m.Clock, m.HasClock = ClockOf(&then)
		out = append(out, m)
	}
	return out, nil
}

// records is what the store keeps of moves.
func records(ms []Move) []Record {
	out := make([]Record, len(ms))
	for i, m := range ms {
		out[i] = Record{Ply: m.Ply, Pit: m.Pit, ByAI: m.ByAI, At: m.At}
	}
	return out
}

// replay rebuilds the engine's record of g from its start and history, so the
// repetition rule sees every earlier position. It also returns the positions
// before the current one, which the AI needs to see that rule coming.
func replay(g *Game) (*engine.Game, []engine.Position, error) {
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return nil, nil, corrupt("game %s: start: %v", g.ID, err)
	}
	hist := make([]engine.Position, 0, len(g.History)+2)
	var out engine.Outcome
	for i, pit := range g.History {
		hist = append(hist, rec.Position())
		if err := rec.Play(int(pit), &out); err != nil {
			return nil, nil, corrupt("game %s: stored ply %d does not replay: %v", g.ID, i, err)
		}
	}
	if rec.Position() != g.Position {
		return nil, nil, corrupt("game %s: replay reaches %s, the store says %s", g.ID, rec.Position(), g.Position)
	}
	return rec, hist, nil
}

// PlayResult is what an accepted move request did.
type PlayResult struct {
	Move  Move
	Reply *Move // the AI's answer, when it was the AI's turn next
	Game  Game  // the game after both
}

// Encoder turns a PlayResult into the bytes of the answer, which are stored
// with the move so that the same request sent again gets them back.
type Encoder func(*PlayResult) ([]byte, error)

// MoveRequest is a request to play Pit at Ply of game ID for the holder of
// Token.
type MoveRequest struct {
	ID       string
	Token    string
	Ply, Pit int
	// Client is the address the request came from: the AI's search slots
	// are shared out by it (see Options.AIConcurrency).
	Client string
	// Player is the creator's player; nil for an anonymous seat.
	Player *players.Player
	// Rated asks for a rated game: it needs a time control, a person as
	// the other seat, and a player in both seats (the second one when it
	// joins).
	Rated bool
}

// Play plays the request's move. encode turns the result into the answer's
// body, which is stored with the move so that the same request sent again
// (same token, ply and pit) gets the same body back, with replayed set,
// instead of making a second move.
//
// Requests for one game and ply are played one at a time on this instance
// (see flight): a copy of the request being played waits for it and gets
// its answer, replayed; any other waits for it, then is answered from the
// game it left.
func (s *Service) Play(ctx context.Context, req MoveRequest, encode Encoder) (body []byte, replayed bool, err error) {
	hash := tokenHash(req.Token)
	key := flightKey{id: req.ID, ply: req.Ply}
	for {
		f, lead := s.flights.join(key, hash, req.Pit)
		if lead {
			return s.lead(ctx, key, f, req, hash, encode)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if f.stands && f.pit == req.Pit && bytes.Equal(f.hash, hash) {
			return f.body, f.body != nil, f.err
		}
		// Another request, or one that got no answer: this one is played
		// (or refused) on its own, on the game as that one left it.
	}
}

// lead plays req as the flight f, and lands f with the answer whatever
// happens, so that its waiters never wait for nothing.
func (s *Service) lead(ctx context.Context, key flightKey, f *flight, req MoveRequest, hash []byte, encode Encoder) (body []byte, replayed bool, err error) {
	defer func() {
		// Neither body nor error (a panic), or an error after the client
		// went away: not an answer a copy of the request should get.
		stands := (body != nil || err != nil) && (err == nil || ctx.Err() == nil)
		s.flights.land(key, f, body, err, stands)
	}()
	body, replayed, err = s.playFrom(ctx, true, req, hash, encode)
	if errors.Is(err, errCachedRefusal) {
		// Refused on the strength of a cached row: the database decides
		// which refusal the request gets (its ply may be stale).
		body, replayed, err = s.playFrom(ctx, false, req, hash, encode)
	}
	return body, replayed, notFound(req.ID, err)
}

// errCachedRefusal marks a refusal that was decided from a cached row.
var errCachedRefusal = errors.New("refused from the cache")

// cachedRefusal marks err when the row it was decided from came from the
// cache.
func cachedRefusal(cached bool, err error) error {
	if cached {
		return fmt.Errorf("%w: %w", errCachedRefusal, err)
	}
	return err
}

// refusal says why a request for pit at ply in g, which is not active at
// that ply, is not played; or, when the very same request (token, ply, pit)
// was the seat's latest accepted one, returns the answer it got. The order
// is the contract's: a replay first, then a finished game, a waiting one, a
// stale ply.
func (s *Service) refusal(ctx context.Context, g *Game, ply, pit int, hash []byte) ([]byte, error) {
	if ply >= 0 && ply < g.Ply {
		a, err := s.store.Answer(ctx, g.ID, hash)
		switch {
		case err == nil && a.Ply == ply && a.Pit == pit:
			return a.Body, nil
		case err != nil && !errors.Is(err, ErrNotFound):
			return nil, err
		}
	}
	switch g.Status {
	case Finished, Aborted:
		return nil, endedError(g)
	case Waiting:
		return nil, ErrNotStarted
	}
	if ply >= 0 && ply != g.Ply {
		return nil, &StalePlyError{Sent: ply, Current: g.Ply}
	}
	return nil, nil
}

func (s *Service) playFrom(ctx context.Context, useCache bool, req MoveRequest, hash []byte, encode Encoder) (body []byte, replayed bool, err error) {
	id, ply, pit := req.ID, req.Ply, req.Pit
	var g Game
	cached := false
	if useCache {
		g, cached = s.cache.get(id)
	}
	if !cached || g.Ply != ply || g.Status != Active {
		cached = false
		// A miss, or a request the cached row would refuse: the database
		// has the last word.
		if g, err = s.store.Game(ctx, id); err != nil {
			return nil, false, err
		}
	}
	side, err := seatOf(&g, req.Token)
	if err != nil {
		return nil, false, err // tokens never change: the cache is as good as the database
	}
	now := s.clock()
	if !g.Deadline.IsZero() && !now.Before(g.Deadline) {
		// Overdue: the game ends at its deadline, whatever this request
		// says, and the request is answered as the ended game says. This
		// request's own flight is no move made in time.
		s.cache.drop(id)
		if g, err = s.read(ctx, id, false); err != nil {
			return nil, false, err
		}
	}
	if g.Status != Active || g.Ply != ply {
		answer, err := s.refusal(ctx, &g, ply, pit, hash)
		if answer != nil || err != nil {
			return answer, answer != nil, err
		}
	}
	if side != g.Position.ToMove {
		return nil, false, cachedRefusal(cached, fmt.Errorf("%w: %s is to move, this token holds %s", ErrNotYourTurn, g.Position.ToMove, side))
	}
	rec, hist, err := replay(&g)
	if err != nil {
		return nil, false, err
	}
	var out engine.Outcome
	if err := rec.Play(pit, &out); err != nil {
		return nil, false, cachedRefusal(cached, err)
	}
	res := PlayResult{Move: moveOf(&out, g.Ply, now, false)}
	res.Move.Elapsed = now.Sub(g.UpdatedAt)
	g.Clock = charge(g.TimeControl, g.Clock, side, g.Ply, false, res.Move.Elapsed)
	hist = append(hist, g.Position)
	advance(&g, rec, res.Move)
	res.Move.Clock, res.Move.HasClock = ClockOf(&g)
	if g.AI != nil && !g.Result.Over() && g.Position.ToMove == g.AI.Side {
		reply, err := s.aiMove(ctx, req.Client, &g, rec, hist)
		if errors.Is(err, ErrAIBusy) {
			return s.busy(ctx, req, hash, err)
		}
		if err != nil {
			return nil, false, err
		}
		// The AI's thinking is charged to nobody: the person's clock
		// starts again when the reply is made.
		reply.Elapsed = reply.At.Sub(now)
		advance(&g, rec, reply)
		reply.Clock, reply.HasClock = ClockOf(&g)
		res.Reply = &reply
	}
	g.Deadline = g.deadline(s.exp)
	g.Version++
	played := []Move{res.Move}
	if res.Reply != nil {
		played = append(played, *res.Reply)
	}
	for range maxRatingTries {
		var p Play
		if p.Match, err = s.match(ctx, &g, g.Result, g.UpdatedAt); err != nil {
			return nil, false, err
		}
		res.Game = g
		if body, err = encode(&res); err != nil {
			return nil, false, err
		}
		p.GameID, p.Ply, p.TokenHash, p.Moves, p.Answer, p.At, p.Game = id, ply, hash, records(played), body, g.UpdatedAt, g
		// The write re-checks the ply, so the game stored is the one computed here.
		if err = s.store.ApplyPlay(ctx, p); !errors.Is(err, players.ErrRatingsChanged) {
			break
		}
	}
	if errors.Is(err, ErrConflict) {
		// Another request got there first: it may have been this very one.
		s.cache.drop(id)
		cur, err := s.store.Game(ctx, id)
		if err != nil {
			return nil, false, err
		}
		answer, err := s.refusal(ctx, &cur, ply, pit, hash)
		if answer == nil && err == nil {
			err = corrupt("game %s: a play at ply %d conflicted, yet the game is active at that ply", id, ply)
		}
		return answer, answer != nil, err
	}
	if err != nil {
		s.cache.drop(id)
		return nil, false, err
	}
	s.cache.put(&g)
	s.sweep.expect(g.Deadline)
	s.changed(ctx, id)
	return body, false, nil
}

// busy answers a request whose AI reply found no search slot in time
// (busy is that error). Nothing of it was written; should the game have moved
// on all the same (another instance played the ply), the request is
// answered as the game now says, else with busy and the ply the game is
// still at.
func (s *Service) busy(ctx context.Context, req MoveRequest, hash []byte, busy error) ([]byte, bool, error) {
	g, err := s.store.Game(ctx, req.ID)
	if err != nil {
		return nil, false, err
	}
	if g.Status != Active || g.Ply != req.Ply {
		s.cache.drop(req.ID)
		answer, err := s.refusal(ctx, &g, req.Ply, req.Pit, hash)
		return answer, answer != nil, err
	}
	return nil, false, fmt.Errorf("%w; nothing was played, game %s is still at ply %d: send the same request again", busy, req.ID, req.Ply)
}

// moveOf is the record of the move in out, played at ply.
func moveOf(out *engine.Outcome, ply int, at time.Time, byAI bool) Move {
	return Move{Ply: ply, Side: out.Before.ToMove, Pit: out.Pit, ByAI: byAI, Legs: slices.Clone(out.Legs),
		Capture: out.Capture, Position: out.Position, Result: out.Result, At: at}
}

// aiMove asks the AI for its move in g (rec is the record at the same point)
// within its level's time bound and plays it on rec; the move is made at
// the time the search ends. A search that runs out of time still answers
// with the best move it found; should it ever answer with a move the rules
// refuse, the first legal move is played instead, so a game never stalls on
// the AI.
func (s *Service) aiMove(ctx context.Context, client string, g *Game, rec *engine.Game, hist []engine.Position) (Move, error) {
	level := g.AI.Level
	legal := g.Position.LegalMoves(g.Rules)
	if searches(level) && legal.Len() > 1 {
		// Wait for a search slot at most as long as the strongest level may
		// search: past that the client is better told to come back.
		release, err := s.aiSlots.acquire(ctx, client)
		if err != nil {
			return Move{}, err
		}
		defer release()
	}
	actx, cancel := context.WithTimeout(ctx, s.aiBudget(level))
	pit, err := s.choose(actx, g.Position, g.Rules, hist, level, aiSeed(g.ID, g.Ply))
	cancel()
	if !legal.Has(pit) {
		if ctx.Err() != nil {
			return Move{}, ctx.Err()
		}
		s.log.WarnContext(ctx, "AI chose no legal move; playing the first legal one", "game", g.ID,
			"ply", g.Ply, "pit", pit, "error", err)
		pit = legal.Next()
	}
	var out engine.Outcome
	if err := rec.Play(pit, &out); err != nil {
		return Move{}, corrupt("AI move %d at ply %d of %s: %v", pit, g.Ply, g.ID, err)
	}
	return moveOf(&out, g.Ply, s.clock(), true), nil
}

// searches reports whether the AI searches at level. One that does not
// (a random move, the largest capture) costs next to nothing and needs no
// search slot, as a position with a single legal move does not: search.Pool
// lends neither a searcher.
func searches(level int) bool {
	lv, err := search.LevelOf(level)
	return err != nil || lv.Depth > 0
}

// aiSeed makes the AI's choices reproducible per game and ply.
func aiSeed(id string, ply int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(ply))
	h.Write(b[:])
	return h.Sum64()
}

// Resign ends the game for the holder of token: the other side wins. The
// same seat resigning again (a resend after a lost answer) gets the game as
// its resignation left it, which nothing changes after; the other seat gets
// ErrFinished.
func (s *Service) Resign(ctx context.Context, id, token string) (Game, error) {
	g, err := s.current(ctx, id)
	if err != nil {
		return g, err
	}
	side, err := seatOf(&g, token)
	if err != nil {
		return g, err
	}
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return g, corrupt("game %s: start: %v", id, err)
	}
	if err := rec.Resign(side); err != nil {
		return g, corrupt("game %s: resign: %v", id, err)
	}
	result := rec.Result()
	if g.Status == Finished && g.Result == result {
		return g, nil // this seat has resigned already
	}
	if _, err := s.refusal(ctx, &g, -1, -1, nil); err != nil {
		return g, err
	}
	var res Game
	for range maxRatingTries {
		at := s.clock()
		var m *players.Match
		if m, err = s.match(ctx, &g, result, at); err != nil {
			return g, err
		}
		if res, err = s.store.Resign(ctx, id, result, at, m); !errors.Is(err, players.ErrRatingsChanged) {
			break
		}
	}
	if errors.Is(err, ErrConflict) {
		// The game ended since it was read: say how.
		if g, err = s.store.Game(ctx, id); err != nil {
			return g, notFound(id, err)
		}
		if g.Status == Finished && g.Result == result {
			return g, nil // by this seat's resignation, sent twice at once
		}
		if _, err := s.refusal(ctx, &g, -1, -1, nil); err != nil {
			return g, err
		}
		return g, corrupt("game %s: a resignation conflicted, yet the game is active", id)
	}
	if err != nil {
		return g, notFound(id, err)
	}
	s.cache.put(&res)
	s.changed(ctx, id)
	return res, nil
}
