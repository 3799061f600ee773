package api

import (
	"context"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/review"
)

// ReviewService reviews games (*review.Service).
type ReviewService interface {
	Request(ctx context.Context, gameID string) (review.Stored, error)
	Get(ctx context.Context, gameID string) (review.Stored, error)
	Record(ctx context.Context, rec review.Record) (review.Review, error)
	// Done is the game's review when it is done, else nil: what an
	// export puts in each record.
	Done(ctx context.Context, gameID string) (*review.Review, error)
}

// noReviews answers for a server started without reviews.
type noReviews struct{}

var errNoReviews = newError(ErrNotReady, "this server was started without reviews")

func (noReviews) Done(context.Context, string) (*review.Review, error) { return nil, nil }

func (noReviews) Request(context.Context, string) (review.Stored, error) {
	return review.Stored{}, errNoReviews
}

func (noReviews) Get(context.Context, string) (review.Stored, error) {
	return review.Stored{}, errNoReviews
}

func (noReviews) Record(context.Context, review.Record) (review.Review, error) {
	return review.Review{}, errNoReviews
}

// RequestGameReview queues a finished game's review: 202 until it is done,
// 200 after.
func (s *Server) RequestGameReview(ctx context.Context, req oapi.RequestGameReviewRequestObject) (oapi.RequestGameReviewResponseObject, error) {
	st, err := s.reviews.Request(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	if st.State == review.Done {
		return oapi.RequestGameReview200JSONResponse(gameReviewToAPI(st)), nil
	}
	return oapi.RequestGameReview202JSONResponse(gameReviewToAPI(st)), nil
}

// GetGameReview reads a game's review as it stands.
func (s *Server) GetGameReview(ctx context.Context, req oapi.GetGameReviewRequestObject) (oapi.GetGameReviewResponseObject, error) {
	st, err := s.reviews.Get(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.GetGameReview200JSONResponse(gameReviewToAPI(st)), nil
}

// ReviewRecord reviews a record sent in the request, storing nothing.
func (s *Server) ReviewRecord(ctx context.Context, req oapi.ReviewRecordRequestObject) (oapi.ReviewRecordResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	rec := review.Record{Start: engine.Start(), Moves: req.Body.Moves}
	if req.Body.Start != nil {
		var err error
		if rec.Start, err = positionFromAPI(*req.Body.Start); err != nil {
			return nil, err
		}
	}
	var err error
	if rec.Rules, err = rulesFromAPI(req.Body.Rules); err != nil {
		return nil, err
	}
	r, err := s.reviews.Record(ctx, rec)
	if err != nil {
		return nil, err
	}
	return oapi.ReviewRecord200JSONResponse(reviewToAPI(r)), nil
}

func gameReviewToAPI(st review.Stored) oapi.GameReview {
	out := oapi.GameReview{GameId: st.GameID, State: oapi.GameReviewState(st.State.String())}
	out.Progress.Done, out.Progress.Total = st.Done, st.Total
	if st.State == review.Done && st.Review != nil {
		r := reviewToAPI(*st.Review)
		out.Review = &r
	}
	return out
}

func reviewToAPI(r review.Review) oapi.Review {
	out := oapi.Review{
		Plies:       make([]oapi.ReviewPly, len(r.Plies)),
		South:       reviewSideToAPI(r.Sides[engine.South]),
		North:       reviewSideToAPI(r.Sides[engine.North]),
		NodesPerPly: int(r.Nodes),
	}
	for i, p := range r.Plies {
		ply := oapi.ReviewPly{
			Ply: p.Ply, Side: oapi.Side(p.Side.String()), Pit: p.Pit,
			Best:        append(make([]int, 0, len(p.Best)), p.Best...),
			ScoreBefore: p.Before, ScoreAfter: p.After,
			ExactBefore: p.ExactBefore, ExactAfter: p.ExactAfter,
			Loss: p.Loss, Class: oapi.ReviewPlyClass(p.Class.String()),
			Forced: p.Forced, Depth: p.Depth, Source: oapi.ReviewPlySource(p.Source.String()),
		}
		if p.ProvenBefore {
			res := oapi.ProvenResult(p.ResultBefore.String())
			ply.ResultBefore = &res
		}
		if p.ProvenAfter {
			res := oapi.ProvenResult(p.ResultAfter.String())
			ply.ResultAfter = &res
		}
		if p.Mark != review.NoMark {
			m := oapi.ReviewPlyMark(p.Mark.String())
			ply.Mark = &m
		}
		out.Plies[i] = ply
	}
	return out
}

func reviewSideToAPI(s review.Side) oapi.ReviewSide {
	out := oapi.ReviewSide{Accuracy: float32(s.Accuracy) / 100, Moves: s.Moves}
	c := &out.Counts
	c.Best, c.Good, c.Inaccuracy = s.Counts[review.Best], s.Counts[review.Good], s.Counts[review.Inaccuracy]
	c.Mistake, c.Blunder = s.Counts[review.Mistake], s.Counts[review.Blunder]
	return out
}
