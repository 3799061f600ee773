package pairing

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// fuzzEvent decodes an arbitrary event history from bytes: up to 16
// entrants, some withdrawn or joining late, up to 7 rounds played of
// arbitrary games (repeats, several games a round and lopsided seats
// included: SwissRound must cope with whatever a caller stored) and byes.
// It returns the round to pair.
func fuzzEvent(data []byte) (*event, int) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
	e := &event{}
	n := 2 + next()%15
	for i := range n {
		flags := next()
		e.entrants = append(e.entrants, Entrant{
			ID:          fmt.Sprintf("p%d", i),
			Rating:      float64(next() % 4 * 100), // equal ratings are common
			Withdrawn:   flags&1 != 0,
			JoinedRound: flags >> 1 % 4,
		})
	}
	played := next() % 8
	for r := 1; r <= played; r++ {
		bye := next()
		if bye < n {
			e.byes = append(e.byes, e.entrants[bye].ID)
		} else {
			e.byes = append(e.byes, "")
		}
	}
	for len(data) >= 3 && played > 0 {
		s, no, x := next()%n, next()%n, next()
		if s == no {
			continue
		}
		e.games = append(e.games, Game{
			Round: 1 + x/3%played, South: e.entrants[s].ID, North: e.entrants[no].ID,
			Done: x&0x80 == 0, Outcome: Outcome(x % 3),
		})
	}
	return e, played + 1
}

func FuzzSwissRound(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 0, 10, 0, 20, 0, 30, 0, 40, 0, 50, 0, 60})
	f.Add([]byte{8, 0, 1, 1, 2, 0, 3, 2, 4, 0, 5, 6, 6, 0, 7, 0, 8, 0, 9, 3, 200, 9, 0, 1, 1, 2, 0, 2, 3, 130, 4, 5, 7})
	f.Add([]byte{14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 1, 2, 3, 4, 5, 6, 7, 0, 1, 9, 2, 3, 12, 4, 5, 15, 6, 7, 18, 8, 9, 21})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, round := fuzzEvent(data)
		pairs, bye, err := SwissRound(e.entrants, e.games, e.byes, round)
		if err != nil {
			if !errors.Is(err, ErrNoPairing) && !errors.Is(err, ErrBadInput) {
				t.Fatalf("an error of no kind: %v", err)
			}
			return
		}
		active := map[string]bool{}
		count := 0
		for _, en := range e.entrants {
			if !en.Withdrawn && max(en.JoinedRound, 1) <= round {
				active[en.ID] = true
				count++
			}
		}
		met := map[[2]string]bool{}
		diff := map[string]int{}
		for _, g := range e.games {
			met[[2]string{g.South, g.North}] = true
			met[[2]string{g.North, g.South}] = true
			diff[g.South]++
			diff[g.North]--
		}
		seen := map[string]bool{}
		for _, p := range pairs {
			for _, id := range []string{p.South, p.North} {
				if !active[id] {
					t.Fatalf("%v: %s is not active", p, id)
				}
				if seen[id] {
					t.Fatalf("%s twice in the round", id)
				}
				seen[id] = true
			}
			if met[[2]string{p.South, p.North}] {
				t.Fatalf("%v have met", p)
			}
			diff[p.South]++
			diff[p.North]--
			for _, id := range []string{p.South, p.North} {
				if d := diff[id]; d < -2 || d > 2 {
					t.Fatalf("%s at Souths minus Norths %d", id, d)
				}
			}
		}
		if bye != "" {
			if !active[bye] || seen[bye] || slices.Contains(e.byes, bye) {
				t.Fatalf("bye %q: active %v, paired %v, had one %v", bye, active[bye], seen[bye], slices.Contains(e.byes, bye))
			}
			seen[bye] = true
		}
		if len(seen) != count {
			t.Fatalf("%d of %d active players paired or given the bye", len(seen), count)
		}
	})
}
