package pairing

import (
	"slices"
	"testing"
)

// win is a finished arena game won by the first player, who sits South.
func win(winner, loser string) ArenaGame {
	return ArenaGame{South: winner, North: loser, Outcome: SouthWins, Plies: 30, Done: true}
}

func draw(a, b string) ArenaGame {
	return ArenaGame{South: a, North: b, Outcome: Draw, Plies: 30, Done: true}
}

func TestArenaScores(t *testing.T) {
	berserk := func(g ArenaGame, seat Seat, plies int) ArenaGame {
		g.Berserk[seat] = true
		g.Plies = plies
		return g
	}
	for _, tc := range []struct {
		name   string
		games  []ArenaGame
		sheet  []int // a's
		onFire bool
		wins   int
		bers   int
	}{
		{"a win, a draw, a loss", []ArenaGame{win("a", "b"), draw("a", "c"), win("b", "a")}, []int{2, 1, 0}, false, 1, 0},
		{"two wins set the third on fire", []ArenaGame{win("a", "b"), win("a", "c"), win("a", "b")}, []int{2, 2, 4}, true, 3, 0},
		{"two wins alone are on fire", []ArenaGame{win("a", "b"), win("a", "c")}, []int{2, 2}, true, 2, 0},
		{"a draw on fire counts 2 and ends it", []ArenaGame{win("a", "b"), win("a", "c"), draw("b", "a"), win("a", "c")}, []int{2, 2, 2, 2}, false, 3, 0},
		{"a loss ends the fire", []ArenaGame{win("a", "b"), win("a", "c"), win("c", "a"), win("a", "b"), win("a", "c"), win("a", "b")}, []int{2, 2, 0, 2, 2, 4}, true, 5, 0},
		{"a win as North counts", []ArenaGame{{South: "b", North: "a", Outcome: NorthWins, Plies: 9, Done: true}}, []int{2}, false, 1, 0},
		{"a berserk win of 7 plies adds 1", []ArenaGame{berserk(win("a", "b"), South, 7)}, []int{3}, false, 1, 1},
		{"a berserk win of 6 plies does not", []ArenaGame{berserk(win("a", "b"), South, 6)}, []int{2}, false, 1, 1},
		{"a berserk win on fire is 5", []ArenaGame{win("a", "b"), win("a", "c"), berserk(win("a", "b"), South, 40)}, []int{2, 2, 5}, true, 3, 1},
		{"the opponent's berserk is not a's", []ArenaGame{berserk(win("a", "b"), North, 40)}, []int{2}, false, 1, 0},
		{"a berserk loss scores 0 but counts", []ArenaGame{berserk(win("b", "a"), North, 40)}, []int{0}, false, 0, 1},
		{"a berserk draw earns no bonus", []ArenaGame{berserk(draw("a", "b"), South, 40)}, []int{1}, false, 0, 1},
		{"games still running count nowhere", []ArenaGame{win("a", "b"), {South: "a", North: "c", Outcome: NorthWins}, win("a", "c")}, []int{2, 2}, true, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scores := ArenaScores([]string{"a", "b", "c"}, tc.games)
			i := slices.IndexFunc(scores, func(s ArenaScore) bool { return s.ID == "a" })
			if i < 0 {
				t.Fatalf("no score for a: %+v", scores)
			}
			a := scores[i]
			total := 0
			for _, p := range tc.sheet {
				total += p
			}
			if !slices.Equal(a.Sheet, tc.sheet) || a.Points != total || a.OnFire != tc.onFire ||
				a.Games != len(tc.sheet) || a.Wins != tc.wins || a.Berserks != tc.bers {
				t.Errorf("a scored %+v, want sheet %v (%d points), on fire %v, %d wins, %d berserks", a, tc.sheet, total, tc.onFire, tc.wins, tc.bers)
			}
		})
	}
}

func TestArenaRanks(t *testing.T) {
	games := []ArenaGame{
		win("a", "b"), win("c", "d"), // a, c: 2 in one game
		win("e", "f"), win("e", "f"), draw("f", "e"), // e 2+2+2=6 in three; f 1 in three
		draw("b", "d"), draw("b", "d"), // b 2, d 2, each in three
		win("x", "a"), // x is no player named: a's loss counts, x scores nothing
	}
	scores := ArenaScores([]string{"a", "b", "c", "d", "e", "f", "g", "a"}, games)
	type line struct {
		id           string
		points, rank int
	}
	var got []line
	for _, s := range scores {
		got = append(got, line{s.ID, s.Points, s.Rank})
	}
	// e leads; c has 2 points in one game, ahead of a, b and d with 2 in
	// two or three; b and d are equal in both and share a rank; g has
	// played nothing.
	want := []line{{"e", 6, 1}, {"c", 2, 2}, {"a", 2, 3}, {"b", 2, 4}, {"d", 2, 4}, {"f", 1, 6}, {"g", 0, 7}}
	if !slices.Equal(got, want) {
		t.Errorf("ranks %v, want %v", got, want)
	}
	if g := scores[len(scores)-1]; g.Sheet == nil || len(g.Sheet) != 0 || g.Games != 0 {
		t.Errorf("g, without games: %+v", g)
	}
}

