package api

// Conversions between the API's JSON models (generated from openapi.yaml)
// and the engine's and search's types: positions, rules, moves and their
// outcomes, analyses, which every resource shares. Each resource's own
// models are converted beside it (gameconvert.go for games, puzzles.go and
// players.go for theirs). Requests have already passed the OpenAPI
// validator; the engine checks what the schema cannot (the 48-seed total).

import (
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/oapi-codegen/nullable"
)

// positionFromAPI builds and validates an engine position.
func positionFromAPI(p oapi.Position) (engine.Position, error) {
	side, err := engine.ParseSide(string(p.ToMove))
	if err != nil {
		return engine.Position{}, err
	}
	return engine.NewPosition(p.Pits, p.Captured.South, p.Captured.North, side)
}

// rulesFromAPI reads the optional rule options; nil means the defaults.
func rulesFromAPI(r *oapi.Rules) (engine.Rules, error) {
	var captureSeed, leftovers string
	if r != nil {
		if r.CaptureSeed != nil {
			captureSeed = string(*r.CaptureSeed)
		}
		if r.Leftovers != nil {
			leftovers = string(*r.Leftovers)
		}
	}
	return engine.ParseRules(captureSeed, leftovers)
}

func positionToAPI(p engine.Position) oapi.Position {
	pits := make([]int, engine.NumPits)
	for i, n := range p.Pits {
		pits[i] = int(n)
	}
	return oapi.Position{
		Pits:     pits,
		Captured: oapi.Captured{South: int(p.Captured[engine.South]), North: int(p.Captured[engine.North])},
		ToMove:   oapi.Side(p.ToMove.String()),
	}
}

func resultToAPI(r engine.Result) oapi.Result {
	return oapi.Result{Winner: oapi.ResultWinner(r.Winner.String()), Reason: oapi.ResultReason(r.Reason.String())}
}

// resultIfOver is the result of a finished game, or unspecified (absent from
// the answer) while it goes on.
func resultIfOver(r engine.Result) nullable.Nullable[oapi.Result] {
	var out nullable.Nullable[oapi.Result]
	if r.Over() {
		out.Set(resultToAPI(r))
	}
	return out
}

// outcomeToAPI maps a played move onto the generated model. An illegal move
// has only legal and reason; a legal one has every other field, capture and
// result being explicit nulls when there is none, as the shared rule vectors
// have them.
func outcomeToAPI(o *engine.Outcome) oapi.Outcome {
	if !o.Legal() {
		reason := oapi.IllegalReason(o.Reason.String())
		return oapi.Outcome{Legal: false, Reason: &reason}
	}
	legs := legsToAPI(o.Legs)
	pos := positionToAPI(o.Position)
	return oapi.Outcome{Legal: true, Legs: &legs, Position: &pos, Capture: captureOrNull(o.Capture), Result: resultOrNull(o.Result)}
}

// legsToAPI maps the legs of a move, each with every pit it sowed.
func legsToAPI(legs []engine.Leg) []oapi.Leg {
	out := make([]oapi.Leg, len(legs))
	for i, l := range legs {
		out[i] = oapi.Leg{From: int(l.From), Sown: l.AppendSown(make([]int, 0, l.Seeds))}
	}
	return out
}

// captureOrNull is a move's capture, or an explicit null when it captured
// nothing.
func captureOrNull(c engine.Capture) nullable.Nullable[oapi.Capture] {
	if c.None() {
		return nullable.NewNullNullable[oapi.Capture]()
	}
	return nullable.NewNullableWithValue(oapi.Capture{Pit: int(c.Pit), Seeds: int(c.Seeds)})
}

// resultOrNull is the end a move brought, or an explicit null when the game
// goes on (resultIfOver leaves it out instead).
func resultOrNull(r engine.Result) nullable.Nullable[oapi.Result] {
	if !r.Over() {
		return nullable.NewNullNullable[oapi.Result]()
	}
	return nullable.NewNullableWithValue(resultToAPI(r))
}

// moveOutcomeToAPI is outcomeToAPI with the pit played.
func moveOutcomeToAPI(o *engine.Outcome) oapi.MoveOutcome {
	x := outcomeToAPI(o)
	return oapi.MoveOutcome{
		Pit: o.Pit, Legal: x.Legal, Reason: x.Reason, Legs: x.Legs,
		Capture: x.Capture, Position: x.Position, Result: x.Result,
	}
}

// plyErrorToAPI reports the refused move of a record.
func plyErrorToAPI(ply int, e *engine.MoveError) *oapi.PlyError {
	return &oapi.PlyError{Ply: ply, Pit: e.Pit, Reason: oapi.IllegalReason(e.Reason.String())}
}

func analysisToAPI(a search.Analysis) oapi.AnalyzeAnswer {
	moves := make([]oapi.MoveScore, len(a.Moves))
	for i, m := range a.Moves {
		moves[i] = oapi.MoveScore{Pit: m.Pit, Score: m.Score}
	}
	pv := append(make([]int, 0, len(a.PV)), a.PV...)
	ans := oapi.AnalyzeAnswer{
		BestMove: a.BestMove,
		Score:    a.Score,
		Pv:       pv,
		Moves:    moves,
		Depth:    a.Depth,
		Nodes:    int64(a.Nodes),
		Exact:    a.Exact,
		Source:   oapi.AnalyzeAnswerSource(a.Source.String()),
	}
	// A proven result is given even when the score's size is not proven
	// (exact false): an answer resting on a result-only table's values.
	// Exact implies it.
	if a.Proven || a.Exact {
		res := oapi.AnalyzeAnswerResult(a.Result.String())
		ans.Result = &res
	}
	return ans
}
