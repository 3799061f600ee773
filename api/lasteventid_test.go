package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/games/gamestest"
)

// firstID returns the id of the first event lines carry.
func firstID(t *testing.T, lines <-chan string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended")
			}
			if id, ok := strings.CutPrefix(l, "id: "); ok {
				return id
			}
		case <-timeout:
			t.Fatal("no event")
		}
	}
}

// TestLastEventIDQuery: a stream resumes after the lastEventId query
// parameter as after the Last-Event-ID header, which wins when both come.
func TestLastEventIDQuery(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newLobbyServer(t, clock)
	_, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")
	for _, token := range []string{ann, bob} {
		gs.expect(gs.must(http.MethodPost, "/v1/seeks", "", map[string]any{"timeControl": corrAPI}, asPlayer(token)), http.StatusCreated, "")
		clock.Advance(time.Second)
	}
	for _, tc := range []struct {
		name   string
		query  string
		header map[string]string
		want   string
	}{
		{"the header", "", map[string]string{"Last-Event-ID": "1"}, "2"},
		{"the query parameter", "?lastEventId=1", nil, "2"},
		{"from the start", "?lastEventId=0", nil, "1"},
		{"both: the header wins", "?lastEventId=1", map[string]string{"Last-Event-ID": "0"}, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, stop := sseLines(t, gs, "/v1/lobby/events"+tc.query, tc.header)
			defer stop()
			if got := firstID(t, lines); got != tc.want {
				t.Errorf("the first event's id %s, want %s", got, tc.want)
			}
		})
	}
	gs.expect(gs.must(http.MethodGet, "/v1/lobby/events?lastEventId=x", "", nil, nil), http.StatusBadRequest, "invalid_request")
}
