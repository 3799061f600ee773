// Package pairing: a placeholder with the agreed API while the real
// package is written on its own branch; removed when it is merged.
package pairing

import "errors"

type Seat int

const (
	South Seat = 0
	North Seat = 1
)

type Outcome int

const (
	SouthWins Outcome = iota
	NorthWins
	Draw
)

type Pair struct{ South, North string }

type Game struct {
	Round        int
	South, North string
	Done         bool
	Outcome      Outcome
}

type Entrant struct {
	ID          string
	Rating      float64
	Withdrawn   bool
	JoinedRound int
}

var errStub = errors.New("pairing: not merged yet")

func SwissRound(entrants []Entrant, games []Game, byes []string, round int) ([]Pair, string, error) {
	return nil, "", errStub
}

type SwissStanding struct {
	Rank                      int
	ID                        string
	Points                    int
	Buchholz                  int
	SonnebornBerger           int
	Wins, Draws, Losses, Byes int
	Souths, Norths            int
}

func SwissStandings(entrants []Entrant, games []Game, byes []string) []SwissStanding { return nil }

type ArenaGame struct {
	South, North string
	Outcome      Outcome
	Berserk      [2]bool
	Plies        int
	Done         bool
}

type ArenaPlayer struct {
	ID           string
	Rating       float64
	Points       int
	LastOpponent string
}

func ArenaPairs(free []ArenaPlayer, seats map[string]int) []Pair { return nil }

type ArenaScore struct {
	ID                    string
	Points                int
	Sheet                 []int
	OnFire                bool
	Games, Wins, Berserks int
	Rank                  int
}

func ArenaScores(players []string, games []ArenaGame) []ArenaScore { return nil }
