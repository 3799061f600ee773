package pairing

import (
	"cmp"
	"math"
	"slices"
)

// ArenaGame is one game of an arena.
type ArenaGame struct {
	South, North string
	Outcome      Outcome
	Berserk      [2]bool // by Seat: that player halved their own clock
	Plies        int     // plies played
	Done         bool    // false: still being played; it scores nothing
}

// ArenaPlayer is a free player of an arena, waiting for a game.
type ArenaPlayer struct {
	ID           string
	Rating       float64
	Points       int    // the arena score so far, as ArenaScores gives it
	LastOpponent string // "" if none
}

// berserkPlies is the shortest game whose berserk win earns the bonus, so
// that a berserk player cannot farm it from an opponent who never plays.
const berserkPlies = 7

// ArenaPairs pairs the free players of an arena. Ranked by Points, then
// Rating, then ID, each unpaired player in turn meets the unpaired player
// closest to them in Points, then in Rating, then in rank, who was not
// their last opponent and whose last opponent they were not. Two players
// left over who may not meet each other are then fitted into pairs made
// already when a swap allows it. Of each pair, the player with fewer
// Souths than Norths so far (seats[ID]: Souths minus Norths) sits South;
// on a tie, the higher ranked one. Players still left over (an odd one,
// or only repeats) wait for the next call. Pairs are in rank order of
// their higher ranked player.
func ArenaPairs(free []ArenaPlayer, seats map[string]int) []Pair {
	// A player listed twice is free once: the first listing counts.
	var ps []ArenaPlayer
	listed := make(map[string]bool, len(free))
	for _, p := range free {
		if !listed[p.ID] {
			listed[p.ID] = true
			ps = append(ps, p)
		}
	}
	slices.SortStableFunc(ps, func(a, b ArenaPlayer) int {
		return cmp.Or(cmp.Compare(b.Points, a.Points), cmp.Compare(b.Rating, a.Rating), cmp.Compare(a.ID, b.ID))
	})
	may := func(a, b int) bool {
		return ps[a].LastOpponent != ps[b].ID && ps[b].LastOpponent != ps[a].ID
	}
	partner := make([]int, len(ps))
	for i := range partner {
		partner[i] = -1
	}
	for a := range ps {
		if partner[a] >= 0 {
			continue
		}
		best := -1
		for b := a + 1; b < len(ps); b++ {
			// Points only fall down the ranking: past the best one's
			// Points, nobody is closer.
			if best >= 0 && ps[b].Points < ps[best].Points {
				break
			}
			if partner[b] >= 0 || !may(a, b) {
				continue
			}
			if best < 0 || closer(ps[a], ps[b], ps[best]) {
				best = b
			}
		}
		if best >= 0 {
			partner[a], partner[best] = best, a
		}
	}
	// Two left over who are each other's last opponents: u and v can
	// still play if some pair (a, b) splits into (u, a) and (v, b), or
	// (u, b) and (v, a).
	var left []int
	for i, p := range partner {
		if p < 0 {
			left = append(left, i)
		}
	}
	for i := 0; i+1 < len(left); i++ {
		u := left[i]
		if partner[u] >= 0 {
			continue
		}
		for j := i + 1; j < len(left) && partner[u] < 0; j++ {
			v := left[j]
			if partner[v] >= 0 {
				continue
			}
			for a := range ps {
				b := partner[a]
				if b < a {
					continue // each pair once, and not the unpaired
				}
				if may(u, a) && may(v, b) {
					partner[u], partner[a], partner[v], partner[b] = a, u, b, v
					break
				}
				if may(u, b) && may(v, a) {
					partner[u], partner[b], partner[v], partner[a] = b, u, a, v
					break
				}
			}
		}
	}
	var out []Pair
	for a, b := range partner {
		if b < a {
			continue
		}
		sa, sb := seats[ps[a].ID], seats[ps[b].ID]
		if sb < sa {
			out = append(out, Pair{South: ps[b].ID, North: ps[a].ID})
		} else {
			out = append(out, Pair{South: ps[a].ID, North: ps[b].ID})
		}
	}
	return out
}

// closer tells whether b is a closer opponent for a than c is.
func closer(a, b, c ArenaPlayer) bool {
	db, dc := abs(a.Points-b.Points), abs(a.Points-c.Points)
	if db != dc {
		return db < dc
	}
	return math.Abs(a.Rating-b.Rating) < math.Abs(a.Rating-c.Rating)
}

// ArenaScore is one player's line of an arena's standings. Points are
// lichess's arena points: a win 2, a draw 1, doubled on fire, a berserk
// win 1 more.
type ArenaScore struct {
	ID     string
	Points int
	Sheet  []int // the points each finished game gave, in the order they ended
	OnFire bool  // two wins in a row last: the next win counts double
	// Berserks counts finished games in which the player berserked, won
	// or not.
	Games, Wins, Berserks int
	// Rank is 1-based; players with equal Points and Games share it and
	// are listed by ID.
	Rank int
}

// ArenaScores scores an arena's finished games, given in the order they
// ended, for the players named (games of others count for nobody), as
// lichess does: a win 2, a draw 1, a loss 0; after two wins in a row the
// player is on fire, and until a game that is not a win, a win gives 4 and
// a draw 2 (the draw then ends the fire); a berserk win of at least 7
// plies adds 1, on fire or not. Games still running count nowhere. Ranked
// by Points, then fewer Games (the same points in fewer games), then ID.
func ArenaScores(players []string, games []ArenaGame) []ArenaScore {
	out := make([]ArenaScore, 0, len(players))
	index := make(map[string]int, len(players))
	for _, id := range players {
		if _, dup := index[id]; dup {
			continue
		}
		index[id] = len(out)
		out = append(out, ArenaScore{ID: id, Sheet: []int{}})
	}
	streak := make([]int, len(out)) // wins in a row just before
	for _, g := range games {
		if !g.Done {
			continue
		}
		for seat, id := range [2]string{g.South, g.North} {
			i, ok := index[id]
			if !ok {
				continue
			}
			won := (seat == int(South) && g.Outcome == SouthWins) || (seat == int(North) && g.Outcome == NorthWins)
			fire := streak[i] >= 2
			pts := 0
			switch {
			case won:
				pts = winPoints
				streak[i]++
			case g.Outcome == Draw:
				pts = drawPoints
				streak[i] = 0
			default:
				streak[i] = 0
			}
			if fire {
				pts *= 2
			}
			if won && g.Berserk[seat] && g.Plies >= berserkPlies {
				pts++
			}
			sc := &out[i]
			sc.Sheet = append(sc.Sheet, pts)
			sc.Points += pts
			sc.Games++
			if won {
				sc.Wins++
			}
			if g.Berserk[seat] {
				sc.Berserks++
			}
		}
	}
	for i := range out {
		out[i].OnFire = streak[i] >= 2
	}
	tie := func(a, b *ArenaScore) int {
		return cmp.Or(cmp.Compare(b.Points, a.Points), cmp.Compare(a.Games, b.Games))
	}
	slices.SortFunc(out, func(a, b ArenaScore) int { return cmp.Or(tie(&a, &b), cmp.Compare(a.ID, b.ID)) })
	for i := range out {
		if i > 0 && tie(&out[i-1], &out[i]) == 0 {
			out[i].Rank = out[i-1].Rank
		} else {
			out[i].Rank = i + 1
		}
	}
	return out
}
