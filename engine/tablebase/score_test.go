package tablebase

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// trueGame solves the real game, majority stop included, by plain negamax
// over engine.Play, which alone decides how a game ends and what it scores:
// the final difference of captured seeds for the mover. A position whose
// game tree can come back to a position already on a line (a cycle, where
// the repetition convention decides) is marked cyclic and not solved.
type trueGame struct {
	rules  engine.Rules
	memo   map[engine.Position]int
	cyclic map[engine.Position]bool
	path   map[engine.Position]bool
	out    engine.Outcome
}

func newTrueGame(r engine.Rules) *trueGame {
	return &trueGame{rules: r, memo: map[engine.Position]int{}, cyclic: map[engine.Position]bool{}, path: map[engine.Position]bool{}}
}

// final returns the final difference of a finished game for side s.
func (g *trueGame) final(p engine.Position, s engine.Side) int {
	if p.MajorityResult().Over() {
		return p.Margin(s)
	}
	q := p.Settle(g.rules)
	return q.Margin(s)
}

// solve returns p's true score, or ok=false when p's tree has a cycle:
// then every position on the line to it has one too, and is marked so.
func (g *trueGame) solve(p engine.Position) (int, bool) {
	if v, ok := g.memo[p]; ok {
		return v, true
	}
	if g.cyclic[p] || g.path[p] {
		return 0, false
	}
	if p.Status(g.rules).Over() {
		v := g.final(p, p.ToMove)
		g.memo[p] = v
		return v, true
	}
	g.path[p] = true
	defer delete(g.path, p)
	best := -engine.SeedCount - 1
	for moves := p.LegalMoves(g.rules); moves != 0; {
		pit := moves.Next()
		v, ok := g.after(p, pit)
		if !ok {
			g.cyclic[p] = true
			return 0, false
		}
		best = max(best, v)
	}
	g.memo[p] = best
	return best, true
}

// after returns the true score of pit played in p, for p's mover.
func (g *trueGame) after(p engine.Position, pit int) (int, bool) {
	engine.Play(p, pit, g.rules, &g.out)
	if g.out.Result.Over() {
		return g.out.Position.Margin(p.ToMove), true
	}
	w, ok := g.solve(g.out.Position)
	return -w, ok
}

// scoreRef is the reference of the true scores with cycles: each level's
// real positions (board, captured counts, South to move), their moves
// played with engine.Play, and the game G(p) of the package documentation
// solved from its definition per threshold, one pair of splits at a time
// (a quiet move leads from the mover's split to the opponent's).
type scoreRef struct {
	rules engine.Rules
	score map[engine.Position]int // the value of G(p) at every position solved
}

// normal turns p so that South moves.
func normal(p engine.Position) engine.Position {
	if p.ToMove == engine.South {
		return p
	}
	return engine.Position{Pits: rotate(p.Pits), Captured: [2]uint8{p.Captured[1], p.Captured[0]}}
}

func realPosition(x [engine.NumPits]uint8, cm int) engine.Position {
	n := 0
	for _, v := range x {
		n += int(v)
	}
	return engine.Position{Pits: x, Captured: [2]uint8{uint8(cm), uint8(engine.SeedCount - n - cm)}}
}

