package api

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
)

// The stateless endpoints: each decodes with convert.go, asks the engine or
// the search, and encodes. Errors are returned, never written: errors.go
// answers them.

// positionAndRules reads the position and rule options every request has.
func positionAndRules(p oapi.Position, r *oapi.Rules) (engine.Position, engine.Rules, error) {
	pos, err := positionFromAPI(p)
	if err != nil {
		return pos, engine.Rules{}, err
	}
	rules, err := rulesFromAPI(r)
	return pos, rules, err
}

// errNoBody guards the generated code's optional pointer: the validator
// already refuses a request without its required body.
var errNoBody = newError(ErrInvalidRequest, "the request needs a JSON body")

// EvaluateMove plays one move; an illegal move is an answer, not an error.
func (s *Server) EvaluateMove(_ context.Context, req oapi.EvaluateMoveRequestObject) (oapi.EvaluateMoveResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	p, r, err := positionAndRules(req.Body.Position, req.Body.Rules)
	if err != nil {
		return nil, err
	}
	out := &engine.Outcome{Legs: make([]engine.Leg, 0, 16)}
	engine.Play(p, req.Body.Pit, r, out)
	return oapi.EvaluateMove200JSONResponse(outcomeToAPI(out)), nil
}

// ListMoves evaluates each pit of the side to move, in pit order.
func (s *Server) ListMoves(_ context.Context, req oapi.ListMovesRequestObject) (oapi.ListMovesResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	p, r, err := positionAndRules(req.Body.Position, req.Body.Rules)
	if err != nil {
		return nil, err
	}
	moves := make([]oapi.MoveOutcome, engine.RowPits)
	first := p.ToMove.FirstPit()
	out := &engine.Outcome{Legs: make([]engine.Leg, 0, 16)}
	for i := range moves {
		engine.Play(p, first+i, r, out)
		moves[i] = moveOutcomeToAPI(out)
	}
	return oapi.ListMoves200JSONResponse{Moves: moves}, nil
}

// ValidateRecord replays a record; see validateRecord.
func (s *Server) ValidateRecord(_ context.Context, req oapi.ValidateRecordRequestObject) (oapi.ValidateRecordResponseObject, error) {
	var vr oapi.ValidateRequest
	switch {
	case req.JSONBody != nil:
		vr = *req.JSONBody
	case req.Body != nil:
		text, err := bodyText(req.Body)
		if err != nil {
			return nil, err
		}
		if vr, err = requestOfText(text); err != nil {
			return nil, err
		}
	default:
		return nil, errNoBody
	}
	a, err := validateRecord(vr)
	if err != nil {
		return nil, err
	}
	return oapi.ValidateRecord200JSONResponse(a), nil
}

// requestOfText reads a record in the text notation as the request it
// stands for: its start, rules and moves. A record that does not read, or
// that states what its moves do not do, is an error (ErrSyntax,
// ErrMismatch); an illegal move is left to validateRecord to answer, as in
// JSON.
func requestOfText(text string) (oapi.ValidateRequest, error) {
	rec, err := record.Parse(text)
	if err != nil {
		return oapi.ValidateRequest{}, err
	}
	if _, err := record.Check(rec); err != nil {
		return oapi.ValidateRequest{}, err
	}
	start, err := rec.Start()
	if err != nil {
		return oapi.ValidateRequest{}, err
	}
	rules, err := rec.Rules()
	if err != nil {
		return oapi.ValidateRequest{}, err
	}
	sp, rr := positionToAPI(start), rulesToAPI(rules)
	return oapi.ValidateRequest{Start: &sp, Rules: &rr, Moves: rec.Pits()}, nil
}

// validateRecord replays a record through engine.Game, so the repetition
// rule applies as in a game session, and stops at the first illegal move.
// It is the whole of /v1/validate after the schema, and of each line of
// /v1/validate/batch and ayoayo validate: an illegal move is an answer; an
// error is a start position or rules the engine refuses.
func validateRecord(req oapi.ValidateRequest) (oapi.ValidateAnswer, error) {
	var rp replayer
	return rp.validate(req)
}

