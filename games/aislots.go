package games

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
)

// aiSlots takes the AI's searches out of the process's CPU budget, at the
// budget's first priority, and shares them among client addresses. The
// rule: one address holds at most perAddr of them at once (half of what the
// AI may hold, and at least one), so however many games one client plays,
// the other half stays for everyone else; and a move that has to wait is
// served in order of arrival, passing over only the waiters whose address
// already holds its share. A move that waits longer than wait gets ErrAIBusy.
type aiSlots struct {
	budget  *budget.Budget
	size    int // searches the AI may run at once
	perAddr int
	wait    time.Duration
}

// aiShareKey names the AI's share of the budget; an address's share is
// the key and the address.
const aiShareKey = "games.ai"

// newAISlots lets the AI hold at most n units of b (all of it when n is 0
// or more than b has), waiting at most wait for one.
func newAISlots(b *budget.Budget, n int, wait time.Duration) *aiSlots {
	if n <= 0 || n > b.Size() {
		n = b.Size()
	}
	return &aiSlots{budget: b, size: n, perAddr: max(1, n/2), wait: wait}
}

// acquire takes a unit for a search for addr, or returns ErrAIBusy when
// none came in time, or ctx's error when ctx ended first. The unit is given
// back with the function returned.
func (q *aiSlots) acquire(ctx context.Context, addr string) (release func(), err error) {
	release, err = q.budget.Acquire(ctx, budget.Request{
		Priority: budget.AIReply,
		Weight:   1,
		Wait:     q.wait,
		Shares:   []budget.Share{{Key: aiShareKey, Max: q.size}, {Key: aiShareKey + " " + addr, Max: q.perAddr}},
	})
	if errors.Is(err, budget.ErrBusy) {
		return nil, fmt.Errorf("%w: no AI search slot came free for this client address within %v (it may hold %d of the %d at once)",
			ErrAIBusy, q.wait, q.perAddr, q.size)
	}
	return release, err
}

// counts returns the units the AI holds and the moves waiting for one.
func (q *aiSlots) counts() (lent, waiting int) {
	return q.budget.Held(aiShareKey), q.budget.Stats().Waiting[budget.AIReply]
}

// aiPlayer is the AI as the service schedules it, around the chooser: a
// search takes a slot of the budget (aiSlots), and each level has its
// time. The service hands it a game and gets back the AI's move, played.
type aiPlayer struct {
	choose Chooser
	slots  *aiSlots
	time   time.Duration    // the strongest level's time; each level below has half the one above
	clock  func() time.Time // the service's, at the precision stores keep
	log    *slog.Logger
	// thought hears how long each choice took, by level (Options.AIThought).
	thought func(level int, took time.Duration)
}

// budget is the time bound of an AI move at level: the strongest level has
// the whole of a.time, and each level below it half the one above.
func (a *aiPlayer) budget(level int) time.Duration {
	shift := min(max(search.MaxLevel-level, 0), 20)
	return max(a.time>>shift, time.Millisecond)
}

// move asks the AI for its move in g (rec is the record at the same point)
// within its level's time bound and plays it on rec; the move is made at
// the time the search ends. A search that runs out of time still answers
// with the best move it found; should it ever answer with a move the rules
// refuse, the first legal move is played instead, so a game never stalls on
// the AI.
func (a *aiPlayer) move(ctx context.Context, client string, g *Game, rec *engine.Game, hist []engine.Position) (Move, error) {
	level := g.AI.Level
	legal := g.Position.LegalMoves(g.Rules)
	if searches(level) && legal.Len() > 1 {
		// Wait for a search slot at most as long as the strongest level may
		// search: past that the client is better told to come back.
		release, err := a.slots.acquire(ctx, client)
		if err != nil {
			return Move{}, err
		}
		defer release()
	}
	actx, cancel := context.WithTimeout(ctx, a.budget(level))
	start := a.clock()
	pit, err := a.choose(actx, g.Position, g.Rules, hist, level, aiSeed(g.ID, g.Ply))
	if a.thought != nil {
		a.thought(level, a.clock().Sub(start))
	}
	cancel()
	if !legal.Has(pit) {
		if ctx.Err() != nil {
			return Move{}, ctx.Err()
		}
		a.log.WarnContext(ctx, "AI chose no legal move; playing the first legal one", "game", g.ID,
			"ply", g.Ply, "pit", pit, "error", err)
		pit = legal.Next()
	}
	var out engine.Outcome
	if err := rec.Play(pit, &out); err != nil {
		return Move{}, corrupt("AI move %d at ply %d of %s: %v", pit, g.Ply, g.ID, err)
	}
	return moveOf(&out, g.Ply, a.clock(), true), nil
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

// AIQueue is the AI's searches for game sessions running now, and the
// moves waiting for a unit of the CPU budget to search with, for metrics.
func (s *Service) AIQueue() (running, waiting int) { return s.aiSlots.counts() }
