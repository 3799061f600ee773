package stored

import (
	"errors"
	"sync/atomic"

	"github.com/ayoayo/ayoayo/fault"
)

// Kind is what a driver's error means for the service. Each store reads its
// own driver's typed errors into one (never their text); the wrapping below
// is shared, so that both stores answer alike.
type Kind int

const (
	// NotAFailure: not the database's trouble (a constraint, a cancelled
	// request, a bug): the error goes on as it is.
	NotAFailure Kind = iota
	// Unavailable: the database did not answer, or cannot write at all
	// (refused, lost, starting up, shutting down, read-only).
	Unavailable
	// Full: no room left for the write.
	Full
)

// failure is a driver's error named by its store: it is still the
// driver's error (for the log, and errors.As) and also the failure of
// package fault that every domain's Store interface reports, so neither
// the domains nor the api package need to know the driver.
type failure struct {
	err   error
	marks []error // the driver's error, then the fault's sentinel
}

func (f *failure) Error() string   { return f.err.Error() }
func (f *failure) Unwrap() []error { return f.marks }

// name wraps err as a failure of kind; uncertain: a write the database may
// have stored before it went away.
func name(err error, kind Kind, uncertain bool) error {
	var mark error
	switch {
	case kind == Full:
		mark = fault.ErrStorageFull
	case kind == Unavailable && uncertain:
		mark = fault.ErrOutcomeUnknown // an ErrUnavailable too
	case kind == Unavailable:
		mark = fault.ErrUnavailable
	default:
		return err
	}
	return &failure{err: err, marks: []error{err, mark}}
}

// Failures counts a store's failures, for metrics, and remembers whether
// its writes fail, for readiness: on a full disk, or a file system turned
// read-only, reads go on working while every write fails, so only a write
// can tell when the store is whole again. Its methods are safe for
// concurrent use; the zero value is ready.
type Failures struct {
	unavailable, full, uncertain atomic.Uint64
	// failing is 0 while writes work, else the number of the latest write
	// that failed for the database's sake (from seq), so that a probe
	// clears only the mark it tested (see Proved).
	failing, seq atomic.Uint64
}

// FailureCounts are the failures a store has had since it opened.
type FailureCounts struct {
	Unavailable uint64 // the database did not answer
	Full        uint64 // a write found no room
	Uncertain   uint64 // of Unavailable, writes whose fate is unknown
}

// Read names a read's error (nil stays nil) and counts it.
func (f *Failures) Read(err error, kind Kind) error { return f.note(err, kind, false) }

// Write names a write's error and counts it. A write that failed for the
// database's sake marks the store's writes as failing; any other error (a
// conflict, say) leaves the mark as it is. So does a write that succeeded:
// on a full disk a write that changes nothing (a sweep that ends no game)
// commits without room, as does one small enough for the space the
// database holds already (a WAL a checkpoint emptied), while moves still
// fail. Only a write that needs new room, made to prove the store whole
// again, clears the mark: the readiness probe's (see Proved).
func (f *Failures) Write(err error, kind Kind, uncertain bool) error {
	if err != nil && kind != NotAFailure {
		f.failing.Store(f.seq.Add(1))
	}
	return f.note(err, kind, uncertain)
}

// Failing is the mark of the latest write that failed for the database's
// sake, or 0 when writes work: what a probe hands to Proved.
func (f *Failures) Failing() uint64 { return f.failing.Load() }

// Proved records that a probe write, made after the failure marked
// mark, went through: the store takes writes again. A write that failed
// meanwhile, during the probe, keeps its own mark.
func (f *Failures) Proved(mark uint64) { f.failing.CompareAndSwap(mark, 0) }

func (f *Failures) note(err error, kind Kind, uncertain bool) error {
	if err == nil || kind == NotAFailure {
		return err
	}
	// Named already, by a write inside a read (or the other way about):
	// counted once.
	if _, named := errors.AsType[*failure](err); named {
		return err
	}
	switch kind {
	case Full:
		f.full.Add(1)
	case Unavailable:
		f.unavailable.Add(1)
		if uncertain {
			f.uncertain.Add(1)
		}
	}
	return name(err, kind, uncertain)
}

// WritesFailing reports whether the latest write that failed for the
// database's sake has not been followed by a probe that went through.
func (f *Failures) WritesFailing() bool { return f.failing.Load() != 0 }

// Counts returns the failures so far.
func (f *Failures) Counts() FailureCounts {
	return FailureCounts{Unavailable: f.unavailable.Load(), Full: f.full.Load(), Uncertain: f.uncertain.Load()}
}
