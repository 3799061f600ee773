package record

import (
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// randomGame plays legal moves picked by rng until the game ends or plies
// run out, and writes the record as an exporter would: captures, clocks,
// and the tags of the end.
func randomGame(t testing.TB, rng *rand.Rand, start engine.Position, rules engine.Rules, plies int) *Record {
	t.Helper()
	g, err := engine.NewGame(start, rules)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Record{Tags: []Tag{{TagEvent, "Casual game"}, {TagSite, "/v1/games/x"}, {TagDate, "2026.12.03"},
		{TagSouth, `Ada "the" \ Lovelace`}, {TagNorth, "?"}, {TagTimeControl, "300+5"}, {TagRules, RulesTag(rules)}}}
	if start != engine.Start() {
		rec.Set(TagStart, start.String())
	}
	var out engine.Outcome
	left := [2]time.Duration{5 * time.Minute, 5 * time.Minute}
	for range plies {
		if g.Result().Over() {
			break
		}
		var legal []int
		p := g.Position()
		for pit := range engine.NumPits {
			engine.Play(p, pit, rules, &out)
			if out.Legal() {
				legal = append(legal, pit)
			}
		}
		pit := legal[rng.IntN(len(legal))]
		if err := g.Play(pit, &out); err != nil {
			t.Fatal(err)
		}
		took := time.Duration(rng.IntN(20000)) * time.Millisecond
		left[p.ToMove] += 5*time.Second - took
		m := Move{Pit: pit, Captured: int(out.Capture.Seeds), Elapsed: took, HasElapsed: true, Clock: left[p.ToMove], HasClock: true}
		if rng.IntN(5) == 0 {
			m.Comment = "a comment, with words"
		}
		rec.Moves = append(rec.Moves, m)
	}
	if r := g.Result(); r.Over() {
		rec.Set(TagTermination, TermNormal)
		rec.Set(TagWinner, r.Winner.String())
		rec.Set(TagResult, ResultTag(g.Position()))
	} else {
		rec.Set(TagResult, Unfinished)
	}
	return rec
}

// TestRoundTrip: export, import and export again give the same text, and
// the import is the record exported, for random games played to the end
// or stopped in play, from the start and from positions found on the way.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		start := engine.Start()
		rules := engine.Rules{CaptureSeed: engine.CaptureSeed(i % 2), Leftovers: engine.Leftovers(i / 2 % 2)}
		if i%3 == 1 {
			// A start position with North to move: the numbering begins "1...".
			pre := randomGame(t, rng, start, rules, 1+2*rng.IntN(10))
			rp, err := Check(pre)
			if err != nil || rp.Game.Result().Over() {
				continue
			}
			start = rp.Game.Position()
		}
		rec := randomGame(t, rng, start, rules, []int{5, 40, 1000}[i%3])
		text := rec.String()
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("game %d: %v\n%s", i, err, text)
		}
		if again := back.String(); again != text {
			t.Fatalf("game %d: export, import, export differ:\n%s\n----\n%s", i, text, again)
		}
		if _, err := Check(back); err != nil {
			t.Fatalf("game %d: %v\n%s", i, err, text)
		}
		if len(back.Moves) != len(rec.Moves) {
			t.Fatalf("game %d: %d moves back, %d exported", i, len(back.Moves), len(rec.Moves))
		}
		for j := range rec.Moves {
			w := rec.Moves[j]
			w.Clock = w.Clock.Truncate(time.Millisecond)
			if back.Moves[j] != w {
				t.Fatalf("game %d, ply %d: %+v back, %+v exported", i, j, back.Moves[j], w)
			}
		}
	}
}

// TestGolden: each testdata/*.ayo file is a record in the export form:
// read and written again it is the same text, and its check's outcome is
// testdata/*.check.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.ayo")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden records: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := Parse(string(data))
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.String(); got != string(data) {
				t.Errorf("written again:\n%s\nwant:\n%s", got, data)
			}
			got := "ok\n"
			rp, err := Check(rec)
			switch {
			case err != nil:
				got = "error: " + err.Error() + "\n"
			case rp.Illegal != nil:
				got = "illegal: move " + rp.Illegal.Name + " " + string(PitLetter(rp.Illegal.Pit)) + ": " + rp.Illegal.Reason.String() + "\n"
			default:
				got += "position " + rp.Game.Position().String() + "\n"
			}
			golden := strings.TrimSuffix(f, ".ayo") + ".check"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("check: %s want %s", got, want)
			}
		})
	}
}

