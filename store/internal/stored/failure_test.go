package stored

import (
	"errors"
	"testing"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
)

// TestFailuresNameAndCount: each kind of failure is the sentinel of
// package fault that says so, and still the driver's error; only a write that
// may have been stored is fault.ErrOutcomeUnknown; each is counted once.
func TestFailuresNameAndCount(t *testing.T) {
	driver := errors.New("driver says no")
	tests := []struct {
		name      string
		write     bool
		kind      Kind
		uncertain bool
		is        []error
		isNot     []error
		counts    FailureCounts
	}{
		{"not a failure", false, NotAFailure, false, nil,
			[]error{fault.ErrUnavailable, fault.ErrStorageFull, fault.ErrOutcomeUnknown}, FailureCounts{}},
		{"unavailable read", false, Unavailable, false, []error{fault.ErrUnavailable},
			[]error{fault.ErrStorageFull, fault.ErrOutcomeUnknown}, FailureCounts{Unavailable: 1}},
		{"full write", true, Full, false, []error{fault.ErrStorageFull},
			[]error{fault.ErrUnavailable, fault.ErrOutcomeUnknown}, FailureCounts{Full: 1}},
		{"write of unknown fate", true, Unavailable, true, []error{fault.ErrOutcomeUnknown, fault.ErrUnavailable},
			[]error{fault.ErrStorageFull}, FailureCounts{Unavailable: 1, Uncertain: 1}},
		{"a read is never of unknown fate", false, Unavailable, true, []error{fault.ErrUnavailable},
			[]error{fault.ErrOutcomeUnknown}, FailureCounts{Unavailable: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f Failures
			var err error
			if tc.write {
				err = f.Write(driver, tc.kind, tc.uncertain)
			} else {
				err = f.Read(driver, tc.kind)
			}
			if !errors.Is(err, driver) || err.Error() != driver.Error() {
				t.Errorf("%v is no longer the driver's error", err)
			}
			for _, want := range tc.is {
				if !errors.Is(err, want) {
					t.Errorf("%v is not %v", err, want)
				}
			}
			for _, not := range tc.isNot {
				if errors.Is(err, not) {
					t.Errorf("%v is %v", err, not)
				}
			}
			// Named again on its way out of another method: counted once.
			_ = f.Read(err, tc.kind)
			if got := f.Counts(); got != tc.counts {
				t.Errorf("counts %+v, want %+v", got, tc.counts)
			}
		})
	}
}

// TestWritesFailing: a write failed for the database's sake marks the
// store's writes failing until a probe made after it goes through; reads,
// other errors and writes that succeed leave the mark as it is (on a full
// disk a write that changes nothing commits while moves fail), and a probe
// clears only the mark it tested.
func TestWritesFailing(t *testing.T) {
	var f Failures
	var probed uint64 // the mark a probe started with
	steps := []struct {
		name    string
		do      func()
		failing bool
	}{
		{"fresh", func() {}, false},
		{"a conflict", func() { f.Write(games.ErrConflict, NotAFailure, false) }, false},
		{"a write that works", func() { f.Write(nil, NotAFailure, false) }, false},
		{"a full disk", func() { f.Write(errors.New("full"), Full, false) }, true},
		{"a read that works", func() { f.Read(nil, NotAFailure) }, true},
		{"a conflict still", func() { f.Write(games.ErrConflict, NotAFailure, false) }, true},
		{"a write that works still", func() { f.Write(nil, NotAFailure, false) }, true},
		{"a probe starts", func() { probed = f.Failing() }, true},
		{"a write fails during the probe", func() { f.Write(errors.New("full"), Full, false) }, true},
		{"the probe goes through", func() { f.Proved(probed) }, true},
		{"a probe after it goes through", func() { f.Proved(f.Failing()) }, false},
		{"unavailable", func() { f.Write(errors.New("refused"), Unavailable, false) }, true},
		{"a probe again", func() { f.Proved(f.Failing()) }, false},
	}
	for _, s := range steps {
		s.do()
		if got := f.WritesFailing(); got != s.failing {
			t.Fatalf("after %s: failing %v, want %v", s.name, got, s.failing)
		}
	}
}