func TestArenaPairs(t *testing.T) {
	p := func(id string, points int, rating float64, last string) ArenaPlayer {
		return ArenaPlayer{ID: id, Rating: rating, Points: points, LastOpponent: last}
	}
	for _, tc := range []struct {
		name  string
		free  []ArenaPlayer
		seats map[string]int
		want  []Pair
	}{
		{"close scores meet", []ArenaPlayer{p("d", 1, 1500, ""), p("a", 10, 1500, ""), p("c", 2, 1500, ""), p("b", 9, 1500, "")}, nil,
			[]Pair{{"a", "b"}, {"c", "d"}}},
		{"then close ratings", []ArenaPlayer{p("a", 4, 1500, ""), p("b", 4, 2000, ""), p("c", 4, 1550, ""), p("d", 4, 1990, "")}, nil,
			[]Pair{{"b", "d"}, {"c", "a"}}},
		{"not the last opponent", []ArenaPlayer{p("a", 10, 1500, "b"), p("b", 9, 1500, ""), p("c", 8, 1500, ""), p("d", 7, 1500, "")}, nil,
			[]Pair{{"a", "c"}, {"b", "d"}}},
		{"nor the one who had you last", []ArenaPlayer{p("a", 10, 1500, ""), p("b", 9, 1500, "a"), p("c", 8, 1500, ""), p("d", 7, 1500, "")}, nil,
			[]Pair{{"a", "c"}, {"b", "d"}}},
		{"the odd one out waits", []ArenaPlayer{p("a", 10, 1500, ""), p("b", 9, 1500, ""), p("c", 1, 1500, "")}, nil,
			[]Pair{{"a", "b"}}},
		{"only a repeat: both wait", []ArenaPlayer{p("a", 10, 1500, "b"), p("b", 9, 1500, "a")}, nil, nil},
		// Paired in order, c and d would be left (each other's last
		// opponents); a swap gives everyone a game.
		{"a swap pairs the last two", []ArenaPlayer{p("a", 10, 1500, ""), p("b", 9, 1500, ""), p("c", 8, 1500, "d"), p("d", 7, 1500, "c")}, nil,
			[]Pair{{"a", "c"}, {"b", "d"}}},
		{"fewer Souths sits South", []ArenaPlayer{p("a", 10, 1500, ""), p("b", 9, 1500, ""), p("c", 8, 1500, ""), p("d", 7, 1500, "")},
			map[string]int{"a": 1, "b": -1, "c": 0, "d": 0},
			[]Pair{{"b", "a"}, {"c", "d"}}},
		{"nobody free", nil, nil, nil},
		{"a player listed twice is free once", []ArenaPlayer{p("a", 10, 1500, ""), p("b", 2, 1500, ""), p("a", 1, 1500, "")}, nil,
			[]Pair{{"a", "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ArenaPairs(tc.free, tc.seats)
			if !slices.Equal(got, tc.want) {
				t.Errorf("pairs %v, want %v", got, tc.want)
			}
		})
	}
}

// TestArenaPairsRules pairs a crowd of free players with random scores
// and last opponents and checks the rules that hold whatever the crowd:
// nobody twice, nobody against the last opponent, and at most one player
// left out unless only repeats are left.
func TestArenaPairsRules(t *testing.T) {
	for seed := range uint64(50) {
		e := newEvent(41, seed)
		var free []ArenaPlayer
		for i, en := range e.entrants {
			last := ""
			if i%3 == 0 {
				last = e.entrants[(i+1)%len(e.entrants)].ID
			}
			free = append(free, ArenaPlayer{ID: en.ID, Rating: en.Rating, Points: int(en.Rating) % 7, LastOpponent: last})
		}
		lastOf := map[string]string{}
		for _, f := range free {
			lastOf[f.ID] = f.LastOpponent
		}
		pairs := ArenaPairs(free, nil)
		seen := map[string]bool{}
		for _, p := range pairs {
			if seen[p.South] || seen[p.North] || p.South == p.North {
				t.Fatalf("seed %d: %v pairs someone twice", seed, p)
			}
			seen[p.South], seen[p.North] = true, true
			if lastOf[p.South] == p.North || lastOf[p.North] == p.South {
				t.Errorf("seed %d: %v met last time", seed, p)
			}
		}
		if left := len(free) - 2*len(pairs); left != 1 {
			t.Errorf("seed %d: %d of %d players left out", seed, left, len(free))
		}
	}
}