// TestParseErrors: every error names its line and, in the movetext, the
// move, and says what is wrong.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown pit letter", "1. c F 2. g", `line 1, move 2.: "g": unknown pit letter 'g'`},
		{"North's letter", "1. c G", `line 1, move 1...: "G": unknown pit letter 'G'`},
		{"move number out of turn", "1. c F 3. a", `line 1, move 2.: move number "3." out of turn`},
		{"broken tag", "[Event \"x\"\n\n1. a", `line 1: a tag ends with ] on its line`},
		{"unquoted tag", "[Event x]\n", `line 1: tag Event: the value goes in double quotes`},
		{"tag twice", "[Event \"x\"]\n[Event \"y\"]\n", `line 2: tag Event given twice`},
		{"bad result tag", "[Result \"1-0-0\"]\n", `line 1: tag Result: "1-0-0": want *`},
		{"bad termination", "[Termination \"rain\"]\n", `line 1: tag Termination: "rain": want normal`},
		{"bad start", "[Start \"s-444444-444444-0-1\"]\n", `line 1: tag Start:`},
		{"bad rules", "[Rules \"captureSeed=eaten\"]\n", `line 1: tag Rules:`},
		{"tag after moves", "1. a\n[Event \"x\"]\n", `line 2, move 1...: a tag after the moves`},
		{"comment first", "{hello} 1. a", `line 1, move 1.: a comment follows a move`},
		{"open comment", "1. a {hello\n2. b", `line 1, move 1.: a comment opened with { has no }`},
		{"bad clock", "1. a {[%clk 5:00]}", `line 1, move 1.: clock "5:00"`},
		{"bad capture", "1. ax0", `line 1, move 1.: "ax0": after the pit letter`},
		{"text after result", "1. a *\n2. b", `line 2: text after the result *`},
		{"result differs", "[Result \"*\"]\n\n1. a 25-23", `movetext ends with 25-23, the Result tag says *`},
		{"North first", "[Start \"n-444444-444444-0-0\"]\n\n1... A 1... a", `line 3, move 2.: move number "1." out of turn`},
		{"not utf-8", "[Event \"\xff\"]", `the text is not valid UTF-8`},
		{"comments too long", "1. a " + strings.Repeat("{a comment of twenty} ", 200), `line 1, move 1.: the comments of one move are longer than 2000 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v, want ErrSyntax", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestCheck: what a record states against what its moves do.
func TestCheck(t *testing.T) {
	tests := []struct {
		name, text, want string // want: "" for no error, "illegal ..." for an illegal move
	}{
		{"bare moves", "1. cx7 A", ""},
		{"empty pit", "1. c A 2. e", "illegal 2. e: empty_pit"},
		{"not your pit", "1. a b", "illegal 1... b: not_your_pit"},
		{"wrong capture", "1. ex3", "move 1. e captures 0 seeds, the record says 3"},
		{"resigned without winner", "[Termination \"resignation\"]\n[Result \"0-0\"]\n\n1. e", "needs a Winner tag"},
		{"resigned", "[Termination \"resignation\"]\n[Winner \"north\"]\n[Result \"0-0\"]\n\n1. e", ""},
		{"wrong captures at the end", "[Termination \"agreement\"]\n[Result \"2-0\"]\n\n1. e", "the moves leave the captures at 0-0"},
		{"result without end", "[Result \"0-0\"]\n\n1. e", "a Termination tag says how it ended"},
		{"winner in play", "[Winner \"south\"]\n\n1. c", "a Winner tag, but the game has not ended"},
		{"abandoned", "[Termination \"abandoned\"]\n\n1. c *", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			rp, err := Check(rec)
			got := ""
			switch {
			case err != nil:
				if !errors.Is(err, ErrMismatch) {
					t.Errorf("error %v does not wrap ErrMismatch", err)
				}
				got = err.Error()
			case rp.Illegal != nil:
				got = "illegal " + rp.Illegal.Name + " " + string(PitLetter(rp.Illegal.Pit)) + ": " + rp.Illegal.Reason.String()
			}
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzParse: no text makes Parse panic or loop; what it reads, written and
// read again, is written the same (the export form is a fixed point), and
// Check never panics on it.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ayo")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, s := range []string{"", "1. a", "1... A", "[Start \"n-444444-444444-0-0\"]\n\n1... A {[%clk 0:00:01.5] hi} 2. b *",
		"1. ax2 {[%emt 1:00:00] [%foo x]} B 25-23", "{", "[", "[A \"\\\"\"]", "1.a 1...B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rec, err := Parse(text)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		out := rec.String()
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("the export of a record does not read: %v\n%s", err, out)
		}
		if again := back.String(); again != out {
			t.Fatalf("export, import, export differ:\n%s\n----\n%s", out, again)
		}
		_, _ = Check(back)
	})
}
