package players_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

func TestMakeBot(t *testing.T) {
	st := memory.New()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	svc := players.NewService(st, func() time.Time { return now })
	p, token, err := svc.Create(t.Context(), "Robo")
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := svc.Create(t.Context(), "Person")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		token string
		want  error
	}{
		{"no token", "", players.ErrUnauthorized},
		{"an unknown token", "pl_nobody", players.ErrUnauthorized},
		{"another player's token", other, players.ErrForbidden},
		{"its own token", token, nil},
		{"again: answered as it is", token, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := svc.MakeBot(t.Context(), p.ID, tc.token)
			if !errors.Is(err, tc.want) {
				t.Fatalf("MakeBot: %v, want %v", err, tc.want)
			}
			if err == nil && (!got.Bot || got.ID != p.ID) {
				t.Errorf("MakeBot = %+v, want player %s a bot", got, p.ID)
			}
		})
	}
	bots, err := svc.Bots(t.Context(), []string{p.ID, "nobody"})
	if err != nil || !bots[p.ID] || len(bots) != 1 {
		t.Errorf("Bots = %v, %v; want only %s", bots, err, p.ID)
	}
}

func TestOnlineBots(t *testing.T) {
	st := memory.New()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	svc := players.NewService(st, func() time.Time { return now })
	var ids []string
	for _, name := range []string{"b1", "b2", "b3", "gone", "person"} {
		p, token, err := svc.Create(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		if name != "person" {
			if _, err := svc.MakeBot(t.Context(), p.ID, token); err != nil {
				t.Fatal(err)
			}
		}
		at := now.Add(-time.Second)
		if name == "gone" {
			at = now.Add(-players.OnlineGrace - time.Second)
		}
		if err := st.Touch(t.Context(), p.ID, at, at.Add(20*time.Second)); err != nil {
			t.Fatal(err)
		}
		if name != "gone" && name != "person" {
			ids = append(ids, p.ID)
		}
	}
	var got []string
	cursor := ""
	for page := 0; page < 5; page++ {
		bots, next, err := svc.OnlineBots(t.Context(), cursor, 2)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, b := range bots {
			got = append(got, b.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(got) != len(ids) {
		t.Fatalf("online bots %q, want the %d of %q", got, len(ids), ids)
	}
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Errorf("online bots %q not by id", got)
		}
	}
	for _, id := range ids {
		found := false
		for _, g := range got {
			found = found || g == id
		}
		if !found {
			t.Errorf("bot %s is missing from %q", id, got)
		}
	}
	if _, _, err := svc.OnlineBots(t.Context(), "not a cursor", 2); !errors.Is(err, players.ErrInvalidCursor) {
		t.Errorf("a bad cursor: %v, want ErrInvalidCursor", err)
	}
}
