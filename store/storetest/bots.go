package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ayoayo/ayoayo/players"
)

// The cases of bot accounts: becoming one (once, before any rated game),
// which players are bots, and which bots an event stream touched lately
// (lobby.Store's Touch, read by players.Store's OnlineBots).
var botCases = []suiteCase{
	{"bots/make", testMakeBot},
	{"bots/refused with a rated game", testMakeBotRefused},
	{"bots/among", testBotsAmong},
	{"bots/online", testOnlineBots},
}

func testMakeBot(t *testing.T, s Store, _ *fixtures) {
	p := mustCreatePlayer(t, s, "bot-a")
	got, err := s.MakeBot(t.Context(), p.ID, tick(3))
	if err != nil {
		t.Fatalf("MakeBot: %v", err)
	}
	want := p
	want.Bot, want.UpdatedAt = true, tick(3)
	checkPlayer(t, "MakeBot's answer", got, want)
	checkStoredPlayer(t, s, "the bot", want)
	// A bot already is answered as it is, its UpdatedAt kept.
	again, err := s.MakeBot(t.Context(), p.ID, tick(9))
	if err != nil {
		t.Fatalf("MakeBot again: %v", err)
	}
	checkPlayer(t, "MakeBot's second answer", again, want)
	if _, err := s.MakeBot(t.Context(), "nobody", tick(3)); !errors.Is(err, players.ErrNotFound) {
		t.Errorf("MakeBot of an unknown player: %v, want players.ErrNotFound", err)
	}
}

func testMakeBotRefused(t *testing.T, s Store, _ *fixtures) {
	for _, id := range []string{"fin-a", "fin-b", "act-a", "act-b", "cas-a", "cas-b"} {
		mustCreatePlayer(t, s, id)
	}
	resignRated(t, s, "bot-finished", "fin-a", "fin-b", live, tick(2))
	ratedGame(t, s, "bot-active", [2]string{"act-a", "act-b"}, live, true, false)
	ratedGame(t, s, "bot-casual", [2]string{"cas-a", "cas-b"}, live, false, false)
	for _, tc := range []struct {
		name, id string
		refused  bool
	}{
		{"a finished rated game", "fin-a", true},
		{"a rated game in play, south", "act-a", true},
		{"a rated game in play, north", "act-b", true},
		{"a casual game in play", "cas-b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := mustPlayer(t, s, tc.id)
			_, err := s.MakeBot(t.Context(), tc.id, tick(7))
			if !tc.refused {
				if err != nil {
					t.Fatalf("MakeBot: %v", err)
				}
				if !mustPlayer(t, s, tc.id).Bot {
					t.Error("the player is no bot")
				}
				return
			}
			if !errors.Is(err, players.ErrConflict) {
				t.Fatalf("MakeBot: %v, want players.ErrConflict", err)
			}
			checkStoredPlayer(t, s, "the refused player", before)
		})
	}
}

func testBotsAmong(t *testing.T, s Store, _ *fixtures) {
	for _, id := range []string{"among-a", "among-b", "among-c"} {
		mustCreatePlayer(t, s, id)
	}
	for _, id := range []string{"among-a", "among-c"} {
		if _, err := s.MakeBot(t.Context(), id, tick(1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		ids  []string
		want []string
	}{
		{"none asked", nil, nil},
		{"people only", []string{"among-b", "nobody"}, nil},
		{"bots and people, one twice", []string{"among-c", "among-b", "among-a", "among-c", "nobody"}, []string{"among-a", "among-c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.BotsAmong(t.Context(), tc.ids)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("BotsAmong = %q, want %q", got, tc.want)
			}
		})
	}
}

func testOnlineBots(t *testing.T, s Store, _ *fixtures) {
	// Ids whose byte order is not their case-blind order.
	for _, id := range []string{"On-b", "on-a", "on-c", "on-person"} {
		mustCreatePlayer(t, s, id)
	}
	for _, id := range []string{"On-b", "on-a", "on-c"} {
		if _, err := s.MakeBot(t.Context(), id, tick(1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, touch := range []struct {
		id string
		at int
	}{{"on-a", 10}, {"On-b", 20}, {"on-person", 20}, {"on-a", 30}} {
		if err := s.Touch(t.Context(), touch.id, tick(touch.at), tick(touch.at+20)); err != nil {
			t.Fatalf("Touch %s: %v", touch.id, err)
		}
	}
	for _, tc := range []struct {
		name  string
		since int
		after string
		limit int
		want  []players.OnlineBot
	}{
		{"all seen", 0, "", 10, []players.OnlineBot{{ID: "On-b", Name: "Ọlá On-b", SeenAt: tick(20)}, {ID: "on-a", Name: "Ọlá on-a", SeenAt: tick(30)}}},
		{"seen lately", 25, "", 10, []players.OnlineBot{{ID: "on-a", Name: "Ọlá on-a", SeenAt: tick(30)}}},
		{"at the bound", 20, "", 10, []players.OnlineBot{{ID: "On-b", Name: "Ọlá On-b", SeenAt: tick(20)}, {ID: "on-a", Name: "Ọlá on-a", SeenAt: tick(30)}}},
		{"a page", 0, "", 1, []players.OnlineBot{{ID: "On-b", Name: "Ọlá On-b", SeenAt: tick(20)}}},
		{"the next page", 0, "On-b", 1, []players.OnlineBot{{ID: "on-a", Name: "Ọlá on-a", SeenAt: tick(30)}}},
		{"none after", 0, "on-a", 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.OnlineBots(t.Context(), tick(tc.since), tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b players.OnlineBot) bool {
				return a.ID == b.ID && a.Name == b.Name && a.SeenAt.Equal(b.SeenAt)
			}) {
				t.Errorf("OnlineBots = %+v, want %+v", got, tc.want)
			}
		})
	}
}
