package games

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/budget"
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

// AIQueue is the AI's searches for game sessions running now, and the
// moves waiting for a unit of the CPU budget to search with, for metrics.
func (s *Service) AIQueue() (running, waiting int) { return s.aiSlots.counts() }
