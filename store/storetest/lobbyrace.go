package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

// lobbies are lobby services over stores that share one database, as on
// instances of their own.
func lobbies(stores []LobbyStore) ([]*lobby.Service, []*games.Service) {
	var ls []*lobby.Service
	var gs []*games.Service
	for _, st := range stores {
		g := games.NewService(st, budget.New(1), games.Options{Choose: func(context.Context, engine.Position, engine.Rules, []engine.Position, int, uint64) (int, error) {
			return 0, errors.New("no AI here")
		}})
		gs = append(gs, g)
		// Seeks that outlive the race, however long the machine makes it:
		// an expired seek pairs with nothing, by design.
		ls = append(ls, lobby.NewService(st, lobby.Options{Games: g, SeekTTL: time.Hour, ChallengeTTL: time.Hour}))
	}
	return ls, gs
}

// RaceSeeks has n players post two seeks each at once, through the stores
// in turn (instances sharing one database), over three time controls and
// both rated flags, and checks what the issue asks: every seek is in at
// most one game, every game joins two compatible seeks, nobody has two
// clock games, and no two compatible seeks are left open.
func RaceSeeks(t *testing.T, n int, stores ...LobbyStore) {
	t.Helper()
	ctx := t.Context()
	ls, _ := lobbies(stores)
	now := time.Now().UTC().Truncate(time.Microsecond)
	ps := make([]*players.Player, n)
	for i := range ps {
		id := fmt.Sprintf("racer%05d", i)
		p := players.Player{ID: id, Name: id, TokenHash: hashOf(id), CreatedAt: now, UpdatedAt: now}
		if err := stores[0].CreatePlayer(ctx, p); err != nil {
			t.Fatal(err)
		}
		ps[i] = &p
	}
	tcs := []games.TimeControl{blitz, rapid, corr}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var posted []string
	for i, p := range ps {
		for j := range 2 {
			wg.Go(func() {
				sk, err := ls[(i+j)%len(ls)].PostSeek(ctx, p, lobby.NewSeek{TimeControl: tcs[(i/2+j)%3], Rated: i%2 == 0})
				switch {
				case errors.Is(err, lobby.ErrTooManySeeks) || errors.Is(err, lobby.ErrPlaying):
					return
				case err != nil:
					t.Errorf("player %d: %v", i, err)
					return
				}
				mu.Lock()
				posted = append(posted, sk.ID)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	st := stores[0]
	byGame := map[string][]lobby.Seek{}
	var open []lobby.Seek
	for _, id := range posted {
		sk, err := st.Seek(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		switch sk.At(time.Now()).Status {
		case lobby.SeekMatched:
			byGame[sk.GameID] = append(byGame[sk.GameID], sk)
		case lobby.SeekOpen:
			open = append(open, sk)
		}
	}
	clockGames := map[string]int{}
	for id, seeks := range byGame {
		if len(seeks) != 2 || !lobby.Compatible(&seeks[0], &seeks[1]) || seeks[0].Side == seeks[1].Side {
			t.Errorf("game %s joins %d seeks: %+v", id, len(seeks), seeks)
			continue
		}
		g, err := st.Game(ctx, id)
		if err != nil || g.Status != games.Active || g.TimeControl != seeks[0].TimeControl {
			t.Errorf("game %s: %+v, %v", id, g, err)
		}
		if seeks[0].Clock() {
			clockGames[seeks[0].PlayerID]++
			clockGames[seeks[1].PlayerID]++
		}
	}
	for p, k := range clockGames {
		if k > 1 {
			t.Errorf("player %s has %d clock games", p, k)
		}
	}
	for i := range open {
		for j := i + 1; j < len(open); j++ {
			if lobby.Compatible(&open[i], &open[j]) {
				t.Errorf("compatible seeks %s and %s left open", open[i].ID, open[j].ID)
			}
		}
	}
	if len(byGame) < n/4 {
		t.Errorf("only %d games from %d players", len(byGame), n)
	}
	t.Logf("%d players: %d seeks posted, %d games, %d seeks left open", n, len(posted), len(byGame), len(open))
}

// RaceChallenges has n open challenges each accepted by several players,
// declined-or-cancelled by its challenger, through the stores in turn, at
// once: each challenge ends in exactly one state, with exactly one game
// when accepted.
func RaceChallenges(t *testing.T, n int, stores ...LobbyStore) {
	t.Helper()
	ctx := t.Context()
	ls, _ := lobbies(stores)
	now := time.Now().UTC().Truncate(time.Microsecond)
	mk := func(id string) *players.Player {
		p := players.Player{ID: id, Name: id, TokenHash: hashOf(id), CreatedAt: now, UpdatedAt: now}
		if err := stores[0].CreatePlayer(ctx, p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	const accepters = 4
	var ids []string
	var from []*players.Player
	for i := range n {
		p := mk(fmt.Sprint("challenger", i))
		c, err := ls[0].Challenge(ctx, p, lobby.NewChallenge{TimeControl: corr})
		if err != nil {
			t.Fatal(err)
		}
		ids, from = append(ids, c.ID), append(from, p)
	}
	var others []*players.Player
	for i := range accepters {
		others = append(others, mk(fmt.Sprint("accepter", i)))
	}
	wins := make([]int, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		for k := range accepters + 1 {
			wg.Go(func() {
				l := ls[(i+k)%len(ls)]
				var err error
				if k == accepters {
					_, err = l.CancelChallenge(ctx, from[i], ids[i])
				} else {
					_, err = l.Accept(ctx, others[k], ids[i])
				}
				switch {
				case err == nil:
					mu.Lock()
					wins[i]++
					mu.Unlock()
				case !errors.Is(err, lobby.ErrChallengeClosed):
					t.Errorf("challenge %d, racer %d: %v", i, k, err)
				}
			})
		}
	}
	wg.Wait()
	for i, id := range ids {
		c, err := stores[0].Challenge(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if wins[i] != 1 {
			t.Errorf("challenge %d: %d writes took it", i, wins[i])
		}
		switch c.Status {
		case lobby.ChallengeAccepted:
			if _, err := stores[0].Game(ctx, c.GameID); err != nil {
				t.Errorf("challenge %d's game: %v", i, err)
			}
		case lobby.ChallengeCancelled:
		default:
			t.Errorf("challenge %d is %s", i, c.Status)
		}
	}
}
