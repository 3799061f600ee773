package games

// The game-session service: the rules side of game sessions, between the
// api package and the store. It decides who may move, replays the record
// through the engine (which applies the repetition rule), asks the AI for
// its reply and hands the store one write per accepted request.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
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
	// Changed hears of every change committed to a game (the Hub, which
	// tells its followers). Nil: nobody is told.
	Changed Notifier
	// Expiries are how long a game waits for someone before it ends by
	// itself (first moves, joins, idle untimed games).
	Expiries Expiries
	// AIThought is told how long the AI took to choose each move, by
	// level, for metrics: it must be quick and safe for concurrent use.
	// Nil: nobody is told.
	AIThought func(level int, took time.Duration)
}

// Service runs game sessions. Its methods are safe for concurrent use.
type Service struct {
	store   Store
	ai      *aiPlayer
	aiSlots *aiSlots // ai's, for AIQueue
	flights flights  // the move requests being played, by game and ply
	now     func() time.Time
	log     *slog.Logger
	notify  Notifier                    // nil: nobody hears of changes
	ends    atomic.Pointer[EndNotifier] // nil: nobody hears of ends (OnEnded)
	cache   *gameCache                  // the move path's guess of each game's row

	exp   Expiries
	sweep *alarm // wakes the Sweeper for a deadline set here
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
	s := &Service{store: st, aiSlots: ai,
		flights: flights{m: make(map[flightKey]*flight)}, now: o.Now, log: o.Logger, notify: o.Changed,
		cache: newGameCache(gameCacheSize), exp: o.Expiries.withDefaults(), sweep: newAlarm()}
	s.ai = &aiPlayer{choose: o.Choose, slots: ai, time: o.AIMoveTime, clock: s.clock, log: o.Logger, thought: o.AIThought}
	return s
}

// clock is the time now at the precision stores keep, so an answer given at
// once and the same game read back later say the same time.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

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

// seatOf returns the side by acts for in g, or ErrUnauthorized: the seat
// whose token by carries, or else the seat whose player by is.
func seatOf(g *Game, by Actor) (engine.Side, error) {
	if by.Token == "" && by.Player == "" {
		return 0, fmt.Errorf("%w: send the seat's token as Authorization: Bearer TOKEN, or the seat's player's Player-Token", ErrUnauthorized)
	}
	if by.Token != "" {
		h := tokenHash(by.Token)
		for _, side := range []engine.Side{engine.South, engine.North} {
			if len(g.Tokens[side]) == len(h) && subtle.ConstantTimeCompare(g.Tokens[side], h) == 1 {
				return side, nil
			}
		}
		return 0, fmt.Errorf("%w: the token is not one of this game's seats", ErrUnauthorized)
	}
	for _, side := range []engine.Side{engine.South, engine.North} {
		if g.Players[side].ID == by.Player {
			return side, nil
		}
	}
	return 0, fmt.Errorf("%w: the player has no seat in this game", ErrUnauthorized)
}

// actorKey tells apart who sends move requests, for the flights: the
// token's hash, or the player's id hashed apart from any token.
func actorKey(by Actor) []byte {
	if by.Token != "" {
		return tokenHash(by.Token)
	}
	return tokenHash("player\x00" + by.Player)
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
			m, err := s.ai.move(ctx, req.Client, &g, rec, nil)
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
	if err := s.store.CreateGame(ctx, g, records(moves, g.Version, g.DrawOffer)); err != nil {
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
	// Rated only once both sides have moved: before that a resignation or
	// an agreement aborts the game (abortOnly), and a move that ends it by
	// the rules (from a start position a move can finish) leaves its
	// result unrated.
	if g.Rated && g.Category() != "" && ids[0] != "" && ids[1] != "" && g.Ply >= 2 {
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
	g, err := s.joinable(ctx, id)
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
	if err != nil {
		s.cache.drop(id) // a copy cached here waiting is stale
	}
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
	s.joined(ctx, &g)
	side := engine.North
	if slices.Equal(g.Tokens[engine.South], hash) {
		side = engine.South
	}
	return Seat{Game: g, Side: side, Token: token}, nil
}

// joinable is the game a join of id starts from: the cached one when this
// instance has it waiting and not overdue, else the database's. What the
// join decides from it (rated or not, the creator, the category, the
// deadline the join sets) does not change while a game waits, and the
// join's write takes the seat only if the game still waits, with the seat
// open, before its deadline: a stale copy (a game joined, aborted or
// deleted elsewhere) costs that write's refusal and a read, never a wrong
// answer. A game created here is so joined without a read first.
func (s *Service) joinable(ctx context.Context, id string) (Game, error) {
	if g, ok := s.cache.get(id); ok && g.Status == Waiting && !g.overdue(s.clock()) {
		return g, nil
	}
	return s.current(ctx, id)
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

// moves rebuilds up to limit moves of g from ply from on: see storedMoves.
func (s *Service) moves(ctx context.Context, g *Game, from, limit int) ([]Move, error) {
	return storedMoves(ctx, s.store, g, from, limit)
}

// Resign ends the game for by's seat: the other side wins. The same seat
// resigning again (a resend after a lost answer) gets the game as its
// resignation left it, which nothing changes after; the other seat gets
// ErrFinished. A rated game in which a side has not moved yet is aborted
// instead (abortOnly), and a resignation sent to it again gets it aborted.
func (s *Service) Resign(ctx context.Context, id string, by Actor) (Game, error) {
	for range maxAmendTries {
		res, err := s.resignOnce(ctx, id, by)
		if !errors.Is(err, ErrConflict) {
			return res, notFound(id, err)
		}
		// The game changed since it was read (it ended, or an offer was
		// made): read it again, and say how or resign again.
	}
	return Game{}, corrupt("game %s: a resignation kept conflicting", id)
}

// resignOnce is Resign on one read of the game.
func (s *Service) resignOnce(ctx context.Context, id string, by Actor) (Game, error) {
	g, err := s.current(ctx, id)
	if err != nil {
		return g, err
	}
	side, err := seatOf(&g, by)
	if err != nil {
		return g, err
	}
	result := engine.Result{Reason: engine.ByResignation, Winner: engine.WinnerOf(side.Other())}
	if g.Status == Finished && g.Result == result || g.Status == Aborted && g.Rated && g.firstMove() && !g.JoinedAt.IsZero() {
		return g, nil // this seat has resigned already
	}
	if _, err := s.refusal(ctx, &g, side, -1, -1); err != nil {
		return g, err
	}
	var res Game
	if g.abortOnly() {
		res, err = s.end(ctx, &g, End{ID: id, Version: g.Version, Status: Aborted, Clock: g.Clock})
	} else {
		res, err = s.resign(ctx, &g, result)
	}
	if err != nil {
		return g, err
	}
	s.cache.put(&res)
	s.changed(ctx, &res)
	return res, nil
}

// resign writes g's end by resignation with result.
func (s *Service) resign(ctx context.Context, g *Game, result engine.Result) (Game, error) {
	var res Game
	var err error
	for range maxRatingTries {
		at := s.clock()
		var m *players.Match
		if m, err = s.match(ctx, g, result, at); err != nil {
			return *g, err
		}
		if res, err = s.store.Resign(ctx, g.ID, result, at, m); !errors.Is(err, players.ErrRatingsChanged) {
			break
		}
	}
	return res, err
}