// checkScores builds the reference level by level and checks tb's Score
// and MoveScores on every position of each level against it, and, where
// the game tree cannot repeat, against the plain negamax of tg.
func checkScores(t *testing.T, tb *Table, seeds int, tg *trueGame) (acyclic, cyclic int) {
	t.Helper()
	ref := &scoreRef{rules: tb.Rules(), score: map[engine.Position]int{}}
	var out engine.Outcome
	var buf []MoveValue
	for n := 0; n <= seeds; n++ {
		boards := refBoards(n)
		for j := 0; j <= n-j; j++ {
			// The component of splits j and n-j: its nodes, and the levelGame
			// of refLevel over them (values are final differences).
			var nodes []engine.Position
			index := map[engine.Position]int{}
			for _, cm := range []int{maxCaptured - n + j, maxCaptured - j} {
				for _, x := range boards {
					p := realPosition(x, cm)
					if _, ok := index[p]; !ok {
						index[p] = len(nodes)
						nodes = append(nodes, p)
					}
				}
			}
			l := &refLevel{boards: make([][engine.NumPits]uint8, len(nodes)), moves: make([][]refMove, len(nodes)), end: make([]int, len(nodes))}
			for i, p := range nodes {
				moves := p.LegalMoves(ref.rules)
				if moves == 0 {
					l.end[i] = tg.final(p, engine.South)
					continue
				}
				for pit := moves.Next(); pit >= 0; pit = moves.Next() {
					engine.Play(p, pit, ref.rules, &out)
					m := refMove{pit: pit, child: -1}
					switch {
					case out.Result.Over():
						m.exit = out.Position.Margin(engine.South)
					case out.Capture.Seeds > 0:
						m.exit = -ref.score[normal(out.Position)]
					default:
						m.child = index[normal(out.Position)]
					}
					l.moves[i] = append(l.moves[i], m)
				}
			}
			g := newLevelGame(l)
			// X's final difference lies within D-n..D+n, D its margin: the
			// thresholds of X's two splits.
			type thresholds struct {
				lo   int
				good [][]bool
				bad  [][]bool
			}
			var ths []thresholds
			for _, cm := range []int{maxCaptured - n + j, maxCaptured - j} {
				d := 2*cm - (engine.SeedCount - n)
				th := thresholds{lo: d - n}
				for v := d - n + 1; v <= d+n; v++ {
					th.good = append(th.good, g.attractor(0, func(xv int) bool { return xv >= v }))
					th.bad = append(th.bad, g.attractor(1, func(xv int) bool { return xv < v }))
				}
				ths = append(ths, th)
			}
			// value is G(p) from state, for X whose margin is d, anchored at s.
			value := func(state, d, anchor int) int {
				th := ths[0]
				if d != th.lo+n {
					th = ths[1]
				}
				v := th.lo
				for k := range th.good {
					t := th.lo + 1 + k
					if (anchor < t && th.good[k][state]) || (anchor >= t && !th.bad[k][state]) {
						v = t
					}
				}
				return v
			}
			for i, p := range nodes {
				d := p.Margin(engine.South)
				anchor := d + refSplit(p.Pits)
				want := value(i, d, anchor)
				ref.score[p] = want
				got, ok := tb.Score(&p)
				if !ok || got != want {
					t.Fatalf("%v: Score %d (%v), G(p) %d", p, got, ok, want)
				}
				buf, ok = tb.MoveScores(p, buf)
				if !ok || len(buf) != len(l.moves[i]) {
					t.Fatalf("%v: %d move scores (%v), %d legal moves", p, len(buf), ok, len(l.moves[i]))
				}
				best := -engine.SeedCount - 1
				for k, m := range l.moves[i] {
					w := m.exit
					if m.child >= 0 {
						w = value(g.size+m.child, d, anchor)
					}
					if buf[k].Pit != m.pit || buf[k].Value != w {
						t.Fatalf("%v: move %+v, G(p) after pit %d: %d", p, buf[k], m.pit, w)
					}
					best = max(best, w)
				}
				if len(buf) > 0 && best != got {
					t.Fatalf("%v: best move %d, score %d", p, best, got)
				}
				// The independent negamax, where no line can repeat.
				v, ok := tg.solve(p)
				if !ok {
					cyclic++
					continue
				}
				acyclic++
				if v != got {
					t.Fatalf("%v: Score %d, the real game %d", p, got, v)
				}
				for _, m := range buf {
					w, _ := tg.after(p, m.Pit)
					if w != m.Value {
						t.Fatalf("%v: pit %d scores %d, the real game %d", p, m.Pit, m.Value, w)
					}
				}
			}
		}
	}
	return acyclic, cyclic
}

// TestScoresAgainstRealGame checks the true scores of every position with
// up to 8 seeds on the board (6 under the race detector), every split of
// the captured seeds, under each rule combination: where the game tree
// cannot repeat, Score and every move's score against an exhaustive
// negamax of the real game (majority stop included); everywhere, against
// the cycle-scored game G(p) solved from its definition, as the board
// values are checked.
func TestScoresAgainstRealGame(t *testing.T) {
	seeds := smallSeeds()
	if testing.Short() {
		seeds = 6 // a tenth of the time
	}
	for _, rc := range allRules {
		t.Run(rc.name, func(t *testing.T) {
			tb := build(t, seeds, rc.rules)
			if tb.ScoreSeeds() != seeds {
				t.Fatalf("ScoreSeeds %d, want %d", tb.ScoreSeeds(), seeds)
			}
			acyclic, cyclic := checkScores(t, tb, seeds, newTrueGame(rc.rules))
			t.Logf("%d positions whose tree cannot repeat, %d with cycles", acyclic, cyclic)
			if acyclic == 0 || cyclic == 0 {
				t.Fatalf("a kind of position never seen: the test proves too little")
			}
		})
	}
}

