package memory

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
)

// lobbyRows are the lobby's tables, under Store.mu like the games, so a
// pairing and its game are one step.
type lobbyRows struct {
	seeks      map[string]*lobby.Seek
	challenges map[string]*lobby.Challenge
	events     map[string][]lobby.Event // by stream
	tickets    map[string]ticket        // by hash
}

type ticket struct {
	player  string
	expires time.Time
}

// rows returns the lobby's tables, made on first use; s.mu is held.
func (s *Store) rows() *lobbyRows {
	l := &s.lobby
	if l.seeks == nil {
		l.seeks, l.challenges = map[string]*lobby.Seek{}, map[string]*lobby.Challenge{}
		l.events, l.tickets = map[string][]lobby.Event{}, map[string]ticket{}
	}
	return l
}

func openAt(sk *lobby.Seek, at time.Time) bool {
	return sk.Status == lobby.SeekOpen && at.Before(sk.ExpiresAt)
}

func pendingAt(c *lobby.Challenge, at time.Time) bool {
	return c.Status == lobby.ChallengePending && at.Before(c.ExpiresAt)
}

// AddSeek implements lobby.Store.
func (s *Store) AddSeek(ctx context.Context, sk lobby.Seek, maxOpen int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	n := 0
	for _, o := range l.seeks {
		if o.PlayerID != sk.PlayerID || !openAt(o, sk.CreatedAt) {
			continue
		}
		if n++; n >= maxOpen || o.TimeControl == sk.TimeControl {
			return lobby.ErrTooManySeeks
		}
	}
	if sk.Clock() && s.playingLive(sk.PlayerID) {
		return lobby.ErrPlaying
	}
	sk.Status = lobby.SeekOpen
	l.seeks[sk.ID] = &sk
	return nil
}

// playingLive reports whether player has an active game with a live
// clock; s.mu is held.
func (s *Store) playingLive(player string) bool {
	for _, row := range s.games {
		g := &row.game
		if g.Status == games.Active && g.TimeControl.Kind == games.Live && (g.Players[0].ID == player || g.Players[1].ID == player) {
			return true
		}
	}
	return false
}

// Seek implements lobby.Store.
func (s *Store) Seek(ctx context.Context, id string) (lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return lobby.Seek{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	sk, ok := s.rows().seeks[id]
	if !ok {
		return lobby.Seek{}, lobby.ErrNotFound
	}
	return *sk, nil
}

func bySeekAge(a, b lobby.Seek) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
}

// Candidates implements lobby.Store.
func (s *Store) Candidates(ctx context.Context, q lobby.CandidateQuery) ([]lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []lobby.Seek
	for _, o := range s.rows().seeks {
		if openAt(o, q.At) && o.TimeControl == q.TimeControl && o.Rated == q.Rated && o.PlayerID != q.Player &&
			q.Range.Holds(o.Rating.Value) && o.Range.Holds(q.Rating) {
			out = append(out, *o)
		}
	}
	slices.SortFunc(out, bySeekAge)
	return out[:min(len(out), max(q.Limit, 0))], nil
}

// Pair implements lobby.Store.
func (s *Store) Pair(ctx context.Context, p lobby.Pairing) ([]lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	a, b := l.seeks[p.Seek], l.seeks[p.Other]
	if a == nil || b == nil || !openAt(a, p.At) || !openAt(b, p.At) {
		return nil, lobby.ErrConflict
	}
	if _, ok := s.games[p.Game.ID]; ok {
		return nil, lobby.ErrConflict
	}
	if p.CancelClock && (s.playingLive(p.Game.Players[0].ID) || s.playingLive(p.Game.Players[1].ID)) {
		return nil, lobby.ErrPlaying
	}
	a.Status, a.GameID, a.Side, a.UpdatedAt = lobby.SeekMatched, p.Game.ID, p.SeekSide, p.At
	b.Status, b.GameID, b.Side, b.UpdatedAt = lobby.SeekMatched, p.Game.ID, p.OtherSide, p.At
	var cancelled []lobby.Seek
	if p.CancelClock {
		cancelled = s.cancelClock(p.At, a.PlayerID, b.PlayerID)
	}
	g := copyGame(p.Game)
	s.games[g.ID] = &gameRow{game: g}
	return cancelled, nil
}

