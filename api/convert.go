package api

// Conversions between the API's JSON models (generated from openapi.yaml)
// and the engine's and search's types, all in this one file so the mapping
// of every field is in one place. Requests have already passed the OpenAPI
// validator; the engine checks what the schema cannot (the 48-seed total).

import (
	"strconv"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
)

// positionFromAPI builds and validates an engine position.
func positionFromAPI(p Position) (engine.Position, error) {
	side, err := engine.ParseSide(string(p.ToMove))
	if err != nil {
		return engine.Position{}, err
	}
	return engine.NewPosition(p.Pits, p.Captured.South, p.Captured.North, side)
}

// rulesFromAPI reads the optional rule options; nil means the defaults.
func rulesFromAPI(r *Rules) (engine.Rules, error) {
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

func positionToAPI(p engine.Position) Position {
	pits := make([]int, engine.NumPits)
	for i, n := range p.Pits {
		pits[i] = int(n)
	}
	return Position{
		Pits:     pits,
		Captured: Captured{South: int(p.Captured[engine.South]), North: int(p.Captured[engine.North])},
		ToMove:   Side(p.ToMove.String()),
	}
}

func resultToAPI(r engine.Result) Result {
	return Result{Winner: ResultWinner(r.Winner.String()), Reason: ResultReason(r.Reason.String())}
}

// resultPtr is the result of a finished game, or nil while it goes on.
func resultPtr(r engine.Result) *Result {
	if !r.Over() {
		return nil
	}
	res := resultToAPI(r)
	return &res
}

// outcomeToAPI maps a played move onto the generated model: the reference
// mapping, which appendOutcome below must match (a test holds them to it).
// An illegal move has only legal and reason; a legal one has every other
// field, capture and result being explicit nulls when there is none, as the
// shared rule vectors have them.
func outcomeToAPI(o *engine.Outcome) Outcome {
	if !o.Legal() {
		reason := IllegalReason(o.Reason.String())
		return Outcome{Legal: false, Reason: &reason}
	}
	legs := make([]Leg, len(o.Legs))
	for i, l := range o.Legs {
		legs[i] = Leg{From: int(l.From), Sown: l.AppendSown(make([]int, 0, l.Seeds))}
	}
	pos := positionToAPI(o.Position)
	out := Outcome{Legal: true, Legs: &legs, Position: &pos}
	if o.Capture.None() {
		out.Capture.SetNull()
	} else {
		out.Capture.Set(Capture{Pit: int(o.Capture.Pit), Seeds: int(o.Capture.Seeds)})
	}
	if o.Result.Over() {
		out.Result.Set(resultToAPI(o.Result))
	} else {
		out.Result.SetNull()
	}
	return out
}

// moveOutcomeToAPI is outcomeToAPI with the pit played.
func moveOutcomeToAPI(o *engine.Outcome) MoveOutcome {
	x := outcomeToAPI(o)
	return MoveOutcome{
		Pit: o.Pit, Legal: x.Legal, Reason: x.Reason, Legs: x.Legs,
		Capture: x.Capture, Position: x.Position, Result: x.Result,
	}
}

// plyErrorToAPI reports the refused move of a record.
func plyErrorToAPI(ply int, e *engine.MoveError) *PlyError {
	return &PlyError{Ply: ply, Pit: e.Pit, Reason: IllegalReason(e.Reason.String())}
}

func analysisToAPI(a search.Analysis) AnalyzeAnswer {
	moves := make([]MoveScore, len(a.Moves))
	for i, m := range a.Moves {
		moves[i] = MoveScore{Pit: m.Pit, Score: m.Score}
	}
	pv := append(make([]int, 0, len(a.PV)), a.PV...)
	return AnalyzeAnswer{
		BestMove: a.BestMove,
		Score:    a.Score,
		Pv:       pv,
		Moves:    moves,
		Depth:    a.Depth,
		Nodes:    int64(a.Nodes),
		Exact:    a.Exact,
	}
}

// The hot path: /v1/evaluate and /v1/moves answer by appending the JSON of
// engine outcomes straight into a pooled buffer, skipping the generated
// models' pointers, nullable maps and reflection. The bytes are those of the
// Outcome and MoveOutcome schemas (TestFastOutcomeJSON compares them with
// outcomeToAPI for every shared vector).

// appendOutcome appends o as an Outcome; withPit adds MoveOutcome's pit.
func appendOutcome(b []byte, o *engine.Outcome, withPit bool) []byte {
	b = append(b, '{')
	if withPit {
		b = append(b, `"pit":`...)
		b = strconv.AppendInt(b, int64(o.Pit), 10)
		b = append(b, ',')
	}
	if !o.Legal() {
		b = append(b, `"legal":false,"reason":"`...)
		b = append(b, o.Reason.String()...)
		return append(b, `"}`...)
	}
	b = append(b, `"legal":true,"legs":[`...)
	for i, l := range o.Legs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"from":`...)
		b = strconv.AppendInt(b, int64(l.From), 10)
		b = append(b, `,"sown":[`...)
		for j := range int(l.Seeds) {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(l.SownPit(j)), 10)
		}
		b = append(b, "]}"...)
	}
	b = append(b, `],"capture":`...)
	if o.Capture.None() {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"pit":`...)
		b = strconv.AppendInt(b, int64(o.Capture.Pit), 10)
		b = append(b, `,"seeds":`...)
		b = strconv.AppendInt(b, int64(o.Capture.Seeds), 10)
		b = append(b, '}')
	}
	b = append(b, `,"position":`...)
	b = appendPosition(b, &o.Position)
	b = append(b, `,"result":`...)
	if o.Result.Over() {
		b = append(b, `{"winner":"`...)
		b = append(b, o.Result.Winner.String()...)
		b = append(b, `","reason":"`...)
		b = append(b, o.Result.Reason.String()...)
		b = append(b, `"}`...)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendPosition appends p as a Position.
func appendPosition(b []byte, p *engine.Position) []byte {
	b = append(b, `{"pits":[`...)
	for i, n := range p.Pits {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	b = append(b, `],"captured":{"south":`...)
	b = strconv.AppendInt(b, int64(p.Captured[engine.South]), 10)
	b = append(b, `,"north":`...)
	b = strconv.AppendInt(b, int64(p.Captured[engine.North]), 10)
	b = append(b, `},"toMove":"`...)
	b = append(b, p.ToMove.String()...)
	return append(b, `"}`...)
}
