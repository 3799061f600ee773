package api

// Conversions between the game session models of openapi.yaml and the
// store's records, in one place like convert.go for the stateless ones.

import (
	"encoding/json"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

func rulesToAPI(r engine.Rules) Rules {
	cs, lo := RulesCaptureSeed(r.CaptureSeed.String()), RulesLeftovers(r.Leftovers.String())
	return Rules{CaptureSeed: &cs, Leftovers: &lo}
}

func gameToAPI(g *games.Game) Game {
	out := Game{
		Id:        g.ID,
		Status:    GameStatus(g.Status),
		Ply:       g.Ply,
		Position:  positionToAPI(g.Position),
		Start:     positionToAPI(g.Start),
		Rules:     rulesToAPI(g.Rules),
		Version:   g.Version,
		CreatedAt: g.CreatedAt.UTC(),
		UpdatedAt: g.UpdatedAt.UTC(),
	}
	var seats [2]SeatHolder
	for side := range seats {
		switch {
		case g.AI != nil && g.AI.Side == engine.Side(side):
			seats[side] = SeatHolderAi
		case g.Tokens[side] != nil:
			seats[side] = SeatHolderHuman
		default:
			seats[side] = SeatHolderOpen
		}
	}
	out.Seats = Seats{South: seats[engine.South], North: seats[engine.North]}
	if g.AI != nil {
		out.Ai.Set(GameAI{Side: Side(g.AI.Side.String()), Level: g.AI.Level})
	} else {
		out.Ai.SetNull()
	}
	if g.Result.Over() {
		out.Result.Set(resultToAPI(g.Result))
	} else {
		out.Result.SetNull()
	}
	if n := len(g.History); n > 0 {
		// Players alternate, so the side of ply i follows from who started.
		side := g.Start.ToMove
		if (n-1)%2 == 1 {
			side = side.Other()
		}
		out.LastMove.Set(LastMove{Ply: n - 1, Side: Side(side.String()), Pit: int(g.History[n-1])})
	} else {
		out.LastMove.SetNull()
	}
	return out
}

func moveToAPI(m *games.Move) GameMove {
	legs := make([]Leg, len(m.Legs))
	for i, l := range m.Legs {
		legs[i] = Leg{From: int(l.From), Sown: l.AppendSown(make([]int, 0, l.Seeds))}
	}
	out := GameMove{
		Ply:      m.Ply,
		Side:     Side(m.Side.String()),
		Pit:      m.Pit,
		ByAi:     m.ByAI,
		Legs:     legs,
		Position: positionToAPI(m.Position),
		PlayedAt: m.At.UTC(),
	}
	if m.Capture.None() {
		out.Capture.SetNull()
	} else {
		out.Capture.Set(Capture{Pit: int(m.Capture.Pit), Seeds: int(m.Capture.Seeds)})
	}
	if m.Result.Over() {
		out.Result.Set(resultToAPI(m.Result))
	} else {
		out.Result.SetNull()
	}
	return out
}

func seatToAPI(a *games.Seat) GameSeat {
	return GameSeat{Game: gameToAPI(&a.Game), Seat: Side(a.Side.String()), Token: a.Token}
}

// encodePlay is the body of a move's answer, stored with the move so that a
// retry gets these very bytes back. It ends in a newline like every answer
// the generated code encodes.
func encodePlay(r *games.PlayResult) ([]byte, error) {
	ans := PlayMoveAnswer{Move: moveToAPI(&r.Move), Game: gameToAPI(&r.Game)}
	if r.Reply != nil {
		reply := moveToAPI(r.Reply)
		ans.Reply = &reply
	}
	b, err := json.Marshal(ans)
	return append(b, '\n'), err
}
