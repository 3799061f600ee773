// Package progress draws the progress of a long command-line task, such as
// an endgame table build: a bar redrawn in place on a terminal, plain lines
// in a log.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Bar draws a long task's progress on w: one line redrawn in place on a
// terminal, or a plain line every tenth of the way otherwise (a log file).
type Bar struct {
	label string // starts each plain line
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time // last redraw on a terminal
	tenth int64     // tenths written as plain lines
	drawn bool
}

// New makes a bar for a task that started at start; label names it in the
// plain lines.
func New(w io.Writer, label string, start time.Time) *Bar {
	b := &Bar{w: w, label: label, start: start}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	return b
}

// Update shows that done of total are done.
func (b *Bar) Update(done, total int64) {
	if total <= 0 {
		return
	}
	elapsed := time.Since(b.start).Round(time.Second)
	if !b.tty {
		if t := done * 10 / total; t > b.tenth {
			b.tenth = t
			fmt.Fprintf(b.w, "%s: %3d%%, %s\n", b.label, t*10, elapsed)
		}
		return
	}
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond || done == total {
		b.last = now
		const width = 40
		fill := int(done * width / total)
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = '.'
			if i < fill {
				bar[i] = '#'
			}
		}
		fmt.Fprintf(b.w, "\r[%s] %5.1f%% %s ", bar, float64(done)*100/float64(total), elapsed)
		b.drawn = true
	}
}

// Finish ends the redrawn line, so what follows starts on its own.
func (b *Bar) Finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
