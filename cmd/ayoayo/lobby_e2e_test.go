//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

// TestLobbyTwoInstances races the lobby across two `ayoayo serve`
// processes on one PostgreSQL schema, as the issue checks it: 1,000
// players post compatible and incompatible seeks at once to both
// instances, then challenges are accepted, declined, cancelled and left to
// expire at once, and both players of a finished game ask for a rematch at
// once, each on an instance of its own. What it checks is read back from
// the database.
func TestLobbyTwoInstances(t *testing.T) {
	endToEnd(t, "builds and runs two server binaries")
	dsn := postgresDSN(t)
	bin := buildBinary(t, t.TempDir())
	const challengeTTL = 5 * time.Second
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", dsn, "--lobby-create-rate", "0", "--player-create-rate", "0",
		"--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0", "--stream-rate", "0",
		"--challenge-ttl", challengeTTL.String()}
	a := startBinary(t, bin, append(args, "--instance", "a")...)
	b := startBinary(t, bin, append(args, "--instance", "b")...)
	defer a.stop(t)
	defer b.stop(t)
	l := &lobbyClient{t: t, http: &http.Client{Timeout: 30 * time.Second}, urls: [2]string{a.url, b.url}}
	db, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())

	t.Run("1,000 players seek at once on two instances", func(t *testing.T) {
		n := 1000
		if v, err := strconv.Atoi(os.Getenv("AYOAYO_LOBBY_RACE_PLAYERS")); err == nil && v > 1 {
			n = v
		}
		ps := l.players(t, "racer", n)
		seeks := raceSeeks(t, l, ps)
		checkSeeks(t, db, seeks)
	})

	t.Run("accept, decline and cancel racing: one wins", func(t *testing.T) {
		const n = 60
		from, to := l.players(t, "from", n), l.players(t, "to", n)
		ids := make([]string, n)
		winners := make([]string, n)
		// Correspondence ones: a clock one made first could expire
		// (--challenge-ttl) before its racers are all under way.
		parallel(n, func(i int) { ids[i] = l.challenge(t, i, from[i], to[i].id, termsOf(false)) })
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range n {
			for k, act := range []string{"accept", "decline", "cancel"} {
				wg.Go(func() {
					var st int
					var body []byte
					switch act {
					case "accept":
						st, body = l.call(i+k, http.MethodPost, "/v1/challenges/"+ids[i]+"/accept", to[i].token, nil, nil)
					case "decline":
						st, body = l.call(i+k, http.MethodPost, "/v1/challenges/"+ids[i]+"/decline", to[i].token, map[string]string{"reason": "later"}, nil)
					default:
						st, body = l.call(i+k, http.MethodDelete, "/v1/challenges/"+ids[i], from[i].token, nil, nil)
					}
					switch {
					case st == http.StatusOK:
						mu.Lock()
						if winners[i] != "" {
							t.Errorf("challenge %d: both %s and %s won", i, winners[i], act)
						}
						winners[i] = act
						mu.Unlock()
					case st != http.StatusConflict || problemCode(body) != "challenge_closed":
						t.Errorf("challenge %d, %s: %d %s", i, act, st, body)
					}
				})
			}
		}
		wg.Wait()
		want := map[string]string{"accept": "accepted", "decline": "declined", "cancel": "cancelled"}
		for i, id := range ids {
			status, game := challengeRow(t, db, id)
			if winners[i] == "" || status != want[winners[i]] || (status == "accepted") != (game != "") {
				t.Errorf("challenge %d: %s won, stored %s with game %q", i, winners[i], status, game)
			}
		}
		checkGamesBetween(t, db, "from", "to")
	})

	t.Run("two accepts of one open challenge on two instances: one game, one 409", func(t *testing.T) {
		const n = 40
		from, x, y := l.players(t, "open", n), l.players(t, "x", n), l.players(t, "y", n)
		ids := make([]string, n)
		parallel(n, func(i int) { ids[i] = l.challenge(t, i, from[i], "", termsOf(true)) })
		statuses := make([][2]int, n)
		var wg sync.WaitGroup
		for i := range n {
			for k, p := range []lobbyPlayer{x[i], y[i]} {
				wg.Go(func() {
					var body []byte
					statuses[i][k], body = l.call(k, http.MethodPost, "/v1/challenges/"+ids[i]+"/accept", p.token, nil, nil)
					if statuses[i][k] == http.StatusConflict && problemCode(body) != "challenge_closed" {
						t.Errorf("challenge %d: 409 %s", i, body)
					}
				})
			}
		}
		wg.Wait()
		for i, id := range ids {
			ok := 0
			for _, st := range statuses[i] {
				if st == http.StatusOK {
					ok++
				} else if st != http.StatusConflict {
					t.Errorf("open challenge %d: %v", i, statuses[i])
				}
			}
			status, game := challengeRow(t, db, id)
			if ok != 1 || status != "accepted" || game == "" {
				t.Errorf("open challenge %d: answers %v, stored %s with game %q", i, statuses[i], status, game)
			}
		}
		checkGamesBetween(t, db, "open", "x", "y")
	})

	t.Run("accepts racing the expiry: accepted with a game, or expired without", func(t *testing.T) {
		const n = 40
		from, to := l.players(t, "late", n), l.players(t, "early", n)
		ids := make([]string, n)
		made := make([]time.Time, n)
		for i := range n {
			ids[i], made[i] = l.challenge(t, i, from[i], to[i].id, termsOf(true)), time.Now()
		}
		accepted := make([]bool, n)
		var wg sync.WaitGroup
		for i := range n {
			// Accepts spread from 600 ms before the expiry to 600 ms
			// after, while each instance's expirer runs every second.
			at := made[i].Add(challengeTTL - 600*time.Millisecond + time.Duration(i)*1200*time.Millisecond/n)
			wg.Go(func() {
				time.Sleep(time.Until(at))
				st, body := l.call(i, http.MethodPost, "/v1/challenges/"+ids[i]+"/accept", to[i].token, nil, nil)
				switch {
				case st == http.StatusOK:
					accepted[i] = true
				case st != http.StatusConflict || problemCode(body) != "challenge_closed":
					t.Errorf("challenge %d: %d %s", i, st, body)
				}
			})
		}
		wg.Wait()
		// Every instance's expirer has run since the last expiry.
		time.Sleep(1500 * time.Millisecond)
		won := 0
		for i, id := range ids {
			status, game := challengeRow(t, db, id)
			switch {
			case accepted[i] && status == "accepted" && game != "":
				won++
			case !accepted[i] && status == "expired" && game == "":
			default:
				t.Errorf("challenge %d: accept answered ok=%v, stored %s with game %q", i, accepted[i], status, game)
			}
		}
		checkGamesBetween(t, db, "late", "early")
		t.Logf("%d of %d accepted before their expiry", won, n)
	})

	t.Run("both players ask for a rematch at once on two instances: one game", func(t *testing.T) {
		const n = 40
		ps, qs := l.players(t, "rema", n), l.players(t, "remb", n)
		finished := make([]string, n)
		for i := range n {
			id := l.challenge(t, i, ps[i], qs[i].id, termsOf(true))
			var c struct{ Game string }
			if st, body := l.call(i+1, http.MethodPost, "/v1/challenges/"+id+"/accept", qs[i].token, nil, &c); st != http.StatusOK {
				t.Fatalf("accept: %d %s", st, body)
			}
			if st, body := l.call(i, http.MethodPost, "/v1/games/"+c.Game+"/resign", ps[i].token, nil, nil); st != http.StatusOK {
				t.Fatalf("resign: %d %s", st, body)
			}
			finished[i] = c.Game
		}
		answers := make([][2]string, n)
		var wg sync.WaitGroup
		for i := range n {
			for k, p := range []lobbyPlayer{ps[i], qs[i]} {
				wg.Go(func() {
					var c struct{ ID string }
					if st, body := l.call(k, http.MethodPost, "/v1/games/"+finished[i]+"/rematch", p.token, nil, &c); st != http.StatusCreated {
						t.Errorf("rematch %d by %d: %d %s", i, k, st, body)
					}
					answers[i][k] = c.ID
				})
			}
		}
		wg.Wait()
		for i, g := range finished {
			var count int
			var status, game string
			err := db.QueryRow(t.Context(), `SELECT count(*), min(status), coalesce(min(game_id), '') FROM challenges WHERE rematch_of = $1`, g).Scan(&count, &status, &game)
			if err != nil || count != 1 || status != "accepted" || game == "" || answers[i][0] != answers[i][1] {
				t.Errorf("rematch of %s: %d challenges, %s, game %q, answers %v, %v", g, count, status, game, answers[i], err)
			}
		}
		checkGamesBetween(t, db, "rema", "remb")
	})
}

