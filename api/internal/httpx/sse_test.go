package httpx

import (
	"net/http/httptest"
	"testing"
	"time"
)

// deadlineRecorder is a ResponseWriter that records the write deadlines
// set through http.ResponseController and the flushes.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
	flushes   int
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.deadlines = append(d.deadlines, t)
	return nil
}

func (d *deadlineRecorder) FlushError() error {
	d.flushes++
	return nil
}

// TestSSEWriterDeadline: every write of an event stream starts with at
// least SSEWriteTimeout-sseDeadlineSlack before it is cut, yet writes
// close together move the deadline once; each batch is flushed once.
func TestSSEWriterDeadline(t *testing.T) {
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	out := NewSSEWriter(rec)
	start := time.Now()
	for _, frame := range []string{"a\n\n", "b\n\n"} {
		if err := out.Write([]byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Beat(); err != nil {
		t.Fatal(err)
	}
	if len(rec.deadlines) != 1 || rec.deadlines[0].Before(start.Add(SSEWriteTimeout)) {
		t.Fatalf("deadlines %v, want one at least %v after %v", rec.deadlines, SSEWriteTimeout, start)
	}
	if rec.flushes != 2 || rec.Body.String() != "a\n\nb\n\n: ping\n\n" {
		t.Fatalf("%d flushes of %q, want 2 of the two events and a ping", rec.flushes, rec.Body.String())
	}
	// A deadline that has come nearer than the slack allows is moved.
	out.deadline = time.Now().Add(SSEWriteTimeout - sseDeadlineSlack - time.Millisecond)
	before := time.Now()
	if err := out.Beat(); err != nil {
		t.Fatal(err)
	}
	if len(rec.deadlines) != 2 || rec.deadlines[1].Before(before.Add(SSEWriteTimeout)) {
		t.Fatalf("deadlines %v, want a second one at least %v after %v", rec.deadlines, SSEWriteTimeout, before)
	}
}
