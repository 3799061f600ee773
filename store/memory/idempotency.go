package memory

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/idempotency"
)

var _ idempotency.Store = (*Store)(nil)

// idempotent holds the records of idempotency keys, by id.
type idempotent struct {
	mu   sync.Mutex
	rows map[string]idempotency.Record
}

func copyRecord(r idempotency.Record) idempotency.Record {
	r.ID = slices.Clone(r.ID)
	r.Fingerprint = slices.Clone(r.Fingerprint)
	r.Holder = slices.Clone(r.Holder)
	r.Sealed = slices.Clone(r.Sealed)
	return r
}

// ReserveIdempotent implements idempotency.Store.
func (s *Store) ReserveIdempotent(ctx context.Context, r idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return idempotency.Record{}, false, err
	}
	st := &s.idem
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.rows == nil {
		st.rows = map[string]idempotency.Record{}
	}
	if got, ok := st.rows[string(r.ID)]; ok && got.Expires.After(now) {
		return copyRecord(got), false, nil
	}
	r = copyRecord(r)
	r.Sealed = nil
	st.rows[string(r.ID)] = r
	return idempotency.Record{}, true, nil
}

// CompleteIdempotent implements idempotency.Store.
func (s *Store) CompleteIdempotent(ctx context.Context, id, holder, sealed []byte, expires time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	st := &s.idem
	st.mu.Lock()
	defer st.mu.Unlock()
	got, ok := st.rows[string(id)]
	if !ok || !bytes.Equal(got.Holder, holder) || got.Done() {
		return false, nil
	}
	got.Sealed = slices.Clone(sealed)
	got.Expires = expires
	st.rows[string(id)] = got
	return true, nil
}

// ReleaseIdempotent implements idempotency.Store.
func (s *Store) ReleaseIdempotent(ctx context.Context, id, holder []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := &s.idem
	st.mu.Lock()
	defer st.mu.Unlock()
	if got, ok := st.rows[string(id)]; ok && bytes.Equal(got.Holder, holder) && !got.Done() {
		delete(st.rows, string(id))
	}
	return nil
}

// PruneIdempotent implements idempotency.Store.
func (s *Store) PruneIdempotent(ctx context.Context, before time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	st := &s.idem
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for id, r := range st.rows {
		if n >= limit {
			break
		}
		if !r.Expires.After(before) {
			delete(st.rows, id)
			n++
		}
	}
	return n, nil
}
