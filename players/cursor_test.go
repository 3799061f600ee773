package players

import (
	"testing"
	"time"
)

func FuzzParseCursor(f *testing.F) {
	f.Add(cursorOf(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "abc"))
	f.Add("")
	f.Add("!!")
	f.Add("LTEuYQ")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCursor(s)
		if err != nil || s == "" {
			return
		}
		if again := cursorOf(c.at, c.id); again != s {
			// Accepted cursors are ones this server could have made.
			if _, err := parseCursor(again); err != nil {
				t.Fatalf("%q parsed to %+v, whose cursor %q does not parse", s, c, again)
			}
		}
	})
}
