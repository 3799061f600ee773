package stored

// The lobby's rows as both database stores keep them: the columns that
// queries select on (status, player, time control, rating and range,
// instants), and the rest of a seek's or challenge's terms, which never
// change once it is made, as one JSON document.

import (
	"encoding/json"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

// seekTerms are a seek's terms beyond its columns.
type seekTerms struct {
	Name        string            `json:"name"`
	Rating      players.Rating    `json:"rating"`
	TimeControl games.TimeControl `json:"timeControl"`
	Seat        lobby.SeatChoice  `json:"seat"`
	Range       lobby.Range       `json:"range"`
	Bot         bool              `json:"bot,omitempty"`
	NoBots      bool              `json:"noBots,omitempty"`
}

// SeekTerms encodes sk's terms.
func SeekTerms(sk *lobby.Seek) (string, error) {
	b, err := json.Marshal(seekTerms{Name: sk.Name, Rating: sk.Rating, TimeControl: sk.TimeControl, Seat: sk.Seat, Range: sk.Range,
		Bot: sk.Bot, NoBots: sk.NoBots})
	return string(b), err
}

// SetSeekTerms decodes terms into sk.
func SetSeekTerms(sk *lobby.Seek, terms string) error {
	var t seekTerms
	if err := json.Unmarshal([]byte(terms), &t); err != nil {
		return Undecodable("seek "+sk.ID, err)
	}
	sk.Name, sk.Rating, sk.TimeControl, sk.Seat, sk.Range = t.Name, t.Rating, t.TimeControl, t.Seat, t.Range
	sk.Bot, sk.NoBots = t.Bot, t.NoBots
	return nil
}

// TimeControlKey is the text two time controls share exactly when they are
// equal: the seeks' column that pairing matches on.
func TimeControlKey(tc games.TimeControl) string {
	return fmt.Sprintf("%d/%d/%d/%d", tc.Kind, tc.Initial.Microseconds(), tc.Increment.Microseconds(), tc.PerMove.Microseconds())
}

// challengeTerms are a challenge's terms beyond its columns.
type challengeTerms struct {
	FromName    string            `json:"fromName"`
	ToName      string            `json:"toName"`
	TimeControl games.TimeControl `json:"timeControl"`
	Seat        lobby.SeatChoice  `json:"seat"`
	CaptureSeed string            `json:"captureSeed"`
	Leftovers   string            `json:"leftovers"`
	Start       string            `json:"start"`
	HasStart    bool              `json:"hasStart"`
	FromBot     bool              `json:"fromBot,omitempty"`
	ToBot       bool              `json:"toBot,omitempty"`
	NoBots      bool              `json:"noBots,omitempty"`
}

// ChallengeTerms encodes c's terms.
func ChallengeTerms(c *lobby.Challenge) (string, error) {
	b, err := json.Marshal(challengeTerms{FromName: c.FromName, ToName: c.ToName, TimeControl: c.TimeControl, Seat: c.Seat,
		CaptureSeed: c.Rules.CaptureSeed.String(), Leftovers: c.Rules.Leftovers.String(), Start: c.Start.String(), HasStart: c.HasStart,
		FromBot: c.FromBot, ToBot: c.ToBot, NoBots: c.NoBots})
	return string(b), err
}

// SetChallengeTerms decodes terms into c.
func SetChallengeTerms(c *lobby.Challenge, terms string) error {
	var t challengeTerms
	if err := json.Unmarshal([]byte(terms), &t); err != nil {
		return Undecodable("challenge "+c.ID, err)
	}
	rules, err := engine.ParseRules(t.CaptureSeed, t.Leftovers)
	if err != nil {
		return Undecodable("challenge "+c.ID, err)
	}
	start, err := engine.Parse(t.Start)
	if err != nil {
		return Undecodable("challenge "+c.ID, err)
	}
	c.FromName, c.ToName, c.TimeControl, c.Seat = t.FromName, t.ToName, t.TimeControl, t.Seat
	c.Rules, c.Start, c.HasStart = rules, start, t.HasStart
	c.FromBot, c.ToBot, c.NoBots = t.FromBot, t.ToBot, t.NoBots
	return nil
}

// eventData is an event beyond its stream, number, kind and instant.
type eventData struct {
	GameID      string              `json:"gameId,omitempty"`
	Side        engine.Side         `json:"side"`
	SeekID      string              `json:"seekId,omitempty"`
	ChallengeID string              `json:"challengeId,omitempty"`
	Reason      lobby.DeclineReason `json:"reason,omitempty"`
}

// EventData encodes e's data.
func EventData(e *lobby.Event) (string, error) {
	b, err := json.Marshal(eventData{GameID: e.GameID, Side: e.Side, SeekID: e.SeekID, ChallengeID: e.ChallengeID, Reason: e.Reason})
	return string(b), err
}

// SetEventData decodes data into e.
func SetEventData(e *lobby.Event, data string) error {
	var d eventData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return Undecodable(fmt.Sprintf("event %s/%d", e.Stream, e.Seq), err)
	}
	e.GameID, e.Side, e.SeekID, e.ChallengeID, e.Reason = d.GameID, d.Side, d.SeekID, d.ChallengeID, d.Reason
	return nil
}