// lobbyClient calls two instances with players' tokens.
type lobbyClient struct {
	t    *testing.T
	http *http.Client
	urls [2]string
}

type lobbyPlayer struct{ id, name, token string }

// call sends a request to instance which%2 with a Player-Token and decodes
// a 2xx answer into out.
func (l *lobbyClient) call(which int, method, path, token string, body, out any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			l.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, l.urls[which%2]+path, rd)
	if err != nil {
		l.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Player-Token", token)
	}
	resp, err := l.http.Do(req)
	if err != nil {
		l.t.Errorf("%s %s: %v", method, path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 == 2 && out != nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		l.t.Errorf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, data
}

// inFlight bounds the requests a race has in flight at once, over both
// instances.
const inFlight = 16

// parallel runs f(0..n-1) with at most inFlight calls in flight.
func parallel(n int, f func(i int)) {
	slots := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			f(i)
		})
	}
	wg.Wait()
}

// players creates n players named prefix0000..., half on each instance.
func (l *lobbyClient) players(t *testing.T, prefix string, n int) []lobbyPlayer {
	t.Helper()
	ps := make([]lobbyPlayer, n)
	parallel(n, func(i int) {
		var out struct {
			Player struct{ ID string }
			Token  string
		}
		name := fmt.Sprintf("%s%04d", prefix, i)
		if st, body := l.call(i, http.MethodPost, "/v1/players", "", map[string]string{"name": name}, &out); st != http.StatusCreated {
			t.Errorf("player %s: %d %s", name, st, body)
		}
		ps[i] = lobbyPlayer{id: out.Player.ID, name: name, token: out.Token}
	})
	if t.Failed() {
		t.FailNow()
	}
	return ps
}

