package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// A notification on changesChannel is a list of lines, one per game that
// changed: its id alone, or, for a play written by a committer's batch, its
// id, a space and the play's news (games.PlayNews) as a JSON object, which
// another instance applies to its cached copy of the game instead of
// reading the game on its next move there. The id comes first so that the
// news of a Store's own plays, which it has no use for, need not be
// decoded. A batch's plays are announced in as few notifications as fit
// PostgreSQL's payload limit.

// maxPayload is what one notification's payload may hold: PostgreSQL
// refuses one of 8,000 bytes or more.
const maxPayload = 7900

// newsLine is a play's news as a notification carries it.
type newsLine struct {
	ID       string   `json:"id"`
	Version  int64    `json:"version"`
	Ply      int      `json:"ply"`
	Pits     string   `json:"pits"` // stored.EncodeHistory's
	Position string   `json:"position"`
	Status   string   `json:"status"`
	Winner   string   `json:"winner,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	At       int64    `json:"at"`                 // Unix microseconds
	Clock    [2]int64 `json:"clock"`              // microseconds, South's then North's
	Deadline int64    `json:"deadline,omitempty"` // Unix microseconds; 0: none
	Draw     string   `json:"draw,omitempty"`
	Takeback string   `json:"takeback,omitempty"`
}

// encodeNews is n's line: its id, a space, and its newsLine.
func encodeNews(n *games.PlayNews) string {
	l := newsLine{ID: n.ID, Version: n.Version, Ply: n.Ply, Pits: stored.EncodeHistory(n.Pits),
		Position: n.Position.String(), Status: string(n.Status), Winner: n.Result.Winner.String(),
		Reason: n.Result.Reason.String(), At: stamp(n.UpdatedAt).UnixMicro(),
		Clock: [2]int64{stored.Micros(n.Clock[engine.South]), stored.Micros(n.Clock[engine.North])},
		Draw:  n.DrawOffer.String(), Takeback: n.TakebackOffer.String()}
	if !n.Deadline.IsZero() {
		l.Deadline = stamp(n.Deadline).UnixMicro()
	}
	b, err := json.Marshal(l)
	if err != nil { // strings and numbers only: never
		panic(err)
	}
	return n.ID + " " + string(b)
}

// decodeNews reads encodeNews's line.
func decodeNews(line string) (*games.PlayNews, error) {
	id, object, _ := strings.Cut(line, " ")
	var l newsLine
	if err := json.Unmarshal([]byte(object), &l); err != nil {
		return nil, err
	}
	if l.ID != id {
		return nil, fmt.Errorf("news of game %q under the id %q", l.ID, id)
	}
	n := &games.PlayNews{ID: l.ID, Version: l.Version, Ply: l.Ply, Status: games.Status(l.Status),
		UpdatedAt: time.UnixMicro(l.At).UTC(),
		Clock:     [2]time.Duration{stored.Duration(l.Clock[0]), stored.Duration(l.Clock[1])}}
	var err error
	if n.ID == "" {
		return nil, fmt.Errorf("news without a game id")
	}
	if n.Pits, err = stored.DecodeHistory(l.Pits); err != nil {
		return nil, err
	}
	if len(n.Pits) == 0 || n.Ply < 0 || n.Version < 1 {
		return nil, fmt.Errorf("news of game %s: no moves, or a ply or version out of range", n.ID)
	}
	if n.Position, err = engine.Parse(l.Position); err != nil {
		return nil, err
	}
	if !n.Status.Valid() {
		return nil, fmt.Errorf("news of game %s: status %q", n.ID, l.Status)
	}
	if err := n.Result.Winner.UnmarshalText([]byte(l.Winner)); err != nil {
		return nil, err
	}
	if err := n.Result.Reason.UnmarshalText([]byte(l.Reason)); err != nil {
		return nil, err
	}
	if l.Deadline != 0 {
		n.Deadline = time.UnixMicro(l.Deadline).UTC()
	}
	if n.DrawOffer, err = games.ParseOffer(l.Draw); err != nil {
		return nil, err
	}
	if n.TakebackOffer, err = games.ParseOffer(l.Takeback); err != nil {
		return nil, err
	}
	return n, nil
}

// eachChange calls changed with each game a changesChannel payload names,
// and the play's news when its line carries it, unless the notification is
// the Store's own (own): its plays are in its service's cache already. A
// line whose news does not decode still names its game, with no news. An
// empty payload (the listening connection's first call) is one call with
// the empty id.
func eachChange(payload string, own bool, changed func(games.Heard)) {
	if payload == "" {
		changed(games.Heard{})
		return
	}
	for line := range strings.SplitSeq(payload, "\n") {
		id, _, hasNews := strings.Cut(line, " ")
		if id == "" {
			continue
		}
		h := games.Heard{ID: id, Own: own}
		if hasNews && !own {
			h.News, _ = decodeNews(line)
		}
		changed(h)
	}
}
