package storetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

var lobbyCases = []suiteCase{
	{"SeekLimits", testSeekLimits},
	{"SeekQueries", testSeekQueries},
	{"Pair", testPair},
	{"PairRace", testPairRace},
	{"CancelSeek", testCancelSeek},
	{"Challenges", testChallenges},
	{"AcceptRace", testAcceptRace},
	{"AcceptClock", testAcceptClock},
	{"TouchAndExpire", testTouchAndExpire},
	{"LobbyEvents", testLobbyEvents},
	{"LobbyEventsTournament", testLobbyEventsTournament},
	{"StreamTickets", testStreamTickets},
}

var (
	blitz = games.TimeControl{Kind: games.Live, Initial: 180 * time.Second, Increment: 2 * time.Second}
	rapid = games.TimeControl{Kind: games.Live, Initial: 600 * time.Second}
	corr  = games.TimeControl{Kind: games.Correspondence, PerMove: 72 * time.Hour}
)

// seekOf is an open seek of player, made at tick(at), expiring 60 ticks on.
func seekOf(id, player string, tc games.TimeControl, at int) lobby.Seek {
	return lobby.Seek{ID: id, PlayerID: player, Name: "Ọlá " + player, Rating: players.Rating{Value: 1500, Deviation: 350, Volatility: 0.06},
		TimeControl: tc, Rated: true, Seat: lobby.SeatRandom, Status: lobby.SeekOpen,
		CreatedAt: tick(at), UpdatedAt: tick(at), ExpiresAt: tick(at + 60)}
}

func mustAddSeek(t *testing.T, s Store, sk lobby.Seek) {
	t.Helper()
	if err := s.AddSeek(t.Context(), sk, lobby.MaxOpenSeeks); err != nil {
		t.Fatalf("add seek %s: %v", sk.ID, err)
	}
}

func seekIDs(ss []lobby.Seek) []string {
	ids := make([]string, len(ss))
	for i := range ss {
		ids[i] = ss[i].ID
	}
	return ids
}

func checkIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// pairedGame is an active game between a and b as games.Paired makes one.
func pairedGame(id, a, b string, tc games.TimeControl, at time.Time) games.Game {
	g := games.Game{ID: id, CreatedAt: at, UpdatedAt: at, JoinedAt: at, Start: engine.Start(), Position: engine.Start(),
		Status: games.Active, Version: 1, TimeControl: tc, Rated: true, Deadline: at.Add(30 * time.Second)}
	g.Clock = [2]time.Duration{tc.Initial, tc.Initial}
	for side, p := range []string{a, b} {
		g.Tokens[side] = seatToken(id, engine.Side(side))
		g.Players[side] = games.SeatPlayer{ID: p, Name: "Ọlá " + p, Rating: 1500, Deviation: 350}
	}
	return g
}

func testSeekLimits(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	mustAddSeek(t, s, seekOf("s1", "ann", blitz, 0))
	if err := s.AddSeek(ctx, seekOf("s2", "ann", blitz, 1), lobby.MaxOpenSeeks); !errors.Is(err, lobby.ErrTooManySeeks) {
		t.Fatalf("a second open seek of one time control: %v, want ErrTooManySeeks", err)
	}
	if _, err := s.Seek(ctx, "s2"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("the refused seek reads %v, want ErrNotFound", err)
	}
	// The same time control after the first expired is a new one.
	if err := s.AddSeek(ctx, seekOf("s3", "ann", blitz, 61), lobby.MaxOpenSeeks); err != nil {
		t.Fatalf("after the first expired: %v", err)
	}
	for i := range 4 {
		tc := games.TimeControl{Kind: games.Live, Initial: time.Duration(i+1) * time.Minute}
		if err := s.AddSeek(ctx, seekOf(fmt.Sprint("t", i), "ann", tc, 62), lobby.MaxOpenSeeks); err != nil {
			t.Fatalf("open seek %d: %v", i+2, err)
		}
	}
	if err := s.AddSeek(ctx, seekOf("t9", "ann", corr, 63), lobby.MaxOpenSeeks); !errors.Is(err, lobby.ErrTooManySeeks) {
		t.Fatalf("a sixth open seek: %v, want ErrTooManySeeks", err)
	}
	// Another player's seeks count for that player only.
	mustAddSeek(t, s, seekOf("b1", "bob", blitz, 63))
	got, err := s.Seek(ctx, "s3")
	if err != nil || got.PlayerID != "ann" || got.TimeControl != blitz || !got.Rated || got.Status != lobby.SeekOpen ||
		!got.CreatedAt.Equal(tick(61)) || !got.ExpiresAt.Equal(tick(121)) || got.Rating.Value != 1500 || got.Name != "Ọlá ann" {
		t.Errorf("seek read back: %+v, %v", got, err)
	}
}

