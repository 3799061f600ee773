package gen

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// TestGeneratePractice: practice puzzles meet their filter, prove again
// (Verify and the naive solver), come from the practice side of the split
// and the seq's bucket, and are the same every time.
func TestGeneratePractice(t *testing.T) {
	tests := []struct {
		name string
		f    PracticeFilter
		seqs []uint64
	}{
		{"any", PracticeFilter{}, []uint64{0, 1, 1 << 40}},
		{"difficulty 1", PracticeFilter{Difficulty: 1}, []uint64{7}},
		{"difficulty 3", PracticeFilter{Difficulty: 3}, []uint64{7}},
		{"difficulty 5", PracticeFilter{Difficulty: 5}, []uint64{8}},
		{"win", PracticeFilter{Goal: GoalWin}, []uint64{3}},
		{"defend at 4", PracticeFilter{Difficulty: 4, Goal: GoalDefend}, []uint64{3}},
		{"sacrifice", PracticeFilter{Theme: "sacrifice"}, []uint64{11}},
		{"max_capture, long relay", PracticeFilter{Goal: GoalMaxCapture, Theme: "long_relay"}, []uint64{2}},
	}
	if testing.Short() || raceDetector {
		tests = tests[:2]
	}
	tb := testTable(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seq := range tt.seqs {
				pz, err := Practice(context.Background(), tb, Version, tt.f, seq)
				if err != nil {
					t.Fatalf("seq %d: %v", seq, err)
				}
				switch {
				case pz.ID != "" || !pz.Date.IsZero() || pz.Version != Version:
					t.Errorf("seq %d: id %q date %v version %d", seq, pz.ID, pz.Date, pz.Version)
				case tt.f.Difficulty != 0 && pz.Difficulty != tt.f.Difficulty,
					tt.f.Goal != "" && pz.Goal != tt.f.Goal,
					tt.f.Theme != "" && !slices.Contains(pz.Themes, tt.f.Theme):
					t.Errorf("seq %d: difficulty %d goal %s themes %v do not meet %+v", seq, pz.Difficulty, pz.Goal, pz.Themes, tt.f)
				case !PracticeSide(&pz.Position) || DrillBucket(&pz.Position) != int(seq%PracticeWindow):
					t.Errorf("seq %d: %s is outside the practice side or the seq's bucket", seq, pz.Position)
				}
				if err := Verify(tb, pz); err != nil {
					t.Errorf("seq %d: %v", seq, err)
				}
				for _, problem := range refProblems(pz) {
					t.Errorf("seq %d: %s", seq, problem)
				}
				again, err := Practice(context.Background(), tb, Version, tt.f, seq)
				if err != nil || !reflect.DeepEqual(pz, again) {
					t.Errorf("seq %d: a second generation differs (%v)", seq, err)
				}
			}
		})
	}
}

// TestGeneratePracticeRefuses: filters no puzzle can meet, and versions
// without a practice pool, are refused at once.
func TestGeneratePracticeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		version int
		f       PracticeFilter
		want    error
	}{
		{"defend at difficulty 1", Version, PracticeFilter{Difficulty: 1, Goal: GoalDefend}, ErrNoPuzzle},
		{"unknown theme", Version, PracticeFilter{Theme: "fork"}, ErrNoPuzzle},
		{"unknown goal", Version, PracticeFilter{Goal: "mate"}, ErrNoPuzzle},
		{"difficulty 6", Version, PracticeFilter{Difficulty: 6}, ErrNoPuzzle},
		{"negative difficulty", Version, PracticeFilter{Difficulty: -1}, ErrNoPuzzle},
		{"a greedy sacrifice", Version, PracticeFilter{Goal: GoalMaxCapture, Theme: "sacrifice"}, ErrNoPuzzle},
		{"a quiet max_capture", Version, PracticeFilter{Goal: GoalMaxCapture, Theme: "quiet_move"}, ErrNoPuzzle},
		{"a defend won by majority", Version, PracticeFilter{Goal: GoalDefend, Theme: "majority"}, ErrNoPuzzle},
		{"decoys at difficulty 2", Version, PracticeFilter{Difficulty: 2, Theme: "decoys"}, ErrNoPuzzle},
		{"a long relay at difficulty 1", Version, PracticeFilter{Difficulty: 1, Theme: "long_relay"}, ErrNoPuzzle},
		{"version 1", 1, PracticeFilter{}, ErrUnknownVersion},
		{"a future version", PracticeVersion + 1, PracticeFilter{}, ErrUnknownVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // a refusal decides before any search, and needs no table
			if _, err := Practice(ctx, nil, tt.version, tt.f, 0); !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
}

// TestGeneratePracticeV3: practice generator version 3 holds out for a
// non-greedy key from deepFrom: what it makes proves, meets its filter, is
// in its seq's bucket, is the same every time, and from difficulty 2 its
// key captures less than another move; where none can be asked for
// (difficulty 1, max_capture) it still makes puzzles. Seconds of search
// each: not in -short or under -race.
func TestGeneratePracticeV3(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("version 3 generations: seconds each")
	}
	tests := []struct {
		name      string
		f         PracticeFilter
		seq       uint64
		nonGreedy bool
	}{
		{"difficulty 3", PracticeFilter{Difficulty: 3}, 1, true},
		{"greed trap", PracticeFilter{Theme: "greed_trap"}, 1, true},
		{"difficulty 1", PracticeFilter{Difficulty: 1}, 0, false},
		{"max_capture", PracticeFilter{Goal: GoalMaxCapture}, 0, false},
	}
	tb := testTable(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			pz, err := Practice(ctx, tb, 3, tt.f, tt.seq)
			if err != nil {
				t.Fatal(err)
			}
			pz.ID = PracticeID{Version: 3, Filter: tt.f, Seq: tt.seq}.String()
			if err := VerifyPractice(tb, pz); err != nil {
				t.Fatal(err)
			}
			if tt.nonGreedy && !NonGreedy(pz) {
				t.Errorf("%s: a greedy key at difficulty %d", pz.ID, pz.Difficulty)
			}
			again, err := Practice(ctx, tb, 3, tt.f, tt.seq)
			again.ID = pz.ID
			if err != nil || !reflect.DeepEqual(pz, again) {
				t.Errorf("a second generation differs (%v)", err)
			}
		})
	}
}
