package tournaments

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

// Games is what events need of the games service (*games.Service has it):
// to build the games a pairing agreed on, to be told they were stored, and
// to read a game whose end this instance did not see.
type Games interface {
	Paired(req games.PairedGame) (games.Game, error)
	Started(g games.Game)
	Game(ctx context.Context, id string) (games.Game, error)
	Berserk(ctx context.Context, id string, side engine.Side) (games.Game, error)
}

// EventKind names what a follower of an event is told.
type EventKind string

// The kinds of event news.
const (
	EventStarted      EventKind = "started"
	EventPaired       EventKind = "paired"
	EventGameFinished EventKind = "gameFinished"
	EventStandings    EventKind = "standings"
	EventFinished     EventKind = "finished"
)

// News is one piece of news of an event: its kind and, for a game's, the
// game's id.
type News struct {
	Tournament string
	Kind       EventKind
	GameID     string
	At         time.Time
}

// Notifier passes the news on: to the event's followers, and to each
// player whose game a pairing made (their own stream's tournamentGame).
type Notifier interface {
	Tournament(ctx context.Context, n []News)
	TournamentGame(ctx context.Context, player, tournament, gameID string, side engine.Side, at time.Time)
}

// Options configure a Service.
type Options struct {
	// Games builds and starts paired games. Required.
	Games Games
	// Notify hears the news. Nil: nobody.
	Notify Notifier
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// Logger gets what the service cannot answer. Nil discards it.
	Logger *slog.Logger
	// Authorize finds the player a token acts for with a scope
	// (*players.Service's Authorize): a bulk pairing's consents. Nil: a
	// consent is the player's own token only.
	Authorize func(ctx context.Context, token string, need players.Scope) (players.Player, error)
	// Recheck is how often a look at an event also reads each of its
	// games in play, for those that ended on an instance that died
	// before it copied their results (the instance that ends a game
	// copies its result at once). Zero: DefaultRecheck.
	Recheck time.Duration
}

// DefaultRecheck is Options.Recheck's default.
const DefaultRecheck = 10 * time.Second

// Service runs events. Its methods are safe for concurrent use.
type Service struct {
	store   Store
	o       Options
	log     *slog.Logger
	wake    chan struct{}
	mu      sync.Mutex
	tables  map[string]cached    // standings by event, at a version
	checked map[string]time.Time // when each event's games in play were last read
}

// cached is an event's standings as they stood at its Version.
type cached struct {
	version int64
	view    View
}

// maxCached bounds the standings kept; past it the cache starts again.
const maxCached = 256

// NewService returns the service over st.
func NewService(st Store, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Recheck <= 0 {
		o.Recheck = DefaultRecheck
	}
	return &Service{store: st, o: o, log: o.Logger, wake: make(chan struct{}, 1), tables: map[string]cached{},
		checked: map[string]time.Time{}}
}

// clock is now at the precision stores keep.
func (s *Service) clock() time.Time { return s.o.Now().UTC().Truncate(time.Microsecond) }

func newID() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NewTournament is what an organiser asks for.
type NewTournament struct {
	Kind        Kind
	Name        string
	TimeControl games.TimeControl
	Rated       bool
	StartsAt    time.Time // zero: now
	Minutes     int
	Rounds      int
	RoundGap    time.Duration
	Berserk     bool
	Conditions  Conditions
}

// Create makes an event, upcoming.
func (s *Service) Create(ctx context.Context, organiser *players.Player, req NewTournament) (Tournament, error) {
	if organiser == nil {
		return Tournament{}, fmt.Errorf("%w: an event needs an organiser (send its Player-Token)", players.ErrUnauthorized)
	}
	now := s.clock()
	if req.StartsAt.IsZero() {
		req.StartsAt = now
	}
	req.StartsAt = req.StartsAt.UTC().Truncate(time.Microsecond)
	if err := checkNew(&req, now); err != nil {
		return Tournament{}, err
	}
	t := Tournament{ID: newID(), Kind: req.Kind, Name: req.Name, CreatedBy: organiser.ID, CreatedAt: now,
		TimeControl: req.TimeControl, Rated: req.Rated, StartsAt: req.StartsAt, Minutes: req.Minutes,
		Rounds: req.Rounds, RoundGap: req.RoundGap, Berserk: req.Berserk, Conditions: req.Conditions,
		Status: Upcoming, Version: 1}
	if err := s.store.CreateTournament(ctx, t); err != nil {
		return Tournament{}, err
	}
	s.kick()
	return t, nil
}