func testSeekQueries(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a := seekOf("a", "ann", blitz, 0)
	b := seekOf("b", "bob", blitz, 1)
	b.Rating.Value = 1800
	c := seekOf("c", "cid", blitz, 2)
	c.Range = lobby.Range{Min: 1700, Max: 1900, Set: true}
	d := seekOf("d", "dan", corr, 3)
	e := seekOf("e", "eve", blitz, 4)
	e.Rated = false
	for _, sk := range []lobby.Seek{a, b, c, d, e} {
		mustAddSeek(t, s, sk)
	}
	q := lobby.CandidateQuery{TimeControl: blitz, Rated: true, Player: "zed", Rating: 1500, At: tick(5), Limit: 10}
	got, err := s.Candidates(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, "candidates", seekIDs(got), "a", "b") // c's range leaves 1500 out
	q.Player, q.Range = "ann", lobby.Range{Min: 1600, Max: 2000, Set: true}
	got, _ = s.Candidates(ctx, q)
	checkIDs(t, "candidates in a range", seekIDs(got), "b")
	q.Rating, q.Range = 1800, lobby.Range{}
	got, _ = s.Candidates(ctx, q)
	checkIDs(t, "candidates for 1800", seekIDs(got), "b", "c")
	q.At = tick(60) // a has expired
	got, _ = s.Candidates(ctx, q)
	checkIDs(t, "candidates after an expiry", seekIDs(got), "b", "c")

	all, err := s.OpenSeeks(ctx, lobby.LobbyQuery{At: tick(5), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, "lobby", seekIDs(all), "e", "d", "c", "b", "a")
	rated := false
	got, _ = s.OpenSeeks(ctx, lobby.LobbyQuery{At: tick(5), Rated: &rated, Limit: 10})
	checkIDs(t, "casual lobby", seekIDs(got), "e")
	got, _ = s.OpenSeeks(ctx, lobby.LobbyQuery{At: tick(5), Kind: games.Correspondence, Limit: 10})
	checkIDs(t, "correspondence lobby", seekIDs(got), "d")
	got, _ = s.OpenSeeks(ctx, lobby.LobbyQuery{At: tick(62), Limit: 2})
	checkIDs(t, "lobby later, two", seekIDs(got), "e", "d")
	mine, _ := s.PlayerSeeks(ctx, "bob", tick(5))
	checkIDs(t, "bob's seeks", seekIDs(mine), "b")
}

func testPair(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	mustAddSeek(t, s, seekOf("a", "ann", blitz, 0))
	mustAddSeek(t, s, seekOf("a2", "ann", rapid, 0))
	mustAddSeek(t, s, seekOf("a3", "ann", corr, 0))
	mustAddSeek(t, s, seekOf("b", "bob", blitz, 1))
	mustAddSeek(t, s, seekOf("c", "cid", blitz, 1))
	g := pairedGame("game1", "bob", "ann", blitz, tick(2))
	cancelled, err := s.Pair(ctx, lobby.Pairing{Seek: "b", Other: "a", SeekSide: engine.South, OtherSide: engine.North, Game: g, CancelClock: true, At: tick(2)})
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, "cancelled", seekIDs(cancelled), "a2")
	for id, side := range map[string]engine.Side{"a": engine.North, "b": engine.South} {
		sk, _ := s.Seek(ctx, id)
		if sk.Status != lobby.SeekMatched || sk.GameID != "game1" || sk.Side != side || !sk.UpdatedAt.Equal(tick(2)) {
			t.Errorf("seek %s after the pairing: %+v", id, sk)
		}
	}
	if sk, _ := s.Seek(ctx, "a2"); sk.Status != lobby.SeekCancelled {
		t.Errorf("ann's other clock seek: %s, want cancelled", sk.Status)
	}
	if sk, _ := s.Seek(ctx, "a3"); sk.Status != lobby.SeekOpen {
		t.Errorf("ann's correspondence seek: %s, want open", sk.Status)
	}
	stored, err := s.Game(ctx, "game1")
	if err != nil || stored.Status != games.Active || stored.Players[engine.South].ID != "bob" || stored.Players[engine.North].ID != "ann" ||
		!stored.Deadline.Equal(g.Deadline) || stored.TimeControl != blitz || !stored.Rated {
		t.Fatalf("the paired game: %+v, %v", stored, err)
	}
	playing, err := s.PlayingGames(ctx, "ann")
	if err != nil || len(playing) != 1 || playing[0].ID != "game1" {
		t.Errorf("ann's games in play: %v, %v", playing, err)
	}
	// A player in a game with a live clock posts no clock seek, and is in
	// no clock pairing.
	if err := s.AddSeek(ctx, seekOf("a4", "ann", rapid, 3), lobby.MaxOpenSeeks); !errors.Is(err, lobby.ErrPlaying) {
		t.Errorf("a clock seek of a player in a clock game: %v, want ErrPlaying", err)
	}
	mustAddSeek(t, s, seekOf("d", "dan", blitz, 3))
	_, err = s.Pair(ctx, lobby.Pairing{Seek: "d", Other: "c", Game: pairedGame("game4", "dan", "bob", blitz, tick(3)), CancelClock: true, At: tick(3)})
	if !errors.Is(err, lobby.ErrPlaying) {
		t.Errorf("a clock pairing of a player in a clock game: %v, want ErrPlaying", err)
	}
	// A matched seek pairs no more, and the failed write stores no game.
	_, err = s.Pair(ctx, lobby.Pairing{Seek: "c", Other: "a", Game: pairedGame("game2", "cid", "ann", blitz, tick(3)), At: tick(3)})
	if !errors.Is(err, lobby.ErrConflict) {
		t.Fatalf("pairing a matched seek: %v, want ErrConflict", err)
	}
	if _, err := s.Game(ctx, "game2"); !errors.Is(err, games.ErrNotFound) {
		t.Errorf("the refused pairing's game: %v, want none", err)
	}
	if sk, _ := s.Seek(ctx, "c"); sk.Status != lobby.SeekOpen {
		t.Errorf("c after the refused pairing: %s, want open", sk.Status)
	}
	// An expired seek pairs no more.
	_, err = s.Pair(ctx, lobby.Pairing{Seek: "c", Other: "a3", Game: pairedGame("game3", "cid", "ann", blitz, tick(99)), At: tick(99)})
	if !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("pairing expired seeks: %v, want ErrConflict", err)
	}
}

