package pairing

import (
	"cmp"
	"fmt"
	"slices"
)

// Game is one game of a Swiss event (or, with Round 0, any game).
type Game struct {
	Round        int // 1-based for Swiss; 0 for arena
	South, North string
	Done         bool // false: still being played; it scores nothing
	Outcome      Outcome
}

// Entrant is a player entered in a Swiss event.
type Entrant struct {
	ID     string
	Rating float64 // at entry: orders players of equal points (higher first, then by ID)
	// Withdrawn players are not paired any more but keep their place in the
	// standings.
	Withdrawn bool
	// JoinedRound is the first round the player can be paired in (0 counts
	// as 1); the rounds before it score nothing and give no bye.
	JoinedRound int
}

// The search's bounds. They are counted in steps, not time, so that a
// pairing is the same on every machine; they are far above what events of
// a few thousand players need (see BenchmarkSwissRound) and only stop the
// search of an event that has run out of legal pairings.
const (
	roundBudget    = 5_000_000 // steps of pairing a round under one seat limit
	bracketBudget  = 200_000   // steps of one bracket's search
	completeBudget = 20_000    // steps of one check that the players below can all be paired
)

// swissPlayer is an entrant as the pairing of one round sees them.
type swissPlayer struct {
	id     string
	rating float64
	points int
	diff   int    // Souths minus Norths, games still running included
	seats  []Seat // in round order
	opps   []int  // indices of the players met (a handful: a linear scan is fastest)
	byes   int
	active bool
}

// SwissRound pairs round `round` (1-based) of a Swiss event. games holds
// the games of the earlier rounds, byes the player given the bye in each
// earlier round (byes[r-1], "" if none). It returns the pairs, in board
// order, and the player given the bye ("" when the active entrants are
// even). The method is the package's documentation; the same input always
// gives the same answer.
func SwissRound(entrants []Entrant, games []Game, byes []string, round int) (pairs []Pair, bye string, err error) {
	pairs, bye, _, err = swissRound(entrants, games, byes, round)
	return pairs, bye, err
}

// swissRound is SwissRound that also tells the seat limit the pairing
// kept (1, or 2 when no pairing within ±1 existed), for the tests.
func swissRound(entrants []Entrant, games []Game, byes []string, round int) ([]Pair, string, int, error) {
	if round < 1 {
		return nil, "", 0, fmt.Errorf("%w: round %d", ErrBadInput, round)
	}
	ps, err := swissState(entrants, games, byes, round)
	if err != nil {
		return nil, "", 0, err
	}
	var order []int
	for i := range ps {
		if ps[i].active {
			order = append(order, i)
		}
	}
	sortOrder(ps, order)
	for limit := 1; limit <= 2; limit++ {
		s := &search{ps: ps, limit: limit}
		pairs, bye, ok := s.round(order)
		if ok {
			return s.seat(pairs, order), byeID(ps, bye), limit, nil
		}
	}
	return nil, "", 0, ErrNoPairing
}

func byeID(ps []swissPlayer, bye int) string {
	if bye < 0 {
		return ""
	}
	return ps[bye].id
}

func sortOrder(ps []swissPlayer, order []int) {
	slices.SortStableFunc(order, func(a, b int) int { return rankOrder(&ps[a], &ps[b]) })
}

