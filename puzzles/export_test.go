package puzzles

import (
	"time"

	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// RaceDetector lets the external tests shrink under the race detector too.
const RaceDetector = raceDetector

// MissLimit lets the external tests count the generations before a filter
// is unmet.
const MissLimit = missLimit

// VersionOn returns the generator version in force for date's puzzle by the
// feed's cutover, for the tests of the cutover.
func (f *Feed) VersionOn(date time.Time) int { return gen.VersionFor(date, f.cutover) }
