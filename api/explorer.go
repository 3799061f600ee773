package api

import (
	"context"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/review/explorer"
)

// ExplorerService answers the opening explorer (*explorer.Service).
type ExplorerService interface {
	Explore(ctx context.Context, q explorer.Query) (explorer.Answer, error)
}

// noExplorer stands in for the explorer of a server started without one.
type noExplorer struct{}

var errNoExplorer = newError(ErrNotReady, "this server was started without the opening explorer")

func (noExplorer) Explore(context.Context, explorer.Query) (explorer.Answer, error) {
	return explorer.Answer{}, errNoExplorer
}

// GetExplorer answers the moves played from a position.
func (s *Server) GetExplorer(ctx context.Context, req oapi.GetExplorerRequestObject) (oapi.GetExplorerResponseObject, error) {
	p, err := engine.Parse(req.Params.Position)
	if err != nil {
		return nil, explorerPositionError(req.Params.Position, err)
	}
	cat, err := explorer.ParseCategory(deref(req.Params.Category))
	if err != nil {
		return nil, err
	}
	lo, hi, err := explorer.ParseRatings(deref(req.Params.Ratings))
	if err != nil {
		return nil, err
	}
	a, err := s.explorer.Explore(ctx, explorer.Query{Position: p, Category: cat, MinRating: lo, MaxRating: hi})
	if err != nil {
		return nil, err
	}
	out := oapi.GetExplorer200JSONResponse{Position: p.String(), Category: oapi.ExplorerAnswerCategory(cat),
		Ratings: oapi.ExplorerRatings{Min: lo, Max: hi}, Games: int(a.Games()), South: int(a.South),
		Draws: int(a.Draws), North: int(a.North), Moves: make([]oapi.ExplorerMove, len(a.Moves))}
	for i, m := range a.Moves {
		om := oapi.ExplorerMove{Pit: m.Pit, Games: int(m.Games()), South: int(m.South), Draws: int(m.Draws),
			North: int(m.North), AverageRating: m.AverageRating, RecentGames: m.Recent}
		if om.RecentGames == nil {
			om.RecentGames = []string{}
		}
		if m.HasScore {
			om.Score, om.Exact = &m.Score, &m.Exact
		}
		out.Moves[i] = om
	}
	if a.HasEngine {
		out.Engine = &oapi.ExplorerEngine{Depth: a.Engine.Depth, Exact: a.Engine.Exact}
	}
	return out, nil
}

// explorerPositionError is a position that did not parse, as the
// explorer's own problem: the engine's wording kept, not its code.
func explorerPositionError(s string, err error) error {
	return newError(explorer.ErrInvalidPosition, "%q: %v", s, err)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
