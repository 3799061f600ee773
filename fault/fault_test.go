package fault_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

var (
	errGone  = fault.New(fault.NotFound, "thing_not_found", "No such thing", "no such thing")
	errSlow  = fault.NewRetry(fault.Busy, 2*time.Second, "thing_busy", "Thing busy", "the thing is busy")
	errPlain = errors.New("not declared")
)

// Of finds the declared failure an error wraps, however deep, and the
// first one when it wraps several: the outer one, then those it wraps in
// order, as errors.As walks them.
func TestOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want error // nil: none
	}{
		{"the sentinel itself", errGone, errGone},
		{"wrapped", fmt.Errorf("thing 7: %w", errGone), errGone},
		{"wrapped twice", fmt.Errorf("lookup: %w", fmt.Errorf("thing 7: %w", errSlow)), errSlow},
		{"first of two", fmt.Errorf("%w: %w", errSlow, errGone), errSlow},
		{"after a plain error", errors.Join(errPlain, errGone), errGone},
		{"a store's outage", fmt.Errorf("dial: %w", fault.ErrUnavailable), fault.ErrUnavailable},
		{"not declared", fmt.Errorf("x: %w", errPlain), nil},
		{"nil", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := fault.Of(tt.err)
			if ok != (tt.want != nil) || (ok && error(got) != tt.want) {
				t.Fatalf("Of(%v) = %v, %v; want %v", tt.err, got, ok, tt.want)
			}
			if ok && !errors.Is(tt.err, tt.want) {
				t.Errorf("errors.Is(%v, %v) is false", tt.err, tt.want)
			}
		})
	}
}

// A declaration keeps what it was given, and its text is the error's
// message: nothing is added to it.
func TestDeclaration(t *testing.T) {
	for _, tt := range []struct {
		err               error
		kind              fault.Kind
		code, title, text string
		wait              time.Duration
	}{
		{errGone, fault.NotFound, "thing_not_found", "No such thing", "no such thing", 0},
		{errSlow, fault.Busy, "thing_busy", "Thing busy", "the thing is busy", 2 * time.Second},
		{fault.ErrUnavailable, fault.Unavailable, "store_unavailable", "Database unavailable", "the database is unavailable", 0},
		{fault.ErrStorageFull, fault.Full, "storage_full", "Database storage full", "the database's storage is full", 0},
		{fault.ErrOutcomeUnknown, fault.Uncertain, "store_unavailable", "Database unavailable", "the write may or may not have been stored", 0},
	} {
		t.Run(tt.code+"/"+tt.kind.String(), func(t *testing.T) {
			e, ok := fault.Of(tt.err)
			if !ok {
				t.Fatalf("%v is no declared failure", tt.err)
			}
			if e.Kind() != tt.kind || e.Code() != tt.code || e.Title() != tt.title || e.Error() != tt.text || e.Wait() != tt.wait {
				t.Errorf("%v: kind %v code %q title %q text %q wait %v", tt.err, e.Kind(), e.Code(), e.Title(), e.Error(), e.Wait())
			}
		})
	}
}

// A write whose outcome is unknown is an outage too, and matches as one;
// an outage is not an unknown outcome, and a full disk is neither.
func TestStoreFailures(t *testing.T) {
	uncertain := fmt.Errorf("commit: unexpected EOF: %w", fault.ErrOutcomeUnknown)
	if !errors.Is(uncertain, fault.ErrUnavailable) || !errors.Is(uncertain, fault.ErrOutcomeUnknown) {
		t.Errorf("an unknown outcome is not both failures")
	}
	if e, _ := fault.Of(uncertain); e.Kind() != fault.Uncertain {
		t.Errorf("an unknown outcome answers as %v, want uncertain", e.Kind())
	}
	if errors.Is(fault.ErrUnavailable, fault.ErrOutcomeUnknown) {
		t.Errorf("every outage is an unknown outcome")
	}
	if errors.Is(fault.ErrStorageFull, fault.ErrUnavailable) || errors.Is(fault.ErrUnavailable, fault.ErrStorageFull) {
		t.Errorf("a full disk and an outage match each other")
	}
}

// Each kind has a name of its own, the zero kind is the server's fault,
// and a kind beyond the list still prints.
func TestKinds(t *testing.T) {
	var zero fault.Kind
	if zero != fault.Internal {
		t.Errorf("the zero kind is %v, want internal", zero)
	}
	var names []string
	for _, k := range fault.Kinds() {
		if n := k.String(); n == "" || slices.Contains(names, n) {
			t.Errorf("kind %d is named %q, empty or taken", k, n)
		} else {
			names = append(names, n)
		}
	}
	if len(names) != int(fault.Full)+1 {
		t.Errorf("Kinds lists %d kinds, want %d", len(names), fault.Full+1)
	}
	if got := fault.Kind(200).String(); got != "kind(200)" {
		t.Errorf("an unknown kind prints %q", got)
	}
}
