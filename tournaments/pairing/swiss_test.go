package pairing

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// players enters the ids with ratings falling in the order given.
func players(ids ...string) []Entrant {
	var es []Entrant
	for i, id := range ids {
		es = append(es, Entrant{ID: id, Rating: float64(2000 - 100*i)})
	}
	return es
}

// ring enters n players p0, p1, ... rated from the top down.
func ring(n int) []Entrant {
	var es []Entrant
	for i := range n {
		es = append(es, Entrant{ID: fmt.Sprintf("p%d", i), Rating: float64(3000 - i)})
	}
	return es
}

// metAll is a first round (seats alternating) in which p0 met each of
// the other n-1 players: no second round can pair p0.
func metAll(n int) []Game {
	var games []Game
	for i := 1; i < n; i++ {
		s, no := "p0", fmt.Sprintf("p%d", i)
		if i%2 == 0 {
			s, no = no, s
		}
		games = append(games, game(1, s, no, Draw))
	}
	return games
}

// withdrawn enters players who have left the event.
func withdrawn(ids ...string) []Entrant {
	var es []Entrant
	for _, id := range ids {
		es = append(es, Entrant{ID: id, Rating: 1000, Withdrawn: true})
	}
	return es
}

// game is a finished game of round r.
func game(r int, south, north string, o Outcome) Game {
	return Game{Round: r, South: south, North: north, Done: true, Outcome: o}
}

func TestSwissRound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		entrants []Entrant
		games    []Game
		byes     []string
		round    int
		want     []Pair
		bye      string
	}{{
		// S1 = a b c d meets S2 = e f g h; the higher ranked of board 1
		// sits South, of board 2 North, and so on.
		name: "round 1 top half meets bottom half", entrants: players("a", "b", "c", "d", "e", "f", "g", "h"), round: 1,
		want: []Pair{{"a", "e"}, {"f", "b"}, {"c", "g"}, {"h", "d"}},
	}, {
		name: "round 1 bye to the lowest ranked", entrants: players("a", "b", "c", "d", "e"), round: 1,
		want: []Pair{{"a", "c"}, {"d", "b"}}, bye: "e",
	}, {
		// All on 2 points with balanced seats; a met d, so a takes e and
		// the rest of S2 follows in order: b cannot have d (met) and takes
		// f, c takes d. Each sits opposite their last seat.
		name: "transposition when S1 met S2", entrants: players("a", "b", "c", "d", "e", "f"), round: 3,
		games: []Game{
			game(1, "a", "d", Draw), game(1, "b", "e", Draw), game(1, "c", "f", Draw),
			game(2, "f", "a", Draw), game(2, "d", "b", Draw), game(2, "e", "c", Draw),
		},
		want: []Pair{{"a", "e"}, {"b", "f"}, {"c", "d"}},
	}, {
		// All drew: S1 = a b, S2 = c d. a met c, and a and d are both
		// due North, so no order of S2 will do: a meets b (an exchange),
		// and c meets d.
		name: "exchange when no order of S2 will do", entrants: players("a", "b", "c", "d"), round: 2,
		games: []Game{game(1, "a", "c", Draw), game(1, "d", "b", Draw)},
		want:  []Pair{{"b", "a"}, {"c", "d"}},
	}, {
		// The winners a b c: a and c are both due North, so only one of
		// them can meet b and the lowest, c, floats; c meets the highest
		// of the losers it has not met, d; e and f are left.
		name: "odd group floats its lowest down", entrants: players("a", "b", "c", "d", "e", "f"), round: 2,
		games: []Game{game(1, "a", "d", SouthWins), game(1, "e", "b", NorthWins), game(1, "c", "f", SouthWins)},
		want:  []Pair{{"b", "a"}, {"d", "c"}, {"f", "e"}},
	}, {
		// e, ranked lowest, had the bye in round 1; d has had none. a and
		// c have met, so both float onto b and e; a may not meet b again
		// and takes e.
		name: "bye skips a player who had one", entrants: players("a", "b", "c", "d", "e"), round: 3,
		games: []Game{
			game(1, "a", "b", SouthWins), game(1, "d", "c", NorthWins),
			game(2, "c", "a", Draw), game(2, "e", "d", NorthWins),
		},
		byes: []string{"e", "b"},
		want: []Pair{{"a", "e"}, {"b", "c"}}, bye: "d",
	}, {
		name:     "withdrawn players are not paired",
		entrants: append(players("a", "b"), Entrant{ID: "c", Rating: 1800, Withdrawn: true}, Entrant{ID: "d", Rating: 1700}, Entrant{ID: "e", Rating: 1600}),
		round:    1,
		want:     []Pair{{"a", "d"}, {"e", "b"}},
	}, {
		name:     "a late joiner waits for their round",
		entrants: append(players("a", "b", "c"), Entrant{ID: "d", Rating: 2500, JoinedRound: 2}),
		round:    1,
		want:     []Pair{{"a", "b"}}, bye: "c",
	}, {
		// d joins with 0 points and no bye; a (due North) meets c, who
		// had the bye and has no seat yet; b (due South) meets d.
		name:     "a late joiner is paired from their round",
		entrants: append(players("a", "b", "c"), Entrant{ID: "d", Rating: 2500, JoinedRound: 2}),
		games:    []Game{game(1, "a", "b", SouthWins)},
		byes:     []string{"c"},
		round:    2,
		want:     []Pair{{"c", "a"}, {"b", "d"}},
	}, {
		// a and b both sat South, then North: both would like South, as
		// mildly; their seats never differed, so the higher ranked, a,
		// gets it. c (bye, then South) must sit North; x (North, then
		// bye) would like South: both get their seat. y would like North
		// and d, new, has no wish.
		name:     "seats: wishes granted, the higher ranked's first",
		entrants: append(players("a", "b", "c", "x", "y"), Entrant{ID: "d", Rating: 1000, JoinedRound: 3}),
		games: []Game{
			game(1, "a", "x", SouthWins), game(1, "b", "y", SouthWins),
			game(2, "c", "a", NorthWins), game(2, "y", "b", NorthWins),
		},
		byes:  []string{"c", "x"},
		round: 3,
		want:  []Pair{{"a", "b"}, {"x", "c"}, {"d", "y"}},
	}, {
		// x would like North mildly (balanced, last South); y, ranked
		// lower, must have North (one South more): y gets it.
		name:     "seats: the larger need gets its seat",
		entrants: append(players("x", "y"), withdrawn("w1", "w2", "w3", "w4", "w5")...),
		games: []Game{
			game(1, "y", "w1", Draw),
			game(2, "w2", "y", Draw), game(2, "w4", "x", NorthWins),
			game(3, "y", "w3", Draw), game(3, "x", "w5", SouthWins),
		},
		round: 4,
		want:  []Pair{{"x", "y"}},
	}, {
		// p and q are balanced and last sat North: both would like South.
		// Going back, they last sat apart in round 2, p South: p sits
		// North now although ranked higher.
		name:     "seats: alternate from the last game they sat apart",
		entrants: append(players("p", "q"), withdrawn("w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8")...),
		games: []Game{
			game(1, "w1", "p", Draw), game(1, "q", "w5", Draw),
			game(2, "p", "w2", Draw), game(2, "w6", "q", Draw),
			game(3, "p", "w3", Draw), game(3, "q", "w7", Draw),
			game(4, "w4", "p", Draw), game(4, "w8", "q", Draw),
		},
		round: 5,
		want:  []Pair{{"q", "p"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, bye, err := SwissRound(tc.entrants, tc.games, tc.byes, tc.round)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pairs, tc.want) || bye != tc.bye {
				t.Errorf("pairs %v bye %q, want %v bye %q", pairs, bye, tc.want, tc.bye)
			}
			e := &event{entrants: tc.entrants, games: tc.games, byes: tc.byes}
			checkRound(t, e, tc.round, pairs, bye, 1)
		})
	}
}

func TestSwissRoundErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		entrants []Entrant
		games    []Game
		byes     []string
		round    int
		want     error
	}{
		{"round 0", players("a", "b"), nil, nil, 0, ErrBadInput},
		{"two entrants one id", players("a", "a"), nil, nil, 1, ErrBadInput},
		{"an entrant without id", players("a", ""), nil, nil, 1, ErrBadInput},
		{"a game of a stranger", players("a", "b"), []Game{game(1, "a", "z", Draw)}, nil, 2, ErrBadInput},
		{"a game against oneself", players("a", "b"), []Game{game(1, "a", "a", Draw)}, nil, 2, ErrBadInput},
		{"a bye of a stranger", players("a", "b", "c"), []Game{game(1, "a", "b", Draw)}, []string{"z"}, 2, ErrBadInput},
		{"two who have met", players("a", "b"), []Game{game(1, "a", "b", Draw)}, nil, 2, ErrNoPairing},
		{"everyone has had a bye", players("a"), nil, []string{"a"}, 2, ErrNoPairing},
		{"one has met all 63 others", ring(64), metAll(64), nil, 2, ErrNoPairing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, bye, err := SwissRound(tc.entrants, tc.games, tc.byes, tc.round)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v (pairs %v, bye %q)", err, tc.want, pairs, bye)
			}
		})
	}
}

// TestSwissSeatFallback: a and b are one South up and have met both c
// and d, who are one North up: only a-b and c-d are left, which puts one
// of each pair two seats off. The pairing says so by keeping ±2, the
// least it can.
func TestSwissSeatFallback(t *testing.T) {
	es := append(players("a", "b", "c", "d"), withdrawn("w1", "w2", "w3", "w4")...)
	games := []Game{
		game(1, "a", "c", Draw), game(1, "b", "d", Draw),
		game(2, "d", "a", Draw), game(2, "c", "b", Draw),
		game(3, "a", "w1", Draw), game(3, "b", "w2", Draw), game(3, "w3", "c", Draw), game(3, "w4", "d", Draw),
	}
	e := &event{entrants: es, games: games}
	if anyPairing(e, 4, 1) {
		t.Fatal("the test's event has a pairing within ±1")
	}
	pairs, _, limit, err := swissRound(es, games, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if limit != 2 {
		t.Errorf("seat limit ±%d, want ±2", limit)
	}
	if want := []Pair{{"b", "a"}, {"c", "d"}}; !slices.Equal(pairs, want) {
		t.Errorf("pairs %v, want %v", pairs, want)
	}
	checkRound(t, e, 4, pairs, "", 2)
}

func TestSwissDeterministic(t *testing.T) {
	e := newEvent(40, 7)
	// Entrants in another order must not change the pairing either.
	shuffled := slices.Clone(e.entrants)
	slices.Reverse(shuffled)
	a, byeA, errA := SwissRound(e.entrants, nil, nil, 1)
	b, byeB, errB := SwissRound(shuffled, nil, nil, 1)
	if errA != nil || errB != nil || !slices.Equal(a, b) || byeA != byeB {
		t.Errorf("the same event paired two ways: %v %v / %v %v (%v %v)", a, byeA, b, byeB, errA, errB)
	}
}
