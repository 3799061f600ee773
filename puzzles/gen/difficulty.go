package gen

import "time"

// difficulty grades a puzzle from 1 to 5 by three things a solver feels:
//   - how long the key relay is to follow seed by seed (legs);
//   - how far ahead it must look (the goal's depth: one move, the reply too,
//     or a forced line of two or three own moves);
//   - how many other moves look as good at first sight (decoys: moves that
//     capture something, or whose relay is just as long and must be followed
//     through before it can be ruled out).
func difficulty(goal Goal, depth, legs, decoys int) int {
	points := 0
	switch {
	case legs >= 18:
		points += 2
	case legs >= 12:
		points++
	}
	switch goal {
	case GoalDefend:
		points++
	case GoalWin:
		points += depth - 1
	case GoalEndgame: // a win's depth, and perfect play to judge the others by
		points += depth
	}
	switch {
	case decoys >= 3:
		points += 2
	case decoys >= 1:
		points++
	}
	return min(1+points, 5)
}

// grade is the difficulty of finding f, whose moves are facts, by generator
// version's grading. Version 2 counts the decoys beyond the first: each of
// its max_capture puzzles has another capture beside the key by rule, and
// each non-greedy key has a bigger capture beside it by definition, so one
// tempting alternative is what a version 2 puzzle normally shows; a second
// one adds a grade, a fourth two. Without that, no non-greedy key could
// grade below 3 (the bigger capture and the goal's own grade), and the easy
// days could never ask for looking ahead.
func grade(version int, facts []moveFacts, f finding) int {
	decoys := f.decoys
	if version >= 2 {
		decoys = max(decoys-1, 0)
	}
	return difficulty(f.goal, f.depth, facts[f.key].legs, decoys)
}

// TargetDifficulty is the difficulty the feed publishes on date's weekday:
// Monday easiest, the weekend hardest. Tuesday and Friday take the higher of
// two grades in odd ISO weeks, so that the mean rises every day of the week:
// about 1, 1.5, 2, 3, 3.5, 4 and 5.
func TargetDifficulty(date time.Time) int {
	_, week := Day(date).ISOWeek()
	odd := week % 2
	switch Day(date).Weekday() {
	case time.Monday:
		return 1
	case time.Tuesday:
		return 1 + odd
	case time.Wednesday:
		return 2
	case time.Thursday:
		return 3
	case time.Friday:
		return 3 + odd
	case time.Saturday:
		return 4
	default: // Sunday
		return 5
	}
}
