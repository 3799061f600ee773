// Package puzzles serves the puzzles package gen makes: the daily feed
// (which day is today, one generation per day however many ask, the Store
// the days are kept in, a proof again whenever one is read), the practice
// pool (puzzles made on request from a filter and a sequence number, with
// its caches, slots and time limits), the judging of attempts and the
// puzzle ratings. Generator holds the endgame table gen's proofs of
// version 2 need, built once and shared.
package puzzles
