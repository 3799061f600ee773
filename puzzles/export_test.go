package puzzles

// RaceDetector lets the external tests shrink under the race detector too.
const RaceDetector = raceDetector

// MissLimit lets the external tests count the generations before a filter
// is unmet.
const MissLimit = missLimit
