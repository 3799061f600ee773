package api

import (
	"fmt"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// RateLimit is one per-client-address limit: Rate requests a minute, in
// bursts of up to Burst; beyond, 429 rate_limited with Retry-After. Every
// request that counts does, refused and invalid ones included. A Rate of
// 0 is no limit.
type RateLimit struct {
	Rate, Burst int
}

// RateLimits are limits by the Name of their row of Limits.
type RateLimits map[string]RateLimit

// Limit is a row of the table of per-client-address limits (Limits): what
// it counts, and everything ayoayo serve declares of it.
type Limit struct {
	// Name names the limit: its key in Options.RateLimits, and its policy
	// in the RateLimit and RateLimit-Policy headers.
	Name string
	// Flag is the stem of ayoayo serve's flags, --FLAG-rate and
	// --FLAG-burst, which read AYOAYO_FLAG_RATE and AYOAYO_FLAG_BURST.
	Flag string
	// Who begins the flags' help: who may do what ("moves one client
	// address may send"); Aside, if any, is said of the rate, in
	// parentheses.
	Who, Aside string
	// Default is ayoayo serve's; the zero Options has no limit at all.
	Default RateLimit
	// PerPlayer: a request whose Player-Token names a player spends a
	// token of that player's bucket (the policy Name+PlayerPolicySuffix,
	// of the same rate and burst) instead of its address's, so that two
	// players behind one address (two bots on one host) do not share one.
	// The limits of what costs the server most per request (practice,
	// review) and of player creation stay per address: a host's players
	// must not multiply them.
	PerPlayer bool

	what string // what is limited, in a 429's detail ("moves")
	// ops are the operations whose requests count, each with the test of
	// a request that counts (nil: every request).
	ops map[string]func(echo.Context) bool
}

// Limits is the table of per-client-address limits; adding one is a row
// here, and a row for each of its flags in docs/operations.md.
//
// The defaults are sized for people: a person moves every second or two at
// the fastest, in a game against the AI or both seats at one screen; joins
// a game now and then; opens one event stream per game on screen, which a
// browser reopens 2 s after it drops. People may share an address (a
// household, a school, a mobile carrier's NAT), so each limit is tens of
// times what one person needs, and still far below a flood: a load test
// from one address plays thousands of moves a second.
func Limits() []Limit {
	return []Limit{
		{
			Name: "game-create", PerPlayer: true, Flag: "game-create", what: "game creations",
			Who:     "games one client address may create",
			Default: RateLimit{Rate: 60, Burst: 20},
			ops:     map[string]func(echo.Context) bool{"CreateGame": nil},
		},
		{
			Name: "join", PerPlayer: true, Flag: "join", what: "joins",
			Who:     "games one client address may join",
			Default: RateLimit{Rate: 60, Burst: 20},
			ops:     map[string]func(echo.Context) bool{"JoinGame": nil},
		},
		{
			Name: "move", PerPlayer: true, Flag: "move", what: "moves",
			Who:     "moves one client address may send",
			Default: RateLimit{Rate: 600, Burst: 60}, // 10 a second
			// Offers, takebacks, aborts and claims write to a game as moves
			// do: they share the bucket.
			ops: map[string]func(echo.Context) bool{"PlayGameMove": nil, "OfferDraw": nil, "OfferTakeback": nil,
				"AbortGame": nil, "ClaimVictory": nil, "ClaimDraw": nil},
		},
		{
			Name: "stream-open", PerPlayer: true, Flag: "stream", what: "event streams opened",
			Who: "event streams one client address may open",
			// As many at once as --max-streams-per-client holds by
			// default, so a reconnection of all of them (a restart) is
			// not refused.
			Default: RateLimit{Rate: 120, Burst: DefaultMaxStreamsPerClient},
			ops: map[string]func(echo.Context) bool{"FollowGameEvents": nil, "FollowPlayerEvents": nil,
				"FollowLobbyEvents": nil},
		},
		{
			Name: "practice", Flag: "practice", what: "practice puzzles",
			Who:   "practice puzzles one client address may ask for",
			Aside: "by id too: /v1/puzzles/x...",
			// A player asks for another practice puzzle every few seconds
			// at the fastest; making one is a generation, seconds of CPU
			// at worst.
			Default: RateLimit{Rate: 60, Burst: 20},
			// A practice puzzle read, attempted or solved by id may cost
			// a generation as asking for one does.
			ops: map[string]func(echo.Context) bool{
				"GetPracticePuzzle":   nil,
				"GetPuzzle":           practiceID,
				"SubmitPuzzleAttempt": practiceID,
				"GetPuzzleSolution":   practiceID,
			},
		},
		{
			// Seeks, challenges and rematches each may make a game, as a
			// creation does: the same default, a bucket of their own.
			Name: "lobby-create", PerPlayer: true, Flag: "lobby-create", what: "seeks and challenges",
			Who:     "seeks, challenges and rematches one client address may create",
			Default: RateLimit{Rate: 60, Burst: 20},
			ops:     map[string]func(echo.Context) bool{"CreateSeek": nil, "CreateChallenge": nil, "RematchGame": nil},
		},
		{
			Name: "review", Flag: "review", what: "record reviews",
			Who: "game records one client address may have reviewed (POST /v1/review)",
			// A review is seconds of CPU at the lowest priority but the
			// stock's; a person reviews a game now and then, a tool
			// checking records a few a minute.
			Default: RateLimit{Rate: 6, Burst: 3},
			ops:     map[string]func(echo.Context) bool{"ReviewRecord": nil},
		},
		{
			// An explorer request reads the index, and may search its
			// position for the engine's scores (a small search, kept a
			// while): cheap, but not free, so a screen that steps
			// through a game's plies fast fits and a crawler does not.
			Name: "explorer", PerPlayer: true, Flag: "explorer", what: "explorer requests",
			Who:     "opening explorer requests one client address may send",
			Default: RateLimit{Rate: 600, Burst: 60},
			ops:     map[string]func(echo.Context) bool{"GetExplorer": nil},
		},
		{
			Name: "player-create", Flag: "player-create", what: "player creations",
			Who: "players one client address may create",
			// A person makes a player once per device at most; a row that
			// stays for ever must not be made by the million, so this is
			// the tightest.
			Default: RateLimit{Rate: 10, Burst: 10},
			ops:     map[string]func(echo.Context) bool{"CreatePlayer": nil},
		},
	}
}

// PlayerPolicySuffix ends the name of a limit's per-player policy:
// "move-per-player" is the bucket of one player's moves.
const PlayerPolicySuffix = "-per-player"

func practiceID(c echo.Context) bool { return gen.IsPracticeID(c.Param("id")) }

// rateLimits makes the middleware of the limits set, by operation id, in
// the order of Limits. A limit that is not a row of Limits, or a row that
// names an operation the document lacks, is an error: either would
// silently limit nothing. The buckets refill by now (nil: time.Now).
//
// playerOf names the player of a request (its Player-Token's), "" for
// none: the limits PerPlayer key such requests by it.
func rateLimits(set RateLimits, now func() time.Time, operations map[string]echo.MiddlewareFunc, playerOf func(echo.Context) string) (map[string][]echo.MiddlewareFunc, error) {
	known := map[string]bool{}
	byOp := map[string][]echo.MiddlewareFunc{}
	for _, row := range Limits() {
		known[row.Name] = true
		r := set[row.Name]
		l := httpx.NewLimiter(row.what, r.Rate, r.Burst, now).Named(row.Name)
		var byPlayer *httpx.Limiter
		if row.PerPlayer {
			byPlayer = httpx.NewLimiter(row.what, r.Rate, r.Burst, now).Named(row.Name + PlayerPolicySuffix).Keyed()
		}
		for op, charged := range row.ops {
			if _, ok := operations[op]; !ok {
				return nil, fmt.Errorf("rate limit %q: the document has no operation %s", row.Name, op)
			}
			if l != nil {
				byOp[op] = append(byOp[op], httpx.LimitRateByPlayer(l, byPlayer, charged, playerOf))
			}
		}
	}
	for name := range set {
		if !known[name] {
			return nil, fmt.Errorf("rate limit %q: no such limit", name)
		}
	}
	return byOp, nil
}
