package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/idempotency"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

// instances starts n servers over one store, each with its own services,
// as n processes sharing a database would be.
func instances(t *testing.T, n int) ([]*gamesServer, *memory.Store) {
	t.Helper()
	st := memory.New()
	var out []*gamesServer
	for range n {
		opts := Options{
			Players:     players.NewService(st, nil),
			Idempotency: idempotency.New(st, idempotency.Options{}),
		}
		withGames(&opts, st, games.Options{}, games.HubOptions{})
		e, err := testNew(t, opts)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(e)
		t.Cleanup(ts.Close)
		out = append(out, &gamesServer{t: t, ts: ts, st: st, client: ts.Client(), router: specRouter(t)})
	}
	return out, st
}

// waitingGames counts the games of st still waiting for a second player.
func waitingGames(t *testing.T, st *memory.Store) int {
	t.Helper()
	gs, err := st.Overdue(t.Context(), time.Now().Add(1000*time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return len(gs)
}

// createUntilDone sends one creation, and again while it gets 409
// idempotency_key_in_use, as a client told to retry does.
func createUntilDone(gs *gamesServer, path string, body any, header map[string]string) (answer, int) {
	gs.t.Helper()
	for i := 0; ; i++ {
		a, err := gs.do(http.MethodPost, path, "", body, header)
		if err != nil {
			gs.t.Error(err)
			return a, i
		}
		if a.status != http.StatusConflict {
			return a, i
		}
		if code, _ := a.problem(gs.t); code != "idempotency_key_in_use" || a.header.Get("Retry-After") == "" {
			gs.t.Errorf("409 %s, want idempotency_key_in_use with Retry-After", a.body)
		}
		time.Sleep(5 * time.Millisecond) // another request's progress, not a clock of ours
	}
}

func TestIdempotentCreation(t *testing.T) {
	human := map[string]any{"opponent": map[string]any{"type": "human"}}
	key := map[string]string{IdempotencyKeyHeader: "8e03978e-40d5-43e8-bc93-6894a57f9324"}

	t.Run("four at once on two instances make one game", func(t *testing.T) {
		srv, st := instances(t, 2)
		answers := make([]answer, 4)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Go(func() { answers[i], _ = createUntilDone(srv[i%2], "/v1/games", human, key) })
		}
		wg.Wait()
		replayed := 0
		for i, a := range answers {
			if a.status != http.StatusCreated || !bytes.Equal(a.body, answers[0].body) || a.header.Get("Location") != answers[0].header.Get("Location") {
				t.Fatalf("answer %d: %d %s %s, want the first one's: %s", i, a.status, a.header.Get("Location"), a.body, answers[0].body)
			}
			if a.header.Get(replayedHeader) == "true" {
				replayed++
			}
		}
		if replayed != 3 {
			t.Errorf("%d answers marked replayed, want 3", replayed)
		}
		if n := waitingGames(t, st); n != 1 {
			t.Fatalf("%d games made, want 1", n)
		}
	})

	t.Run("the replayed token plays", func(t *testing.T) {
		srv, _ := instances(t, 2)
		ai := map[string]any{"opponent": map[string]any{"type": "ai", "level": 1}}
		first := srv[0].must(http.MethodPost, "/v1/games", "", ai, key)
		srv[0].expect(first, http.StatusCreated, "")
		again := srv[1].must(http.MethodPost, "/v1/games", "", ai, key)
		srv[1].expect(again, http.StatusCreated, "")
		if !bytes.Equal(first.body, again.body) {
			t.Fatalf("replay on the other instance:\n%s\nwant\n%s", again.body, first.body)
		}
		var seat oapi.GameSeat
		again.decode(t, &seat)
		m := srv[1].must(http.MethodPost, "/v1/games/"+seat.Game.Id+"/moves", seat.Token, map[string]int{"pit": legalPits(t, seat.Game.Position)[0], "ply": seat.Game.Ply}, nil)
		srv[1].expect(m, http.StatusCreated, "")
	})

	t.Run("refusals", func(t *testing.T) {
		srv, st := instances(t, 1)
		gs := srv[0]
		gs.expect(gs.must(http.MethodPost, "/v1/games", "", human, key), http.StatusCreated, "")
		tests := []struct {
			name   string
			token  string
			body   any
			header map[string]string
			status int
			code   string
		}{
			{"another body", "", map[string]any{"opponent": map[string]any{"type": "human"}, "seat": "north"}, key, http.StatusUnprocessableEntity, "idempotency_key_reused"},
			{"other credentials", "someone-elses-token", human, key, http.StatusUnprocessableEntity, "idempotency_key_reused"},
			{"a quoted key is the same key", "", human, map[string]string{IdempotencyKeyHeader: `"` + key[IdempotencyKeyHeader] + `"`}, http.StatusCreated, ""},
			{"a key too long", "", human, map[string]string{IdempotencyKeyHeader: strings.Repeat("k", 300)}, http.StatusBadRequest, "invalid_request"},
			{"a blank key", "", human, map[string]string{IdempotencyKeyHeader: `""`}, http.StatusBadRequest, "invalid_idempotency_key"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				gs.expect(gs.must(http.MethodPost, "/v1/games", tt.token, tt.body, tt.header), tt.status, tt.code)
			})
		}
		if n := waitingGames(t, st); n != 1 {
			t.Fatalf("%d games made, want 1", n)
		}
	})

	t.Run("a refused creation keeps nothing", func(t *testing.T) {
		srv, _ := instances(t, 1)
		gs := srv[0]
		rated := map[string]any{"opponent": map[string]any{"type": "human"}, "rated": true}
		k := map[string]string{IdempotencyKeyHeader: "refused-then-fixed"}
		gs.expect(gs.must(http.MethodPost, "/v1/games", "", rated, k), http.StatusUnprocessableEntity, "rated_not_allowed")
		// Not kept, so not a mismatch: the fixed request runs.
		gs.expect(gs.must(http.MethodPost, "/v1/games", "", human, k), http.StatusCreated, "")
	})

	t.Run("players", func(t *testing.T) {
		srv, _ := instances(t, 2)
		k := map[string]string{IdempotencyKeyHeader: "player-key"}
		first := srv[0].must(http.MethodPost, "/v1/players", "", map[string]any{"name": "Adebayo"}, k)
		srv[0].expect(first, http.StatusCreated, "")
		again := srv[1].must(http.MethodPost, "/v1/players", "", map[string]any{"name": "Adebayo"}, k)
		if again.status != http.StatusCreated || !bytes.Equal(first.body, again.body) {
			t.Fatalf("replay: %d %s, want %s", again.status, again.body, first.body)
		}
		// The same key names another request on another operation.
		srv[1].expect(srv[1].must(http.MethodPost, "/v1/games", "", human, k), http.StatusCreated, "")
	})

	t.Run("without a key, two games", func(t *testing.T) {
		srv, st := instances(t, 1)
		for range 2 {
			srv[0].expect(srv[0].must(http.MethodPost, "/v1/games", "", human, nil), http.StatusCreated, "")
		}
		if n := waitingGames(t, st); n != 2 {
			t.Fatalf("%d games made, want 2", n)
		}
	})
}

// Browsers may send the key, and read whether an answer was replayed.
func TestCORSOffersIdempotencyKey(t *testing.T) {
	srv, _ := instances(t, 1)
	req, err := http.NewRequest(http.MethodOptions, srv[0].ts.URL+"/v1/games", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://example.org")
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	req.Header.Set("Access-Control-Request-Headers", "content-type, idempotency-key")
	resp, err := srv[0].client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if allowed := resp.Header.Get("Access-Control-Allow-Headers"); !strings.Contains(strings.ToLower(allowed), "idempotency-key") {
		t.Fatalf("preflight allows %q, want Idempotency-Key among them", allowed)
	}
}
