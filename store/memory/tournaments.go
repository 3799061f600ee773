package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/tournaments"
)

var _ tournaments.Store = (*Store)(nil)

// tournamentRows are the events' tables, under Store.mu like the games,
// so that a pairing and its games are one step.
type tournamentRows struct {
	events map[string]*eventRow
	byGame map[string]string // an event's game id -> the event's id
	bulks  map[string]*tournaments.Bulk
}

type eventRow struct {
	t        tournaments.Tournament
	entrants []tournaments.Entrant
	games    []tournaments.Game
	byes     []tournaments.Bye
}

func newTournamentRows() tournamentRows {
	return tournamentRows{events: map[string]*eventRow{}, byGame: map[string]string{}, bulks: map[string]*tournaments.Bulk{}}
}

// tourn returns the events' tables (made by New, since readers share
// s.mu); s.mu is held.
func (s *Store) tourn() *tournamentRows { return &s.tourns }

// gameOf returns the event row of gameID and its game in it; s.mu is held.
func (s *Store) gameOf(gameID string) (*eventRow, *tournaments.Game) {
	r := s.tourn()
	ev := r.events[r.byGame[gameID]]
	if ev == nil {
		return nil, nil
	}
	for i := range ev.games {
		if ev.games[i].GameID == gameID {
			return ev, &ev.games[i]
		}
	}
	return nil, nil
}

// CreateTournament implements tournaments.Store.
func (s *Store) CreateTournament(ctx context.Context, t tournaments.Tournament) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.tourn()
	if _, ok := r.events[t.ID]; ok {
		return tournaments.ErrConflict
	}
	r.events[t.ID] = &eventRow{t: t}
	return nil
}

// Tournament implements tournaments.Store.
func (s *Store) Tournament(ctx context.Context, id string) (tournaments.Tournament, error) {
	if err := ctx.Err(); err != nil {
		return tournaments.Tournament{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ev, ok := s.tourn().events[id]
	if !ok {
		return tournaments.Tournament{}, tournaments.ErrStoreNotFound
	}
	return ev.t, nil
}

// Event implements tournaments.Store.
func (s *Store) Event(ctx context.Context, id string) (tournaments.Event, error) {
	if err := ctx.Err(); err != nil {
		return tournaments.Event{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ev, ok := s.tourn().events[id]
	if !ok {
		return tournaments.Event{}, tournaments.ErrStoreNotFound
	}
	out := tournaments.Event{Tournament: ev.t, Entrants: slices.Clone(ev.entrants), Games: slices.Clone(ev.games), Byes: slices.Clone(ev.byes)}
	slices.SortFunc(out.Entrants, func(a, b tournaments.Entrant) int {
		return cmp.Or(a.JoinedAt.Compare(b.JoinedAt), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	slices.SortFunc(out.Games, func(a, b tournaments.Game) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.GameID, b.GameID))
	})
	slices.SortStableFunc(out.Byes, func(a, b tournaments.Bye) int { return cmp.Compare(a.Round, b.Round) })
	return out, nil
}

// byStart orders upcoming and running events.
func byStart(a, b *tournaments.Tournament) int {
	return cmp.Or(a.StartsAt.Compare(b.StartsAt), cmp.Compare(a.ID, b.ID))
}

// byFinish orders finished events, oldest first.
func byFinish(a, b *tournaments.Tournament) int {
	return cmp.Or(a.FinishedAt.Compare(b.FinishedAt), cmp.Compare(a.ID, b.ID))
}

// Tournaments implements tournaments.Store.
func (s *Store) Tournaments(ctx context.Context, q tournaments.ListQuery) ([]tournaments.Tournament, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	order := byStart
	if q.Status == tournaments.Finished {
		order = func(a, b *tournaments.Tournament) int { return byFinish(b, a) }
	}
	var out []tournaments.Tournament
	for _, ev := range s.tourn().events {
		if ev.t.Status == q.Status && (q.After == nil || order(q.After, &ev.t) < 0) {
			out = append(out, ev.t)
		}
	}
	slices.SortFunc(out, func(a, b tournaments.Tournament) int { return order(&a, &b) })
	return out[:min(len(out), max(q.Limit, 0))], nil
}

// Due implements tournaments.Store.
func (s *Store) Due(ctx context.Context, at time.Time, limit int) ([]tournaments.Tournament, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []tournaments.Tournament
	for _, ev := range s.tourn().events {
		if t := &ev.t; t.Status == tournaments.Running || (t.Status == tournaments.Upcoming && !t.StartsAt.After(at)) {
			out = append(out, *t)
		}
	}
	slices.SortFunc(out, func(a, b tournaments.Tournament) int { return byStart(&a, &b) })
	return out[:min(len(out), max(limit, 0))], nil
}

// JoinTournament implements tournaments.Store.
func (s *Store) JoinTournament(ctx context.Context, id string, e tournaments.Entrant) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.tourn().events[id]
	switch {
	case !ok:
		return tournaments.ErrStoreNotFound
	case ev.t.Status == tournaments.Finished:
		return tournaments.ErrConflict
	}
	i := slices.IndexFunc(ev.entrants, func(o tournaments.Entrant) bool { return o.PlayerID == e.PlayerID })
	switch {
	case i < 0:
		e.Withdrawn = false
		ev.entrants = append(ev.entrants, e)
	case !ev.entrants[i].Withdrawn:
		return tournaments.ErrConflict
	default:
		ev.entrants[i].Withdrawn, ev.entrants[i].JoinedRound = false, e.JoinedRound
	}
	ev.t.Version++
	return nil
}

// Withdraw implements tournaments.Store.
func (s *Store) Withdraw(ctx context.Context, id, player string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.tourn().events[id]
	if !ok {
		return tournaments.ErrStoreNotFound
	}
	i := slices.IndexFunc(ev.entrants, func(o tournaments.Entrant) bool { return o.PlayerID == player })
	if ev.t.Status == tournaments.Finished || i < 0 || ev.entrants[i].Withdrawn {
		return tournaments.ErrConflict
	}
	ev.entrants[i].Withdrawn = true
	ev.t.PairSeq++
	ev.t.Version++
	return nil
}

// PairTournament implements tournaments.Store.
func (s *Store) PairTournament(ctx context.Context, p tournaments.Pairing) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.tourn()
	ev, ok := r.events[p.Tournament]
	if !ok || ev.t.Status != tournaments.Running || ev.t.PairSeq != p.PairSeq {
		return tournaments.ErrConflict
	}
	if !s.freeGameIDs(p.Sessions) {
		return tournaments.ErrConflict
	}
	seen := map[string]bool{}
	for i := range p.Games {
		id := p.Games[i].GameID
		if _, taken := r.byGame[id]; taken || seen[id] {
			return tournaments.ErrConflict
		}
		seen[id] = true
	}
	ev.t.PairSeq++
	ev.t.Version++
	if p.Round > 0 {
		ev.t.Round, ev.t.RoundAt = p.Round, p.At
		for _, b := range p.Byes {
			ev.byes = append(ev.byes, tournaments.Bye{Round: p.Round, PlayerID: b})
		}
	}
	for _, g := range p.Games {
		ev.games = append(ev.games, g)
		r.byGame[g.GameID] = p.Tournament
	}
	s.storeSessions(p.Sessions)
	return nil
}

// freeGameIDs reports whether no game has the id of any of gs, and no two
// of gs share one; s.mu is held.
func (s *Store) freeGameIDs(gs []games.Game) bool {
	seen := make(map[string]bool, len(gs))
	for i := range gs {
		if _, taken := s.games[gs[i].ID]; taken || seen[gs[i].ID] {
			return false
		}
		seen[gs[i].ID] = true
	}
	return true
}

// storeSessions stores gs as CreateGame does; s.mu is held.
func (s *Store) storeSessions(gs []games.Game) {
	for i := range gs {
		row := &gameRow{game: copyGame(gs[i])}
		row.game.Version = max(row.game.Version, 1)
		s.games[gs[i].ID] = row
	}
}

// RecordResult implements tournaments.Store.
func (s *Store) RecordResult(ctx context.Context, gameID string, res tournaments.Result) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, g := s.gameOf(gameID)
	switch {
	case g == nil:
		return tournaments.ErrStoreNotFound
	case g.Done:
		return tournaments.ErrConflict
	}
	g.Done, g.Outcome, g.Plies, g.EndedAt, g.Aborted = true, res.Outcome, res.Plies, res.EndedAt, res.Aborted
	ev.t.Version++
	return nil
}

// GameTournament implements tournaments.Store.
func (s *Store) GameTournament(ctx context.Context, gameID string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := s.tourn().byGame[gameID]
	if !ok {
		return "", tournaments.ErrStoreNotFound
	}
	return id, nil
}

// SetBerserk implements tournaments.Store.
func (s *Store) SetBerserk(ctx context.Context, gameID string, side engine.Side) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, g := s.gameOf(gameID)
	switch {
	case g == nil:
		return tournaments.ErrStoreNotFound
	case g.Done || g.Berserk[side]:
		return tournaments.ErrConflict
	}
	g.Berserk[side] = true
	ev.t.Version++
	return nil
}

