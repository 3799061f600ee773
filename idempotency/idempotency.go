// Package idempotency decides what a creating request that carries an
// Idempotency-Key gets (the semantics of the IETF httpapi draft "The
// Idempotency-Key HTTP Header Field"): the first request with a key runs and
// its answer is kept for a day; the same key with the same request gets
// that answer again, whichever instance it reaches; the same key with
// another request is refused (ErrMismatch), and so is a second request
// while the first still runs (ErrInFlight).
//
// A creation's answer holds a secret (a seat's or a player's token), and
// the server keeps no secret in clear, so the kept answer is sealed with
// AES-GCM under a key derived from the Idempotency-Key itself, and found by
// another hash of it. The database alone gives neither the key nor the
// answer: whoever can read the answer back is whoever holds the key, the
// client that made the request. The fingerprint of the request is keyed the
// same way, so the rows do not even say which requests were alike.
//
// The package knows no HTTP and no SQL: the api hands it the operation, the
// key and the request's bytes; the stores keep the Records its Store
// declares.
package idempotency

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// Errors of a request whose key cannot be honoured, declared with their
// kinds and codes (see package fault).
var (
	// ErrInFlight: a request with this key is running now; ask again once
	// it has answered.
	ErrInFlight = fault.NewRetry(fault.Conflict, time.Second, "idempotency_key_in_use",
		"Request with this Idempotency-Key in progress", "a request with this idempotency key is in progress")
	// ErrMismatch: the key was used, within its life, for another request.
	ErrMismatch = fault.New(fault.Invalid, "idempotency_key_reused",
		"Idempotency-Key used for another request", "the idempotency key was used for another request")
	// ErrInvalidKey: the key is empty or longer than MaxKeyLength.
	ErrInvalidKey = fault.New(fault.Malformed, "invalid_idempotency_key", "Invalid Idempotency-Key", "invalid idempotency key")
)

// MaxKeyLength bounds a key, in bytes. A UUID (36) fits many times over.
const MaxKeyLength = 255

// Defaults of Options.
const (
	// DefaultTTL is how long an answer is kept: a day, as the draft
	// suggests, long enough for any client's retries.
	DefaultTTL = 24 * time.Hour
	// DefaultLease is how long a request holds its key while it runs. A
	// creation takes well under a second, or an AI's longest move; one
	// still unanswered after this died with its instance, and the key is
	// free again rather than refused for a day.
	DefaultLease = 2 * time.Minute
	// pruneEvery is how often Begin removes records past their life, and
	// pruneBatch how many at most each time: the work is the requests',
	// bounded, and needs no background loop to start and stop.
	pruneEvery = 10 * time.Minute
	pruneBatch = 500
)

// Record is one key's row, as a store keeps it: nothing in it reveals the
// key, the request or the answer.
type Record struct {
	// ID finds the record: SHA-256 of the operation and the key under a
	// label of its own (32 bytes).
	ID []byte
	// Fingerprint is an HMAC of the request under a key derived from the
	// Idempotency-Key (32 bytes).
	Fingerprint []byte
	// Holder is a random name of the request that reserved the key (16
	// bytes): only it completes or releases the record.
	Holder []byte
	// Sealed is the answer, AES-GCM sealed (nonce then ciphertext); nil
	// while the request runs.
	Sealed []byte
	// Expires is when the record lapses: the reservation's end while in
	// flight, the answer's when done. A lapsed record is as good as none.
	Expires time.Time
}

// Done says whether the record holds an answer.
func (r Record) Done() bool { return r.Sealed != nil }

// Store keeps records. Times are UTC with whole microseconds.
type Store interface {
	// ReserveIdempotent writes r unless a record with r.ID exists whose
	// Expires is after now: then it writes nothing and returns that record
	// and false. A lapsed record is replaced. Of several calls at once for
	// one ID, on one store or on several sharing a database, one reserves.
	ReserveIdempotent(ctx context.Context, r Record, now time.Time) (Record, bool, error)
	// CompleteIdempotent stores the sealed answer of the record id that
	// holder reserved, with its new expiry, and reports whether that
	// record was still there (it may have lapsed and been taken).
	CompleteIdempotent(ctx context.Context, id, holder, sealed []byte, expires time.Time) (bool, error)
	// ReleaseIdempotent removes the record id that holder reserved, if it
	// is still in flight.
	ReleaseIdempotent(ctx context.Context, id, holder []byte) error
	// PruneIdempotent removes up to limit records whose Expires is not
	// after before, and returns how many it removed.
	PruneIdempotent(ctx context.Context, before time.Time, limit int) (int, error)
}

// Options configure a Service.
type Options struct {
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// TTL is how long an answer is kept. Zero: DefaultTTL.
	TTL time.Duration
	// Lease is how long a running request holds its key. Zero:
	// DefaultLease.
	Lease time.Duration
}

// Service makes the decisions over a Store. Its methods are safe for
// concurrent use.
type Service struct {
	store Store
	now   func() time.Time
	ttl   time.Duration
	lease time.Duration

	mu        sync.Mutex
	lastPrune time.Time
}

// New returns a Service over store.
func New(store Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	return &Service{store: store, now: opts.Now, ttl: opts.TTL, lease: opts.Lease}
}

// Answer is what a request was answered, kept to be given again.
type Answer struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"` // the few headers that belong to the answer
	Body   []byte            `json:"body"`
}

// Claim is a reservation of a key by the request that runs: Complete it
// with the answer to keep, or Release it to let the next request with the
// key run afresh.
type Claim struct {
	s       *Service
	id      []byte
	holder  []byte
	sealKey []byte
}

