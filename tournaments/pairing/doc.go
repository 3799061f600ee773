// Package pairing holds the pure functions of tournaments: pairing a Swiss
// round, a Swiss event's standings, pairing an arena's free players and
// scoring an arena. It does no I/O and keeps no state: the tournaments
// service hands it an event's history and stores what it answers. Players
// are plain id strings; the same input always gives the same answer.
//
// # Points
//
// Points are counted so that a win is 2 and a draw 1, everywhere: Swiss
// points are half points (a Swiss bye is a win, 2), and arena points are
// lichess's whole arena points, whose win is 2 as well.
//
// # Swiss rounds
//
// SwissRound follows the FIDE Dutch system (C.04.3) in a simplified form.
//
// Who is paired: the active entrants, those not withdrawn whose
// JoinedRound (0 counting as 1) is not after the round. A late joiner's
// earlier rounds score nothing and are not byes.
//
// What counts from the history: finished games give points (2, 1, 0) and
// a bye 2. Every game, finished or still running, is a meeting and a seat
// taken (only its points are still to come).
//
// Absolute rules, never broken: two players meet at most once; a player
// has at most one bye; and each player's Souths minus Norths stays within
// ±1 after the round. Only if no pairing at all keeps ±1 is the round
// paired again within ±2 (the same method, the only change being the
// limit); if none keeps ±2 either, SwissRound returns ErrNoPairing. Under
// a limit L a player L Souths up can only sit North (and the other way
// round), so two such players cannot meet: most of what makes a round
// hard to pair is counting these players, and the search counts them
// first (it never tries a bracket whose seats cannot balance).
//
//  1. Rank the active players by points, then rating, then id. Players of
//     equal points form a score group.
//  2. With an odd number of players, the bye goes to the lowest ranked
//     player who has had no bye and without whom the rest can be paired
//     (first by a quick search that ignores score groups, then by steps 3
//     to 5); the lowest ranked is in the lowest score group, so the bye
//     goes there when it can.
//  3. Pair the score groups from the top. A bracket is the players floated
//     down from the bracket above (ranked first) and the group's own. It
//     makes as many pairs as it can: for each number of pairs, most first,
//     it chooses who floats down to the next bracket, trying the lowest
//     ranked first (and the floaters from above last), and keeps the first
//     choice with which both the bracket and everyone below (the new
//     floaters and the lower groups) can still be paired; whether everyone
//     below can is a bounded search in rank order that ignores score groups,
//     and reaching its bound counts as no. The last bracket floats nobody.
//  4. Within a bracket, the floaters from above are paired first, each,
//     in rank order, with the highest resident they may meet. The residents
//     left (an even number: the floaters are chosen) are split into a top
//     half S1 and a bottom half S2, and S1[i] meets S2[i]. When a pair is
//     illegal the search goes depth first: the highest player left takes,
//     in order, the S2 players left, then the S1 players below them (an
//     exchange); a dead end goes back to the latest choice. So S2's orders
//     (transpositions) come in lexicographic order, and a player meets
//     another of their own half only when no S2 player left will do.
//  5. If a bracket cannot be paired at all, it is merged into the bracket
//     above, which is paired again with it (the Dutch collapsed last
//     bracket, carried upward as far as needed).
//  6. Boards are numbered in rank order of each pair's higher ranked
//     player. Seats: a player with more Souths than Norths is due North,
//     with that difference as strength (and the other way round); a
//     balanced player is due the seat opposite their last one, weakly; a
//     player who has not played is due nothing. Both players get their due
//     seats if they differ; else the stronger due seat is granted; else,
//     going back game by game, the seats alternate from the latest game in
//     which the two sat differently; else the higher ranked player gets
//     their due seat. Two players due nothing: the higher ranked sits South
//     on odd boards and North on even ones.
//
// The search is bounded in steps (not time, so that the answer does not
// depend on the machine): a round of 1000 players takes a few
// milliseconds. Past the bounds it answers ErrNoPairing, which only an
// event that has run out of legal pairings reaches. Late in a small event
// (near as many rounds as a round robin) a Swiss can run out of legal
// pairings; SwissRound then says so rather than repeat a game.
//
// # Swiss standings
//
// SwissStandings ranks every entrant, withdrawn ones included, by Points,
// then Buchholz, then Sonneborn-Berger, then Wins; entrants equal in all of
// them share a rank and are listed by id. Buchholz is the sum of the final
// Points of the opponents of the entrant's finished games, in half points;
// a bye has no opponent and adds nothing. Sonneborn-Berger is the sum,
// over finished games, of the half points the entrant scored times the
// opponent's Points, so in quarter points: a win over an opponent with
// 3 points (6 half points) adds 2×6 = 12, which is 3 points. A bye adds
// nothing to it either.
//
// # Arenas
//
// ArenaScores scores finished games in the order they ended as lichess
// arenas do: a win 2, a draw 1, a loss 0; after two wins in a row the
// player is on fire, and a win then gives 4 and a draw 2, until a game
// that is not a win ends the streak; a berserk win of at least 7 plies
// adds 1, on fire or not. Players are ranked by points, then by fewer
// games (the same points in fewer games), then id; equal points and games
// share a rank.
//
// ArenaPairs pairs the free players: ranked by points, then rating, then
// id, each unpaired player in turn meets the unpaired player closest to
// them in points, then in rating, who was not their last opponent and
// whose last opponent they were not; two left over who may not meet are
// fitted into pairs already made when a swap allows it. The player with
// fewer Souths than Norths so far sits South (the higher ranked on a
// tie). Whoever is left over waits for the next call.
package pairing
