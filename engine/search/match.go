package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Player is one side of a match: a level, optionally with other evaluation
// weights (for tuning by self-play).
type Player struct {
	Level   int
	Weights *Weights // nil: DefaultWeights
	// Endgames are the tables the player's level uses if it sets
	// Level.Endgame (nil: none).
	Endgames *Endgames
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
	// Judge, if set, is a table for the match's rules that watches every
	// move made in a position it holds: see MatchResult.TableWins.
	Judge Endgame
}

// MatchResult is the score of a match, from A's side.
type MatchResult struct {
	Games, Wins, Draws, Losses int
	SeedDiff                   int // sum of A's final captured difference
	Plies                      int // plies played in all games
	// TableWins counts the moves A (index 0) and B (1) made in a position
	// the judge's table calls won for them, with perfect play; ThrownWins
	// those of them that left a position the table does not call lost for
	// the opponent (a win turned into a draw or a loss, as the table sees
	// it). Zero without a judge.
	TableWins, ThrownWins [2]int
}

// Score returns A's share of the points: a win 1, a draw 1/2.
func (m MatchResult) Score() float64 {
	if m.Games == 0 {
		return 0
	}
	return (float64(m.Wins) + float64(m.Draws)/2) / float64(m.Games)
}

func (m MatchResult) String() string {
	s := fmt.Sprintf("%d games: %d wins, %d draws, %d losses for A: %.1f%% (mean seed difference %+.2f, %.1f plies a game)",
		m.Games, m.Wins, m.Draws, m.Losses, 100*m.Score(), float64(m.SeedDiff)/float64(max(m.Games, 1)), float64(m.Plies)/float64(max(m.Games, 1)))
	if m.TableWins != [2]int{} {
		s += fmt.Sprintf("; moves in table wins: A %d (%d thrown), B %d (%d thrown)", m.TableWins[0], m.ThrownWins[0], m.TableWins[1], m.ThrownWins[1])
	}
	return s
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
	if cfg.Judge != nil && cfg.Judge.Rules() != cfg.Rules {
		return MatchResult{}, fmt.Errorf("the judge's table is for the rules %+v, the match's are %+v", cfg.Judge.Rules(), cfg.Rules)
	}
	pairs := (cfg.Games + 1) / 2
	workers := min(max(cfg.Workers, 1), max(pairs, 1))
	type outcome struct {
		diff  int // A's final captured difference
		plies int
		judged
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
				final, plies, j, err := playGame(ctx, seats, opening, cfg.Rules, mix64(cfg.Seed^uint64(game)<<24), cfg.Judge)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				d := final.Margin(aSide)
				j = j.from(aSide)
				results[game] = outcome{diff: d, plies: plies, judged: j}
				running.add(d, plies, j)
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
		total.add(o.diff, o.plies, o.judged)
	}
	return total, nil
}

func (m *MatchResult) add(diff, plies int, j judged) {
	for i := range 2 {
		m.TableWins[i] += j.wins[i]
		m.ThrownWins[i] += j.thrown[i]
	}
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
		mp.s = NewSearcher(lv.Hash, WithEndgames(p.Endgames))
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

// judged counts, by side (South, North) or, once turned by from, by player
// (A, B), the moves made in a position a table calls won, and those that
// threw the win away.
type judged struct{ wins, thrown [2]int }

// from turns counts by side into counts by player, A playing aSide.
func (j judged) from(aSide engine.Side) judged {
	if aSide == engine.North {
		j.wins[0], j.wins[1] = j.wins[1], j.wins[0]
		j.thrown[0], j.thrown[1] = j.thrown[1], j.thrown[0]
	}
	return j
}

// judge counts the move pit in p if t holds p and calls it won for its
// mover: thrown if the position after it is not lost for the opponent.
func (j *judged) judge(t Endgame, p engine.Position, pit int, r engine.Rules) {
	v, ok := t.Value(&p)
	if !ok || tablebase.Result(&p, v) != tablebase.Win {
		return
	}
	j.wins[p.ToMove]++
	q, _ := p.Apply(pit, r)
	if final, res := q.Finish(r); res.Over() {
		if final.Margin(p.ToMove) <= 0 {
			j.thrown[p.ToMove]++
		}
		return
	}
	if w, _ := t.Value(&q); tablebase.Result(&q, w) != tablebase.Loss {
		j.thrown[p.ToMove]++
	}
}

// playGame plays one game after the opening and returns the final position
// (board settled), the plies played and, with a judge, its counts by side.
func playGame(ctx context.Context, seats [2]*matchPlayer, opening []int, r engine.Rules, seed uint64, judge Endgame) (engine.Position, int, judged, error) {
	var j judged
	g, err := engine.NewGame(engine.Start(), r)
	if err != nil {
		return engine.Position{}, 0, j, err
	}
	var out engine.Outcome
	history := make([]engine.Position, 0, 128)
	for _, pit := range opening {
		history = append(history, g.Position())
		if err := g.Play(pit, &out); err != nil {
			return engine.Position{}, 0, j, err
		}
	}
	for !g.Result().Over() {
		if g.Ply() >= maxGamePlies {
			return g.Position().SplitRows(), g.Ply(), j, nil
		}
		p := g.Position()
		mp := seats[p.ToMove]
		pit, err := mp.s.chooseMove(ctx, p, r, history, mp.lv, mix64(seed+uint64(g.Ply())))
		if err != nil {
			return engine.Position{}, 0, j, err
		}
		if judge != nil {
			j.judge(judge, p, pit, r)
		}
		history = append(history, p)
		if err := g.Play(pit, &out); err != nil {
			return engine.Position{}, 0, j, errors.Join(fmt.Errorf("level %d played an illegal move in %s", mp.lv.Level, p), err)
		}
	}
	return g.Position(), g.Ply(), j, nil
}
