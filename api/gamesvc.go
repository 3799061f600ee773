package api

// The game-session service: the rules side of /v1/games, between the HTTP
// handlers and the store. It decides who may move, replays the record through
// the engine (which applies the repetition rule), asks the AI for its reply
// and hands the store one write per accepted request. Nothing here knows SQL
// or HTTP.

import (
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
	"runtime"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	store "github.com/ayoayo/ayoayo/store/sqlite"
)

// Errors of game sessions that are not the store's or the engine's.
var (
	// ErrUnauthorized: no seat token, or one this game never issued.
	ErrUnauthorized = errors.New("missing or unknown seat token")
	// ErrNotYourTurn: a valid token for the seat that is not to move.
	ErrNotYourTurn = errors.New("not this seat's turn")
	// ErrRateLimited: too many requests from one client; the error is a
	// *RateLimitError that says when to come back.
	ErrRateLimited = errors.New("rate limited")
	// ErrAIBusy: every AI search slot stayed taken for as long as an AI move
	// may take; nothing was played, and the same request may be sent again.
	ErrAIBusy = errors.New("the AI is busy")
)

// GameStore is what game sessions need from the database (api/store.Store
// has these methods).
type GameStore interface {
	CreateGame(ctx context.Context, g store.Game, moves []store.Move) error
	Game(ctx context.Context, id string) (store.Game, error)
	Join(ctx context.Context, id string, tokenHash []byte, at time.Time) (store.Game, error)
	Moves(ctx context.Context, id string, from, limit int) ([]store.Move, error)
	Refusal(ctx context.Context, id string, ply, pit int, tokenHash []byte) ([]byte, error)
	ApplyPlay(ctx context.Context, p store.Play) (replay []byte, err error)
	Resign(ctx context.Context, id string, result engine.Result, at time.Time) (store.Game, error)
}

// MoveChooser picks the AI's move; search.ChooseMove is the one the server
// uses, tests may pass another.
type MoveChooser func(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, level int, seed uint64) (int, error)

// gameCacheSize bounds the games whose rows the move path keeps (a few
// hundred bytes each).
const gameCacheSize = 8192

// gameService runs game sessions. Its methods are safe for concurrent use.
type gameService struct {
	store  GameStore
	choose MoveChooser
	aiTime time.Duration // the time bound of the strongest level
	// aiSlots bounds the AI searches running at once: each is CPU-bound, so
	// beyond a few per core they only slow each other down and hold memory.
	aiSlots chan struct{}
	now     func() time.Time
	hub     *gameHub
	cache   *gameCache // the move path's guess of each game's row
	log     *slog.Logger
	// stopping, when closed, ends every event stream (see follow).
	stopping <-chan struct{}
}

