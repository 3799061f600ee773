package players

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGlickmanExample is the worked example of Glickman's "Example of the
// Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to 1550/100 and to
// 1700/300 in one period, and comes out at 1464.06/151.52/0.05999.
func TestGlickmanExample(t *testing.T) {
	r := Rating{Value: 1500, Deviation: 200, Volatility: 0.06}
	got := Update(r,
		Outcome{Opponent: Rating{Value: 1400, Deviation: 30, Volatility: 0.06}, Score: 1},
		Outcome{Opponent: Rating{Value: 1550, Deviation: 100, Volatility: 0.06}, Score: 0},
		Outcome{Opponent: Rating{Value: 1700, Deviation: 300, Volatility: 0.06}, Score: 0},
	)
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		// The paper rounds its intermediate values (μ' = -0.2069), so
		// its figures are within a hundredth of the exact ones: 1464.0507,
		// 151.5165, 0.059996.
		{"value", got.Value, 1464.06, 0.01},
		{"deviation", got.Deviation, 151.52, 0.01},
		{"volatility", got.Volatility, 0.05999, 0.00001},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.5f, want %.5f", c.name, c.got, c.want)
		}
	}
	if got.Games != 3 {
		t.Errorf("games = %d, want 3", got.Games)
	}
}

func randomRating(rng *rand.Rand) Rating {
	return Rating{
		Value:      MinValue + rng.Float64()*(MaxValue-MinValue),
		Deviation:  MinDeviation + rng.Float64()*(MaxDeviation-MinDeviation),
		Volatility: 0.0001 + rng.Float64()*(MaxVolatility-0.0001),
	}
}

func finite(t *testing.T, what string, r Rating) {
	t.Helper()
	for _, x := range []float64{r.Value, r.Deviation, r.Volatility} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s: %+v is not finite", what, r)
		}
	}
	if r.Value < MinValue || r.Value > MaxValue || r.Deviation < MinDeviation || r.Deviation > MaxDeviation || r.Volatility > MaxVolatility {
		t.Fatalf("%s: %+v out of bounds", what, r)
	}
}

// TestRateProperties: a win never lowers a rating and a loss never raises
// it, a game leaves a deviation narrower than the period's own widening
// by the new volatility (so against a far weaker or stronger opponent it
// may widen a little, as Glicko-2 says), and nothing leaves its bounds,
// over random ratings.
func TestRateProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20000 {
		a, b := randomRating(rng), randomRating(rng)
		for _, score := range []float64{1, 0.5, 0} {
			na, nb := Rate(a, b, score, at)
			finite(t, "a", na)
			finite(t, "b", nb)
			switch score {
			case 1:
				if na.Value < a.Value || nb.Value > b.Value {
					t.Fatalf("case %d: a win moved %v→%v and %v→%v", i, a.Value, na.Value, b.Value, nb.Value)
				}
			case 0:
				if na.Value > a.Value || nb.Value < b.Value {
					t.Fatalf("case %d: a loss moved %v→%v and %v→%v", i, a.Value, na.Value, b.Value, nb.Value)
				}
			}
			if na.Deviation > math.Hypot(a.Deviation, na.Volatility*glickoScale)+1e-9 || nb.Deviation > math.Hypot(b.Deviation, nb.Volatility*glickoScale)+1e-9 {
				t.Fatalf("case %d: a game widened a deviation: %v→%v, %v→%v", i, a.Deviation, na.Deviation, b.Deviation, nb.Deviation)
			}
			if na.Games != 1 || nb.Games != 1 || !na.At.Equal(at) {
				t.Fatalf("case %d: games %d %d at %v", i, na.Games, nb.Games, na.At)
			}
		}
	}
}

// TestDeviationShrinks: a new player's deviation falls with every game
// against a steady opponent, down to its floor, and leaves "provisional".
func TestDeviationShrinks(t *testing.T) {
	r, opp := NewRating(), Rating{Value: 1500, Deviation: 60, Volatility: 0.06}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	prev := r.Deviation
	for i := range 200 {
		r, _ = Rate(r, opp, float64(i%2), at)
		if r.Deviation > prev+1e-9 {
			t.Fatalf("game %d: deviation grew %v→%v", i, prev, r.Deviation)
		}
		prev = r.Deviation
	}
	if r.Provisional() || r.Deviation >= 80 {
		t.Errorf("after 200 games deviation %.1f, provisional %v", r.Deviation, r.Provisional())
	}
	if !NewRating().Provisional() {
		t.Error("a new rating is not provisional")
	}
}

// TestIdle: time without games widens the deviation, never past the
// initial one, and never for a rating with no date.
func TestIdle(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := Rating{Value: 1700, Deviation: 50, Volatility: 0.06, At: at}
	for _, c := range []struct {
		name     string
		after    time.Duration
		min, max float64
	}{
		{"none", 0, 50, 50},
		{"a month", 30 * 24 * time.Hour, 70, 85},
		{"ten years", 3650 * 24 * time.Hour, MaxDeviation, MaxDeviation},
		{"backwards", -time.Hour, 50, 50},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := r.Idle(at.Add(c.after))
			if got.Deviation < c.min || got.Deviation > c.max || got.Value != r.Value {
				t.Errorf("%+v", got)
			}
		})
	}
	if got := NewRating().Idle(at); got.Deviation != InitialDeviation {
		t.Errorf("undated rating idled to %v", got.Deviation)
	}
}

// FuzzUpdate: whatever the numbers, an update is finite and in bounds.
func FuzzUpdate(f *testing.F) {
	f.Add(1500.0, 200.0, 0.06, 1400.0, 30.0, 0.06, 1.0)
	f.Add(math.NaN(), math.Inf(1), -1.0, 1e308, 0.0, 0.0, 0.5)
	f.Add(400.0, 45.0, 0.1, 4000.0, 45.0, 0.1, 1.0)
	f.Fuzz(func(t *testing.T, v, d, s, ov, od, os, score float64) {
		got := Update(Rating{Value: v, Deviation: d, Volatility: s},
			Outcome{Opponent: Rating{Value: ov, Deviation: od, Volatility: os}, Score: score})
		finite(t, "update", got)
		finite(t, "idle", Update(Rating{Value: v, Deviation: d, Volatility: s}))
	})
}
