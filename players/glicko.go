package players

// Glicko-2, as Glickman describes it in "Example of the Glicko-2 system"
// (2013): each rated game is one rating period with one opponent, and a
// rating not played for a while grows less certain before its next game.

import (
	"math"
	"time"
)

// Glicko-2's constants and this server's bounds on them.
const (
	// glickoScale converts between the Glicko scale (1500, 350) and
	// Glicko-2's internal one (0, 2.01).
	glickoScale = 173.7178
	// Tau is the system constant: how much volatility may change in one
	// period. Glickman suggests 0.3 to 1.2; his worked example uses 0.5.
	Tau = 0.5
	// convergence is the tolerance of the volatility iteration (step 5).
	convergence = 1e-6
	// maxIterations bounds that iteration: it converges in a dozen steps,
	// and a bound keeps a pathological input from spinning.
	maxIterations = 100

	// InitialValue, InitialDeviation and InitialVolatility are a new
	// player's rating in every category.
	InitialValue      = 1500.0
	InitialDeviation  = 350.0
	InitialVolatility = 0.06

	// MinValue and MaxValue bound a rating, MinDeviation and MaxDeviation
	// its deviation, MaxVolatility its volatility: whatever the games, a
	// rating stays a number a front end can print.
	MinValue      = 400.0
	MaxValue      = 4000.0
	MinDeviation  = 30.0
	MaxDeviation  = InitialDeviation
	MaxVolatility = 0.1
	minVolatility = 1e-4

	// ProvisionalDeviation: a rating whose deviation is above it is
	// provisional (shown with a "?", kept off the leaderboards).
	ProvisionalDeviation = 110.0

	// IdlePeriod is how much time without a rated game counts as one
	// rating period without games, in which the deviation grows by the
	// volatility (step 6 alone): a rating unused for a year is nearly as
	// uncertain as a new one.
	IdlePeriod = 24 * time.Hour
)

// Rating is a Glicko-2 rating in one category, on the Glicko scale.
type Rating struct {
	Value      float64
	Deviation  float64
	Volatility float64
	Games      int       // rated games (or first puzzle attempts) it counts
	At         time.Time // its last update; zero when never updated
}

// NewRating is the rating of a player who has not played in a category.
func NewRating() Rating {
	return Rating{Value: InitialValue, Deviation: InitialDeviation, Volatility: InitialVolatility}
}

// Provisional reports whether r is still too uncertain to rank.
func (r Rating) Provisional() bool { return r.Deviation > ProvisionalDeviation }

// Outcome is one game of a rating period as the rated side saw it.
type Outcome struct {
	Opponent Rating
	Score    float64 // 1 a win, 0.5 a draw, 0 a loss
}

// Update returns r after a rating period with outcomes (Glickman's steps 1
// to 8). No outcomes: only the deviation grows (step 6). Inputs out of
// range are brought into range first, so the result is always finite.
func Update(r Rating, outcomes ...Outcome) Rating {
	r = r.clamped()
	mu := (r.Value - InitialValue) / glickoScale
	phi := r.Deviation / glickoScale
	sigma := r.Volatility
	if len(outcomes) == 0 {
		r.Deviation = math.Sqrt(phi*phi+sigma*sigma) * glickoScale
		return r.clamped()
	}
	// Steps 3 and 4: the estimated variance v and improvement delta.
	var vInv, sum float64
	for _, o := range outcomes {
		op := o.Opponent.clamped()
		muJ := (op.Value - InitialValue) / glickoScale
		g := gFactor(op.Deviation / glickoScale)
		e := expected(mu, muJ, g)
		vInv += g * g * e * (1 - e)
		sum += g * (clampScore(o.Score) - e)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility.
	sigma = min(max(volatility(delta, phi, v, sigma), minVolatility), MaxVolatility)
	// Steps 6 and 7: the new deviation and value.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phi = 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	mu += phi * phi * sum
	// Step 8: back to the Glicko scale.
	r.Value = mu*glickoScale + InitialValue
	r.Deviation = phi * glickoScale
	r.Volatility = sigma
	r.Games += len(outcomes)
	return r.clamped()
}

// Idle returns r as it stands at t: its deviation grown for every
// IdlePeriod since its last update (none for a rating never updated).
func (r Rating) Idle(t time.Time) Rating {
	r = r.clamped()
	if r.At.IsZero() || !t.After(r.At) {
		return r
	}
	periods := float64(t.Sub(r.At)) / float64(IdlePeriod)
	phi := r.Deviation / glickoScale
	r.Deviation = math.Sqrt(phi*phi+periods*r.Volatility*r.Volatility) * glickoScale
	return r.clamped()
}

// Rate returns a's and b's ratings after a game between them at t in which
// a scored scoreA (1, 0.5 or 0): each is idled to t, then updated with the
// other's rating from before the game.
func Rate(a, b Rating, scoreA float64, t time.Time) (Rating, Rating) {
	a, b = a.Idle(t), b.Idle(t)
	na := Update(a, Outcome{Opponent: b, Score: scoreA})
	nb := Update(b, Outcome{Opponent: a, Score: 1 - clampScore(scoreA)})
	na.At, nb.At = t, t
	return na, nb
}

func gFactor(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

func expected(mu, muJ, g float64) float64 { return 1 / (1 + math.Exp(-g*(mu-muJ))) }

// volatility is step 5, by the Illinois algorithm Glickman gives.
func volatility(delta, phi, v, sigma float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(Tau*Tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*Tau) < 0 && k < maxIterations {
			k++
		}
		B = a - k*Tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > convergence && i < maxIterations; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	s := math.Exp(A / 2)
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return sigma
	}
	return s
}

func clampScore(s float64) float64 {
	if math.IsNaN(s) {
		return 0.5
	}
	return min(max(s, 0), 1)
}

// clamped is r within the bounds above; NaN becomes the initial value.
func (r Rating) clamped() Rating {
	fix := func(x, lo, hi, def float64) float64 {
		if math.IsNaN(x) {
			return def
		}
		return min(max(x, lo), hi)
	}
	r.Value = fix(r.Value, MinValue, MaxValue, InitialValue)
	r.Deviation = fix(r.Deviation, MinDeviation, MaxDeviation, InitialDeviation)
	r.Volatility = fix(r.Volatility, minVolatility, MaxVolatility, InitialVolatility)
	r.Games = max(r.Games, 0)
	return r
}
