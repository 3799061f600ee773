package stored

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// scanned is a row as a driver would leave it after Targets: the values
// given, in column order, copied into the destinations.
func scanned(t *testing.T, r *GameRow, values []any) {
	t.Helper()
	var instant time.Time
	targets := r.Targets(&instant, &instant, &instant, &instant)
	if len(targets) != len(values) {
		t.Fatalf("%d targets, %d values", len(targets), len(values))
	}
	for i, v := range values {
		switch d := targets[i].(type) {
		case *string:
			*d = v.(string)
		case *int:
			*d = v.(int)
		case *int64:
			*d = v.(int64)
		case *bool:
			*d = v.(bool)
		case *float64:
			*d = v.(float64)
		case *[]byte:
			*d, _ = v.([]byte)
		case **string:
			*d, _ = v.(*string)
		case **int:
			*d, _ = v.(*int)
		case **float64:
			*d, _ = v.(*float64)
		case *time.Time:
		default:
			t.Fatalf("target %d: %T", i, d)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// row is a game row's values in GameColumns' order (the instants nil):
// a game against the AI at level 3, one move in, on a clock, South's seat a
// player with a rating change.
func row() []any {
	return []any{"g1", nil, nil, nil, "taken", "last_mover", "s-444444-444444-0-0", 1,
		"n-270616-660066-2-0", "0", "active", "", "", ptr("north"), ptr(3),
		[]byte{1}, []byte(nil), int64(7),
		"live", int64(180e6), int64(2e6), int64(0), int64(179e6), int64(180e6), nil, true,
		ptr("p1"), "Ada", 1500.0, 350.0, ptr(12.5),
		(*string)(nil), "", 0.0, 0.0, (*float64)(nil),
		"north", ""}
}

func TestGameRow(t *testing.T) {
	var r GameRow
	scanned(t, &r, row())
	g, err := r.Game()
	if err != nil {
		t.Fatal(err)
	}
	if g.ID != "g1" || g.Ply != 1 || g.Version != 7 || !g.Rated || g.Status != games.Active ||
		len(g.History) != 1 || g.Position.String() != "n-270616-660066-2-0" {
		t.Errorf("game %+v", g)
	}
	if g.DrawOffer != games.OfferByNorth || g.TakebackOffer != games.NoOffer {
		t.Errorf("offers %v %v, want north's draw offer", g.DrawOffer, g.TakebackOffer)
	}
	if g.AI == nil || g.AI.Side != engine.North || g.AI.Level != 3 {
		t.Errorf("AI %+v", g.AI)
	}
	if g.TimeControl.Kind != games.Live || g.TimeControl.Initial != 3*time.Minute || g.Clock[engine.South] != 179*time.Second {
		t.Errorf("time control %+v, clock %v", g.TimeControl, g.Clock)
	}
	south, north := g.Players[engine.South], g.Players[engine.North]
	if south.ID != "p1" || south.Name != "Ada" || !south.HasChange || south.Change != 12.5 || north != (games.SeatPlayer{}) {
		t.Errorf("players %+v", g.Players)
	}
	if got := SeatArgs(south); got[0] != "p1" || got[4] != 12.5 {
		t.Errorf("SeatArgs(%+v) = %v", south, got)
	}
	if got := SeatArgs(north); got[0] != nil || got[4] != nil {
		t.Errorf("SeatArgs of no player = %v, want NULL id and change", got)
	}
}

// TestGameRowUndecodable: a stored value that does not decode is the
// server's fault, never a domain error the API would blame on the client.
func TestGameRowUndecodable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		column int
		value  any
	}{
		{"a position that does not parse", 8, "n-27"},
		{"a history with a letter past pit 11", 9, "z"},
		{"an unknown status", 10, "paused"},
		{"an unknown winner", 11, "east"},
		{"an AI side without a level", 14, (*int)(nil)},
		{"an unknown rule", 4, "kept"},
		{"an unknown time control", 18, "blitz"},
		{"an offer of no side", 36, "east"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := row()
			values[tc.column] = tc.value
			var r GameRow
			scanned(t, &r, values)
			_, err := r.Game()
			if err == nil || !strings.Contains(err.Error(), "stored game g1 does not decode") {
				t.Fatalf("err = %v, want the row named undecodable", err)
			}
			if errors.Is(err, engine.ErrInvalidNotation) || errors.Is(err, engine.ErrInvalidRules) || errors.Is(err, engine.ErrInvalidWord) {
				t.Fatalf("err = %v matches a domain error", err)
			}
		})
	}
}