// challenge sends p's challenge to player to ("" for an open one) on
// instance which.
func (l *lobbyClient) challenge(t *testing.T, which int, p lobbyPlayer, to string, terms seekTerms) string {
	t.Helper()
	body := map[string]any{"timeControl": terms.api()}
	if to != "" {
		body["to"] = to
	}
	var c struct{ ID string }
	if st, resp := l.call(which, http.MethodPost, "/v1/challenges", p.token, body, &c); st != http.StatusCreated {
		t.Errorf("challenge: %d %s", st, resp)
	}
	return c.ID
}

// seekTerms is what a seek of the race asks for, as the test knows it.
type seekTerms struct {
	tc    games.TimeControl
	rated bool
	seat  lobby.SeatChoice
	rng   lobby.Range
}

var (
	bullet = games.TimeControl{Kind: games.Live, Initial: time.Minute}
	blitz  = games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute, Increment: 2 * time.Second}
	mail   = games.TimeControl{Kind: games.Correspondence, PerMove: 3 * 24 * time.Hour}
)

// termsOf is a clock (1+0) or correspondence (3 days) challenge's terms.
func termsOf(clock bool) seekTerms {
	if clock {
		return seekTerms{tc: bullet}
	}
	return seekTerms{tc: mail}
}

func (s seekTerms) api() map[string]any {
	if s.tc.Kind == games.Correspondence {
		return map[string]any{"kind": "correspondence", "daysPerMove": int(s.tc.PerMove / (24 * time.Hour))}
	}
	return map[string]any{"kind": "clock", "initialSeconds": int(s.tc.Initial / time.Second), "incrementSeconds": int(s.tc.Increment / time.Second)}
}

