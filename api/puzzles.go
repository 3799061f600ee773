package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// The daily puzzle feed's handlers: they ask the feed (package puzzles) and
// encode. Answers never contain the solution except where the client asks
// for it (the solution endpoint, an attempt that gives up or solves the
// puzzle).

// defaultPuzzleLimit is the page size of the puzzle list.
const defaultPuzzleLimit = 10

// PuzzleFeed is what the puzzle handlers need: *puzzles.Feed has it.
type PuzzleFeed interface {
	Today() time.Time
	ByDate(ctx context.Context, date time.Time) (puzzles.Stored, error)
	ByID(ctx context.Context, id string) (puzzles.Stored, error)
	Page(ctx context.Context, before time.Time, limit int) ([]puzzles.Stored, time.Time, error)
	// AttemptAs judges an attempt by player (nil: anonymous) and rates a
	// player's first one.
	AttemptAs(ctx context.Context, id string, moves []int, giveUp bool, player *players.Player) (puzzles.Verdict, error)
	MaxAge(date time.Time) time.Duration
	Practice(ctx context.Context, f gen.PracticeFilter, after string) (puzzles.Stored, error)
	PracticeNear(ctx context.Context, player *players.Player, f gen.PracticeFilter, after string) (puzzles.Stored, error)
	Rating(ctx context.Context, p *gen.Puzzle) (players.Rating, error)
}

// noPuzzles stands in for the feed of a server started without one: every
// operation answers 503.
type noPuzzles struct{}

var errNoPuzzles = newError(ErrNotReady, "this server was started without the puzzle feed")

func (noPuzzles) Today() time.Time { return gen.Day(time.Now()) }
func (noPuzzles) ByDate(context.Context, time.Time) (puzzles.Stored, error) {
	return puzzles.Stored{}, errNoPuzzles
}
func (noPuzzles) ByID(context.Context, string) (puzzles.Stored, error) {
	return puzzles.Stored{}, errNoPuzzles
}
func (noPuzzles) Page(context.Context, time.Time, int) ([]puzzles.Stored, time.Time, error) {
	return nil, time.Time{}, errNoPuzzles
}
func (noPuzzles) AttemptAs(context.Context, string, []int, bool, *players.Player) (puzzles.Verdict, error) {
	return puzzles.Verdict{}, errNoPuzzles
}
func (noPuzzles) MaxAge(time.Time) time.Duration { return 0 }
func (noPuzzles) Practice(context.Context, gen.PracticeFilter, string) (puzzles.Stored, error) {
	return puzzles.Stored{}, errNoPuzzles
}
func (noPuzzles) PracticeNear(context.Context, *players.Player, gen.PracticeFilter, string) (puzzles.Stored, error) {
	return puzzles.Stored{}, errNoPuzzles
}
func (noPuzzles) Rating(context.Context, *gen.Puzzle) (players.Rating, error) {
	return players.Rating{}, errNoPuzzles
}

