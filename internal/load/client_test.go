package load

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header string
		wait   time.Duration
		again  bool
	}{
		{"429 in seconds", http.StatusTooManyRequests, "3", 3 * time.Second, true},
		{"503 in seconds", http.StatusServiceUnavailable, "0", 0, true},
		{"a date gone by", http.StatusServiceUnavailable, "Mon, 02 Jan 2006 15:04:05 GMT", 0, true},
		{"429 that does not say when", http.StatusTooManyRequests, "", 0, false},
		{"409 is not a refusal to wait out", http.StatusConflict, "3", 0, false},
		{"seconds that do not parse", http.StatusTooManyRequests, "soon", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Retry-After", tt.header)
			}
			wait, again := retryAfter(tt.status, h)
			if wait != tt.wait || again != tt.again {
				t.Errorf("retryAfter = %v, %v; want %v, %v", wait, again, tt.wait, tt.again)
			}
		})
	}
}

func TestRandomMove(t *testing.T) {
	tests := []struct {
		name   string
		pits   []int
		toMove string
		legal  []int // nil: an error
	}{
		{"the start, South", []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, "south", []int{0, 1, 2, 3, 4, 5}},
		{"one pit of North's", []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 48}, "north", []int{11}},
		{"a side that is no side", []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, "east", nil},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 {
				pit, err := RandomMove(tt.pits, 0, 0, tt.toMove, rng)
				if tt.legal == nil {
					if err == nil {
						t.Fatalf("pit %d, want an error", pit)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				ok := false
				for _, p := range tt.legal {
					ok = ok || p == pit
				}
				if !ok {
					t.Fatalf("pit %d, want one of %v", pit, tt.legal)
				}
			}
		})
	}
}