// racedSeek is a seek the race posted: what it asked for and who.
type racedSeek struct {
	id     string
	player string
	terms  seekTerms
}

// seek is r as lobby.Compatible reads one: every new player is rated
// 1,500 in each category.
func (r *racedSeek) seek() lobby.Seek {
	return lobby.Seek{ID: r.id, PlayerID: r.player, TimeControl: r.terms.tc, Rated: r.terms.rated, Seat: r.terms.seat,
		Range: r.terms.rng, Rating: players.Rating{Value: 1500}}
}

// raceSeeks has each player post a seek, and every fourth one a second
// clock seek at the same moment, over three time controls, both rated
// flags, the three seats and, for every tenth player, a range nobody new
// lies in; the posts alternate between the instances, inFlight at a time.
func raceSeeks(t *testing.T, l *lobbyClient, ps []lobbyPlayer) []racedSeek {
	t.Helper()
	type post struct {
		p     int
		terms seekTerms
	}
	var posts []post
	seats := []lobby.SeatChoice{lobby.SeatRandom, lobby.SeatSouth, lobby.SeatNorth}
	for i := range ps {
		first := seekTerms{tc: []games.TimeControl{bullet, blitz, mail}[i%3], rated: (i/3)%2 == 0, seat: seats[(i/6)%3]}
		if i%10 == 9 {
			first.rng = lobby.Range{Min: 1800, Max: 1900, Set: true}
		}
		posts = append(posts, post{i, first})
		if i%4 == 0 {
			second := first
			second.tc, second.rng = bullet, lobby.Range{}
			if first.tc == bullet {
				second.tc = blitz
			}
			posts = append(posts, post{i, second})
		}
	}
	seeks := make([]racedSeek, len(posts))
	start := time.Now()
	refused := 0
	var mu sync.Mutex
	parallel(len(posts), func(k int) {
		p := posts[k]
		body := map[string]any{"timeControl": p.terms.api(), "rated": p.terms.rated, "seat": string(p.terms.seat)}
		if p.terms.rng.Set {
			body["ratingRange"] = map[string]float64{"min": p.terms.rng.Min, "max": p.terms.rng.Max}
		}
		var out struct{ ID string }
		st, resp := l.call(k, http.MethodPost, "/v1/seeks", ps[p.p].token, body, &out)
		switch {
		case st == http.StatusCreated:
			seeks[k] = racedSeek{id: out.ID, player: ps[p.p].id, terms: p.terms}
		case st == http.StatusConflict && problemCode(resp) == "already_playing":
			mu.Lock()
			refused++
			mu.Unlock()
		default:
			t.Errorf("seek %d: %d %s", k, st, resp)
		}
	})
	t.Logf("%d seeks posted in %v (%d refused: already playing a clock game)", len(posts), time.Since(start).Round(time.Millisecond), refused)
	return seeks
}