// CancelSeek implements lobby.Store.
func (s *Store) CancelSeek(ctx context.Context, id string, at time.Time) (lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return lobby.Seek{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sk, ok := s.rows().seeks[id]
	switch {
	case !ok:
		return lobby.Seek{}, lobby.ErrNotFound
	case !openAt(sk, at):
		return lobby.Seek{}, lobby.ErrConflict
	}
	sk.Status, sk.UpdatedAt = lobby.SeekCancelled, at
	return *sk, nil
}

// OpenSeeks implements lobby.Store.
func (s *Store) OpenSeeks(ctx context.Context, q lobby.LobbyQuery) ([]lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []lobby.Seek
	for _, o := range s.rows().seeks {
		if openAt(o, q.At) && (q.Kind == games.Untimed || o.TimeControl.Kind == q.Kind) && (q.Rated == nil || *q.Rated == o.Rated) {
			out = append(out, *o)
		}
	}
	slices.SortFunc(out, func(a, b lobby.Seek) int { return bySeekAge(b, a) })
	return out[:min(len(out), max(q.Limit, 0))], nil
}

// PlayerSeeks implements lobby.Store.
func (s *Store) PlayerSeeks(ctx context.Context, player string, at time.Time) ([]lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []lobby.Seek
	for _, o := range s.rows().seeks {
		if o.PlayerID == player && openAt(o, at) {
			out = append(out, *o)
		}
	}
	slices.SortFunc(out, bySeekAge)
	return out, nil
}

// AddChallenge implements lobby.Store.
func (s *Store) AddChallenge(ctx context.Context, c lobby.Challenge) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	if c.RematchOf != "" {
		for _, o := range l.challenges {
			if o.RematchOf == c.RematchOf && o.Status == lobby.ChallengePending {
				return lobby.ErrConflict
			}
		}
	}
	c.Status = lobby.ChallengePending
	l.challenges[c.ID] = &c
	return nil
}

