package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// The games every store's size is measured with: each store's own test
// fills a fresh store with PlaySizedGames, compacts it and divides its size
// by the moves stored.

// PlaySizedGames stores n games between two people of up to plies moves
// each through s, as a server would (CreateGame, Join, one ApplyPlay per
// move), eight games at a time.
func PlaySizedGames(ctx context.Context, s games.Store, n, plies int) error {
	const workers = 8
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := w; i < n && errs[w] == nil; i += workers {
				errs[w] = playSizedGame(ctx, s, rng, i, plies)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// gameID is a random id of 16 URL-safe characters, as the service makes.
func gameID(rng *rand.Rand) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := make([]byte, 16)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// sizedTime is the time control of the measured games: a live clock, so
// every move rewrites the clock and the deadline, as most games' moves do.
var sizedTime = games.TimeControl{Kind: games.Live, Initial: 10 * time.Minute, Increment: 5 * time.Second}

// playSizedGame creates game i, seats North and plays up to plies moves of
// random legal pits, each its own request, on a live clock.
func playSizedGame(ctx context.Context, s games.Store, rng *rand.Rand, i, plies int) error {
	at := time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC).Add(time.Duration(i) * time.Minute)
	id := gameID(rng)
	tokens := [2][]byte{hashOf(id + "-south"), hashOf(id + "-north")}
	g := games.Game{ID: id, CreatedAt: at, UpdatedAt: at, Start: engine.Start(), Position: engine.Start(),
		Status: games.Waiting, Tokens: [2][]byte{tokens[engine.South], nil}, Version: 1,
		TimeControl: sizedTime, Clock: [2]time.Duration{sizedTime.Initial, sizedTime.Initial},
		Deadline: at.Add(24 * time.Hour)}
	if err := s.CreateGame(ctx, g, nil); err != nil {
		return err
	}
	at = at.Add(3*time.Second + 141*time.Microsecond)
	g, err := s.Join(ctx, id, tokens[engine.North], at, at.Add(30*time.Second), games.SeatPlayer{})
	if err != nil {
		return err
	}
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return err
	}
	var out, try engine.Outcome
	for g.Status == games.Active && g.Ply < plies {
		// Random pits, mostly ones that capture nothing: random play
		// captures so much that games end after some 25 moves, people's
		// games go on longer.
		var pits, quiet []int
		for legal := g.Position.LegalMoves(g.Rules); legal != 0; {
			pit := legal.Next()
			pits = append(pits, pit)
			if engine.Play(g.Position, pit, g.Rules, &try); try.Capture.None() {
				quiet = append(quiet, pit)
			}
		}
		if len(quiet) > 0 && rng.IntN(8) > 0 {
			pits = quiet
		}
		pit := pits[rng.IntN(len(pits))]
		if err := rec.Play(pit, &out); err != nil {
			return fmt.Errorf("game %d, ply %d: %w", i, g.Ply, err)
		}
		spent := time.Duration(2+rng.IntN(30))*time.Second + time.Duration(rng.IntN(1e6))*time.Microsecond
		at = at.Add(spent)
		next := g
		next.Clock[out.Before.ToMove] = max(g.Clock[out.Before.ToMove]-spent, 0) + sizedTime.Increment
		next.Deadline = at.Add(next.Clock[out.Position.ToMove])
		next.Ply, next.Position, next.Result = rec.Ply(), rec.Position(), rec.Result()
		next.History = append(g.History, byte(pit))
		if next.Result.Over() {
			next.Status, next.Deadline = games.Finished, time.Time{}
		}
		next.UpdatedAt = at
		next.Version++
		p := games.Play{GameID: id, Ply: g.Ply,
			Moves: []games.Record{{Ply: g.Ply, Pit: pit, At: at, Version: next.Version}}, At: at, Game: next}
		if err := s.ApplyPlay(ctx, p); err != nil {
			return fmt.Errorf("game %d, ply %d: %w", i, g.Ply, err)
		}
		g = next
	}
	return nil
}
