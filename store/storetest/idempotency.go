package storetest

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/idempotency"
)

// The cases of idempotency keys' records: a reservation that one request of
// many gets, the answer kept by its holder only, a release, lapsed records
// replaced and pruned.
var idempotencyCases = []suiteCase{
	{"idempotency/reserve, complete, replay", testIdemRoundTrip},
	{"idempotency/only the holder completes or releases", testIdemHolder},
	{"idempotency/a lapsed record is replaced", testIdemLapsed},
	{"idempotency/prune", testIdemPrune},
	{"idempotency/reserve race", func(t *testing.T, s Store, _ *fixtures) { raceReserve(t, []Store{s}) }},
	{"idempotency/reserve race across handles", func(t *testing.T, s Store, fx *fixtures) {
		if fx.again == nil {
			t.Skip("the store lives in one process: no second handle to race on")
		}
		raceReserve(t, []Store{s, fx.again(t, s)})
	}},
}

// idemRecord is an in-flight record of the suite: 32-byte id and
// fingerprint, 16-byte holder, as the service makes them.
func idemRecord(name, holder string, expires time.Time) idempotency.Record {
	id := sha256.Sum256([]byte("id " + name))
	fp := sha256.Sum256([]byte("fingerprint " + name))
	h := sha256.Sum256([]byte("holder " + holder))
	return idempotency.Record{ID: id[:], Fingerprint: fp[:], Holder: h[:16], Expires: expires}
}