// handles returns s and, when the store has one, a second handle on its
// database.
func handles(t *testing.T, s Store, fx *fixtures) []Store {
	t.Helper()
	if fx.again == nil {
		return []Store{s}
	}
	return []Store{s, fx.again(t, s)}
}

func testPairRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	hs := handles(t, s, fx)
	mustAddSeek(t, s, seekOf("target", "ann", blitz, 0))
	// Each racer has a seek of its own and a second clock seek, and all
	// pair with ann's one seek at once.
	for i := range racers {
		p := fmt.Sprint("p", i)
		mustAddSeek(t, s, seekOf("s"+p, p, blitz, 1))
		mustAddSeek(t, s, seekOf("r"+p, p, rapid, 1))
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			p := fmt.Sprint("p", i)
			_, err := hs[i%len(hs)].Pair(ctx, lobby.Pairing{Seek: "s" + p, Other: "target", SeekSide: engine.South, OtherSide: engine.North,
				Game: pairedGame("g"+p, p, "ann", blitz, tick(2)), CancelClock: true, At: tick(2)})
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, lobby.ErrConflict) && !errors.Is(err, lobby.ErrPlaying):
				t.Errorf("racer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d pairings of one seek, want 1", wins.Load())
	}
	target, _ := s.Seek(ctx, "target")
	made := 0
	for i := range racers {
		p := fmt.Sprint("p", i)
		_, err := s.Game(ctx, "g"+p)
		mine, _ := s.Seek(ctx, "s"+p)
		other, _ := s.Seek(ctx, "r"+p)
		if err == nil {
			made++
			if target.GameID != "g"+p || mine.Status != lobby.SeekMatched || other.Status != lobby.SeekCancelled {
				t.Errorf("winner %s: target in %s, its seeks %s and %s", p, target.GameID, mine.Status, other.Status)
			}
		} else if mine.Status != lobby.SeekOpen || other.Status != lobby.SeekOpen {
			t.Errorf("loser %s: its seeks %s and %s, want open", p, mine.Status, other.Status)
		}
	}
	if made != 1 {
		t.Errorf("%d games made, want 1", made)
	}
}