// Start implements tournaments.Store.
func (s *Store) Start(ctx context.Context, id string, _ time.Time) error {
	return s.move(ctx, id, tournaments.Upcoming, func(t *tournaments.Tournament) { t.Status = tournaments.Running })
}

// Finish implements tournaments.Store.
func (s *Store) Finish(ctx context.Context, id string, at time.Time) error {
	return s.move(ctx, id, tournaments.Running, func(t *tournaments.Tournament) {
		t.Status, t.FinishedAt = tournaments.Finished, at
	})
}

// move applies to to event id when it is in status from.
func (s *Store) move(ctx context.Context, id string, from tournaments.Status, to func(*tournaments.Tournament)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.tourn().events[id]
	switch {
	case !ok:
		return tournaments.ErrStoreNotFound
	case ev.t.Status != from:
		return tournaments.ErrConflict
	}
	to(&ev.t)
	ev.t.Version++
	return nil
}

// CreateBulk implements tournaments.Store.
func (s *Store) CreateBulk(ctx context.Context, b tournaments.Bulk, sessions []games.Game) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.tourn()
	if _, ok := r.bulks[b.ID]; ok || !s.freeGameIDs(sessions) {
		return tournaments.ErrConflict
	}
	b.Games = slices.Clone(b.Games)
	r.bulks[b.ID] = &b
	s.storeSessions(sessions)
	return nil
}

// Bulk implements tournaments.Store.
func (s *Store) Bulk(ctx context.Context, id string) (tournaments.Bulk, error) {
	if err := ctx.Err(); err != nil {
		return tournaments.Bulk{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	b, ok := s.tourn().bulks[id]
	if !ok {
		return tournaments.Bulk{}, tournaments.ErrStoreNotFound
	}
	out := *b
	out.Games = slices.Clone(b.Games)
	return out, nil
}
