package api

// A game session as a record in the text notation (package record,
// docs/notation.md): GET /v1/games/{id} with its media type in Accept, and
// the player's export.

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"strconv"
	"strings"

	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/review"
)

// recordOf writes game g, with its moves (all of them, in order), as a
// record.
func recordOf(g *games.Game, moves []games.Move) *record.Record {
	rec := &record.Record{Tags: make([]record.Tag, 0, 13), Moves: make([]record.Move, len(moves))}
	rec.Set(record.TagEvent, eventOf(g))
	rec.Set(record.TagSite, "/v1/games/"+g.ID)
	rec.Set(record.TagDate, g.CreatedAt.UTC().Format("2006.01.02"))
	var ratings [2]string
	for side := range engine.Side(2) {
		p := g.Players[side]
		name := "?"
		switch {
		case g.AI != nil && g.AI.Side == side:
			name = "AI level " + strconv.Itoa(g.AI.Level)
		case p.Name != "":
			name = p.Name
		}
		rec.Set([2]string{record.TagSouth, record.TagNorth}[side], name)
		if p.Rating > 0 {
			ratings[side] = strconv.Itoa(int(p.Rating + 0.5))
		}
	}
	for side, r := range ratings {
		if r != "" {
			rec.Set([2]string{record.TagSouthRating, record.TagNorthRating}[side], r)
		}
	}
	tc := g.TimeControl
	rec.Set(record.TagTimeControl, record.TimeControlTag(tc.Initial, tc.Increment, tc.PerMove))
	rec.Set(record.TagRules, record.RulesTag(g.Rules))
	if g.Start != engine.Start() {
		rec.Set(record.TagStart, g.Start.String())
	}
	switch {
	case g.Status == games.Aborted:
		rec.Set(record.TagTermination, record.TermAbandoned)
		rec.Set(record.TagResult, record.Unfinished)
	case g.Result.Over():
		rec.Set(record.TagTermination, terminationOf(g.Result.Reason))
		rec.Set(record.TagWinner, g.Result.Winner.String())
		rec.Set(record.TagResult, record.ResultTag(g.Position))
	default:
		rec.Set(record.TagResult, record.Unfinished)
	}
	for i := range moves {
		m := &moves[i]
		rm := &rec.Moves[i]
		rm.Pit = m.Pit
		rm.Captured = int(m.Capture.Seeds)
		rm.Elapsed, rm.HasElapsed = m.Elapsed, true
		if m.HasClock && tc.Kind == games.Live {
			rm.Clock, rm.HasClock = m.Clock.Remaining[m.Side], true
		}
	}
	return rec
}

func eventOf(g *games.Game) string {
	kind := ""
	switch g.TimeControl.Kind {
	case games.Live:
		kind = "live "
	case games.Correspondence:
		kind = "correspondence "
	}
	switch {
	case g.AI != nil:
		return "Game against the AI"
	case g.Rated:
		return "Rated " + kind + "game"
	}
	return "Casual " + kind + "game"
}

func terminationOf(r engine.EndReason) string {
	switch r {
	case engine.ByTimeout:
		return record.TermTimeout
	case engine.ByResignation:
		return record.TermResignation
	case engine.ByAgreement:
		return record.TermAgreement
	}
	return record.TermNormal
}

// gameRecord reads game g's moves and writes its record; a finished game's
// done review, when there is one, goes in as comments and tags (reviewed
// says so: the game's version does not change when its review lands).
func (s *Server) gameRecord(ctx context.Context, g *games.Game) (text string, reviewed bool, err error) {
	ms, err := s.games.Moves(ctx, g.ID, 0, len(g.History))
	if err != nil {
		return "", false, err
	}
	rec := recordOf(g, ms)
	if g.Status == games.Finished {
		st, err := s.reviews.Get(ctx, g.ID)
		switch {
		case err == nil && st.Review != nil:
			reviewed = annotate(rec, st.Review)
		case err == nil, errors.Is(err, review.ErrNotRequested), errors.Is(err, ErrNotReady):
			// No review yet, or none on this server: the record without.
		default:
			return "", false, err
		}
	}
	return rec.String(), reviewed, nil
}

// annotate adds a review to a record: each move's class, best moves, loss
// and scores in its comment (after its clock), each side's accuracy in a
// tag. A review whose plies are not the record's moves adds nothing, and
// annotate reports false.
func annotate(rec *record.Record, rv *review.Review) bool {
	if len(rv.Plies) != len(rec.Moves) {
		return false
	}
	for i, p := range rv.Plies {
		if p.Ply != i+1 || p.Pit != rec.Moves[i].Pit {
			return false
		}
	}
	for i, p := range rv.Plies {
		var best []string
		for _, b := range p.Best {
			best = append(best, string(record.PitLetter(b)))
		}
		c := fmt.Sprintf("%s; best %s; loss %d; score %+d to %+d", p.Class, strings.Join(best, "/"), p.Loss, p.Before, p.After)
		if p.ExactBefore && p.ExactAfter {
			c += " exact"
		}
		if p.Mark != review.NoMark {
			c += "; " + p.Mark.String()
		}
		rec.Moves[i].Comment = c
	}
	// Before the tags of the end, which close the roster.
	tags := make([]record.Tag, 0, len(rec.Tags)+2)
	for _, t := range rec.Tags {
		if t.Name == record.TagTermination {
			for side, name := range []string{"SouthAccuracy", "NorthAccuracy"} {
				a := rv.Sides[side].Accuracy
				tags = append(tags, record.Tag{Name: name, Value: fmt.Sprintf("%d.%02d", a/100, a%100)})
			}
		}
		tags = append(tags, t)
	}
	rec.Tags = tags
	return true
}

// wantsRecord reports whether an Accept header prefers the record notation
// to JSON: it names the record's media type with a weight above 0, and no
// JSON type (or */*) with a greater one. Without the type it is JSON, as
// ever.
func wantsRecord(accept string) bool {
	rec, other := -1.0, -1.0
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case record.MediaType:
			rec = max(rec, q)
		case "application/json", "application/*", "*/*":
			other = max(other, q)
		}
	}
	return rec > 0 && rec >= other
}
