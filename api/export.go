package api

// GET /v1/players/{id}/games/export: a player's games streamed as NDJSON or
// as game records in the text notation, written as they are read.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/games"
)

// GameExporter streams a player's games: *games.Exporter has it.
type GameExporter interface {
	Export(ctx context.Context, q games.ExportQuery, fn func(g *games.Game, moves []games.Move) error) error
}

// noExports answers for a server started without game sessions.
type noExports struct{}

func (noExports) Export(context.Context, games.ExportQuery, func(*games.Game, []games.Move) error) error {
	return errNoGames
}

// maxExport is the most games an export sends when the request sets no max.
const maxExport = 10_000_000

// exportFlushBytes is how much of an export waits in the buffer before it
// is sent.
const exportFlushBytes = 32 << 10

// ExportPlayerGames checks the player exists and starts the stream; the
// games are read while it is written (exportStream).
func (s *Server) ExportPlayerGames(ctx context.Context, req oapi.ExportPlayerGamesRequestObject) (oapi.ExportPlayerGamesResponseObject, error) {
	if _, err := s.players.Get(ctx, req.Id); err != nil {
		return nil, err
	}
	q := games.ExportQuery{Player: req.Id, Limit: maxExport}
	p := req.Params
	if p.Since != nil {
		q.Since = *p.Since
	}
	if p.Until != nil {
		q.Until = *p.Until
		if !q.Until.After(q.Since) {
			return nil, newError(ErrInvalidRequest, "query parameter until: %s is not after since", q.Until.Format(time.RFC3339Nano))
		}
	}
	if p.Max != nil {
		q.Limit = *p.Max
	}
	asRecord := wantsRecord(callerOf(ctx).accept)
	if p.Format != nil {
		asRecord = *p.Format == oapi.ExportPlayerGamesParamsFormatRecord
	}
	return exportStream{s: s, ctx: ctx, q: q, asRecord: asRecord, head: callerOf(ctx).head}, nil
}

// exportStream writes the games as the exporter hands them over.
type exportStream struct {
	s        *Server
	ctx      context.Context
	q        games.ExportQuery
	asRecord bool
	head     bool
}

// VisitExportPlayerGamesResponse writes the headers, then each game. A
// failure after the first byte cannot be a problem any more: it ends the
// answer early, and is logged.
func (e exportStream) VisitExportPlayerGamesResponse(w http.ResponseWriter) error {
	ct := MIMEApplicationNDJSON
	if e.asRecord {
		ct = record.MediaType
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	if e.head {
		return nil
	}
	// The SSE writer moves the write deadline on with each write, so a long
	// export is not cut by the server's write timeout while it goes on.
	sw := httpx.NewSSEWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var line oapi.ExportedGame
	n := 0
	err := e.s.exports.Export(e.ctx, e.q, func(g *games.Game, moves []games.Move) error {
		if e.asRecord {
			if n > 0 {
				buf.WriteByte('\n')
			}
			rec := recordOf(g, moves)
			// As GET /v1/games/{id} gives the record, with its review:
			// one point read of a finished game's, the game in hand.
			if g.Status == games.Finished {
				rv, err := e.s.reviews.Done(e.ctx, g.ID)
				if err != nil {
					return err
				}
				if rv != nil {
					annotate(rec, rv)
				}
			}
			buf.WriteString(rec.String())
		} else {
			line.Game = gameToAPI(g, e.s.seatBots(e.ctx, g))
			line.Moves = exportedMoves(line.Moves[:0], g, moves)
			if err := enc.Encode(&line); err != nil {
				return err
			}
		}
		n++
		if buf.Len() < exportFlushBytes {
			return nil
		}
		if err := sw.Write(buf.Bytes()); err != nil {
			return err
		}
		buf.Reset()
		return sw.Flush()
	})
	if err == nil && buf.Len() > 0 {
		if err = sw.Write(buf.Bytes()); err == nil {
			err = sw.Flush()
		}
	}
	return err
}

func exportedMoves(dst []oapi.ExportedMove, g *games.Game, moves []games.Move) []oapi.ExportedMove {
	for i := range moves {
		m := &moves[i]
		em := oapi.ExportedMove{Pit: m.Pit, Captured: int(m.Capture.Seeds), PlayedAt: m.At.UTC(), ElapsedMs: int(m.Elapsed / time.Millisecond)}
		if m.HasClock && g.TimeControl.Kind == games.Live {
			ms := int(m.Clock.Remaining[m.Side] / time.Millisecond)
			em.ClockMs = &ms
		}
		dst = append(dst, em)
	}
	return dst
}
