package games

import "sync"

// One move request per game and ply is played at a time on an instance:
// copies of it sent at once (a client retrying in parallel, or several
// devices of one player) wait for it and get its answer, instead of each
// running its own AI search only for the store to refuse all but one; any
// other request for that ply waits too, then reads the game that play left.
// Across instances the store's conditional write still keeps one move per
// ply.

// flightKey names the ply a request is made at.
type flightKey struct {
	id  string
	ply int
}

// flight is a move request being played, and, once done is closed, its
// answer.
type flight struct {
	hash []byte // the request's token hash and pit: what makes a copy
	pit  int
	done chan struct{}

	joined int // requests waiting for it (guarded by flights.mu)

	// Set before done is closed. stands is false when the outcome is not one
	// a copy of the request may be given: the request's client went away
	// before an answer, or the play panicked.
	res    *PlayResult
	err    error
	stands bool
}

// flights are the move requests being played, by game and ply.
type flights struct {
	mu sync.Mutex
	m  map[flightKey]*flight
}

// join returns the flight at key, or starts one for the request (hash, pit)
// that the caller is then to play and land (lead).
func (fs *flights) join(key flightKey, hash []byte, pit int) (f *flight, lead bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f := fs.m[key]; f != nil {
		f.joined++
		return f, false
	}
	f = &flight{hash: hash, pit: pit, done: make(chan struct{})}
	fs.m[key] = f
	return f, true
}

// land ends the flight at key with its outcome and wakes its waiters. The
// flight leaves the map first: whoever comes next plays for itself, and
// reads the game that this play left.
func (fs *flights) land(key flightKey, f *flight, res *PlayResult, err error, stands bool) {
	fs.mu.Lock()
	delete(fs.m, key)
	fs.mu.Unlock()
	f.res, f.err, f.stands = res, err, stands
	close(f.done)
}

// inFlight reports whether a move request for game id at ply is being
// played on this instance.
func (fs *flights) inFlight(id string, ply int) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.m[flightKey{id: id, ply: ply}] != nil
}