// checkNew validates an event's terms.
func checkNew(req *NewTournament, now time.Time) error {
	req.Name = strings.TrimSpace(req.Name)
	switch {
	case req.Name == "" || utf8.RuneCountInString(req.Name) > MaxNameRunes || !utf8.ValidString(req.Name):
		return fmt.Errorf("%w: a name of 1 to %d characters", ErrInvalid, MaxNameRunes)
	case req.TimeControl.Kind != games.Live:
		return fmt.Errorf("%w: events are played with a live clock", ErrInvalid)
	case req.StartsAt.Before(now.Add(-time.Second)):
		return fmt.Errorf("%w: %s is before now", ErrStartInPast, req.StartsAt.Format(time.RFC3339))
	case req.StartsAt.After(now.Add(MaxAhead)):
		return fmt.Errorf("%w: a start at most %d days ahead", ErrInvalid, MaxAhead/(24*time.Hour))
	case req.Conditions.MinRatedGames < 0 || req.Conditions.MinRating < 0 || req.Conditions.MaxRating < 0:
		return fmt.Errorf("%w: conditions are never negative", ErrInvalid)
	case req.Conditions.MaxRating > 0 && req.Conditions.MinRating > req.Conditions.MaxRating:
		return fmt.Errorf("%w: minRating %g is above maxRating %g", ErrInvalid, req.Conditions.MinRating, req.Conditions.MaxRating)
	}
	if err := req.TimeControl.Check(); err != nil {
		return err
	}
	switch req.Kind {
	case Arena:
		if req.Minutes < MinArenaMinutes || req.Minutes > MaxArenaMinutes {
			return fmt.Errorf("%w: an arena lasts %d to %d minutes", ErrInvalid, MinArenaMinutes, MaxArenaMinutes)
		}
		if req.Rounds != 0 || req.RoundGap != 0 {
			return fmt.Errorf("%w: rounds are for Swiss events", ErrInvalid)
		}
	case Swiss:
		if req.Rounds < MinRounds || req.Rounds > MaxRounds {
			return fmt.Errorf("%w: a Swiss event has %d to %d rounds", ErrInvalid, MinRounds, MaxRounds)
		}
		if req.RoundGap < 0 || req.RoundGap > MaxRoundGap {
			return fmt.Errorf("%w: rounds at most %d days apart", ErrInvalid, MaxRoundGap/(24*time.Hour))
		}
		if req.Minutes != 0 || req.Berserk {
			return fmt.Errorf("%w: minutes and berserk are for arenas", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: kind %q (arena or swiss)", ErrInvalid, req.Kind)
	}
	return nil
}

// event reads an event, naming a missing one.
func (s *Service) event(ctx context.Context, id string) (Event, error) {
	ev, err := s.store.Event(ctx, id)
	if errors.Is(err, ErrStoreNotFound) {
		return Event{}, fmt.Errorf("tournament %s: %w", id, ErrNotFound)
	}
	return ev, err
}

// Join enters the player into the event: before it starts, or while it
// runs (an arena until its end, a Swiss event until its last round).
func (s *Service) Join(ctx context.Context, player *players.Player, id string) (Entrant, error) {
	if player == nil {
		return Entrant{}, fmt.Errorf("%w: joining needs a player (send its Player-Token)", players.ErrUnauthorized)
	}
	t, err := s.tournament(ctx, id)
	if err != nil {
		return Entrant{}, err
	}
	now := s.clock()
	if err := joinable(&t, now); err != nil {
		return Entrant{}, err
	}
	p, err := s.store.Player(ctx, player.ID)
	if err != nil {
		return Entrant{}, err
	}
	rating := p.Rating(players.Live).Idle(now)
	if err := t.Conditions.admit(&p, rating.Value); err != nil {
		return Entrant{}, err
	}
	e := Entrant{PlayerID: p.ID, Name: p.Name, Rating: rating.Value, JoinedAt: now, JoinedRound: t.Round + 1}
	if t.Kind == Swiss && t.Status == Upcoming {
		e.JoinedRound = 1
	}
	err = s.store.JoinTournament(ctx, id, e)
	if errors.Is(err, ErrConflict) {
		// Finished meanwhile, or joined already: say which.
		if cur, rerr := s.tournament(ctx, id); rerr == nil && cur.Status == Finished {
			return Entrant{}, fmt.Errorf("%w: tournament %s", ErrFinished, id)
		}
		return Entrant{}, fmt.Errorf("%w: tournament %s", ErrAlreadyJoined, id)
	}
	if err != nil {
		return Entrant{}, err
	}
	s.news(ctx, News{Tournament: id, Kind: EventStandings, At: now})
	s.kick()
	return e, nil
}

// joinable says why t takes no entrant at now, if it does not.
func joinable(t *Tournament, now time.Time) error {
	switch {
	case t.Status == Finished:
		return fmt.Errorf("%w: tournament %s", ErrFinished, t.ID)
	case t.Kind == Arena && !now.Before(t.EndsAt()):
		return fmt.Errorf("%w: tournament %s ended at %s", ErrFinished, t.ID, t.EndsAt().Format(time.RFC3339))
	case t.Kind == Swiss && t.Round >= t.Rounds:
		return fmt.Errorf("%w: tournament %s is in its last round", ErrTooLate, t.ID)
	}
	return nil
}

// admit says why c keeps p, whose rating is rating, out, if it does.
func (c Conditions) admit(p *players.Player, rating float64) error {
	switch {
	case p.Bot && !c.Bots:
		return fmt.Errorf("%w: the event lets no bots in", ErrConditions)
	case p.Counts.Rated < c.MinRatedGames:
		return fmt.Errorf("%w: %d rated games finished, %d needed", ErrConditions, p.Counts.Rated, c.MinRatedGames)
	case c.MinRating > 0 && rating < c.MinRating:
		return fmt.Errorf("%w: rating %.0f is below %g", ErrConditions, rating, c.MinRating)
	case c.MaxRating > 0 && rating > c.MaxRating:
		return fmt.Errorf("%w: rating %.0f is above %g", ErrConditions, rating, c.MaxRating)
	}
	return nil
}

// Withdraw takes the player out of the event: no more pairings; a game in
// play goes on and counts, and the player stays in the standings.
func (s *Service) Withdraw(ctx context.Context, player *players.Player, id string) error {
	if player == nil {
		return fmt.Errorf("%w: withdrawing needs a player (send its Player-Token)", players.ErrUnauthorized)
	}
	t, err := s.tournament(ctx, id)
	if err != nil {
		return err
	}
	if t.Status == Finished {
		return fmt.Errorf("%w: tournament %s", ErrFinished, id)
	}
	err = s.store.Withdraw(ctx, id, player.ID)
	if errors.Is(err, ErrConflict) {
		return fmt.Errorf("%w: tournament %s", ErrNotJoined, id)
	}
	if err != nil {
		return err
	}
	s.news(ctx, News{Tournament: id, Kind: EventStandings, At: s.clock()})
	return nil
}

// tournament reads an event's row, naming a missing one.
func (s *Service) tournament(ctx context.Context, id string) (Tournament, error) {
	t, err := s.store.Tournament(ctx, id)
	if errors.Is(err, ErrStoreNotFound) {
		return Tournament{}, fmt.Errorf("tournament %s: %w", id, ErrNotFound)
	}
	return t, err
}

// List returns a page of events of status.
func (s *Service) List(ctx context.Context, status Status, limit int, after string) ([]Tournament, error) {
	q := ListQuery{Status: status, Limit: limit}
	if after != "" {
		t, err := s.tournament(ctx, after)
		if err != nil {
			return nil, err
		}
		q.After = &t
	}
	return s.store.Tournaments(ctx, q)
}

// news passes news on, if anyone hears it.
func (s *Service) news(ctx context.Context, n ...News) {
	if s.o.Notify != nil && len(n) > 0 {
		s.o.Notify.Tournament(ctx, n)
	}
}

// kick wakes Run for a look at the due events now.
func (s *Service) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run looks at the due events every interval, and whenever a change may
// let one move on (a join, a game's end), until ctx ends.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.Tick(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "running tournaments failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// Tick moves every due event on: starts it, copies the results of games
// that ended unseen, pairs, and finishes it. Any number of instances may
// tick at once: every write is conditional.
func (s *Service) Tick(ctx context.Context) error {
	due, err := s.store.Due(ctx, s.clock(), 1000)
	if err != nil {
		return err
	}
	var errs []error
	for i := range due {
		if err := s.advance(ctx, due[i].ID); err != nil {
			errs = append(errs, fmt.Errorf("tournament %s: %w", due[i].ID, err))
		}
	}
	return errors.Join(errs...)
}

// advance moves one event on as far as it can go now.
func (s *Service) advance(ctx context.Context, id string) error {
	ev, err := s.event(ctx, id)
	if err != nil {
		return err
	}
	now := s.clock()
	if ev.Status == Upcoming {
		if now.Before(ev.StartsAt) {
			return nil
		}
		if err := s.store.Start(ctx, id, now); err != nil && !errors.Is(err, ErrConflict) {
			return err
		} else if err == nil {
			s.news(ctx, News{Tournament: id, Kind: EventStarted, At: now})
		}
		if ev, err = s.event(ctx, id); err != nil {
			return err
		}
	}
	if ev.Status != Running {
		return nil
	}
	if s.recheckDue(id, now) {
		n, err := s.reconcile(ctx, &ev)
		if err != nil {
			return err
		}
		if n > 0 {
			if ev, err = s.event(ctx, id); err != nil {
				return err
			}
		}
	}
	// The time of what follows is after the last read: a game read as
	// ended ended before it, and so before the games paired now begin.
	now = s.clock()
	switch ev.Kind {
	case Arena:
		return s.advanceArena(ctx, &ev, now)
	case Swiss:
		return s.advanceSwiss(ctx, &ev, now)
	}
	return nil
}

// recheckDue says whether event id's games in play are to be read now,
// and if so notes that they were.
func (s *Service) recheckDue(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.checked[id]; ok && now.Sub(last) < s.o.Recheck {
		return false
	}
	if len(s.checked) >= maxCached {
		clear(s.checked)
	}
	s.checked[id] = now
	return true
}

// reconcile copies the result of every game of ev that has ended without
// its result being copied (its end was seen by no instance that lived to
// copy it), and says how many it found ended.
func (s *Service) reconcile(ctx context.Context, ev *Event) (int, error) {
	n := 0
	for i := range ev.Games {
		tg := &ev.Games[i]
		if tg.Done {
			continue
		}
		g, err := s.o.Games.Game(ctx, tg.GameID)
		if errors.Is(err, games.ErrNotFound) {
			// Deleted before its result was copied: it counts nowhere.
			g = games.Game{ID: tg.GameID, Status: games.Aborted, UpdatedAt: s.clock()}
		} else if err != nil {
			return n, err
		}
		if !g.Status.Over() {
			continue
		}
		// Copied here or, when reading it ended it (an overdue game),
		// by this instance's Ended: either way the event changed.
		if _, err := s.record(ctx, &g); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Ended hears of a game this instance ended (games.EndNotifier): when it
// is an event's, its result is copied at once and the event looked at.
func (s *Service) Ended(ctx context.Context, g games.Game) {
	copied, err := s.record(ctx, &g)
	if err != nil {
		s.log.WarnContext(ctx, "copying a tournament game's result failed (the next tick copies it)", "game", g.ID, "error", err.Error())
		return
	}
	if copied {
		s.kick()
	}
}

// record copies g's result into its event, once, and says whether this
// call did.
func (s *Service) record(ctx context.Context, g *games.Game) (bool, error) {
	id, err := s.store.GameTournament(ctx, g.ID)
	if errors.Is(err, ErrStoreNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r := resultOf(g)
	err = s.store.RecordResult(ctx, g.ID, r)
	if errors.Is(err, ErrConflict) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if absent := g.Players[g.Ply%2].ID; r.Aborted && absent != "" {
		// A player who let a game go without a first move is gone: out
		// of the pairings (as a withdrawal) until they join again, so
		// that nobody else waits on them.
		if err := s.store.Withdraw(ctx, id, absent); err != nil && !errors.Is(err, ErrConflict) {
			return true, err
		}
	}
	s.news(ctx, News{Tournament: id, Kind: EventGameFinished, GameID: g.ID, At: r.EndedAt},
		News{Tournament: id, Kind: EventStandings, At: r.EndedAt})
	return true, nil
}

// resultOf is what an event keeps of ended game g. An aborted game (a side
// never made its first move) is kept as a loss of the side that did not
// move, marked Aborted: Swiss standings count it as a forfeit, arena
// scores not at all.
func resultOf(g *games.Game) Result {
	r := Result{Plies: g.Ply, EndedAt: g.UpdatedAt}
	if g.Status == games.Aborted {
		r.Aborted = true
		r.Outcome = pairing.NorthWins
		if g.Ply%2 == 1 {
			r.Outcome = pairing.SouthWins
		}
		return r
	}
	switch g.Result.Winner {
	case engine.SouthWins:
		r.Outcome = pairing.SouthWins
	case engine.NorthWins:
		r.Outcome = pairing.NorthWins
	default:
		r.Outcome = pairing.Draw
	}
	return r
}

// playing returns the players of ev with a game not yet done.
func playing(ev *Event) map[string]bool {
	busy := map[string]bool{}
	for i := range ev.Games {
		if g := &ev.Games[i]; !g.Done {
			busy[g.South], busy[g.North] = true, true
		}
	}
	return busy
}

// seatBalance returns each player's Souths minus Norths in ev.
func seatBalance(ev *Event) map[string]int {
	seats := map[string]int{}
	for i := range ev.Games {
		g := &ev.Games[i]
		seats[g.South]++
		seats[g.North]--
	}
	return seats
}

// advanceArena pairs the free players of a running arena, or finishes it
// once its time is up and its last game has ended.
func (s *Service) advanceArena(ctx context.Context, ev *Event, now time.Time) error {
	busy := playing(ev)
	if !now.Before(ev.EndsAt()) {
		if len(busy) > 0 {
			return nil
		}
		return s.finish(ctx, ev, now)
	}
	scores := arenaScores(ev)
	points := map[string]int{}
	for _, sc := range scores {
		points[sc.ID] = sc.Points
	}
	last := map[string]string{}
	for i := range ev.Games {
		g := &ev.Games[i]
		last[g.South], last[g.North] = g.North, g.South
	}
	var free []pairing.ArenaPlayer
	for _, e := range ev.Entrants {
		if e.Withdrawn || busy[e.PlayerID] {
			continue
		}
		free = append(free, pairing.ArenaPlayer{ID: e.PlayerID, Rating: e.Rating, Points: points[e.PlayerID], LastOpponent: last[e.PlayerID]})
	}
	if len(free) < 2 {
		return nil
	}
	pairs := pairing.ArenaPairs(free, seatBalance(ev))
	return s.pair(ctx, ev, pairs, 0, "", now)
}

// advanceSwiss starts the next round of a running Swiss event once every
// game of the round has ended (and its RoundGap has passed), or finishes
// the event after its last round.
func (s *Service) advanceSwiss(ctx context.Context, ev *Event, now time.Time) error {
	if len(playing(ev)) > 0 {
		return nil
	}
	if ev.Round > 0 && ev.RoundGap > 0 && now.Before(ev.RoundAt.Add(ev.RoundGap)) {
		return nil
	}
	if ev.Round >= ev.Rounds {
		return s.finish(ctx, ev, now)
	}
	round := ev.Round + 1
	entrants, played, byes := swissInput(ev)
	pairs, bye, err := pairing.SwissRound(entrants, played, byes, round)
	if errors.Is(err, pairing.ErrNoPairing) {
		// Earlier rounds left no legal pairing (a small field near as
		// many rounds as a round robin): the event ends with the rounds
		// it played, rather than with a repeated game.
		s.log.InfoContext(ctx, "a Swiss event ends early: its next round has no legal pairing", "tournament", ev.ID, "round", round)
		return s.finish(ctx, ev, now)
	}
	if err != nil {
		return fmt.Errorf("round %d: %w", round, err)
	}
	return s.pair(ctx, ev, pairs, round, bye, now)
}

// swissInput is ev as pairing.SwissRound and SwissStandings read it.
func swissInput(ev *Event) ([]pairing.Entrant, []pairing.Game, []string) {
	entrants := make([]pairing.Entrant, 0, len(ev.Entrants))
	for _, e := range ev.Entrants {
		entrants = append(entrants, pairing.Entrant{ID: e.PlayerID, Rating: e.Rating, Withdrawn: e.Withdrawn, JoinedRound: e.JoinedRound})
	}
	played := make([]pairing.Game, 0, len(ev.Games))
	for i := range ev.Games {
		g := &ev.Games[i]
		played = append(played, pairing.Game{Round: g.Round, South: g.South, North: g.North, Done: g.Done, Outcome: g.Outcome})
	}
	byes := make([]string, ev.Round)
	for _, b := range ev.Byes {
		if b.Round >= 1 && b.Round <= len(byes) {
			byes[b.Round-1] = b.PlayerID
		}
	}
	return entrants, played, byes
}

// arenaScores scores ev's games that count, in the order they ended.
func arenaScores(ev *Event) []pairing.ArenaScore {
	ids := make([]string, 0, len(ev.Entrants))
	for _, e := range ev.Entrants {
		ids = append(ids, e.PlayerID)
	}
	var done []*Game
	for i := range ev.Games {
		if g := &ev.Games[i]; g.Done && !g.Aborted {
			done = append(done, g)
		}
	}
	sortByEnd(done)
	gs := make([]pairing.ArenaGame, 0, len(done))
	for _, g := range done {
		gs = append(gs, pairing.ArenaGame{South: g.South, North: g.North, Outcome: g.Outcome, Berserk: g.Berserk, Plies: g.Plies, Done: true})
	}
	return pairing.ArenaScores(ids, gs)
}

// pair makes the games of pairs (and a Swiss round's bye) in one
// conditional write. When another instance paired first, nothing is made
// here: the next tick reads what it made.
func (s *Service) pair(ctx context.Context, ev *Event, pairs []pairing.Pair, round int, bye string, now time.Time) error {
	if len(pairs) == 0 && bye == "" {
		return nil
	}
	p := Pairing{Tournament: ev.ID, PairSeq: ev.PairSeq, Round: round, At: now}
	if bye != "" {
		p.Byes = []string{bye}
	}
	for _, pr := range pairs {
		south, err := s.store.Player(ctx, pr.South)
		if err != nil {
			return err
		}
		north, err := s.store.Player(ctx, pr.North)
		if err != nil {
			return err
		}
		g, err := s.o.Games.Paired(games.PairedGame{Rules: engine.Rules{}, Start: engine.Start(), TimeControl: ev.TimeControl,
			Rated: ev.Rated, Players: [2]*players.Player{&south, &north}})
		if err != nil {
			return err
		}
		p.Sessions = append(p.Sessions, g)
		p.Games = append(p.Games, Game{GameID: g.ID, Round: round, South: pr.South, North: pr.North, CreatedAt: now})
	}
	err := s.store.PairTournament(ctx, p)
	if errors.Is(err, ErrConflict) {
		return nil
	}
	if err != nil {
		return err
	}
	news := make([]News, 0, len(p.Games)+1)
	for i := range p.Sessions {
		s.o.Games.Started(p.Sessions[i])
		tg := &p.Games[i]
		news = append(news, News{Tournament: ev.ID, Kind: EventPaired, GameID: tg.GameID, At: now})
		if s.o.Notify != nil {
			s.o.Notify.TournamentGame(ctx, tg.South, ev.ID, tg.GameID, engine.South, now)
			s.o.Notify.TournamentGame(ctx, tg.North, ev.ID, tg.GameID, engine.North, now)
		}
	}
	if round > 0 {
		news = append(news, News{Tournament: ev.ID, Kind: EventStandings, At: now})
	}
	s.news(ctx, news...)
	return nil
}

// finish ends the event, once.
func (s *Service) finish(ctx context.Context, ev *Event, now time.Time) error {
	err := s.store.Finish(ctx, ev.ID, now)
	if errors.Is(err, ErrConflict) {
		return nil
	}
	if err != nil {
		return err
	}
	s.news(ctx, News{Tournament: ev.ID, Kind: EventFinished, At: now})
	return nil
}

// Berserk halves the player's clock in their arena game that has not seen
// their first move, for a point more if they win it.
func (s *Service) Berserk(ctx context.Context, player *players.Player, gameID string) (games.Game, error) {
	if player == nil {
		return games.Game{}, fmt.Errorf("%w: berserk needs a player (send its Player-Token)", players.ErrUnauthorized)
	}
	id, err := s.store.GameTournament(ctx, gameID)
	if errors.Is(err, ErrStoreNotFound) {
		return games.Game{}, fmt.Errorf("%w: game %s is no tournament's", ErrBerserk, gameID)
	}
	if err != nil {
		return games.Game{}, err
	}
	ev, err := s.event(ctx, id)
	if err != nil {
		return games.Game{}, err
	}
	if ev.Kind != Arena || !ev.Berserk {
		return games.Game{}, fmt.Errorf("%w: tournament %s allows no berserk", ErrBerserk, id)
	}
	var tg *Game
	for i := range ev.Games {
		if ev.Games[i].GameID == gameID {
			tg = &ev.Games[i]
		}
	}
	side := engine.South
	switch {
	case tg == nil || tg.Done:
		return games.Game{}, fmt.Errorf("%w: game %s is over", ErrBerserk, gameID)
	case tg.North == player.ID:
		side = engine.North
	case tg.South != player.ID:
		return games.Game{}, fmt.Errorf("%w: game %s is not yours", ErrBerserk, gameID)
	}
	if tg.Berserk[side] {
		return games.Game{}, fmt.Errorf("%w: berserk already", ErrBerserk)
	}
	// The clock first, conditional on the game as read: of two requests
	// one halves it, and a crash before the mark costs the player the
	// point, never gives one for a full clock.
	g, err := s.o.Games.Berserk(ctx, gameID, side)
	if err != nil {
		return games.Game{}, err
	}
	if err := s.store.SetBerserk(ctx, gameID, side); errors.Is(err, ErrConflict) {
		return games.Game{}, fmt.Errorf("%w: berserk already, or the game is over", ErrBerserk)
	} else if err != nil {
		return games.Game{}, err
	}
	return g, nil
}
