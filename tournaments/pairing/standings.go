package pairing

import (
	"cmp"
	"slices"
)

// SwissStanding is one entrant's line of a Swiss event's standings. All
// points are half points (a win 2, a draw 1).
type SwissStanding struct {
	// Rank is 1-based; entrants equal in Points and every tie-break share
	// one, and are listed by ID.
	Rank   int
	ID     string
	Points int // a bye scores as a win: 2
	// Buchholz is the sum of the Points of the opponents of the
	// entrant's finished games; a bye adds nothing (no opponent).
	Buchholz int
	// SonnebornBerger is, over the entrant's finished games, the sum of
	// the half points the entrant scored times the opponent's Points: so
	// in quarter points (a win over an opponent of 3 points, 6 half
	// points, adds 2×6 = 12 = 3 points). A bye adds nothing.
	SonnebornBerger int
	// Wins counts games won over the board, not byes.
	Wins, Draws, Losses, Byes int
	Souths, Norths            int // finished games only
}

// SwissStandings scores the finished games and the byes of an event and
// ranks every entrant, withdrawn ones included, by Points, then Buchholz,
// then Sonneborn-Berger, then Wins. Games still running, and games or
// byes naming no entrant, count nowhere.
func SwissStandings(entrants []Entrant, games []Game, byes []string) []SwissStanding {
	out := make([]SwissStanding, len(entrants))
	index := make(map[string]int, len(entrants))
	for i, e := range entrants {
		out[i].ID = e.ID
		if _, dup := index[e.ID]; !dup {
			index[e.ID] = i
		}
	}
	type played struct{ s, n int }
	var done []played
	var outcomes []Outcome
	for _, g := range games {
		s, okS := index[g.South]
		n, okN := index[g.North]
		if !g.Done || !okS || !okN || s == n {
			continue
		}
		done = append(done, played{s, n})
		outcomes = append(outcomes, g.Outcome)
		sp := southPoints(g.Outcome)
		out[s].Points += sp
		out[n].Points += winPoints - sp
		out[s].Souths++
		out[n].Norths++
		switch g.Outcome {
		case SouthWins:
			out[s].Wins++
			out[n].Losses++
		case NorthWins:
			out[n].Wins++
			out[s].Losses++
		default:
			out[s].Draws++
			out[n].Draws++
		}
	}
	for _, id := range byes {
		if i, ok := index[id]; ok && id != "" {
			out[i].Byes++
			out[i].Points += winPoints
		}
	}
	// Tie-breaks read the final Points, so they come in a second pass.
	for k, g := range done {
		sp := southPoints(outcomes[k])
		out[g.s].Buchholz += out[g.n].Points
		out[g.n].Buchholz += out[g.s].Points
		out[g.s].SonnebornBerger += sp * out[g.n].Points
		out[g.n].SonnebornBerger += (winPoints - sp) * out[g.s].Points
	}
	tie := func(a, b *SwissStanding) int {
		return cmp.Or(
			cmp.Compare(b.Points, a.Points),
			cmp.Compare(b.Buchholz, a.Buchholz),
			cmp.Compare(b.SonnebornBerger, a.SonnebornBerger),
			cmp.Compare(b.Wins, a.Wins),
		)
	}
	slices.SortFunc(out, func(a, b SwissStanding) int {
		return cmp.Or(tie(&a, &b), cmp.Compare(a.ID, b.ID))
	})
	for i := range out {
		if i > 0 && tie(&out[i-1], &out[i]) == 0 {
			out[i].Rank = out[i-1].Rank
		} else {
			out[i].Rank = i + 1
		}
	}
	return out
}
