package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/idempotency"
)

var _ idempotency.Store = (*Store)(nil)

// ReserveIdempotent implements idempotency.Store: an upsert whose update
// is conditional on the row having lapsed, then, if it wrote nothing, the
// row that stopped it, in the same transaction.
func (s *Store) ReserveIdempotent(ctx context.Context, r idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	var (
		got      idempotency.Record
		reserved bool
	)
	err := s.write(ctx, func(ctx context.Context, q runner) error {
		var one int
		err := q.queryRow(ctx, `INSERT INTO idempotency_keys (id, fingerprint, holder, sealed, expires_us) VALUES (?, ?, ?, NULL, ?)
			ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder,
				sealed = NULL, expires_us = excluded.expires_us
			WHERE idempotency_keys.expires_us <= ?
			RETURNING 1`, r.ID, r.Fingerprint, r.Holder, r.Expires.UnixMicro(), now.UnixMicro()).Scan(&one)
		if err == nil {
			reserved = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var expires int64
		got.ID = r.ID
		if err := q.queryRow(ctx, `SELECT fingerprint, holder, sealed, expires_us FROM idempotency_keys WHERE id = ?`, r.ID).
			Scan(&got.Fingerprint, &got.Holder, &got.Sealed, &expires); err != nil {
			return err
		}
		got.Expires = time.UnixMicro(expires).UTC()
		return nil
	})
	if err != nil {
		return idempotency.Record{}, false, fmt.Errorf("reserve an idempotency key: %w", err)
	}
	return got, reserved, nil
}

// CompleteIdempotent implements idempotency.Store.
func (s *Store) CompleteIdempotent(ctx context.Context, id, holder, sealed []byte, expires time.Time) (bool, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, q runner) error {
		res, err := q.exec(ctx, `UPDATE idempotency_keys SET sealed = ?, expires_us = ?
			WHERE id = ? AND holder = ? AND sealed IS NULL`, sealed, expires.UnixMicro(), id, holder)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("complete an idempotency key: %w", err)
	}
	return n == 1, nil
}

// ReleaseIdempotent implements idempotency.Store.
func (s *Store) ReleaseIdempotent(ctx context.Context, id, holder []byte) error {
	err := s.write(ctx, func(ctx context.Context, q runner) error {
		_, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE id = ? AND holder = ? AND sealed IS NULL`, id, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("release an idempotency key: %w", err)
	}
	return nil
}

// PruneIdempotent implements idempotency.Store.
func (s *Store) PruneIdempotent(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, q runner) error {
		res, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE id IN
			(SELECT id FROM idempotency_keys WHERE expires_us <= ? LIMIT ?)`, before.UnixMicro(), limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune idempotency keys: %w", err)
	}
	return int(n), nil
}