// sealedOf stands for a sealed answer: bytes of every value, zeros
// included.
func sealedOf(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func mustReserve(t *testing.T, s Store, r idempotency.Record, now time.Time, want bool) idempotency.Record {
	t.Helper()
	got, ok, err := s.ReserveIdempotent(t.Context(), r, now)
	if err != nil {
		t.Fatalf("ReserveIdempotent: %v", err)
	}
	if ok != want {
		t.Fatalf("ReserveIdempotent reserved %v, want %v", ok, want)
	}
	return got
}

func checkRecord(t *testing.T, what string, got, want idempotency.Record) {
	t.Helper()
	if !bytes.Equal(got.ID, want.ID) || !bytes.Equal(got.Fingerprint, want.Fingerprint) || !bytes.Equal(got.Holder, want.Holder) ||
		!bytes.Equal(got.Sealed, want.Sealed) || got.Done() != want.Done() || !got.Expires.Equal(want.Expires) {
		t.Fatalf("%s: record\n%+v\nwant\n%+v", what, got, want)
	}
}

func testIdemRoundTrip(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	r := idemRecord("trip", "first", tick(60))
	mustReserve(t, s, r, tick(1), true)
	t.Run("in flight", func(t *testing.T) {
		got := mustReserve(t, s, idemRecord("trip", "second", tick(61)), tick(2), false)
		checkRecord(t, "the record in flight", got, r)
	})
	sealed := sealedOf(300)
	done := tick(86400)
	t.Run("completed", func(t *testing.T) {
		ok, err := s.CompleteIdempotent(ctx, r.ID, r.Holder, sealed, done)
		if err != nil || !ok {
			t.Fatalf("CompleteIdempotent = %v, %v; want true", ok, err)
		}
		got := mustReserve(t, s, idemRecord("trip", "third", tick(62)), tick(100), false)
		want := r
		want.Sealed, want.Expires = sealed, done
		checkRecord(t, "the completed record", got, want)
	})
	t.Run("completed once", func(t *testing.T) {
		ok, err := s.CompleteIdempotent(ctx, r.ID, r.Holder, sealedOf(10), done)
		if err != nil || ok {
			t.Fatalf("CompleteIdempotent a second time = %v, %v; want false", ok, err)
		}
	})
	t.Run("another id is free", func(t *testing.T) {
		mustReserve(t, s, idemRecord("other", "first", tick(60)), tick(3), true)
	})
}

func testIdemHolder(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	r := idemRecord("holder", "mine", tick(60))
	mustReserve(t, s, r, tick(1), true)
	stranger := idemRecord("holder", "stranger", tick(60)).Holder
	if ok, err := s.CompleteIdempotent(ctx, r.ID, stranger, sealedOf(40), tick(100)); err != nil || ok {
		t.Fatalf("CompleteIdempotent by another holder = %v, %v; want false", ok, err)
	}
	if err := s.ReleaseIdempotent(ctx, r.ID, stranger); err != nil {
		t.Fatal(err)
	}
	checkRecord(t, "after a stranger's release", mustReserve(t, s, idemRecord("holder", "x", tick(61)), tick(2), false), r)
	if err := s.ReleaseIdempotent(ctx, r.ID, r.Holder); err != nil {
		t.Fatal(err)
	}
	next := idemRecord("holder", "next", tick(70))
	mustReserve(t, s, next, tick(3), true)
	t.Run("a completed record is not released", func(t *testing.T) {
		if ok, err := s.CompleteIdempotent(ctx, next.ID, next.Holder, sealedOf(40), tick(100)); err != nil || !ok {
			t.Fatalf("CompleteIdempotent = %v, %v", ok, err)
		}
		if err := s.ReleaseIdempotent(ctx, next.ID, next.Holder); err != nil {
			t.Fatal(err)
		}
		if got := mustReserve(t, s, idemRecord("holder", "late", tick(80)), tick(4), false); !got.Done() {
			t.Fatalf("released a completed record: %+v", got)
		}
	})
}

func testIdemLapsed(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	t.Run("in flight", func(t *testing.T) {
		r := idemRecord("lapsed", "dead", tick(10))
		mustReserve(t, s, r, tick(1), true)
		taker := idemRecord("lapsed", "taker", tick(20))
		taker.Fingerprint = sealedOf(32)
		mustReserve(t, s, taker, tick(10), true)
		checkRecord(t, "the record taken over", mustReserve(t, s, idemRecord("lapsed", "x", tick(30)), tick(11), false), taker)
		if ok, err := s.CompleteIdempotent(ctx, r.ID, r.Holder, sealedOf(40), tick(100)); err != nil || ok {
			t.Fatalf("the lapsed holder completed: %v, %v", ok, err)
		}
	})
	t.Run("completed", func(t *testing.T) {
		r := idemRecord("expired", "first", tick(10))
		mustReserve(t, s, r, tick(1), true)
		if ok, err := s.CompleteIdempotent(ctx, r.ID, r.Holder, sealedOf(40), tick(50)); err != nil || !ok {
			t.Fatalf("CompleteIdempotent = %v, %v", ok, err)
		}
		next := idemRecord("expired", "next", tick(70))
		mustReserve(t, s, next, tick(50), true)
		if got := mustReserve(t, s, idemRecord("expired", "x", tick(80)), tick(51), false); got.Done() {
			t.Fatalf("the new reservation kept the old answer: %+v", got)
		}
	})
}

func testIdemPrune(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		mustReserve(t, s, idemRecord(name, "h", tick(10+i)), tick(1), true)
	}
	if n, err := s.PruneIdempotent(ctx, tick(12), 2); err != nil || n != 2 {
		t.Fatalf("PruneIdempotent(limit 2) = %d, %v; want 2", n, err)
	}
	if n, err := s.PruneIdempotent(ctx, tick(12), 10); err != nil || n != 1 {
		t.Fatalf("PruneIdempotent again = %d, %v; want the third lapsed one", n, err)
	}
	// The records not lapsed are still there, and still held.
	for _, name := range []string{"d", "e"} {
		mustReserve(t, s, idemRecord(name, "other", tick(90)), tick(2), false)
	}
	// The pruned ones are free (reserving them at tick(2), before they
	// would have lapsed, tells a pruned row from a lapsed one).
	for _, name := range []string{"a", "b", "c"} {
		mustReserve(t, s, idemRecord(name, "other", tick(90)), tick(2), true)
	}
}

// raceReserve has racers reserve one id at once, over the stores given in
// turn: exactly one gets it, and the others see its record.
func raceReserve(t *testing.T, stores []Store) {
	t.Helper()
	var won atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, racers)
	for i := range racers {
		wg.Go(func() {
			r := idemRecord("race", string(rune('a'+i)), tick(60))
			got, ok, err := stores[i%len(stores)].ReserveIdempotent(t.Context(), r, tick(1))
			switch {
			case err != nil:
				errs <- err
			case ok:
				won.Add(1)
			case got.Done() || len(got.Holder) != 16:
				t.Errorf("racer %d saw %+v", i, got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := won.Load(); n != 1 {
		t.Fatalf("%d racers reserved the key, want 1", n)
	}
}
