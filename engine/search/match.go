package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/ayoayo/ayoayo/engine"
)

// Player is one side of a match: a level, optionally with other evaluation
// weights (for tuning by self-play).
type Player struct {
	Level   int
	Weights *Weights // nil: DefaultWeights
}

// MatchConfig describes a match of paired games between A and B: each opening
// of 2 to 4 random plies is played twice, A taking South in the first game of
// the pair and North in the second, so neither side profits from a lucky
// opening.
type MatchConfig struct {
	A, B  Player
	Games int // games in all; rounded up to an even number
	Seed  uint64
	Rules engine.Rules
	// Workers play games in parallel (0: 1). The result does not depend on it.
	Workers int
	// Clock applies the levels' wall-clock bounds. Without it the searching
	// levels stop at their depth or node budget only, so a match gives the
	// same games on any machine, however loaded.
	Clock bool
	// Balance redraws an opening while a depth-OpeningDepth search scores
	// the position after it more than Balance seeds from even (negative: keep
	// every opening). A random ply often loses the game outright, and such an
	// opening decides both games of its pair whatever the levels.
	Balance int
	// Progress, if set, is called after each finished game with the games
	// done so far and the running score (calls are serialised).
	Progress func(done int, score MatchResult)
}

// MatchResult is the score of a match, from A's side.
type MatchResult struct {
	Games, Wins, Draws, Losses int
	SeedDiff                   int // sum of A's final captured difference
	Plies                      int // plies played in all games
}

// Score returns A's share of the points: a win 1, a draw 1/2.
func (m MatchResult) Score() float64 {
	if m.Games == 0 {
		return 0
	}
	return (float64(m.Wins) + float64(m.Draws)/2) / float64(m.Games)
}

func (m MatchResult) String() string {
	return fmt.Sprintf("%d games: %d wins, %d draws, %d losses for A: %.1f%% (mean seed difference %+.2f, %.1f plies a game)",
		m.Games, m.Wins, m.Draws, m.Losses, 100*m.Score(), float64(m.SeedDiff)/float64(max(m.Games, 1)), float64(m.Plies)/float64(max(m.Games, 1)))
}

// OpeningDepth is the depth of the search that judges an opening's balance.
const OpeningDepth = 8

// DefaultBalance is the balance the match command asks for.
const DefaultBalance = 3

// maxGamePlies ends a game that neither a majority, a blocked player nor the
// repetition rule has ended (it has never happened in testing): the board is
// split as the repetition rule would split it.
const maxGamePlies = 2000

// PlayMatch plays the match and returns its score. The games depend only on
// the configuration (and, with Clock, on the machine's speed).
func PlayMatch(ctx context.Context, cfg MatchConfig) (MatchResult, error) {
	for _, pl := range []Player{cfg.A, cfg.B} {
		if _, err := LevelOf(pl.Level); err != nil {
			return MatchResult{}, err
		}
	}
	if err := cfg.Rules.Validate(); err != nil {
		return MatchResult{}, err
	}
	pairs := (cfg.Games + 1) / 2
	workers := min(max(cfg.Workers, 1), max(pairs, 1))
	type outcome struct {
		diff  int // A's final captured difference
		plies int
	}
	results := make([]outcome, 2*pairs)
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		running  MatchResult
		firstErr error
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			players := [2]*matchPlayer{newMatchPlayer(cfg.A, cfg.Clock), newMatchPlayer(cfg.B, cfg.Clock)}
			judge := NewSearcher(1 << 20)
			for game := range jobs {
				opening := matchOpening(judge, cfg.Seed, game/2, cfg.Rules, cfg.Balance)
				aSide := engine.Side(game % 2)
				var seats [2]*matchPlayer
				seats[aSide], seats[aSide.Other()] = players[0], players[1]
				final, plies, err := playGame(ctx, seats, opening, cfg.Rules, mix64(cfg.Seed^uint64(game)<<24))
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				d := final.Margin(aSide)
				results[game] = outcome{diff: d, plies: plies}
				running.add(d, plies)
				if cfg.Progress != nil {
					cfg.Progress(running.Games, running)
				}
				mu.Unlock()
			}
		})
	}
	for game := range 2 * pairs {
		if ctx.Err() != nil {
			break
		}
		jobs <- game
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return running, firstErr
	}
	if err := ctx.Err(); err != nil {
		return running, err
	}
	var total MatchResult
	for _, o := range results {
		total.add(o.diff, o.plies)
	}
	return total, nil
}

func (m *MatchResult) add(diff, plies int) {
	m.Games++
	m.SeedDiff += diff
	m.Plies += plies
	switch {
	case diff > 0:
		m.Wins++
	case diff < 0:
		m.Losses++
	default:
		m.Draws++
	}
}

// matchPlayer is a Player with its own searcher, reused for all its moves.
type matchPlayer struct {
	lv Level
	s  *Searcher
}

func newMatchPlayer(p Player, clock bool) *matchPlayer {
	lv, _ := LevelOf(p.Level)
	if !clock {
		lv.Time = 0
	}
	mp := &matchPlayer{lv: lv}
	if lv.Depth > 0 {
		mp.s = NewSearcher(lv.Hash)
		if p.Weights != nil {
			mp.s.SetWeights(*p.Weights)
		}
	}
	return mp
}

// matchOpening returns the random plies that start pair number pair: 2 to 4
// random legal moves that do not end the game, leaving a position that judge
// scores within balance seeds (see MatchConfig.Balance).
func matchOpening(judge *Searcher, seed uint64, pair int, r engine.Rules, balance int) []int {
	rng := rand.New(rand.NewPCG(seed, uint64(pair)))
	for {
		p := engine.Start()
		n := 2 + rng.IntN(3)
		moves := make([]int, 0, n)
		for range n {
			m := p.LegalMoves(r)
			if m == 0 {
				break
			}
			pit := randomMove(m, rng)
			moves = append(moves, pit)
			p, _ = p.Apply(pit, r)
		}
		if len(moves) < n || p.Status(r).Over() {
			continue
		}
		if balance < 0 {
			return moves
		}
		a, err := judge.Analyze(context.Background(), p, r, nil, Limits{Depth: OpeningDepth, BestOnly: true})
		if err == nil && a.Score >= -balance && a.Score <= balance {
			return moves
		}
	}
}

// playGame plays one game after the opening and returns the final position
// (board settled) and the plies played.
func playGame(ctx context.Context, seats [2]*matchPlayer, opening []int, r engine.Rules, seed uint64) (engine.Position, int, error) {
	g, err := engine.NewGame(engine.Start(), r)
	if err != nil {
		return engine.Position{}, 0, err
	}
	var out engine.Outcome
	history := make([]engine.Position, 0, 128)
	for _, pit := range opening {
		history = append(history, g.Position())
		if err := g.Play(pit, &out); err != nil {
			return engine.Position{}, 0, err
		}
	}
	for !g.Result().Over() {
		if g.Ply() >= maxGamePlies {
			return g.Position().SplitRows(), g.Ply(), nil
		}
		p := g.Position()
		mp := seats[p.ToMove]
		pit, err := mp.s.chooseMove(ctx, p, r, history, mp.lv, mix64(seed+uint64(g.Ply())))
		if err != nil {
			return engine.Position{}, 0, err
		}
		history = append(history, p)
		if err := g.Play(pit, &out); err != nil {
			return engine.Position{}, 0, errors.Join(fmt.Errorf("level %d played an illegal move in %s", mp.lv.Level, p), err)
		}
	}
	return g.Position(), g.Ply(), nil
}