// TestScoresDiffer: the board values and the true scores do differ, which
// is why the scores exist; and both give every position the same result.
func TestScoresDiffer(t *testing.T) {
	tb := build(t, 8, engine.Rules{})
	rng := rand.New(rand.NewPCG(3, 4))
	differ := 0
	for range 20_000 {
		n := rng.IntN(9)
		var x [engine.NumPits]uint8
		for range n {
			x[rng.IntN(engine.NumPits)]++
		}
		p := realPosition(x, maxCaptured-n+rng.IntN(n+1))
		if rng.IntN(2) == 1 {
			p.ToMove = engine.North
			p.Captured[0], p.Captured[1] = p.Captured[1], p.Captured[0]
		}
		v, ok1 := tb.Value(&p)
		s, ok2 := tb.Score(&p)
		if !ok1 || !ok2 {
			t.Fatalf("%v: not in the table", p)
		}
		if p.Margin(p.ToMove)+v != s {
			differ++
		}
		if w := Result(&p, v); int(w)-1 != sign(s) {
			t.Fatalf("%v: value %d gives %v, score %d", p, v, w, s)
		}
	}
	t.Logf("%d of 20000 scores differ from captured difference plus value", differ)
	if differ == 0 {
		t.Fatal("no score differs: the majority stop is not in the scores")
	}
	// Out of the section: a finished game, a board beyond S, a bad total.
	for _, p := range []engine.Position{
		{Pits: [12]uint8{1}, Captured: [2]uint8{25, 22}},
		{Pits: [12]uint8{9}, Captured: [2]uint8{20, 19}},
		{Pits: [12]uint8{1}, Captured: [2]uint8{20, 20}},
	} {
		if s, ok := tb.Score(&p); ok {
			t.Errorf("%v: score %d, ok", p, s)
		}
		if m, ok := tb.MoveScores(p, nil); ok || len(m) != 0 {
			t.Errorf("%v: move scores %v, ok", p, m)
		}
	}
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// TestResultOnly: a table built without scores, or read from a version 1
// file, answers results but no score, and says so.
func TestResultOnly(t *testing.T) {
	tb, err := BuildWith(t.Context(), 6, -1, engine.Rules{}, testWorkers, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := build(t, 6, engine.Rules{})
	if tb.ScoreSeeds() != -1 || tb.Checksum() != full.Checksum() {
		t.Fatalf("result-only table: S %d, checksum %08x, want -1 and %08x", tb.ScoreSeeds(), tb.Checksum(), full.Checksum())
	}
	p := realPosition([12]uint8{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 23)
	if _, ok := tb.Score(&p); ok {
		t.Fatal("a result-only table gives a score")
	}
	// A version 1 file: the same header and body, version 1.
	_, file := writeTable(t, tb)
	file[8] = versionOne
	putCRC(file[:headerSize])
	path := filepath.Join(t.TempDir(), "v1.ayotb")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if old.ScoreSeeds() != -1 || !bytes.Equal(old.body, full.body) {
		t.Fatalf("version 1 file: S %d", old.ScoreSeeds())
	}
	if v, ok := old.Value(&p); !ok || v != 2 {
		t.Fatalf("version 1 file: value %d, %v", v, ok)
	}
	// A version 1 file may not claim a score section.
	file[15] = 1
	putCRC(file[:headerSize])
	if _, err := load(file); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("version 1 with scores: %v", err)
	}
}

// putCRC rewrites a header's own checksum.
func putCRC(h []byte) {
	c := headerCRC(h)
	h[28], h[29], h[30], h[31] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
}

// TestScoreFileRoundTrip: a file keeps the scores, and Open refuses a
// score section that is damaged or holds bounds out of order.
func TestScoreFileRoundTrip(t *testing.T) {
	tb := build(t, 5, engine.Rules{Leftovers: engine.LeftoversSideOwner})
	path, file := writeTable(t, tb)
	got, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if got.ScoreSeeds() != 5 || !bytes.Equal(got.scores, tb.scores) || !slices.Equal(got.open, tb.open) {
		t.Fatalf("scores differ after the round trip: S %d", got.ScoreSeeds())
	}
	bad := bytes.Clone(file)
	bad[len(bad)-1] ^= 1
	if _, err := load(bad); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("flipped score bit: %v", err)
	}
	// A score beyond its level under matching checksums.
	bad = bytes.Clone(file)
	s := bad[headerSize+len(tb.body):]
	s[len(tb.scores)-1] = 11
	c := checksum(s)
	bad[216], bad[217], bad[218], bad[219] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
	putCRC(bad[:headerSize])
	if _, err := load(bad); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("a score beyond its level: %v", err)
	}
}