func testCancelSeek(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	mustAddSeek(t, s, seekOf("a", "ann", blitz, 0))
	sk, err := s.CancelSeek(ctx, "a", tick(1))
	if err != nil || sk.Status != lobby.SeekCancelled || !sk.UpdatedAt.Equal(tick(1)) {
		t.Fatalf("cancel: %+v, %v", sk, err)
	}
	if _, err := s.CancelSeek(ctx, "a", tick(2)); !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("cancel twice: %v, want ErrConflict", err)
	}
	if _, err := s.CancelSeek(ctx, "nope", tick(2)); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("cancel an unknown seek: %v, want ErrNotFound", err)
	}
	// A cancelled seek frees its time control.
	mustAddSeek(t, s, seekOf("a2", "ann", blitz, 2))
}

func challengeOf(id, from, to string, at int) lobby.Challenge {
	return lobby.Challenge{ID: id, From: from, FromName: "Ọlá " + from, To: to, TimeControl: blitz, Rated: true,
		Seat: lobby.SeatNorth, Rules: engine.Rules{CaptureSeed: engine.CaptureLeft}, Start: engine.Start(),
		Status: lobby.ChallengePending, CreatedAt: tick(at), UpdatedAt: tick(at), ExpiresAt: tick(at + 60)}
}

func mustAddChallenge(t *testing.T, s Store, c lobby.Challenge) {
	t.Helper()
	if err := s.AddChallenge(t.Context(), c); err != nil {
		t.Fatalf("add challenge %s: %v", c.ID, err)
	}
}

func challengeIDs(cs []lobby.Challenge) []string {
	ids := make([]string, len(cs))
	for i := range cs {
		ids[i] = cs[i].ID
	}
	return ids
}

func testChallenges(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	c := challengeOf("c1", "ann", "bob", 0)
	start, _ := nearEnd(t)
	c.Start, c.HasStart, c.Rated, c.ToName = start, true, false, "Bob"
	mustAddChallenge(t, s, c)
	mustAddChallenge(t, s, challengeOf("c2", "cid", "ann", 1))
	open := challengeOf("c3", "dan", "", 2)
	mustAddChallenge(t, s, open)
	got, err := s.Challenge(ctx, "c1")
	if err != nil || got.Start != start || !got.HasStart || got.Rated || got.Rules != c.Rules || got.Seat != lobby.SeatNorth ||
		got.To != "bob" || got.ToName != "Bob" || got.TimeControl != blitz || !got.ExpiresAt.Equal(tick(60)) {
		t.Fatalf("challenge read back: %+v, %v", got, err)
	}
	mine, _ := s.PlayerChallenges(ctx, "ann", tick(3))
	checkIDs(t, "ann's challenges", challengeIDs(mine), "c1", "c2")

	g := pairedGame("game1", "bob", "ann", blitz, tick(4))
	acc, _, err := s.Accept(ctx, lobby.Acceptance{ID: "c1", By: "bob", Side: engine.North, Game: g, At: tick(4)})
	if err != nil || acc.Status != lobby.ChallengeAccepted || acc.GameID != "game1" || acc.AcceptedBy != "bob" || acc.Side != engine.North {
		t.Fatalf("accept: %+v, %v", acc, err)
	}
	if _, err := s.Game(ctx, "game1"); err != nil {
		t.Errorf("the accepted challenge's game: %v", err)
	}
	_, _, err = s.Accept(ctx, lobby.Acceptance{ID: "c1", By: "bob", Game: pairedGame("game2", "bob", "ann", blitz, tick(5)), At: tick(5)})
	if !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("accept twice: %v, want ErrConflict", err)
	}
	if _, err := s.Game(ctx, "game2"); !errors.Is(err, games.ErrNotFound) {
		t.Errorf("the second accept's game: %v, want none", err)
	}
	dec, err := s.CloseChallenge(ctx, "c2", lobby.ChallengeDeclined, lobby.DeclineTooFast, tick(5))
	if err != nil || dec.Status != lobby.ChallengeDeclined || dec.Reason != lobby.DeclineTooFast {
		t.Errorf("decline: %+v, %v", dec, err)
	}
	if _, err := s.CloseChallenge(ctx, "c2", lobby.ChallengeCancelled, "", tick(6)); !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("cancel after a decline: %v, want ErrConflict", err)
	}
	if _, _, err := s.Accept(ctx, lobby.Acceptance{ID: "c3", By: "eve", Game: pairedGame("game3", "dan", "eve", blitz, tick(70)), At: tick(70)}); !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("accept an expired challenge: %v, want ErrConflict", err)
	}
	if _, err := s.Challenge(ctx, "nope"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("unknown challenge: %v", err)
	}
	mine, _ = s.PlayerChallenges(ctx, "ann", tick(7))
	checkIDs(t, "ann's pending challenges after", challengeIDs(mine))

	// One pending rematch per game.
	r := challengeOf("r1", "ann", "bob", 8)
	r.RematchOf = "game1"
	mustAddChallenge(t, s, r)
	r2 := challengeOf("r2", "bob", "ann", 8)
	r2.RematchOf = "game1"
	if err := s.AddChallenge(ctx, r2); !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("a second pending rematch: %v, want ErrConflict", err)
	}
	pr, err := s.PendingRematch(ctx, "game1", tick(9))
	if err != nil || pr.ID != "r1" {
		t.Errorf("pending rematch: %+v, %v", pr, err)
	}
	if _, err := s.PendingRematch(ctx, "game1", tick(99)); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("an expired rematch: %v, want ErrNotFound", err)
	}
}