// Begin looks up key for the operation scope and the request, whose parts
// (the body, the credentials: whatever makes two requests the same one)
// are fingerprinted together. It returns either a Claim, and the request
// runs, or the Answer kept for it, to be given as it is; or ErrInFlight,
// ErrMismatch or ErrInvalidKey.
func (s *Service) Begin(ctx context.Context, scope, key string, request ...[]byte) (*Claim, *Answer, error) {
	if key == "" || len(key) > MaxKeyLength {
		return nil, nil, ErrInvalidKey
	}
	s.prune(ctx)
	k := derive(scope, key)
	holder := make([]byte, 16)
	_, _ = rand.Read(holder) // crypto/rand never fails
	now := s.clock()
	rec := Record{ID: k.id, Fingerprint: k.fingerprint(request), Holder: holder, Expires: now.Add(s.lease)}
	got, reserved, err := s.store.ReserveIdempotent(ctx, rec, now)
	if err != nil {
		return nil, nil, fmt.Errorf("reserve an idempotency key: %w", err)
	}
	if reserved {
		return &Claim{s: s, id: k.id, holder: holder, sealKey: k.seal}, nil, nil
	}
	if !hmac.Equal(got.Fingerprint, rec.Fingerprint) {
		return nil, nil, ErrMismatch
	}
	if !got.Done() {
		return nil, nil, ErrInFlight
	}
	a, err := open(k.seal, k.id, got.Sealed)
	if err != nil {
		return nil, nil, err
	}
	return nil, &a, nil
}

// Complete keeps a, sealed, as the answer to every request with the key
// until its life ends.
func (c *Claim) Complete(ctx context.Context, a Answer) error {
	sealed, err := seal(c.sealKey, c.id, a)
	if err != nil {
		return err
	}
	ok, err := c.s.store.CompleteIdempotent(ctx, c.id, c.holder, sealed, c.s.clock().Add(c.s.ttl))
	if err != nil {
		return fmt.Errorf("keep an idempotent answer: %w", err)
	}
	if !ok {
		return errors.New("keep an idempotent answer: the key's reservation lapsed while the request ran")
	}
	return nil
}

// Release gives the key up: the request had no answer worth keeping (it
// failed, and a retry should run again).
func (c *Claim) Release(ctx context.Context) error {
	if err := c.s.store.ReleaseIdempotent(ctx, c.id, c.holder); err != nil {
		return fmt.Errorf("release an idempotency key: %w", err)
	}
	return nil
}

// Prune removes the records past their life, up to limit, and returns how
// many.
func (s *Service) Prune(ctx context.Context, limit int) (int, error) {
	return s.store.PruneIdempotent(ctx, s.clock(), limit)
}

// prune runs Prune at most once per pruneEvery, in the request that finds
// it due. A failure only leaves rows for the next time: the request goes on.
func (s *Service) prune(ctx context.Context) {
	now := s.clock()
	s.mu.Lock()
	due := now.Sub(s.lastPrune) >= pruneEvery
	if due {
		s.lastPrune = now
	}
	s.mu.Unlock()
	if due {
		_, _ = s.store.PruneIdempotent(ctx, now, pruneBatch)
	}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// keys are what one Idempotency-Key gives, each under a label of its own so
// that none reveals another.
type keys struct {
	id   []byte // finds the record
	mac  []byte // keys the fingerprint
	seal []byte // seals the answer (AES-256)
}

// derive makes the keys of key for the operation scope: SHA-256 for the
// lookup, HKDF-SHA-256 for the two secrets. The scope is in each, so one key
// sent to two operations is two records.
func derive(scope, key string) keys {
	info := func(label string) string { return "ayoayo idempotency v1 " + label + "\x00" + scope }
	h := sha256.New()
	h.Write([]byte(info("id") + "\x00" + key))
	k := keys{id: h.Sum(nil)}
	var err error
	if k.mac, err = hkdf.Key(sha256.New, []byte(key), nil, info("fingerprint"), 32); err != nil {
		panic(err) // only for lengths beyond HKDF's bound, never 32 bytes
	}
	if k.seal, err = hkdf.Key(sha256.New, []byte(key), nil, info("seal"), 32); err != nil {
		panic(err)
	}
	return k
}

// fingerprint is the HMAC of the request's parts, each prefixed with its
// length so that no two lists of parts run together alike.
func (k keys) fingerprint(parts [][]byte) []byte {
	m := hmac.New(sha256.New, k.mac)
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		m.Write(n[:])
		m.Write(p)
	}
	return m.Sum(nil)
}

// seal encrypts a under key, bound to the record's id (the additional
// data), so a sealed answer moved to another row does not open.
func seal(key, id []byte, a Answer) ([]byte, error) {
	plain, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encode an idempotent answer: %w", err)
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce)
	return aead.Seal(nonce, nonce, plain, id), nil
}

// open is seal's inverse.
func open(key, id, sealed []byte) (Answer, error) {
	aead, err := gcm(key)
	if err != nil {
		return Answer{}, err
	}
	if len(sealed) < aead.NonceSize() {
		return Answer{}, errors.New("open an idempotent answer: too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], id)
	if err != nil {
		return Answer{}, fmt.Errorf("open an idempotent answer: %w", err)
	}
	var a Answer
	if err := json.Unmarshal(plain, &a); err != nil {
		return Answer{}, fmt.Errorf("decode an idempotent answer: %w", err)
	}
	return a, nil
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
