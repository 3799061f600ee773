package api

// Conversions between the game session models of openapi.yaml and the
// games service's types, as convert.go has those every resource shares.

import (
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

func rulesToAPI(r engine.Rules) oapi.Rules {
	cs, lo := oapi.RulesCaptureSeed(r.CaptureSeed.String()), oapi.RulesLeftovers(r.Leftovers.String())
	return oapi.Rules{CaptureSeed: &cs, Leftovers: &lo}
}

// gameToAPI is g's answer, its seats marked by bots.
func gameToAPI(g *games.Game, bots botSet) oapi.Game {
	out := oapi.Game{
		Id:        g.ID,
		Status:    oapi.GameStatus(g.Status),
		Ply:       g.Ply,
		Position:  positionToAPI(g.Position),
		Start:     positionToAPI(g.Start),
		Rules:     rulesToAPI(g.Rules),
		Version:   g.Version,
		CreatedAt: g.CreatedAt.UTC(),
		UpdatedAt: g.UpdatedAt.UTC(),

		TimeControl: timeControlToAPI(g.TimeControl),
		Clock:       clockToAPI(games.ClockOf(g)),
		Expiry:      expiryToAPI(games.ExpiryOf(g)),

		Rated:   g.Rated,
		Players: oapi.GamePlayers{South: seatPlayerToAPI(g, g.Players[engine.South], bots), North: seatPlayerToAPI(g, g.Players[engine.North], bots)},
		Offers:  oapi.GameOffers{Draw: nullableSide(g.DrawOffer.By()), Takeback: nullableSide(g.TakebackOffer.By())},
	}
	var seats [2]oapi.SeatHolder
	for side := range seats {
		switch {
		case g.AI != nil && g.AI.Side == engine.Side(side):
			seats[side] = oapi.SeatHolderAi
		case g.Tokens[side] != nil:
			seats[side] = oapi.SeatHolderHuman
		default:
			seats[side] = oapi.SeatHolderOpen
		}
	}
	out.Seats = oapi.Seats{South: seats[engine.South], North: seats[engine.North]}
	if g.AI != nil {
		out.Ai.Set(oapi.GameAI{Side: oapi.Side(g.AI.Side.String()), Level: g.AI.Level})
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
		out.LastMove.Set(oapi.LastMove{Ply: n - 1, Side: oapi.Side(side.String()), Pit: int(g.History[n-1])})
	} else {
		out.LastMove.SetNull()
	}
	return out
}

func moveToAPI(m *games.Move) oapi.GameMove {
	return oapi.GameMove{
		Ply:      m.Ply,
		Side:     oapi.Side(m.Side.String()),
		Pit:      m.Pit,
		ByAi:     m.ByAI,
		Legs:     legsToAPI(m.Legs),
		Position: positionToAPI(m.Position),
		PlayedAt: m.At.UTC(),
		// A move's time is measured on the server, never negative; a
		// clock that stepped back says zero.
		ElapsedMs: max(m.Elapsed.Milliseconds(), 0),
		Clock:     clockToAPI(m.Clock, m.HasClock),
		Capture:   captureOrNull(m.Capture),
		Result:    resultOrNull(m.Result),
	}
}

func seatToAPI(a *games.Seat, bots botSet) oapi.GameSeat {
	return oapi.GameSeat{Game: gameToAPI(&a.Game, bots), Seat: oapi.Side(a.Side.String()), Token: a.Token}
}

// encodePlay is the body of a move's answer. A retry's result is rebuilt
// by the service to be the first one's, field for field, so it encodes to
// these very bytes (store/retrytest holds migrated games to that). It ends
// in a newline like every answer the generated code encodes.
func encodePlay(r *games.PlayResult, bots botSet) ([]byte, error) {
	ans := oapi.PlayMoveAnswer{Move: moveToAPI(&r.Move), Game: gameToAPI(&r.Game, bots)}
	if r.Reply != nil {
		reply := moveToAPI(r.Reply)
		ans.Reply = &reply
	}
	b, err := json.Marshal(ans)
	return append(b, '\n'), err
}

// timeControlFromAPI reads a time control as the request gives it; the
// game service checks its bounds (games.ErrInvalidTimeControl).
func timeControlFromAPI(tc oapi.TimeControl) games.TimeControl {
	of := func(p *int, unit time.Duration) time.Duration {
		if p == nil {
			return 0
		}
		return time.Duration(*p) * unit
	}
	// Every field is read whatever the kind, so that the service refuses
	// a clock with days or correspondence with seconds.
	out := games.TimeControl{Initial: of(tc.InitialSeconds, time.Second), Increment: of(tc.IncrementSeconds, time.Second),
		PerMove: of(tc.DaysPerMove, 24*time.Hour)}
	switch tc.Kind {
	case oapi.TimeControlKindClock:
		out.Kind = games.Live
	case oapi.TimeControlKindCorrespondence:
		out.Kind = games.Correspondence
	default:
		out.Kind = games.TimeKind(255) // refused by the service's check
	}
	return out
}

func timeControlToAPI(tc games.TimeControl) nullable.Nullable[oapi.TimeControl] {
	whole := func(d, unit time.Duration) *int {
		n := int(d / unit)
		return &n
	}
	switch tc.Kind {
	case games.Live:
		return nullable.NewNullableWithValue(oapi.TimeControl{Kind: oapi.TimeControlKindClock,
			InitialSeconds: whole(tc.Initial, time.Second), IncrementSeconds: whole(tc.Increment, time.Second)})
	case games.Correspondence:
		return nullable.NewNullableWithValue(oapi.TimeControl{Kind: oapi.TimeControlKindCorrespondence,
			DaysPerMove: whole(tc.PerMove, 24*time.Hour)})
	}
	return nullable.NewNullNullable[oapi.TimeControl]()
}

func nullableSide(s engine.Side, ok bool) nullable.Nullable[oapi.NullableSide] {
	if !ok {
		return nullable.NewNullNullable[oapi.NullableSide]()
	}
	return nullable.NewNullableWithValue(oapi.NullableSide(s.String()))
}

func clockToAPI(c games.ClockView, ok bool) nullable.Nullable[oapi.Clock] {
	if !ok {
		return nullable.NewNullNullable[oapi.Clock]()
	}
	out := oapi.Clock{
		RemainingMs: oapi.SideMillis{South: c.Remaining[engine.South].Milliseconds(), North: c.Remaining[engine.North].Milliseconds()},
		Running:     nullableSide(c.Running, c.IsRunning),
		Deadline:    nullable.NewNullNullable[time.Time](),
	}
	if c.IsRunning {
		out.Deadline.Set(c.Deadline.UTC())
	}
	return nullable.NewNullableWithValue(out)
}

func expiryToAPI(e games.Expiry, ok bool) nullable.Nullable[oapi.Expiry] {
	if !ok {
		return nullable.NewNullNullable[oapi.Expiry]()
	}
	// A waiting game's expiry is no seat's to prevent, only a joiner's.
	side := nullableSide(e.Side, e.BySide)
	return nullable.NewNullableWithValue(oapi.Expiry{At: e.At.UTC(), Side: side, Ends: oapi.ExpiryEnds(e.Ending.String())})
}