// testAcceptClock: accepting a challenge with a live clock is refused
// while either player plays a game with a live clock, as a clock pairing
// is, and cancels both players' open clock seeks.
func testAcceptClock(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	c := challengeOf("live", "ann", "bob", 0)
	mustAddChallenge(t, s, c)
	if _, _, err := s.Accept(ctx, lobby.Acceptance{ID: "live", By: "bob", Side: engine.North,
		Game: pairedGame("game1", "bob", "ann", blitz, tick(1)), CancelClock: true, At: tick(1)}); err != nil {
		t.Fatalf("ann and bob's clock game: %v", err)
	}
	// Accepting it again: taken, whatever its players play now.
	if _, _, err := s.Accept(ctx, lobby.Acceptance{ID: "live", By: "bob", Side: engine.North,
		Game: pairedGame("game2", "bob", "ann", blitz, tick(2)), CancelClock: true, At: tick(2)}); !errors.Is(err, lobby.ErrConflict) {
		t.Errorf("accept twice: %v, want ErrConflict", err)
	}
	mustAddSeek(t, s, seekOf("dan-blitz", "dan", blitz, 1))
	mustAddSeek(t, s, seekOf("dan-corr", "dan", corr, 1))
	mustAddSeek(t, s, seekOf("eve-rapid", "eve", rapid, 1))
	for i, tc := range []struct {
		name, from, to string
		tc             games.TimeControl
		want           error
		cancelled      []string
	}{
		{"the acceptor plays a clock game", "cid", "ann", blitz, lobby.ErrPlaying, nil},
		{"the challenger plays a clock game", "bob", "cid", rapid, lobby.ErrPlaying, nil},
		{"correspondence while playing", "ann", "cid", corr, nil, nil},
		{"neither plays: their clock seeks go", "dan", "eve", blitz, nil, []string{"dan-blitz", "eve-rapid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, game := fmt.Sprint("c", i), fmt.Sprint("g", i)
			ch := challengeOf(id, tc.from, tc.to, 2)
			ch.TimeControl = tc.tc
			mustAddChallenge(t, s, ch)
			got, cancelled, err := s.Accept(ctx, lobby.Acceptance{ID: id, By: tc.to, Side: engine.North,
				Game: pairedGame(game, tc.to, tc.from, tc.tc, tick(3)), CancelClock: tc.tc.Kind == games.Live, At: tick(3)})
			if !errors.Is(err, tc.want) {
				t.Fatalf("accept: %v, want %v", err, tc.want)
			}
			checkIDs(t, "cancelled seeks", seekIDs(cancelled), tc.cancelled...)
			after, _ := s.Challenge(ctx, id)
			_, gerr := s.Game(ctx, game)
			if tc.want != nil {
				if after.Status != lobby.ChallengePending || !errors.Is(gerr, games.ErrNotFound) {
					t.Errorf("a refused accept wrote: %s, game %v", after.Status, gerr)
				}
				return
			}
			if got.Status != lobby.ChallengeAccepted || gerr != nil {
				t.Errorf("accepted: %s, game %v", got.Status, gerr)
			}
			for _, sk := range tc.cancelled {
				if cur, _ := s.Seek(ctx, sk); cur.Status != lobby.SeekCancelled {
					t.Errorf("seek %s: %s, want cancelled", sk, cur.Status)
				}
			}
		})
	}
	if sk, _ := s.Seek(ctx, "dan-corr"); sk.Status != lobby.SeekOpen {
		t.Errorf("dan's correspondence seek: %s, want open", sk.Status)
	}
}

func testAcceptRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	hs := handles(t, s, fx)
	mustAddChallenge(t, s, challengeOf("open", "ann", "", 0))
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			h := hs[i%len(hs)]
			var err error
			switch i % 4 {
			case 3:
				_, err = h.CloseChallenge(ctx, "open", lobby.ChallengeCancelled, "", tick(1))
			default:
				p := fmt.Sprint("p", i)
				_, _, err = h.Accept(ctx, lobby.Acceptance{ID: "open", By: p, Game: pairedGame("g"+p, "ann", p, blitz, tick(1)), At: tick(1)})
			}
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, lobby.ErrConflict):
				t.Errorf("racer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d writes took the challenge, want 1", wins.Load())
	}
	c, _ := s.Challenge(ctx, "open")
	made := 0
	for i := range racers {
		if _, err := s.Game(ctx, fmt.Sprint("gp", i)); err == nil {
			made++
			if c.GameID != fmt.Sprint("gp", i) {
				t.Errorf("game gp%d made, the challenge names %q", i, c.GameID)
			}
		}
	}
	if want := map[bool]int{true: 1, false: 0}[c.Status == lobby.ChallengeAccepted]; made != want {
		t.Errorf("challenge %s with %d games", c.Status, made)
	}
}

func testTouchAndExpire(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	mustAddSeek(t, s, seekOf("live", "ann", blitz, 0))
	mustAddSeek(t, s, seekOf("corr", "ann", corr, 0))
	mustAddSeek(t, s, seekOf("bobs", "bob", blitz, 0))
	mustAddChallenge(t, s, challengeOf("ch", "ann", "bob", 0))
	if err := s.Touch(ctx, "ann", tick(50), tick(90)); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, "ann", tick(51), tick(70)); err != nil { // never shortens
		t.Fatal(err)
	}
	seeks, chs, err := s.Expire(ctx, tick(60), 10)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, "expired at tick 60", append(seekIDs(seeks), challengeIDs(chs)...), "bobs", "corr")
	for id, want := range map[string]lobby.SeekStatus{"live": lobby.SeekOpen, "corr": lobby.SeekExpired, "bobs": lobby.SeekExpired} {
		if sk, _ := s.Seek(ctx, id); sk.Status != want {
			t.Errorf("seek %s: %s, want %s", id, sk.Status, want)
		}
	}
	if c, _ := s.Challenge(ctx, "ch"); c.Status != lobby.ChallengePending || !c.ExpiresAt.Equal(tick(90)) {
		t.Errorf("touched challenge: %s until %v", c.Status, c.ExpiresAt)
	}
	seeks, chs, _ = s.Expire(ctx, tick(90), 10)
	checkIDs(t, "expired at tick 90", append(seekIDs(seeks), challengeIDs(chs)...), "live", "ch")
	seeks, chs, _ = s.Expire(ctx, tick(91), 10)
	checkIDs(t, "expired again", append(seekIDs(seeks), challengeIDs(chs)...))
}

