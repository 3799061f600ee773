package idempotency_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/idempotency"
	"github.com/ayoayo/ayoayo/store/memory"
)

// clock is the tests' one clock, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// spy is a store that remembers every record written, to search them.
type spy struct {
	*memory.Store
	written []idempotency.Record
	sealed  [][]byte
}

func (s *spy) ReserveIdempotent(ctx context.Context, r idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	s.written = append(s.written, r)
	return s.Store.ReserveIdempotent(ctx, r, now)
}

func (s *spy) CompleteIdempotent(ctx context.Context, id, holder, sealed []byte, expires time.Time) (bool, error) {
	s.sealed = append(s.sealed, sealed)
	return s.Store.CompleteIdempotent(ctx, id, holder, sealed, expires)
}

func newService(t *testing.T) (*idempotency.Service, *clock, *spy) {
	t.Helper()
	c := &clock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	st := &spy{Store: memory.New()}
	return idempotency.New(st, idempotency.Options{Now: c.now}), c, st
}

var answer = idempotency.Answer{Status: 201, Header: map[string]string{"Location": "/v1/games/g1"},
	Body: []byte(`{"token":"s3cr3t-seat-token","game":{"id":"g1"}}`)}

// run begins a request and completes it with a.
func run(t *testing.T, s *idempotency.Service, scope, key string, body string, a idempotency.Answer) {
	t.Helper()
	claim, replay, err := s.Begin(t.Context(), scope, key, []byte(body))
	if err != nil || replay != nil {
		t.Fatalf("Begin = %v, %v; want a claim", replay, err)
	}
	if err := claim.Complete(t.Context(), a); err != nil {
		t.Fatal(err)
	}
}

func TestDecisions(t *testing.T) {
	const key = "8e03978e-40d5-43e8-bc93-6894a57f9324"
	tests := []struct {
		name  string
		scope string
		key   string
		body  string
		after time.Duration
		want  error // nil: the kept answer, or a claim when claim is set
		claim bool
	}{
		{name: "the same request again", scope: "CreateGame", key: key, body: "{}"},
		{name: "just before its day ends", scope: "CreateGame", key: key, body: "{}", after: 24*time.Hour - time.Microsecond},
		{name: "another body", scope: "CreateGame", key: key, body: `{"seat":"north"}`, want: idempotency.ErrMismatch},
		{name: "another operation", scope: "CreatePlayer", key: key, body: "{}", claim: true},
		{name: "another key", scope: "CreateGame", key: key + "x", body: "{}", claim: true},
		{name: "a day later", scope: "CreateGame", key: key, body: "{}", after: 24 * time.Hour, claim: true},
		{name: "an empty key", scope: "CreateGame", key: "", body: "{}", want: idempotency.ErrInvalidKey},
		{name: "a key too long", scope: "CreateGame", key: strings.Repeat("k", idempotency.MaxKeyLength+1), body: "{}", want: idempotency.ErrInvalidKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c, _ := newService(t)
			run(t, s, "CreateGame", key, "{}", answer)
			c.t = c.t.Add(tt.after)
			claim, replay, err := s.Begin(t.Context(), tt.scope, tt.key, []byte(tt.body))
			switch {
			case !errors.Is(err, tt.want):
				t.Fatalf("Begin: %v, want %v", err, tt.want)
			case tt.want != nil:
			case tt.claim && claim == nil:
				t.Fatalf("Begin gave %+v, want a claim", replay)
			case !tt.claim && (replay == nil || replay.Status != answer.Status || !bytes.Equal(replay.Body, answer.Body) ||
				replay.Header["Location"] != answer.Header["Location"]):
				t.Fatalf("Begin gave %+v (claim %v), want the kept answer", replay, claim)
			}
		})
	}
}

func TestInFlightAndRelease(t *testing.T) {
	s, c, _ := newService(t)
	ctx := t.Context()
	claim, _, err := s.Begin(ctx, "CreateGame", "k", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Begin(ctx, "CreateGame", "k", []byte("{}")); !errors.Is(err, idempotency.ErrInFlight) {
		t.Fatalf("a second request while the first runs: %v, want ErrInFlight", err)
	}
	if _, _, err := s.Begin(ctx, "CreateGame", "k", []byte("{ }")); !errors.Is(err, idempotency.ErrMismatch) {
		t.Fatalf("another request while the first runs: %v, want ErrMismatch", err)
	}
	if err := claim.Release(ctx); err != nil {
		t.Fatal(err)
	}
	again, _, err := s.Begin(ctx, "CreateGame", "k", []byte("{}"))
	if err != nil || again == nil {
		t.Fatalf("after a release: %v, %v; want a claim", again, err)
	}
	t.Run("a reservation whose request died lapses", func(t *testing.T) {
		c.t = c.t.Add(idempotency.DefaultLease)
		taken, _, err := s.Begin(ctx, "CreateGame", "k", []byte("{}"))
		if err != nil || taken == nil {
			t.Fatalf("after the lease: %v, %v; want a claim", taken, err)
		}
		if err := again.Complete(ctx, answer); err == nil {
			t.Fatal("the lapsed claim completed")
		}
	})
}

// What the store is given reveals neither the key, nor the request, nor
// the answer's token.
func TestNothingInClear(t *testing.T) {
	s, _, st := newService(t)
	const key = "client-chosen-key-0123456789"
	body := `{"opponent":{"type":"human"}}`
	run(t, s, "CreateGame", key, body, answer)
	var all [][]byte
	for _, r := range st.written {
		all = append(all, r.ID, r.Fingerprint, r.Holder, r.Sealed)
	}
	all = append(all, st.sealed...)
	if len(st.sealed) != 1 || len(st.sealed[0]) < len(answer.Body) {
		t.Fatalf("sealed answers %q", st.sealed)
	}
	for _, b := range all {
		for _, secret := range []string{key, body, "s3cr3t-seat-token", "g1", "Location"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Fatalf("the store was given %q in clear", secret)
			}
		}
	}
}

func TestPrune(t *testing.T) {
	s, c, st := newService(t)
	run(t, s, "CreateGame", "old", "{}", answer)
	c.t = c.t.Add(idempotency.DefaultTTL)
	if n, err := s.Prune(t.Context(), 10); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if _, ok, _ := st.Store.ReserveIdempotent(t.Context(), st.written[0], c.t.Add(-time.Hour)); !ok {
		t.Fatal("the pruned record is still there")
	}
}
