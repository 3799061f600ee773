package gen

// For the external tests (package gen_test), which may import packages
// that import this one (puzzles, puzzles/ahead).

// YearFeed is the feed of the year test of a generator version, as
// TestFeedYear and TestFeedYearV2 generate and check it, made once per test
// binary.
var YearFeed = yearFeed

// FullYearSpan is the year the year test of a version generates with
// AYOAYO_PUZZLE_YEARS=1.
var FullYearSpan = fullYearSpan
