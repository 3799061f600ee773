package tournaments_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/tournaments"
)

// An event keeps bots out unless its conditions let them in; people join
// either.
func TestJoinBots(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 3)
	org, person, bot := ps[0], ps[1], ps[2]
	made, err := w.st.MakeBot(t.Context(), bot.ID, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	bot = &made
	start := w.clock.Now().Add(time.Minute)
	closed := w.create(t, org, tournaments.NewTournament{Kind: tournaments.Arena, Name: "People", TimeControl: blitz, Minutes: 10, StartsAt: start})
	open := w.create(t, org, tournaments.NewTournament{Kind: tournaments.Arena, Name: "Bots welcome", TimeControl: blitz, Minutes: 10, StartsAt: start,
		Conditions: tournaments.Conditions{Bots: true}})
	if open.Conditions.Bots != true || closed.Conditions.Bots {
		t.Fatalf("the events' conditions: %+v and %+v", closed.Conditions, open.Conditions)
	}
	for _, tc := range []struct {
		name  string
		event tournaments.Tournament
		who   string
		want  error
	}{
		{"a bot, bots kept out", closed, "bot", tournaments.ErrConditions},
		{"a person, bots kept out", closed, "person", nil},
		{"a bot, bots let in", open, "bot", nil},
		{"a person, bots let in", open, "person", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := person
			if tc.who == "bot" {
				p = bot
			}
			if _, err := w.svc.Join(t.Context(), p, tc.event.ID); !errors.Is(err, tc.want) {
				t.Errorf("Join: %v, want %v", err, tc.want)
			}
		})
	}
}