// checkSeeks reads the race's seeks and games back from the database:
// every seek is in at most one game, every game joins two compatible
// seeks of its two players, nobody has two clock games, and no two
// compatible seeks are left open.
func checkSeeks(t *testing.T, db *pgx.Conn, seeks []racedSeek) {
	t.Helper()
	ctx := t.Context()
	byID := map[string]*racedSeek{}
	for i := range seeks {
		if seeks[i].id != "" {
			byID[seeks[i].id] = &seeks[i]
		}
	}
	rows, err := db.Query(ctx, `SELECT id, status, coalesce(game_id, ''), coalesce(side, ''), expires_at > now() FROM seeks`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id, status, game, side string
		live                   bool
	}
	stored, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.id, &x.status, &x.game, &x.side, &x.live)
	})
	if err != nil {
		t.Fatal(err)
	}
	byGame := map[string][]row{}
	var open []lobby.Seek
	counts := map[string]int{}
	for _, r := range stored {
		counts[r.status]++
		if byID[r.id] == nil {
			t.Errorf("seek %s in the database was not posted", r.id)
			continue
		}
		switch {
		case r.status == "matched":
			byGame[r.game] = append(byGame[r.game], r)
		case r.game != "":
			t.Errorf("seek %s is %s with game %s", r.id, r.status, r.game)
		case r.status == "open" && r.live:
			open = append(open, byID[r.id].seek())
		}
	}
	if len(stored) != len(byID) {
		t.Errorf("%d seeks stored, %d posted", len(stored), len(byID))
	}
	gameRows, err := db.Query(ctx, `SELECT id, time_kind, south_player, north_player FROM games`)
	if err != nil {
		t.Fatal(err)
	}
	clockGames := map[string]int{}
	ngames := 0
	for gameRows.Next() {
		var id, kind, south, north string
		if err := gameRows.Scan(&id, &kind, &south, &north); err != nil {
			t.Fatal(err)
		}
		ngames++
		in := byGame[id]
		if len(in) != 2 {
			t.Errorf("game %s joins %d seeks", id, len(in))
			continue
		}
		x, y := byID[in[0].id].seek(), byID[in[1].id].seek()
		seat := map[string]string{in[0].side: x.PlayerID, in[1].side: y.PlayerID}
		if !lobby.Compatible(&x, &y) || seat["south"] != south || seat["north"] != north {
			t.Errorf("game %s (%s against %s) joins %+v and %+v", id, south, north, x, y)
		}
		if kind == "live" {
			clockGames[south]++
			clockGames[north]++
		}
	}
	if err := gameRows.Err(); err != nil {
		t.Fatal(err)
	}
	if ngames != len(byGame) {
		t.Errorf("%d games stored, %d named by seeks", ngames, len(byGame))
	}
	for p, k := range clockGames {
		if k > 1 {
			t.Errorf("player %s has %d clock games", p, k)
		}
	}
	for i := range open {
		for j := i + 1; j < len(open); j++ {
			if lobby.Compatible(&open[i], &open[j]) {
				t.Errorf("compatible seeks %s and %s left open", open[i].ID, open[j].ID)
			}
		}
	}
	t.Logf("%d seeks: %v; %d games", len(stored), counts, ngames)
}

// challengeRow is a challenge's status and game as stored.
func challengeRow(t *testing.T, db *pgx.Conn, id string) (string, string) {
	t.Helper()
	var status, game string
	if err := db.QueryRow(t.Context(), `SELECT status, coalesce(game_id, '') FROM challenges WHERE id = $1`, id).Scan(&status, &game); err != nil {
		t.Fatalf("challenge %s: %v", id, err)
	}
	return status, game
}

// checkGamesBetween checks, over the players whose names start with the
// prefixes, that every game stored is named by exactly one accepted
// challenge and nobody has two clock games in play.
func checkGamesBetween(t *testing.T, db *pgx.Conn, prefixes ...string) {
	t.Helper()
	var patterns []string
	for _, p := range prefixes {
		patterns = append(patterns, p+"%")
	}
	var orphans, twice int
	err := db.QueryRow(t.Context(), `WITH ours AS (SELECT id FROM players WHERE name LIKE ANY($1)),
		gs AS (SELECT g.id, g.time_kind, g.status, g.south_player, g.north_player FROM games g
			WHERE g.south_player IN (SELECT id FROM ours) OR g.north_player IN (SELECT id FROM ours))
		SELECT (SELECT count(*) FROM gs WHERE (SELECT count(*) FROM challenges c WHERE c.game_id = gs.id AND c.status = 'accepted') <> 1),
			(SELECT count(*) FROM (SELECT p FROM (SELECT south_player AS p FROM gs WHERE time_kind = 'live' AND status = 'active'
				UNION ALL SELECT north_player FROM gs WHERE time_kind = 'live' AND status = 'active') AS x GROUP BY p HAVING count(*) > 1) AS y)`,
		patterns).Scan(&orphans, &twice)
	if err != nil {
		t.Fatal(err)
	}
	if orphans != 0 || twice != 0 {
		t.Errorf("%d games without exactly one accepted challenge, %d players with two clock games", orphans, twice)
	}
}

// problemCode is the code of a problem answer.
func problemCode(body []byte) string {
	var p struct{ Code string }
	_ = json.Unmarshal(body, &p)
	return p.Code
}
