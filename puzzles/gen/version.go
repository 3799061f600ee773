package gen

import (
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// DefaultCutover is the first day made by generator version 2 unless
// FeedOptions says otherwise: every day before it keeps version 1's puzzle.
var DefaultCutover = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

// VersionFor returns the generator version in force for date (its UTC day)
// when version 2 starts on cutover's UTC day: 1 before it, Version from it.
// A zero cutover means DefaultCutover.
func VersionFor(date, cutover time.Time) int {
	if cutover.IsZero() {
		cutover = DefaultCutover
	}
	if Day(date).Before(Day(cutover)) {
		return 1
	}
	return Version
}

// Every position has three fixed hashes, each a contract like bucket's:
// changing one would move puzzles between the daily feed and the practice
// pool, or break the practice pool's no-repeat promise. They are all
// positionHash, FNV-1a over the same fifteen bytes as bucket's, run through
// the finalizer of SplitMix64 with a salt of their own, so that they are
// independent of each other and of bucket (FNV-1a's low bits alone are weak:
// its lowest bit is the parity of the bytes' lowest bits, and bucket is taken
// modulo an even number).
const (
	sideSalt  = 0x7072_6163_7469_6365 // "practice"
	drillSalt = 0x6472_696c_6c5f_6f6b // "drill_ok"
)

// positionHash is fnv (bucket's FNV-1a) xored with salt and mixed by
// SplitMix64's finalizer.
func positionHash(p *engine.Position, salt uint64) uint64 {
	h := fnv(p) ^ salt
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// PracticeSide reports whether p belongs to the practice pool: the top bit of
// its practice hash. From version 2 on, daily puzzles come only from the
// other half and practice puzzles only from this one, so no practice puzzle
// is ever a daily puzzle of version 2 or later. (Version 1's puzzles predate
// the split and may fall on either side.)
func PracticeSide(p *engine.Position) bool {
	return positionHash(p, sideSalt)>>63 == 1
}

// PracticeWindow is the length of the practice pool's no-repeat promise: the
// puzzles seq k to k+PracticeWindow-1 of one filter have distinct positions.
const PracticeWindow = 1024

// DrillBucket is the practice pool's bucket: practice puzzle seq must have a
// position with drillBucket(p) == seq mod PracticeWindow, the scheme Window
// uses for dates, on a third hash (the top ten bits of its drill hash).
func DrillBucket(p *engine.Position) int {
	return int(positionHash(p, drillSalt) >> 54)
}