// replayer is validateRecord for record after record: one game and one
// outcome, reset for each, so that a batch allocates for its longest
// record rather than for every one. Its answers keep nothing of it.
type replayer struct {
	g   engine.Game
	out engine.Outcome
}

func (rp *replayer) validate(req oapi.ValidateRequest) (oapi.ValidateAnswer, error) {
	start := engine.Start()
	if req.Start != nil {
		var err error
		if start, err = positionFromAPI(*req.Start); err != nil {
			return oapi.ValidateAnswer{}, err
		}
	}
	r, err := rulesFromAPI(req.Rules)
	if err != nil {
		return oapi.ValidateAnswer{}, err
	}
	g := &rp.g
	if err := g.Reset(start, r); err != nil {
		return oapi.ValidateAnswer{}, err
	}
	var plyErr *oapi.PlyError
	for i, pit := range req.Moves {
		err := g.Play(pit, &rp.out)
		if err == nil {
			continue
		}
		// Asked only of an error: errors.As with a variable's address made
		// every move of a bulk validation allocate it.
		if me, ok := errors.AsType[*engine.MoveError](err); ok {
			plyErr = plyErrorToAPI(i, me)
			break
		}
		return oapi.ValidateAnswer{}, err
	}
	return oapi.ValidateAnswer{
		Valid:    plyErr == nil,
		Plies:    g.Ply(),
		Position: positionToAPI(g.Position()),
		Result:   resultIfOver(g.Result()),
		Error:    plyErr,
	}, nil
}

// Analyzer is what the analysis handler needs: *analysis.Service has it.
type Analyzer interface {
	Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error)
}

// noAnalyses answers for a server started without an analysis service.
type noAnalyses struct{}

var errNoAnalyses = newError(ErrNotReady, "this server was started without analyses")

func (noAnalyses) Analyze(context.Context, engine.Position, engine.Rules, search.Limits) (search.Analysis, error) {
	return search.Analysis{}, errNoAnalyses
}

// AnalyzePosition reads the request's limits and hands the position to the
// analysis service; closing the connection cancels the search.
func (s *Server) AnalyzePosition(ctx context.Context, req oapi.AnalyzePositionRequestObject) (oapi.AnalyzePositionResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	p, r, err := positionAndRules(req.Body.Position, req.Body.Rules)
	if err != nil {
		return nil, err
	}
	lim := search.Limits{Depth: MaxAnalyzeDepth, Time: DefaultAnalyzeMs * time.Millisecond}
	if d := req.Body.Depth; d != nil {
		lim.Depth = min(max(*d, 1), MaxAnalyzeDepth)
	}
	if t := req.Body.TimeMs; t != nil {
		lim.Time = time.Duration(min(max(*t, 1), MaxAnalyzeTimeMs)) * time.Millisecond
	}
	s.metrics.running.Inc()
	a, err := s.analyses.Analyze(ctx, p, r, lim)
	s.metrics.running.Dec()
	if errors.Is(err, analysis.ErrBusy) {
		s.metrics.rejected.Inc()
	}
	if err != nil {
		return nil, err
	}
	return oapi.AnalyzePosition200JSONResponse(analysisToAPI(a)), nil
}

// analysisMetrics count the searches running and refused.
type analysisMetrics struct {
	running  prometheus.Gauge
	rejected prometheus.Counter
}

func newAnalysisMetrics(reg prometheus.Registerer) (analysisMetrics, error) {
	m := analysisMetrics{
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "ayoayo", Name: "analyses_running", Help: "Analyses (POST /v1/analyze) searching, or waiting for a unit of the CPU budget, now.",
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "ayoayo", Name: "analyses_rejected_total", Help: "Analyses refused with 429 because no unit of the CPU budget came free in time.",
		}),
	}
	for _, c := range []prometheus.Collector{m.running, m.rejected} {
		if err := reg.Register(c); err != nil {
			return m, err
		}
	}
	return m, nil
}