// etagOf tags an answer by its content: the puzzle and its stats.
func etagOf(p oapi.Puzzle) (string, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`, nil
}

// notModified reports whether an If-None-Match header matches etag.
func notModified(ifNoneMatch *string, etag string) bool {
	if ifNoneMatch == nil {
		return false
	}
	for tag := range strings.SplitSeq(*ifNoneMatch, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// dailyAnswer is a daily puzzle with its caching headers, or the 304.
type dailyAnswer struct {
	puzzle       oapi.Puzzle
	cacheControl string
	etag         string
	notModified  bool
}

func (s *Server) daily(ctx context.Context, date time.Time, ifNoneMatch *string) (dailyAnswer, error) {
	sp, err := s.feed.ByDate(ctx, date)
	if err != nil {
		return dailyAnswer{}, err
	}
	age := int(s.feed.MaxAge(date) / time.Second)
	a := dailyAnswer{cacheControl: fmt.Sprintf("public, max-age=%d", age)}
	if a.puzzle, err = s.puzzleToAPI(ctx, sp); err != nil {
		return a, err
	}
	if a.etag, err = etagOf(a.puzzle); err != nil {
		return a, err
	}
	a.notModified = notModified(ifNoneMatch, a.etag)
	return a, nil
}

// GetDailyPuzzle answers today's puzzle.
func (s *Server) GetDailyPuzzle(ctx context.Context, req oapi.GetDailyPuzzleRequestObject) (oapi.GetDailyPuzzleResponseObject, error) {
	a, err := s.daily(ctx, s.feed.Today(), req.Params.IfNoneMatch)
	if err != nil {
		return nil, err
	}
	if a.notModified {
		return oapi.GetDailyPuzzle304Response{Headers: oapi.GetDailyPuzzle304ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
	}
	return oapi.GetDailyPuzzle200JSONResponse{Body: a.puzzle, Headers: oapi.GetDailyPuzzle200ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
}

// GetDailyPuzzleByDate answers one day's puzzle.
func (s *Server) GetDailyPuzzleByDate(ctx context.Context, req oapi.GetDailyPuzzleByDateRequestObject) (oapi.GetDailyPuzzleByDateResponseObject, error) {
	date, err := gen.ParseDate(req.Date)
	if err != nil {
		return nil, err
	}
	a, err := s.daily(ctx, date, req.Params.IfNoneMatch)
	if err != nil {
		return nil, err
	}
	if a.notModified {
		return oapi.GetDailyPuzzleByDate304Response{Headers: oapi.GetDailyPuzzleByDate304ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
	}
	return oapi.GetDailyPuzzleByDate200JSONResponse{Body: a.puzzle, Headers: oapi.GetDailyPuzzleByDate200ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
}

// ListPuzzles pages back through the feed, newest first. Every day from the
// first to today has a puzzle, so the page is those days, generated where
// nobody asked for them yet.
func (s *Server) ListPuzzles(ctx context.Context, req oapi.ListPuzzlesRequestObject) (oapi.ListPuzzlesResponseObject, error) {
	limit := defaultPuzzleLimit
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	var before time.Time
	if req.Params.Before != nil {
		var err error
		if before, err = gen.ParseDate(*req.Params.Before); err != nil {
			return nil, err
		}
	}
	page, next, err := s.feed.Page(ctx, before, limit)
	if err != nil {
		return nil, err
	}
	out := oapi.ListPuzzles200JSONResponse{Puzzles: make([]oapi.Puzzle, len(page))}
	for i, sp := range page {
		if out.Puzzles[i], err = s.puzzleToAPI(ctx, sp); err != nil {
			return nil, err
		}
	}
	if next.IsZero() {
		out.Next.SetNull()
	} else {
		out.Next.Set(openapi_types.Date{Time: next})
	}
	return out, nil
}

// GetPracticePuzzle answers a puzzle of the practice pool: the next one
// after the client's, or a first one.
func (s *Server) GetPracticePuzzle(ctx context.Context, req oapi.GetPracticePuzzleRequestObject) (oapi.GetPracticePuzzleResponseObject, error) {
	var f gen.PracticeFilter
	if d := req.Params.Difficulty; d != nil {
		f.Difficulty = *d
	}
	if g := req.Params.Goal; g != nil {
		f.Goal = gen.Goal(*g)
	}
	if t := req.Params.Theme; t != nil {
		f.Theme = string(*t)
	}
	var after string
	if a := req.Params.After; a != nil {
		after = *a
	}
	var sp puzzles.Stored
	var err error
	if req.Params.Near != nil && *req.Params.Near == oapi.GetPracticePuzzleParamsNearMe {
		// near=me is about the caller's rating: without a player there is
		// nothing to be near.
		player, err := s.callerPlayer(ctx)
		if err != nil {
			return nil, err
		}
		if player == nil {
			return nil, fmt.Errorf("%w: near=me needs the %s header", players.ErrUnauthorized, PlayerTokenHeader)
		}
		sp, err = s.feed.PracticeNear(ctx, player, f, after)
		if err != nil {
			return nil, err
		}
	} else if sp, err = s.feed.Practice(ctx, f, after); err != nil {
		return nil, err
	}
	body, err := s.puzzleToAPI(ctx, sp)
	if err != nil {
		return nil, err
	}
	// Without after each answer is another puzzle: nothing may keep one.
	noStore := "no-store"
	return oapi.GetPracticePuzzle200JSONResponse{Body: body, Headers: oapi.GetPracticePuzzle200ResponseHeaders{CacheControl: &noStore}}, nil
}

// GetPuzzle answers one puzzle by id.
func (s *Server) GetPuzzle(ctx context.Context, req oapi.GetPuzzleRequestObject) (oapi.GetPuzzleResponseObject, error) {
	sp, err := s.feed.ByID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	body, err := s.puzzleToAPI(ctx, sp)
	if err != nil {
		return nil, err
	}
	return oapi.GetPuzzle200JSONResponse(body), nil
}

// SubmitPuzzleAttempt judges the solver's moves, plays the replies, and
// counts the attempt.
func (s *Server) SubmitPuzzleAttempt(ctx context.Context, req oapi.SubmitPuzzleAttemptRequestObject) (oapi.SubmitPuzzleAttemptResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	giveUp := req.Body.GiveUp != nil && *req.Body.GiveUp
	player, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.feed.AttemptAs(ctx, req.Id, req.Body.Moves, giveUp, player)
	if err != nil {
		return nil, err
	}
	a, stats := v.Attempt, v.Stats
	out := oapi.SubmitPuzzleAttempt200JSONResponse{
		Correct:     a.Correct,
		Complete:    a.Complete,
		Explanation: stepsToAPI(a.Steps),
		Stats:       oapi.PuzzleStats{Attempts: stats.Attempts, Solved: stats.Solved},
		Rated:       v.Rated,
	}
	if v.Rated {
		out.Rating.Set(oapi.AttemptRating{Player: ratingChange(v.Before[0], v.After[0]), Puzzle: ratingChange(v.Before[1], v.After[1])})
	} else {
		out.Rating.SetNull()
	}
	if a.Solution != nil {
		sol := stepsToAPI(a.Solution)
		out.Solution = &sol
	}
	return out, nil
}

// GetPuzzleSolution answers the whole solution line.
func (s *Server) GetPuzzleSolution(ctx context.Context, req oapi.GetPuzzleSolutionRequestObject) (oapi.GetPuzzleSolutionResponseObject, error) {
	sp, err := s.feed.ByID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.GetPuzzleSolution200JSONResponse{
		Id:       sp.Puzzle.ID,
		Goal:     oapi.PuzzleGoal(sp.Puzzle.Goal),
		Solution: stepsToAPI(gen.SolutionSteps(sp.Puzzle)),
	}, nil
}

// puzzleToAPI maps a stored puzzle, leaving out its solution, with its
// rating as it stands.
func (s *Server) puzzleToAPI(ctx context.Context, sp puzzles.Stored) (oapi.Puzzle, error) {
	r, err := s.feed.Rating(ctx, &sp.Puzzle)
	if err != nil {
		return oapi.Puzzle{}, err
	}
	return puzzleWithRating(sp, r), nil
}

func puzzleWithRating(sp puzzles.Stored, r players.Rating) oapi.Puzzle {
	p := sp.Puzzle
	captureSeed := oapi.RulesCaptureSeed(p.Rules.CaptureSeed.String())
	leftovers := oapi.RulesLeftovers(p.Rules.Leftovers.String())
	out := oapi.Puzzle{
		Id:         p.ID,
		Position:   positionToAPI(p.Position),
		Rules:      oapi.Rules{CaptureSeed: &captureSeed, Leftovers: &leftovers},
		Goal:       oapi.PuzzleGoal(p.Goal),
		Prompt:     p.Prompt,
		Themes:     append([]string{}, p.Themes...),
		Difficulty: p.Difficulty,
		KeyLegs:    p.KeyLegs,
		Plies:      p.Plies(),
		Stats:      oapi.PuzzleStats{Attempts: sp.Stats.Attempts, Solved: sp.Stats.Solved},
		Rating:     rounded(r.Value),
	}
	// A practice puzzle has no day.
	if p.Date.IsZero() {
		out.Date.SetNull()
	} else {
		out.Date.Set(p.Date.Format(gen.DateLayout))
	}
	return out
}

func stepsToAPI(steps []gen.Step) []oapi.PuzzleStep {
	out := make([]oapi.PuzzleStep, len(steps))
	for i := range steps {
		o := &steps[i].Outcome
		x := outcomeToAPI(o)
		out[i] = oapi.PuzzleStep{
			Pit: o.Pit, Reply: steps[i].Reply, Legal: x.Legal, Reason: x.Reason,
			Legs: x.Legs, Capture: x.Capture, Position: x.Position, Result: x.Result,
		}
	}
	return out
}