func newGameService(st GameStore, choose MoveChooser, aiTime time.Duration, aiConcurrency int, log *slog.Logger) *gameService {
	if choose == nil {
		choose = search.ChooseMove
	}
	if aiTime <= 0 {
		aiTime = time.Second
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if aiConcurrency <= 0 {
		aiConcurrency = 2 * runtime.GOMAXPROCS(0)
	}
	return &gameService{store: st, choose: choose, aiTime: aiTime, aiSlots: make(chan struct{}, aiConcurrency),
		now: time.Now, hub: newGameHub(), cache: newGameCache(gameCacheSize), log: log}
}

// clock is the time now at the precision the store keeps, so an answer
// given at once and the same game read back later say the same time.
func (s *gameService) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// aiBudget is the time bound of an AI move at level: the strongest level has
// the whole of aiTime, and each level below it half the one above.
func (s *gameService) aiBudget(level int) time.Duration {
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
func seatOf(g *store.Game, token string) (engine.Side, error) {
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

// newGameRequest is what a creator asks for.
type newGameRequest struct {
	Rules   engine.Rules
	Start   engine.Position
	Seat    engine.Side // the creator's seat
	AILevel int         // 0: the other seat is for a person
}

// seatAnswer is a game with the token of the seat just taken.
type seatAnswer struct {
	Game  store.Game
	Side  engine.Side
	Token string
	Moves []store.Move // the AI's opening move, when it made one at creation
}

// create starts a game. Against the AI the game is active at once, and when
// the AI is to move it moves before the game is stored; against a person the
// game waits for them to join.
func (s *gameService) create(ctx context.Context, req newGameRequest) (seatAnswer, error) {
	rec, err := engine.NewGame(req.Start, req.Rules)
	if err != nil {
		return seatAnswer{}, err
	}
	if rec.Result().Over() {
		return seatAnswer{}, fmt.Errorf("%w: the start position %s is already finished", engine.ErrInvalidPosition, req.Start)
	}
	if !req.Seat.Valid() {
		return seatAnswer{}, fmt.Errorf("%w: seat %d", engine.ErrInvalidPosition, req.Seat)
	}
	now := s.clock()
	token, hash := newToken()
	g := store.Game{ID: newGameID(), CreatedAt: now, UpdatedAt: now, Rules: req.Rules, Start: req.Start,
		Position: req.Start, Status: store.Waiting, Version: 1}
	g.Tokens[req.Seat] = hash
	var moves []store.Move
	if req.AILevel > 0 {
		g.Status = store.Active
		g.AI = &store.AI{Side: req.Seat.Other(), Level: req.AILevel}
		if req.Start.ToMove == g.AI.Side {
			m, err := s.aiMove(ctx, &g, rec, nil, now)
			if err != nil {
				return seatAnswer{}, err
			}
			moves = append(moves, m)
			advance(&g, rec, m)
		}
	}
	if err := s.store.CreateGame(ctx, g, moves); err != nil {
		return seatAnswer{}, err
	}
	s.cache.put(&g)
	return seatAnswer{Game: g, Side: req.Seat, Token: token, Moves: moves}, nil
}

// advance moves g on past the move m that rec has just played.
func advance(g *store.Game, rec *engine.Game, m store.Move) {
	g.Ply = rec.Ply()
	g.Position = rec.Position()
	g.Result = rec.Result()
	g.History = append(g.History, byte(m.Pit))
	if g.Result.Over() {
		g.Status = store.Finished
	}
	g.UpdatedAt = m.At
}

// join takes the empty seat of a game against a person, once.
func (s *gameService) join(ctx context.Context, id string) (seatAnswer, error) {
	token, hash := newToken()
	g, err := s.store.Join(ctx, id, hash, s.clock())
	if err != nil {
		return seatAnswer{}, err
	}
	s.cache.put(&g)
	s.hub.notify(id)
	side := engine.North
	if slices.Equal(g.Tokens[engine.South], hash) {
		side = engine.South
	}
	return seatAnswer{Game: g, Side: side, Token: token}, nil
}

func (s *gameService) game(ctx context.Context, id string) (store.Game, error) {
	return s.store.Game(ctx, id)
}

func (s *gameService) moves(ctx context.Context, id string, from, limit int) ([]store.Move, error) {
	return s.store.Moves(ctx, id, from, limit)
}

// replay rebuilds the engine's record of g from its start and history, so the
// repetition rule sees every earlier position. It also returns the positions
// before the current one, which the AI needs to see that rule coming.
func replay(g *store.Game) (*engine.Game, []engine.Position, error) {
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return nil, nil, fmt.Errorf("game %s: start: %w", g.ID, err)
	}
	hist := make([]engine.Position, 0, len(g.History)+2)
	var out engine.Outcome
	for i, pit := range g.History {
		hist = append(hist, rec.Position())
		if err := rec.Play(int(pit), &out); err != nil {
			return nil, nil, fmt.Errorf("game %s: stored ply %d does not replay: %w", g.ID, i, err)
		}
	}
	if rec.Position() != g.Position {
		return nil, nil, fmt.Errorf("game %s: replay reaches %s, the store says %s", g.ID, rec.Position(), g.Position)
	}
	return rec, hist, nil
}

// playResult is what an accepted move request did.
type playResult struct {
	Move  store.Move
	Reply *store.Move // the AI's answer, when it was the AI's turn next
	Game  store.Game  // the game after both
}

// errInternalState wraps failures that mean the stored game is not what the
// rules say it should be: a fault of the server, never of the client, so no
// row of the problem table matches it and it is answered as a 500.
var errInternalState = errors.New("stored game inconsistent")

// play plays pit at ply for the holder of token. encode turns the result into
// the answer's body, which is stored with the move so that the same request
// sent again (same token, ply and pit) gets the same body back as replay
// instead of making a second move.
func (s *gameService) play(ctx context.Context, id, token string, ply, pit int, encode func(*playResult) ([]byte, error)) (body []byte, replayed bool, err error) {
	body, replayed, err = s.playFrom(ctx, true, id, token, ply, pit, encode)
	if errors.Is(err, errCachedRefusal) {
		// Refused on the strength of a cached row: the database decides
		// which refusal the request gets (its ply may be stale).
		body, replayed, err = s.playFrom(ctx, false, id, token, ply, pit, encode)
	}
	return body, replayed, err
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

func (s *gameService) playFrom(ctx context.Context, useCache bool, id, token string, ply, pit int, encode func(*playResult) ([]byte, error)) (body []byte, replayed bool, err error) {
	var g store.Game
	cached := false
	if useCache {
		g, cached = s.cache.get(id)
	}
	if !cached || g.Ply != ply || g.Status != store.Active {
		cached = false
		// A miss, or a request the cached row would refuse: the database
		// has the last word.
		if g, err = s.store.Game(ctx, id); err != nil {
			return nil, false, err
		}
	}
	side, err := seatOf(&g, token)
	if err != nil {
		return nil, false, err // tokens never change: the cache is as good as the database
	}
	hash := tokenHash(token)
	if g.Status != store.Active || g.Ply != ply {
		answer, err := s.store.Refusal(ctx, id, ply, pit, hash)
		if answer != nil || err != nil {
			return answer, answer != nil, err
		}
		// The game reached that ply after we read it: read it again.
		if g, err = s.store.Game(ctx, id); err != nil {
			return nil, false, err
		}
		if g.Status != store.Active || g.Ply != ply {
			return nil, false, &store.StalePlyError{Sent: ply, Current: g.Ply}
		}
	}
	if side != g.Position.ToMove {
		return nil, false, cachedRefusal(cached, fmt.Errorf("%w: %s is to move, this token holds %s", ErrNotYourTurn, g.Position.ToMove, side))
	}
	rec, hist, err := replay(&g)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", errInternalState, err)
	}
	now := s.clock()
	var out engine.Outcome
	if err := rec.Play(pit, &out); err != nil {
		return nil, false, cachedRefusal(cached, err)
	}
	res := playResult{Move: moveOf(&out, g.Ply, now, false)}
	hist = append(hist, g.Position)
	advance(&g, rec, res.Move)
	if g.AI != nil && !g.Result.Over() && g.Position.ToMove == g.AI.Side {
		reply, err := s.aiMove(ctx, &g, rec, hist, now)
		if err != nil {
			return nil, false, err
		}
		res.Reply = &reply
		advance(&g, rec, reply)
	}
	g.Version++
	res.Game = g
	body, err = encode(&res)
	if err != nil {
		return nil, false, err
	}
	p := store.Play{GameID: id, Ply: ply, TokenHash: hash, Moves: []store.Move{res.Move}, Answer: body, At: now}
	if res.Reply != nil {
		p.Moves = append(p.Moves, *res.Reply)
	}
	// The write re-checks the ply, so the game stored is the one computed here.
	answer, err := s.store.ApplyPlay(ctx, p)
	if err != nil {
		s.cache.drop(id)
		return nil, false, err
	}
	if answer != nil {
		return answer, true, nil
	}
	s.cache.put(&g)
	s.hub.notify(id)
	return body, false, nil
}

// moveOf is the store's record of the move in out, played at ply.
func moveOf(out *engine.Outcome, ply int, at time.Time, byAI bool) store.Move {
	return store.Move{Ply: ply, Side: out.Before.ToMove, Pit: out.Pit, ByAI: byAI, Legs: slices.Clone(out.Legs),
		Capture: out.Capture, Position: out.Position, Result: out.Result, At: at}
}

// aiMove asks the AI for its move in g (rec is the record at the same point)
// within its level's time bound and plays it on rec. A search that runs out of
// time still answers with the best move it found; should it ever answer with a
// move the rules refuse, the first legal move is played instead, so a game
// never stalls on the AI.
func (s *gameService) aiMove(ctx context.Context, g *store.Game, rec *engine.Game, hist []engine.Position, at time.Time) (store.Move, error) {
	level := g.AI.Level
	// Wait for a search slot at most as long as the strongest level may
	// search: past that the client is better told to come back.
	wait := time.NewTimer(s.aiTime)
	select {
	case s.aiSlots <- struct{}{}:
		wait.Stop()
	case <-wait.C:
		return store.Move{}, fmt.Errorf("%w: %d searches running; send the move again", ErrAIBusy, cap(s.aiSlots))
	case <-ctx.Done():
		wait.Stop()
		return store.Move{}, ctx.Err()
	}
	defer func() { <-s.aiSlots }()
	actx, cancel := context.WithTimeout(ctx, s.aiBudget(level))
	pit, err := s.choose(actx, g.Position, g.Rules, hist, level, aiSeed(g.ID, g.Ply))
	cancel()
	legal := g.Position.LegalMoves(g.Rules)
	if !legal.Has(pit) {
		if ctx.Err() != nil {
			return store.Move{}, ctx.Err()
		}
		s.log.WarnContext(ctx, "AI chose no legal move; playing the first legal one", "game", g.ID,
			"ply", g.Ply, "pit", pit, "error", err)
		pit = legal.Next()
	}
	var out engine.Outcome
	if err := rec.Play(pit, &out); err != nil {
		return store.Move{}, fmt.Errorf("%w: AI move %d at ply %d of %s: %w", errInternalState, pit, g.Ply, g.ID, err)
	}
	return moveOf(&out, g.Ply, at, true), nil
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

// resign ends the game for the holder of token: the other side wins.
func (s *gameService) resign(ctx context.Context, id, token string) (store.Game, error) {
	g, err := s.store.Game(ctx, id)
	if err != nil {
		return g, err
	}
	side, err := seatOf(&g, token)
	if err != nil {
		return g, err
	}
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return g, fmt.Errorf("%w: %w", errInternalState, err)
	}
	if err := rec.Resign(side); err != nil {
		return g, fmt.Errorf("%w: %w", errInternalState, err)
	}
	g, err = s.store.Resign(ctx, id, rec.Result(), s.clock())
	if err != nil {
		return g, err
	}
	s.cache.put(&g)
	s.hub.notify(id)
	return g, nil
}