// Challenge implements lobby.Store.
func (s *Store) Challenge(ctx context.Context, id string) (lobby.Challenge, error) {
	if err := ctx.Err(); err != nil {
		return lobby.Challenge{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.rows().challenges[id]
	if !ok {
		return lobby.Challenge{}, lobby.ErrNotFound
	}
	return *c, nil
}

// Accept implements lobby.Store.
func (s *Store) Accept(ctx context.Context, a lobby.Acceptance) (lobby.Challenge, []lobby.Seek, error) {
	if err := ctx.Err(); err != nil {
		return lobby.Challenge{}, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	c, ok := l.challenges[a.ID]
	switch {
	case !ok:
		return lobby.Challenge{}, nil, lobby.ErrNotFound
	case !pendingAt(c, a.At):
		return lobby.Challenge{}, nil, lobby.ErrConflict
	}
	if _, ok := s.games[a.Game.ID]; ok {
		return lobby.Challenge{}, nil, lobby.ErrConflict
	}
	if a.CancelClock && (s.playingLive(a.Game.Players[0].ID) || s.playingLive(a.Game.Players[1].ID)) {
		return lobby.Challenge{}, nil, lobby.ErrPlaying
	}
	c.Status, c.AcceptedBy, c.GameID, c.Side, c.UpdatedAt = lobby.ChallengeAccepted, a.By, a.Game.ID, a.Side, a.At
	var cancelled []lobby.Seek
	if a.CancelClock {
		cancelled = s.cancelClock(a.At, a.Game.Players[0].ID, a.Game.Players[1].ID)
	}
	s.games[a.Game.ID] = &gameRow{game: copyGame(a.Game)}
	return *c, cancelled, nil
}

// cancelClock cancels the open seeks with a live clock of players a and
// b, as of at, and returns them by id.
func (s *Store) cancelClock(at time.Time, a, b string) []lobby.Seek {
	var cancelled []lobby.Seek
	for _, o := range s.rows().seeks {
		if (o.PlayerID == a || o.PlayerID == b) && o.Status == lobby.SeekOpen && o.Clock() {
			o.Status, o.UpdatedAt = lobby.SeekCancelled, at
			cancelled = append(cancelled, *o)
		}
	}
	slices.SortFunc(cancelled, func(x, y lobby.Seek) int { return cmp.Compare(x.ID, y.ID) })
	return cancelled
}

// CloseChallenge implements lobby.Store.
func (s *Store) CloseChallenge(ctx context.Context, id string, status lobby.ChallengeStatus, reason lobby.DeclineReason, at time.Time) (lobby.Challenge, error) {
	if err := ctx.Err(); err != nil {
		return lobby.Challenge{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.rows().challenges[id]
	switch {
	case !ok:
		return lobby.Challenge{}, lobby.ErrNotFound
	case !pendingAt(c, at):
		return lobby.Challenge{}, lobby.ErrConflict
	}
	c.Status, c.Reason, c.UpdatedAt = status, reason, at
	return *c, nil
}

func byChallengeAge(a, b lobby.Challenge) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
}

// PlayerChallenges implements lobby.Store.
func (s *Store) PlayerChallenges(ctx context.Context, player string, at time.Time) ([]lobby.Challenge, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []lobby.Challenge
	for _, c := range s.rows().challenges {
		if c.Involves(player) && pendingAt(c, at) {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, byChallengeAge)
	return out, nil
}

// PendingRematch implements lobby.Store.
func (s *Store) PendingRematch(ctx context.Context, game string, at time.Time) (lobby.Challenge, error) {
	if err := ctx.Err(); err != nil {
		return lobby.Challenge{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, c := range s.rows().challenges {
		if c.RematchOf == game && pendingAt(c, at) {
			return *c, nil
		}
	}
	return lobby.Challenge{}, lobby.ErrNotFound
}

// Touch implements lobby.Store.
func (s *Store) Touch(ctx context.Context, player string, at, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seenBot(player, at)
	l := s.rows()
	for _, o := range l.seeks {
		if o.PlayerID == player && o.Clock() && openAt(o, at) && o.ExpiresAt.Before(until) {
			o.ExpiresAt = until
		}
	}
	for _, c := range l.challenges {
		if c.From == player && c.TimeControl.Kind == games.Live && pendingAt(c, at) && c.ExpiresAt.Before(until) {
			c.ExpiresAt = until
		}
	}
	return nil
}

// Expire implements lobby.Store.
func (s *Store) Expire(ctx context.Context, at time.Time, limit int) ([]lobby.Seek, []lobby.Challenge, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	var seeks []*lobby.Seek
	for _, o := range l.seeks {
		if o.Status == lobby.SeekOpen && !at.Before(o.ExpiresAt) {
			seeks = append(seeks, o)
		}
	}
	slices.SortFunc(seeks, func(a, b *lobby.Seek) int { return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.ID, b.ID)) })
	var chs []*lobby.Challenge
	for _, c := range l.challenges {
		if c.Status == lobby.ChallengePending && !at.Before(c.ExpiresAt) {
			chs = append(chs, c)
		}
	}
	slices.SortFunc(chs, func(a, b *lobby.Challenge) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.ID, b.ID))
	})
	outS := make([]lobby.Seek, 0, min(len(seeks), limit))
	for _, o := range seeks[:min(len(seeks), limit)] {
		o.Status, o.UpdatedAt = lobby.SeekExpired, at
		outS = append(outS, *o)
	}
	outC := make([]lobby.Challenge, 0, min(len(chs), limit))
	for _, c := range chs[:min(len(chs), limit)] {
		c.Status, c.UpdatedAt = lobby.ChallengeExpired, at
		outC = append(outC, *c)
	}
	return outS, outC, nil
}

// AppendEvents implements lobby.Store.
func (s *Store) AppendEvents(ctx context.Context, evs []lobby.Event) ([]lobby.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	out := make([]lobby.Event, len(evs))
	for i, e := range evs {
		e.Seq = 1
		if log := l.events[e.Stream]; len(log) > 0 {
			e.Seq = log[len(log)-1].Seq + 1
		}
		e.Seek, e.Challenge, e.Game = nil, nil, nil
		l.events[e.Stream] = append(l.events[e.Stream], e)
		out[i] = e
	}
	return out, nil
}

// Events implements lobby.Store.
func (s *Store) Events(ctx context.Context, stream string, after int64, limit int) ([]lobby.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []lobby.Event
	for _, e := range s.rows().events[stream] {
		if e.Seq > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

// LastEvent implements lobby.Store.
func (s *Store) LastEvent(ctx context.Context, stream string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if log := s.rows().events[stream]; len(log) > 0 {
		return log[len(log)-1].Seq, nil
	}
	return 0, nil
}

// PruneEvents implements lobby.Store. The last event of a stream is kept,
// so that its numbering goes on.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	n := 0
	for k, log := range l.events {
		i := 0
		for i < len(log)-1 && n < limit && log[i].At.Before(before) {
			i++
			n++
		}
		l.events[k] = slices.Clone(log[i:])
	}
	for h, t := range l.tickets {
		if t.expires.Before(before) {
			delete(l.tickets, h)
		}
	}
	return n, nil
}

// AddTicket implements lobby.Store.
func (s *Store) AddTicket(ctx context.Context, hash []byte, player string, expires time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows().tickets[string(hash)] = ticket{player: player, expires: expires}
	return nil
}

// UseTicket implements lobby.Store.
func (s *Store) UseTicket(ctx context.Context, hash []byte, at time.Time) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.rows()
	t, ok := l.tickets[string(hash)]
	delete(l.tickets, string(hash))
	if !ok || !at.Before(t.expires) {
		return "", lobby.ErrNotFound
	}
	return t.player, nil
}

// PlayingGames implements lobby.Store.
func (s *Store) PlayingGames(ctx context.Context, player string) ([]games.Game, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []games.Game
	for _, row := range s.games {
		g := &row.game
		if g.Status == games.Active && (g.Players[0].ID == player || g.Players[1].ID == player) {
			out = append(out, copyGame(*g))
		}
	}
	slices.SortFunc(out, func(a, b games.Game) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), bytes.Compare([]byte(a.ID), []byte(b.ID)))
	})
	return out, nil
}
