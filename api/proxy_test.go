package api

import (
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/ayoayo/ayoayo/games"
)

// TestClientAddressBehindProxies: the per-client limits count a request for
// the connection's address, or, from a trusted proxy, for the rightmost
// X-Forwarded-For address outside the trusted ranges. Entries to the left
// of it are the client's own writing and change nothing.
func TestClientAddressBehindProxies(t *testing.T) {
	loopback := mustCIDR(t, "127.0.0.0/8")
	human := map[string]any{"opponent": map[string]any{"type": "human"}}
	tests := []struct {
		name    string
		proxies []*net.IPNet
		xff     func(i int) string // the header of the i-th creation
		created int                // of 40, with a burst of 20 and no refill to speak of
	}{
		// The request of the issue: the client writes a new address left of
		// its own each time.
		{"forged entries left of the client", []*net.IPNet{loopback}, func(i int) string { return fmt.Sprintf("10.9.%d.1, 198.51.100.9", i) }, 20},
		{"one client address each, behind a trusted proxy", []*net.IPNet{loopback}, func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }, 40},
		// A trusted range other than the client's: an address in it is a
		// hop, the next one to the left the client.
		{"a chain of trusted hops", []*net.IPNet{loopback, mustCIDR(t, "10.0.0.0/8")}, func(i int) string { return fmt.Sprintf("198.51.100.%d, 10.0.0.%d", i, i) }, 40},
		{"no trusted proxies: the header is ignored", nil, func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }, 20},
		{"the peer is not a trusted proxy", []*net.IPNet{mustCIDR(t, "10.0.0.0/8")}, func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }, 20},
		// Echo trusts private addresses unless told not to; here they are
		// not trusted, so 10.9.x.1 is the client.
		{"private addresses are not trusted by default", []*net.IPNet{loopback}, func(i int) string { return fmt.Sprintf("198.51.100.9, 10.9.%d.1", i) }, 40},
		{"an entry that is no address stops the reading at the proxy", []*net.IPNet{loopback}, func(i int) string { return fmt.Sprintf("198.51.100.%d, unknown", i) }, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gs := newGamesServer(t, Options{RateLimits: RateLimits{"game-create": {Rate: 1, Burst: 20}}, TrustedProxies: tt.proxies}, games.Options{}, nil)
			created := 0
			for i := range 40 {
				a := gs.must(http.MethodPost, "/v1/games", "", human, map[string]string{"X-Forwarded-For": tt.xff(i)})
				switch a.status {
				case http.StatusCreated:
					created++
				case http.StatusTooManyRequests:
					gs.expect(a, http.StatusTooManyRequests, "rate_limited")
				default:
					t.Fatalf("status %d: %s", a.status, a.body)
				}
			}
			if created != tt.created {
				t.Errorf("%d of 40 games created, want %d", created, tt.created)
			}
		})
	}
}

func mustCIDR(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, r, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
