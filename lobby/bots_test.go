package lobby_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

// bot is a new player of w made a bot.
func (w *world) bot(t *testing.T, name string) *players.Player {
	t.Helper()
	p, token, err := w.ps.Create(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.ps.MakeBot(t.Context(), p.ID, token)
	if err != nil {
		t.Fatal(err)
	}
	return &b
}

func TestCompatibleBots(t *testing.T) {
	seek := func(id string, bot, noBots bool) lobby.Seek {
		return lobby.Seek{PlayerID: id, TimeControl: blitz, Seat: lobby.SeatRandom, Bot: bot, NoBots: noBots}
	}
	for _, tc := range []struct {
		name string
		a, b lobby.Seek
		want bool
	}{
		{"two people", seek("a", false, false), seek("b", false, false), true},
		{"two people refusing bots", seek("a", false, true), seek("b", false, true), true},
		{"a bot and a person who allows bots", seek("a", true, false), seek("b", false, false), true},
		{"a bot and a person who refuses bots", seek("a", true, false), seek("b", false, true), false},
		{"two bots", seek("a", true, false), seek("b", true, false), true},
		{"two bots, one refusing bots", seek("a", true, true), seek("b", true, false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lobby.Compatible(&tc.a, &tc.b); got != tc.want {
				t.Errorf("Compatible: %v, want %v", got, tc.want)
			}
			if got := lobby.Compatible(&tc.b, &tc.a); got != tc.want {
				t.Errorf("Compatible the other way: %v, want %v", got, tc.want)
			}
		})
	}
}

// A seek that refuses bots is passed over by a bot's, which pairs with the
// next seek that allows bots; the lobby shows who is a bot.
func TestSeekRefusesBots(t *testing.T) {
	w := newWorld(t)
	ann, bob, robo := w.player(t, "Ann"), w.player(t, "Bob"), w.bot(t, "Robo")
	picky := w.seek(t, ann, lobby.NewSeek{TimeControl: blitz, NoBots: true})
	w.clock.Advance(time.Millisecond)
	open := w.seek(t, bob, lobby.NewSeek{TimeControl: rapid})
	w.clock.Advance(time.Millisecond)
	botSeek := w.seek(t, robo, lobby.NewSeek{TimeControl: blitz})
	if botSeek.Status != lobby.SeekOpen || !botSeek.Bot {
		t.Fatalf("the bot's seek: %+v, want open and marked a bot's", botSeek)
	}
	if got, err := w.lobby.Seek(t.Context(), ann, picky.ID); err != nil || got.Status != lobby.SeekOpen || !got.NoBots {
		t.Fatalf("Ann's seek: %+v, %v; want open, refusing bots", got, err)
	}
	w.clock.Advance(time.Millisecond)
	botRapid := w.seek(t, robo, lobby.NewSeek{TimeControl: rapid})
	if botRapid.Status != lobby.SeekMatched {
		t.Fatalf("the bot's rapid seek is %s, want matched with Bob's", botRapid.Status)
	}
	if got, _ := w.lobby.Seek(t.Context(), bob, open.ID); got.GameID != botRapid.GameID {
		t.Errorf("Bob's seek is in game %q, want %q", got.GameID, botRapid.GameID)
	}
}

func TestChallengeRefusesBots(t *testing.T) {
	w := newWorld(t)
	ann, robo, robo2 := w.player(t, "Ann"), w.bot(t, "Robo"), w.bot(t, "Robo2")
	if _, err := w.lobby.Challenge(t.Context(), ann, lobby.NewChallenge{To: robo.ID, TimeControl: blitz, NoBots: true}); !errors.Is(err, lobby.ErrBotsRefused) {
		t.Errorf("a challenge to a bot that refuses bots: %v, want ErrBotsRefused", err)
	}
	toBot, err := w.lobby.Challenge(t.Context(), ann, lobby.NewChallenge{To: robo.ID, TimeControl: blitz})
	if err != nil {
		t.Fatal(err)
	}
	if !toBot.ToBot || toBot.FromBot {
		t.Errorf("a challenge from Ann to Robo: FromBot %v ToBot %v, want false true", toBot.FromBot, toBot.ToBot)
	}
	open, err := w.lobby.Challenge(t.Context(), ann, lobby.NewChallenge{TimeControl: rapid, NoBots: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.lobby.Accept(t.Context(), robo2, open.ID); !errors.Is(err, lobby.ErrBotsRefused) {
		t.Errorf("a bot accepting an open challenge that refuses bots: %v, want ErrBotsRefused", err)
	}
	if got, err := w.lobby.GetChallenge(t.Context(), open.ID); err != nil || got.Status != lobby.ChallengePending || !got.NoBots {
		t.Errorf("the refused challenge: %+v, %v; want pending, refusing bots", got, err)
	}
	fromBot, err := w.lobby.Challenge(t.Context(), robo2, lobby.NewChallenge{To: ann.ID, TimeControl: corr})
	if err != nil {
		t.Fatal(err)
	}
	if !fromBot.FromBot {
		t.Error("a bot's challenge is not marked a bot's")
	}
	if got, err := w.lobby.Accept(t.Context(), ann, fromBot.ID); err != nil || got.Status != lobby.ChallengeAccepted {
		t.Errorf("Ann accepting a bot's challenge: %+v, %v", got, err)
	}
}