// rankOrder is the pairing's order: points, then rating, then id.
func rankOrder(a, b *swissPlayer) int {
	if c := cmp.Compare(b.points, a.points); c != 0 {
		return c
	}
	if c := cmp.Compare(b.rating, a.rating); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// swissState replays the history into each entrant's points, seats,
// opponents and byes.
func swissState(entrants []Entrant, games []Game, byes []string, round int) ([]swissPlayer, error) {
	ps := make([]swissPlayer, len(entrants))
	index := make(map[string]int, len(entrants))
	for i, e := range entrants {
		if e.ID == "" {
			return nil, fmt.Errorf("%w: entrant %d has no id", ErrBadInput, i)
		}
		if _, dup := index[e.ID]; dup {
			return nil, fmt.Errorf("%w: entrant %q twice", ErrBadInput, e.ID)
		}
		index[e.ID] = i
		ps[i] = swissPlayer{id: e.ID, rating: e.Rating, active: !e.Withdrawn && max(e.JoinedRound, 1) <= round}
	}
	// The games' seats must be in round order for the alternation rule;
	// callers pass them so, and a stable sort keeps a careless caller right.
	sorted := slices.Clone(games)
	slices.SortStableFunc(sorted, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	for _, g := range sorted {
		s, okS := index[g.South]
		n, okN := index[g.North]
		if !okS || !okN || s == n {
			return nil, fmt.Errorf("%w: game %q-%q", ErrBadInput, g.South, g.North)
		}
		// A game still running is a meeting and a seat taken already: only
		// its points are still to come.
		ps[s].opps = append(ps[s].opps, n)
		ps[n].opps = append(ps[n].opps, s)
		ps[s].seats = append(ps[s].seats, South)
		ps[n].seats = append(ps[n].seats, North)
		ps[s].diff++
		ps[n].diff--
		if g.Done {
			ps[s].points += southPoints(g.Outcome)
			ps[n].points += winPoints - southPoints(g.Outcome)
		}
	}
	for r, id := range byes {
		if id == "" || r >= round-1 {
			continue
		}
		i, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("%w: bye %q", ErrBadInput, id)
		}
		ps[i].byes++
		ps[i].points += winPoints
	}
	return ps, nil
}

// southPoints is what South scores of a finished game.
func southPoints(o Outcome) int {
	switch o {
	case SouthWins:
		return winPoints
	case Draw:
		return drawPoints
	}
	return 0
}

// search is one attempt at pairing a round under one seat limit.
type search struct {
	ps    []swissPlayer
	limit int // |Souths - Norths| allowed after the round
	steps int // taken so far, against the budgets
	// paired marks players already given a partner in this round's search,
	// or the bye; it is shared by the brackets and the completion checks,
	// which undo what they mark.
	paired []bool
}

func (s *search) met(a, b int) bool {
	pa, pb := &s.ps[a], &s.ps[b]
	if len(pa.opps) > len(pb.opps) {
		pa, b = pb, a
	}
	return slices.Contains(pa.opps, b)
}

// seatable: some seating of a and b keeps both within the limit.
func (s *search) seatable(a, b int) bool {
	da, db := s.ps[a].diff, s.ps[b].diff
	l := s.limit
	return (abs(da+1) <= l && abs(db-1) <= l) || (abs(da-1) <= l && abs(db+1) <= l)
}

func (s *search) legal(a, b int) bool { return s.seatable(a, b) && !s.met(a, b) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// round pairs the ranked active players: it picks the bye, then pairs
// the rest bracket by bracket.
func (s *search) round(order []int) (pairs [][2]int, bye int, ok bool) {
	s.paired = make([]bool, len(s.ps))
	if len(order)%2 == 0 {
		pairs, ok = s.brackets(order)
		return pairs, -1, ok
	}
	// The bye goes to the lowest ranked player who has had none and
	// without whom the others can all be paired.
	for k := len(order) - 1; k >= 0; k-- {
		c := order[k]
		if s.ps[c].byes > 0 {
			continue
		}
		rest := slices.Delete(slices.Clone(order), k, k+1)
		if !s.completable(rest) {
			continue
		}
		if pairs, ok := s.brackets(rest); ok {
			return pairs, c, true
		}
	}
	return nil, -1, false
}

// brackets pairs the ranked players score group by score group, from the
// top: each bracket is the players floated down from above and the group's
// own. A bracket that cannot be paired with the players below it still
// pairable is merged into the bracket above, which is paired again (the
// Dutch system's collapsed last bracket, taken upward as far as needed).
func (s *search) brackets(order []int) ([][2]int, bool) {
	// A failed attempt with another bye must leave nobody marked.
	clear(s.paired)
	var groups [][]int
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && s.ps[order[j]].points == s.ps[order[i]].points {
			j++
		}
		groups = append(groups, order[i:j:j])
		i = j
	}
	// Per bracket paired so far: its pairs and the floaters it received,
	// to start it again when the bracket below collapses into it.
	type done struct {
		pairs    [][2]int
		floaters []int
	}
	var stack []done
	var floaters []int
	for k := 0; k < len(groups); {
		var lower []int
		for _, g := range groups[k+1:] {
			lower = append(lower, g...)
		}
		pairs, down, ok := s.bracket(floaters, groups[k], lower)
		if ok {
			stack = append(stack, done{pairs, floaters})
			floaters = down
			k++
			continue
		}
		if k == 0 {
			return nil, false
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range top.pairs {
			s.paired[p[0]], s.paired[p[1]] = false, false
		}
		merged := append(slices.Clone(groups[k-1]), groups[k]...)
		groups = slices.Replace(groups, k-1, k+1, merged)
		floaters = top.floaters
		k--
	}
	var all [][2]int
	for _, d := range stack {
		all = append(all, d.pairs...)
	}
	return all, len(floaters) == 0
}

// class sorts a player by the seat the limit leaves them: 1 if only North
// keeps them within it, 2 if only South, 0 if either. Two players of the
// same forced class cannot meet, which makes pairing a round largely a
// matter of counting: see maxPairs.
func (s *search) class(p int) int {
	switch d := s.ps[p].diff; {
	case d >= s.limit:
		return 1
	case d <= -s.limit:
		return 2
	}
	return 0
}

// maxPairs is the most pairs players in these classes could form if
// nobody had met yet: the forced North players only meet forced South or
// free ones, and the other way round. It bounds every search below, which
// without it would try each of the many ways to pair a bracket whose seats
// cannot balance.
func maxPairs(c [3]int) int {
	free, north, south := c[0], c[1], c[2]
	switch {
	case north > south+free:
		return south + free
	case south > north+free:
		return north + free
	}
	return (free + north + south) / 2
}

// bracket pairs one bracket: the floaters from above, then the group's
// residents, all in rank order. It makes as many pairs as it can: for each
// number of pairs, most first, it chooses who floats down to the next
// bracket, the lowest ranked first, and keeps the first choice that leaves
// the players below (those floaters and lower) pairable and the bracket
// itself pairable. The bracket is then paired as pairWithin says. In the
// last bracket (lower empty) nobody may float.
func (s *search) bracket(floaters, residents, lower []int) (pairs [][2]int, down []int, ok bool) {
	start := s.steps
	out := func() bool { return s.steps-start > bracketBudget || s.steps > roundBudget }
	last := len(lower) == 0
	all := append(slices.Clone(floaters), residents...)
	n := len(all)
	if last && n%2 != 0 {
		return nil, nil, false
	}
	var c [3]int
	for _, p := range all {
		c[s.class(p)]++
	}
	minP := 0
	if last {
		minP = n / 2
	}
	// prefix[i] counts the classes of all[:i], the players a choice of
	// floaters can still take once it has passed all[i:] by.
	prefix := make([][3]int, n+1)
	for i, x := range all {
		prefix[i+1] = prefix[i]
		prefix[i+1][s.class(x)]++
	}
	var result [][2]int
	var resultDown []int
	// try is one choice of floaters (in rank order), taken if the players
	// below and the bracket can be paired with it.
	try := func(down []int, stay [3]int, p int) bool {
		if !last && !s.completable(append(slices.Clone(down), lower...)) {
			return false
		}
		for _, d := range down {
			s.paired[d] = true
		}
		pairs, ok := s.pairWithin(all, len(floaters), p, stay, start)
		for _, d := range down {
			s.paired[d] = false
		}
		if ok {
			result, resultDown = pairs, slices.Clone(down)
		}
		return ok
	}
	// choose picks r more floaters among all[:pos+1], the lowest first,
	// skipping every choice after which the seats of those who stay could
	// not balance; picked holds the floaters so far, lowest first.
	var choose func(pos, r int, picked []int, stay [3]int, p int) bool
	choose = func(pos, r int, picked []int, stay [3]int, p int) bool {
		s.steps++
		if out() || !canBalance(stay, r, prefix[pos+1]) {
			return false
		}
		if r == 0 {
			down := slices.Clone(picked)
			slices.Reverse(down)
			return try(down, stay, p)
		}
		for i := pos; i >= r-1; i-- {
			st := stay
			st[s.class(all[i])]--
			if choose(i-1, r-1, append(picked, all[i]), st, p) {
				return true
			}
			if out() {
				return false
			}
		}
		return false
	}
	for p := min(n/2, maxPairs(c)); p >= minP; p-- {
		if choose(n-1, n-2*p, nil, c, p) {
			for _, pr := range result {
				s.paired[pr[0]], s.paired[pr[1]] = true, true
			}
			return result, resultDown, true
		}
		if out() {
			break
		}
	}
	return nil, nil, false
}

// canBalance tells whether taking r more players, of the classes counted
// in avail, out of those counted in stay can leave players whose seats
// balance (maxPairs pairs them all).
func canBalance(stay [3]int, r int, avail [3]int) bool {
	for dn := 0; dn <= min(r, avail[1]); dn++ {
		for ds := 0; ds <= min(r-dn, avail[2]); ds++ {
			dz := r - dn - ds
			if dz > avail[0] {
				continue
			}
			c := [3]int{stay[0] - dz, stay[1] - dn, stay[2] - ds}
			if c[0] >= 0 && c[1] >= 0 && c[2] >= 0 && 2*maxPairs(c) >= c[0]+c[1]+c[2] {
				return true
			}
		}
	}
	return false
}

// pairWithin pairs every player of the bracket not marked paired (the
// first mdps of them came from above) in p pairs, or fails: each floater
// from above, in rank order, meets the highest resident it may; the
// residents left are split into a top half S1 and a bottom half S2, and
// S1[i] meets S2[i], trying S2's transpositions first (in lexicographic
// order), then exchanges between S1 and S2. c counts the classes of the
// players to pair; start is the bracket's first step, for the budget.
func (s *search) pairWithin(all []int, mdps, p int, c [3]int, start int) ([][2]int, bool) {
	var rs []int // residents to pair
	var ms []int // floaters from above to pair
	for i, x := range all {
		if s.paired[x] {
			continue
		}
		if i < mdps {
			ms = append(ms, x)
		} else {
			rs = append(rs, x)
		}
	}
	pairs := make([][2]int, 0, p)
	var dfs func(mi int, rs []int, from int, c [3]int) bool
	// mi: the next floater from above to pair; then rs: the residents
	// they left, and from: every one of rs before it is paired already
	// (-1: rs still to be made).
	dfs = func(mi int, rs []int, from int, c [3]int) bool {
		s.steps++
		if s.steps-start > bracketBudget || s.steps > roundBudget {
			return false
		}
		if n := c[0] + c[1] + c[2]; maxPairs(c) < n/2 {
			return false
		}
		if mi < len(ms) {
			a := ms[mi]
			ca := c
			ca[s.class(a)]--
			for _, b := range rs {
				if s.paired[b] || !s.legal(a, b) {
					continue
				}
				s.paired[b] = true
				cb := ca
				cb[s.class(b)]--
				pairs = append(pairs, [2]int{a, b})
				ok := dfs(mi+1, rs, -1, cb)
				s.paired[b] = false
				if ok {
					return true
				}
				pairs = pairs[:len(pairs)-1]
			}
			return false
		}
		// The residents' halves are those of the residents the floaters
		// left: S1 the first half of them.
		if from < 0 {
			var left []int
			for _, r := range rs {
				if !s.paired[r] {
					left = append(left, r)
				}
			}
			rs, from = left, 0
		}
		x := -1
		for i := from; i < len(rs); i++ {
			if !s.paired[rs[i]] {
				x = i
				break
			}
		}
		if x < 0 {
			return true
		}
		half := len(rs) / 2
		a := rs[x]
		s.paired[a] = true
		ca := c
		ca[s.class(a)]--
		try := func(j int) bool {
			b := rs[j]
			if s.paired[b] || !s.legal(a, b) {
				return false
			}
			s.paired[b] = true
			cb := ca
			cb[s.class(b)]--
			pairs = append(pairs, [2]int{a, b})
			ok := dfs(mi, rs, x+1, cb)
			s.paired[b] = false
			if !ok {
				pairs = pairs[:len(pairs)-1]
			}
			return ok
		}
		ok := false
		for j := max(half, x+1); j < len(rs) && !ok; j++ {
			ok = try(j)
		}
		for j := x + 1; j < half && !ok; j++ {
			ok = try(j)
		}
		s.paired[a] = false
		return ok
	}
	if !dfs(0, rs, -1, c) {
		return nil, false
	}
	return pairs, true
}

// completable tells whether the ranked players (none of them paired yet)
// can all be paired with each other: a search in rank order, each player
// with the first one below it they may meet, cut short where the seats'
// classes cannot balance and bounded by completeBudget (past it the
// answer is no, and the caller tries its next choice).
func (s *search) completable(rest []int) bool {
	if len(rest)%2 != 0 {
		return false
	}
	var c [3]int
	for _, r := range rest {
		c[s.class(r)]++
	}
	start := s.steps
	var dfs func(from int, c [3]int) bool
	dfs = func(from int, c [3]int) bool {
		s.steps++
		if s.steps-start > completeBudget || s.steps > roundBudget {
			return false
		}
		x := -1
		for i := from; i < len(rest); i++ {
			if !s.paired[rest[i]] {
				x = i
				break
			}
		}
		if x < 0 {
			return true
		}
		if n := c[0] + c[1] + c[2]; maxPairs(c) < n/2 {
			return false
		}
		a := rest[x]
		s.paired[a] = true
		c[s.class(a)]--
		for _, b := range rest[x+1:] {
			if s.paired[b] || !s.legal(a, b) {
				continue
			}
			s.paired[b] = true
			cb := c
			cb[s.class(b)]--
			ok := dfs(x+1, cb)
			s.paired[b] = false
			if ok {
				s.paired[a] = false
				return true
			}
			if s.steps-start > completeBudget {
				break
			}
		}
		s.paired[a] = false
		return false
	}
	return dfs(0, c)
}

// seat orders the pairs by board (the rank of their higher ranked
// player) and seats each pair.
func (s *search) seat(pairs [][2]int, order []int) []Pair {
	pos := make([]int, len(s.ps))
	for i, p := range order {
		pos[p] = i
	}
	for i, p := range pairs {
		if pos[p[1]] < pos[p[0]] {
			pairs[i] = [2]int{p[1], p[0]}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return cmp.Compare(pos[a[0]], pos[b[0]]) })
	out := make([]Pair, len(pairs))
	for i, p := range pairs {
		south, north := s.seats(p[0], p[1], i+1)
		out[i] = Pair{South: s.ps[south].id, North: s.ps[north].id}
	}
	return out
}

// preference is the seat a player is due and how strongly: a player with
// more Souths than Norths is due North with the difference as strength
// (and the other way round); a balanced player is due the seat opposite
// their last one, with strength 0; a player with no game yet has none
// (ok false).
func (s *search) preference(p int) (seat Seat, strength int, ok bool) {
	pl := &s.ps[p]
	switch {
	case pl.diff > 0:
		return North, pl.diff, true
	case pl.diff < 0:
		return South, -pl.diff, true
	case len(pl.seats) > 0:
		return 1 - pl.seats[len(pl.seats)-1], 0, true
	}
	return South, 0, false
}

// seats gives the seats of a pair of the board (1-based), a ranked above
// b: both their due seats if they differ; else the one with the stronger
// due seat gets it; else the seats alternate from the latest game in
// which the two sat differently (going back game by game); else a gets
// their due seat. Two players with no game yet: a sits South on odd
// boards, North on even ones. A seating outside the limit is swapped (the
// pair is legal, so the other one is inside).
func (s *search) seats(a, b, board int) (south, north int) {
	sa, ka, oka := s.preference(a)
	sb, kb, okb := s.preference(b)
	aSouth := true
	switch {
	case !oka && !okb:
		aSouth = board%2 == 1
	case !oka:
		aSouth = sb == North
	case !okb || sa != sb:
		aSouth = sa == South
	case ka != kb:
		aSouth = (ka > kb) == (sa == South)
	default:
		aSouth = sa == South
		ha, hb := s.ps[a].seats, s.ps[b].seats
		for i := 1; i <= min(len(ha), len(hb)); i++ {
			if x, y := ha[len(ha)-i], hb[len(hb)-i]; x != y {
				aSouth = x == North
				break
			}
		}
	}
	if aSouth && !(abs(s.ps[a].diff+1) <= s.limit && abs(s.ps[b].diff-1) <= s.limit) {
		aSouth = false
	} else if !aSouth && !(abs(s.ps[a].diff-1) <= s.limit && abs(s.ps[b].diff+1) <= s.limit) {
		aSouth = true
	}
	if aSouth {
		return a, b
	}
	return b, a
}
