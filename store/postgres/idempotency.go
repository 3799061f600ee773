package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/idempotency"
)

var _ idempotency.Store = (*Store)(nil)

// reserveTries bounds ReserveIdempotent's rounds: a row that stops the
// insert and is gone before it is read (released or pruned in between)
// sends it round again, which cannot go on for long.
const reserveTries = 3

// ReserveIdempotent implements idempotency.Store: an upsert whose update
// is conditional on the row having lapsed. Of several at once, the row
// lock lets one write; the others wait for it and, finding it live, write
// nothing, and read the row that stopped them.
func (s *Store) ReserveIdempotent(ctx context.Context, r idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	for range reserveTries {
		var one int
		err := s.pool.QueryRow(ctx, `INSERT INTO idempotency_keys (id, fingerprint, holder, sealed, expires) VALUES ($1, $2, $3, NULL, $4)
			ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder,
				sealed = NULL, expires = excluded.expires
			WHERE idempotency_keys.expires <= $5
			RETURNING 1`, r.ID, r.Fingerprint, r.Holder, stamp(r.Expires), stamp(now)).Scan(&one)
		if err == nil {
			return idempotency.Record{}, true, nil
		}
		if !noRows(err) {
			return idempotency.Record{}, false, fmt.Errorf("reserve an idempotency key: %w", s.wrote(err))
		}
		got := idempotency.Record{ID: r.ID}
		err = s.pool.QueryRow(ctx, `SELECT fingerprint, holder, sealed, expires FROM idempotency_keys WHERE id = $1`, r.ID).
			Scan(&got.Fingerprint, &got.Holder, &got.Sealed, &got.Expires)
		if noRows(err) {
			continue
		}
		if err != nil {
			return idempotency.Record{}, false, fmt.Errorf("read an idempotency key: %w", s.read(err))
		}
		got.Expires = got.Expires.UTC()
		return got, false, nil
	}
	return idempotency.Record{}, false, errors.New("reserve an idempotency key: its row came and went too often")
}

// CompleteIdempotent implements idempotency.Store.
func (s *Store) CompleteIdempotent(ctx context.Context, id, holder, sealed []byte, expires time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET sealed = $1, expires = $2
		WHERE id = $3 AND holder = $4 AND sealed IS NULL`, sealed, stamp(expires), id, holder)
	if err != nil {
		return false, fmt.Errorf("complete an idempotency key: %w", s.wrote(err))
	}
	return tag.RowsAffected() == 1, nil
}

// ReleaseIdempotent implements idempotency.Store.
func (s *Store) ReleaseIdempotent(ctx context.Context, id, holder []byte) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE id = $1 AND holder = $2 AND sealed IS NULL`, id, holder)
	if err != nil {
		return fmt.Errorf("release an idempotency key: %w", s.wrote(err))
	}
	return nil
}

// PruneIdempotent implements idempotency.Store.
func (s *Store) PruneIdempotent(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE id IN
		(SELECT id FROM idempotency_keys WHERE expires <= $1 LIMIT $2)`, stamp(before), limit)
	if err != nil {
		return 0, fmt.Errorf("prune idempotency keys: %w", s.wrote(err))
	}
	return int(tag.RowsAffected()), nil
}
