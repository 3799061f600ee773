package tournaments

import (
	"cmp"
	"context"
	"slices"

	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

// Standing is one line of an event's standings.
type Standing struct {
	Rank      int
	PlayerID  string
	Name      string
	Rating    float64
	Points    int // a win is 2 (arena bonuses on top)
	Withdrawn bool
	Playing   bool // in a game of the event now
	Games     int
	Wins      int
	Draws     int
	Losses    int
	// An arena's: the points of each game in order, and whether the
	// next win counts double.
	Sheet    []int
	OnFire   bool
	Berserks int
	// A Swiss event's tie-breaks and byes.
	Buchholz        int
	SonnebornBerger int
	Byes            int
}

// View is an event with its standings, best first.
type View struct {
	Tournament
	Standings []Standing
	Games     int // made so far
	Playing   int // of them, being played
}

// Standings returns the event with its standings, computed from its
// stored games at its current version (and kept for the next read until
// the event changes).
func (s *Service) Standings(ctx context.Context, id string) (View, error) {
	t, err := s.tournament(ctx, id)
	if err != nil {
		return View{}, err
	}
	s.mu.Lock()
	c, ok := s.tables[id]
	s.mu.Unlock()
	if ok && c.version == t.Version {
		return c.view, nil
	}
	ev, err := s.event(ctx, id)
	if err != nil {
		return View{}, err
	}
	v := standings(&ev)
	s.mu.Lock()
	if len(s.tables) >= maxCached {
		clear(s.tables)
	}
	if cur, ok := s.tables[id]; !ok || cur.version < ev.Version {
		s.tables[id] = cached{version: ev.Version, view: v}
	}
	s.mu.Unlock()
	return v, nil
}

// Event returns the event with every entrant and game.
func (s *Service) Event(ctx context.Context, id string) (Event, error) { return s.event(ctx, id) }

// standings computes ev's standings.
func standings(ev *Event) View {
	v := View{Tournament: ev.Tournament, Games: len(ev.Games)}
	busy := playing(ev)
	for i := range ev.Games {
		if !ev.Games[i].Done {
			v.Playing++
		}
	}
	byID := make(map[string]*Entrant, len(ev.Entrants))
	for i := range ev.Entrants {
		byID[ev.Entrants[i].PlayerID] = &ev.Entrants[i]
	}
	line := func(id string) Standing {
		e := byID[id]
		st := Standing{PlayerID: id, Playing: busy[id]}
		if e != nil {
			st.Name, st.Rating, st.Withdrawn = e.Name, e.Rating, e.Withdrawn
		}
		return st
	}
	switch ev.Kind {
	case Arena:
		for _, sc := range arenaScores(ev) {
			st := line(sc.ID)
			st.Rank, st.Points, st.Sheet, st.OnFire = sc.Rank, sc.Points, sc.Sheet, sc.OnFire
			st.Games, st.Wins, st.Berserks = sc.Games, sc.Wins, sc.Berserks
			v.Standings = append(v.Standings, st)
		}
		countArena(ev, v.Standings)
	case Swiss:
		entrants, played, byes := swissInput(ev)
		for _, sw := range pairing.SwissStandings(entrants, played, byes) {
			st := line(sw.ID)
			st.Rank, st.Points, st.Buchholz, st.SonnebornBerger = sw.Rank, sw.Points, sw.Buchholz, sw.SonnebornBerger
			st.Wins, st.Draws, st.Losses, st.Byes = sw.Wins, sw.Draws, sw.Losses, sw.Byes
			st.Games = sw.Wins + sw.Draws + sw.Losses
			v.Standings = append(v.Standings, st)
		}
	}
	slices.SortStableFunc(v.Standings, func(a, b Standing) int { return cmp.Compare(a.Rank, b.Rank) })
	return v
}

// countArena fills in each arena line's draws and losses from the games
// that count.
func countArena(ev *Event, lines []Standing) {
	at := make(map[string]*Standing, len(lines))
	for i := range lines {
		at[lines[i].PlayerID] = &lines[i]
	}
	for i := range ev.Games {
		g := &ev.Games[i]
		if !g.Done || g.Aborted {
			continue
		}
		south, north := at[g.South], at[g.North]
		switch g.Outcome {
		case pairing.Draw:
			bump(south, func(s *Standing) { s.Draws++ })
			bump(north, func(s *Standing) { s.Draws++ })
		case pairing.SouthWins:
			bump(north, func(s *Standing) { s.Losses++ })
		case pairing.NorthWins:
			bump(south, func(s *Standing) { s.Losses++ })
		}
	}
}

func bump(s *Standing, f func(*Standing)) {
	if s != nil {
		f(s)
	}
}

// sortByEnd orders games by when they ended, then by id.
func sortByEnd(gs []*Game) {
	slices.SortStableFunc(gs, func(a, b *Game) int {
		if c := a.EndedAt.Compare(b.EndedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.GameID, b.GameID)
	})
}
