package httpx

import (
	"net/http"
	"time"
)

// Write deadlines of an event stream.
const (
	// SSEWriteTimeout bounds each write of an event stream, in place of the
	// server's write timeout, which counts from the start of the response
	// and would cut every stream.
	SSEWriteTimeout = 30 * time.Second
	// sseDeadlineSlack: a write may start with its deadline up to this much
	// nearer than SSEWriteTimeout. Moving the deadline updates a runtime
	// timer, which for 5,000 followers of a busy game was a sixth of the
	// server's time; a stream written to more often than this keeps the
	// deadline it has.
	sseDeadlineSlack = time.Second
)

// SSEWriter writes a Server-Sent Events stream's frames to its response.
// Frames are whole ("id: ...\ndata: ...\n\n"): what goes in them is the
// caller's.
type SSEWriter struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	deadline time.Time // the write deadline in force
	failed   bool      // a write failed: the client is gone or stalled
}

// NewSSEWriter writes to w, whose headers (Content-Type:
// text/event-stream and the status) the caller has written.
func NewSSEWriter(w http.ResponseWriter) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w)}
}

// Write writes a frame, which may wait in the response's buffer until
// Flush.
func (s *SSEWriter) Write(frame []byte) error {
	if now := time.Now(); s.deadline.Sub(now) < SSEWriteTimeout-sseDeadlineSlack {
		s.deadline = now.Add(SSEWriteTimeout)
		_ = s.rc.SetWriteDeadline(s.deadline)
	}
	_, err := s.w.Write(frame)
	return s.check(err)
}

// Flush sends what Write left in the buffer.
func (s *SSEWriter) Flush() error { return s.check(s.rc.Flush()) }

// Send writes a frame and flushes it.
func (s *SSEWriter) Send(frame []byte) error {
	if err := s.Write(frame); err != nil {
		return err
	}
	return s.Flush()
}

// Beat sends a comment line, which keeps an idle stream (and the proxies
// on its way) from timing out.
func (s *SSEWriter) Beat() error { return s.Send([]byte(": ping\n\n")) }

// Failed reports whether a write or a flush failed: the client is gone or
// stalled, and the stream's end is nobody's fault to log.
func (s *SSEWriter) Failed() bool { return s.failed }

func (s *SSEWriter) check(err error) error {
	if err != nil {
		s.failed = true
	}
	return err
}