func testLobbyEvents(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	hs := handles(t, s, fx)
	evs, err := s.AppendEvents(ctx, []lobby.Event{
		{Stream: "ann", Kind: lobby.EventGameStart, GameID: "g1", Side: engine.North, At: tick(1)},
		{Stream: "bob", Kind: lobby.EventChallengeDeclined, ChallengeID: "c1", Reason: lobby.DeclineLater, At: tick(1)},
		{Stream: "ann", Kind: lobby.EventSeekMatched, SeekID: "s1", GameID: "g1", At: tick(2)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Seq != 1 || evs[1].Seq != 1 || evs[2].Seq != 2 {
		t.Errorf("numbered %d %d %d, want 1 1 2", evs[0].Seq, evs[1].Seq, evs[2].Seq)
	}
	got, err := s.Events(ctx, "ann", 0, 10)
	if err != nil || len(got) != 2 || got[0].GameID != "g1" || got[0].Side != engine.North || got[1].SeekID != "s1" || !got[1].At.Equal(tick(2)) {
		t.Fatalf("ann's events: %+v, %v", got, err)
	}
	if got, _ := s.Events(ctx, "bob", 0, 10); len(got) != 1 || got[0].Reason != lobby.DeclineLater || got[0].Kind != lobby.EventChallengeDeclined {
		t.Errorf("bob's events: %+v", got)
	}
	if got, _ := s.Events(ctx, "ann", 1, 10); len(got) != 1 || got[0].Seq != 2 {
		t.Errorf("ann's events after 1: %+v", got)
	}
	// Appends racing on one stream number it without a gap or a repeat.
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			if _, err := hs[i%len(hs)].AppendEvents(ctx, []lobby.Event{{Stream: "ann", Kind: lobby.EventSeekExpired, At: tick(3)}}); err != nil {
				t.Errorf("append %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	all, _ := s.Events(ctx, "ann", 0, 1000)
	for i, e := range all {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if last, err := s.LastEvent(ctx, "ann"); err != nil || last != int64(2+racers) {
		t.Errorf("last event %d, %v; want %d", last, err, 2+racers)
	}
	if n, err := s.PruneEvents(ctx, tick(3), 100); err != nil || n != 2 {
		t.Errorf("pruned %d, %v; want ann's two first (bob's last is kept)", n, err)
	}
	evs, _ = s.AppendEvents(ctx, []lobby.Event{{Stream: "ann", Kind: lobby.EventSeekExpired, At: tick(4)}})
	if evs[0].Seq != int64(3+racers) {
		t.Errorf("after pruning, seq %d", evs[0].Seq)
	}
	if last, _ := s.LastEvent(ctx, "nobody"); last != 0 {
		t.Errorf("an empty stream's last event: %d", last)
	}
}

// An event names its tournament (or bulk pairing), and one that names none
// reads back without one.
func testLobbyEventsTournament(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	in := []lobby.Event{
		{Stream: "ann", Kind: lobby.EventTournamentGame, GameID: "g1", Side: engine.North, TournamentID: "arena1", At: tick(1)},
		{Stream: "ann", Kind: lobby.EventSeekMatched, SeekID: "s1", GameID: "g2", At: tick(2)},
		{Stream: "~t/arena1", Kind: lobby.EventTournamentGame, GameID: "g1", TournamentID: "arena1", At: tick(3)},
	}
	evs, err := s.AppendEvents(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if evs[i].TournamentID != in[i].TournamentID {
			t.Errorf("appended event %d names tournament %q, want %q", i, evs[i].TournamentID, in[i].TournamentID)
		}
	}
	for _, stream := range []string{"ann", "~t/arena1"} {
		got, err := s.Events(ctx, stream, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var want []lobby.Event
		for _, e := range in {
			if e.Stream == stream {
				want = append(want, e)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d", stream, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.TournamentID != w.TournamentID || g.Kind != w.Kind || g.GameID != w.GameID || g.Side != w.Side || !g.At.Equal(w.At) {
				t.Errorf("%s: event %d is %+v, want %+v", stream, i, g, w)
			}
		}
	}
}

func testStreamTickets(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	if err := s.AddTicket(ctx, hashOf("t1"), "ann", tick(10)); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTicket(ctx, hashOf("t2"), "bob", tick(10)); err != nil {
		t.Fatal(err)
	}
	if p, err := s.UseTicket(ctx, hashOf("t1"), tick(5)); err != nil || p != "ann" {
		t.Errorf("use: %q, %v", p, err)
	}
	if _, err := s.UseTicket(ctx, hashOf("t1"), tick(5)); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("use twice: %v, want ErrNotFound", err)
	}
	if _, err := s.UseTicket(ctx, hashOf("t2"), tick(10)); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("use an expired ticket: %v, want ErrNotFound", err)
	}
}
